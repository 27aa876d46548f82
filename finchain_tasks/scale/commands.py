"""Driver side of each ``--ray`` command: build the job, run it over the blocks, write the output in input order
through the command's own writer, and hand back what the command reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from finchain_tasks.runs.score_file import SUMMARY_KEYS
from finchain_tasks.scale.ray_map import RaySettings, run_blocks, state_dir

SUMMARY_FIELDS = (*SUMMARY_KEYS, "domain", "level", "line", "error")
"""What ``finchain score``'s summary and error list read of each row (the driver keeps only these): the summary's
scores are :data:`SUMMARY_KEYS`, one list for both paths."""


def as_jsonl(source: Path, state: Path) -> Path:
    """``source`` itself when it is a file; for a run directory of either host, its candidate rows written once
    to a JSONL beside the state (rewritten only when they change, so a re-run still resumes)."""
    source = Path(source)
    if not source.is_dir():
        return source
    from finchain_tasks.prm.labeling import read_run_rows

    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in read_run_rows(source))
    path = state.with_name(state.name + ".input.jsonl")
    if not path.is_file() or path.read_text("utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return path


def _note(console: Any, store: Any, settings: RaySettings) -> None:
    if console is not None and store.discarded:
        console.print("the earlier unfinished --ray job had other input or settings: its blocks were discarded",
                      style="yellow")


def score_on_ray(source: Path, out: Path, params: Any, overrides: dict, settings: RaySettings,
                 console: Any = None) -> list[dict]:
    """``finchain score --ray``: writes ``out`` and returns the rows' summary fields (not the rows)."""
    from finchain_tasks.plumbing.output import output_file
    from finchain_tasks.scale.jobs import ScoreJob
    from scorers.embedding_backends import default_backend

    job = ScoreJob(str(source), params.profile, overrides, default_backend())
    store = run_blocks(job, source, state_dir(out), settings)
    _note(console, store, settings)
    kept: list[dict] = []
    try:
        with output_file(out) as fh:
            for line in store.lines():
                fh.write(line + "\n")
                row = json.loads(line)
                kept.append({k: row[k] for k in SUMMARY_FIELDS if k in row})
    except (OSError, ValueError) as exc:
        raise OSError(f"cannot write {out}: {getattr(exc, 'strerror', None) or exc}") from None
    store.clear()
    return kept


def select_on_ray(source: Path, spec: str, agg: str, zeta: float, options: dict, out: Path, k: int, mode: str,
                  settings: RaySettings, log: Any = None) -> dict:
    """``finchain prm select --ray``: the pool scored on Ray, then selected and written as single-process does
    (the scored rows are gathered on the driver: top-K needs every reward)."""
    from finchain_tasks.prm.data_selection import write_selection
    from finchain_tasks.scale.jobs import SelectJob

    state = state_dir(Path(out) / "sft.jsonl")
    source = as_jsonl(source, state)
    job = SelectJob(spec, agg, zeta, options, source=str(source))
    store = run_blocks(job, source, state, settings)
    summary = write_selection([json.loads(line) for line in store.lines()], spec, out, k, mode, log=log)
    store.clear()
    return summary


def label_on_ray(source: Path, out: Path, recipe: str, models: Any, cache_path: Path | None,
                 settings: RaySettings) -> dict:
    """``finchain prm label --ray``: labels written in input order, the summary and usage as single-process."""
    from finchain_tasks.plumbing.output import output_file
    from finchain_tasks.prm.labeling import Usage
    from finchain_tasks.scale.jobs import LabelJob
    from scorers.prm.labels.recipe import TraceLabels, summarise

    out = Path(out)
    if recipe == "fused" and models is None:
        raise ValueError("the fused recipe needs --policy and --judge models")
    cache = str(Path(cache_path or out.with_suffix(".cache.sqlite")).resolve()) if recipe == "fused" else None
    source = as_jsonl(source, state_dir(out))
    store = run_blocks(LabelJob(str(source), recipe, models, cache), source, state_dir(out), settings)
    labels = []
    with output_file(out) as fh:
        for line in store.lines():
            fh.write(line + "\n")
            labels.append(TraceLabels(**json.loads(line)))
    usage = Usage()
    for extra in store.extras():
        for name, value in (extra.get("usage") or {}).items():
            setattr(usage, name, getattr(usage, name) + value)
    summary = {"recipe": recipe, **summarise(labels), "usage": usage.as_dict()}
    out.with_name(out.name + ".summary.json").write_text(json.dumps(summary, indent=1))
    store.clear()
    return summary


def rescore_on_ray(todo: dict[str, tuple[str, str]], rescore: Any, scores_file: Path,
                   settings: RaySettings) -> tuple[dict[str, dict], str]:
    """``finchain bon --prm --ray``: the candidates not yet in the PRM score cache, scored on Ray; each finished
    block is appended to the score cache (the one record: a killed job re-run scores only what it lacks).
    Returns {key: score} and the PRM's name."""
    from finchain_tasks.scale.jobs import RescoreJob

    state = state_dir(scores_file)
    state.mkdir(parents=True, exist_ok=True)
    source = state.with_name(state.name + ".input.jsonl")
    with open(source, "w", encoding="utf-8") as fh:
        for key, (question, text) in todo.items():
            fh.write(json.dumps({"key": key, "q": question, "t": text}, ensure_ascii=False) + "\n")
    fresh: dict[str, dict] = {}
    names: list[str] = []

    def keep(_: int, lines: list[str], extra: dict) -> None:
        names.append(extra.get("prm") or "")
        with scores_file.open("a", encoding="utf-8") as cache:
            for line in lines:
                row = json.loads(line)
                fresh[row["key"]] = row["score"]
                if "judge_error" not in (row["score"].get("extra") or {}):  # a failed judge is asked again
                    cache.write(line + "\n")

    job = RescoreJob(rescore.spec, rescore.agg, rescore.zeta, dict(rescore.options))
    store = run_blocks(job, source, state, settings, on_block=keep)
    for index in range(store.total):  # blocks recorded by an interrupted earlier run of the same candidates
        extra, lines = store.read(index)
        for line in lines:
            row = json.loads(line)
            fresh.setdefault(row["key"], row["score"])
    store.clear()
    source.unlink(missing_ok=True)
    return fresh, next((n for n in names if n), rescore.spec)
