"""The ``finchain_authors`` leaf: the FinChain authors' test set through lm-eval (issue 24).

Their repository is not shipped (no licence): the contract tests build a miniature one from lines
written here in its shape (``data/testset/<domain>/<topic>.jsonl``); the check on their real 2,700
instances runs where FINCHAIN_AUTHORS_DIR is set and is skipped with a reason elsewhere."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("lm_eval")

from lm_eval import simple_evaluate  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402

import finchain_tasks.lm_eval.models  # noqa: E402,F401  (registers finchain-oracle)
from finchain_tasks.lm_eval import TASKS_DIR  # noqa: E402
from finchain_tasks.lm_eval.authors import LEAF, load_authors  # noqa: E402
from finchain_tasks.lm_eval.authors_build import FOLDER  # noqa: E402
from finchain_tasks.lm_eval.build import render  # noqa: E402
from finchain_tasks.lm_eval.cli import check_metadata  # noqa: E402

LINES = {  # their shape: seed, id, level, question, solution (text gold only); one without a solution
    ("fintech", "robo_advisors"): [
        {"seed": 11, "id": "1", "level": "Basic", "question": "What is the annual advisory fee?",
         "solution": "Step 1: Fee = $120,000 × 0.5% = $600.00\nStep 2: The annual advisory fee is $600.00."},
        {"seed": 12, "id": "2", "level": "Advanced", "question": "What is the portfolio's new value?",
         "solution": "Step 1: Gain = $50,000 × 8% = $4,000\nStep 2: New value = $50,000 + $4,000 = $54,000"},
        {"seed": 13, "id": "3", "level": "Basic", "question": "What is the fee?", "solution": None},
    ],
    ("crypto_finance", "defi"): [
        {"seed": 21, "id": "1", "level": "Intermediate", "question": "What is the yield earned in ETH?",
         "solution": "Step 1: Yield = 20 ETH × 4% = 0.8 ETH\nStep 2: The yield earned is 0.8 ETH."},
    ],
}


@pytest.fixture(scope="module")
def authors(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("authors")
    for (domain, topic), lines in LINES.items():
        (root / "data" / "testset" / domain).mkdir(parents=True, exist_ok=True)
        (root / "data" / "testset" / domain / f"{topic}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return root


def _run(root: Path, mode: str, **metadata):
    manager = TaskManager(include_path=TASKS_DIR, include_defaults=False,
                          metadata={"authors_path": str(root), **metadata})
    return simple_evaluate(model="finchain-oracle", model_args=f"mode={mode}", tasks=[LEAF], task_manager=manager,
                           log_samples=True, bootstrap_iters=0)


def test_the_leaf_is_indexed_in_no_group_and_in_sync_with_the_generator():
    manager = TaskManager(include_path=TASKS_DIR, include_defaults=False)
    assert LEAF in manager.all_subtasks and LEAF not in manager.all_groups
    wanted = {p: t for p, t in render().items() if p.startswith(f"{FOLDER}/")}
    shipped = {p.relative_to(TASKS_DIR).as_posix(): p.read_text("utf-8") for p in (Path(TASKS_DIR) / FOLDER).glob("*")}
    assert shipped == wanted, "run python -m finchain_tasks.lm_eval.build"


def test_their_gold_text_scores_one_and_a_wrong_answer_zero(authors):
    gold, wrong = _run(authors, "gold"), _run(authors, "wrong")
    assert gold["n-samples"][LEAF]["effective"] == 3  # the instance without a solution is left out, not scored 0
    assert gold["results"][LEAF]["fac,none"] == 1.0 and gold["results"][LEAF]["chaineval,none"] == pytest.approx(1.0)
    assert wrong["results"][LEAF]["fac,none"] == 0.0
    run = gold["configs"][LEAF]["metadata"]["finchain_run"]
    assert run["n_instances"] == 3 and run["chaineval"]["profile"] == "reference"
    assert run["skipped"] == ["authors/fintech/robo_advisors/3/13: no gold: expected 'steps' (a list) or "
                              "'solution' (text)"]
    doc = next(s["doc"] for s in gold["samples"][LEAF] if s["doc"]["template"] == "2")
    assert doc["id"] == "authors/fintech/robo_advisors/2/12" and doc["level"] == "advanced"
    assert doc["prompt"].endswith("What is the portfolio's new value?") and json.loads(doc["answer"]) == 54000


def test_the_completion_prompt_and_paper_profile_are_options(authors):
    [ds] = load_authors(str(authors), finchain_profile="paper", finchain_prompt="completion").values()
    assert ds[0]["prompt"].rstrip().endswith("Step 1:") and json.loads(ds[0]["chaineval_params"])["profile"] == "paper"
    check_metadata({"authors_path": str(authors)})  # the lm-eval wrapper knows the option
    with pytest.raises(ValueError, match="did you mean authors_path"):
        check_metadata({"author_path": str(authors)})
    with pytest.raises(ValueError, match="'authors_root' is not an option"):
        check_metadata({"authors_root": str(authors)})


def test_a_missing_or_malformed_path_is_a_one_line_error(tmp_path, monkeypatch):
    monkeypatch.delenv("FINCHAIN_AUTHORS_DIR", raising=False)
    with pytest.raises(ValueError, match=r"with --metadata '\{\"authors_path\": DIR\}', or set \$FINCHAIN_AUTHORS_DIR"):
        load_authors()
    with pytest.raises(ValueError, match="no data/testset/ folder"):
        load_authors(str(tmp_path / "nowhere"))
    (tmp_path / "data" / "testset" / "fintech").mkdir(parents=True)
    (tmp_path / "data" / "testset" / "fintech" / "x.jsonl").write_text('{"seed": 1, "id": "1"}\n{"seed": 2,\n')
    with pytest.raises(ValueError, match=r"x\.jsonl:2: not JSON"):
        load_authors(str(tmp_path))
    with pytest.raises(ValueError, match="finchain_prompt must be one of"):
        load_authors(str(tmp_path), finchain_prompt="poem")


AUTHORS = os.environ.get("FINCHAIN_AUTHORS_DIR")


@pytest.mark.skipif(not AUTHORS, reason="FINCHAIN_AUTHORS_DIR not set (the FinChain authors' repository)")
def test_their_real_test_set_loads_renders_and_scores():
    manager = TaskManager(include_path=TASKS_DIR, include_defaults=False, metadata={"authors_path": AUTHORS})
    out = simple_evaluate(model="finchain-oracle", model_args="mode=gold", tasks=[LEAF], task_manager=manager,
                          limit=4, log_samples=True, bootstrap_iters=0)
    assert out["n-samples"][LEAF]["effective"] == 4 and out["n-samples"][LEAF]["original"] >= 2690
    assert out["results"][LEAF]["parse_ok,none"] == 1.0 and out["results"][LEAF]["fac,none"] >= 0.75
    sample = out["samples"][LEAF][0]
    assert sample["doc"]["question"] in sample["arguments"][0][0]  # the prompt lm-eval sent holds their question
