"""The FinChain authors' per-sample scores (``evals/*.jsonl``, ``evals/reasoning_parsed/*.jsonl`` of their
repository) read into the board's per-sample table, and the means they published (``evals/overall_results.txt``).

The repository has no licence, so nothing of it ships: the folder is given at build time (``--authors DIR`` or
:data:`AUTHORS_ENV`). Each line is one sample of one model: ``seed``, ``id``, ``topic``, ``subtopic``, ``level``
and ``recall``, ``precision``, ``final_answer_match``. Their instance becomes the sample the Inspect
``split=authors`` task serves (:func:`finchain_tasks.reproduce.authors.authors_problems`): domain = their ``topic``,
topic = their ``subtopic``, template = their ``id``, level read the same way, id
``authors/<domain>/<topic>/<template>/<seed>``, so a template is the same resampling cluster on either side.

A line whose three scores are not all present (one per file: an instance without gold) is kept with an
``error`` and enters no mean, as their aggregate skips it. Step F1 is this project's (``2PR / (P + R)``, 0 when
both are 0); their ``aggregate.py`` adds 1e-4 to the denominator for the top-level files, so those published
step-F1 means sit up to ~3e-5 below ours (the ``reasoning_parsed`` ones match exactly)."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.plumbing.jsonl import jsonl_records
from finchain_tasks.plumbing.safe_files import walk
from finchain_tasks.reproduce.authors import AUTHORS_ENV  # the one name of the variable, for every reader

FOLDERS = ("evals", "evals/reasoning_parsed")
"""Where the per-sample files lie, relative to the repository: the top-level models, then the reasoning ones."""
KEYS = ("seed", "id", "topic", "subtopic", "level")
SCORES = {"final_answer_match": "fac", "recall": "recall", "precision": "precision"}
"""Their per-sample score -> this project's metric key (``step_f1`` is derived)."""
METRICS = ("fac", "recall", "precision", "step_f1")
PUBLISHED = {"fac": "final_answer_match", "recall": "recall", "precision": "precision", "step_f1": "step_f1"}
"""This project's metric key -> the column of ``overall_results.txt``
(:data:`finchain_tasks.reproduce.authors.PUBLISHED_COLUMNS`)."""


class AuthorsEvalsError(ValueError):
    """The folder is not the authors' repository, or one of its files cannot be read: one line naming the file
    (and line)."""


def authors_root(given: Optional[Path], what: str) -> Path:
    """The authors' repository: ``given``, else :data:`AUTHORS_ENV`; one line saying what to set when neither is,
    or when the folder holds no ``evals/``."""
    raw = given if given is not None else os.environ.get(AUTHORS_ENV) or None
    if raw is None:
        raise AuthorsEvalsError(f"{what} is read from the FinChain authors' repository (not shipped: no licence): "
                                f"pass --authors DIR or set {AUTHORS_ENV}")
    root = Path(raw).expanduser()
    if not (root / "evals").is_dir():
        raise AuthorsEvalsError(f"{root}: no evals/ folder (expected the FinChain authors' repository, "
                                f"for {what})")
    return root


def files(root: Path, skipped: list[tuple[Path, str]] | None = None) -> list[Path]:
    """Every per-sample file, top-level first; none is an error (the folder is not theirs). Regular files only,
    never through a link out of their folder: what was passed over (such a link, a FIFO, a device) is added to
    ``skipped``."""
    found = []
    for folder in FOLDERS:
        if (root / folder).is_dir() and not (root / folder).is_symlink():
            walked = walk(root / folder, ("*.jsonl",), recurse=False)
            found += walked.files
            if skipped is not None:
                skipped.extend(walked.skipped)
    if not found:
        raise AuthorsEvalsError(f"{root}: no per-sample files under {' or '.join(f + '/' for f in FOLDERS)}")
    return found


def _score(value: Any, where: str, key: str) -> Optional[float]:
    """A score in [0, 1], or None where they recorded none; anything else is a one-line error."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0 <= value <= 1:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "…"
        raise AuthorsEvalsError(f"{where}: {key}: expected a number in [0, 1] or null, got {shown}")
    return float(value)


def _text(value: Any, where: str, key: str, allow_none: bool = False) -> Optional[str]:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value).strip() == "" \
            or len(str(value)) > 200:
        raise AuthorsEvalsError(f"{where}: {key}: expected a non-empty name or number of at most 200 characters")
    return str(value)


def _levels() -> dict[str, str]:
    from finchain_tasks.reproduce.authors import _LEVELS  # one reading of their level names, the split=authors one

    return _LEVELS


def sample_row(raw: Any, where: str) -> dict[str, Any]:
    """One line as a row of the per-sample table (without model facts); a missing key, a key of the wrong type or
    a score outside [0, 1] is a one-line :class:`AuthorsEvalsError` naming ``where`` (file:line)."""
    if not isinstance(raw, dict):
        raise AuthorsEvalsError(f"{where}: expected a JSON object")
    missing = [k for k in (*KEYS, *SCORES) if k not in raw]
    if missing:
        raise AuthorsEvalsError(f"{where}: missing key(s) {', '.join(missing)}")
    domain, topic = _text(raw["topic"], where, "topic"), _text(raw["subtopic"], where, "subtopic")
    template, seed = str(_text(raw["id"], where, "id", allow_none=True)), _text(raw["seed"], where, "seed")
    level = str(_text(raw["level"], where, "level")).lower()
    scores = {ours: _score(raw[theirs], where, theirs) for theirs, ours in SCORES.items()}
    row: dict[str, Any] = {"sample_id": f"authors/{domain}/{topic}/{template}/{seed}", "epoch": 0,
                           "task": "finchain", "domain": domain, "topic": topic, "template": template,
                           "level": _levels().get(level, level), "seed": int(seed) if seed.isdigit() else None,
                           "fresh": False, "error": None, **scores}
    if any(v is None for v in scores.values()):  # their aggregate skips such a line; so does every mean here
        row["error"] = "no score in the authors' file (an instance without gold)"
    else:
        p, r = scores["precision"], scores["recall"]
        row["step_f1"] = 2 * p * r / (p + r) if p + r else 0.0
    return row


def read_file(path: Path, root: Path) -> tuple[str, list[dict[str, Any]]]:
    """(their model name, rows) of one file: the name is the lines' ``model`` (else the file's stem) and must be
    one per file; a sample twice is an error."""
    rel = path.relative_to(root).as_posix()
    name, rows, seen = None, [], set()
    for lineno, raw in jsonl_records(path, AuthorsEvalsError, rel):
        where = f"{rel}:{lineno}"
        row = sample_row(raw, where)
        model = _text(raw.get("model", path.stem), where, "model")
        if name is not None and model != name:
            raise AuthorsEvalsError(f"{where}: model {model!r} in a file of {name!r} (one model per file)")
        if row["sample_id"] in seen:
            raise AuthorsEvalsError(f"{where}: sample {row['sample_id']} appears twice")
        name = model
        seen.add(row["sample_id"])
        rows.append({**row, "source": rel})
    if name is None:
        raise AuthorsEvalsError(f"{rel}: no rows")
    return name, rows


def read_authors_evals(root: Path, skipped: list[tuple[Path, str]] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Their model name -> its rows, over every per-sample file; a model in two files is an error. What
    :func:`files` passed over is added to ``skipped``."""
    out: dict[str, list[dict[str, Any]]] = {}
    where: dict[str, str] = {}
    for path in files(root, skipped):
        name, rows = read_file(path, root)
        if name in out:
            raise AuthorsEvalsError(f"{rows[0]['source']}: model {name!r} is also in {where[name]}")
        out[name], where[name] = rows, rows[0]["source"]
    return out


def published(root: Path) -> dict[str, dict[str, float]]:
    """Their published means (``evals/overall_results.txt``) per their model name, under this project's metric
    keys; empty when the file is absent."""
    from finchain_tasks.reproduce.authors import published_means

    return {name: {ours: cols[theirs] for ours, theirs in PUBLISHED.items() if theirs in cols}
            for name, cols in published_means(root).items()}
