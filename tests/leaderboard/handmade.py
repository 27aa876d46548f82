"""lm-eval output folders written by hand, in the shape ``--log_samples`` writes (a results file and one samples
file per leaf), for tests that need no model run: bad files, licences, names from hostile logs. Every line here
is written by this project's tests; none comes from a dataset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

STAMP = "2026-01-02T03-04-05.000000"
DOMAINS = ("personal_finance", "investment_analysis")


def finchain_sample(k: int, chaineval: float, domain: Optional[str] = None, output: str = "Final answer: 4") -> dict:
    """One FinChain sample line: template ``t<k % 3>`` of a domain, seed k."""
    domain = domain or DOMAINS[k % 2]
    doc = {"id": f"finchain/{domain}/topic/t{k % 3}/{k}", "domain": domain, "topic": "topic", "template": f"t{k % 3}",
           "level": "easy", "seed": k, "question": f"What is {k} + 1?", "answer": float(k + 1),
           "steps": json.dumps([{"text": f"{k} + 1 = {k + 1}", "value": k + 1}])}
    return {"doc_id": k, "doc": doc, "resps": [[output]], "filtered_resps": [str(k + 1)], "chaineval": chaineval,
            "fac": float(chaineval > 0.5), "step_f1": chaineval}


def cflue_sample(k: int, correct: bool) -> dict:
    """One CFLUE knowledge question (made up here: CFLUE's own records are never copied)."""
    doc = {"id": f"cflue/exam{k % 2}/{k}", "exam": f"exam{k % 2}", "question": f"HANDMADE QUESTION {k}: A or B?",
           "answer": "A"}
    return {"doc_id": k, "doc": doc, "resps": [["答案：" + ("A" if correct else "B")]], "filtered_resps": ["A"],
            "acc": float(correct),  # the prompt sent holds the question: withheld with it (issue 45)
            "arguments": {"gen_args_0": {"arg_0": f"Answer.\n{doc['question']}", "arg_1": {}}}}


def write_lm_eval(folder: Path, model: str, leaf: str, samples: list[Any]) -> Path:
    """``folder/results_<stamp>.json`` and ``samples_<leaf>_<stamp>.jsonl`` (a sample that is not a dict is
    written as given: a raw line). Returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"results_{STAMP}.json").write_text(json.dumps({
        "config": {"model_args": f"model={model}"}, "date": 1767323045.0, "results": {leaf: {}}}), encoding="utf-8")
    lines = [s if isinstance(s, str) else json.dumps(s, ensure_ascii=False) for s in samples]
    (folder / f"samples_{leaf}_{STAMP}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def board_file(folder: Path, name: str, tasks: tuple[str, ...] = ("finchain",),
               metrics: tuple[str, ...] = ("chaineval",), reported: tuple[str, ...] = ()) -> Path:
    """A board YAML file (its name is written quoted, so any text can be tried as a name)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "board.yaml"
    path.write_text(f"name: {json.dumps(name)}\ntitle: Handmade\ntasks: [{', '.join(tasks)}]\n"
                    f"metrics: [{', '.join(metrics)}]\nreported: [{', '.join(reported)}]\n"
                    "statistics: {resamples: 200}\n", encoding="utf-8")
    return path
