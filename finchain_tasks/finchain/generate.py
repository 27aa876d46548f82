"""The generator: templates × seeds -> problems, and writers for JSONL and Parquet/datasets.

The canonical split is fixed seeds 0..9 for every template. Fresh seeds come from a range the
canonical split never uses, so a score gap between the two is a contamination signal.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.engine import Problem, Template
from finchain_tasks.engine.registry import MAX_SEED

CANONICAL_SEEDS: tuple[int, ...] = tuple(range(10))
FRESH_SEED_FLOOR = 1_000_000
"""Fresh seeds are drawn from [FRESH_SEED_FLOOR, MAX_SEED]: never a canonical seed."""
MAX_PROBLEMS = 1_000_000
"""The most problems one selection may ask for (templates × seeds). Every host holds its problems in
memory (measured: about 2.1 KB per problem object, more as a host's sample) and generates about 1,400 a
second on one core, so a million is already about 2 GB and 12 minutes; ``seeds: 1000000000`` in a task
set once grew to 11 GB before the kernel killed it. A larger request is refused with one line before
anything is allocated (:func:`check_size`)."""


def check_size(templates: Optional[int], seeds: int) -> None:
    """Refuse ``templates`` × ``seeds`` problems above :data:`MAX_PROBLEMS`, in one line, before allocating.
    ``templates`` None: the templates are not chosen yet, so the seeds alone are checked (and the message
    names no template count it does not know)."""
    if templates is None:
        if seeds > MAX_PROBLEMS:
            raise ValueError(f"{seeds:,} seeds are more than the {MAX_PROBLEMS:,} problems one run may hold "
                             "(with any templates): ask for fewer seeds")
        return
    if templates * seeds > MAX_PROBLEMS:
        raise ValueError(f"{seeds:,} seeds × {templates:,} templates = {templates * seeds:,} problems, more than the "
                         f"{MAX_PROBLEMS:,} one run may hold: ask for fewer seeds or narrow the templates")


def seed_list(n: int = len(CANONICAL_SEEDS), start: int = 0, fresh: bool = False,
              templates: Optional[int] = None) -> list[int]:
    """``n`` seeds: consecutive from ``start``, or ``n`` distinct unseen ones when ``fresh``; refused before
    any is made when ``templates`` × ``n`` (or ``n`` alone, templates unknown) is too many problems."""
    if n < 0:
        raise ValueError(f"--seeds must be zero or more, got {n}")
    check_size(templates, n)
    if start < 0 or start + n - 1 > MAX_SEED:
        raise ValueError(f"seeds must lie in [0, {MAX_SEED}]; got start {start} with {n} seeds")
    if not fresh:
        return list(range(start, start + n))
    chosen: set[int] = set()
    while len(chosen) < n:
        chosen.add(FRESH_SEED_FLOOR + secrets.randbelow(MAX_SEED - FRESH_SEED_FLOOR + 1))
    return sorted(chosen)


def iter_problems(templates: Iterable[Template], seeds: Sequence[int]) -> Iterator[Problem]:
    """Every template at every seed, template-major (all seeds of one template together)."""
    for tpl in templates:
        for seed in seeds:
            yield tpl.generate(seed)


def write_jsonl(rows: Iterable[dict[str, Any]], path: Path) -> int:
    """Write rows (atomically to a regular file, through to a device or link target: see
    :mod:`finchain_tasks.plumbing.output`) and return the count."""
    from finchain_tasks.plumbing.output import output_file

    path = Path(path)
    count = 0
    try:
        with output_file(path) as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
                count += 1
    except OSError as exc:
        raise OSError(f"cannot write {path}: {exc.strerror or exc}") from None
    return count


def to_hf_dataset(rows: list[dict[str, Any]]):
    """A Hugging Face ``datasets.Dataset`` of problem rows (values stored as text: mixed types)."""
    try:
        import datasets
    except ImportError:
        raise RuntimeError("writing a datasets/Parquet file needs `pip install finchain-tasks[hf]`") from None
    flat = [_flatten(r) for r in rows]
    return datasets.Dataset.from_list(flat)


def _flatten(row: dict[str, Any]) -> dict[str, Any]:
    """Arrow needs one type per column: values that may be numbers or text go as JSON text."""
    out = dict(row)
    out["answer"] = json.dumps(row["answer"])
    out["steps"] = json.dumps(row["steps"], ensure_ascii=False)
    out["params"] = json.dumps(row["params"], ensure_ascii=False)
    return out


def read_problems(path: Path) -> Iterator[Problem]:
    """Problems back from a JSONL file (a regular file only), naming the line of any malformed row."""
    from finchain_tasks.plumbing.jsonl import jsonl_records

    for lineno, row in jsonl_records(path):
        if not isinstance(row, dict):
            raise ValueError(f"{path}:{lineno}: a row must be a JSON object")
        try:
            yield Problem.from_dict(row)
        except ValueError as exc:
            raise ValueError(f"{path}:{lineno}: {exc}") from None
