"""Publishing a board: the site plus a versioned data release, to a folder or a Hugging Face dataset.

The release holds the leaderboard (CSV, JSON), the per-sample table (Parquet), the reported rows (JSON, apart)
and a LaTeX table. It never holds keys, local paths or raw logs: the tables carry registry names, run
directory names and log file names only, and the raw ``.eval`` / lm-eval files are copied only when asked
(``include_raw``)."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path
from typing import Any, Optional

from finchain_tasks.leaderboard.build import Built

SAMPLE_COLUMNS_PRIVATE = ("source",)
"""Columns kept out of the release unless raw material is asked for (they name local files)."""


def release_name(built: Built) -> str:
    """``<board>-v<finchain-tasks version>-<date>``: a release says what produced it and when."""
    date = built.payload["generated"][:10]
    return f"{built.board.name}-v{built.payload['finchain_tasks_version']}-{date}"


def _flat(row: dict[str, Any], metrics: tuple[str, ...]) -> dict[str, Any]:
    out = {k: row.get(k) for k in ("tie_group", "rank", "rank_low", "rank_high", "partial", "coverage", "model",
                                   "display_name", "category", "open_weights", "params_b", "harness", "harness_version",
                                   "task", "task_version", "profile", "n", "templates")}
    for m in metrics:
        s = row["metrics"].get(m) or {}
        out.update({m: s.get("mean"), f"{m}_low": s.get("low"), f"{m}_high": s.get("high"),
                    f"{m}_naive_low": s.get("naive_low"), f"{m}_naive_high": s.get("naive_high")})
    out.update({k: row.get(k) for k in ("input_tokens", "output_tokens", "cost_usd", "cost_per_sample", "date")})
    return out


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


def write_release(built: Built, folder: Path, include_raw: bool = False, sources: tuple[Path, ...] = ()) -> Path:
    """The data release under ``folder/<release name>/``."""
    out = folder / release_name(built)
    out.mkdir(parents=True, exist_ok=True)
    flat = [_flat(r, built.board.metrics) for r in built.payload["rows"]]
    with (out / "leaderboard.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(flat[0]) if flat else ["model"])
        writer.writeheader()
        writer.writerows(flat)
    payload = {k: v for k, v in built.payload.items() if k != "reported"}
    (out / "leaderboard.json").write_text(json.dumps(payload, indent=2, default=str), encoding="utf-8")
    (out / "reported.json").write_text(json.dumps(built.payload["reported"], indent=2, ensure_ascii=False),
                                       encoding="utf-8")
    frame = built.frame if include_raw else built.frame.drop(columns=list(SAMPLE_COLUMNS_PRIVATE))
    frame.to_parquet(out / "samples.parquet", index=False)
    (out / "leaderboard.tex").write_text(latex_table(built), encoding="utf-8")
    (out / "README.md").write_text(_card(built), encoding="utf-8")
    if include_raw:
        for src in sources:
            if Path(src).is_dir():
                shutil.copytree(src, out / "raw" / Path(src).name, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("*.sqlite*", "*.lock"))
    return out


def _card(built: Built) -> str:
    b = built.board
    return (f"---\nlicense: mit\npretty_name: {b.title}\n---\n# {b.title}\n\n"
            f"Data release of the `{b.name}` leaderboard, made by finchain-tasks "
            f"{built.payload['finchain_tasks_version']} on {built.payload['generated']}.\n\n"
            "- `leaderboard.csv` / `leaderboard.json`: one row per model × harness × task, means with "
            f"{round(b.statistics.confidence * 100)}% template-bootstrap intervals, per-sample intervals, tie groups, "
            "rank intervals (`rank_low`-`rank_high`), `partial` coverage\n"
            "- `samples.parquet`: every sample of every model (scores, tokens, cost, output)\n"
            "- `reported.json`: figures published by others, reported, not reproduced\n"
            "- `leaderboard.tex`: a LaTeX table\n")


def publish(built: Built, to: str, include_raw: bool = False, sources: tuple[Path, ...] = ()) -> str:
    """``DIR``: the site and ``data/<release>/`` under DIR. ``hf:<owner>/<name>``: the release uploaded as a
    Hugging Face dataset (the token is huggingface_hub's own: ``HF_TOKEN`` or its login)."""
    from finchain_tasks.leaderboard.site import write_site

    if to.startswith("hf:"):
        import tempfile

        repo = to.removeprefix("hf:")
        if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo):
            raise ValueError(f"hf: expects owner/name, got {repo!r}")
        with tempfile.TemporaryDirectory() as tmp:
            release = write_release(built, Path(tmp), include_raw, sources)
            return upload_hf(release, repo)
    out = Path(to)
    write_site(out, built.board, built.payload, built.samples)
    release = write_release(built, out / "data", include_raw, sources)
    return str(release)


def upload_hf(release: Path, repo: str) -> str:
    """Upload one release folder to the dataset ``repo`` (created when missing), under the release's name."""
    from huggingface_hub import HfApi

    api = HfApi()
    api.create_repo(repo, repo_type="dataset", exist_ok=True)
    api.upload_folder(folder_path=str(release), repo_id=repo, repo_type="dataset", path_in_repo=release.name,
                      commit_message=f"leaderboard release {release.name}")
    return f"hf:{repo}/{release.name}"
