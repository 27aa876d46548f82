"""Each reproduced row beside the figure its model's authors published, with the difference and its interval.

Reported figures are on their source's scale (percent) and carry no interval (FinChain's ± is a spread over
templates, not a confidence interval), so the published figure is taken as a fixed number: the difference is
the reproduced mean minus it, on the source's scale, and its interval is the reproduced mean's
template-bootstrap interval shifted by it. Only a metric the source reports under the same name, for the same
task and registry model, is compared; the source's note says how its protocol differs (sample, profile).
Reported figures still enter no statistic of the board: this is a side-by-side reading, not a test."""

from __future__ import annotations

from typing import Any, Optional

SCALES = {"percent": 100.0, "fraction": 1.0}


def _scaled(value: Optional[float], factor: float) -> Optional[float]:
    return None if value is None else value * factor


def versus_published(rows: list[dict[str, Any]], reported: dict[str, Any], metrics: tuple[str, ...]) -> list[dict]:
    """One entry per reproduced row, metric and reported row of the same model and task."""
    out = []
    sources = reported.get("sources") or {}
    for rep in reported.get("rows") or []:
        factor = SCALES.get(str(rep.get("scale") or "percent"), 100.0)
        for row in rows:
            if row["model"] != rep["model"] or row["task"] != rep.get("task", row["task"]):
                continue
            for metric in metrics:
                published, ours = (rep.get("scores") or {}).get(metric), row["metrics"].get(metric) or {}
                if published is None or ours.get("mean") is None:
                    continue
                mean, low, high = (_scaled(ours.get(k), factor) for k in ("mean", "low", "high"))
                out.append({
                    "model": row["model"], "display_name": row["display_name"], "harness": row["harness"],
                    "task": row["task"], "metric": metric, "profile": row.get("profile"), "n": row["n"],
                    "source": rep["source"], "source_title": (sources.get(rep["source"]) or {}).get("title"),
                    "scale": rep.get("scale") or "percent", "reproduced": mean, "low": low, "high": high,
                    "published": float(published), "spread": (rep.get("spread") or {}).get(metric),
                    "difference": mean - float(published),
                    "diff_low": None if low is None else low - float(published),
                    "diff_high": None if high is None else high - float(published)})
    return sorted(out, key=lambda e: (e["metric"], e["display_name"], e["harness"]))
