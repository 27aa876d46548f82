"""The rules of TEMPLATES.md section 6 that need many draws of one template.

:func:`survey` draws a template over ``seeds`` seeds, runs the per-problem rules of
:mod:`finchain_tasks.engine.verify` on each draw, and measures what no single problem can show:

* vacuous steps: a step whose value equals a parameter, a value its formula reads, or the previous
  step's value, in more than 10% of draws (a "÷ 1" or "× 1" that only some draws need);
* balance: a categorical answer that is the same option in more than 60% of draws (options are
  told apart by the branch of the deciding conditional, so "Project A" and "Project Alpha" in
  first place count as one option);
* variety: fewer than 95% distinct problems in max(seeds, 1,000) draws, where problems that differ
  only in names or wording (a person, a company, ``b.pick`` phrasing) count once;
* near zero: |answer| above the declared floor in every draw (checked per problem); a template that
  declares no floor must not ask for a small difference of close numbers: its answer's sensitivity
  to any input (:func:`sensitivity`) stays at or below 50 in every draw;
* depth (across templates): :func:`depth_failures`, an advanced template is at least as deep as the median
  intermediate template of its domain;
* same question (across templates): :func:`same_question_failures` compares the first questions of
  every surveyed template (:func:`~finchain_tasks.engine.realism.same_questions`);
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

from finchain_tasks.engine.builder import TemplateError
from finchain_tasks.engine.formula import FormulaError, evaluate_safely, names_in, parse_formula
from finchain_tasks.engine.problem import Problem
from finchain_tasks.engine.realism import same_questions
from finchain_tasks.engine.registry import Template
from finchain_tasks.engine.verify import verify

VACUOUS_LIMIT = 0.10
BALANCE_LIMIT = 0.60
VARIETY_MIN = 0.95
VARIETY_DRAWS = 1_000
SENSITIVITY_LIMIT = 50.0
"""Without a declared floor, a 1% change in any input may move the answer by at most 50%."""
QUESTION_SEEDS = 3
"""Questions per template compared across templates (rule "same question")."""
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
    sensitivity: float | None = None
    floor: float = 0.0
    redraw_rate: float = 0.0
    questions: list[str] = field(default_factory=list)
    """The first few questions drawn, for the cross-template rule "same question" (:func:`same_question_failures`)."""
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def survey(tpl: Template, seeds: int, advance: Callable[[int], None] | None = None) -> Figures:
    """Every rule for ``tpl`` over seeds 0..seeds-1 (variety and balance over max(seeds, 1,000) seeds)."""
    figures = Figures(tpl.id, tpl.level, seeds, floor=tpl.floor)
    total = max(seeds, VARIETY_DRAWS)
    problems: list[Problem] = []
    rejected = 0
    for seed in range(total):
        try:
            problem, why = tpl.draw(seed)
        except (TemplateError, FormulaError, ArithmeticError, ValueError, TypeError, KeyError) as exc:
            _fail(figures, seed, "generation", f"the template raised {type(exc).__name__}: {exc}")
            if advance is not None:
                advance(total - seed)
            break
        rejected += len(why)
        problems.append(problem)
        if seed < seeds:
            figures.failures += verify(problem, regenerate=tpl).failures
        if advance is not None:
            advance(1)
    figures.redraw_rate = rejected / (rejected + len(problems)) if problems else 0.0
    figures.questions = [p.question for p in problems[:QUESTION_SEEDS]]
    checked = problems[:seeds]
    if not problems:
        return figures
    _variety(figures, problems)
    _balance(figures, problems)  # every draw: an option share from 40 draws is mostly noise
    if checked:
        _vacuous(figures, checked)
        _near_zero(figures, checked)
    return figures


def _fail(figures: Figures, seed: int, rule: str, detail: str) -> None:
    figures.failures.append(f"{figures.template_id}, seed {seed}, rule {rule}: {detail}")


def _variety(figures: Figures, problems: Sequence[Problem]) -> None:
    """Distinct problems by what must be computed: names and wording alone do not make a new problem."""
    figures.variety_draws = len(problems)
    first: dict[tuple, int] = {}
    keys = [_content(p) for p in problems]
    for key, p in zip(keys, problems):
        first.setdefault(key, p.seed)
    figures.distinct = len(first) / len(problems)
    if figures.distinct < VARIETY_MIN:
        key, count = Counter(keys).most_common(1)[0]
        _fail(figures, first[key], "variety",
              f"{len(first)} distinct problems in {len(problems)} draws ({figures.distinct:.1%} < {VARIETY_MIN:.0%}; "
              f"problems differing only in names or wording count once); the numbers of seed {first[key]} "
              f"recur {count} times")


def _content(problem: Problem) -> tuple:
    """The numbers a problem asks about (and any text parameter a formula reads), plus its answer."""
    read = set().union(*(names_in(s.formula) for s in problem.steps))
    return (tuple((k, v) for k, v in problem.params.items() if _number(v) or k in read), repr(problem.answer))


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


def _vacuous_in(problem: Problem, k: int) -> str | None:
    """What step ``k`` merely repeats in this draw (a parameter, an input, the previous step), or None."""
    step = problem.steps[k]
    if not _number(step.value):
        return None
    exempt = _candidates(step.formula)
    namespace = {**problem.params, **{s.name: s.value for s in problem.steps[:k]}}
    compared = [(n, problem.params[n]) for n in problem.params if n not in exempt]
    compared += [(n, namespace[n]) for n in sorted(names_in(step.formula)) if n in namespace and n not in exempt]
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
    """Share of the commonest answer option, by its place in the deciding formula, not by its label.

    Templates vary labels ("Project A"/"Project Alpha"), so the same option can wear many names; the
    branch of the last step's conditional that produced the answer names the option ("option 1 of 3"
    is the first branch written). Answers not chosen by a conditional are compared as text.
    """
    answers = [p.answer for p in problems]
    if not all(isinstance(a, (str, bool)) for a in answers):
        return
    keys = [_option(p) for p in problems]
    counts = Counter(keys)
    figures.options = {k: v / len(answers) for k, v in counts.most_common()}
    option, share = next(iter(figures.options.items()))
    if share > BALANCE_LIMIT:
        example = next(p for p, k in zip(problems, keys) if k == option)
        _fail(figures, example.seed, "balance", f"{option} is the answer in {share:.1%} of {len(answers)} draws "
                                                f"(limit {BALANCE_LIMIT:.0%}), e.g. {example.answer_text!r}")


def _option(problem: Problem) -> str:
    """Which option the answer is: "option k of n" of the last step's conditional, else the answer text."""
    step = problem.steps[-1]
    body = parse_formula(step.formula).body
    if not isinstance(body, ast.IfExp):
        return repr(str(problem.answer))
    namespace = {**problem.params, **{s.name: s.value for s in problem.steps}}
    leaves: list[ast.AST] = []
    _leaves(body, leaves)
    node: ast.AST = body
    while isinstance(node, ast.IfExp):
        node = node.body if evaluate_safely(ast.unparse(node.test), namespace) else node.orelse
    return f"option {next(k for k, leaf in enumerate(leaves, 1) if leaf is node)} of {len(leaves)}"


def _leaves(node: ast.AST, out: list[ast.AST]) -> None:
    if isinstance(node, ast.IfExp):
        _leaves(node.body, out)
        _leaves(node.orelse, out)
    else:
        out.append(node)


def _near_zero(figures: Figures, problems: Sequence[Problem]) -> None:
    """Smallest |answer| and largest sensitivity; without a declared floor, sensitivity is the rule."""
    sized = [(abs(p.answer), p) for p in problems if _number(p.answer)]
    if not sized:
        return
    figures.min_answer = min(size for size, _ in sized)
    figures.median_answer = statistics.median(size for size, _ in sized)
    worst: tuple[float, str, Problem] | None = None
    for _, problem in sized:
        found = sensitivity(problem)
        if found is not None and (worst is None or found[0] > worst[0]):
            worst = (*found, problem)
    if worst is None:
        return
    figures.sensitivity = worst[0]
    kappa, name, problem = worst
    if figures.floor == 0 and kappa > SENSITIVITY_LIMIT:
        _fail(figures, problem.seed, "near zero",
              f"the answer {problem.answer_text} is a small difference of close numbers: a 1% change in {name!r} "
              f"moves it by {kappa:.0f}% (sensitivity {kappa:.0f} > {SENSITIVITY_LIMIT:g}) and the template "
              "declares no floor: redraw with b.require, or declare @template(..., floor=...)")


def sensitivity(problem: Problem, h: float = 1e-4) -> tuple[float, str] | None:
    """(largest |d ln answer / d ln parameter|, that parameter), or None when it cannot be measured.

    Each numeric parameter is nudged by ±0.01% and the steps are re-evaluated (walked, not executed).
    Of the two one-sided estimates the smaller is kept, so a ceiling that happens to jump under a
    nudge does not count. A relative tolerance means nothing for an answer with a large sensitivity:
    it is a small difference of close numbers, and a 1% slip in an input changes it by far more.
    """
    answer = problem.answer
    if not _number(answer) or answer == 0:
        return None
    worst: tuple[float, str] | None = None
    for name, value in problem.params.items():
        if not _number(value) or value == 0:
            continue
        estimates = []
        for sign in (1, -1):
            nudged = {**problem.params, name: value * (1 + sign * h)}
            try:
                moved = _replay(problem, nudged)
            except (FormulaError, ArithmeticError, ValueError, TypeError):
                continue
            if _number(moved):
                estimates.append(abs((moved - answer) / answer) / h)
        if estimates and (worst is None or min(estimates) > worst[0]):
            worst = (min(estimates), name)
    return worst


def _replay(problem: Problem, params: dict[str, Any]) -> Any:
    values = dict(params)
    for step in problem.steps:
        values[step.name] = evaluate_safely(step.formula, values)
    return values[problem.steps[-1].name]


def same_question_failures(surveys: Sequence[Figures]) -> list[str]:
    """Rule "same question" across the surveyed templates: no two ask nearly the same question."""
    return same_questions({f.template_id: f.questions for f in surveys if f.questions})


# -- advanced means deeper ------------------------------------------------------------------------------
UNIT_SCALES = frozenset({12, 100, 1_000, 1_000_000, 10_000})
"""Multiplying or dividing one value by these only changes its unit (percent, months, millions): no finance."""


def substantive(step: Any) -> bool:
    """Whether a step computes something: a numeric value from at least one operation that is not a rounding or
    a unit change. Label steps (text, yes/no) and restating steps ("x", "x * 100", "round(x, 2)") do not count."""
    if isinstance(step.value, (bool, str)):
        return False
    try:
        body = parse_formula(step.formula).body
    except FormulaError:
        return False
    while isinstance(body, ast.Call) and getattr(body.func, "id", "") == "round" and body.args:
        body = body.args[0]
    if isinstance(body, (ast.Name, ast.Constant)):
        return False
    if (isinstance(body, ast.BinOp) and isinstance(body.op, (ast.Mult, ast.Div))
            and isinstance(body.right, ast.Constant) and body.right.value in UNIT_SCALES
            and isinstance(body.left, ast.Name)):
        return False
    return True


def depth(problem: Problem) -> int:
    """Computed steps of substance in a problem (:func:`substantive`)."""
    return sum(substantive(step) for step in problem.steps)


def depth_failures(templates: Sequence[Template], population: Sequence[Template] | None = None) -> list[str]:
    """Rule "depth": an advanced template has at least as many computed steps of substance as the median
    intermediate template of its domain (TEMPLATES.md section 1: advanced combines several concepts, so it is
    never shallower than what the domain calls intermediate). ``population`` (default: every registered
    template) gives the medians, so verifying one template still compares it with its whole domain."""
    from finchain_tasks.engine.registry import all_templates

    population = list(all_templates().values()) if population is None else list(population)
    by_domain: dict[str, list[int]] = {}
    for tpl in population:
        if tpl.level == "intermediate":
            by_domain.setdefault(tpl.domain, []).append(depth(tpl.generate(0)))
    lines = []
    for tpl in templates:
        if tpl.level != "advanced" or tpl.domain not in by_domain:
            continue
        mine, median = depth(tpl.generate(0)), statistics.median(by_domain[tpl.domain])
        if mine < median:
            lines.append(f"{tpl.id}, seed 0, rule depth: an advanced template with {mine} computed steps of "
                         f"substance, fewer than the median intermediate template of {tpl.domain} ({median:g}); "
                         "add a real further step of the finance, or move it to intermediate")
    return lines


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
    try:
        out[tpl.id] = rows_hash(tpl, range(seeds))
    except Exception as exc:  # reported by the in-process rules; here it only means "no hash"
        out[tpl.id] = "error: " + type(exc).__name__
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
        try:
            mine = rows_hash(tpl, range(seeds))
        except Exception:  # noqa: BLE001 - a template that cannot generate fails rule "generation" instead
            continue
        if theirs.get(tpl.id) != mine:
            lines.append(f"{tpl.id}, seed 0-{seeds - 1}, rule determinism: rows differ when generated in a "
                         "fresh process (another PYTHONHASHSEED): the template depends on hash order, "
                         "the clock or global random state")
    return lines
