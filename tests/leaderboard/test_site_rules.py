"""The site's user-visible rules, one table-driven test per rule (issue 39.3): what every page links to, which
characters the data script escapes, and that every piece of text from a board or a log reaches the HTML escaped.
Built from a hand-made Board and payload, no logs read: fast, and each rule's edge is in its table."""

from __future__ import annotations

import dataclasses
import json

import pytest

from finchain_tasks.leaderboard.board import Board
from finchain_tasks.leaderboard.site import (
    _gap_rows,
    _nav,
    _shell,
    js_literal,
    methods_html,
    sample_chunks,
    write_site,
)

EVIL = '<b x="1">&amp;\'</b>'
"""Text that is markup unless escaped: a tag, an attribute quote, an entity, an apostrophe."""
ESCAPED = "&lt;b x=&quot;1&quot;&gt;&amp;amp;&#x27;&lt;/b&gt;"

PAGE_FILES = ["index.html", "heatmap.html", "frontier.html", "sample.html", "methods.html"]
"""Written out, not read from ``PAGES``: a page dropped from it must fail here."""
PAGE_TITLES = ["Leaderboard", "Domain × level", "Score vs cost", "Samples", "Methods"]


def _payload(**over):
    payload = {"rows": [], "reported": {"sources": {}}, "reported_samples": [], "chaineval": {}, "gaps": [],
               "generated": "2026-12-05T00:00:00+00:00", "finchain_tasks_version": "3.1.0"}
    return {**payload, **over}


def _board(**over):
    return dataclasses.replace(Board(name="b", title="T", tasks=("finchain",), metrics=("chaineval", "fac")), **over)


# ------------------------------------------------------------------------------------------- navigation

@pytest.mark.parametrize("current", PAGE_FILES)
def test_every_page_links_the_five_pages_in_order_marking_only_itself(current):
    nav = _nav(current)
    links = [f'<a href="{name}"{" class=current" if name == current else ""}>{title}</a>'
             for name, title in zip(PAGE_FILES, PAGE_TITLES)]
    assert nav == f'<nav>{" ".join(links)}</nav>'


def test_the_build_writes_the_five_pages_and_lists_them_in_its_marker(tmp_path):
    write_site(tmp_path / "site", _board(), _payload(), {})
    written = sorted(p.name for p in (tmp_path / "site").glob("*.html"))
    assert written == sorted(PAGE_FILES)
    marker = json.loads((tmp_path / "site" / ".finchain-leaderboard.json").read_text("utf-8"))
    assert set(PAGE_FILES) <= set(marker["files"]) and marker["written_by"] == "finchain-tasks leaderboard"
    assert '<a href="methods.html">Methods</a>' in (tmp_path / "site" / "index.html").read_text("utf-8")


# ------------------------------------------------------------------------------------- the data script

@pytest.mark.parametrize(("raw", "escaped"), [
    ("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"),
])
def test_the_data_script_escapes_each_character_that_can_end_a_script_or_a_js_line(raw, escaped):
    text = js_literal({"model": f"a{raw}b"})
    assert raw not in text and f"a{escaped}b" in text
    assert json.loads(text) == {"model": f"a{raw}b"}  # still the same JSON


def test_the_data_script_leaves_other_text_as_it_is():
    assert js_literal({"m": "é ü 'q' ½"}) == '{"m": "é ü \'q\' ½"}'


# ----------------------------------------------------------------------------------- escaping of text

def test_the_page_title_is_escaped_in_the_title_and_the_heading():
    page = _shell("index", EVIL, "<p>body</p>")
    assert f"<title>{ESCAPED}</title>" in page and f'<h1 id="title">{ESCAPED}</h1>' in page
    assert EVIL not in page


@pytest.mark.parametrize("where", [
    "description", "title", "name", "tasks", "metrics", "primary", "profile", "models", "generated",
    "finchain_tasks_version", "row harness", "row harness_version", "row task_version", "row profile",
    "row finchain_tasks_version", "source key", "source title", "source url", "per-sample source",
    "per-sample title", "per-sample url", "parameter name", "parameter value", "gap model", "gap harness",
])
def test_every_text_on_the_methods_page_is_escaped(where):
    """One field at a time holds markup; the page holds it escaped and never raw."""
    board, payload = _board(), _payload()
    row = {"harness": "h", "harness_version": "1", "task_version": "3", "profile": "p", "finchain_tasks_version": "v"}
    if where in ("description", "name", "profile"):
        board = _board(**{where: EVIL})
    elif where == "title":
        board = _board(title=EVIL, description="")
    elif where in ("tasks", "metrics"):
        board = _board(**{where: ("x", EVIL)})
    elif where == "primary":
        board = _board(metrics=(EVIL, "fac"))
    elif where == "models":
        board = _board(models={"m": {"display_name": EVIL}})
    elif where in ("generated", "finchain_tasks_version"):
        payload = _payload(**{where: EVIL})
    elif where.startswith("row "):
        payload = _payload(rows=[{**row, where[4:]: EVIL}])
    elif where.startswith("source "):
        key = EVIL if where == "source key" else "s"
        payload = _payload(reported={"sources": {key: {"title": "t", "url": "u", where[7:]: EVIL}}})
    elif where.startswith("per-sample "):
        payload = _payload(reported_samples=[{"source": "s", "title": "t", "url": "u", "rows": [],
                                              where[11:]: EVIL}])
    elif where.startswith("parameter "):
        payload = _payload(chaineval={EVIL: 1} if where == "parameter name" else {"tau": EVIL})
    else:
        gap = {"model": "m", "harness": "h", "templates": 3, "gap": 0.1, "low": 0.0, "high": 0.2, "p_value": 0.5}
        payload = _payload(gaps=[{**gap, where[4:]: EVIL}])
    page = methods_html(board, payload)
    expected = json.dumps(board.models).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") \
        .replace('"', "&quot;").replace("'", "&#x27;") if where == "models" else ESCAPED
    assert expected in page
    assert "<b " not in page


def test_the_gap_table_formats_numbers_to_three_places_and_says_when_there_is_none():
    gap = {"model": "m", "harness": "h", "templates": 3, "gap": 0.12345, "low": None, "high": 0.2, "p_value": 0.5}
    assert _gap_rows([gap]) == ("<tr><td>m</td><td>h</td><td>3</td><td>0.123</td><td>[—, 0.200]</td>"
                                "<td>0.500</td></tr>")
    assert "no model was run on both canonical and fresh seeds" in _gap_rows([])


# ----------------------------------------------------------------------------------------- sample chunks

@pytest.mark.parametrize(("loose", "sizes"), [(1, [1]), (49, [49]), (50, [50]), (51, [50, 1]), (101, [50, 50, 1])])
def test_samples_without_a_template_are_cut_in_chunks_of_fifty(loose, sizes):
    samples = {f"cflue/{k:03d}": {"template": None} for k in range(loose)}
    samples["finchain/d/t/a/0"] = {"domain": "d", "topic": "t", "template": "a"}
    chunks = sample_chunks(samples)
    assert [len(ids) for ids in chunks.values()] == [1, *sizes]  # the template's chunk first
