"""Synthetic Best-of-N pools with known defects, built from a gold solution's text: evidence without keys.

From a gold solution (``Step k: … expression = result`` lines and a ``Final answer:`` line, the form
FinChain renders) :func:`synthetic_pool` makes ``size`` candidates of these kinds:

* ``correct``: the gold text.
* ``propagated``: one intermediate step's written result is wrong (× (1 + δ)); every later step that
  uses that number is recomputed from it, so the chain stays consistent after the error and the final
  answer is wrong. The candidates of this kind in one pool share δ: a wrong answer that can win a vote.
* ``wrong_final``: the last step's written result and the final answer are wrong (each its own δ).
* ``skipped``: one middle step left out; the final answer is still right.
* ``garbled``: the text with digits and ``=`` scrambled into noise and no final answer.

How many of each is drawn per pool from ``rng``; :class:`SyntheticCandidate` keeps the kind, whether its
final answer is right and which step (1-based) carries the defect, so tests can derive the expected
selections independently of the PRM under test.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from scorers.numbers import normalize
from scorers.prm.calc import evaluate

__all__ = ["KINDS", "SyntheticCandidate", "synthetic_pool"]

KINDS = ("correct", "propagated", "wrong_final", "skipped", "garbled")
_STEP = re.compile(r"^Step (\d+): ", re.M)
_RESULT = re.compile(r"=\s*(?P<sign>[−-]?)(?P<pre>[$€£¥₹]?)(?P<sign2>[−-]?)"
                     r"(?P<num>\d[\d,]*(?:\.\d+)?)(?P<post>%?)\.?\s*$")
_FINAL = re.compile(r"^Final answer: .*$", re.M)


@dataclass(frozen=True)
class SyntheticCandidate:
    """One candidate text, its kind, whether its final answer is right, and its defective step (0: none)."""

    text: str
    kind: str
    correct: bool
    bad_step: int = 0


def _steps(solution: str) -> tuple[list[str], str]:
    lines = [ln for ln in solution.strip().splitlines() if ln.strip()]
    steps = [ln for ln in lines if _STEP.match(ln)]
    final = next((ln for ln in lines if ln.startswith("Final answer:")), "")
    return steps, final


def _fmt(value: float, like: str) -> str:
    """``value`` written the way ``like`` is (thousands commas, the same number of decimals)."""
    decimals = len(like.split(".")[1]) if "." in like else 0
    return f"{value:,.{decimals}f}" if "," in like or abs(value) >= 1000 else f"{value:.{decimals}f}"


def _result(step: str) -> re.Match | None:
    return _RESULT.search(step)


def _value(m: re.Match) -> float:
    """The signed value of a written result (``−$144,000.00`` is -144000)."""
    sign = -1.0 if (m.group("sign") or m.group("sign2")) else 1.0
    return sign * float(m.group("num").replace(",", ""))


def _written(m: re.Match) -> str:
    return m.group("sign") + m.group("pre") + m.group("sign2") + m.group("num")


def _rewrite(step: str, value: float) -> str:
    """The step with its result replaced by ``value``, written like the old one (sign before the currency)."""
    m = _result(step)
    text = ("−" if value < 0 else "") + m.group("pre") + _fmt(abs(value), m.group("num"))
    return step[:m.start("sign")] + text + step[m.end("num"):]


def _expression(step: str, m: re.Match) -> tuple[float, int]:
    return evaluate(normalize(step[:m.start()]).rsplit(":", 1)[-1])


def _recompute(original: str, updated: str) -> str:
    """``updated`` with its result recomputed from its expression, on the scale the original used
    (a ``%`` result of a fraction is × 100); as is when the expression is unreadable."""
    m0, m = _result(original), _result(updated)
    if not m0 or not m:
        return updated
    try:
        before, ops = _expression(original, m0)
        value, _ = _expression(updated, m)
    except ValueError:
        return updated
    if not ops or before == 0:
        return updated
    scale = min((1.0, 100.0, 0.01), key=lambda f: abs(_value(m0) - before * f))
    return _rewrite(updated, value * scale)


def _final(steps: list[str], final: str) -> str:
    m = _result(steps[-1])
    if not m:
        return final
    return f"Final answer: {_written(m)}{m.group('post')}"


def _join(steps: list[str], final: str) -> str:
    body = [_STEP.sub(f"Step {k}: ", s, count=1) for k, s in enumerate(steps, 1)]
    return "\n".join(body + ([final] if final else []))


def _replace(step: str, changes: dict[str, str]) -> str:
    """Every earlier result that changed, replaced where this step uses it (whole numbers only)."""
    for old, new in changes.items():
        step = re.sub(rf"(?<![\d,.]){re.escape(old)}(?![\d])", new, step)
    return step


def _propagated(steps: list[str], final: str, j: int, delta: float) -> str | None:
    m = _result(steps[j])
    if not m:
        return None
    wrong = _rewrite(steps[j], _value(m) * (1 + delta))
    old, new = m.group("num"), _result(wrong).group("num")
    if new == old:
        return None
    changes = {old: new}
    out = steps[:j] + [wrong]
    for s in steps[j + 1:]:
        updated = _replace(s, changes)
        if updated != s:
            before, updated = _result(s), _recompute(s, updated)
            after = _result(updated)
            if before and after and before.group("num") != after.group("num"):
                changes[before.group("num")] = after.group("num")
        out.append(updated)
    return _join(out, _final(out, final))


def _wrong_final(steps: list[str], final: str, delta: float) -> str | None:
    m = _result(steps[-1])
    if not m:
        return None
    out = steps[:-1] + [_rewrite(steps[-1], _value(m) * (1 + delta))]
    return _join(out, _final(out, final))


def _garbled(steps: list[str], rng: random.Random) -> str:
    words = " ".join(_STEP.sub("", s) for s in steps).replace("=", " ").split()
    words = [w for w in words if not any(ch.isdigit() for ch in w)]
    rng.shuffle(words)
    return " ".join(words[:40]) or "???"


def _plan(rng: random.Random, size: int) -> list[str]:
    correct = rng.randint(1, 4)
    skipped = rng.randint(0, 2)
    propagated = rng.randint(2, 6)
    garbled = rng.randint(1, 3)
    wrong_final = max(0, size - correct - skipped - propagated - garbled)
    kinds = (["correct"] * correct + ["skipped"] * skipped + ["propagated"] * propagated
             + ["wrong_final"] * wrong_final + ["garbled"] * garbled)[:size]
    rng.shuffle(kinds)
    return kinds


def synthetic_pool(solution: str, rng: random.Random, size: int = 16) -> list[SyntheticCandidate]:
    """``size`` candidates from one gold solution (see the module docstring); ``[]`` if it has < 2 steps."""
    steps, final = _steps(solution)
    if len(steps) < 2 or not _result(steps[-1]):
        return []
    gold = _join(steps, final)
    shared = rng.choice([0.1, 0.2, 0.25, -0.15])
    middle = [j for j in range(len(steps) - 1) if _result(steps[j])]
    j_prop = rng.choice(middle) if middle else None
    pool = []
    for kind in _plan(rng, size):
        text, bad, correct = None, 0, False
        if kind == "propagated" and j_prop is not None:
            text, bad = _propagated(steps, final, j_prop, shared), j_prop + 1
        elif kind == "wrong_final":
            delta = rng.choice([0.05, 0.1, 0.3, 0.5, -0.2, -0.4]) + rng.random() / 10
            text, bad = _wrong_final(steps, final, delta), len(steps)
        elif kind == "skipped" and len(steps) >= 3:
            k = rng.randrange(1, len(steps) - 1)
            text, correct = _join(steps[:k] + steps[k + 1:], final), True
        elif kind == "garbled":
            text = _garbled(steps, rng)
        if text is None:
            kind, text, bad, correct = "correct", gold, 0, True
        elif kind == "correct":
            correct = True
        pool.append(SyntheticCandidate(text, kind, correct, bad))
    return pool
