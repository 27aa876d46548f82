"""Errors that ``inspect eval`` prints as one plain message instead of a 250-line traceback.

Inspect's command line prints a ``PrerequisiteError`` as its message alone; any other exception raised while a
task is built (a bad ``-T`` value, say) comes with the whole chained traceback of Inspect's task loader before
the one line that matters. :func:`plain_task_errors` turns a task function's argument errors into that kind.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

try:
    from inspect_ai._util.error import PrerequisiteError as Plain
except ImportError:  # private API moved: the error then comes with a traceback, nothing worse
    Plain = Exception  # type: ignore[misc,assignment]

F = TypeVar("F", bound=Callable[..., Any])


class TaskArgumentError(Plain, ValueError):  # type: ignore[misc,valid-type]
    """A bad task argument (``-T``), shown by ``inspect eval`` as ``<task>: <message>`` without a traceback."""

    def __init__(self, message: str) -> None:
        ValueError.__init__(self, message)
        self.message = message


def plain_task_errors(fn: F) -> F:
    """Wrap a task function so that the ValueError or TypeError its arguments raise becomes one plain line
    (``finchain: unknown level ['hard']; known: advanced, easy, intermediate``). Apply under ``@task``."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Plain:
            raise
        except (ValueError, TypeError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise TaskArgumentError(f"{fn.__name__}: {first}") from None

    return wrapper  # type: ignore[return-value]
