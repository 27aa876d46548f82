"""The rules of TEMPLATES.md section 6 that need many draws of one template.

:func:`survey` draws a template over ``seeds`` seeds, runs the per-problem rules of
:mod:`finchain_tasks.engine.verify` on each draw, and measures what no single problem can show:

* vacuous steps: a step whose value equals a parameter, a value its formula reads, or the previous
  step's value, in more than 10% of draws (a "÷ 1" or "× 1" that only some draws need);
* balance: a categorical answer that is the same option in more than 60% of draws;
* variety: fewer than 95% distinct questions in max(seeds, 1,000) draws;
* near zero: the smallest |answer| against the declared floor; a template that declares no floor
  must keep its answers above 1% of their median magnitude;
* determinism in a fresh process: :func:`fresh_process_hashes` regenerates the same rows in a
  new interpreter with a different hash seed, and the hashes must agree.

The figures behind each rule are kept (:class:`Figures`), so ``finchain verify --report`` can show
how close a template sits to a limit, not only whether it crossed it.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import os
import statistics
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from finchain_tasks.engine.formula import parse_formula
from finchain_tasks.engine.problem import Problem
from finchain_tasks.engine.registry import Template
from finchain_tasks.engine.verify import verify

VACUOUS_LIMIT = 0.10
BALANCE_LIMIT = 0.60
VARIETY_MIN = 0.95
VARIETY_DRAWS = 1_000
UNDECLARED_FLOOR_SHARE = 0.01
"""Without a declared floor, |answer| must stay above this share of its median magnitude."""
FRESH_SEEDS = 20
"""Seeds per template regenerated in a fresh process (rule "determinism")."""


@dataclass
class Figures:
    """What one template's draws showed, rule by rule, and the failures they imply."""

    template_id: str
    level: str
    seeds: int
    variety_draws: int = 0
    step_names: list[str] = field(default_factory=list)
    vacuous: list[float] = field(default_factory=list)
    options: dict[str, float] = field(default_factory=dict)
    distinct: float = 1.0
    min_answer: float | None = None
    median_answer: float | None = None
    floor: float = 0.0
    redraw_rate: float = 0.0
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def survey(tpl: Template, seeds: int, advance: Callable[[int], None] | None = None) -> Figures:
    """Every rule for ``tpl`` over seeds 0..seeds-1 (variety over max(seeds, 1,000) seeds)."""
    figures = Figures(tpl.id, tpl.level, seeds, floor=tpl.floor)
    total = max(seeds, VARIETY_DRAWS)
    problems: list[Problem] = []
    rejected = 0
    for seed in range(total):
        problem, why = tpl.draw(seed)
        rejected += len(why)
        problems.append(problem)
        if seed < seeds:
            figures.failures += verify(problem, regenerate=tpl).failures
        if advance is not None:
            advance(1)
    figures.redraw_rate = rejected / (rejected + total)
    checked = problems[:seeds]
    _variety(figures, problems)
    if checked:
        _vacuous(figures, checked)
        _balance(figures, checked)
        _near_zero(figures, checked)
    return figures


def _fail(figures: Figures, seed: int, rule: str, detail: str) -> None:
    figures.failures.append(f"{figures.template_id}, seed {seed}, rule {rule}: {detail}")


def _variety(figures: Figures, problems: Sequence[Problem]) -> None:
    figures.variety_draws = len(problems)
    first: dict[str, int] = {}
    for p in problems:
        first.setdefault(p.question, p.seed)
    figures.distinct = len(first) / len(problems)
    if figures.distinct < VARIETY_MIN:
        repeated = Counter(p.question for p in problems).most_common(1)[0]
        _fail(figures, first[repeated[0]], "variety",
              f"{len(first)} distinct questions in {len(problems)} draws ({figures.distinct:.1%} < "
              f"{VARIETY_MIN:.0%}); the question of seed {first[repeated[0]]} recurs {repeated[1]} times")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _candidates(formula: str) -> set[str]:
    """Names a selection step (max/min/conditional at the top) may legitimately equal: its choices."""
    body = parse_formula(formula).body
    return set() if isinstance(body, ast.Name) else _choices(body)


def _choices(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("max", "min"):
        return set().union(*(_choices(a) for a in node.args))
    if isinstance(node, ast.IfExp):
        return _choices(node.body) | _choices(node.orelse)
    return set()


def _reads(formula: str) -> set[str]:
    tree = parse_formula(formula)
    called = {n.func for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n not in called}


def _vacuous_in(problem: Problem, k: int) -> str | None:
    """What step ``k`` merely repeats in this draw (a parameter, an input, the previous step), or None."""
    step = problem.steps[k]
    if not _number(step.value):
        return None
    exempt = _candidates(step.formula)
    namespace = {**problem.params, **{s.name: s.value for s in problem.steps[:k]}}
    compared = [(n, problem.params[n]) for n in problem.params if n not in exempt]
    compared += [(n, namespace[n]) for n in sorted(_reads(step.formula)) if n in namespace and n not in exempt]
    if k:
        previous = problem.steps[k - 1]
        compared.append((f"step {k} ({previous.name})", previous.value))
    for name, value in compared:
        if _number(value) and math.isclose(step.value, value, rel_tol=1e-9, abs_tol=1e-12):
            return name
    return None


def _vacuous(figures: Figures, problems: Sequence[Problem]) -> None:
    figures.step_names = [s.name for s in problems[0].steps]
    rates: list[float] = []
    for k, name in enumerate(figures.step_names):
        hits = [(p, what) for p in problems if len(p.steps) > k and (what := _vacuous_in(p, k))]
        rate = len(hits) / len(problems)
        rates.append(rate)
        if rate > VACUOUS_LIMIT:
            problem, what = hits[0]
            shown = problem.gold_steps()[k].text
            _fail(figures, problem.seed, "vacuous steps",
                  f"step {k + 1} ({name}) equals {what} in {rate:.1%} of {len(problems)} draws "
                  f"(limit {VACUOUS_LIMIT:.0%}), e.g. {shown!r}")
    figures.vacuous = rates


def _balance(figures: Figures, problems: Sequence[Problem]) -> None:
    answers = [p.answer for p in problems]
    if not all(isinstance(a, (str, bool)) for a in answers):
        return
    counts = Counter(str(a) for a in answers)
    figures.options = {k: v / len(answers) for k, v in counts.most_common()}
    option, share = next(iter(figures.options.items()))
    if share > BALANCE_LIMIT:
        seed = next(p.seed for p in problems if str(p.answer) == option)
        _fail(figures, seed, "balance", f"the answer is {option!r} in {share:.1%} of {len(answers)} draws "
                                        f"(limit {BALANCE_LIMIT:.0%})")


def _near_zero(figures: Figures, problems: Sequence[Problem]) -> None:
    sized = [(abs(p.answer), p) for p in problems if _number(p.answer)]
    if not sized:
        return
    smallest, problem = min(sized, key=lambda item: item[0])
    figures.min_answer = smallest
    figures.median_answer = statistics.median(size for size, _ in sized)
    if figures.floor == 0 and smallest <= UNDECLARED_FLOOR_SHARE * figures.median_answer:
        _fail(figures, problem.seed, "near zero",
              f"|answer| = {smallest:.6g} ({problem.answer_text}) is within {UNDECLARED_FLOOR_SHARE:.0%} of the "
              f"median |answer| {figures.median_answer:.6g} and the template declares no floor: redraw with "
              "b.require or declare @template(..., floor=...)")


# -- determinism in a fresh process ---------------------------------------------------------------
def rows_hash(tpl: Template, seeds: Iterable[int]) -> str:
    """A hash of the rows ``tpl`` generates for ``seeds`` (every field a consumer sees)."""
    h = hashlib.sha256()
    for seed in seeds:
        h.update(json.dumps(tpl.generate(seed).to_dict(), sort_keys=True, default=str).encode())
    return h.hexdigest()


def _spec(tpl: Template) -> dict[str, Any]:
    return {"module": tpl.fn.__module__, "qualname": tpl.fn.__qualname__, "domain": tpl.domain,
            "topic": tpl.topic, "name": tpl.name, "level": tpl.level, "key": tpl.key, "floor": tpl.floor}


_CHILD = """
import importlib, json, sys
from finchain_tasks.engine.registry import Template
from finchain_tasks.engine.standard import rows_hash
specs, seeds = json.loads(sys.stdin.read())
out = {}
for s in specs:
    fn = importlib.import_module(s["module"])
    for part in s["qualname"].split("."):
        fn = getattr(fn, part)
    tpl = Template(s["domain"], s["topic"], s["name"], s["level"], fn, s["key"], s["floor"])
    out[tpl.id] = rows_hash(tpl, range(seeds))
print(json.dumps(out))
"""


def fresh_process_hashes(
    templates: Sequence[Template], seeds: int = FRESH_SEEDS, timeout: float = 600,
) -> dict[str, str]:
    """Hashes of the same rows generated in a new interpreter with another ``PYTHONHASHSEED``.

    A template that depends on set or dict-of-hash order, on the clock or on global random state
    gives a different hash there. Only templates defined at module level can be rebuilt this way.
    """
    env = {**os.environ, "PYTHONHASHSEED": str(int(os.environ.get("PYTHONHASHSEED", "0") or 0) + 7919),
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    payload = json.dumps([[_spec(t) for t in templates], seeds])
    done = subprocess.run([sys.executable, "-c", _CHILD], input=payload, capture_output=True, text=True,
                          env=env, timeout=timeout, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"fresh-process determinism check could not run: {last}")
    return json.loads(done.stdout)


def check_fresh_process(templates: Sequence[Template], seeds: int = FRESH_SEEDS) -> list[str]:
    """Rule "determinism", second half: one failure line per template whose rows differ in a new process."""
    theirs = fresh_process_hashes(templates, seeds)
    lines = []
    for tpl in templates:
        if theirs.get(tpl.id) != rows_hash(tpl, range(seeds)):
            lines.append(f"{tpl.id}, seed 0-{seeds - 1}, rule determinism: rows differ when generated in a "
                         "fresh process (another PYTHONHASHSEED): the template depends on hash order, "
                         "the clock or global random state")
    return lines
