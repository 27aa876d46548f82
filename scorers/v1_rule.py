"""The FinChain paper's first-version rule (the authors' ``chaineval/eval.py``), quirks included.

Why a second rule beside ChainEval: the per-sample scores the authors published for 30 models
(``evals/<model>.jsonl``) were made by this rule, not by the later official script our
``reference`` profile follows. To reproduce *their* numbers (and to say exactly where a reader
would disagree with them) one has to run their rule as it runs, so nothing here is "fixed":

* **steps** are the spans starting at a line that begins with ``Step N`` (markdown ``**``/``#``
  allowed before it); only when there is none, at lines that begin with a digit. Text before the
  first step is dropped; an output with neither has no steps and scores 0 everywhere (fac too).
* **a step's value** (:func:`step_value`): the first number after ``Answer:``, else the number
  after the last ``=``, else the last number of three or more characters (``\\d.[\\d,]+``, so
  "24" is skipped but "0.5" inside "10.5" is read), else a short number after ``.`` or ``:``,
  kept as *text*. Signs are dropped (``[\\d.]+``); million/billion/thousand scale the number only
  where the matched text holds the word: "= 2 billion" is 2e9, but "Answer: 2 billion" is 2 (that
  match ends at the number), "= 2.345 billion" is 2.34 and "bn" is no scale word (pinned against
  their eval.py in tests/scorers/test_v1_rule.py).
* **recall / precision**: cosine similarity of the steps' sentence embeddings, multiplied by a
  0/1 value match (|g - p| / (g + 1e-4) < 0.1, or a bag-of-words cosine >= 0.5 where either value
  is text; each gold step marks only its *first* matching predicted step), counted where > 0.6.
* **final answer**: the value of the last step that has one, matched within 5% (bag-of-words
  cosine >= 0.1 where either is text).

Plain data in, plain data out: the caller passes an ``encode`` function (texts -> vectors), so
this module needs no model and imports nothing from the hosts.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["V1Result", "V1_COSINE", "V1_FINAL_TOL", "V1_STEP_TOL", "bow_cosine", "score_v1", "score_v1_batch",
           "split_steps", "step_value", "to_number"]

V1_COSINE = 0.6
"""A step pair counts when its (value-gated) cosine similarity is strictly above this."""
V1_STEP_TOL = 0.1
"""Relative tolerance of a step-value match (against gold + 1e-4, gold's sign dropped)."""
V1_FINAL_TOL = 0.05
"""Relative tolerance of the final-answer match."""
_EPS = 0.0001

_STEP_START = re.compile(r"(?:^|\n)(\s*)(\**)(#*)(\s*)Step(-*)(\s*)(\d+)")
_DIGIT_LINE = re.compile(r"(?:^|\n)\s*(\**)(\d+)(.*)")
_STEP_LABEL = re.compile(r"(?i)Step\s+\d+\s*:")
_ANSWER = re.compile(r"\**Answer:\**\s*.*?(?:USD|\$)?\s*([\d,]+(?:\.\d{1,2})?)")
_LAST_EQUALS = re.compile(r"=\s*(?!.*=)(?:USD|\$)?\s*[\d,]+(?:\.\d{1,2})?\s*(million|billion|thousand)?")
_NUMBER = re.compile(r"\d.[\d,]+(?:\.\d{1,2})?\s*(million|billion|thousand)?")
_SHORT_AFTER_STOP = re.compile(
    r"(?<=\n|\.|:)\s*(answer: |final answer: |final answer is: )?([\d,]+(?:\.\d{1,2})?\s*(million|billion|thousand)?)")

Value = float | str | None


def to_number(text: str) -> float | None:
    """The first unsigned number of ``text`` ($ and commas dropped), scaled by a scale word
    anywhere in it; None when there is none or it is not a number ("1.2.3")."""
    text = text.replace("~", "").strip().replace("$", "").replace(",", "")
    found = re.findall(r"[\d.]+", text)
    if not found:
        return None
    try:
        number = float(found[0])
    except ValueError:
        return None
    lower = text.lower()
    for word, scale in (("billion", 1e9), ("million", 1e6), ("thousand", 1e3)):
        if word in lower:
            return number * scale
    return number


def bow_cosine(a: str, b: str) -> float:
    """Cosine of two whitespace-split bags of words (0 when either is empty)."""
    c1, c2 = Counter(a.split()), Counter(b.split())
    dot = sum(c1[w] * c2[w] for w in c1.keys() & c2.keys())
    n1 = math.sqrt(sum(v * v for v in c1.values()))
    n2 = math.sqrt(sum(v * v for v in c2.values()))
    return dot / (n1 * n2) if n1 and n2 else 0.0  # not clipped: sqrt(3) * sqrt(3) < 3 in floating point


def step_value(step: str) -> Value:
    """What eval.py reads as a step's result: a number, a short number kept as text, or None.
    The first rule that matches decides, even when its number does not parse (then None)."""
    step = re.sub(r"\s+", " ", step).strip()
    found = _ANSWER.search(step)
    if found:
        return to_number(found.group(0))
    lower = step.lower()
    found = _LAST_EQUALS.search(lower)
    if found:
        return to_number(found.group(0))
    numbers = list(_NUMBER.finditer(lower))
    if numbers:
        return to_number(numbers[-1].group(0))
    found = _SHORT_AFTER_STOP.search(lower)
    return found.group(0) if found else None


def split_steps(text: str) -> list[str]:
    """eval.py's steps of ``text`` (``Step N`` lines, else lines starting with a digit), each with
    its "Step N:" labels removed and whitespace collapsed; a chat transcript's echoed user turn
    ("\\nuser\\n") and everything after it are cut first."""
    steps, _ = _steps_and_values(text)
    return steps


def _steps_and_values(text: str) -> tuple[list[str], list[Value]]:
    text = text.split("\nuser\n")[0]
    starts = [m.start() for m in _STEP_START.finditer(text)] or [m.start() for m in _DIGIT_LINE.finditer(text)]
    raw = [text[a:b].strip() for a, b in zip(starts, starts[1:] + [len(text)])]
    raw = [_STEP_LABEL.sub("", s).strip() for s in raw]
    return [re.sub(r"\s+", " ", s) for s in raw], [step_value(s) for s in raw]


def _values_match(gold: Value, pred: Value, tol: float, bow_min: float) -> bool:
    if isinstance(gold, str) or isinstance(pred, str):  # eval.py also rejects a cosine above 1.0, so
        return bow_min <= bow_cosine(str(gold), str(pred)) <= 1.0  # 3 identical words (1 + 2e-16) fail
    return abs(gold - pred) / (gold + _EPS) < tol


def _value_gate(gold: list[Value], pred: list[Value]) -> np.ndarray:
    """1 where a gold step's value matches a predicted step's, keeping only the FIRST predicted
    step each gold step matches (eval.py breaks out of its loop there)."""
    gate = np.zeros((len(gold), len(pred)))
    for i, g in enumerate(gold):
        if g is None:
            continue
        for j, p in enumerate(pred):
            if p is not None and _values_match(g, p, V1_STEP_TOL, 0.5):
                gate[i, j] = 1.0
                break
    return gate


def _last_value(values: list[Value]) -> Value:
    return next((v for v in reversed(values) if v is not None), None)


@dataclass(frozen=True)
class V1Result:
    """One output scored by the v1 rule. ``step_f1`` is aggregate.py's 2rp / (r + p + 1e-4)."""

    step_recall: float
    step_precision: float
    fac: float
    final_answer: Value
    gold_answer: Value
    n_gold_steps: int
    n_pred_steps: int

    @property
    def step_f1(self) -> float:
        r, p = self.step_recall, self.step_precision
        return 2 * r * p / (r + p + _EPS)

    @property
    def chaineval(self) -> float:
        """The v1 rule has no ChainEval; its one step score, step F1, stands in where a report
        ranks outputs by their step score (reproduce's AUC)."""
        return self.step_f1

    @property
    def fac_strict(self) -> float:
        """The v1 rule has one tolerance (5%), so its strict reading is its reading: a report that
        compares ChainEval's two readings sees no tolerance-only pass under v1."""
        return self.fac

    @property
    def answer_value(self) -> float | None:
        """The final answer's figure, when the rule read a number (as ChainEval's result names it)."""
        return float(self.final_answer) if isinstance(self.final_answer, (int, float)) else None


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


def _score(gold: tuple[list[str], list[Value]], pred: tuple[list[str], list[Value]],
           gold_vecs: np.ndarray, pred_vecs: np.ndarray) -> V1Result:
    (g_steps, g_vals), (p_steps, p_vals) = gold, pred
    g_final, p_final = _last_value(g_vals), _last_value(p_vals)
    if not g_steps or not p_steps:
        return V1Result(0.0, 0.0, 0.0, p_final, g_final, len(g_steps), len(p_steps))
    sim = (_unit_rows(gold_vecs) @ _unit_rows(pred_vecs).T) * _value_gate(g_vals, p_vals)
    recall = float(np.sum(sim.max(axis=1) > V1_COSINE) / len(g_steps))
    precision = float(np.sum(sim.max(axis=0) > V1_COSINE) / len(p_steps))
    if g_final is None or p_final is None:
        fac = 0.0
    else:
        fac = float(_values_match(g_final, p_final, V1_FINAL_TOL, 0.1))
    return V1Result(recall, precision, fac, p_final, g_final, len(g_steps), len(p_steps))


def score_v1_batch(golds: Sequence[str], outputs: Sequence[str | None],
                   encode: Callable[[list[str]], np.ndarray]) -> list[V1Result]:
    """Score ``outputs[k]`` against the gold text ``golds[k]``; every step text of the batch is
    encoded in one call (``encode`` may cache repeated texts)."""
    if len(golds) != len(outputs):
        raise ValueError(f"{len(golds)} gold solutions but {len(outputs)} outputs")
    gold_parts = [_steps_and_values(g or "") for g in golds]
    pred_parts = [_steps_and_values(o or "") for o in outputs]
    texts = [s for g in gold_parts for s in g[0]] + [s for p in pred_parts for s in p[0]]
    vecs = np.asarray(encode(texts)) if texts else np.zeros((0, 1))
    out, at = [], 0
    spans = []
    for part in gold_parts + pred_parts:
        spans.append((at, at + len(part[0])))
        at += len(part[0])
    n = len(golds)
    for k in range(n):
        (ga, gb), (pa, pb) = spans[k], spans[n + k]
        out.append(_score(gold_parts[k], pred_parts[k], vecs[ga:gb], vecs[pa:pb]))
    return out


def score_v1(gold: str, output: str | None, encode: Callable[[list[str]], np.ndarray]) -> V1Result:
    """One output against one gold text (see :func:`score_v1_batch`)."""
    return score_v1_batch([gold], [output], encode)[0]
