"""Best-of-N selection: one interface for every way of picking one of N sampled responses.

A :class:`Selector` sees the N candidate responses to one question and returns the index of the
one to keep; the kept response is then scored like a single sample. :class:`MajorityVote` is the
baseline; a process-reward-model selector (Fin-PRM) implements the same interface and is compared
with it at equal N.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from scorers.cflue.extract import INVALID, extract_answer

Extractor = Callable[[str, str], str]
"""``(question_id, response) -> answer letters or "X"``: lets a host pass each question's options."""


@runtime_checkable
class Selector(Protocol):
    """Picks one of N candidate responses to a question."""

    name: str

    def select(self, question_id: str, candidates: Sequence[str]) -> int:
        """Index (0-based) into ``candidates`` of the chosen response; ValueError when there are none."""
        ...


def _robust_any_letters(question_id: str, response: str) -> str:
    return extract_answer(response, mode="robust")


class MajorityVote:
    """The most frequent extracted answer wins; returns the first candidate that gave it.

    Rules: candidates are grouped by their extracted answer (so "答案：A" and "A" vote together);
    invalid answers ("X") never win while any candidate is valid; a tie between equally frequent
    answers goes to the answer that appears first among the candidates (deterministic, and with
    i.i.d. samples as good as random); when every candidate is invalid, index 0 is returned.
    """

    name = "majority_vote"

    def __init__(self, extract: Extractor | None = None) -> None:
        self._extract = extract or _robust_any_letters

    def answers(self, question_id: str, candidates: Sequence[str]) -> list[str]:
        return [self._extract(question_id, text) for text in candidates]

    def select(self, question_id: str, candidates: Sequence[str]) -> int:
        if not candidates:
            raise ValueError(f"{question_id}: no candidates to select from")
        answers = self.answers(question_id, candidates)
        return winning_index(answers)


def winning_index(answers: Sequence[str]) -> int:
    """:class:`MajorityVote`'s rule over already extracted answers."""
    if not answers:
        raise ValueError("no answers to vote over")
    counts = Counter(a for a in answers if a != INVALID)
    if not counts:
        return 0
    best = max(counts.values())
    return next(i for i, a in enumerate(answers) if counts.get(a) == best)
