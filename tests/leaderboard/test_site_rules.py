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
    write_samples,
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


# ------------------------------------------------------------------------------- the data script's JSON

def test_the_data_script_refuses_a_nan_and_writes_other_objects_as_text():
    import datetime

    with pytest.raises(ValueError):
        js_literal({"mean": float("nan")})
    assert js_literal({"d": datetime.date(2026, 12, 5)}) == '{"d": "2026-12-05"}'
    assert js_literal(["中"]) == '["中"]'  # as UTF-8, not \\u escapes: a page's text stays its size


@pytest.mark.parametrize(("samples", "chunks"), [
    # one chunk per domain/topic/template, in that order; the same template name elsewhere is another chunk
    ({"s1": {"domain": "b", "topic": "t", "template": "x"}, "s2": {"domain": "a", "topic": "t", "template": "x"},
      "s3": {"domain": "a", "topic": "u", "template": "x"}, "s0": {"domain": "a", "topic": "t", "template": "x"}},
     {"0000": ["s0", "s2"], "0001": ["s3"], "0002": ["s1"]}),
    ({}, {}),
])
def test_samples_of_one_template_share_a_chunk_named_by_its_place(samples, chunks):
    assert sample_chunks(samples) == chunks


def test_each_chunk_script_assigns_its_samples_under_its_name_and_the_index_lists_the_chunks(tmp_path):
    samples = {"s0": {"domain": "a", "topic": "t", "template": "x", "q": "<b>"}}
    sizes = write_samples(tmp_path, samples)
    index = (tmp_path / "samples" / "index.js").read_text("utf-8")
    chunk = (tmp_path / "samples" / "0000.js").read_text("utf-8")
    assert index == 'window.LB_SAMPLE_INDEX = {"0000": ["s0"]};\n'
    assert chunk == ('(window.LB_SAMPLE_CHUNKS = window.LB_SAMPLE_CHUNKS || {})["0000"] = '
                     '{"s0": {"domain": "a", "topic": "t", "template": "x", "q": "\\u003cb\\u003e"}};\n')
    assert sizes == {"samples/index.js": len(index.encode()), "samples/0000.js": len(chunk.encode())}


@pytest.mark.parametrize(("size", "shown"), [
    (0, "0.0 KiB"), (1023, "1.0 KiB"), (1024 ** 2 - 1, "1,024.0 KiB"), (1024 ** 2, "1.0 MiB"),
    (3 * 1024 ** 2 + 1024 ** 2 // 2, "3.5 MiB"), (100 * 1024 ** 2, "100.0 MiB"),
])
def test_the_size_line_gives_kib_under_a_mib_and_mib_from_there(tmp_path, size, shown):
    (tmp_path / "samples").mkdir()
    (tmp_path / "data.js").write_bytes(b"x" * size)
    (tmp_path / "samples" / "index.js").write_bytes(b"x" * 2048)
    for name, n in (("0000.js", 1024), ("0001.js", 3072)):
        (tmp_path / "samples" / name).write_bytes(b"x" * n)
    from finchain_tasks.leaderboard.site import size_summary

    assert size_summary(tmp_path) == (f"data: data.js {shown} (every page); samples: index 2.0 KiB + 2 chunk(s), "
                                      "largest 3.0 KiB, total 4.0 KiB (the sample page loads the index and the "
                                      "chunk it shows)")


# ------------------------------------------------------------------------------------------- the folder

@pytest.mark.parametrize(("marker", "earlier"), [
    ({"files": ["a.html", 3, "samples/0000.js"]}, {"a.html", "samples/0000.js"}),  # only names
    ({"files": []}, set()),
])
def test_a_folder_with_the_marker_is_ours_and_its_list_is_what_earlier_builds_wrote(tmp_path, marker, earlier):
    from finchain_tasks.leaderboard.site import MARKER, claim_folder

    (tmp_path / MARKER).write_text(json.dumps(marker), encoding="utf-8")
    (tmp_path / "other.txt").write_text("x", encoding="utf-8")
    assert claim_folder(tmp_path) == earlier


@pytest.mark.parametrize("marker", ['{"files": "a.html"}', "[]", "not json", '{"written_by": "x"}'])
def test_a_marker_that_is_not_an_object_with_a_file_list_is_no_marker(tmp_path, marker):
    from finchain_tasks.leaderboard.site import MARKER, SiteFolderError, claim_folder

    (tmp_path / MARKER).write_text(marker, encoding="utf-8")
    with pytest.raises(SiteFolderError, match="is not empty and was not written by"):
        claim_folder(tmp_path)
    assert claim_folder(tmp_path, allow_foreign=True) == set()


@pytest.mark.parametrize("state", ["missing", "empty"])
def test_a_missing_or_empty_folder_is_ours_with_nothing_written_before(tmp_path, state):
    from finchain_tasks.leaderboard.site import claim_folder

    if state == "empty":
        (tmp_path / "out").mkdir()
    assert claim_folder(tmp_path / "out") == set()


def test_a_file_in_place_of_the_folder_is_refused_even_when_foreign_folders_are_allowed(tmp_path):
    from finchain_tasks.leaderboard.site import SiteFolderError, claim_folder

    (tmp_path / "out").write_text("x", encoding="utf-8")
    with pytest.raises(SiteFolderError, match=r"out is a file, not a folder$"):
        claim_folder(tmp_path / "out", allow_foreign=True)


def test_the_marker_adds_what_was_written_keeps_what_it_listed_and_drops_what_was_removed(tmp_path):
    from finchain_tasks.leaderboard.site import MARKER, record_written

    (tmp_path / MARKER).write_text(json.dumps({"files": ["old.html", "samples/0009.js"]}), encoding="utf-8")
    record_written(tmp_path, [tmp_path / "samples" / "0000.js", tmp_path / "b.html"],
                   forget=frozenset({"samples/0009.js"}))
    assert (tmp_path / MARKER).read_text("utf-8") == json.dumps(
        {"written_by": "finchain-tasks leaderboard", "files": ["b.html", "old.html", "samples/0000.js"]}, indent=1)


def test_a_rebuild_removes_only_listed_sample_files_it_did_not_write_again(tmp_path):
    from finchain_tasks.leaderboard.site import _remove_stale

    out = tmp_path / "site"
    (out / "samples" / "sub").mkdir(parents=True)
    (tmp_path / "outside.js").write_text("x", encoding="utf-8")
    for name in ("samples/0001.js", "samples/0002.js", "old.html", "samples/sub/x.js"):
        (out / name).write_text("x", encoding="utf-8")
    (out / "samples" / "link.js").symlink_to(tmp_path / "outside.js")
    earlier = {"samples/0001.js", "samples/0002.js", "old.html", "samples/link.js", "samples/sub",
               "samples/../../outside.js", "samples/../old.html", "samples/./../old.html", "samples/gone.js"}
    removed = _remove_stale(out, earlier, {"samples/0002.js"})
    assert removed == {"samples/0001.js"}
    left = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    assert left == ["outside.js", "site", "site/old.html", "site/samples", "site/samples/0002.js",
                    "site/samples/link.js", "site/samples/sub", "site/samples/sub/x.js"]


# ------------------------------------------------------------------------------------------- the pages

@pytest.mark.parametrize(("scripts", "tags"), [
    (("data.js",), '<script src="data.js"></script><script src="assets/app.js"></script>'),
    (("data.js", "samples/index.js"),
     '<script src="data.js"></script><script src="samples/index.js"></script><script src="assets/app.js"></script>'),
])
def test_every_page_loads_its_data_scripts_then_the_app_and_names_itself(scripts, tags):
    page = _shell("sample", "T", "<p>body</p>", scripts)
    assert f"</main>{tags}</body></html>\n" in page and '<body data-page="sample">' in page
    assert page.startswith('<!doctype html>\n<html lang="en"><head><meta charset="utf-8">')
    assert '<link rel="stylesheet" href="assets/style.css">' in page and "<main><p>body</p></main>" in page
    assert '<nav><a href="index.html">' in page and '<a href="sample.html" class=current>' in page


def test_the_sample_page_alone_loads_the_sample_index(tmp_path):
    index = write_site(tmp_path / "site", _board(), _payload(), {})
    assert index == tmp_path / "site" / "index.html"
    for page in PAGE_FILES:
        text = (tmp_path / "site" / page).read_text("utf-8")
        assert ('<script src="samples/index.js">' in text) is (page == "sample.html")
        assert f'<body data-page="{page[:-5]}">' in text and "<title>T</title>" in text
    assert (tmp_path / "site" / "assets" / "app.js").is_file()
    assert (tmp_path / "site" / "samples" / "index.js").is_file()
    data = (tmp_path / "site" / "data.js").read_text("utf-8")
    assert data.startswith("window.LB = {") and '"csv": {"header": "' in data


@pytest.mark.parametrize(("statistics", "said"), [
    ({}, ["Each mean's 95% interval", "2000 resamples, seed 0", "not distinguishable from it at 0.05 after a\nHolm",
          "fewer than 2\ntemplates, or under 0.5 of", "simultaneous at 95%", "1 − 0.05/rows"]),
    ({"confidence": 0.9, "resamples": 300, "seed": 7, "alpha": 0.01, "correction": "none", "min_shared": 4,
      "min_overlap": 0.25},
     ["Each mean's 90% interval", "300 resamples, seed 7", "at 0.01 after a\nno correction", "fewer than 4\n",
      "under 0.25 of", "simultaneous at 90%", "1 − 0.1/rows"]),
])
def test_the_methods_page_states_the_boards_own_statistics(statistics, said):
    board = _board(statistics=dataclasses.replace(_board().statistics, **statistics))
    page = methods_html(board, _payload())
    for text in said:
        assert text in page


@pytest.mark.parametrize(("board", "payload", "said"), [
    ({}, {}, ["<p>T</p>", "Models: every model found in the sources", "not recorded in the logs",
              "<li>none on this board</li>", "no model was run on both canonical and fresh seeds"]),
    ({"description": "D", "models": {"m": {}}}, {"chaineval": {"tau": 0.5, "alpha": 1}},
     ["<p>D</p>", "Models: {&quot;m&quot;: {}}", "<tr><td>alpha</td><td>1</td></tr><tr><td>tau</td><td>0.5</td></tr>"]),
    ({}, {"rows": [{"harness": "h"}, {"harness": "h"}, {"harness": "a", "profile": "p"}],
          "reported_samples": [{"source": "s", "title": "t", "url": "u", "rows": [1, 2]}]},
     ["<tr><td>a</td><td>—</td><td>—</td><td>p</td><td>—</td></tr><tr><td>h</td><td>—</td>",
      "<li>s: t — u (2 rows)</li>"]),
])
def test_the_methods_page_says_what_the_board_and_data_hold_or_that_they_hold_none(board, payload, said):
    page = methods_html(_board(**board), _payload(**payload))
    for text in said:
        assert text in page
    assert page.count("<tr><td>h</td>") <= 1  # one line per distinct version set


def test_the_sample_scripts_make_their_folder_when_it_is_missing(tmp_path):
    write_samples(tmp_path / "new" / "site", {})
    assert (tmp_path / "new" / "site" / "samples" / "index.js").read_text("utf-8") == "window.LB_SAMPLE_INDEX = {};\n"


def test_a_builds_time_is_utc_to_the_second():
    import re

    from finchain_tasks.leaderboard.site import now

    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", now())


def test_the_gap_table_has_one_line_per_gap_with_every_number_and_one_line_saying_none():
    gaps = [{"model": m, "harness": "h", "templates": 3, "gap": 0.1, "low": 0.05, "high": 0.2, "p_value": 0.01}
            for m in ("a", "b")]
    assert _gap_rows(gaps) == "".join(f"<tr><td>{m}</td><td>h</td><td>3</td><td>0.100</td><td>[0.050, 0.200]</td>"
                                      "<td>0.010</td></tr>" for m in ("a", "b"))
    assert _gap_rows([]) == '<tr><td colspan="6">no model was run on both canonical and fresh seeds</td></tr>'


def test_a_foreign_folder_is_refused_in_one_line_that_says_what_to_do(tmp_path):
    from finchain_tasks.leaderboard.site import SiteFolderError, claim_folder

    (tmp_path / "x").write_text("x", encoding="utf-8")
    with pytest.raises(SiteFolderError) as info:
        claim_folder(tmp_path)
    assert str(info.value) == (f"{tmp_path} is not empty and was not written by `finchain leaderboard` (no "
                               ".finchain-leaderboard.json): give a new or empty folder, or --allow-nonempty to write "
                               "into it (nothing of it is removed; files of the same name are replaced)")


def test_the_methods_page_lists_every_task_metric_and_source_and_says_when_there_are_none():
    board = _board(tasks=("finchain", "cflue"))
    sources = {k: {"title": f"T{k}", "url": f"U{k}"} for k in ("s1", "s2")}
    blocks = [{"source": k, "title": "t", "url": "u", "rows": []} for k in ("p1", "p2")]
    page = methods_html(board, _payload(reported={"sources": sources}, reported_samples=blocks))
    assert "tasks: finchain, cflue</li>" in page and "Metrics, in order: chaineval, fac (the first" in page
    assert "<ul><li>s1: Ts1 — Us1</li><li>s2: Ts2 — Us2</li></ul>" in page
    assert "<ul><li>p1: t — u (0 rows)</li><li>p2: t — u (0 rows)</li></ul>" in page
    empty = methods_html(_board(), _payload())
    assert "<tbody><tr><td>not recorded in the logs</td></tr></tbody>" in empty
    assert "<ul><li>none on this board</li></ul>" in empty


def test_the_size_line_of_a_site_without_samples_says_no_chunk(tmp_path):
    from finchain_tasks.leaderboard.site import size_summary

    (tmp_path / "samples").mkdir()
    (tmp_path / "data.js").write_bytes(b"x" * 1024)
    (tmp_path / "samples" / "index.js").write_bytes(b"{}")
    assert size_summary(tmp_path).startswith("data: data.js 1.0 KiB (every page); samples: index 0.0 KiB + 0 chunk(s), "
                                             "largest 0.0 KiB, total 0.0 KiB")


def test_a_site_is_written_into_a_missing_folder_but_never_into_someone_elses_unless_asked(tmp_path):
    from finchain_tasks.leaderboard.site import SiteFolderError

    assert write_site(tmp_path / "deep" / "site", _board(), _payload(), {}).is_file()
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "x.txt").write_text("x", encoding="utf-8")
    with pytest.raises(SiteFolderError):
        write_site(tmp_path / "theirs", _board(), _payload(), {})


def test_the_data_script_is_utf8_whatever_the_locale(tmp_path):
    """Model text is written as UTF-8 (not escaped): a machine whose locale is not UTF-8 writes the same bytes."""
    import os
    import subprocess
    import sys

    code = ("import sys; from pathlib import Path; from finchain_tasks.leaderboard.site import write_site; "
            "from finchain_tasks.leaderboard.board import Board; "
            "write_site(Path(sys.argv[1]), Board(name='b', title='T'), {'rows': [], 'reported': {'sources': {}}, "
            "'gaps': [], 'generated': 'g', 'finchain_tasks_version': 'v', 'note': '\\u00e9 \\u4e2d'}, {})")
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "s")], env=env, check=True, timeout=120)
    assert '"note": "é 中"' in (tmp_path / "s" / "data.js").read_bytes().decode("utf-8")
