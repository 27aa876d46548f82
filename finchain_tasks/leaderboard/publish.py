"""Publishing a board: the site plus a versioned data release, to a folder or a Hugging Face dataset.

The release holds the leaderboard (CSV, JSON), the per-sample table (Parquet), the reported rows (JSON, apart)
and a LaTeX table. It never holds keys, local paths or raw logs: the tables carry registry names, run
directory names and log file names only, and the raw ``.eval`` / lm-eval files are copied only when asked
(``include_raw``).

Each task's data keeps its own licence (``data/licenses.yaml``): the card names them, and the text of a task
whose licence forbids redistributing it (CFLUE: CC BY-NC-SA 4.0) -- questions, gold steps, gold answers -- is
left out of the site and the release unless asked (``include_restricted``). The CSV is opened in spreadsheets:
a text cell that starts like a formula is written with a leading apostrophe."""

from __future__ import annotations

import copy
import csv
import json
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Optional

import yaml

from finchain_tasks.leaderboard.build import Built
from finchain_tasks.leaderboard.table_csv import block_rows, board_csv, csv_cell, csv_text

SAMPLE_COLUMNS_PRIVATE = ("source",)
"""Columns kept out of the release unless raw material is asked for (they name local files)."""


LICENSES = Path(__file__).with_name("data") / "licenses.yaml"
TEXT_COLUMNS = ("question", "prompt", "gold_steps", "gold_answer")
"""The task's own text: what a licence that forbids redistribution keeps out of a release."""
PROJECT_LICENSE = "mit"
"""The licence of what this project writes itself (the tables, the per-sample scores)."""


@dataclass(frozen=True)
class DataLicense:
    """One task's data licence, as ``data/licenses.yaml`` records it."""

    task: str
    license: str
    name: str
    url: str
    holder: str
    redistribute: bool
    why: str = ""


def data_licenses(tasks: tuple[str, ...], path: Path = LICENSES) -> dict[str, DataLicense]:
    """The licence of each task; a task with none recorded is an error (publishing never guesses)."""
    known = (yaml.safe_load(path.read_text("utf-8")) or {}).get("tasks") or {}
    missing = [t for t in tasks if t not in known]
    if missing:
        raise ValueError(f"no data licence recorded for task(s) {', '.join(missing)} in {path.name}")
    return {t: DataLicense(task=t, **known[t]) for t in tasks}


@dataclass(frozen=True)
class Withheld:
    """What a publication left out: per task, its licence and how many samples' text."""

    licenses: dict[str, DataLicense]
    samples: dict[str, int]
    included: bool

    def line(self) -> Optional[str]:
        """One line for the terminal (None when no task restricts its text)."""
        parts = [f"{n} {t} sample(s) ({self.licenses[t].name})" for t, n in sorted(self.samples.items()) if n]
        if not parts:
            return None
        if self.included:
            return (f"included, as asked: question and gold text of {', '.join(parts)}; the release carries "
                    "that licence (see its README)")
        return (f"left out: question and gold text of {', '.join(parts)}, whose licence forbids redistributing "
                "it here; --include-restricted-text keeps it (the release then carries that licence)")


def withhold_text(built: Built, include_restricted: bool = False) -> tuple[Built, Withheld]:
    """``built`` without the text of tasks whose licence forbids redistribution (a copy; ``built`` is not
    changed), and what was left out. With ``include_restricted`` nothing is removed."""
    licenses = data_licenses(tuple(dict.fromkeys((*built.board.tasks, *built.frame["task"].dropna().unique()))))
    restricted = {t for t, lic in licenses.items() if not lic.redistribute}
    counts = {t: int(built.frame.loc[built.frame["task"] == t, "sample_id"].nunique()) for t in restricted}
    if include_restricted or not any(counts.values()):
        return built, Withheld(licenses, counts, include_restricted)
    frame = built.frame.copy()
    mask = frame["task"].isin(restricted)
    for col in TEXT_COLUMNS:
        frame[col] = frame[col].astype(object).where(~mask, None)
    samples = copy.deepcopy(built.samples)
    for entry in samples.values():
        lic = licenses.get(entry.get("task"))
        if lic is not None and not lic.redistribute:
            for model in entry.get("models") or []:
                model["prompt"] = None  # it holds the question
            entry.update(question=None, gold_steps=[], gold_answer=None,
                         withheld=f"The question and gold text are not published: {lic.name} ({lic.url}), "
                              f"{lic.holder}.")
    return replace(built, frame=frame, samples=samples), Withheld(licenses, counts, False)


_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def release_name(built: Built) -> str:
    """``<board>-v<finchain-tasks version>-<date>``: a release says what produced it and when. The board's
    name becomes a folder name, so it may hold letters, digits, ``.``, ``_`` and ``-`` only (no ``..``, no
    ``/``: a name must never lead outside the folder published to)."""
    date = built.payload["generated"][:10]
    name = f"{built.board.name}-v{built.payload['finchain_tasks_version']}-{date}"
    if not _SAFE_NAME.fullmatch(built.board.name) or ".." in name or not _SAFE_NAME.fullmatch(name):
        raise ValueError(f"board name {built.board.name!r} cannot name a release folder: use letters, digits, "
                         "'.', '_' and '-' only")
    return name


def reported_sample_rows(built: Built) -> list[dict[str, Any]]:
    """The per-sample reported rows, flat (one CSV line each; :func:`table_csv.block_rows`)."""
    return [{k: csv_cell(v) for k, v in flat.items()}
            for block in built.payload.get("reported_samples") or [] for flat in block_rows(block)]


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["model"])
        writer.writeheader()
        writer.writerows(rows)


_TEX = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
        "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def tex(text: Any) -> str:
    """LaTeX-escaped text (model names come from logs)."""
    return re.sub(r"[&%$#_{}~^\\]", lambda m: _TEX[m.group()], str(text))


def latex_table(built: Built) -> str:
    """A booktabs table of the primary metric and the next two, with intervals and tie groups."""
    metrics = built.board.metrics[:3]
    lines = [r"\begin{tabular}{rrll" + "r" * len(metrics) + "}", r"\toprule",
             "Group & Ranks & Model & Harness & " + " & ".join(tex(m) for m in metrics) + r" \\", r"\midrule"]
    for r in built.payload["rows"]:  # the table's order (finchain_tasks.leaderboard.table.ordered)
        cells = []
        for m in metrics:
            s = r["metrics"].get(m) or {}
            cells.append("--" if s.get("mean") is None else
                         f"{s['mean']:.3f} [{_n(s.get('low'))}, {_n(s.get('high'))}]")
        ranks = "--" if r.get("rank_low") is None else f"{r['rank_low']}--{r['rank_high']}"
        mark = r"$^\dagger$" if r.get("partial") else ""
        lines.append(f"{r.get('tie_group') or '--'} & {ranks} & {tex(r['display_name'])}{mark} & "
                     f"{tex(r['harness'])} & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}",
              f"% {round(built.board.statistics.confidence * 100)}% intervals: bootstrap over templates; "
              "group 1: not distinguishable from the leader (paired tests, Holm); -- : not comparable (too few shared "
              "templates); ranks: simultaneous 95% bootstrap range of ranks; $^\\dagger$: partial coverage."]
    return "\n".join(lines) + "\n"


def _n(v: Optional[float]) -> str:
    return "--" if v is None else f"{v:.3f}"


def write_release(built: Built, folder: Path, include_raw: bool = False, sources: tuple[Path, ...] = (),
                  withheld: Optional[Withheld] = None) -> Path:
    """The data release under ``folder/<release name>/`` (``built`` as it is: :func:`withhold_text` first)."""
    out = folder / release_name(built)
    if not out.resolve().is_relative_to(folder.resolve()):
        raise ValueError(f"release folder {out.name!r} would lie outside {folder}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "leaderboard.csv").write_text(csv_text(*board_csv(built.payload, built.board.metrics)), encoding="utf-8",
                                         newline="")  # the site's "Download CSV" writes the same lines
    payload = {k: v for k, v in built.payload.items() if k not in ("reported", "reported_samples")}
    (out / "leaderboard.json").write_text(json.dumps(payload, indent=2, default=str), encoding="utf-8")
    (out / "reported.json").write_text(json.dumps(built.payload["reported"], indent=2, ensure_ascii=False),
                                       encoding="utf-8")
    if built.payload.get("reported_samples"):  # apart: their own statistics, never the reproduced rows'
        _write_csv(out / "reported_samples.csv", reported_sample_rows(built))
        (out / "reported_samples.json").write_text(
            json.dumps(built.payload["reported_samples"], indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    frame = built.frame if include_raw else built.frame.drop(columns=list(SAMPLE_COLUMNS_PRIVATE))
    frame.to_parquet(out / "samples.parquet", index=False)
    (out / "leaderboard.tex").write_text(latex_table(built), encoding="utf-8")
    (out / "README.md").write_text(_card(built, withheld or withhold_text(built, True)[1]), encoding="utf-8")
    if include_raw:
        for src in sources:
            if Path(src).is_dir():
                shutil.copytree(src, out / "raw" / Path(src).name, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("*.sqlite*", "*.lock"))
    return out


def card_licenses(withheld: Withheld) -> list[str]:
    """The card's ``license:`` ids: this project's own, and the licence of every task text the release holds."""
    held = [lic.license for t, lic in withheld.licenses.items()
            if lic.redistribute or (withheld.included and withheld.samples.get(t))]
    return list(dict.fromkeys([PROJECT_LICENSE, *held]))


def _licence_lines(withheld: Withheld) -> str:
    lines = []
    for t, lic in withheld.licenses.items():
        state = ("text included" if lic.redistribute or withheld.included
                 else f"questions and gold text left out ({lic.why or 'not redistributable'}); scores and model "
                      "outputs included")
        lines.append(f"- `{t}`: [{lic.name}]({lic.url}), {lic.holder}: {state}\n")
    return "".join(lines)


def _card(built: Built, withheld: Withheld) -> str:
    b = built.board
    ids = card_licenses(withheld)
    head = ids[0] if len(ids) == 1 else "\n" + "".join(f"- {i}\n" for i in ids).rstrip("\n")
    title = json.dumps(b.title, ensure_ascii=False)  # YAML-safe: a JSON string is a YAML string
    return (f"---\nlicense: {head}\npretty_name: {title}\n---\n# {b.title}\n\n"
            f"Data release of the `{b.name}` leaderboard, made by finchain-tasks "
            f"{built.payload['finchain_tasks_version']} on {built.payload['generated']}.\n\n"
            "- `leaderboard.csv` / `leaderboard.json`: one row per model × harness × task, means with "
            f"{round(b.statistics.confidence * 100)}% template-bootstrap intervals, per-sample intervals, tie groups, "
            "rank intervals (`rank_low`-`rank_high`), `partial` coverage\n"
            "- `samples.parquet`: every sample of every model (scores, tokens, cost, output)\n"
            "- `reported.json`: figures published by others, reported, not reproduced\n"
            + ("- `reported_samples.csv` / `reported_samples.json`: per-sample results published by others "
               "(reported, not reproduced), with intervals, tie groups and rank intervals computed among "
               "themselves, and the means their source published\n" if built.payload.get("reported_samples") else "")
            + "- `leaderboard.tex`: a LaTeX table\n\n"
            "## Licences\n\nThe tables and scores: MIT (finchain-tasks). Each task's data keeps its own licence:\n\n"
            + _licence_lines(withheld))


def publish(built: Built, to: str, include_raw: bool = False, sources: tuple[Path, ...] = (),
            include_restricted: bool = False, allow_foreign: bool = False) -> tuple[str, Withheld]:
    """``DIR``: the site and ``data/<release>/`` under DIR. ``hf:<owner>/<name>``: the release uploaded as a
    Hugging Face dataset (the token is huggingface_hub's own: ``HF_TOKEN`` or its login). Returns where, and
    what was left out for its licence."""
    from finchain_tasks.leaderboard.site import claim_folder, record_written, write_site

    release_name(built)  # a board name that cannot name a folder fails before anything is written
    built, withheld = withhold_text(built, include_restricted)
    if to.startswith("hf:"):
        import tempfile

        repo = to.removeprefix("hf:")
        if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo):
            raise ValueError(f"hf: expects owner/name, got {repo!r}")
        with tempfile.TemporaryDirectory() as tmp:
            release = write_release(built, Path(tmp), include_raw, sources, withheld)
            return upload_hf(release, repo), withheld
    out = Path(to)
    claim_folder(out, allow_foreign)
    write_site(out, built.board, built.payload, built.samples, allow_foreign=True)
    release = write_release(built, out / "data", include_raw, sources, withheld)
    record_written(out, [p for p in release.rglob("*") if p.is_file()])
    return str(release), withheld


def upload_hf(release: Path, repo: str) -> str:
    """Upload one release folder to the dataset ``repo`` (created when missing), under the release's name."""
    from huggingface_hub import HfApi

    api = HfApi()
    api.create_repo(repo, repo_type="dataset", exist_ok=True)
    api.upload_folder(folder_path=str(release), repo_id=repo, repo_type="dataset", path_in_repo=release.name,
                      commit_message=f"leaderboard release {release.name}")
    return f"hf:{repo}/{release.name}"
