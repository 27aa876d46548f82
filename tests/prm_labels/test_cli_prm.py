"""``finchain prm label | train | select`` end to end on synthetic FinChain candidates, offline."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.prm.wrong_step_traces import inject_error
from tests.prm_labels.conftest import first_template_per_domain

runner = CliRunner()


@pytest.fixture(scope="module")
def candidates(tmp_path_factory):
    path = tmp_path_factory.mktemp("pool") / "cands.jsonl"
    rows = []
    for tpl in first_template_per_domain()[:4]:
        problem = tpl.generate(0)
        rows.append({"id": f"{problem.id}#gold", "problem_id": problem.id, "output": problem.solution})
        inj = next((x for x in (inject_error(problem, k) for k in range(len(problem.steps))) if x), None)
        if inj:
            rows.append({"id": f"{problem.id}#err", "problem_id": problem.id, "output": inj.output})
    rows.append({"id": "no-steps", "question": "Q?", "output": ""})
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path, len(rows)


@pytest.mark.slow
def test_label_train_select(candidates, tmp_path):
    path, n = candidates
    labels = tmp_path / "labels.jsonl"
    res = runner.invoke(app, ["prm", "label", str(path), "--out", str(labels)])
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "labels.jsonl.summary.json").read_text())
    assert summary["traces"] == n and summary["traj_unknown"] == 1
    assert summary["reasons"] == {"no gold trace (exact signals need a FinChain gold solution)": 1}
    plan = runner.invoke(app, ["prm", "label", str(path), "--out", str(tmp_path / "f.jsonl"), "--recipe", "fused",
                               "--policy", "openai/p", "--judge", "openai/j", "--rollouts", "2", "--dry-run"])
    assert plan.exit_code == 0, plan.output
    planned = json.loads(plan.output)["usage"]["planned"]
    steps = summary["steps"]  # every step: 2 rollouts + 3 judgements; every trace with steps: 1 concept call
    assert planned == 5 * steps + (n - 1) and not (tmp_path / "f.jsonl").exists()
    ckpt = tmp_path / "ckpt"
    res = runner.invoke(app, ["prm", "train", str(labels), "--out", str(ckpt), "--steps", "3", "--eval-every", "3",
                              "--eval-share", "0.5"])
    assert res.exit_code == 0, res.output
    assert "--base tiny is a plumbing check" in " ".join(res.output.split())  # said before any figure
    trained = json.loads((ckpt / "train_summary.json").read_text())
    assert trained["final"]["step"] == 3 and trained["plumbing_check"] is True
    assert trained["held_out"]["unit"] == "template" and trained["step_average"] == "trace"
    res = runner.invoke(app, ["prm", "select", str(path), "--prm", f"hf:{ckpt}", "--out", str(tmp_path / "sel")])
    assert res.exit_code == 0, res.output
    sel = json.loads((tmp_path / "sel" / "selection.json").read_text())
    assert sel["prm"] == f"hf:{ckpt}" and sel["kept"] == sel["questions"] == 5


def test_bad_arguments_are_one_line(candidates, tmp_path):
    path, _ = candidates
    res = runner.invoke(app, ["prm", "label", str(path), "--out", str(tmp_path / "x"), "--recipe", "fused"])
    assert res.exit_code == 2 and "needs --policy and --judge" in res.output
    res = runner.invoke(app, ["prm", "label", str(path), "--out", str(tmp_path / "x"), "--recipe", "fused",
                              "--policy", "no-such-model", "--judge", "openai/j", "--dry-run"])
    assert res.exit_code == 2 and "unknown model 'no-such-model'" in res.output
    res = runner.invoke(app, ["prm", "select", str(path), "--prm", "nope", "--out", str(tmp_path / "s")])
    assert res.exit_code == 2 and "unknown PRM backend" in res.output
