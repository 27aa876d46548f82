"""benchmarks/harness_overhead_bench.py gives every row the same requests (issue 31: its two lm-eval rows sent about
33 and 1,185, since lm-eval's ``--limit`` counts per leaf task) and reports CPU per request beside the rate.

Each row's command is resolved to the problems it selects, by the functions each host calls with those arguments
(the Inspect task's own selection calls, without building the task: that would load the embedder)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import harness_overhead_bench as bench  # noqa: E402

DOMAIN, SEEDS = "fintech", 2


def _finchain_task_ids(domain=None, seeds=10, template=None, **_) -> set[str]:
    """The problem ids of ``finchain(domain=..., seeds=..., template=...)``, by the calls the task makes."""
    from finchain_tasks.engine import select
    from finchain_tasks.finchain.generate import iter_problems, seed_list

    def names(value):  # as the task reads a -T value: None, "a,b" or a list
        return [] if value is None else [v.strip() for v in value.split(",")] if isinstance(value, str) else value

    templates = select(names(domain), (), (), names(template))
    return {p.id for p in iter_problems(templates, seed_list(int(seeds), 0, False))}


def _inspect_ids(cmd: list[str]) -> set[str]:
    args = dict(cmd[i + 1].split("=", 1) for i, a in enumerate(cmd) if a == "-T")
    return _finchain_task_ids(args.get("domain"), int(args["seeds"]))


def _lm_eval_ids(cmd: list[str]) -> set[str]:
    from finchain_tasks.lm_eval.dataset import load_finchain

    meta = json.loads(cmd[cmd.index("--metadata") + 1])
    domain = cmd[cmd.index("--tasks") + 1].removeprefix("finchain_")
    return {i for level in ("easy", "intermediate", "advanced")
            for i in load_finchain(domain, level, **meta)["test"]["id"]}


def _bench_ids(cmd: list[str]) -> set[str]:
    from finchain_tasks.models.registry import load_registry

    task_set = load_registry(Path(cmd[cmd.index("--registry") + 1])).task_sets[cmd[cmd.index("--tasks") + 1]]
    assert task_set.task == "finchain" and set(task_set.args) <= {"domain", "seeds", "template"}
    return _finchain_task_ids(**task_set.args)


def test_every_row_sends_the_same_requests(tmp_path):
    cmds = bench.commands("http://127.0.0.1:9/v1", tmp_path, SEEDS, 4, DOMAIN)
    assert not any("--limit" in cmd for cmd in cmds.values())  # its meaning differs between the hosts
    expected = None
    for name, cmd in cmds.items():
        if "inspect" in Path(cmd[0]).name:
            ids = _inspect_ids(cmd)
        elif "finchain-lm-eval" in Path(cmd[0]).name:
            ids = _lm_eval_ids(cmd)
        else:
            ids = _bench_ids(cmd)
        expected = expected or ids
        assert ids == expected, name
    assert len(expected) == bench.expected_requests(DOMAIN, SEEDS)
    assert {i.split("/")[1] for i in expected} == {DOMAIN} and {int(i.rsplit("/", 1)[1]) for i in expected} == {0, 1}


def test_the_report_gives_cpu_per_request_and_flags_a_row_that_did_other_work(capsys):
    bench.report({bench.INSPECT: (100, 50.0, 60.0, 10.0, 4.0), "lm-eval (local-chat-completions)":
                  (33, 40.0, 45.0, 20.0, 9.9)}, expected=100, connections=8)
    out = capsys.readouterr().out
    assert "CPU ms/req" in out and "100 requests per row" in out
    inspect_line = next(line for line in out.splitlines() if line.startswith(bench.INSPECT))
    assert "40.0" in inspect_line.split()  # 4.0 s over 100 requests
    lm_line = next(line for line in out.splitlines() if line.startswith("lm-eval"))
    assert "300.0" in lm_line.split() and "33 requests, not 100" in lm_line
