"""The static site: ``finchain leaderboard build <board> -o site/``.

Plain files that work from ``file://`` and any static host, with nothing fetched from elsewhere: the data
travel as JavaScript assignments (``fetch`` of a JSON file is refused under ``file://``, a script tag is not),
the page logic and style are vendored from the package (``static/``). ``data.js`` (the table, cells,
comparisons) is loaded by every page. The samples are the bulk of a board (every model's output, steps and
alignment: about 83 MiB for 26 models × 2,900 problems in ``benchmarks/leaderboard_bench.py``), so they are
split: ``samples/index.js`` lists the sample ids by chunk, one chunk per template (samples without a
template: :data:`CHUNK_SIZE` to a chunk), and the sample page adds the script tag of the one chunk it shows
when it shows it (0.6 MiB at most there). Every string from a
log is model or user text, hence untrusted: the pages build the DOM with ``textContent`` only, the JSON is
written with ``<``, ``>``, ``&`` and the line separators escaped, the methods page (rendered here) escapes
everything it prints, and every page carries a Content-Security-Policy that lets it load its own files only
(no inline script, no other origin).

A site folder is the project's: :func:`claim_folder` writes only into a folder that is missing, empty or holds
the marker (:data:`MARKER`, with the list of files written) of an earlier build, and a rebuild removes only
files that list names (stale sample chunks), never anything it did not write."""

from __future__ import annotations

import html
import json
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.leaderboard.board import Board
from finchain_tasks.leaderboard.table_csv import site_csv

STATIC = Path(__file__).with_name("static")
PAGES = {"index.html": "Leaderboard", "heatmap.html": "Domain × level", "frontier.html": "Score vs cost",
         "sample.html": "Samples", "methods.html": "Methods"}


def js_literal(value: Any) -> str:
    """JSON that is also safe inside any HTML or JS context: no ``</script>``, no HTML comment, no U+2028."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, default=str)
    for raw, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                     ("\u2029", "\\u2029")):
        text = text.replace(raw, esc)
    return text


SAMPLE_DIR = "samples"
CHUNK_SIZE = 50
"""Samples per chunk when they have no template to group them (CFLUE questions)."""


def sample_chunks(samples: dict[str, Any]) -> dict[str, list[str]]:
    """Chunk name -> sample ids: the samples of one template together (the drill-down and a reader move
    between a template's seeds), the rest in runs of :data:`CHUNK_SIZE`. Names are sequence numbers, so no
    text from a log ever becomes part of a file name."""
    groups: dict[str, list[str]] = {}
    loose: list[str] = []
    for sid in sorted(samples):
        s = samples[sid]
        if s.get("template") is None:
            loose.append(sid)
        else:
            groups.setdefault(f"{s.get('domain')}/{s.get('topic')}/{s['template']}", []).append(sid)
    ordered = [groups[k] for k in sorted(groups)] + [loose[i:i + CHUNK_SIZE] for i in range(0, len(loose), CHUNK_SIZE)]
    return {f"{n:04d}": ids for n, ids in enumerate(ordered)}


MARKER = ".finchain-leaderboard.json"
"""Written into every site folder: says the project wrote it and lists the files it wrote (relative paths)."""


class SiteFolderError(ValueError):
    """A folder the site must not be written into; one line."""


def _marker(out: Path) -> Optional[dict[str, Any]]:
    from finchain_tasks.plumbing.safe_files import load_json

    try:
        data = load_json(out / MARKER)  # a regular file only: a FIFO in its place is refused, never blocks
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("files"), list) else None


def claim_folder(out: Path, allow_foreign: bool = False) -> set[str]:
    """Check that ``out`` is ours to write: missing, empty, or written by an earlier build (its marker).
    Returns the files the earlier builds wrote. A non-empty folder without the marker is refused unless
    ``allow_foreign`` (then nothing already there is ever removed: the earlier list is empty)."""
    if out.exists() and not out.is_dir():
        raise SiteFolderError(f"{out} is a file, not a folder")
    marker = _marker(out) if out.is_dir() else None
    if marker is not None:
        return {f for f in marker["files"] if isinstance(f, str)}
    if out.is_dir() and any(out.iterdir()) and not allow_foreign:
        raise SiteFolderError(f"{out} is not empty and was not written by `finchain leaderboard` (no {MARKER}): "
                              "give a new or empty folder, or --allow-nonempty to write into it (nothing of "
                              "it is removed; files of the same name are replaced)")
    return set()


def record_written(out: Path, files: list[Path], forget: frozenset[str] = frozenset()) -> None:
    """Add ``files`` (paths under ``out``) to the marker's list, and drop the ``forget`` names from it."""
    known = set((_marker(out) or {}).get("files") or []) - set(forget)
    known |= {p.relative_to(out).as_posix() for p in files}
    (out / MARKER).write_text(json.dumps({"written_by": "finchain-tasks leaderboard", "files": sorted(known)},
                                         indent=1), encoding="utf-8")


def _remove_stale(out: Path, earlier: set[str], written: set[str]) -> frozenset[str]:
    """Remove the sample chunks an earlier build wrote and this one did not (templates no longer shown): only
    names from the marker, only inside ``out/samples`` (``samples/../index.html`` is the site's own page), never a
    link. Returns the names removed."""
    root, removed = (out / SAMPLE_DIR).resolve(), set()
    for name in sorted(earlier - written):
        path = out / name
        if name.startswith(f"{SAMPLE_DIR}/") and path.is_file() and not path.is_symlink() \
                and path.resolve().is_relative_to(root):
            path.unlink()
            removed.add(name)
    return frozenset(removed)


def write_samples(out: Path, samples: dict[str, Any]) -> dict[str, int]:
    """``samples/index.js`` and one ``samples/<chunk>.js`` per chunk; returns each file's size in bytes (a
    chunk an earlier build left is removed by :func:`write_site`, which knows what it wrote)."""
    folder = out / SAMPLE_DIR
    folder.mkdir(parents=True, exist_ok=True)
    chunks = sample_chunks(samples)
    files = {"index.js": f"window.LB_SAMPLE_INDEX = {js_literal(chunks)};\n"}
    for name, ids in chunks.items():
        files[f"{name}.js"] = (f"(window.LB_SAMPLE_CHUNKS = window.LB_SAMPLE_CHUNKS || {{}})[{js_literal(name)}] = "
                               f"{js_literal({sid: samples[sid] for sid in ids})};\n")
    sizes = {}
    for name, text in files.items():
        data = text.encode("utf-8")
        (folder / name).write_bytes(data)
        sizes[f"{SAMPLE_DIR}/{name}"] = len(data)
    return sizes


def size_summary(out: Path) -> str:
    """One line on the data files of a built site: what every page loads and what the sample page adds."""
    def kb(n: int) -> str:
        return f"{n / 1024:,.1f} KiB" if n < 1024 ** 2 else f"{n / 1024 ** 2:,.1f} MiB"

    chunks = [p.stat().st_size for p in (out / SAMPLE_DIR).glob("*.js") if p.name != "index.js"]
    index = (out / SAMPLE_DIR / "index.js").stat().st_size
    return (f"data: data.js {kb((out / 'data.js').stat().st_size)} (every page); samples: index {kb(index)} + "
            f"{len(chunks)} chunk(s), largest {kb(max(chunks, default=0))}, total {kb(sum(chunks))} "
            "(the sample page loads the index and the chunk it shows)")


def _nav(current: str) -> str:
    links = [f'<a href="{name}"{" class=current" if name == current else ""}>{html.escape(title)}</a>'
             for name, title in PAGES.items()]
    return f'<nav>{" ".join(links)}</nav>'


CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; "
       "form-action 'none'")
"""Every page's Content-Security-Policy: its own scripts, style and images only; no inline script, no other
origin (a model output that slipped past the escaping could still run nothing)."""


def _shell(page: str, title: str, body: str, scripts: tuple[str, ...] = ("data.js",)) -> str:
    tags = "".join(f'<script src="{s}"></script>' for s in (*scripts, "assets/app.js"))
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{html.escape(title)}</title><link rel="stylesheet" href="assets/style.css"></head>'
            f'<body data-page="{page}"><header><h1 id="title">{html.escape(title)}</h1>{_nav(page + ".html")}'
            f'</header><main>{body}</main>{tags}</body></html>\n')


INDEX_BODY = """
<section id="filters" aria-label="filters">
  <label>Category <select id="f-category"><option value="">all</option></select></label>
  <label>Weights <select id="f-open"><option value="">all</option><option value="open">open</option>
    <option value="closed">closed</option></select></label>
  <label>Harness <select id="f-harness"><option value="">all</option></select></label>
  <label>Max size (B) <input id="f-size" type="number" min="0" step="any"></label>
  <label>Search <input id="f-search" type="search"></label>
  <button id="dl-csv" type="button">Download CSV</button> <button id="dl-json" type="button">Download JSON</button>
  <details id="columns"><summary>Columns</summary><div id="column-boxes"></div></details>
</section>
<p class="note" id="table-note"></p>
<div class="scroll"><table id="board"><thead></thead><tbody></tbody></table></div>
<aside id="details" tabindex="-1" hidden aria-labelledby="details-title">
  <h2 id="details-title"></h2><button id="details-close" type="button">close</button>
  <div id="details-body"></div>
</aside>
<h2>Reproduced beside published</h2>
<p class="note">Each reproduced row beside the figure its authors published for the same model and metric, on their
scale. The difference's interval is the reproduced mean's template-bootstrap interval, shifted: the published
figure comes with no interval, and its protocol may differ (see the source's note below).</p>
<section id="versus"></section>
<section id="reported-samples" aria-label="reported per sample, not reproduced"></section>
<h2>Reported, not reproduced</h2>
<p class="note">Figures published by others, shown as printed (their scale, their ± spread). They are not
re-run here and enter no interval, test or tie group.</p>
<section id="reported"></section>
"""
HEATMAP_BODY = """
<label>Model <select id="hm-model"></select></label>
<p class="note" id="hm-note"></p>
<div class="scroll"><table id="heatmap"><thead></thead><tbody></tbody></table></div>
<section id="drill"></section>
<h2>Models × domains</h2>
<p class="note" id="matrix-note"></p>
<div class="scroll"><table id="matrix"><thead></thead><tbody></tbody></table></div>
"""
FRONTIER_BODY = """
<h2>Score versus cost per sample</h2><div id="cost-chart" class="chart"></div><p class="note" id="cost-note"></p>
<h2>Score versus size (open weights)</h2><div id="size-chart" class="chart"></div><p class="note" id="size-note"></p>
"""
SAMPLE_BODY = """
<label>Sample <select id="sample-select"></select></label>
<section id="sample"></section>
"""


def _fmt(value: Any) -> str:
    return "—" if value is None else str(value)


def methods_html(board: Board, payload: dict[str, Any]) -> str:
    """The methods page, from the board definition and what the data say (versions, profile, parameters)."""
    st = board.statistics
    e = html.escape
    versions = sorted({(r["harness"], _fmt(r.get("harness_version")), _fmt(r.get("task_version")),
                        _fmt(r.get("profile")), _fmt(r.get("finchain_tasks_version"))) for r in payload["rows"]})
    vrows = "".join(f"<tr><td>{e(h)}</td><td>{e(hv)}</td><td>{e(tv)}</td><td>{e(p)}</td><td>{e(fv)}</td></tr>"
                    for h, hv, tv, p, fv in versions)
    sources = "".join(f"<li>{e(k)}: {e(str(v.get('title')))} — {e(str(v.get('url')))}</li>"
                      for k, v in payload["reported"]["sources"].items())
    per_sample = "".join(f"<li>{e(b['source'])}: {e(str(b.get('title')))} — {e(str(b.get('url')))} "
                         f"({len(b['rows'])} rows)</li>" for b in payload.get("reported_samples") or [])
    params = payload.get("chaineval") or {}
    prow = "".join(f"<tr><td>{e(str(k))}</td><td>{e(str(v))}</td></tr>" for k, v in sorted(params.items()))
    level = round(st.confidence * 100)
    return f"""
<h2>Board</h2>
<p>{e(board.description or board.title)}</p>
<ul><li>Board: <code>{e(board.name)}</code>; tasks: {e(', '.join(board.tasks))}</li>
<li>Metrics, in order: {e(', '.join(board.metrics))} (the first, <code>{e(board.primary)}</code>, orders the table
and decides the tie groups)</li>
<li>ChainEval profile expected: <code>{e(board.profile)}</code></li>
<li>Models: {e(json.dumps(board.models) if board.models else 'every model found in the sources')}</li>
<li>Generated {e(payload['generated'])} by finchain-tasks {e(payload['finchain_tasks_version'])}</li></ul>
<h2>Versions of the rows</h2>
<table><thead><tr><th>harness</th><th>harness version</th><th>task version</th><th>profile</th>
<th>finchain-tasks</th></tr></thead><tbody>{vrows}</tbody></table>
<h2>ChainEval parameters</h2>
<table><tbody>{prow or '<tr><td>not recorded in the logs</td></tr>'}</tbody></table>
<h2>How the intervals were computed</h2>
<p>FinChain problems are clustered by template (all seeds of a template share wording, steps and difficulty;
CFLUE questions cluster by exam). Each mean's {level}% interval is a percentile bootstrap
(<code>scipy.stats.bootstrap</code>, {st.resamples} resamples, seed {st.seed}) that resamples whole templates
and takes the mean over the samples drawn. Beside it, in small print, the plain per-sample bootstrap interval,
which treats every sample as independent and is too narrow on clustered data.</p>
<h2>Comparisons and tie groups</h2>
<p>Models are compared on the samples both answered. The p-value is a paired sign-flip test over templates,
two-sided: exact (every sign pattern enumerated) up to 15 shared templates, above that the cluster-robust t test
on the template-level differences (CR1 variance, templates − 1 degrees of freedom); neither is floored by a
resample count, so Holm's correction still separates rows on a 54-row board. The difference's interval is a
template bootstrap. Tie groups: the leader (best mean of <code>{e(board.primary)}</code> among rows of full
coverage) and every model that is not distinguishable from it at {st.alpha:g} after a
{e('Holm' if st.correction == 'holm' else 'no')} correction over the comparisons with that leader (family-wise
error control) form group 1; the others repeat the procedure. Two rows sharing fewer than {st.min_shared}
templates, or under {st.min_overlap:g} of either row's templates, are <em>not comparable</em>: such a row gets
no group and is listed last, never "tied". Rows covering fewer templates than the most complete row are marked
† (partial) and come after the full rows of their group.</p>
<p>Tie groups are not an ordering, and their leader is chosen after looking. The calibrated statement about
order is the <em>rank interval</em>: each row's range of ranks over the same template bootstrap (every row
resampled on the same drawn templates; rank 1 = best), simultaneous at {level}% (each row's range at
1 − {1 - st.confidence:g}/rows, Bonferroni over the rows, so all of them hold together), shown as
<code>ranks</code> on the board and as <code>rank_low</code> / <code>rank_high</code> in the CSV and JSON.</p>
<h2>Reported rows</h2>
<p>Rows marked "reported, not reproduced" are typed in from their source and shown apart; they never enter a
statistic.</p><ul>{sources}</ul>
<p>A source that publishes every sample's score is <em>reported per sample</em>: its rows are still "reported, not
reproduced" (scored by their authors' code, not re-run here), but they get the same template-bootstrap intervals,
paired tests, tie groups and rank intervals as above, computed among that source's rows only: a reproduced row
never enters their statistics, nor they its. Beside each mean stands the one the source published.</p>
<ul>{per_sample or '<li>none on this board</li>'}</ul>
<h2>Contamination signal</h2>
<p>Where a model was run on both the canonical seeds and fresh seeds, the gap (canonical minus fresh, paired by
template) is listed below with its interval.</p>
<table id="gaps"><thead><tr><th>model</th><th>harness</th><th>templates</th><th>gap</th><th>interval</th>
<th>p</th></tr></thead><tbody>{_gap_rows(payload['gaps'])}</tbody></table>
"""


def _gap_rows(gaps: list[dict[str, Any]]) -> str:
    if not gaps:
        return '<tr><td colspan="6">no model was run on both canonical and fresh seeds</td></tr>'
    e = html.escape
    return "".join(f"<tr><td>{e(g['model'])}</td><td>{e(g['harness'])}</td><td>{g['templates']}</td>"
                   f"<td>{_num(g['gap'])}</td><td>[{_num(g['low'])}, {_num(g['high'])}]</td>"
                   f"<td>{_num(g['p_value'])}</td></tr>" for g in gaps)


def _num(value: Optional[float]) -> str:
    return "—" if value is None else f"{value:.3f}"


def write_site(out: Path, board: Board, payload: dict[str, Any], samples: dict[str, Any],
               allow_foreign: bool = False) -> Path:
    """Write every page, the data scripts and the vendored assets under ``out`` (see :func:`claim_folder`)."""
    earlier = claim_folder(out, allow_foreign)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(STATIC, out / "assets", dirs_exist_ok=True)
    csv_lines = site_csv(payload, board.metrics)  # the release's writer: the page picks the rows it shows
    (out / "data.js").write_text(f"window.LB = {js_literal({**payload, 'csv': csv_lines})};\n", encoding="utf-8")
    written = {"data.js", *(f"assets/{p.name}" for p in STATIC.iterdir() if p.is_file())}
    written |= set(write_samples(out, samples))
    pages = {"index": INDEX_BODY, "heatmap": HEATMAP_BODY, "frontier": FRONTIER_BODY, "sample": SAMPLE_BODY,
             "methods": methods_html(board, payload)}
    for page, body in pages.items():
        scripts = ("data.js", f"{SAMPLE_DIR}/index.js") if page == "sample" else ("data.js",)
        (out / f"{page}.html").write_text(_shell(page, board.title, body, scripts), encoding="utf-8")
        written.add(f"{page}.html")
    removed = _remove_stale(out, earlier, written)
    record_written(out, [out / name for name in written], forget=removed)
    return out / "index.html"


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
