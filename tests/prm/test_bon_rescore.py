"""``finchain bon RUN_DIR --prm SPEC``: the saved candidates re-scored by another PRM than the run's, without
the generating model, cached per (spec, candidate) so a second invocation scores nothing."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.prm import runs

RIGHT = "Step 1: 2 + 2 = 4\nFinal answer: 4"
WRONG = "Step 1: 2 + 2 = 5\nFinal answer: 5"
QUESTION = "What is 2 + 2?"
N_PROBLEMS = 6


def _record(cluster: str) -> dict:
    """Three wrong candidates and one right one, scored by a PRM that preferred the wrong ones (R 0.9 vs 0.1)."""
    cands = [(WRONG, "5", False, 0.9)] * 3 + [(RIGHT, "4", True, 0.1)]
    return {"n": 4, "prm": "hf:/old/prm:dual", "agg": "min", "zeta": 1.0, "cluster": cluster, "question": QUESTION,
            "candidates": [{"text": t, "answer": a, "key": a, "correct": ok, "chaineval": float(ok), "reward": r,
                            "step_probs": [], "p_traj": None, "n_unverified": 0} for t, a, ok, r in cands],
            "selected": {}, "values": {}}


def _run(tmp_path):
    run = tmp_path / "run" / "model"
    run.mkdir(parents=True)
    lines = [json.dumps({"doc_id": i, "filter": "bon", "filtered_resps": [json.dumps(_record(f"tpl{i % 3}"))]})
             for i in range(N_PROBLEMS)]
    (run / "samples_finchain_bon_2026.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path / "run"


def _at(run, n: int) -> dict[str, float]:
    rows = (run / "bon_curves.csv").read_text().splitlines()[1:]
    return {r.split(",")[1]: float(r.split(",")[2]) for r in rows if r.startswith(f"{n},")}


def _bon(run, *extra: str):
    return CliRunner().invoke(app, ["bon", str(run), "--no-plot", "--ns", "1,4", "--subsamples", "20",
                                    "--bootstrap", "0", *extra])


def _no_prm(monkeypatch):
    def refuse(*_a, **_k):
        raise AssertionError("a PRM was loaded")

    monkeypatch.setattr("finchain_tasks.prm.load_prm", refuse)


def test_rescoring_with_calc_changes_the_prm_selectors_only_and_is_cached(tmp_path, monkeypatch):
    run = _run(tmp_path)
    before = _bon(run)
    assert before.exit_code == 0, before.output
    # the run's PRM preferred the wrong answer: PRM best and the weighted vote (3 × 0.9 against 0.1) are wrong
    old4, old1 = _at(run, 4), _at(run, 1)
    assert old4["prm_best"] == 0.0 and old4["weighted_vote"] == 0.0
    result = _bon(run, "--prm", "calc")
    assert result.exit_code == 0, result.output
    # calc: 2 + 2 = 4 checks (R 1), 2 + 2 = 5 does not (R 0): both PRM selectors now pick the right answer;
    # majority (three 5s), random (1 in 4 at N = 4) and the oracles read no reward and do not move
    at4 = _at(run, 4)
    assert at4["prm_best"] == 1.0 and at4["weighted_vote"] == 1.0 and at4["majority"] == 0.0
    assert at4["random"] == old4["random"] and at4["pass_at_n"] == old4["pass_at_n"] == 1.0
    assert _at(run, 1) == old1  # one candidate: every selector keeps it, whatever the PRM says
    flat = " ".join(result.output.split())
    assert "Re-scored with PRM calc" in flat and "the run used hf:/old/prm:dual" in flat
    assert f"{N_PROBLEMS * 4} candidate(s) scored now (2 distinct), 0 from the cache" in flat
    assert "pools scored by PRM calc;" in flat
    assert "# Best-of-N (PRM: calc)" in (run / "bon_curves.md").read_text()
    assert len((run / runs.SCORES_FILE).read_text().splitlines()) == 2  # one line per distinct (question, text)

    _no_prm(monkeypatch)
    again = _bon(run, "--prm", "calc")
    assert again.exit_code == 0, again.output
    assert f"0 candidate(s) scored now (0 distinct), {N_PROBLEMS * 4} from the cache" in " ".join(again.output.split())
    assert _at(run, 4) == at4
    (run / runs.CACHE_FILE).unlink()  # the pools cache gone: the logs are read again, the scores still cached
    third = _bon(run, "--prm", "calc")
    assert third.exit_code == 0, third.output
    assert f"0 candidate(s) scored now (0 distinct), {N_PROBLEMS * 4} from the cache" in " ".join(third.output.split())
    original = _bon(run)  # without --prm, the run's own scores as before
    assert original.exit_code == 0 and _at(run, 4)["prm_best"] == 0.0 and "hf:/old/prm:dual" in original.output


def test_a_bad_spec_fails_before_anything_is_read(tmp_path, monkeypatch):
    run = _run(tmp_path)

    def no_reading(*_a, **_k):
        raise AssertionError("the logs were read")

    monkeypatch.setattr(runs, "_read", no_reading)
    result = _bon(run, "--prm", "hf:/no/such/prm")
    assert result.exit_code == 2 and "no such path" in result.output
    result = _bon(run, "--prm", "oracle")
    assert result.exit_code == 2 and "unknown PRM backend 'oracle'" in result.output


def test_rescoring_with_a_judge_against_the_fake_server(tmp_path, monkeypatch):
    pytest.importorskip("litellm")
    from tests.support.fake_openai import FakeOpenAI

    def verdict(body) -> str:
        good = "2 + 2 = 4" in body["messages"][-1]["content"]
        return "Step 1: GOOD\nTrajectory: GOOD" if good else "Step 1: BAD\nTrajectory: BAD"

    run = _run(tmp_path)
    with FakeOpenAI(reply=verdict) as server:
        registry = tmp_path / "r.yaml"
        registry.write_text("\n".join([
            "version: 1", "models:",
            "  - {name: fake-judge, display_name: Fake judge, litellm_model: openai/fake-judge, category: general, "
            f"open_weights: false, api_base: '{server.base_url}'}}", ""]), encoding="utf-8")
        args = ("--prm", "judge:fake-judge", "--prm-agg", "mean", "-r", str(registry))
        result = _bon(run, *args)
        assert result.exit_code == 0, result.output
        assert len(server.requests) == 2  # two distinct candidates (right, wrong) over all six pools
        # R = mean(steps) + 1.0 · p_traj: 2.0 for the right candidate, 0.0 for the wrong ones
        assert _at(run, 4)["prm_best"] == 1.0 and _at(run, 4)["weighted_vote"] == 1.0
        assert "Re-scored with PRM judge:fake-judge (R = mean(steps) + 1 · p_traj)" in " ".join(result.output.split())
        _no_prm(monkeypatch)
        again = _bon(run, *args)
        assert again.exit_code == 0, again.output
        assert len(server.requests) == 2 and _at(run, 4)["prm_best"] == 1.0
