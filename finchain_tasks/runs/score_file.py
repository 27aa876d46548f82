"""Scoring a JSONL file of predictions with ChainEval, row by row (``finchain score`` in one process, and each
block of ``finchain score --ray``).

Every input line gives exactly one output line, in order, carrying the caller's own fields (its ``id`` and
anything else) so scores join back: scored rows add the metrics, rows that cannot be scored add ``line`` and
``error``. One bad line (not UTF-8, not JSON, nested too deep, a gold value of the wrong type, text that is not
valid Unicode) never costs the other rows their scores. Rows stream through in blocks of :data:`BLOCK_ROWS`;
lines are read with orjson when it is installed, falling back to the standard library for every line orjson
refuses or might read differently, so a row reads the same either way."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

import finchain_tasks
from finchain_tasks.plumbing.safe_files import STREAMED, open_regular

try:  # an optional speed-up: every line orjson cannot read exactly as json would goes to json
    import orjson
except ImportError:  # pragma: no cover - orjson is installed with the project's extras
    orjson = None


SUMMARY_KEYS = ("chaineval", "fac", "fac_strict", "step_f1", "parse_ok")


BOM = b"\xef\xbb\xbf"


BLOCK_ROWS = 2048
"""Rows read, scored and written at a time (the scorer batches 512 of them per encoder call)."""


_LONG_DIGITS = re.compile(rb"\d{19}")
"""A run of 19 digits may be an integer beyond 64 bits, which orjson reads as a float and json as an int."""


class JsonRow(dict):
    """A row the standard library read (orjson refused it or might read it differently): it may hold what orjson
    would write differently (NaN, ±Infinity, an integer beyond 64 bits), so it is written back by json too."""


class LineError(ValueError):
    """A line of the input that is not a JSON row; the message names file and line."""


def _parse_line(raw: bytes, path: Path, lineno: int) -> Any:
    """One JSON value from one line, or a :class:`LineError` saying why not (never another error)."""
    where = f"{path}:{lineno}"
    if orjson is not None and not _LONG_DIGITS.search(raw):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass  # the standard library gives the message (or reads what orjson refuses: NaN, "\\ud800")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LineError(f"{where}: not UTF-8 (byte {exc.start + 1})") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LineError(f"{where}: not JSON ({exc.msg})") from None
    except RecursionError:
        raise LineError(f"{where}: not JSON (nested too deeply)") from None
    except ValueError as exc:  # e.g. an integer longer than Python's int conversion limit
        raise LineError(f"{where}: not JSON ({str(exc).split(';')[0]})") from None
    return JsonRow(value) if isinstance(value, dict) else value


def _load_rows(path: Path) -> list[tuple[int, Any]]:
    """(line number, row or LineError) for every non-blank line; a leading UTF-8 BOM is skipped."""
    return [row for block in read_blocks(path) for row in block]


def read_blocks(path: Path, rows: int | None = None) -> Iterator[list[tuple[int, Any]]]:
    """:func:`parse_lines` over the file ``rows`` lines (:data:`BLOCK_ROWS`) at a time, so a caller holds one
    block, not the file."""
    rows = rows or BLOCK_ROWS
    if not path.exists():
        raise OSError(f"{path}: no such file")
    with open_regular(path, "rb", max_bytes=STREAMED) as fh:  # a FIFO or a device is refused, never blocks
        lines = enumerate(fh, 1)
        while block := list(islice(lines, rows)):
            yield parse_lines(block, path)


def count_rows(path: Path) -> int:
    """The number of non-blank lines (the progress bar's total), read without parsing them."""
    if not path.exists():
        raise OSError(f"{path}: no such file")
    with open_regular(path, "rb", max_bytes=STREAMED) as fh:
        return sum(1 for line in fh if line.strip())


def parse_lines(lines, path: Path) -> list[tuple[int, Any]]:
    """(line number, row or LineError) for every non-blank (line number, raw bytes) pair; a UTF-8 BOM opening
    line 1 is skipped. The one parser of the single-process command and of ``--ray``'s blocks."""
    rows: list[tuple[int, Any]] = []
    for lineno, raw in lines:
        if lineno == 1 and raw.startswith(BOM):
            raw = raw[len(BOM):]
        if raw.strip():
            try:
                rows.append((lineno, _parse_line(raw, path, lineno)))
            except LineError as exc:
                rows.append((lineno, exc))
    return rows


def _gold_and_output(row: Any):
    """(gold, output, metadata) for a row, regenerating gold from a FinChain id when the row has none."""
    from scorers.rows import RowError, gold_of, output_of

    if isinstance(row, Exception):
        raise RowError(str(row))
    if not isinstance(row, dict):
        raise RowError("a row must be a JSON object")
    output = output_of(row)
    if "steps" not in row and "solution" not in row and str(row.get("id", "")).startswith("finchain/"):
        from finchain_tasks.engine import get

        parts = row["id"].split("/")
        if len(parts) != 5 or not parts[4].isdigit() or len(parts[4]) > 18:
            raise RowError(f"id {row['id']!r} is not finchain/<domain>/<topic>/<template>/<seed>")
        problem = get("/".join(parts[1:4])).generate(int(parts[4]))
        return gold_of(problem.to_dict()), output, problem.metadata()
    return gold_of(row), output, {}


def _score_all(good: list[tuple], params, embedder, progress) -> list[Any]:
    """One batched call; should it fail, row by row, so one row's failure is that row's error."""
    from scorers.chaineval import score_batch

    try:
        return score_batch([g[1] for g in good], [g[2] for g in good], params, embedder, progress=progress)
    except Exception:  # noqa: BLE001 - isolate the row that fails; each failure becomes its error row
        results: list[Any] = []
        for item in good:
            try:
                results.extend(score_batch([item[1]], [item[2]], params, embedder))
            except Exception as exc:  # noqa: BLE001
                results.append(RuntimeError(f"scoring failed: {type(exc).__name__}: {exc}"))
        return results


def score_rows(rows: list[tuple[int, Any]], params, embedder, progress=None) -> list[dict[str, Any]]:
    """One output row per (line number, row or LineError), in order: the row with its scores, or an error row.
    The single-process command runs it on the whole file, ``--ray`` on each block."""
    from scorers.rows import RowError

    good, out_rows = [], []
    for lineno, row in rows:
        try:
            gold, text, meta = _gold_and_output(row)
            good.append((len(out_rows), gold, text, lineno, row, meta))
            out_rows.append(None)
        except (RowError, ValueError) as exc:
            out_rows.append(_error_row(lineno, row, str(exc)))
    if progress and len(good) < len(rows):
        progress(len(rows) - len(good))
    results = _score_all(good, params, embedder, progress)
    meta = {"profile": params.profile, "params": params.to_dict(), **embedder.info,
            "finchain_tasks_version": finchain_tasks.__version__}
    for (slot, _, _, lineno, row, extra), result in zip(good, results):
        if isinstance(result, Exception):
            out_rows[slot] = _error_row(lineno, row, str(result))
        else:
            out_rows[slot] = type(row)({**row, **{k: v for k, v in extra.items() if k not in row},
                                        **result.scores(), "alignment": result.alignment, "chaineval_meta": meta})
    return out_rows


class Tally:
    """What the report needs of the rows, gathered as they stream past: per-group sums of :data:`SUMMARY_KEYS`,
    the row count and the first errors (the rows themselves are not kept)."""

    SHOWN_ERRORS = 20

    def __init__(self) -> None:
        self.rows = 0
        self.errors = 0
        self.shown: list[tuple[Any, str]] = []
        self.groups: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0] * (len(SUMMARY_KEYS) + 1))

    @classmethod
    def of(cls, rows: Iterable[dict]) -> Tally:
        tally = cls()
        for row in rows:
            tally.add(row)
        return tally

    def add(self, row: dict) -> dict:
        """Count ``row`` and hand it back (so a stream of rows can pass through)."""
        self.rows += 1
        if "error" in row:
            self.errors += 1
            if len(self.shown) < self.SHOWN_ERRORS:
                self.shown.append((row["line"], row["error"]))
            return row
        keys = [("all", "")] + [(kind, row[kind]) for kind in ("domain", "level")
                                if isinstance(row.get(kind), str) and row[kind]]
        for key in keys:
            sums = self.groups[key]
            sums[0] += 1
            for k, name in enumerate(SUMMARY_KEYS, 1):
                sums[k] += row[name]
        return row


def _error_row(lineno: int, row: Any, message: str) -> dict[str, Any]:
    """The caller's fields (when the line was a JSON object) plus where and why it failed."""
    fields = row if isinstance(row, dict) else {"id": None}
    return (JsonRow if isinstance(row, JsonRow) else dict)({**fields, "line": lineno, "error": message})


def _encode(row: dict[str, Any]) -> str:
    """One JSON line; text that is not valid Unicode (a lone surrogate in a caller's field) is written
    with JSON escapes, and a row that cannot be written back at all becomes an error row, rather
    than failing the whole file. orjson writes a row orjson read (it holds nothing orjson writes differently)."""
    if orjson is not None and type(row) is dict:
        try:
            return orjson.dumps(row).decode("utf-8")
        except (orjson.JSONEncodeError, UnicodeDecodeError):
            pass  # the standard library decides (and says why it cannot)
    try:
        line = json.dumps(row, ensure_ascii=False)
    except (RecursionError, ValueError) as exc:
        kept = {k: row[k] for k in ("id", "line") if isinstance(row.get(k), (str, int))}
        return json.dumps({**kept, "error": f"row cannot be written back as JSON ({type(exc).__name__})"})
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(row)
    return line


def write_rows(rows: Iterable[dict[str, Any]], path: Path) -> None:
    """Write atomically to a regular file (a ``.partial`` file renamed into place: on any failure nothing
    is left behind but the previous file), through to a device or other non-regular file
    (:mod:`finchain_tasks.plumbing.output`); the error names the path."""
    from finchain_tasks.plumbing.output import output_file

    path = Path(path)
    try:
        with output_file(path) as fh:
            for row in rows:
                fh.write(_encode(row) + "\n")
    except (OSError, ValueError) as exc:
        raise OSError(f"cannot write {path}: {getattr(exc, 'strerror', None) or exc}") from None


def param_overrides(pairs: list[str]) -> dict[str, Any]:
    """``name=value`` pairs; a value is read as JSON (``0.1``, ``true``), else kept as text. Types and
    ranges are checked by :func:`scorers.params.resolve`, which names the parameter."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--param takes name=value, got {pair!r}")
        try:
            out[name.strip()] = json.loads(value)
        except (json.JSONDecodeError, RecursionError, ValueError):
            out[name.strip()] = value
    return out
