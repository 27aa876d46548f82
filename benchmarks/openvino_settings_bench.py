"""OpenVINO's CPU settings for the MiniLM encoder (issue 44): which compile settings and request scheme encode
ChainEval's texts fastest here, whether each keeps the vectors bit for bit, and what tokenising and pooling cost.

The texts are the distinct step texts ChainEval embeds (after the gate) on the 26-model matrix of
:mod:`benchmarks.realistic_outputs` (one problem per template), a fixed sample of ``--texts``. Each setting encodes
all of them per round, batched by exact token count as the scorer does; rounds are interleaved and every ratio is
against the baseline of the same round (the settings before issue 44: ``LATENCY`` on every thread, one synchronous
request per batch, batches of any size), printed per round and as a median, for wall and for this process's CPU
time. Settings:

- ``throughput``: what the backend runs now (:func:`scorers.embedding_backends.openvino_config`: ``THROUGHPUT``,
  one stream per thread, an ``AsyncInferQueue`` of one request per stream);
- ``throughput, no pinning``: the same with ``ENABLE_CPU_PINNING`` off (a shared machine moves threads about);
- ``throughput, batches of any size``: the default settings with the batches of the baseline (a token count's
  texts 128 at a time, the last batch whatever is left) instead of the powers of two of
  :func:`~scorers.embedding_backends.batch_bounds`; the memory side of that choice is
  ``benchmarks/chaineval_limit_bench.py``'s peak at two sizes;
- ``latency, 1 thread``: one synchronous request on one core (its CPU time is the work itself);
- ``u8 weights``: the ``onnx-int8`` export (8-bit weights in blocks of 32) compiled by OpenVINO, which reads
  ``MatMulNBits`` as u8 weights decompressed in the kernel (NNCF is not needed for that), with and without
  ``DYNAMIC_QUANTIZATION_GROUP_SIZE`` 32 (int8 products on activations quantised per group of 32).

Also printed: the share of one encode call spent tokenising, building the feeds and pooling, outside OpenVINO.
Run niced on a shared machine and quote the load it prints: ``nice -n 5 python benchmarks/openvino_settings_bench.py``.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def gated_texts(count: int) -> list[str]:
    """A fixed sample of the distinct texts the scorer embeds on the 7,540-output matrix (paper profile)."""
    from benchmarks.realistic_outputs import matrix_rows
    from scorers.chaineval import score_batch
    from scorers.rows import gold_of

    class Asked:
        def __init__(self):
            self.texts: dict[str, None] = {}

        def encode_cached(self, texts):
            self.texts.update(dict.fromkeys(texts))
            return np.full((len(texts), 4), 0.5, np.float32)

    rows = list(matrix_rows(26, 1))
    asked = Asked()
    score_batch([gold_of(r) for r in rows], [r["output"] for r in rows], "paper", asked)
    texts = list(asked.texts)
    random.Random(44).shuffle(texts)
    return texts[:count]


class OneRequest:
    """The scheme before issue 44: one synchronous request, batch after batch."""

    def __init__(self, compiled) -> None:
        self.request = compiled.create_infer_request()

    def run(self, _outputs, feeds):
        self.request.infer(feeds)
        return [self.request.get_output_tensor(0).data.copy()]


def settings(encoder, threads: int) -> dict:
    """name -> a session object the encoder runs (``run`` only: synchronous; ``run_batches``: the queue)."""
    import openvino as ov

    from scorers import embedding_backends as eb

    model_dir = encoder.model_dir
    core = ov.Core()
    bf16 = {"INFERENCE_PRECISION_HINT": "bf16" if eb.cpu_has_bf16() else "f32"}

    def queued(config, path=encoder.path):
        session = eb._OpenVinoSession.__new__(eb._OpenVinoSession)
        session.compiled = core.compile_model(str(path), "CPU", {**bf16, **config})
        session.streams = int(session.compiled.get_property("NUM_STREAMS"))
        session.request = session.compiled.create_infer_request()
        session.requests = None
        return session

    int8 = eb.exported_model(model_dir, "onnx-int8")
    one = {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": 1}
    return {
        "baseline: latency, one request, batches of any size": OneRequest(core.compile_model(str(encoder.path), "CPU", {
            **bf16, "PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": threads})),
        "throughput (now the default)": queued(eb.openvino_config(threads)),
        "throughput, batches of any size": queued(eb.openvino_config(threads)),
        "throughput, no pinning": queued({**eb.openvino_config(threads), "ENABLE_CPU_PINNING": False}),
        "latency, 1 thread": OneRequest(core.compile_model(str(encoder.path), "CPU", {**bf16, **one})),
        "u8 weights, throughput": queued(eb.openvino_config(threads), int8),
        "u8 weights + dyn. int8 (group 32), throughput": queued(
            {**eb.openvino_config(threads), "DYNAMIC_QUANTIZATION_GROUP_SIZE": 32}, int8),
    }


def outside_share(encoder, texts: list[str]) -> str:
    """CPU of tokenising, building feeds and pooling against the whole encode call (default session)."""
    start = cpu_s()
    encodings = encoder.tokenizer.encode_batch(texts)
    tokenise = cpu_s() - start
    from scorers.embedding_backends import by_token_count

    batches = [g[s:s + 128] for g in by_token_count([len(e.ids) for e in encodings]) for s in range(0, len(g), 128)]
    start = cpu_s()
    feeds = [np.array([encodings[k].ids for k in idx], dtype=np.int64) for idx in batches]
    build = cpu_s() - start
    hidden = [np.random.default_rng(0).standard_normal((*ids.shape, encoder.dim)).astype(np.float32) for ids in feeds]
    start = cpu_s()
    for h in hidden:
        pooled = h.mean(axis=1)
        pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
    pool = cpu_s() - start
    start = cpu_s()
    encoder.encode(texts, 128)
    whole = cpu_s() - start
    return (f"tokenise {tokenise:.2f} CPU-s ({100 * tokenise / whole:.1f}%), feeds {build:.2f} s "
            f"({100 * build / whole:.1f}%), mean-pool + normalise {pool:.2f} s ({100 * pool / whole:.1f}%) of a "
            f"{whole:.2f} CPU-s encode call")


def any_size(count: int, batch_size: int) -> list[tuple[int, int]]:
    """The batches before issue 44: ``batch_size`` texts at a time, the last one whatever is left."""
    return [(start, min(start + batch_size, count)) for start in range(0, count, batch_size)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--texts", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None, help="encoder threads (default: every core)")
    parser.add_argument("--only", default="", help="run only the settings whose names contain one of these "
                        "|-separated words (the baseline always runs)")
    args = parser.parse_args()
    from benchmarks.chaineval_limit_bench import load, machine
    from scorers.embedding_backends import OnnxEncoder, cpu_has_bf16, encoder_threads
    from scorers.embeddings import Embedder

    threads = args.threads or encoder_threads()
    texts = gated_texts(args.texts)
    backend = "openvino-bf16" if cpu_has_bf16() else "openvino"
    model_dir = Embedder()._packaged_path()
    encoder = OnnxEncoder(model_dir, backend, threads=threads)
    encoder.model_dir = model_dir
    print(f"machine: {machine()}; {load()}; {backend}, {threads} threads, {len(texts):,} texts")
    print("outside the model:", outside_share(encoder, texts))
    sessions = settings(encoder, threads)
    base = next(iter(sessions))
    if args.only:
        sessions = {k: v for k, v in sessions.items() if k == base or any(w in k for w in args.only.split("|"))}
    wall: dict[str, list[float]] = {name: [] for name in sessions}
    cpu: dict[str, list[float]] = {name: [] for name in sessions}
    vectors: dict[str, np.ndarray] = {}
    from scorers import embedding_backends as eb

    powers = eb.batch_bounds
    for rnd in range(-1, args.rounds):  # round -1 warms every setting up (OpenVINO compiles kernels per shape)
        for name, session in sessions.items():
            encoder.session = session
            eb.batch_bounds = any_size if "any size" in name else powers
            w, c = time.perf_counter(), cpu_s()
            got = encoder.encode(texts, 128)
            if rnd < 0:
                continue
            wall[name].append(time.perf_counter() - w)
            cpu[name].append(cpu_s() - c)
            if name in vectors and not np.array_equal(vectors[name], got):
                print(f"  {name}: round {rnd} gave other vectors than round 0 (not deterministic)")
            vectors.setdefault(name, got)
        eb.batch_bounds = powers
        print(f"round {rnd + 1}: {load()}", flush=True)
    for name in sessions:
        w = [b / x for b, x in zip(wall[base], wall[name])]
        c = [b / x for b, x in zip(cpu[base], cpu[name])]
        same = np.array_equal(vectors[name], vectors[base])
        cosine = float((vectors[name] * vectors[base]).sum(axis=1).min())
        print(f"{name}: wall {statistics.median(wall[name]):.2f}s, speed-up {statistics.median(w):.2f}x "
              f"({', '.join(f'{r:.2f}' for r in w)}); CPU {statistics.median(cpu[name]):.2f}s, "
              f"{statistics.median(c):.2f}x ({', '.join(f'{r:.2f}' for r in c)}); vectors "
              + ("bit-identical to the baseline" if same else f"differ (min cosine {cosine:.5f})"))
    print(f"done; {load()}")


if __name__ == "__main__":
    main()
