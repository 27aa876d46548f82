"""Rules of offline selection's output that test_select.py does not pin (issue 31.18, found by mutation
testing): which id groups candidates into questions, the documented columns of ``sft.jsonl`` (the SFT
dataset's schema), the default of one kept candidate per question, ``selection.md`` as written, and the
empty-pool error. Hand-built candidates scored by the ``calc`` PRM: milliseconds, no model."""

from __future__ import annotations

import json

import pytest

from finchain_tasks.prm.data_selection import compare, question_key, run_select, top_k
from scorers.prm.base import PRMScore
from scorers.prm.calc import CalcPRM
from scorers.prm.labels.signals import LabelItem


def _item(cid: str, question: str, output: str, gold=None, **meta) -> LabelItem:
    final = output.rpartition("Final answer: ")[2]
    return LabelItem(id=cid, question=question, steps=(), final_answer=final, output=output, gold_answer=gold,
                     meta=meta)


def test_candidates_group_by_problem_id_then_question_id_then_question_text():
    assert question_key(_item("c", "text?", "", problem_id="p7", question_id="q7")) == "p7"
    assert question_key(_item("c", "text?", "", question_id="q7")) == "q7"
    assert question_key(_item("c", "text?", "")) == "text?"


def _pool(gold=4.0):
    # one question, two candidates with the right final answer: calc finds "2 + 2 = 5" broken in the second
    return [_item("bad", "What is 2 + 2?", "Step 1: 2 + 2 = 5\nFinal answer: 4", gold, problem_id="p1"),
            _item("good", "What is 2 + 2?", "Step 1: 2 + 2 = 4\nFinal answer: 4", gold, problem_id="p1")]


def test_sft_rows_hold_the_documented_columns_best_first(tmp_path):
    summary = run_select(_pool(), CalcPRM(), "calc", tmp_path, save_dataset=False)  # default: top 1 per question
    rows = [json.loads(line) for line in (tmp_path / "sft.jsonl").read_text().splitlines()]
    assert (summary["k"], summary["kept"], len(rows)) == (1, 1, 1)
    (row,) = rows
    assert row == {"id": "good", "question_id": "p1", "prompt": "What is 2 + 2?",
                   "completion": "Step 1: 2 + 2 = 4\nFinal answer: 4",
                   "messages": [{"role": "user", "content": "What is 2 + 2?"},
                                {"role": "assistant", "content": "Step 1: 2 + 2 = 4\nFinal answer: 4"}],
                   "reward": 1.0, "step_probs": [1.0], "p_traj": None, "agg": "min", "zeta": row["zeta"],
                   "prm": "calc", "correct": True}
    assert isinstance(row["zeta"], float)


def test_selection_md_is_the_comparison_table(tmp_path):
    summary = run_select(_pool(), CalcPRM(), "calc", tmp_path / "runs" / "known", k=2, save_dataset=False)
    assert json.loads((tmp_path / "runs" / "known" / "selection.json").read_text()) == summary
    assert {k: summary[k] for k in ("prm", "agg", "k", "mode", "pool", "questions", "kept")} == {
        "prm": "calc", "agg": "min", "k": 2, "mode": "per-question", "pool": 2, "questions": 1, "kept": 2}
    first = json.loads((tmp_path / "runs" / "known" / "sft.jsonl").read_text().splitlines()[0])
    assert summary["zeta"] == first["zeta"]
    assert (tmp_path / "runs" / "known" / "selection.md").read_text() == (
        "# Offline selection with `calc`\n\nPool: 2 candidates; kept 2 (top 2, per-question).\n\n"
        "| selection | share of kept with a right answer |\n|---|---|\n"
        "| random | 1.000 |\n| outcome_only | 1.000 |\n| prm | 1.000 |\n| pool | 1.000 |\n")
    run_select(_pool(gold=None), CalcPRM(), "calc", tmp_path / "unknown", save_dataset=False)
    table = (tmp_path / "unknown" / "selection.md").read_text().splitlines()[-4:]
    assert table == ["| random | n/a |", "| outcome_only | n/a |", "| prm | n/a |", "| pool | n/a |"]


def test_an_empty_pool_is_one_clear_error(tmp_path):  # and one candidate is a pool
    with pytest.raises(ValueError, match="^the pool is empty$"):
        run_select([], CalcPRM(), "calc", tmp_path)
    summary = run_select(_pool()[1:], CalcPRM(), "calc", tmp_path, save_dataset=False)
    assert (summary["pool"], summary["kept"], summary["agg"]) == (1, 1, "min")


def test_bad_selection_settings_name_the_allowed_values():
    with pytest.raises(ValueError, match="use one of per-question, overall$"):
        top_k(["a"], [0.5], 1, "best")
    with pytest.raises(ValueError, match="^K must be at least 1, got 0$"):
        top_k(["a"], [0.5], 0)


def test_overall_mode_ranks_the_whole_pool_in_every_column():
    # question a: two right candidates, question b: two wrong ones. Top 2 per question keeps all four (share
    # 0.5 for every selection); top 2 overall keeps a's two by reward and by outcome, and two at random
    keys, rewards, correct = ["a", "a", "b", "b"], [0.9, 0.8, 0.7, 0.1], [True, True, False, False]
    assert top_k(keys, rewards, 2, "overall") == [0, 1]
    assert compare(keys, rewards, correct, 2) == {"random": 0.5, "outcome_only": 0.5, "prm": 0.5, "pool": 0.5}
    table = compare(keys, rewards, correct, 2, "overall")
    assert table["prm"] == table["outcome_only"] == 1.0 and table["random"] != 0.5


def test_outcome_only_keeps_a_right_candidate_whatever_the_pool_and_random_is_reproducible():
    keys = [f"q{i // 4}" for i in range(200)]
    correct = [i % 4 == 3 for i in range(200)]  # one right candidate in four, last in each question
    rewards = [0.5] * 200
    table = compare(keys, rewards, correct, 1)
    assert table["outcome_only"] == 1.0 and 0.0 < table["random"] < 1.0
    assert compare(keys, rewards, correct, 1) == table


class _QuestionLength:
    name = "question-length"

    def score_batch(self, items):
        return [PRMScore((1.0, None), None, float(len(it.question)), "min", 0.0) for it in items]


def test_the_prm_reads_the_question_and_the_dataset_keeps_unverified_steps_as_nan(tmp_path):
    from datasets import load_from_disk

    pool = [_item("x", "Why?", "Step 1: because\nFinal answer: yes", True),
            _item("y", "Why not?", "Step 1: because not\nFinal answer: no", True)]
    summary = run_select(pool, _QuestionLength(), "len", tmp_path, k=1, mode="overall")
    (row,) = [json.loads(line) for line in (tmp_path / "sft.jsonl").read_text().splitlines()]
    assert (row["id"], row["reward"], row["step_probs"]) == ("y", 8.0, [1.0, None]) and summary["mode"] == "overall"
    assert summary["comparison"]["prm"] == 0.0  # overall: only y ("no", wrong) is kept; per question x too
    data = load_from_disk(str(tmp_path / "sft_dataset"))
    assert data.column_names[-1] == "correct" and data[0]["correct"] is False
    probs = data[0]["step_probs"]
    assert len(probs) == 2 and probs[0] == 1.0 and probs[1] != probs[1]  # an unverified step is NaN there


def test_without_datasets_only_the_jsonl_is_written_and_the_log_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "datasets", None)
    said: list[str] = []
    run_select(_pool(), CalcPRM(), "calc", tmp_path, log=said.append)
    assert said == ["datasets is not installed: wrote sft.jsonl only (pip install 'finchain-tasks[hf]')"]
    assert (tmp_path / "sft.jsonl").exists() and not (tmp_path / "sft_dataset").exists()


def _random_baseline(keys, correct, seeds):
    """The documented random baseline, spelled out: for each seed, ``random.Random(seed)`` draws one number per
    candidate in pool order and the highest per question is kept; the share of right ones is averaged."""
    import random

    shares = []
    for seed in seeds:
        rng = random.Random(seed)
        draws = [rng.random() for _ in keys]
        best: dict[str, int] = {}
        for i, key in enumerate(keys):
            if key not in best or draws[i] > draws[best[key]]:
                best[key] = i
        shares.append(sum(correct[i] for i in best.values()) / len(best))
    return sum(shares) / len(shares)


def test_the_random_baseline_is_the_mean_over_seeds_0_to_19():
    keys = [f"q{i // 3}" for i in range(21)]        # seven questions of three candidates, one right in each
    correct = [i % 3 == 0 for i in range(21)]
    expected = {n: _random_baseline(keys, correct, range(n)) for n in (19, 20, 21)}
    assert len(set(expected.values())) == 3          # the table tells 19, 20 and 21 seeds apart
    assert compare(keys, [0.5] * 21, correct, 1)["random"] == pytest.approx(expected[20])


def _outcome_rule(keys, correct, k):
    """Outcome-only selection as documented: right first, ties broken by one ``random.Random(0)`` draw per
    candidate in pool order, the highest draw first; the share of right answers among the known kept ones."""
    import random

    rng = random.Random(0)
    value = [(1.0 if c else 0.0, rng.random()) for c in correct]
    kept, count = [], {}
    for i in sorted(range(len(keys)), key=lambda i: value[i], reverse=True):
        if count.get(keys[i], 0) < k:
            count[keys[i]] = count.get(keys[i], 0) + 1
            kept.append(i)
    known = [correct[i] for i in kept if correct[i] is not None]
    return sum(known) / len(known)


def test_outcome_only_breaks_ties_among_equals_by_seed_0_draws_reproducibly():
    # per question a wrong and an unknown answer tie at 0; which one is kept moves the share (an unknown one
    # is left out of it), so the tie order is visible. One right question keeps the share defined.
    # (30 questions: seeds 0 and 1 keep 14 and 17 wrong ones, so the seed is visible too)
    keys = [f"q{i // 2}" for i in range(60)] + ["right"]
    correct = [None if i % 2 else False for i in range(60)] + [True]
    table = compare(keys, [0.5] * 61, correct, 1)
    assert table["outcome_only"] == pytest.approx(_outcome_rule(keys, correct, 1))
    assert 0.0 < table["outcome_only"] < 1.0
    assert [compare(keys, [0.5] * 61, correct, 1)["outcome_only"] for _ in range(3)] == [table["outcome_only"]] * 3


def _scored(cid, key, reward, correct=True, **extra):
    return {"id": cid, "question_id": key, "prompt": "p", "completion": "c", "messages": [], "reward": reward,
            "step_probs": [reward], "p_traj": None, "agg": "min", "zeta": 0.0, "prm": "calc", "correct": correct,
            **extra}


def test_write_selection_defaults_keep_one_per_question_and_save_the_dataset(tmp_path):
    # the ``--ray`` path (scale/commands.py) calls write_selection with its defaults for save_dataset
    from finchain_tasks.prm.data_selection import write_selection

    pool = [_scored("a1", "a", 0.2), _scored("a2", "a", 0.9), _scored("b1", "b", 0.5)]
    summary = write_selection(pool, "calc", tmp_path)
    assert (summary["k"], summary["mode"], summary["kept"]) == (1, "per-question", 2)
    assert [json.loads(line)["id"] for line in (tmp_path / "sft.jsonl").read_text().splitlines()] == ["a2", "b1"]
    assert (tmp_path / "sft_dataset").is_dir()
    with pytest.raises(ValueError, match="^the pool is empty$"):
        write_selection([], "calc", tmp_path / "empty")


def test_selection_files_are_readable_text_and_a_value_json_cannot_hold_is_written_as_its_text(tmp_path):
    from decimal import Decimal

    from finchain_tasks.prm.data_selection import write_selection

    write_selection([_scored("a1", "a", 0.5, source=Decimal("1.5"))], "calc", tmp_path, save_dataset=False)
    (row,) = [json.loads(line) for line in (tmp_path / "sft.jsonl").read_text().splitlines()]
    assert row["source"] == "1.5"
    assert (tmp_path / "selection.json").read_text().startswith('{\n "prm": "calc",\n "agg": "min",\n')
