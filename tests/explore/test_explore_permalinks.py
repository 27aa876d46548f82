"""A permalink of a verdict reopens that verdict (issue 45): a short answer travels in the link, a long one in
a local store keyed by its hash; a damaged or hostile link is a one-line message, never a file read elsewhere."""

from __future__ import annotations

import base64
import zlib
from urllib.parse import parse_qsl, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from finchain_tasks.explore import answers, problems
from finchain_tasks.explore.actions import verdict_views
from tests.explore.conftest import wrong_at


@pytest.fixture(autouse=True)
def _store(tmp_path, monkeypatch):
    """A store of the test's own (not XDG_CACHE_HOME: the encoder's cache lives there)."""
    monkeypatch.setattr(answers, "store_dir", lambda: tmp_path / "answers")


def _query(link: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(link).query))


def test_rule_a_verdicts_link_reopens_the_same_verdict(problem):
    output = wrong_at(problem.solution, 2)
    html, heat, link = verdict_views(problem.id, output, "reference", "calc", "step_tol=0.1", "http://127.0.0.1:7860",
                                     "gpt-x")
    assert "answer" in _query(link) and len(link) < 2100
    case = problems.case_from_query(_query(link))
    assert (case.answer, case.params, case.profile, case.model, case.prm) == (output, "step_tol=0.1", "reference",
                                                                              "gpt-x", "calc")
    again = verdict_views(case.problem_id, case.answer, case.profile, case.prm, case.params, "http://127.0.0.1:7860",
                          case.model)
    assert again == (html, heat, link)


@pytest.mark.parametrize("size, carried", [(1, "answer"), (400, "answer"), (20_000, "answer_key")])
def test_rule_short_answers_travel_in_the_link_long_ones_in_the_local_store(size, carried):
    import random

    rnd = random.Random(size)  # incompressible text, so the size decides
    text = "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz0123456789 =+") for _ in range(size))
    query = answers.to_query(text)
    assert list(query) == [carried] and answers.from_query(query) == text
    if carried == "answer_key":
        stored = answers.store_dir() / f"{query['answer_key']}.txt"
        assert stored.read_text() == text and oct(stored.parent.stat().st_mode & 0o777) == "0o700"
    else:
        assert len(query["answer"]) <= answers.MAX_URL_CHARS


@given(st.text(max_size=300))
def test_rule_any_short_text_round_trips_through_a_link(text):
    assert answers.from_query(answers.to_query(text)) == text


def _packed(data: bytes) -> str:
    return base64.urlsafe_b64encode(zlib.compress(data)).decode().rstrip("=")


@pytest.mark.parametrize("query, message", [
    ({"answer": "not base64 !!"}, "damaged"),
    ({"answer": _packed(b"Step 1: 1 + 1 = 2")[:-6]}, "damaged"),
    ({"answer": _packed(b"\x00" * (answers.MAX_BYTES + 1))}, "damaged"),  # a bomb: decompressed only to the limit
    ({"answer": _packed(b"\xff\xfe bad utf-8")}, "damaged"),
    ({"answer_key": "../../../../etc/passwd"}, "32 hex digits"),
    ({"answer_key": "A" * 32}, "32 hex digits"),
    ({"answer_key": "0" * 32}, "another machine"),
])
def test_rule_a_damaged_or_hostile_link_is_one_line(query, message):
    with pytest.raises(ValueError, match=message) as err:
        answers.from_query(query)
    assert "\n" not in str(err.value)


def test_rule_a_stored_key_naming_something_else_than_a_file_is_refused(tmp_path):
    folder = answers.store_dir()
    folder.mkdir(parents=True)
    (folder / f"{'1' * 32}.txt").symlink_to("/etc/hostname")
    with pytest.raises(ValueError, match="not a stored answer"):
        answers.from_query({"answer_key": "1" * 32})
