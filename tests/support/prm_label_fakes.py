"""Deterministic signals for tests: each one reads a truth function ``truth(item, k) -> bool | None``
(None = the signal fails with a reason) and answers what a well-behaved model would.

Values are chosen so the paper's fusion separates them: a correct step gets r_imp = 7/8,
r_qual = 0.9, r_acc = 1 + 1; an incorrect one 1/8, 0.2, 0 + 0.
"""

from __future__ import annotations

from collections.abc import Callable

from scorers.prm.labels.signals import LabelItem, Unknown

__all__ = ["FakeAccuracy", "FakeConcepts", "FakeImportance", "FakeQualitative", "Truth"]

Truth = Callable[[LabelItem, int], "bool | None"]


def _verdict(truth: Truth, item: LabelItem, k: int, what: str) -> bool:
    verdict = truth(item, k)
    if verdict is None:
        raise Unknown(f"fake {what}: no verdict for step {k + 1}")
    return bool(verdict)


class FakeImportance:
    """7 of 8 rollouts reach the answer after a correct step, 1 of 8 after an incorrect one."""

    def __init__(self, truth: Truth, n: int = 8):
        self.truth, self.n, self.calls = truth, n, 0

    def importance(self, item: LabelItem, k: int) -> float:
        self.calls += 1
        return (self.n - 1) / self.n if _verdict(self.truth, item, k, "importance") else 1 / self.n


class FakeQualitative:
    """0.9 for a correct step, 0.2 for an incorrect one."""

    def __init__(self, truth: Truth):
        self.truth, self.calls = truth, 0

    def qualitative(self, item: LabelItem, k: int) -> float:
        self.calls += 1
        return 0.9 if _verdict(self.truth, item, k, "qualitative judge") else 0.2


class FakeAccuracy:
    """(1, 1) for a correct step, (0, 0) for an incorrect one."""

    def __init__(self, truth: Truth):
        self.truth, self.calls = truth, 0

    def accuracy(self, item: LabelItem, k: int) -> tuple[float, float]:
        self.calls += 1
        ok = float(_verdict(self.truth, item, k, "accuracy judge"))
        return ok, ok


class FakeConcepts:
    """A knowledge point is used when its words all appear in the trace (case-folded)."""

    def used(self, item: LabelItem) -> tuple[str, ...]:
        text = " ".join((*item.steps, item.final_answer)).casefold()
        return tuple(p for p in item.knowledge_points if all(w in text for w in p.casefold().split()))
