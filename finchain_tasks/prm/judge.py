"""``judge:<registry model>``: an LLM as step judge, through litellm.

The prompt (:data:`SYSTEM`, :func:`judge_messages`) shows the question, the numbered steps and the
final answer, and asks for exactly one verdict line per step plus one for the whole trajectory::

    Step 1: GOOD
    Step 2: BAD
    Trajectory: BAD

Parsing is strict (:func:`parse_verdicts`): every step number from 1 to n exactly once, each GOOD or
BAD, and a trajectory line; anything else is a malformed answer. A malformed answer is asked again (up
to ``retries`` times, with ``attempt`` in the request so a cache or a deterministic server does not
return the same text; litellm keeps that field to itself, so a server sees the same messages again);
HTTP errors are retried by litellm (``num_retries``). A candidate the judge never
answered properly gets no verdict (all steps ``None``, the neutral reward, the error in ``extra``)
rather than failing the run. Valid answers are cached in the run's response cache (SQLite, keyed by
the first attempt's request without transport details) when a cache path is given, so a rerun asks
nothing twice.
GOOD is probability 1.0, BAD 0.0.

A judge that rarely answers in format would otherwise pass silently, every candidate at the neutral reward:
the PRM counts its off-format candidates (:attr:`JudgePRM.off_format`, also in each such score's ``extra``),
says so on stderr, and raises :class:`JudgeOffFormat` once more than ``max_off_format`` of at least
:data:`MIN_JUDGED` candidates had no verdict for that reason.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from scorers.prm.base import DEFAULT_AGG, DEFAULT_ZETA, PRMInput, PRMScore, make_score

__all__ = ["SYSTEM", "JudgeError", "JudgeOffFormat", "JudgePRM", "judge_messages", "parse_verdicts"]

MAX_OFF_FORMAT = 0.2
"""The share of candidates a judge may leave without a verdict for answering off-format before the run fails."""
MIN_JUDGED = 8
"""Candidates judged before the share is held against the limit (one odd answer among three is not a verdict on
the judge)."""

SYSTEM = ("You are a strict grader of step-by-step financial reasoning. Check each step on its own: is its "
          "arithmetic right, does it use the right values from the question and from earlier steps, and is the "
          "financial concept right? Answer with exactly one line per step, 'Step k: GOOD' or 'Step k: BAD', in "
          "order, then one line 'Trajectory: GOOD' or 'Trajectory: BAD' for the whole solution. Write nothing else.")
_LINE = re.compile(r"^\s*(?:\*\*)?(step\s*(\d{1,3})|trajectory)(?:\*\*)?\s*[:\-]\s*(?:\*\*)?(good|bad)(?:\*\*)?\s*$",
                   re.I)


class JudgeError(ValueError):
    """The judge's answer does not follow the required format."""


class JudgeOffFormat(RuntimeError):
    """Too many candidates without a verdict because the judge never answered in format: the PRM is not
    judging, and its rewards would all be the neutral one."""


def judge_messages(item: PRMInput) -> list[dict[str, str]]:
    """The documented prompt for one candidate."""
    steps = "\n".join(f"Step {k}: {s}" for k, s in enumerate(item.steps, 1))
    user = (f"Question:\n{item.question}\n\nSolution steps:\n{steps}\n\nFinal answer: {item.final_answer}\n\n"
            f"Give your {len(item.steps)} step verdicts and the trajectory verdict.")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def parse_verdicts(text: str, n_steps: int) -> tuple[list[float], float]:
    """(step probabilities, trajectory probability) from a judge's answer; :class:`JudgeError` otherwise."""
    steps: dict[int, float] = {}
    traj = None
    for line in (text or "").strip().splitlines():
        if not line.strip():
            continue
        m = _LINE.match(line)
        if not m:
            raise JudgeError(f"unexpected line {line.strip()[:60]!r}")
        value = 1.0 if m.group(3).lower() == "good" else 0.0
        if m.group(2) is None:
            traj = value
            continue
        k = int(m.group(2))
        if k in steps or not 1 <= k <= n_steps:
            raise JudgeError(f"step {k} repeated or out of range 1..{n_steps}")
        steps[k] = value
    if len(steps) != n_steps or traj is None:
        raise JudgeError(f"{len(steps)} of {n_steps} step verdicts" + ("" if traj is not None else ", no trajectory"))
    return [steps[k] for k in range(1, n_steps + 1)], traj


class JudgePRM:
    """A registry model as step judge; see the module docstring."""

    def __init__(self, model: str, *, registry: Any = None, cache_path: str | None = None, retries: int = 2,
                 num_retries: int = 3, timeout: float = 120.0, concurrency: int = 8, max_tokens: int = 512,
                 agg: str = DEFAULT_AGG, zeta: float = DEFAULT_ZETA, api_base: str | None = None,
                 max_off_format: float = MAX_OFF_FORMAT):
        from finchain_tasks.models.registry import load_registry, missing_env

        self.spec = (registry or load_registry()).model(model)
        missing = missing_env(self.spec)
        if missing and not api_base:
            raise ValueError(f"judge model {model!r} needs {', '.join(missing)} set in the environment")
        self.name, self.model = f"judge:{model}", model
        self.cache_path, self.retries, self.num_retries, self.timeout = cache_path, retries, num_retries, timeout
        self.concurrency, self.max_tokens, self.api_base = concurrency, max_tokens, api_base
        self.agg, self.zeta = agg, zeta
        if retries < 0:  # the loop of asks must run at least once: a run with no ask would have no error to report
            raise ValueError(f"retries must be at least 0, got {retries!r}")
        if not 0.0 <= max_off_format <= 1.0:
            raise ValueError(f"max_off_format must lie in [0, 1], got {max_off_format!r}")
        self.max_off_format = max_off_format
        self.judged = self.off_format = 0
        self._example = ""
        self._lock = threading.Lock()

    def request(self, item: PRMInput, attempt: int = 0) -> dict[str, Any]:
        """The litellm request for one candidate (no key: safe to hash and log)."""
        from finchain_tasks.models.registry import litellm_kwargs

        request = litellm_kwargs(self.spec, temperature=0.0)
        request["max_tokens"] = self.max_tokens
        if self.api_base:
            request["api_base"] = self.api_base
        request["messages"] = judge_messages(item)
        if attempt:
            request["metadata"] = {"finchain_judge_attempt": attempt}
        return request

    def _ask(self, request: dict[str, Any]) -> str:
        import litellm

        from finchain_tasks.models.registry import api_key

        litellm.suppress_debug_info = True
        key = api_key(self.spec)
        response = litellm.completion(**request, num_retries=self.num_retries, timeout=self.timeout,
                                      **({"api_key": key} if key else {}))
        return response.choices[0].message.content or ""

    def _judge(self, item: PRMInput) -> PRMScore:
        if not item.steps:
            return make_score([], None, agg=self.agg, zeta=self.zeta, prm=self.name)
        cache = self._cache()
        key = _key(self.request(item)) if cache is not None else ""
        cached = cache.get(key) if cache is not None else None
        if cached is not None:
            probs, traj = parse_verdicts(cached, len(item.steps))  # only valid answers are ever stored
            return make_score(probs, traj, agg=self.agg, zeta=self.zeta, prm=self.name, extra={"cache": "hit"})
        error, off_format = "", False
        for attempt in range(self.retries + 1):
            request = self.request(item, attempt)
            try:
                text = self._ask(request)
                probs, traj = parse_verdicts(text, len(item.steps))
            except JudgeError as exc:
                error, off_format = str(exc), True
                continue
            except Exception as exc:  # an API failure after litellm's own retries: no verdict, run goes on
                error, off_format = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}", False
                break
            if cache is not None:
                cache.put(key, self.model, self.request(item), text)
            return make_score(probs, traj, agg=self.agg, zeta=self.zeta, prm=self.name, extra={"attempts": attempt + 1})
        extra = {"judge_error": error, **({"judge_off_format": True} if off_format else {})}
        return make_score([None] * len(item.steps), None, agg=self.agg, zeta=self.zeta, prm=self.name, extra=extra)

    def _cache(self):
        if not self.cache_path:
            return None
        from finchain_tasks.runs.cache import open_cache

        return open_cache(str(self.cache_path))

    def score_batch(self, items: Sequence[PRMInput]) -> list[PRMScore]:
        """Candidates judged concurrently (``concurrency`` threads), results in input order; the off-format share
        so far is reported, and held against ``max_off_format`` (:class:`JudgeOffFormat`). Work one thread can do
        is done in the caller's thread: Ctrl-C then stops at once, where a pool's exit would wait for the request in
        flight."""
        if len(items) <= 1 or self.concurrency <= 1:
            scores = [self._judge(i) for i in items]
        else:
            with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
                scores = list(pool.map(self._judge, items))
        self._account(items, scores)
        return scores

    def _account(self, items: Sequence[PRMInput], scores: Sequence[PRMScore]) -> None:
        off = [s for s in scores if s.extra.get("judge_off_format")]
        with self._lock:
            self.judged += sum(1 for i in items if i.steps)
            self.off_format += len(off)
            self._example = self._example or (off[0].extra["judge_error"] if off else "")
            judged, count = self.judged, self.off_format
        if not off:
            return
        line = (f"{self.name}: {count} of {judged} candidates judged off-format so far ({count / judged:.0%}; "
                f"limit {self.max_off_format:.0%}), e.g. {self._example}")
        print(line, file=sys.stderr)
        if judged >= MIN_JUDGED and count / judged > self.max_off_format:
            raise JudgeOffFormat(f"{line}: the judge does not follow the verdict format (one 'Step k: GOOD|BAD' "
                                 "line per step and a 'Trajectory:' line); use a model that does")


def _key(request: dict[str, Any]) -> str:
    from finchain_tasks.runs.cache import request_key

    return request_key({**request, "finchain_prm": "judge"}, version="prm-judge-1")
