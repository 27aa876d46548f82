"""The prompts a task set sends, rendered as the task renders them, without a model: for ``--plan``.

Why through the real Inspect task: the prompt a model receives is the sample's input after the task's solvers
(a system message, a template filled from the sample's metadata), and the number of requests depends on the
task's epochs (CFLUE's majority vote) and its Best-of-N candidates. Building the same Task the run builds and
running its solvers up to the point where they would call the model gives exactly the messages the run sends,
whatever a future task puts in its solver chain. The solvers run on a TaskState with a ``generate`` that stops
the chain and hands back the messages; a solver that calls the model itself (Best-of-N's sampler asks
``get_model()``, which has no model here) stops the chain the same way, with the messages it was about to send.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Optional

from finchain_tasks.runs.engine import TaskPlan, build_task

NO_MODEL = "No model specified"
"""The start of Inspect's error when a solver asks ``get_model()`` outside a run: that solver was about to send."""


@dataclass(frozen=True)
class RenderedTaskSet:
    """One task set's requests, as far as a bill needs them."""

    name: str
    task: str
    prompts: list[list[dict[str, str]]]  # per sample (after --limit): the messages sent, role and text
    epochs: int  # times each sample runs (CFLUE's n: a majority vote over epochs)
    candidates: int  # requests per sample and epoch (Best-of-N ``samples``)
    max_tokens: Optional[int]  # the task's default max_tokens (a model's registry value overrides it)
    sample_ids: list[str] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return len(self.prompts) * self.epochs * self.candidates


class _Rendered(Exception):
    """Raised by the stand-in ``generate``: the chain has reached the model."""

    def __init__(self, messages: list[Any]) -> None:
        super().__init__("rendered")
        self.messages = messages


async def _stop(state: Any, *args: Any, **kwargs: Any) -> Any:
    raise _Rendered(list(state.messages))


def _as_dicts(messages: list[Any]) -> list[dict[str, str]]:
    return [{"role": str(m.role), "content": m.text} for m in messages]


async def _render_one(task: Any, sample: Any) -> list[dict[str, str]]:
    from inspect_ai.model import ChatMessageUser, ModelName
    from inspect_ai.scorer import Target
    from inspect_ai.solver import TaskState

    messages = [ChatMessageUser(content=sample.input)] if isinstance(sample.input, str) else list(sample.input)
    state = TaskState(model=ModelName("none/none"), sample_id=sample.id or 0, epoch=1, input=sample.input,
                      messages=messages, target=Target(sample.target or ""), metadata=dict(sample.metadata or {}))
    try:
        await task.solver(state, _stop)
    except _Rendered as done:
        return _as_dicts(done.messages)
    except Exception as exc:  # Inspect raises a ValueError or, once an eval has run in the process, its
        if not str(getattr(exc, "message", exc)).startswith(NO_MODEL):  # PrerequisiteError: both say this
            raise
        return _as_dicts(state.messages)
    raise ValueError(f"task {task.name!r} finished its solvers without asking a model: nothing to bill")


async def _render_all(task: Any, samples: list[Any]) -> list[list[dict[str, str]]]:
    return [await _render_one(task, s) for s in samples]


def render_task_set(plan: TaskPlan, limit: Optional[int] = None) -> RenderedTaskSet:
    """Build the task set's Inspect task and render the prompts of its first ``limit`` samples (eval-set's own
    ``--limit`` takes the dataset's first N, in the task's stratified order)."""
    task = build_task(plan)
    samples = list(task.dataset)[:limit] if limit else list(task.dataset)
    prompts = asyncio.run(_render_all(task, samples))
    epochs = int(task.epochs or 1)
    candidates = int(plan.args.get("samples") or 1)
    return RenderedTaskSet(plan.name, plan.task, prompts, epochs, candidates, task.config.max_tokens,
                           [str(s.id) for s in samples])
