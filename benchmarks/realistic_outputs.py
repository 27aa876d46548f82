"""Model-like outputs for the ChainEval benchmarks: the paper's matrix of models × problems, generated offline.

Each of ``models`` pretend models has its own habits, drawn once from its index: how often a value is wrong (and
whether the error carries into later steps), how it marks steps (``Step 1:``, ``1.``, ``**Step 1**``, bullets),
how it words a step (the gold line as is, the gold line with filler, a sentence around the expression), how much
commentary and preamble it writes, and how it states the final answer. The same model writes the same step the same
way in every problem, so, as in real runs, a few texts repeat (the gold steps across models, boilerplate lines)
and most are new. Rows are what ``finchain score`` reads: the problem's record plus ``output`` and ``model``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

MARKERS = ("Step {j}: ", "{j}. ", "**Step {j}:** ", "- ", "### Step {j}\n")
FILLER = ("First, ", "Next, ", "Then ", "Now ", "So ", "We compute ", "Let's calculate ", "Therefore ")
PREAMBLES = ("", "Let's solve this step by step.\n", "To answer this, we work through the figures.\n",
             "We need to compute the following.\n")
ANSWERS = ("Final answer: {a}", "The answer is: {a}", "**Final Answer:** {a}", "Therefore, the answer is {a}.",
           "#### {a}")


@dataclass(frozen=True)
class Habits:
    error_rate: float
    carries: bool
    marker: str
    wording: int
    commentary: float
    preamble: str
    answer: str


def habits(model: int) -> Habits:
    rng = random.Random(f"model-{model}")
    return Habits(error_rate=rng.uniform(0.03, 0.45), carries=rng.random() < 0.5, marker=rng.choice(MARKERS),
                  wording=rng.randrange(3), commentary=rng.uniform(0.0, 0.3), preamble=rng.choice(PREAMBLES),
                  answer=rng.choice(ANSWERS))


def _expression(text: str) -> str:
    body = text.split(":", 1)[1] if ":" in text else text
    return body.rsplit("=", 1)[0].strip() if "=" in body else ""


def _value_text(value, wrong: bool, rng: random.Random) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value) if not wrong else "No" if value is True else "Yes" if value is False else f"not {value}"
    if wrong:
        value = value * rng.choice((1.3, 0.7, 10.0, 0.5, 1.12))
    return f"${value:,.2f}" if rng.random() < 0.5 else f"{value:.2f}"


def write_output(problem, model: int) -> str:
    """One model's answer to one problem (deterministic in both)."""
    h = habits(model)
    rng = random.Random(f"{model}-{problem.id}")
    lines, broken = [h.preamble.rstrip("\n")] if h.preamble else [], False
    for j, step in enumerate(problem.gold_steps(), 1):
        wrong = broken or rng.random() < h.error_rate
        broken = broken or (wrong and h.carries)
        value = _value_text(step.value, wrong, rng)
        marker = h.marker.format(j=j)
        if h.wording == 0:
            body = f"{step.description}: {_expression(step.text)} = {value}" if _expression(step.text) \
                else f"{step.description}: {value}"
        elif h.wording == 1:
            body = f"{rng.choice(FILLER)}{step.description.lower()} = {value}"
        else:
            expr = _expression(step.text)
            body = f"The {step.description.lower()} is {expr + ' = ' if expr else ''}{value}."
        lines.append(marker + body)
        if rng.random() < h.commentary:
            lines.append(f"This uses the figure from step {max(1, j - 1)} and keeps {rng.randint(2, 4)} decimals.")
    answer = problem.answer_text if not broken else _value_text(problem.answer, True, rng)
    lines.append(h.answer.format(a=answer))
    return "\n".join(lines)


def problems(per_template: int) -> list:
    """``per_template`` problems of every template (seeds 0..per_template-1): 290 templates, so 10 gives 2,900."""
    from finchain_tasks.engine import all_templates

    templates = list(all_templates().values())
    return [t.generate(seed) for seed in range(per_template) for t in templates]


def matrix_rows(models: int, per_template: int) -> Iterator[dict]:
    """Every model's output to every problem, as ``finchain score`` rows (problem-major: a problem's 26 answers
    together, as a run directory's files are not, which makes no difference to the scorer's cache)."""
    for problem in problems(per_template):
        record = problem.to_dict()
        for model in range(models):
            yield {**record, "model": f"model-{model:02d}", "output": write_output(problem, model)}
