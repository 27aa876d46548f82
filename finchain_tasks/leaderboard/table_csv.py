"""The board table as CSV: the one writer of the release's ``leaderboard.csv`` and the site's "Download CSV".

The page used to build its own CSV in JavaScript and wrote the row's position as ``tie_group``; the release's
was right. Now the build writes every row's CSV line here (the header too) and the page only picks the lines
of the rows it shows, in the order it shows them: the two files hold the same columns and the same values."""

from __future__ import annotations

import csv
import io
from typing import Any

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A cell a spreadsheet shows as text: text starting with ``= + - @``, a tab or a CR gets a leading
    apostrophe (model and board names come from logs and files; ``=HYPERLINK(...)`` must not become a link)."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_START) else value


def flat_row(row: dict[str, Any], metrics: tuple[str, ...]) -> dict[str, Any]:
    """One table row as CSV columns: its group (``tie_group`` is the group, never the row's place), ranks,
    facts, and per metric the mean, the interval and the per-sample (naive) interval, as numbers."""
    out = {k: row.get(k) for k in ("tie_group", "rank", "rank_low", "rank_high", "partial", "coverage", "model",
                                   "display_name", "category", "open_weights", "params_b", "harness", "harness_version",
                                   "finchain_tasks_version", "task", "task_version", "profile", "n", "templates")}
    for m in metrics:
        s = row["metrics"].get(m) or {}
        out.update({m: s.get("mean"), f"{m}_low": s.get("low"), f"{m}_high": s.get("high"),
                    f"{m}_naive_low": s.get("naive_low"), f"{m}_naive_high": s.get("naive_high")})
    out.update({k: row.get(k) for k in ("input_tokens", "output_tokens", "cost_usd", "cost_per_sample", "date")})
    return out


def block_rows(block: dict[str, Any]) -> list[dict[str, Any]]:
    """A reported-per-sample block's rows as CSV columns: the source, the name it gives, the board's columns,
    and per metric the published mean and the difference (recomputed minus published)."""
    out = []
    for row in block["rows"]:
        flat = {"source": block["source"], "status": block["status"], "reported_name": row["reported_name"],
                **flat_row(row, tuple(block["metrics"]))}
        for m in block["metrics"]:
            flat.update({f"{m}_published": row["published"].get(m), f"{m}_delta": row["delta"].get(m)})
        out.append(flat)
    return out


def csv_lines(rows: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """(the header line, one line per row) of flat rows, each line as :mod:`csv` writes it, without its CRLF."""
    columns = list(rows[0]) if rows else ["model"]
    lines = []
    for values in [columns, *([csv_cell(r.get(c)) for c in columns] for r in rows)]:
        buffer = io.StringIO()
        csv.writer(buffer).writerow(values)
        lines.append(buffer.getvalue().removesuffix("\r\n"))
    return lines[0], lines[1:]


def board_csv(payload: dict[str, Any], metrics: tuple[str, ...]) -> tuple[str, list[str]]:
    """The board table's header and lines, in the payload's row order."""
    return csv_lines([flat_row(r, metrics) for r in payload["rows"]])


def site_csv(payload: dict[str, Any], metrics: tuple[str, ...]) -> dict[str, Any]:
    """What the page's download buttons write: the board table's lines, and each per-sample block's."""
    header, lines = board_csv(payload, metrics)
    blocks = {}
    for block in payload.get("reported_samples") or []:
        block_header, block_lines = csv_lines(block_rows(block))
        blocks[block["source"]] = {"header": block_header, "lines": block_lines}
    return {"header": header, "lines": lines, "blocks": blocks}


def csv_text(header: str, lines: list[str]) -> str:
    """Lines as a CSV file: each ends in CRLF, as :mod:`csv` writes them."""
    return "".join(f"{line}\r\n" for line in [header, *lines])
