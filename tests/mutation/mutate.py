"""``make mutate``: mutation testing (mutmut) of the modules whose rules the suite must pin.

Why a script: mutmut reads one ``[tool.mutmut]`` table, but each module has its own tests, and a
run over one module with only the tests that exercise it takes minutes where the whole suite would
take hours. So each group runs in its own copy of the checkout (``build/mutate/<group>``) whose
pyproject names that group's files and tests; the kill rate is then printed per module. Not part
of CI (too slow); survivors that cannot be killed are explained in ``tests/MUTANTS.md``.

Usage: ``python tests/mutation/mutate.py [group ...] [--max-children N]`` (default: every group).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / "build" / "mutate"

GROUPS: dict[str, tuple[list[str], list[str]]] = {
    # group: (files to mutate, the tests that pin them; the fast ones, so a group runs in minutes)
    "gate": (["scorers/gate.py", "scorers/params.py"],
             ["tests/scorers/test_gate.py", "tests/scorers/test_params.py", "tests/scorers/test_reference_pins.py"]),
    # test_chaineval.py scores every template with real embeddings (minutes per run): left out here
    "chaineval": (["scorers/chaineval.py"],
                  ["tests/scorers/test_reference_pins.py", "tests/scorers/test_chaineval_units.py"]),
    "kernel": (["scorers/kernel.py"], ["tests/scorers/test_kernel.py", "tests/scorers/test_kernel_pins.py",
                                       "tests/scorers/test_reference_pins.py"]),
    "numbers": (["scorers/numbers.py"], ["tests/scorers/test_numbers.py", "tests/scorers/test_numbers_pins.py",
                                         "tests/scorers/test_gate.py"]),
    "verify": (["finchain_tasks/engine/verify.py"],
               ["tests/engine/test_rules.py", "tests/engine/test_verify_negative.py"]),
    "cache": (["finchain_tasks/runs/cache.py"], ["tests/runs/test_cache_key.py"]),
    "scoring": (["finchain_tasks/lm_eval/scoring.py"], ["tests/lm_eval/test_scoring_order.py"]),
    # the modules added after the core (issue 31.18): per package, the module that holds its rules
    "stats": (["finchain_tasks/leaderboard/stats.py"],
              ["tests/leaderboard/test_stats.py", "tests/leaderboard/test_ranks.py",
               "tests/leaderboard/test_stats_rules.py"]),
    "prm": (["scorers/prm/selectors.py", "scorers/prm/reward.py", "finchain_tasks/prm/data_selection.py"],
            ["tests/prm/test_select_spec.py", "tests/prm/test_bon_claims.py", "tests/prm/test_selector_rules.py",
             "tests/prm_labels/test_reward.py", "tests/prm_labels/test_reward_rules.py",
             "tests/prm_labels/test_select.py", "tests/prm_labels/test_select_rules.py"]),
    "cflue": (["scorers/cflue/extract.py", "scorers/cflue/metrics.py"],
              ["tests/cflue/test_cflue_extract.py", "tests/cflue/test_cflue_metrics.py",
               "tests/cflue/test_cflue_vote.py", "tests/cflue/test_cflue_metric_rules.py",
               # the authors' raw reading (reference_letters) is pinned there, rule by rule
               "tests/cflue/test_cflue_reference.py"]),
    "fastpath": (["finchain_tasks/inspect/openai_fast.py"],
                 ["tests/inspect/test_fast_path.py", "tests/inspect/test_fast_path_errors.py",
                  "tests/inspect/test_fast_path_reads.py", "tests/inspect/test_fast_path_choice.py"]),
    "summary": (["finchain_tasks/runs/summary.py"], ["tests/runs/test_runs_units.py", "tests/runs/test_runs_trust.py",
                                                    "tests/runs/test_summary_text.py",
                                                    "tests/runs/test_summary_tables.py",
                                                    "tests/runs/test_summary_logs.py",
                                                    "tests/runs/test_summary_table_edges.py"]),
    # test_embedding_backends.py loads MiniLM and exports it per run (a minute): its rules are pinned on a
    # stand-in graph and a tiny BERT in test_embedding_backend_rules.py instead
    "backends": (["scorers/embedding_backends.py"],
                 ["tests/scorers/test_embedding_backend_rules.py", "tests/scorers/test_embedding_auto.py"]),
    # the loader's host test (`inspect eval cflue`) is marked slow and so left out by ``-m "not slow"``
    "cflue_loader": (["finchain_tasks/cflue/loader.py"],
                     ["tests/cflue/test_cflue_loader.py", "tests/cflue/test_cflue_application_loader.py",
                      "tests/cflue/test_cflue_loader_rules.py"]),
}
GROUP_ENV: dict[str, dict[str, str]] = {
    # mutmut replaces each function by a trampoline that picks the mutant at call time, and numba cannot
    # compile that trampoline; with the JIT off ``njit`` returns the function itself, so the mutated
    # kernel runs as plain Python (same arithmetic, float64 throughout) and the kernel tests check it
    # against the independent recurrence, the argmin recurrence and brute force as usual
    "kernel": {"NUMBA_DISABLE_JIT": "1"},
}
"""Extra environment of a group's mutmut run."""
GROUP_DESELECT: dict[str, list[str]] = {}
"""Tests left out of one group's runs (on top of the deselections of ``[tool.mutmut]``): none now; a test
that can fail on a loaded machine has no place in a group (or in the suite)."""
KILLED = {1, 3, 36, 24, -24, 152, 255}
"""mutmut exit codes that count as a kill (a failing test, or a timeout: the mutant hangs)."""


def _copy_checkout(dest: Path) -> None:
    """The tracked and untracked-but-not-ignored files: what a fresh clone plus local work holds."""
    if dest.exists():
        shutil.rmtree(dest)
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def _pytest_args(pyproject: Path) -> list[str]:
    """The pytest arguments of the checkout's ``[tool.mutmut]`` table (one place for the deselections)."""
    import tomllib

    return list(tomllib.loads(pyproject.read_text("utf-8")).get("tool", {}).get("mutmut", {})
                .get("pytest_add_cli_args", []))


def _configure(dest: Path, files: list[str], tests: list[str], deselect: list[str] = ()) -> None:
    """Replace the copy's ``[tool.mutmut]`` table with this group's files and tests."""
    pyproject = dest / "pyproject.toml"
    args = _pytest_args(pyproject) + [a for test in deselect for a in ("--deselect", test)]
    text = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", pyproject.read_text())
    table = (
        "[tool.mutmut]\n"
        'source_paths = ["scorers/", "finchain_tasks/"]\n'
        f"only_mutate = {json.dumps(files)}\n"
        f"pytest_add_cli_args_test_selection = {json.dumps(tests)}\n"
        f"pytest_add_cli_args = {json.dumps(args)}\n"
    )
    pyproject.write_text(text.rstrip() + "\n\n" + table)


def _tally(dest: Path, files: list[str]) -> dict[str, Counter]:
    """Per mutated file: how many mutants were killed, survived, or had no test."""
    out: dict[str, Counter] = {}
    for rel in files:
        meta = dest / "mutants" / (rel + ".meta")
        codes = json.loads(meta.read_text()).get("exit_code_by_key", {}) if meta.exists() else {}
        count: Counter = Counter()
        for name, code in codes.items():
            status = "killed" if code in KILLED else "survived" if code == 0 else "no tests" if code in (5, 33) \
                else "not checked" if code is None else f"other ({code})"
            count[status] += 1
            if status == "survived":
                count.setdefault("_names", []).append(name)  # type: ignore[arg-type]
        out[rel] = count
    return out


def run_group(group: str, max_children: int) -> dict[str, Counter]:
    files, tests = GROUPS[group]
    dest = WORK / group
    _copy_checkout(dest)
    _configure(dest, files, tests, GROUP_DESELECT.get(group, []))
    # one torch thread: mutmut forks its workers from a process that has run torch, and a forked child
    # whose parent had an intra-op thread pool can hang on its first embedding
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "LITELLM_OFFLINE_MODE": "true", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "TOKENIZERS_PARALLELISM": "false", **GROUP_ENV.get(group, {})}
    # the copy, not this checkout, must be what the tests import
    kept = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and Path(p).resolve() != ROOT]
    env["PYTHONPATH"] = os.pathsep.join(kept)
    with open(dest / "mutmut.log", "w") as log:
        subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children)],
                       cwd=dest, env=env, stdout=log, stderr=subprocess.STDOUT, check=False)
    return _tally(dest, files)


def report(group: str, tally: dict[str, Counter]) -> None:
    for rel, count in tally.items():
        names = count.pop("_names", [])
        total = sum(count.values())
        rate = 100.0 * count["killed"] / total if total else 0.0
        print(f"{rel}: {count['killed']}/{total} killed ({rate:.1f}%)"
              + "".join(f", {n} {s}" for s, n in sorted(count.items()) if s != "killed"))
        for name in names:
            print(f"    survived: {name}")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="*", help=f"any of {', '.join(GROUPS)} (default: all)")
    parser.add_argument("--max-children", type=int, default=2)
    args = parser.parse_args(argv)
    unknown = sorted(set(args.groups) - set(GROUPS))
    if unknown:
        parser.error(f"unknown group {unknown[0]!r}; choose from {', '.join(GROUPS)}")
    for group in args.groups or list(GROUPS):
        report(group, run_group(group, args.max_children))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
