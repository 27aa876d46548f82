"""Test-wide settings: everything runs offline."""

import os
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
os.environ.setdefault("INSPECT_DISABLE_MODEL_API", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# The encoder a user gets: the fastest installed backend that meets the agreement bar (openvino-bf16 here, torch
# where nothing else is installed; tests/scorers/test_embedding_auto.py tests the choice). Tests whose figures
# are the torch reference's ask for backend="torch" themselves. It also keeps torch out of the suite's many
# scoring subprocesses: a third of the suite's CPU time went to importing sentence-transformers and encoding.
os.environ.setdefault("FINCHAIN_EMBEDDING_BACKEND", "auto")
# lm-eval's response caches (finchain bench --harness lm-eval) go to a throwaway folder, not the user's cache
os.environ.setdefault("FINCHAIN_LM_EVAL_CACHE_DIR", tempfile.mkdtemp(prefix="finchain-lm-eval-cache-"))

# Property tests: `make test` (and so CI) selects the derandomized profile, so a fresh clone draws the same
# examples on every run and cannot fail on one nobody has seen; a failure prints its reproduction blob.
# Local runs without HYPOTHESIS_PROFILE keep exploring new examples.
from hypothesis import settings  # noqa: E402

settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("dev", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))



def pytest_configure(config):
    """Export the encoder once, before the workers start: on a fresh machine the default backend's first use
    exports MiniLM to ONNX (about 20 s), and without this every worker and every scoring subprocess that
    started before the first export finished would export it again at the same time."""
    if os.environ.get("PYTEST_XDIST_WORKER") or config.option.collectonly or os.environ.get("FINCHAIN_NO_WARM_ENCODER"):
        return  # (tests/mutation/mutate.py sets the last: mutmut forks its children from this process)
    try:
        from scorers.embedding_backends import default_backend
        from scorers.embeddings import Embedder

        backend = default_backend()
        if backend != "torch":  # torch needs no export (and importing it here would only cost time)
            Embedder(backend=backend).encode(["warm the exported model"])
    except Exception as exc:  # the tests that need the encoder report it; this is only a head start
        print(f"conftest: the encoder was not exported ahead ({type(exc).__name__}: {exc})")


# The suite's longest files (measured with `--durations=0`, heaviest first). xdist's own order for
# `--dist loadfile` puts files with many tests first, so the few-test integration files (the wheel, the
# README's commands: a minute each) ran last while the other worker sat idle. The Makefile turns that order
# off (`--no-loadscope-reorder`) and files go out in collection order, which this hook sets: the long ones
# first (longest-processing-time order), so both workers end together. A file not listed keeps its place
# after these; a renamed one only loses its head start.
HEAVY_FIRST = (
    "tests/test_wheel.py",
    "tests/templates/test_standard_sweep.py",
    "tests/test_readme_commands.py",
    "tests/scale/test_ray_commands.py",
    "tests/lm_eval/test_lm_eval_e2e.py",
    "tests/leaderboard/test_site_chromium.py",
    "tests/explore/test_explore_chromium.py",
    "tests/lm_eval/test_lm_eval_cflue.py",
    "tests/scorers/test_embedding_backends.py",
    "tests/prm/test_local_bon.py",
    "tests/runs/test_runs_bench.py",
    "tests/models/test_local_model.py",
    "tests/inspect/test_inspect_litellm.py",
    "tests/prm_labels/test_accelerate_train.py",
    "tests/inspect/test_late_answers.py",
    "tests/runs/test_runs_trust.py",
    "tests/prm_labels/test_training.py",
    "tests/scorers/test_gated_embedding.py",
    "tests/templates/test_every_template.py",
    "tests/runs/test_runs_lm_eval.py",
    "tests/test_extras.py",
)


def pytest_collection_modifyitems(session, config, items):
    """Heaviest files first (HEAVY_FIRST), the rest in their collected order; a stable sort, so tests keep
    their order within a file and every xdist worker collects the same sequence."""
    rank = {path: i for i, path in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
