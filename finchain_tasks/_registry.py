"""Inspect's entry point (``[project.entry-points.inspect_ai]``): registers tasks, scorer, provider.

Inspect imports this module on every run of every user that has the package installed, so it
imports only Inspect itself and our thin adapters: torch, sentence-transformers, numba, litellm
and lm-eval load later, inside the functions that need them (a test checks this).
"""

import os
from importlib.util import find_spec
from pathlib import Path

O200K_CACHE_NAME = "fb374d419588a4632f3f557e76b4b70aebbca790"
"""tiktoken's cache file name for o200k_base (the sha1 of its download URL), the encoding Inspect counts
tokens with when a model (mockllm, say) reports no usage."""


def offline_tiktoken() -> None:
    """Let tiktoken find o200k_base without a network: litellm (a dependency of our Inspect extra) ships
    that file under tiktoken's cache name, and importing litellm points ``TIKTOKEN_CACHE_DIR`` at it anyway.
    Done here, before Inspect counts a token, so that ``inspect eval finchain --model mockllm/model`` (the
    README's smoke run) works offline. A cache the user chose, or tiktoken's own cache holding the file,
    is left alone; tiktoken checks the file's sha256 either way."""
    if os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR"):
        return
    import tempfile

    if (Path(tempfile.gettempdir()) / "data-gym-cache" / O200K_CACHE_NAME).is_file():
        return
    try:
        spec = find_spec("litellm")  # locates the package without importing it (importing costs seconds)
    except (ImportError, ValueError):
        return
    if spec is None or not spec.origin:
        return
    bundled = Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"
    if (bundled / O200K_CACHE_NAME).is_file():
        os.environ["TIKTOKEN_CACHE_DIR"] = str(bundled)


offline_tiktoken()

from finchain_tasks.inspect.alias import register_bare_names  # noqa: E402
from finchain_tasks.inspect.cflue import cflue, cflue_scorer, majority_vote  # noqa: E402
from finchain_tasks.inspect.cflue_application import cflue_application, cflue_application_scorer  # noqa: E402
from finchain_tasks.inspect.litellm_provider import litellm_api  # noqa: E402
from finchain_tasks.inspect.scorer import chaineval  # noqa: E402
from finchain_tasks.inspect.tasks import finchain  # noqa: E402

__all__ = ["cflue", "cflue_application", "cflue_application_scorer", "cflue_scorer", "chaineval", "finchain",
           "litellm_api", "majority_vote"]

register_bare_names()
