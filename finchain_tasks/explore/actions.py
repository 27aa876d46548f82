"""What each of the explorer's buttons does, as plain functions of plain values (no Gradio): the app wires
them to widgets, the tests call them directly. Every expected failure comes back as a notice for the page."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from finchain_tasks.explore import problems, views
from finchain_tasks.explore.ask import AskError, ask, local_model_name
from finchain_tasks.explore.verdict import score_output

EXPECTED = (ValueError, AskError, OSError)


def params_of(text: str | None) -> dict[str, Any]:
    """ChainEval overrides typed as ``name=value`` pairs (comma- or line-separated), read as
    ``finchain score --param`` reads them; blank means the profile's own values."""
    from finchain_tasks.runs.score_file import param_overrides

    pairs = [p.strip() for p in (text or "").replace("\n", ",").split(",") if p.strip()]
    return param_overrides(pairs)


def base_url_of(request: Any) -> str:
    host = (getattr(request, "headers", None) or {}).get("host", "127.0.0.1")
    return f"http://{host}"


def show_problem(template_id: str, seed: Any) -> tuple[str, str, str]:
    """(problem HTML, template source, problem id) or a notice."""
    if not template_id:
        return views.message("choose a domain, a topic and a template first", "info"), "", ""
    try:
        problem = problems.load(template_id, problems.check_seed(seed))
    except EXPECTED as exc:
        return views.message(str(exc)), "", ""
    from finchain_tasks.finchain.versioning import task_version

    return views.problem_html(problem, task_version()), problems.source_of(template_id), problem.id


def verdict_views(problem_id: str, output: str, profile: str, prm: str, params: dict | str,
                  base_url: str = "", model: str = "") -> tuple[str, str, str]:
    """(verdict HTML, heat-map HTML, permalink) for one output, or a notice and blanks."""
    try:
        template_id, seed = problems.parse_problem_id(problem_id or "")
        overrides = params_of(params) if isinstance(params, str) else dict(params)
        verdict = score_output(problems.load(template_id, seed), output, profile, prm=(prm or "").strip(),
                               **overrides)
    except EXPECTED as exc:
        return views.message(str(exc)), "", ""
    case = problems.Case(template_id, seed, model, profile, params if isinstance(params, str) else
                         ", ".join(f"{k}={v}" for k, v in params.items()), (prm or "").strip(), output)
    link = problems.permalink(base_url, case) if base_url else ""
    return views.verdict_html(verdict), views.heatmap_html(verdict), link


def stream_answer(model: str, problem_id: str) -> Iterator[tuple[str, str]]:
    """(output so far, status line) while ``model`` answers the problem."""
    try:
        template_id, seed = problems.parse_problem_id(problem_id or "")
        question = problems.load(template_id, seed).question
        answer = None
        for answer in ask(model or local_model_name(), question):
            yield answer.text, answer.status(model)
        if answer is None:
            yield "", f"{model}: the model sent no text"
    except EXPECTED as exc:
        yield "", f"error: {exc}"


def compare(problem_id: str, outputs: Sequence[str], labels: Sequence[str], profile: str) -> str:
    try:
        template_id, seed = problems.parse_problem_id(problem_id or "")
        problem = problems.load(template_id, seed)
        pairs = [(label or f"answer {k + 1}", score_output(problem, text, profile))
                 for k, (label, text) in enumerate(zip(labels, outputs)) if text and text.strip()]
    except EXPECTED as exc:
        return views.message(str(exc))
    if len(pairs) < 2:
        return views.message("paste or ask for at least two answers to compare", "info")
    return views.compare_html(pairs)


def warm_up() -> None:
    """Load the embedder and compile the kernel once, so the first paste answers as fast as the rest."""
    template_id = problems.template_ids()[0]
    problem = problems.load(template_id, 0)
    score_output(problem, problem.solution, "paper")
