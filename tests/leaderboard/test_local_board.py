"""Issue 17's done-when, part one: the bundled local model run through both hosts, built into the paper26
board with the board's own model selection and the published FinChain table. The scores are whatever a 270M
base model earns (near 0); what is pinned is that each host's row says what that host's own log says.
(The browser half is ``test_site_chromium.py``, on the same site.)"""

import json

import pytest

from finchain_tasks.leaderboard.ingest import ingest
from tests.leaderboard.local_runs import LIMIT, LOCAL, MAX_TOKENS

pytestmark = pytest.mark.slow


def _payload(site):
    return json.loads((site / "data.js").read_text("utf-8").removeprefix("window.LB = ").rstrip(";\n"))


def _inspect_log(run_dir):
    from inspect_ai.log import read_eval_log

    (path,) = (run_dir / "logs").glob("*.eval")
    return read_eval_log(str(path))


def _lm_eval_results(run_dir):
    (path,) = (run_dir / "lm_eval").rglob("results_*.json")
    return path, json.loads(path.read_text("utf-8"))


def test_paper26_shows_one_row_per_host_for_the_local_model(lb_local_site):
    payload = _payload(lb_local_site)
    rows = {(r["model"], r["harness"]): r for r in payload["rows"]}
    assert set(rows) == {(LOCAL, "inspect"), (LOCAL, "lm-eval")}  # chosen by the board (category local)
    assert payload["skipped_models"] == []
    assert all(r["n"] == LIMIT and r["templates"] == LIMIT and r["tie_group"] is not None for r in rows.values())
    assert {r["model"] for r in payload["reported"]["rows"]} and len(payload["reported"]["rows"]) == 25
    assert not {r["model"] for r in payload["reported"]["rows"]} & {LOCAL}  # reported rows are not reproduced ones
    inspect_row, lm_row = rows[(LOCAL, "inspect")], rows[(LOCAL, "lm-eval")]
    # a local model has no price: cost unknown (None), never 0; lm-eval logs no tokens at all
    assert inspect_row["cost_usd"] is None and 0 < inspect_row["output_tokens"] <= LIMIT * MAX_TOKENS
    assert lm_row["input_tokens"] is None and lm_row["cost_usd"] is None
    assert inspect_row["open_weights"] is True and inspect_row["params_b"] == 0.27  # from the registry


def test_each_row_says_what_its_hosts_own_log_says(lb_local_runs, lb_local_site):
    rows = {r["harness"]: r for r in _payload(lb_local_site)["rows"]}
    log = _inspect_log(lb_local_runs["inspect"])
    logged = {s.name: s.metrics["mean"].value for s in log.results.scores}
    _, results = _lm_eval_results(lb_local_runs["lm-eval"])
    per_task = results["results"].values()  # one problem per task here, so the mean is the mean of the tasks
    assert all(t["sample_len"] == 1 for t in per_task)
    for metric in ("chaineval", "fac", "step_f1", "parse_ok"):
        assert rows["inspect"]["metrics"][metric]["mean"] == pytest.approx(logged[metric]), metric
        expected = sum(t[f"{metric},none"] for t in per_task) / len(per_task)
        assert rows["lm-eval"]["metrics"][metric]["mean"] == pytest.approx(expected), metric


def test_the_per_sample_table_holds_each_hosts_outputs_on_the_same_problems(lb_local_runs):
    frame = ingest([lb_local_runs["inspect"], lb_local_runs["lm-eval"]])
    by_host = {h: g.set_index("sample_id") for h, g in frame.groupby("harness")}
    assert set(by_host) == {"inspect", "lm-eval"}
    assert sorted(by_host["inspect"].index) == sorted(by_host["lm-eval"].index) and len(by_host["inspect"]) == LIMIT
    log = _inspect_log(lb_local_runs["inspect"])
    assert {str(s.id): s.output.completion for s in log.samples} == by_host["inspect"]["output"].to_dict()
    path, _ = _lm_eval_results(lb_local_runs["lm-eval"])
    logged = {}
    for samples in path.parent.glob("samples_*.jsonl"):
        for line in samples.read_text("utf-8").splitlines():
            record = json.loads(line)
            logged[record["doc"]["id"]] = record["resps"][0][0]
    assert logged == by_host["lm-eval"]["output"].to_dict()
    assert all(text.strip() for text in logged.values())  # the model said something through either host
