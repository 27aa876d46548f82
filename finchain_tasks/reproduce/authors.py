"""The FinChain authors' submission repository, read: its rows, their per-sample scores, the published means,
and where the repository is (``--authors`` / ``$FINCHAIN_AUTHORS_DIR``). Shared by reproduce, the hosts'
``authors`` split and the board; it has no licence, so it is read from the user's copy and never shipped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from finchain_tasks.plumbing.jsonl import read_jsonl
from finchain_tasks.plumbing.safe_files import walk

__all__ = ["AUTHORS_ENV", "AuthorsDataError", "PUBLISHED_COLUMNS", "authors_dir", "authors_problems", "authors_rows",
           "published_means", "their_scores"]


PUBLISHED_COLUMNS = ("final_answer_match", "recall", "precision", "step_f1", "rouge2", "rougeL", "rougeLsum",
                     "bertscore")
"""The columns of ``evals/overall_results.txt``, in order."""


_KEY_FIELDS = ("seed", "id", "topic", "subtopic", "level")


class AuthorsDataError(ValueError):
    """The directory is not the authors' repository, or a file in it cannot be read."""


def _key(row: dict[str, Any]) -> tuple:
    return tuple(str(row.get(k)) for k in _KEY_FIELDS)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of one of the authors' JSONL files, each a JSON object (else one line naming file and row)."""
    rows = read_jsonl(path, AuthorsDataError)
    for number, row in enumerate(rows, 1):
        if not isinstance(row, dict):
            raise AuthorsDataError(f"{path}: row {number}: expected a JSON object, found {type(row).__name__}")
    return rows


def authors_rows(root: Path, skipped: list[tuple[Path, str]] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Generation rows per model: every ``results/*.jsonl`` file present (model = file stem), regular files only,
    never through a link out of ``results/``; what was passed over is added to ``skipped``."""
    results = Path(root) / "results"
    if not results.is_dir():
        raise AuthorsDataError(f"{root}: no results/ folder (expected the FinChain authors' repository)")
    found = walk(results, ("*.jsonl",), recurse=False)
    if skipped is not None:
        skipped.extend(found.skipped)
    return {p.stem: _read_jsonl(p) for p in found.files}


AUTHORS_ENV = "FINCHAIN_AUTHORS_DIR"
"""Where every host looks for the authors' repository when no path is given."""


def authors_dir(path: str | Path | None, how: str) -> Path:
    """The authors' repository: ``path``, else ``$FINCHAIN_AUTHORS_DIR``; ``how`` names the host's own way
    to give it (``-T authors_path=DIR``, ``--metadata ...``) in the one-line error when neither is set."""
    import os

    root = path or os.environ.get(AUTHORS_ENV)
    if not root:
        raise ValueError(f"give the FinChain authors' repository with {how}, or set ${AUTHORS_ENV}")
    return Path(root)


_LEVELS = {"basic": "easy", "easy": "easy", "intermediate": "intermediate", "advanced": "advanced"}


def authors_problems(root: Path) -> list[dict[str, Any]]:
    """Their test instances (``data/testset/<domain>/<topic>.jsonl``) as this project's rows: text
    gold only (``solution``), so scoring takes the text-gold path; ids ``authors/<domain>/<topic>/
    <template id>/<seed>`` never collide with generated ``finchain/...`` ids."""
    testset = Path(root) / "data" / "testset"
    if not testset.is_dir():
        raise AuthorsDataError(f"{root}: no data/testset/ folder (expected the FinChain authors' repository)")
    rows = []
    for path in [p for p in walk(testset, ("*.jsonl",)).files if p.parent.parent == testset]:  # no link out
        domain, topic = path.parent.name, path.stem
        for r in _read_jsonl(path):
            level = _LEVELS.get(str(r.get("level", "")).lower(), str(r.get("level", "")).lower())
            rows.append({"id": f"authors/{domain}/{topic}/{r.get('id')}/{r.get('seed')}", "source": "finchain-authors",
                         "domain": domain, "topic": topic, "template": str(r.get("id")), "seed": r.get("seed"),
                         "level": level, "question": r.get("question") or "", "solution": r.get("solution")})
    return rows


def _score_field(row: dict[str, Any], name: str, path: Path, number: int) -> Any:
    """A per-sample score of theirs: a number or null (a string ``recall`` is one line, never a TypeError)."""
    value = row.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise AuthorsDataError(f"{path}: row {number}: {name}: expected a number, got {type(value).__name__}")
    return value


def their_scores(root: Path, model: str) -> tuple[dict[tuple, dict[str, Any]], str]:
    """Their per-sample scores for ``model`` keyed by sample, and the file they came from."""
    for rel in (f"evals/{model}.jsonl", f"evals/reasoning_parsed/{model}.jsonl"):
        path = Path(root) / rel
        if path.is_file():
            rows = _read_jsonl(path)
            for number, r in enumerate(rows, 1):
                rec, pre = _score_field(r, "recall", path, number), _score_field(r, "precision", path, number)
                if rec is not None and pre is not None:
                    r["step_f1"] = 2 * rec * pre / (rec + pre + 0.0001)  # aggregate.py's formula
            return {_key(r): r for r in rows}, rel
    return {}, ""


def published_means(root: Path) -> dict[str, dict[str, float]]:
    """``evals/overall_results.txt``: model -> column -> mean (empty when the file is absent)."""
    path = Path(root) / "evals" / "overall_results.txt"
    out: dict[str, dict[str, float]] = {}
    if not path.is_file():
        return out
    from finchain_tasks.plumbing.safe_files import read_text

    for line in read_text(path).splitlines():
        parts = [p.strip() for p in line.split("&")]
        if len(parts) == len(PUBLISHED_COLUMNS) + 1:
            try:
                out[parts[0]] = dict(zip(PUBLISHED_COLUMNS, map(float, parts[1:])))
            except ValueError:
                continue
    return out
