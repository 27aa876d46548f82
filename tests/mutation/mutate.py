"""``make mutate``: mutation testing (mutmut) of the modules whose rules the suite must pin.

Why a script: mutmut reads one ``[tool.mutmut]`` table, but each module has its own tests, and a
run over one module with only the tests that exercise it takes minutes where the whole suite would
take hours. So each group runs in its own copy of the checkout (``build/mutate/<group>``) whose
pyproject names that group's files and tests; the kill rate is then printed per module. Not part
of CI (too slow); survivors that cannot be killed are explained in ``tests/MUTANTS.md``.

mutmut runs, for each mutant, only the tests it saw call the mutated function. A module-scoped fixture's
calls are credited to the first test that built it, so the other tests of that file, which read what the
fixture made, never run against the mutant. So every survivor is checked again with the whole of each test
file mutmut named for its function (``-x``, the same options): a failure there is a kill ("on recheck").

Beside mutmut, each group also runs the literal pass of tests/mutation/literals.py (regex alternatives
and character classes, synonym sets, escape calls, thresholds and their comparisons: the rules mutmut's
operators do not reach), with the same tests, in a copy of its own; ``--mutmut-only`` or
``--literals-only`` runs one of the two.

Usage: ``python tests/mutation/mutate.py [group ...] [--max-children N]
[--mutmut-only | --literals-only | --recheck-only]`` (default: every group).
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
    # issue 39.1: the modules that hold the user-visible rules outside the scoring core; one group per module
    # (or per pair that shares its tests), each with the fast tests that exercise it
    # (the rules files first: a run stops at its first failure, and they fail in a fraction of a second)
    "redaction": (["finchain_tasks/plumbing/redaction.py"],
                  ["tests/test_redaction_rules.py", "tests/test_redaction.py", "tests/test_redaction_echo.py"]),
    "v1_rule": (["scorers/v1_rule.py"], ["tests/scorers/test_v1_rule_rules.py", "tests/scorers/test_v1_rule.py"]),
    "cflue_application": (["scorers/cflue/application.py"],
                          ["tests/cflue/test_cflue_application_rules.py",
                           "tests/cflue/test_cflue_application_scorers_rules.py",
                           "tests/cflue/test_cflue_chatty_styles.py",
                           "tests/cflue/test_cflue_application_metrics.py",
                           "tests/cflue/test_cflue_reference.py"]),
    "cflue_extract": (["scorers/cflue/extract.py"],
                      ["tests/cflue/test_cflue_extract_rules.py", "tests/cflue/test_cflue_extract.py",
                       "tests/cflue/test_cflue_vote.py", "tests/cflue/test_cflue_reference.py"]),
    "cflue_reference": (["scorers/cflue/reference.py"],
                        ["tests/cflue/test_cflue_reference_rules.py", "tests/cflue/test_cflue_reference.py"]),
    "prm_labeling": (["finchain_tasks/prm/labeling.py"],
                     ["tests/prm_labels/test_labeling_judges_rules.py", "tests/prm_labels/test_labeling_rows_rules.py",
                      "tests/prm_labels/test_labeling_rules.py", "tests/prm_labels/test_labeling_models.py",
                      "tests/prm_labels/test_select.py"]),
    "prm_labels": (["scorers/prm/labels/fusion.py", "scorers/prm/labels/exact.py"],
                   ["tests/prm_labels/test_labels_rules.py", "tests/prm_labels/test_labels.py",
                    "tests/prm_labels/test_labeling_models.py"]),
    "prm_curves": (["scorers/prm/curves.py"],
                   ["tests/prm/test_curves_rules.py", "tests/prm/test_curves.py", "tests/prm/test_bon_claims.py",
                    "tests/prm/test_synthetic_evidence.py"]),
    "prm_judge": (["finchain_tasks/prm/judge.py"], ["tests/prm/test_judge_rules.py", "tests/prm/test_judge.py"]),
    "prm_selection": (["finchain_tasks/prm/data_selection.py"],
                      ["tests/prm_labels/test_select.py", "tests/prm_labels/test_select_rules.py"]),
    "board_table": (["finchain_tasks/leaderboard/table.py"],
                    ["tests/leaderboard/test_table_rules.py", "tests/leaderboard/test_ranks.py",
                     "tests/leaderboard/test_stats.py"]),
    "board_site": (["finchain_tasks/leaderboard/site.py"],
                   ["tests/leaderboard/test_site_rules.py", "tests/leaderboard/test_site_data.py",
                    "tests/leaderboard/test_site_folder.py",
                    "tests/leaderboard/test_site_redaction.py", "tests/leaderboard/test_reported_samples.py"]),
    "board_ingest": (["finchain_tasks/leaderboard/ingest.py"],
                     ["tests/leaderboard/test_ingest_inspect_rules.py",
                      "tests/leaderboard/test_ingest_lm_eval_rules.py",
                      "tests/leaderboard/test_ingest_sources_rules.py",
                      "tests/leaderboard/test_ingest_rules.py", "tests/leaderboard/test_ingest_facts.py",
                      "tests/leaderboard/test_ingest_build.py", "tests/leaderboard/test_ingest_ray_layout.py",
                      "tests/leaderboard/test_bad_sources.py", "tests/leaderboard/test_local_board.py"]),
    "board_publish": (["finchain_tasks/leaderboard/publish.py"],
                      ["tests/leaderboard/test_publish_rules.py", "tests/leaderboard/test_publish.py",
                       "tests/leaderboard/test_publish_licences.py"]),
    # test_inspect_litellm.py is marked slow (a fake server per test), so ``-m "not slow"`` leaves it out: the
    # provider's rules are pinned without a server in test_litellm_provider_rules.py
    "litellm": (["finchain_tasks/inspect/litellm_provider.py"], ["tests/inspect/test_litellm_provider_rules.py"]),
    "runs_engine": (["finchain_tasks/runs/engine.py"],
                    ["tests/runs/test_engine_rules.py", "tests/runs/test_runs_units.py", "tests/runs/test_plan.py"]),
    "runs_plan": (["finchain_tasks/runs/plan.py"], ["tests/runs/test_plan_rules.py", "tests/runs/test_plan.py"]),
    "batch_mode": (["finchain_tasks/runs/batch_mode.py"],
                   ["tests/runs/test_batch_mode_rules.py", "tests/runs/test_batch_mode.py",
                    "tests/runs/test_runs_batch.py"]),
    "lm_eval_harness": (["finchain_tasks/runs/lm_eval_harness.py"],
                        ["tests/runs/test_lm_eval_harness_rules.py", "tests/runs/test_lm_eval_cache_untrusted.py"]),
    "explore": (["finchain_tasks/explore/problems.py", "finchain_tasks/explore/run_samples.py",
                 "finchain_tasks/explore/views.py", "finchain_tasks/explore/guard.py"],
                ["tests/explore/test_explore_rules.py", "tests/explore/test_explore_core.py",
                 "tests/explore/test_explore_display.py", "tests/explore/test_explore_guard.py",
                 "tests/explore/test_explore_permalinks.py"]),
    "reproduce": (["finchain_tasks/reproduce/authors.py", "finchain_tasks/reproduce/compare.py",
                   "finchain_tasks/reproduce/fac.py"],
                  ["tests/test_reproduce_rules.py", "tests/test_reproduce.py", "tests/test_reproduce_fac.py",
                   "tests/scorers/test_answer_shapes.py"]),
}
GROUP_ENV: dict[str, dict[str, str]] = {
    # mutmut replaces each function by a trampoline that picks the mutant at call time, and numba cannot
    # compile that trampoline; with the JIT off ``njit`` returns the function itself, so the mutated
    # kernel runs as plain Python (same arithmetic, float64 throughout) and the kernel tests check it
    # against the independent recurrence, the argmin recurrence and brute force as usual
    "kernel": {"NUMBA_DISABLE_JIT": "1"},
}
"""Extra environment of a group's mutmut run."""
GROUP_DESELECT: dict[str, list[str]] = {
    # it checks the bench tests' scan of Inspect's compressed logs in a fresh process (tens of seconds per
    # mutant on a busy machine) and calls nothing of redaction.py
    "redaction": ["tests/test_redaction.py::test_the_no_secrets_helper_reads_inspects_compressed_logs"],
    # they check that Inspect and lm-eval carry a CFLUE profile to their tasks (no reading rule of extract.py), and
    # importing both hosts leaves threads in mutmut's parent: its forked children then died in `pthread_detach`
    # (every mutant "suspicious"), and the two took 26 s of each surviving mutant's run
    "cflue_extract": ["tests/cflue/test_cflue_reference.py::test_the_inspect_task_takes_the_profile",
                      "tests/cflue/test_cflue_reference.py::test_lm_eval_leaves_carry_the_profile_to_the_corpus_metrics"],
}
"""Tests left out of one group's runs (on top of the deselections of ``[tool.mutmut]``): only tests that do
not exercise the group's modules; a test that can fail on a loaded machine has no place in a group (or in
the suite)."""
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


def _codes(dest: Path, rel: str) -> dict[str, int | None]:
    meta = dest / "mutants" / (rel + ".meta")
    return json.loads(meta.read_text()).get("exit_code_by_key", {}) if meta.exists() else {}


def _tally(dest: Path, files: list[str]) -> dict[str, Counter]:
    """Per mutated file: how many mutants were killed (by mutmut, or on recheck), survived, or had no test."""
    rechecked = json.loads((dest / "recheck.json").read_text()) if (dest / "recheck.json").exists() else {}
    out: dict[str, Counter] = {}
    for rel in files:
        count: Counter = Counter()
        for name, code in _codes(dest, rel).items():
            status = "killed" if code in KILLED else "survived" if code == 0 else "no tests" if code in (5, 33) \
                else "not checked" if code is None else f"other ({code})"
            if status == "survived" and rechecked.get(name) == "killed":
                status = "killed"
                count["on recheck"] += 1
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
    env = _mutmut_env(group)
    with open(dest / "mutmut.log", "w") as log:
        subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children)],
                       cwd=dest, env=env, stdout=log, stderr=subprocess.STDOUT, check=False)
    recheck(dest, files, env)
    return _tally(dest, files)


RECHECK_TIMEOUT = 900
"""Seconds one survivor's recheck may take before it counts as a hang (a kill, as mutmut counts a timeout)."""


def _covering_files(stats: dict, name: str) -> list[str]:
    """The test files holding a test mutmut saw call the mutant's function (``module.x_func__mutmut_N``)."""
    tests = stats.get("tests_by_mangled_function_name", {}).get(name.rsplit("__mutmut_", 1)[0], [])
    return sorted({t.split("::", 1)[0] for t in tests})


def _pytest_fails(dest: Path, env: dict[str, str], args: list[str], test_files: list[str], mutant: str) -> bool:
    """Whether the files fail (or hang) with the mutant active ("": none)."""
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-x", *args, *test_files], cwd=dest / "mutants",
                              env={**env, "MUTANT_UNDER_TEST": mutant}, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=RECHECK_TIMEOUT)
    except subprocess.TimeoutExpired:
        return True
    return done.returncode not in (0, 5)


def recheck(dest: Path, files: list[str], env: dict[str, str]) -> None:
    """Run each survivor against the whole test files mutmut named for its function; write the verdicts to
    ``recheck.json`` (name -> "killed" / "survived"), read by :func:`_tally`. Files that fail with no mutant
    active kill nothing (each set is run once without one first)."""
    stats = json.loads((dest / "mutants" / "mutmut-stats.json").read_text())
    args = _pytest_args(dest / "pyproject.toml")
    (dest / "recheck.json").unlink(missing_ok=True)
    survivors = [name for rel in files for name, code in _codes(dest, rel).items() if code == 0]
    green: dict[tuple[str, ...], bool] = {}
    verdicts: dict[str, str] = {}
    for name in survivors:
        covering = tuple(_covering_files(stats, name))
        if covering and covering not in green:
            green[covering] = not _pytest_fails(dest, env, args, list(covering), "")
        killed = bool(covering) and green[covering] and _pytest_fails(dest, env, args, list(covering), name)
        verdicts[name] = "killed" if killed else "survived"
        (dest / "recheck.json").write_text(json.dumps(verdicts, indent=1))


def _mutmut_env(group: str) -> dict[str, str]:
    # one torch thread: mutmut forks its workers from a process that has run torch, and a forked child
    # whose parent had an intra-op thread pool can hang on its first embedding
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "LITELLM_OFFLINE_MODE": "true", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "TOKENIZERS_PARALLELISM": "false",
           # no encoder warm-up in mutmut's parent (tests/conftest.py): OpenVINO's thread pool does not survive a
           # fork, and every forked child of the cflue groups died (SIGSEGV, or `pthread_detach has failed`)
           "FINCHAIN_NO_WARM_ENCODER": "1", **GROUP_ENV.get(group, {})}
    # the copy, not this checkout, must be what the tests import
    kept = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and Path(p).resolve() != ROOT]
    env["PYTHONPATH"] = os.pathsep.join(kept)
    return env


def run_literals(group: str) -> None:
    """The literal pass (tests/mutation/literals.py) over the group's files with its tests, in a copy of its
    own (``build/mutate/<group>-literals``); it prints its figures per module as it goes."""
    files, tests = GROUPS[group]
    dest = WORK / f"{group}-literals"
    _copy_checkout(dest)
    args = _pytest_args(dest / "pyproject.toml") + [a for t in GROUP_DESELECT.get(group, []) for a in ("--deselect", t)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "LITELLM_OFFLINE_MODE": "true", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "TOKENIZERS_PARALLELISM": "false", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(dest),
           **GROUP_ENV.get(group, {})}
    with open(dest / "literals.log", "w") as log:
        done = subprocess.run([sys.executable, str(ROOT / "tests" / "mutation" / "literals.py"), *files,
                               "--root", str(dest), "--pytest-args", json.dumps(args), "--tests", *tests],
                              cwd=dest, env=env, stdout=subprocess.PIPE, stderr=log, text=True, check=False)
    print(done.stdout, end="")
    if done.returncode:
        print(f"{group}: the literal pass stopped (exit {done.returncode}); see {dest / 'literals.log'}")
    sys.stdout.flush()


def report(group: str, tally: dict[str, Counter]) -> None:
    for rel, count in tally.items():
        names = count.pop("_names", [])
        rechecked = count.pop("on recheck", 0)
        total = sum(count.values())
        rate = 100.0 * count["killed"] / total if total else 0.0
        print(f"{rel}: {count['killed']}/{total} killed ({rate:.1f}%; {rechecked} of them on recheck)"
              + "".join(f", {n} {s}" for s, n in sorted(count.items()) if s != "killed"))
        for name in names:
            print(f"    survived: {name}")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="*", help=f"any of {', '.join(GROUPS)} (default: all)")
    parser.add_argument("--max-children", type=int, default=2)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--mutmut-only", action="store_true", help="skip the literal pass")
    which.add_argument("--literals-only", action="store_true", help="skip mutmut")
    which.add_argument("--recheck-only", action="store_true",
                       help="only recheck the survivors of the group's last mutmut run (build/mutate/GROUP)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.groups) - set(GROUPS))
    if unknown:
        parser.error(f"unknown group {unknown[0]!r}; choose from {', '.join(GROUPS)}")
    for group in args.groups or list(GROUPS):
        if args.recheck_only:
            files = GROUPS[group][0]
            recheck(WORK / group, files, _mutmut_env(group))
            report(group, _tally(WORK / group, files))
            continue
        if not args.literals_only:
            report(group, run_group(group, args.max_children))
        if not args.mutmut_only:
            run_literals(group)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
