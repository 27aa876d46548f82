"""``prm select``, ``prm label`` and ``bon --prm`` with ``--ray`` give what they give without it (the calc PRM and
the exact recipe: no model download, no network), on the session's local Ray cluster."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.prm.wrong_step_traces import inject_error
from tests.prm_labels.conftest import first_template_per_domain

runner = CliRunner()
RAY = ["--ray", "local", "--ray-block-rows", "3", "--ray-workers", "2"]


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    """Gold and wrong-step candidates of 4 problems, and one without steps or gold."""
    path = tmp_path_factory.mktemp("pool") / "cands.jsonl"
    rows = []
    for tpl in first_template_per_domain()[:4]:
        problem = tpl.generate(0)
        rows.append({"id": f"{problem.id}#gold", "problem_id": problem.id, "output": problem.solution})
        for k in range(len(problem.steps)):
            inj = inject_error(problem, k)
            if inj:
                rows.append({"id": f"{problem.id}#err{k}", "problem_id": problem.id, "output": inj.output})
    rows.append({"id": "no-steps", "question": "Q?", "output": ""})
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def _invoke(*args):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


def test_prm_select_on_ray_keeps_what_single_process_keeps(ray_cluster, pool, tmp_path):
    _invoke("prm", "select", pool, "--prm", "calc", "--out", tmp_path / "one", "-k", "2")
    _invoke("prm", "select", pool, "--prm", "calc", "--out", tmp_path / "many", "-k", "2", *RAY)
    one = [json.loads(x) for x in (tmp_path / "one" / "sft.jsonl").read_text().splitlines()]
    many = [json.loads(x) for x in (tmp_path / "many" / "sft.jsonl").read_text().splitlines()]
    assert [r["id"] for r in many] == [r["id"] for r in one] and len(one) > 4
    for a, b in zip(one, many):
        assert b["reward"] == pytest.approx(a["reward"], abs=1e-9)
        assert b == {**a, "reward": b["reward"]}
    assert json.loads((tmp_path / "many" / "selection.json").read_text()) == json.loads(
        (tmp_path / "one" / "selection.json").read_text())


def test_prm_label_on_ray_writes_the_same_labels_in_input_order(ray_cluster, pool, tmp_path):
    _invoke("prm", "label", pool, "--out", tmp_path / "one.jsonl")
    _invoke("prm", "label", pool, "--out", tmp_path / "many.jsonl", *RAY[:-1], "1")  # one encoder load
    assert (tmp_path / "many.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    summary = json.loads((tmp_path / "many.jsonl.summary.json").read_text())
    assert summary == json.loads((tmp_path / "one.jsonl.summary.json").read_text())
    assert summary["steps"] > 10


def _bon_run(root, pool_path):
    """An lm-eval finchain_bon samples file whose pools are the candidates of ``pool_path`` (3 per problem)."""
    rows = [json.loads(x) for x in pool_path.read_text().splitlines()][:-1]
    by_problem: dict[str, list] = {}
    for r in rows:
        by_problem.setdefault(r["problem_id"], []).append(r["output"])
    lines = []
    for i, (pid, texts) in enumerate(by_problem.items()):
        cands = [{"text": t, "answer": str(k), "key": str(k), "correct": k == 0, "chaineval": float(k == 0),
                  "reward": 0.5, "step_probs": [], "p_traj": None, "n_unverified": 0} for k, t in enumerate(texts)]
        record = {"n": len(cands), "prm": "hf:/old:dual", "agg": "min", "zeta": 1.0, "cluster": pid,
                  "question": pid, "candidates": cands, "selected": {}, "values": {}}
        lines.append(json.dumps({"doc_id": i, "filter": "bon", "filtered_resps": [json.dumps(record)]}))
    run = root / "run" / "model"
    run.mkdir(parents=True)
    (run / "samples_finchain_bon_2026.jsonl").write_text("\n".join(lines) + "\n")
    return root / "run"


def test_bon_rescoring_on_ray_fills_the_same_score_cache(ray_cluster, pool, tmp_path):
    one = _bon_run(tmp_path / "a", pool)
    many = tmp_path / "b" / "run"
    shutil.copytree(one, many)
    args = ["--no-plot", "--ns", "1,2", "--subsamples", "5", "--bootstrap", "0", "--prm", "calc"]
    _invoke("bon", one, *args)
    _invoke("bon", many, *args, *RAY)

    def scores(run):
        return {r["key"]: r["score"] for r in map(json.loads, (run / "bon_prm_scores.jsonl").read_text().splitlines())}

    assert scores(many).keys() == scores(one).keys() and len(scores(one)) > 10
    for key, score in scores(one).items():
        assert scores(many)[key]["reward"] == pytest.approx(score["reward"], abs=1e-9)
    assert (many / "bon_curves.csv").read_text() == (one / "bon_curves.csv").read_text()
    again = runner.invoke(app, ["bon", str(many), *args, *RAY])  # everything cached: Ray is not even asked
    assert again.exit_code == 0 and "0 candidate(s) scored now" in " ".join(again.output.split())
