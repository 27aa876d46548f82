"""Embedding backends: the same sentence encoder run by torch (fp32, the reference), ONNX Runtime or
OpenVINO.

ChainEval spends nearly all its time in the MiniLM forward pass, so the speed is here. The other
backends run the *same* weights from one fp32 ONNX export: ``onnx`` (ONNX Runtime, the same arithmetic,
other kernels), ``onnx-int8`` (its int8 form, below), ``openvino`` (OpenVINO in fp32) and
``openvino-bf16`` (OpenVINO multiplying in bfloat16 with fp32 accumulation, on a CPU with bfloat16
instructions: AVX512_BF16 or AMX). ``benchmarks/embedding_backends_bench.py`` measures how far each moves
a ChainEval score; a backend is recommended only when p99 |delta| <= 0.005 and max <= 0.02
(:data:`AGREEMENT_LIMITS`).

Why bfloat16 and not int8 for speed: the int8 kernels that keep scores within the bar (per-block weight
and activation scales, ``MatMulNBits``) are barely faster than fp32 in ONNX Runtime 1.32, and the fast
VNNI kernel (``MatMulInteger``: one weight scale per column, one activation scale per token) moved scores
by p99 0.005-0.008 in every variant tried on 1,450 outputs (SmoothQuant alpha 0.5/0.7, non-negative
post-GELU inputs, mixed layers): at the bar at best, never clear of it. bfloat16 keeps 8 exponent
bits, so no scale is lost, and moved scores by p99 0.0007.

Which int8: ``quantize_dynamic`` (per-channel int8 weights, activations quantised with one uint8
scale per batch tensor) moved scores by p99 0.022 / max 0.029, and no choice of layers to keep in
fp32 (first or last layer, attention, either FFN matmul) nor SmoothQuant scaling calibrated on the
project's own gold steps brought p99 under 0.012: the error is the one activation scale per tensor,
spread over every layer. ``onnx-int8`` therefore stores each weight matmul as ``MatMulNBits`` with
8-bit weights in blocks of :data:`INT8_BLOCK` along the input dimension (one scale per block and
output column) and ``accuracy_level=4``: ONNX Runtime multiplies in int8, quantising the
activations per row and block as well, which keeps p99 |delta| near 0.003 (see the test).

Exported files live in the user cache (``platformdirs``), keyed by a hash of the model's files and
by backend, never in the package. An export is written to a temporary folder beside its final place
and renamed into it, so a failed or interrupted export leaves no half-written entry.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

BACKENDS = ("torch", "onnx", "onnx-int8", "openvino", "openvino-bf16")
"""Backend names ('torch' is the reference), chosen by ``FINCHAIN_EMBEDDING_BACKEND``."""
DEFAULT_BACKEND = "torch"
"""The reference backend: what an :class:`Embedder` built without a backend runs, and what published figures use."""
AUTO = "auto"
"""``FINCHAIN_EMBEDDING_BACKEND`` unset or ``auto``: the fastest backend installed here that meets the bar."""
AUTO_ORDER = ("openvino-bf16", "openvino", "onnx")
"""Auto's preference, fastest first as measured on 2,900 outputs (3.4x, 1.9x, 1.6x torch's samples/s), each
within :data:`AGREEMENT_LIMITS` of torch (p99 |delta| 0.0007; <= 1e-6; <= 1e-6). ``onnx-int8`` (2.1x) meets the bar
with less room (p99 0.003-0.004 against 0.005): it stays opt-in."""
BACKEND_ENV = "FINCHAIN_EMBEDDING_BACKEND"
AGREEMENT_LIMITS = {"p99": 0.005, "max": 0.02}
"""A backend may be recommended only when its per-sample |delta chaineval| against torch fp32 stays
within these (issue 19)."""
_EXTRA = {"onnx": "onnx", "onnx-int8": "onnx", "openvino": "openvino", "openvino-bf16": "openvino"}
_NEEDS = {"onnx": ("onnxruntime", "onnx"), "onnx-int8": ("onnxruntime", "onnx"),
          "openvino": ("openvino", "onnx"), "openvino-bf16": ("openvino", "onnx")}
_CACHE_ENV = "FINCHAIN_EMBEDDING_CACHE"
INT8_BLOCK = 32
"""Input-dimension block of one int8 weight scale: 32 kept p99 |delta| at 0.0026 on 290 outputs, 128 at
0.0042 (too near the bar) for about 8% more speed."""
_RECIPE = {"onnx": "fp32-opset17", "onnx-int8": f"matmulnbits8-b{INT8_BLOCK}"}
"""Part of each export's cache key: a changed recipe makes a new entry rather than reusing an old file."""
_THREADS_ENV = "FINCHAIN_EMBED_THREADS"


class BackendUnavailable(RuntimeError):
    """A backend cannot run here: its packages are missing (the one-line message names the extra to
    install) or, for ``openvino-bf16``, the CPU has no bfloat16 instructions."""


def check_backend(name: str) -> None:
    """Fail at start, in one line, when ``name`` is unknown or its packages are not installed."""
    if name not in BACKENDS:
        raise ValueError(f"unknown embedding backend {name!r} ({BACKEND_ENV}); choose one of "
                         f"{', '.join((AUTO, *BACKENDS))}")
    missing = [mod for mod in _NEEDS.get(name, ()) if importlib.util.find_spec(mod) is None]
    if missing:
        raise BackendUnavailable(
            f"embedding backend {name!r} needs {', '.join(missing)}: pip install 'finchain-tasks[{_EXTRA[name]}]'")
    if name == "openvino-bf16" and not cpu_has_bf16():
        raise BackendUnavailable("embedding backend 'openvino-bf16' needs a CPU with bfloat16 instructions "
                                 "(AVX512_BF16 or AMX), which this one lacks: use 'openvino' or 'onnx'")


def cpu_has_bf16() -> bool:
    """Whether OpenVINO's CPU plugin can multiply in bfloat16 here. Without it a bf16 hint silently runs
    fp32, so the backend's name would misstate what produced the vectors: it fails at start instead."""
    import openvino as ov

    return "BF16" in ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")


def default_backend() -> str:
    """The backend named by ``FINCHAIN_EMBEDDING_BACKEND`` (checked: a typo fails at start), else the automatic
    choice (:func:`auto_backend`). ``FINCHAIN_EMBEDDING_BACKEND=torch`` gives the reference for published figures;
    every result records the backend that produced it (``embedding_backend``)."""
    name = os.environ.get(BACKEND_ENV, "").strip() or AUTO
    if name == AUTO:
        return auto_backend()
    check_backend(name)
    return name


def auto_backend() -> str:
    """The first of :data:`AUTO_ORDER` that runs here (its packages installed; for ``openvino-bf16``, a CPU with
    bfloat16), else torch. With an NVIDIA GPU, torch: it encodes on the GPU, faster than any CPU backend. Why not
    torch always: on a CPU ``openvino-bf16`` scores 3-5x faster and starts in under a second instead of 8-9 s
    (importing torch), with no verdict changed on 2,900 outputs."""
    if nvidia_gpu_present():
        return DEFAULT_BACKEND
    for name in AUTO_ORDER:
        try:
            check_backend(name)
        except (BackendUnavailable, ImportError, RuntimeError):
            continue
        return name
    return DEFAULT_BACKEND


def nvidia_gpu_present() -> bool:
    """Whether an NVIDIA driver is loaded, read without importing torch (seconds): its ``/proc`` entry."""
    return Path("/proc/driver/nvidia/version").exists()


def encoder_threads() -> int:
    """Threads for the encoder: all cores unless ``FINCHAIN_EMBED_THREADS`` says otherwise."""
    value = os.environ.get(_THREADS_ENV, "").strip()
    if value:
        try:
            threads = int(value)
        except ValueError:
            raise ValueError(f"{_THREADS_ENV} must be a whole number, got {value!r}") from None
        if threads < 1:
            raise ValueError(f"{_THREADS_ENV} must be >= 1, got {threads}")
        return threads
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def cuda_available(backend: str = DEFAULT_BACKEND) -> bool:
    """True when the backend's runtime sees a CUDA device. An ONNX backend asks onnxruntime, so a
    process scoring with it never imports torch (seconds of start-up)."""
    if backend.startswith("openvino"):  # OpenVINO's GPU plugin drives Intel GPUs, not CUDA
        return False
    if backend != "torch":
        import onnxruntime as ort

        return "CUDAExecutionProvider" in ort.get_available_providers()
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


def cache_root() -> Path:
    """Where exported models live: ``$FINCHAIN_EMBEDDING_CACHE`` or the user cache directory."""
    override = os.environ.get(_CACHE_ENV)
    if override:
        return Path(override)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("finchain-tasks")) / "embeddings"


def model_hash(model_dir: str | Path) -> str:
    """A short hash of the model folder's files (names, sizes and contents of configs; names, sizes
    and a content sample of large weights): a changed model gets a new cache entry, never a stale one."""
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(model_dir).rglob("*") if p.is_file() and p.name != "README.md"):
        rel = path.relative_to(model_dir).as_posix()
        size = path.stat().st_size
        digest.update(f"{rel}\0{size}\0".encode())
        with path.open("rb") as fh:
            if size <= 4 << 20:
                digest.update(fh.read())
            else:  # head and tail of the weights: enough to tell two checkpoints apart, cheap at start-up
                digest.update(fh.read(1 << 20))
                fh.seek(size - (1 << 20))
                digest.update(fh.read())
    return digest.hexdigest()[:16]


def exported_model(model_dir: str | Path, backend: str) -> Path:
    """The ONNX file for ``backend`` of the model in ``model_dir``, exporting it on first use."""
    backend = _EXPORT_OF.get(backend, backend)
    final = cache_root() / model_hash(model_dir) / f"{backend}.{_RECIPE[backend]}"
    target = final / _FILE[backend]
    if target.is_file():
        return target
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{backend}-", dir=final.parent))
    try:
        fp32 = tmp / _FILE["onnx"]
        _export_fp32(model_dir, fp32)
        if backend == "onnx-int8":
            _quantize(fp32, tmp / _FILE[backend])
            fp32.unlink()
        (tmp / "source.json").write_text(json.dumps({"model_dir": str(model_dir), "backend": backend,
                                                     "recipe": _RECIPE[backend]}))
        try:
            os.replace(tmp, final)
        except OSError:  # another process finished the same export first: keep theirs
            if not target.is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


_FILE = {"onnx": "model.onnx", "onnx-int8": "model_int8.onnx"}
_EXPORT_OF = {"openvino": "onnx", "openvino-bf16": "onnx"}
"""OpenVINO reads the fp32 ONNX export itself (its precision is a compile option), so they share it."""


def _export_fp32(model_dir: str | Path, out: Path) -> None:
    """Trace the transformer (eager attention: a plain graph ONNX Runtime fuses well) to ONNX."""
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager", trust_remote_code=False,
                                      use_safetensors=True).eval()  # a folder from elsewhere never runs code

    class _Hidden(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    ids = torch.ones(2, 8, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {name: {0: "batch", 1: "tokens"} for name in [*names, "last_hidden_state"]}
    with torch.no_grad():
        torch.onnx.export(_Hidden(model), (ids, ids, torch.zeros_like(ids)), str(out), input_names=names,
                          output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=17, dynamo=False)


def block_quantize(weight: np.ndarray, block: int = INT8_BLOCK) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric 8-bit block quantisation of a [K, N] matmul weight in ``MatMulNBits`` layout:
    (codes uint8 [N, K/block, block], stored with the implicit zero point 128; scales float32
    [N, K/block]), so that ``weight[k, n] ~= (codes[n, k // block, k % block] - 128) * scales[n, k // block]``
    within half a scale. K is padded with zeros to whole blocks."""
    k, n = weight.shape
    blocks = -(-k // block)
    padded = np.zeros((blocks * block, n), dtype=np.float32)
    padded[:k] = weight
    cols = padded.T.reshape(n, blocks, block)
    scales = np.abs(cols).max(axis=2) / 127.0
    safe = np.where(scales > 0, scales, 1.0)[:, :, None]
    codes = np.clip(np.rint(cols / safe), -127, 127).astype(np.int16) + 128
    return codes.astype(np.uint8), scales.astype(np.float32)


def _quantize(src: Path, dst: Path, block: int = INT8_BLOCK) -> None:
    """Replace every MatMul with a constant weight by ``MatMulNBits`` (8 bits, ``block``, int8 compute);
    the attention matmuls (two activations) stay fp32. Why this form: see the module docstring."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(src))
    weights = {t.name: t for t in model.graph.initializer}
    nodes = []
    for node in model.graph.node:
        if node.op_type != "MatMul" or node.input[1] not in weights:
            nodes.append(node)
            continue
        weight = numpy_helper.to_array(weights[node.input[1]]).astype(np.float32)
        codes, scales = block_quantize(weight, block)
        name = node.input[1]
        model.graph.initializer.extend([numpy_helper.from_array(codes, name + "_q8"),
                                        numpy_helper.from_array(scales, name + "_scales")])
        nodes.append(helper.make_node("MatMulNBits", [node.input[0], name + "_q8", name + "_scales"], list(node.output),
                                      name=node.name + "_q8", domain="com.microsoft", K=weight.shape[0],
                                      N=weight.shape[1], bits=8, block_size=block, accuracy_level=4))
    used = {name for node in nodes for name in node.input}
    kept = [t for t in model.graph.initializer if t.name in used]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    if not any(op.domain == "com.microsoft" for op in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.save(model, str(dst))


def _ort_session(path: Path, threads: int, gpu: bool):
    """An ONNX Runtime session on ``threads`` cores (or CUDA when asked and present), and its device."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    available = ort.get_available_providers()
    providers = ["CUDAExecutionProvider"] if gpu and "CUDAExecutionProvider" in available else []
    session = ort.InferenceSession(str(path), options, providers=[*providers, "CPUExecutionProvider"])
    return session, ("cuda" if providers else "cpu")


class _OpenVinoSession:
    """The exported graph compiled by OpenVINO for the CPU, run as :data:`OPENVINO_CONFIG` says: one stream per
    thread, each running one batch at a time on one core, one request per stream in flight (:meth:`run_batches`)."""

    def __init__(self, path: Path, backend: str, threads: int) -> None:
        import openvino as ov

        precision = "bf16" if backend == "openvino-bf16" else "f32"
        config = {"INFERENCE_PRECISION_HINT": precision, **openvino_config(threads)}
        core = ov.Core()
        # OpenVINO keeps compiled blobs beside the export (keyed by file, config and OpenVINO version;
        # a damaged blob is recompiled): a later process starts in 0.1 s instead of 0.3 s
        core.set_property({"CACHE_DIR": str(path.parent.parent / "openvino-compiled")})
        self.compiled = core.compile_model(str(path), "CPU", config)
        got = self.compiled.get_property("INFERENCE_PRECISION_HINT")
        if got != (ov.Type.bf16 if precision == "bf16" else ov.Type.f32):
            # to_string(): "f32", where the Type itself prints "<Type: 'float32'>"
            raise BackendUnavailable(f"OpenVINO compiled {backend!r} in {got.to_string()}, not {precision}: use 'onnx'")
        self.streams = int(self.compiled.get_property("NUM_STREAMS"))
        self.request = self.compiled.create_infer_request()
        self.requests = None  # made on first use: one per stream

    def _requests(self) -> list:
        if self.requests is None:
            self.requests = [self.compiled.create_infer_request() for _ in range(self.streams)]
        return self.requests

    def run(self, _outputs, feeds: dict) -> list[np.ndarray]:
        self.request.infer(feeds)
        return [self.request.get_output_tensor(0).data.copy()]

    def run_batches(self, jobs: Iterable[tuple[list[int], dict]], consume: Callable[[list[int], np.ndarray], None]
                    ) -> None:
        """Run every ``(indices, feeds)`` job, ``consume(indices, hidden)`` for each in the order given (``hidden``
        is valid during the call only). One request per stream is in flight at once: a batch of one token count
        is too small to keep two threads of one request busy (``LATENCY`` with 2 threads spent 1.6x the CPU of
        one thread for the same vectors). ``consume`` runs in this thread, never in OpenVINO's: a Python callback
        there needs the interpreter lock, and a run hung for good when it could not get it (issue 44's first
        version used ``AsyncInferQueue`` callbacks)."""
        free = list(self._requests())
        flying: deque = deque()

        def land() -> None:
            request, indices = flying.popleft()
            request.wait()
            free.append(request)
            consume(indices, request.get_output_tensor(0).data)

        try:
            for indices, feeds in jobs:
                if not free:
                    land()
                request = free.pop()
                request.start_async(feeds)
                flying.append((request, indices))
            while flying:
                land()
        finally:
            for request, _ in flying:  # after an error: no request is left running into the next call
                request.wait()


def openvino_config(threads: int) -> dict:
    """OpenVINO's CPU settings for ``threads`` cores: ``THROUGHPUT`` with one stream per thread, so each batch
    runs on one core and ``threads`` batches run at once. Measured on a 2-core Xeon (Sapphire Rapids, AMX;
    benchmarks/openvino_settings_bench.py): 1.6-1.7x less CPU and 1.5-2.6x less wall than ``LATENCY`` on two
    threads, the same vectors bit for bit. One thread per stream also makes a vector independent of the thread
    count (an inference on one core sums in one order), and batches stay one token count each (by_token_count)."""
    return {"PERFORMANCE_HINT": "THROUGHPUT", "NUM_STREAMS": threads, "INFERENCE_NUM_THREADS": threads}


def by_token_count(lengths: Sequence[int]) -> list[list[int]]:
    """The texts' indices grouped by token count, shortest first; texts of no tokens left out. Every encoder runs
    one group at a time, so no text is padded: padding is masked, but it still moves a vector in its last bits,
    and a vector, and a score, would then depend on the texts that shared its batch (on the file it was scored
    in, and on how ``finchain score --ray`` split that file)."""
    groups: dict[int, list[int]] = {}
    for k, n in enumerate(lengths):
        groups.setdefault(int(n), []).append(k)
    return [groups[n] for n in sorted(groups) if n > 0]


def batch_bounds(count: int, batch_size: int) -> list[tuple[int, int]]:
    """(start, stop) of the batches of ``count`` texts of one token count: full batches of ``batch_size``, then the
    rest as powers of two (100 = 64 + 32 + 4). Why: OpenVINO keeps compiled kernels and buffers for every input
    shape it meets (about 1.2 MiB each, up to 5,000 shapes), and with batches of any size the shapes, and the
    memory, grew with the rows scored (80-90 MiB per 1,000 matrix rows); with these sizes a token count has at
    most log2(batch_size) + 1 shapes. A batch's size never changes a vector (no text is padded)."""
    bounds, start = [], 0
    while count - start >= batch_size:
        bounds.append((start, start + batch_size))
        start += batch_size
    size = 1 << max(batch_size.bit_length() - 1, 0)
    while start < count:
        while size > count - start:
            size >>= 1
        bounds.append((start, start + size))
        start += size
    return bounds


class OnnxEncoder:
    """Tokenise, run the exported transformer, mean-pool and L2-normalise: the same three modules as
    the sentence-transformers model (Transformer, Pooling mean, Normalize), outside torch."""

    def __init__(self, model_dir: str | Path, backend: str, threads: int | None = None, gpu: bool = False) -> None:
        from tokenizers import Tokenizer

        check_backend(backend)
        self.path = exported_model(model_dir, backend)
        config = json.loads((Path(model_dir) / "sentence_bert_config.json").read_text())
        self.tokenizer = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
        self.tokenizer.enable_truncation(int(config.get("max_seq_length", 256)))
        self.tokenizer.no_padding()  # tokenizer.json may ask for fixed-length padding; batches pad themselves
        threads = threads or encoder_threads()
        if backend.startswith("openvino"):
            self.session = _OpenVinoSession(self.path, backend, threads)
            self.device = "cpu"
        else:
            self.session, self.device = _ort_session(self.path, threads, gpu)
        self.dim = int(json.loads((Path(model_dir) / "config.json").read_text())["hidden_size"])

    def encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        """Unit vectors, one row per text. Texts are tokenised first and batched by exact token count
        (:func:`by_token_count`), which also does far less work than sentence-transformers' order by characters
        (about 57% padding on step texts)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)  # a text of no tokens keeps its zero vector
        encodings = self.tokenizer.encode_batch(list(texts))
        batches = [same[start:stop] for same in by_token_count([len(e.ids) for e in encodings])
                   for start, stop in batch_bounds(len(same), batch_size)]

        def feeds(idx: list[int]) -> dict:  # every text of a batch has the same token count: the mask is all ones
            ids = np.array([encodings[k].ids for k in idx], dtype=np.int64)
            return {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}

        def pool(idx: list[int], hidden: np.ndarray) -> None:
            pooled = hidden.mean(axis=1)
            out[idx] = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

        if hasattr(self.session, "run_batches"):
            self.session.run_batches(((idx, feeds(idx)) for idx in batches), pool)
        else:
            for idx in batches:
                pool(idx, self.session.run(None, feeds(idx))[0])
        return out
