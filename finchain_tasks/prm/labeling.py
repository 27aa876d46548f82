"""Fin-PRM labels from candidate traces: reading inputs, model-backed signals through litellm, the job.

Signals (the protocols of :mod:`scorers.prm.labels.signals`), each one prompt per call:

* :class:`RolloutImportance`: N (8) continuations of the prefix s_1..s_k sampled from a policy model;
  r_imp is the share whose final answer passes FinChain's answer gate against the gold answer.
* :class:`JudgeQualitative`: ``Score: <0..1>``; :class:`JudgeAccuracy`: two ``Verdict: correct|incorrect``
  judgements (procedural, factual); :class:`JudgeConcepts`: ``Used: 1, 3`` over the knowledge points.
  Replies are parsed strictly: anything else is an off-format answer, and the step is labelled unknown
  with that reason (never read leniently, never guessed).

Every call goes through :class:`LLM`: cached on disk in SQLite (one committed row per call, so a killed
job resumes where it stopped and a rerun costs nothing), tokens and cost counted (litellm's price table),
and in dry-run mode counted without being made (prompt tokens ≈ characters / 4, completion tokens at
most the budget the request would send, a registry entry's own where it sets one); a dry run is an upper
bound, since a signal that fails for real stops its step's remaining calls.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from finchain_tasks.plumbing.jsonl import jsonl_records
from finchain_tasks.plumbing.safe_files import UnreadableFile, expect, walk
from scorers.chaineval import gold_from_text
from scorers.prm.labels.recipe import FusedSignals, TraceLabels, answer_matches, label_items, summarise
from scorers.prm.labels.signals import LabelItem, Unknown
from scorers.steps import parse_output

__all__ = ["LLM", "JudgeAccuracy", "JudgeConcepts", "JudgeQualitative", "RolloutImportance",
           "item_from_problem", "item_from_row", "read_items", "read_run_rows", "run_labels"]


@dataclass
class Usage:
    """What a job cost: calls made, answered from the cache, planned (dry run), tokens and dollars."""

    calls: int = 0
    cached: int = 0
    planned: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    planned_prompt_tokens: int = 0
    planned_completion_tokens: int = 0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class CallCache:
    """A SQLite key -> JSON store, committed per row (safe to kill at any moment), in WAL mode with a long busy
    timeout, so several processes (``prm label --ray`` workers on one machine) read and write it at once."""

    def __init__(self, path: str | Path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        # timeout: the workers of `prm label --ray` share this file; a writer waits for another's commit
        self._db = sqlite3.connect(str(path), timeout=60, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self._db.commit()
        self._lock = threading.Lock()

    def get(self, key: str) -> dict | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM calls WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: dict) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO calls VALUES (?, ?)", (key, json.dumps(value)))
            self._db.commit()


@dataclass
class LLM:
    """One litellm model with the shared cache and usage counter."""

    model: str
    cache: CallCache
    usage: Usage = field(default_factory=Usage)
    api_base: str | None = None
    timeout: float = 120.0
    dry_run: bool = False
    spec: Any = None
    """A model-registry entry: its litellm id, base URL, generation overrides and key variable are used."""

    def key(self, messages: list[dict], temperature: float, max_tokens: int, sample: int) -> str:
        blob = json.dumps([self.model, messages, temperature, max_tokens, sample], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()

    def complete(self, prompt: str, *, temperature: float = 0.0, max_tokens: int = 256, sample: int = 0,
                 what: str = "model call", dry_reply: str = "") -> str:
        """The reply text: from the cache, else from the model; :class:`Unknown` on a timeout or error.
        In dry-run mode an uncached call is counted and ``dry_reply`` (a well-formed placeholder) returned,
        so the job walks every call it would make; its labels are thrown away."""
        messages = [{"role": "user", "content": prompt}]
        key = self.key(messages, temperature, max_tokens, sample)
        hit = self.cache.get(key)
        if hit is not None:
            self.usage.cached += 1
            return hit["text"]
        if self.dry_run:
            self.usage.planned += 1
            self.usage.planned_prompt_tokens += len(prompt) // 4 + 1
            # the budget the request would send: a registry entry's own (8,192 for reasoning models) wins
            self.usage.planned_completion_tokens += self._request(temperature, max_tokens).get("max_tokens", max_tokens)
            return dry_reply
        text, usage, cost = self._call(messages, temperature, max_tokens, what)
        self.usage.calls += 1
        self.usage.prompt_tokens += usage.get("prompt_tokens", 0)
        self.usage.completion_tokens += usage.get("completion_tokens", 0)
        self.usage.cost += cost
        self.cache.put(key, {"text": text, "usage": usage, "cost": cost, "model": self.model})
        return text

    def _request(self, temperature: float, max_tokens: int) -> dict:
        """litellm arguments: the registry entry's (model id, base URL, generation overrides, key) when known.
        The temperature is always the call's where the model takes one: the entry's is a benchmark default
        (greedy, 0) that would make a rollout's N samples one greedy answer N times; an entry that never
        sends a temperature (null, or omitted) still never sends it."""
        if self.spec is None:
            request = {"model": self.model, "temperature": temperature, "max_tokens": max_tokens}
        else:
            from finchain_tasks.models.registry import api_key, litellm_kwargs

            request = litellm_kwargs(self.spec, max_tokens=max_tokens)
            if "temperature" in request:
                request["temperature"] = temperature
            key = api_key(self.spec)
            if key:
                request["api_key"] = key
        if self.api_base:
            request["api_base"] = self.api_base
        return request

    def _call(self, messages: list[dict], temperature: float, max_tokens: int, what: str) -> tuple[str, dict, float]:
        import litellm

        litellm.suppress_debug_info = True
        request = self._request(temperature, max_tokens)
        try:
            resp = litellm.completion(messages=messages, timeout=self.timeout, num_retries=2, **request)
        except litellm.Timeout:
            self.usage.failed += 1
            raise Unknown(f"{what} timed out after {self.timeout:g}s") from None
        except Exception as exc:  # noqa: BLE001 - any provider error makes this one signal unknown
            self.usage.failed += 1
            raise Unknown(f"{what} failed: {type(exc).__name__}") from None
        text = (resp.choices[0].message.content or "") if resp.choices else ""
        usage = {k: int(getattr(resp.usage, k, 0) or 0) for k in ("prompt_tokens", "completion_tokens")} \
            if getattr(resp, "usage", None) else {}
        try:
            cost = float(litellm.completion_cost(completion_response=resp) or 0.0)
        except Exception:  # noqa: BLE001 - a model without a price costs what we cannot know: 0, counted as such
            cost = 0.0
        return text, usage, cost


def _prefix(item: LabelItem, k: int) -> str:
    return "\n".join(f"Step {i}: {s}" for i, s in enumerate(item.steps[:k + 1], 1))


ROLLOUT_PROMPT = ("Solve the problem step by step. The first steps are given; continue from them and end with a "
                  "line 'Final answer: <answer>'.\n\nProblem:\n{question}\n\nSteps so far:\n{prefix}\n\nContinue:")
QUAL_PROMPT = ("You judge one step of a solution to a financial problem for semantic coherence, logical soundness "
               "and alignment with the problem's objective.\n\nProblem:\n{question}\n\nSolution so far:\n{prefix}"
               "\n\nJudge only step {n}. Reply with exactly one line: 'Score: <a number from 0 to 1>'.")
PROC_PROMPT = ("Problem:\n{question}\n\nReference answer: {gold}\n{reference}\nSolution so far:\n{prefix}\n\n"
               "Is step {n} a logically valid and relevant step towards the reference answer? Reply with exactly "
               "one line: 'Verdict: correct' or 'Verdict: incorrect'.")
FACT_PROMPT = ("Problem:\n{question}\n\nKnowledge:\n{knowledge}\n{reference}\nSolution so far:\n{prefix}\n\n"
               "Are the facts and financial concepts in step {n} accurate and consistent with the knowledge "
               "above? Reply with exactly one line: 'Verdict: correct' or 'Verdict: incorrect'.")
CONCEPT_PROMPT = ("Knowledge points:\n{points}\n\nSolution:\n{trace}\nFinal answer: {answer}\n\nWhich knowledge points "
                  "does the solution use? Reply with exactly one line: 'Used: <their numbers, comma-separated>' "
                  "or 'Used: none'.")
_SCORE = re.compile(r"\s*\**score\**\s*[:=]\s*([01](?:\.\d+)?|\.\d+)\s*", re.I)
_VERDICT = re.compile(r"\s*\**verdict\**\s*[:=]\s*(correct|incorrect)\s*\.?\s*", re.I)
_USED = re.compile(r"\s*\**used\**\s*[:=]\s*(none|\d+(?:\s*,\s*\d+)*)\s*\.?\s*", re.I)


def _off_format(what: str, text: str) -> Unknown:
    shown = " ".join(text.split())[:60]
    return Unknown(f"{what} answered off-format: {shown!r}")


@dataclass
class RolloutImportance:
    """r_imp from ``n`` sampled continuations of each step prefix (temperature > 0)."""

    llm: LLM
    n: int = 8
    temperature: float = 0.7
    max_tokens: int = 512

    def importance(self, item: LabelItem, k: int) -> float:
        if item.gold_answer is None:
            raise Unknown("missing gold answer")
        prompt = ROLLOUT_PROMPT.format(question=item.question, prefix=_prefix(item, k))
        hits = 0
        for i in range(self.n):
            text = self.llm.complete(prompt, temperature=self.temperature, max_tokens=self.max_tokens, sample=i,
                                     what="rollout")
            hits += answer_matches(item, text)
        return hits / self.n


@dataclass
class JudgeQualitative:
    llm: LLM
    max_tokens: int = 16

    def qualitative(self, item: LabelItem, k: int) -> float:
        text = self.llm.complete(QUAL_PROMPT.format(question=item.question, prefix=_prefix(item, k), n=k + 1),
                                 max_tokens=self.max_tokens, what="qualitative judge", dry_reply="Score: 0")
        m = _SCORE.fullmatch(text)
        if not m:
            raise _off_format("qualitative judge", text)
        return float(m.group(1))


@dataclass
class JudgeAccuracy:
    llm: LLM
    max_tokens: int = 16

    def _verdict(self, prompt: str, what: str) -> float:
        text = self.llm.complete(prompt, max_tokens=self.max_tokens, what=what, dry_reply="Verdict: incorrect")
        m = _VERDICT.fullmatch(text)
        if not m:
            raise _off_format(what, text)
        return float(m.group(1).lower() == "correct")

    def accuracy(self, item: LabelItem, k: int) -> tuple[float, float]:
        ref = f"Expert analysis:\n{item.reference}\n" if item.reference else ""
        fields = {"question": item.question, "prefix": _prefix(item, k), "n": k + 1, "reference": ref}
        gold = "" if item.gold_answer is None else item.gold_answer
        proc = self._verdict(PROC_PROMPT.format(gold=gold, **fields), "procedural judge")
        knowledge = "\n".join(f"- {p}" for p in item.knowledge_points) or "(none given)"
        fact = self._verdict(FACT_PROMPT.format(knowledge=knowledge, **fields), "factual judge")
        return proc, fact


@dataclass
class JudgeConcepts:
    llm: LLM
    max_tokens: int = 32

    def used(self, item: LabelItem) -> tuple[str, ...]:
        points = item.knowledge_points
        listing = "\n".join(f"{i}. {p}" for i, p in enumerate(points, 1))
        text = self.llm.complete(CONCEPT_PROMPT.format(points=listing, trace=_prefix(item, len(item.steps)),
                                                       answer=item.final_answer),
                                 max_tokens=self.max_tokens, what="concept extractor", dry_reply="Used: none")
        m = _USED.fullmatch(text)
        if not m:
            raise _off_format("concept extractor", text)
        if m.group(1).lower() == "none":
            return ()
        picked = {int(x) for x in m.group(1).split(",")}
        if not picked <= set(range(1, len(points) + 1)):
            raise _off_format("concept extractor", text)
        return tuple(points[i - 1] for i in sorted(picked))


# ------------------------------------------------------------------------------------------ inputs

def item_from_problem(problem: Any, output: str | None = None, id_suffix: str = "") -> LabelItem:
    """A FinChain problem and one candidate output (the gold solution when ``output`` is None)."""
    text = problem.solution if output is None else output
    parsed = parse_output(text)
    gold = problem.gold()
    ident = problem.id + (f"#{id_suffix}" if id_suffix else "")
    return LabelItem(ident, problem.question, tuple(s.text for s in parsed.steps), parsed.final_answer_text,
                     output=text, gold_answer=gold.answer, gold_unit=gold.answer_unit, gold=gold,
                     reference=problem.solution, meta={"problem_id": problem.id, "template": problem.template_id})


def _finchain_problem(problem_id: str):
    from finchain_tasks.engine.registry import get

    parts = problem_id.split("/")
    if len(parts) != 5 or parts[0] != "finchain":
        raise ValueError(f"{problem_id!r} is not a FinChain problem id (finchain/domain/topic/template/seed)")
    return get("/".join(parts[1:4])).generate(int(parts[4]))


def item_from_row(row: dict, line: int = 0) -> LabelItem:
    """A JSONL row: ``question`` and ``output`` (or ``steps`` + ``final_answer``); gold from ``problem_id``
    (a FinChain id, regenerated), ``problem`` (a FinChain record), ``gold_solution`` (text) or ``gold_answer``;
    optional ``knowledge`` (list) and ``reference``. A row without gold is kept: its gold signals are unknown."""
    if not isinstance(row, dict):
        raise UnreadableFile(f"line {line}", "a JSON object is expected")  # read_items names the file
    _check_row(row, f"line {line}")
    if "problem" in row or "problem_id" in row:
        from finchain_tasks.engine import Problem

        problem = Problem.from_dict(row["problem"]) if "problem" in row else _finchain_problem(row["problem_id"])
        item = item_from_problem(problem, row.get("output") or _joined(row), str(line))
        return replace(item, id=str(row["id"])) if "id" in row else item
    output = row.get("output") or _joined(row)
    parsed = parse_output(output)
    steps = tuple(row["steps"]) if isinstance(row.get("steps"), list) else tuple(s.text for s in parsed.steps)
    question = str(row.get("question", ""))
    gold = gold_from_text(row["gold_solution"], question=question) if row.get("gold_solution") else None
    gold_answer = row.get("gold_answer", gold.answer if gold else None)
    return LabelItem(str(row.get("id", line)), question, steps,
                     str(row.get("final_answer", parsed.final_answer_text)), output=output, gold_answer=gold_answer,
                     gold_unit=str(row.get("gold_unit", gold.answer_unit if gold else "")), gold=gold,
                     knowledge=tuple(row.get("knowledge") or ()), reference=str(row.get("reference", "")),
                     meta={"template": row["template"]} if "template" in row else {})  # problem_id: the branch above


_ROW_TYPES: dict[str, tuple[type, ...]] = {
    "question": (str,), "output": (str, type(None)), "steps": (list, type(None)), "final_answer": (str, int, float),
    "gold_solution": (str, type(None)), "gold_answer": (str, int, float, list, type(None)), "gold_unit": (str,),
    "knowledge": (list, type(None)), "reference": (str,), "problem": (dict,), "problem_id": (str,),
    "id": (str, int)}
"""The type each field of a candidate row must have (a field that is absent is fine)."""


def _check_row(row: dict, where: str) -> None:
    """One :class:`UnreadableFile` line ``<where>: <field>: expected ..., got ...`` for a field of the wrong type."""
    for key, types in _ROW_TYPES.items():
        if key in row:
            expect(row[key], types, where, key)
    for key in ("steps", "knowledge"):
        for item in row.get(key) or []:
            expect(item, str, where, f"{key} item")


def _joined(row: dict) -> str:
    steps = row.get("steps") or []  # a list or null: _check_row has run
    answer = row.get("final_answer", "")
    return "\n".join([*(f"Step {i}: {s}" for i, s in enumerate(steps, 1)), f"Final answer: {answer}"]) if steps else ""


def _inspect_rows(log_dir: Path) -> list[dict]:
    """Candidates from Inspect logs: every sample and epoch; a FinChain sample id is its problem id."""
    from inspect_ai.log import read_eval_log

    from finchain_tasks.runs.summary import latest_logs

    rows = []
    for header in latest_logs(log_dir):
        for s in read_eval_log(header.location).samples or []:
            # input: a string or a list of chat messages (each has .text); output: always a ModelOutput
            question = s.input if isinstance(s.input, str) else s.input[-1].text
            row = {"id": f"{s.id}#{header.eval.model}#e{s.epoch}", "question": question, "output": s.output.completion}
            if str(s.id).startswith("finchain/"):
                row["problem_id"] = str(s.id)
            elif isinstance(s.target, str) and s.target:
                row["gold_answer"] = s.target
            rows += _pool_rows(s, row) or [row]
    return rows


def _pool_rows(sample: Any, row: dict) -> list[dict]:
    """A Best-of-N sample's candidates, one row each: its output is only the pick, and labelling that alone
    took 6 of 96 candidates from a run of 6 questions × 16. Empty for an ordinary sample."""
    from finchain_tasks.inspect.bon import SCORER

    score = (sample.scores or {}).get(SCORER)
    record = score.metadata.get("bon") if score is not None and isinstance(score.metadata, dict) else None
    candidates = record.get("candidates") if isinstance(record, dict) else None
    if not candidates:
        return []
    return [{**row, "id": f"{row['id']}#c{k}", "output": c.get("text") or ""} for k, c in enumerate(candidates)]


def _lm_eval_rows(root: Path, skipped: list[tuple[Path, str]] | None = None) -> list[dict]:
    """Candidates from lm-eval ``samples_*.jsonl`` files (every response of every doc): regular files only, never
    through a link out of ``root`` (what was passed over is added to ``skipped``)."""
    found = walk(root, ("samples_*.jsonl",))
    if skipped is not None:
        skipped.extend(found.skipped)
    rows = []
    for path in found.files:
        for n, s in jsonl_records(path):
            where = f"{path}:{n}"
            expect(s, dict, where, "sample")
            doc = expect(s.get("doc") or {}, dict, where, "doc")
            groups = expect(s.get("resps") or [], list, where, "resps")
            resps = [r for group in groups for r in (group if isinstance(group, list) else [group])]
            for r, text in enumerate(resps):
                row = {"id": f"{doc.get('id', s.get('doc_id'))}#{path.stem}#{n}#{r}",
                       "question": str(doc.get("question", "")), "output": text if isinstance(text, str) else ""}
                if str(doc.get("id", "")).startswith("finchain/"):
                    row["problem_id"] = doc["id"]
                elif doc.get("answer") is not None:
                    row["gold_answer"] = doc["answer"]
                _check_row(row, where)  # a doc's answer of the wrong type is named by its file and line here
                rows.append(row)
    return rows


def read_run_rows(run_dir: str | Path, skipped: list[tuple[Path, str]] | None = None) -> list[dict]:
    """Candidate rows from a run directory of either host (``logs/`` of Inspect, ``lm_eval/`` samples); what was
    passed over (a link out of the folder, a FIFO, a device) is added to ``skipped``."""
    from finchain_tasks.leaderboard.ingest import inspect_log_files

    run_dir = Path(run_dir)
    log_dir = run_dir / "logs" if (run_dir / "logs").is_dir() else run_dir
    # every log under it, as the run summary reads them: `bench --ray` writes one eval-set per pair in a sub-folder
    rows = _inspect_rows(log_dir) if inspect_log_files(log_dir) else []
    rows += _lm_eval_rows(run_dir, skipped)
    if not rows:
        raise ValueError(f"{run_dir}: no Inspect logs and no lm-eval samples found")
    return rows


def read_items(path: str | Path, skipped: list[tuple[Path, str]] | None = None) -> list[LabelItem]:
    """Candidates from a JSONL file (a regular file) or a run directory of either host; a malformed line or a
    field of the wrong type is one clear error naming the file and line."""
    if Path(path).is_dir():
        return [item_from_row(row, n) for n, row in enumerate(read_run_rows(path, skipped), 1)]
    items = []
    for n, row in jsonl_records(path):
        try:
            items.append(item_from_row(row, n))
        except UnreadableFile as exc:
            raise ValueError(f"{path}:{n}: {exc.reason}") from None
    return items


# ------------------------------------------------------------------------------------------ the job

@dataclass
class Models:
    """Which litellm model plays which part (one model may play all)."""

    policy: str
    judge: str
    api_base: str | None = None
    rollouts: int = 8


def fused_signals(models: Models, cache: CallCache, dry_run: bool = False) -> tuple[FusedSignals, Usage]:
    """The paper's signals on litellm models (registry names or litellm ids), sharing one cache and one usage
    counter; an unknown model name fails here, before any call."""
    from finchain_tasks.models.registry import load_registry

    registry = load_registry()
    usage = Usage()
    policy = LLM(models.policy, cache, usage, models.api_base, dry_run=dry_run, spec=registry.model(models.policy))
    judge = LLM(models.judge, cache, usage, models.api_base, dry_run=dry_run, spec=registry.model(models.judge))
    return FusedSignals(RolloutImportance(policy, models.rollouts), JudgeQualitative(judge), JudgeAccuracy(judge),
                        JudgeConcepts(judge)), usage


def run_labels(items: list[LabelItem], out: str | Path, recipe: str = "exact", models: Models | None = None,
               cache_path: str | Path | None = None, dry_run: bool = False, embedder=None) -> dict:
    """Label ``items`` and write ``out`` (JSONL, one row per item) and ``out`` + ``.summary.json``.
    In dry-run mode nothing is written and no model is called: the summary says what would be."""
    out = Path(out)
    usage = Usage()
    signals = None
    if recipe == "fused":
        if models is None:
            raise ValueError("the fused recipe needs --policy and --judge models")
        signals, usage = fused_signals(models, CallCache(cache_path or out.with_suffix(".cache.sqlite")), dry_run)
    labels = label_items(items, recipe, signals, embedder)
    summary = {"recipe": recipe, **summarise(labels), "usage": usage.as_dict()}
    if dry_run:
        return {"recipe": recipe, "traces": len(items), "steps": summary["steps"], "usage": usage.as_dict()}
    _write(out, labels)
    out.with_name(out.name + ".summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def _write(path: Path, labels: Iterable[TraceLabels]) -> None:
    """Atomically to a regular file, through to a device or link target (:mod:`finchain_tasks.plumbing.output`)."""
    from finchain_tasks.plumbing.output import output_file

    with output_file(path) as fh:
        for lab in labels:
            fh.write(json.dumps(lab.to_dict(), default=str) + "\n")
