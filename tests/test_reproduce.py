"""``finchain reproduce``: joining our scores with the authors' per-sample files (issue 24).

The authors' repository is not shipped; these tests build a miniature one from lines written here in
its shapes. The check on the real files is in tests/scorers/test_answer_shapes.py (FINCHAIN_AUTHORS_DIR).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from finchain_tasks.reproduce.authors import AuthorsDataError, authors_problems, published_means
from finchain_tasks.reproduce.compare import auc, reproduce, write_report


class ConstantEmbedder:
    """Every text is the same unit vector: similarity 1, so the gate alone decides."""

    def encode_cached(self, texts):
        out = np.zeros((len(texts), 4), np.float32)
        out[:, 0] = 1.0
        return out


def _row(seed, solution, generation):
    return {"seed": seed, "id": "1", "level": "Basic", "topic": "t", "subtopic": "s", "model": "toy",
            "question": "What is the equity?", "solution": solution, "generation": generation}


@pytest.fixture(scope="module")
def authors(tmp_path_factory):
    root = tmp_path_factory.mktemp("authors")
    (root / "results").mkdir()
    (root / "evals").mkdir()
    rows = [
        _row(1, "Step 1: Equity = 30 - 10 = $20", "Step 1: Equity = 30 - 10 = $20"),
        _row(2, "Step 1: Equity = 50 - 10 = $40", "Step 1: Find the equity.\nStep 2: Subtract."),
        _row(3, "Step 1: Equity = 9 - 1 = $8", "The equity is $8."),            # no step lines: eval.py gives 0
        {**_row(4, None, "x"), "solution": None},                                 # their one row without gold
    ]
    (root / "results" / "toy.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    theirs = [{"seed": r["seed"], "id": "1", "level": "Basic", "topic": "t", "subtopic": "s",
               "recall": 1.0 if k == 0 else 0.0, "precision": 1.0 if k == 0 else 0.0,
               "final_answer_match": 1 if k == 0 else 0} for k, r in enumerate(rows)]
    (root / "evals" / "toy.jsonl").write_text("".join(json.dumps(r) + "\n" for r in theirs))
    (root / "evals" / "overall_results.txt").write_text("toy & 0.3 & 0.3 & 0.3 & 0.3 & 0.0 & 0.0 & 0.0 & 0.0\n")
    return root


def test_reproduce_joins_their_scores_and_explains_disagreements(authors, tmp_path):
    [toy] = reproduce(authors, ("reference",), embedder=ConstantEmbedder())
    assert toy.n == 3 and toy.their_file == "evals/toy.jsonl"
    assert toy.ours["fac"] == pytest.approx(2 / 3) and toy.theirs["fac"] == pytest.approx(1 / 3)
    assert toy.agree_exact["fac"] == pytest.approx(2 / 3)
    assert toy.published["final_answer_match"] == 0.3
    [dis] = toy.disagreements
    assert dis["ours_fac"] == 1.0 and dis["their_fac"] == 0 and "no steps in eval.py" in dis["reason"]
    md, csv_path = write_report([toy], tmp_path)
    assert "| fac | reference | 0.6667 | 0.3333 | 0.3000 | 0.6667 | 0.6667 |" in md.read_text()
    assert csv_path.read_text().splitlines()[1].startswith("toy,3,reference,fac,")


def test_auc_counts_ties_half_and_needs_both_classes():
    assert auc([0.9, 0.8, 0.1], [True, True, False]) == 1.0
    assert auc([0.5, 0.5], [True, False]) == 0.5
    assert auc([0.2, 0.9], [True, False]) == 0.0
    assert auc([0.3], [True]) is None


def test_a_folder_that_is_not_theirs_is_a_clear_error(tmp_path):
    with pytest.raises(AuthorsDataError, match="no results/ folder"):
        reproduce(tmp_path, ("reference",), embedder=ConstantEmbedder())
    assert published_means(tmp_path) == {}


def test_finchain_score_reads_their_generation_field():
    from scorers.rows import output_of

    assert output_of({"solution": "Step 1: x = 1", "generation": "The answer is: 1"}) == "The answer is: 1"


def test_a_broken_line_names_file_and_line(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "bad.jsonl").write_text('{"seed": 1}\n{not json\n')
    with pytest.raises(AuthorsDataError, match=r"bad.jsonl:2: not JSON"):
        reproduce(tmp_path, ("reference",), embedder=ConstantEmbedder())


def test_their_test_set_becomes_rows_that_score_on_the_text_gold_path(tmp_path):
    from scorers.rows import gold_of

    folder = tmp_path / "data" / "testset" / "crypto_finance"
    folder.mkdir(parents=True)
    line = {"seed": 7, "id": "2", "level": "Basic", "question": "How much ETH must you deposit?",
            "solution": "Step 1:\n  Collateral = 2925 × 2.07 = 6062.73 USD\n"
                        "Step 2:\n  You must deposit approximately 3.286 ETH."}
    (folder / "defi.jsonl").write_text(json.dumps(line) + "\n")
    [row] = authors_problems(tmp_path)
    assert row["id"] == "authors/crypto_finance/defi/2/7" and row["level"] == "easy" and "steps" not in row
    assert gold_of(row).answer == 3.286
    with pytest.raises(AuthorsDataError, match="no data/testset"):
        authors_problems(tmp_path / "data")


def test_the_authors_split_serves_their_instances_with_their_gold_text(tmp_path, monkeypatch):
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import Target

    from finchain_tasks.inspect.scorer import gold_for
    from finchain_tasks.inspect.tasks import authors_samples, finchain

    folder = tmp_path / "data" / "testset" / "fintech"
    folder.mkdir(parents=True)
    lines = [{"seed": s, "id": "1", "level": level, "question": "What is the fee for the year?",
              "solution": f"Step 1: Fee = $1,000 × 0.0{s} = ${10 * s}.00"}
             for s, level in ((1, "Basic"), (2, "Advanced"))]
    (folder / "robo_advisors.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    [sample] = authors_samples(str(tmp_path), None, None, "advanced", 0)  # what finchain(split="authors") serves
    assert isinstance(sample, Sample) and sample.id == "authors/fintech/robo_advisors/1/2"
    assert sample.target == lines[1]["solution"] and sample.input == lines[1]["question"]

    class State:
        metadata, sample_id = sample.metadata, sample.id

    assert gold_for(State(), Target(sample.target)).answer == 20.0
    monkeypatch.delenv("FINCHAIN_AUTHORS_DIR", raising=False)
    with pytest.raises(ValueError, match="authors_path"):
        finchain(split="authors")
    with pytest.raises(ValueError, match="split must be"):
        finchain(split="paper")


def test_v1_profile_runs_their_rule_beside_ours(authors, tmp_path):
    """v1 is eval.py: the output without Step lines scores 0, the plan without values recalls nothing."""
    [toy] = reproduce(authors, ("reference", "v1"), embedder=ConstantEmbedder())
    v1 = toy.by_profile["v1"]
    assert v1.means["fac"] == pytest.approx(1 / 3) and v1.agree_exact["fac"] == 1.0
    assert v1.means["recall"] == pytest.approx(1 / 3) and v1.agree_exact["recall"] == 1.0
    assert toy.by_profile["reference"].means["fac"] == pytest.approx(2 / 3)
    md, _ = write_report([toy], tmp_path)
    assert "| recall | v1 | 0.3333 | 0.3333 | 0.3000 | 1.0000 | 1.0000 |" in md.read_text()
    assert "`v1` step F1 (eval.py has no ChainEval)" in md.read_text()


def test_an_unknown_profile_is_refused_before_scoring(authors):
    with pytest.raises(ValueError, match="unknown profile.*'v2'.*choose from paper, reference, v1"):
        reproduce(authors, ("v2",), embedder=ConstantEmbedder())


def test_the_command_refuses_an_unknown_profile_or_a_missing_folder_in_one_line(authors, monkeypatch):
    from typer.testing import CliRunner

    from finchain_tasks.cli.main import app

    monkeypatch.delenv("FINCHAIN_AUTHORS_DIR", raising=False)
    bad = CliRunner().invoke(app, ["reproduce", "finchain-v1", "--authors", str(authors), "-p", "v2"])
    assert bad.exit_code != 0 and "unknown profile(s) ['v2']" in " ".join(bad.output.split())
    missing = CliRunner().invoke(app, ["reproduce", "finchain-v1"])
    shown = " ".join(missing.output.split())
    assert missing.exit_code != 0 and "repository with --authors DIR, or set $FINCHAIN_AUTHORS_DIR" in shown


def test_rule_a_full_reproduce_gives_each_disagreement_the_reason_fac_only_gives(tmp_path):
    # both paths label a row from the same reading (fac, fac_strict and the signed figure read): a pass within 5%
    # only is "tolerance only" and a sign read from a word is "ours: direction word", never "their bug"
    from finchain_tasks.reproduce.authors import _key, authors_rows, their_scores
    from finchain_tasks.reproduce.fac import fac_rows

    root = tmp_path / "authors"
    (root / "results").mkdir(parents=True)
    (root / "evals").mkdir()
    rows = [
        _row(1, "Step 1: Payment = 60 + 5.7 = $65.70", "The net payment is $63.50."),          # tolerance only
        {**_row(2, "Step 1: Change = 107.88 - 100 = 7.88", "Step 1: The value decreases by $7.88."),
         "question": "By how much does the value change?"},                                   # direction word
        _row(3, "Step 1: Equity = 9 - 1 = $8", "The equity is $8."),                          # their bug
    ]
    (root / "results" / "toy.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    theirs = [{"seed": r["seed"], "id": "1", "level": "Basic", "topic": "t", "subtopic": "s", "recall": 0.0,
               "precision": 0.0, "final_answer_match": m} for r, m in zip(rows, (0, 1, 0))]
    (root / "evals" / "toy.jsonl").write_text("".join(json.dumps(r) + "\n" for r in theirs))
    (root / "evals" / "overall_results.txt").write_text("toy & 0.3 & 0.3 & 0.3 & 0.3 & 0.0 & 0.0 & 0.0 & 0.0\n")
    [toy] = reproduce(root, ("reference",), embedder=ConstantEmbedder())
    full = {e["key"]: e["reason"] for e in toy.fac_rows}
    fast = {e["key"]: e["reason"] for e in fac_rows(authors_rows(root)["toy"], their_scores(root, "toy")[0], _key)}
    assert full == fast
    assert [r.split(":")[0].split(";")[0] for r in full.values()] == ["tolerance only", "ours", "their bug"]
