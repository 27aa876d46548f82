"""Test-wide settings: everything runs offline."""

import os
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
os.environ.setdefault("INSPECT_DISABLE_MODEL_API", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# ChainEval's reference encoder for the suite's pinned scores (a user's default is the fastest backend that meets
# the agreement bar: tests/scorers/test_embedding_auto.py tests that choice)
os.environ.setdefault("FINCHAIN_EMBEDDING_BACKEND", "torch")
# lm-eval's response caches (finchain bench --harness lm-eval) go to a throwaway folder, not the user's cache
os.environ.setdefault("FINCHAIN_LM_EVAL_CACHE_DIR", tempfile.mkdtemp(prefix="finchain-lm-eval-cache-"))

# Property tests: `make test` (and so CI) selects the derandomized profile, so a fresh clone draws the same
# examples on every run and cannot fail on one nobody has seen; a failure prints its reproduction blob.
# Local runs without HYPOTHESIS_PROFILE keep exploring new examples.
from hypothesis import settings  # noqa: E402

settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("dev", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


HEAVY_FIRST = (
    "tests/test_readme_commands.py", "tests/leaderboard/test_site_chromium.py", "tests/lm_eval/test_lm_eval_e2e.py",
    "tests/scale/", "tests/runs/test_runs_lm_eval.py", "tests/runs/test_runs_batch.py", "tests/prm/test_local_bon.py",
    "tests/test_extras.py", "tests/scorers/test_chaineval.py", "tests/scorers/test_embedding_backends.py",
    "tests/runs/test_plan.py", "tests/runs/test_runs_vllm.py", "tests/prm_labels/test_accelerate_train.py",
    "tests/runs/test_runs_bench.py", "tests/lm_eval/test_lm_eval_cflue.py", "tests/cflue/test_cflue_loader.py",
)
"""Files of a minute or more of work (measured with --durations): handed to the two xdist workers first, so that
``--dist loadfile`` ends with short files on both workers instead of one long file on one of them (the longest-first
rule for balancing two machines); the order of tests inside a file is unchanged."""


def pytest_collection_modifyitems(session, config, items):
    root = str(config.rootpath) + os.sep

    def heavy(item) -> int:
        path = str(item.path).replace(root, "").replace(os.sep, "/")
        return next((k for k, prefix in enumerate(HEAVY_FIRST) if path.startswith(prefix)), len(HEAVY_FIRST))

    items.sort(key=heavy)  # stable: files and tests keep their order otherwise
