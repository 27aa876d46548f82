"""The Gradio app: widgets wired to the plain functions of :mod:`finchain_tasks.explore`.

Each callback turns a bad input or a failed model call into a one-line notice in the page (the app stays
up); model text reaches the page only through :mod:`.views`, which escapes it."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import gradio as gr

from finchain_tasks.engine import all_templates
from finchain_tasks.explore import problems, run_samples, views
from finchain_tasks.explore.actions import (
    base_url_of,
    compare,
    show_problem,
    stream_answer,
    verdict_views,
    warm_up,
)
from finchain_tasks.explore.ask import local_model_name

LEVELS = ("", "easy", "intermediate", "advanced")
PROFILES = ("paper", "reference")
FIRST_ERROR = {"any": None, "none": 0, "1": 1, "2": 2, "3": 3, "4 or later": 4}


def build_app(runs: Sequence[str] = (), warm: bool = True) -> gr.Blocks:
    """The Blocks app; ``runs`` pre-fills the Runs tab; ``warm`` loads the scorer in the background."""
    if warm:
        threading.Thread(target=warm_up, daemon=True).start()
    catalogue = problems.catalogue()
    models, default = _registry_names(), local_model_name()
    with gr.Blocks(title="FinChain explorer", analytics_enabled=False) as demo:
        gr.Markdown("## FinChain explorer: a problem, a model's reasoning and ChainEval's verdict side by side")
        pick = _picker(catalogue)
        with gr.Tabs() as tabs:
            prob = _problem_tab()
            ver = _verdict_tab(models, default)
            cmp_ = _compare_tab(models, default)
            run = _runs_tab(runs, sorted(catalogue))
        _wire_picker(catalogue, pick, prob, tabs)
        _wire_verdict(pick, ver)
        _wire_compare(pick, ver, cmp_)
        _wire_runs(pick, prob, ver, run, tabs)
        demo.load(_on_page_load, None, [prob.view, prob.source, pick.problem_id, *_pickers(pick), ver.profile,
                                         ver.model, *_reopened(ver), tabs])
    return demo


def _picker(catalogue: dict) -> SimpleNamespace:
    domains = sorted(catalogue)
    topics = sorted(catalogue[domains[0]])
    templates = _template_choices(domains[0], topics[0], "")
    w = SimpleNamespace()
    with gr.Row():
        w.domain = gr.Dropdown(domains, value=domains[0], label="Domain", elem_id="fx-domain")
        w.topic = gr.Dropdown(topics, value=topics[0], label="Topic", elem_id="fx-topic")
        w.level = gr.Dropdown(list(LEVELS), value="", label="Level (any)", elem_id="fx-level")
        w.template = gr.Dropdown(templates, value=templates[0][1], label="Template", elem_id="fx-template")
        w.seed = gr.Number(0, precision=0, label="Seed", elem_id="fx-seed", minimum=0)
    with gr.Row():
        w.fresh = gr.Button("Fresh seed", elem_id="fx-fresh")
        w.show = gr.Button("Show problem", variant="primary", elem_id="fx-show")
        w.problem_id = gr.Textbox(label="Problem id (paste one from a leaderboard sample)", elem_id="fx-problem-id")
        w.open = gr.Button("Open id", elem_id="fx-open")
    return w


def _template_choices(domain: str, topic: str, level: str) -> list[tuple[str, str]]:
    """(label, template id) for the dropdown: the template's name and level, under one domain and topic."""
    ids = problems.template_ids(domain or "", topic or "", level or "") if topic else []
    return [(f"{i.rsplit('/', 1)[-1]} ({all_templates()[i].level})", i) for i in ids]


def _problem_tab() -> SimpleNamespace:
    w = SimpleNamespace()
    with gr.Tab("Problem", id="problem"):
        w.view = gr.HTML(elem_id="fx-problem-view")
        with gr.Accordion("Template source", open=False):
            w.source = gr.Code(language="python", elem_id="fx-source")
    return w


def _verdict_tab(models: list[str], default: str) -> SimpleNamespace:
    w = SimpleNamespace()
    with gr.Tab("Answer and verdict", id="verdict"):
        with gr.Row():
            w.profile = gr.Dropdown(list(PROFILES), value="paper", label="ChainEval profile", elem_id="fx-profile")
            w.params = gr.Textbox("", label="Parameters (name=value, e.g. step_tol=0.1; blank: the profile's)",
                                  elem_id="fx-params")
            w.prm = gr.Textbox("calc", label="PRM spec for step verdicts", elem_id="fx-prm")
        w.output = gr.Textbox(lines=10, label="Model output (pasted, or asked below)", elem_id="fx-output")
        with gr.Row():
            w.score = gr.Button("Score this output", variant="primary", elem_id="fx-score")
            w.model = gr.Dropdown(models, value=default, allow_custom_value=True,
                                  label="Model (registry name or provider/model)", elem_id="fx-model")
            w.ask = gr.Button("Ask the model", elem_id="fx-ask")
        w.status = gr.Textbox(label="Model call", interactive=False, elem_id="fx-status")
        w.verdict = gr.HTML(elem_id="fx-verdict")
        with gr.Accordion("Score matrix (gold steps × model steps)", open=False):
            w.heat = gr.HTML(elem_id="fx-heatmap")
        w.link = gr.Textbox(label="Permalink", interactive=False, elem_id="fx-permalink")
    return w


def _compare_tab(models: list[str], default: str) -> SimpleNamespace:
    w = SimpleNamespace()
    with gr.Tab("Compare", id="compare"):
        with gr.Row():
            w.out_a = gr.Textbox(lines=8, label="Answer A", elem_id="fx-out-a")
            w.out_b = gr.Textbox(lines=8, label="Answer B", elem_id="fx-out-b")
        with gr.Row():
            w.label_a, w.label_b = gr.Textbox("A", label="Label A"), gr.Textbox("B", label="Label B")
            w.model_a = gr.Dropdown(models, value=default, allow_custom_value=True, label="Model for A")
            w.model_b = gr.Dropdown(models, value=default, allow_custom_value=True, label="Model for B")
        with gr.Row():
            w.ask_a, w.ask_b = gr.Button("Ask A"), gr.Button("Ask B")
            w.compare = gr.Button("Compare", variant="primary", elem_id="fx-compare")
        w.view = gr.HTML(elem_id="fx-compare-view")
    return w


def _load_runs(text: str) -> tuple[list[dict], str, list[str]]:
    """(samples, the status line, the model choices) of the paths in ``text``, one per line."""
    rows, bad = run_samples.load_samples([p for p in (text or "").splitlines() if p.strip()])
    note = f"{len(rows):,} FinChain samples" + (f"; not read: {'; '.join(bad)}" if bad else "")
    return rows, note, ["", *run_samples.models(rows)]


def _runs_tab(runs: Sequence[str], domains: list[str]) -> SimpleNamespace:
    """The Runs tab; the ``--runs`` paths are read here, as the app starts, so their samples are there at once."""
    rows, note, names = _load_runs("\n".join(runs)) if runs else ([], "", [""])
    w = SimpleNamespace()
    with gr.Tab("Runs", id="runs"):
        w.paths = gr.Textbox("\n".join(runs), lines=2, label="Run directories, Inspect logs or lm-eval output folders "
                             "(one per line)", elem_id="fx-run-paths")
        w.load = gr.Button("Load samples", elem_id="fx-load-runs")
        with gr.Row():
            w.model = gr.Dropdown(names, value="", label="Model", elem_id="fx-f-model")
            w.versus = gr.Dropdown(names, value="", label="Largest disagreement with", elem_id="fx-f-versus")
            w.domain = gr.Dropdown(["", *domains], value="", label="Domain")
            w.level = gr.Dropdown(list(LEVELS), value="", label="Level")
            w.wrong = gr.Checkbox(False, label="Wrong final answer only", elem_id="fx-f-wrong")
            w.first = gr.Dropdown(list(FIRST_ERROR), value="any", label="First error at step")
        w.filter = gr.Button("Filter", elem_id="fx-filter")
        w.status = gr.Textbox(note, label="Loaded", interactive=False, elem_id="fx-runs-status")
        w.pick = gr.Dropdown([], label="Open a sample in the verdict view", elem_id="fx-sample-pick")
        w.view = gr.HTML(elem_id="fx-samples-view")
        w.rows, w.shown = gr.State(rows), gr.State([])
    return w


def _open_problem(pid: str) -> tuple[Any, ...]:
    """(problem HTML, source, problem id, seed, domain, topic, template, tab) for a pasted or linked id: the
    pickers follow, so the page says where the problem sits."""
    try:
        template_id, seed = problems.parse_problem_id(pid or "")
    except ValueError as exc:
        return (views.message(str(exc)), "", pid, *(gr.update(),) * 5)
    html, src, pid = show_problem(template_id, seed)
    return (html, src, pid, *_pickers_at(template_id, seed), gr.update(selected="problem"))


def _pickers_at(template_id: str, seed: int) -> tuple[Any, Any, Any, Any]:
    """Updates that point the seed, domain, topic and template pickers at one template."""
    t = all_templates()[template_id]
    topics = sorted(problems.catalogue()[t.domain])
    return (gr.update(value=seed), gr.update(value=t.domain), gr.update(choices=topics, value=t.topic),
            gr.update(choices=_template_choices(t.domain, t.topic, ""), value=template_id))


def _wire_picker(catalogue: dict, w: SimpleNamespace, prob: SimpleNamespace, tabs: gr.Tabs) -> None:
    def topics_of(d: str, lvl: str) -> tuple[Any, Any]:
        topics = sorted(catalogue.get(d, {}))
        return gr.update(choices=topics, value=topics[0] if topics else None), templates_of(d, topics[0], lvl)

    def templates_of(d: str, t: str, lvl: str) -> Any:
        choices = _template_choices(d, t, lvl)
        return gr.update(choices=choices, value=choices[0][1] if choices else None)

    # `input` (the user's choice), not `change`: opening a problem by id sets all three at once, and must not
    # set off the cascade that would reset the topic and template to the first of their lists
    w.domain.input(topics_of, [w.domain, w.level], [w.topic, w.template])
    w.topic.input(templates_of, [w.domain, w.topic, w.level], w.template)
    w.level.input(templates_of, [w.domain, w.topic, w.level], w.template)
    w.fresh.click(problems.fresh_seed, None, w.seed)
    w.show.click(show_problem, [w.template, w.seed], [prob.view, prob.source, w.problem_id])
    w.open.click(_open_problem, w.problem_id, [prob.view, prob.source, w.problem_id, *_pickers(w), tabs])


def _pickers(w: SimpleNamespace) -> list[Any]:
    return [w.seed, w.domain, w.topic, w.template]


def _wire_verdict(pick: SimpleNamespace, w: SimpleNamespace) -> None:
    def on_score(pid, text, prof, params, spec, mdl, request: gr.Request):
        return verdict_views(pid, text, prof, spec, params, base_url_of(request), mdl or "")

    def on_ask(mdl, pid, prof, params, spec, request: gr.Request):
        text = ""
        for text, line in stream_answer(mdl, pid):
            yield text, line, gr.update(), gr.update(), gr.update()
        if text:
            yield (text, gr.update(), *verdict_views(pid, text, prof, spec, params, base_url_of(request), mdl or ""))

    w.score.click(on_score, [pick.problem_id, w.output, w.profile, w.params, w.prm, w.model],
                  [w.verdict, w.heat, w.link])
    w.ask.click(on_ask, [w.model, pick.problem_id, w.profile, w.params, w.prm],
                [w.output, w.status, w.verdict, w.heat, w.link])


def _wire_compare(pick: SimpleNamespace, ver: SimpleNamespace, w: SimpleNamespace) -> None:
    def ask_into(mdl, pid):
        for text, _ in stream_answer(mdl, pid):
            yield text

    w.ask_a.click(ask_into, [w.model_a, pick.problem_id], w.out_a)
    w.ask_b.click(ask_into, [w.model_b, pick.problem_id], w.out_b)
    w.compare.click(lambda pid, a, b, la, lb, prof: compare(pid, [a, b], [la, lb], prof),
                    [pick.problem_id, w.out_a, w.out_b, w.label_a, w.label_b, ver.profile], w.view)


def _wire_runs(pick: SimpleNamespace, prob: SimpleNamespace, ver: SimpleNamespace, w: SimpleNamespace,
               tabs: gr.Tabs) -> None:
    def on_load(text):
        rows, note, names = _load_runs(text)
        return rows, note, gr.update(choices=names, value=""), gr.update(choices=names, value="")

    def on_filter(rows, mdl, vs, d, lvl, wrong, first):
        f = run_samples.Filters(mdl or "", d or "", lvl or "", bool(wrong), FIRST_ERROR.get(first), vs or "")
        kept = run_samples.apply(rows, f)
        choices = [(f"{r['model']} · {r['sample_id']} · ChainEval {r.get('chaineval')}", str(k))
                   for k, r in enumerate(kept[:500])]
        return kept, views.samples_html(kept), gr.update(choices=choices, value=None)

    def on_pick(kept, choice, prof, spec, request: gr.Request):
        if choice in (None, ""):
            return (gr.update(),) * 12
        row = kept[int(choice)]
        opened = _open_problem(row["sample_id"])
        shown = verdict_views(opened[2], row.get("output") or "", prof, spec, {}, base_url_of(request),
                              str(row.get("model") or ""))
        return (*opened[:7], row.get("output") or "", *shown, gr.update(selected="verdict"))

    w.load.click(on_load, w.paths, [w.rows, w.status, w.model, w.versus])
    w.filter.click(on_filter, [w.rows, w.model, w.versus, w.domain, w.level, w.wrong, w.first],
                   [w.shown, w.view, w.pick])
    w.pick.change(on_pick, [w.shown, w.pick, ver.profile, ver.prm],
                  [prob.view, prob.source, pick.problem_id, *_pickers(pick), ver.output, ver.verdict, ver.heat,
                   ver.link, tabs])


def _reopened(ver: SimpleNamespace) -> list[Any]:
    """What a permalink with an answer fills in besides the problem: the verdict view, as it was."""
    return [ver.params, ver.prm, ver.output, ver.verdict, ver.heat, ver.link]


def _on_page_load(request: gr.Request) -> tuple[Any, ...]:
    """A permalink's query (problem, model, profile; parameters, PRM and answer of a verdict) reopens its case."""
    keep = (gr.update(),) * 7
    try:
        case = problems.case_from_query(dict(request.query_params))
    except ValueError as exc:
        return (views.message(str(exc)), "", "", *(gr.update(),) * 6, *keep)
    if case is None:
        return (gr.update(),) * 9 + keep
    html, src, pid = show_problem(case.template_id, case.seed)
    model = gr.update(value=case.model) if case.model else gr.update()
    profile = case.profile if case.profile in PROFILES else "paper"
    opened = (html, src, pid, *_pickers_at(case.template_id, case.seed), gr.update(value=profile), model)
    if not case.answer:
        return opened + keep
    shown = verdict_views(pid, case.answer, profile, case.prm, case.params, base_url_of(request), case.model)
    return (*opened, case.params, case.prm, case.answer, *shown, gr.update(selected="verdict"))


def _registry_names() -> list[str]:
    from finchain_tasks.models.registry import load_registry

    return sorted(load_registry().models)


def serve(demo: Any, host: str = "127.0.0.1", port: int = 7860, open_browser: bool = False,
          announce: Any = print, policy: Any = None) -> None:
    """Serve ``demo`` until Ctrl-C; ``announce(url)`` once it answers. Local models it started stop with it.

    Every request passes :class:`~finchain_tasks.explore.guard.Guard` first (``policy``: this machine only,
    unless the caller shares it on the network with a token)."""
    from finchain_tasks.explore.ask import stop_local_models
    from finchain_tasks.explore.guard import local_policy

    policy = policy or local_policy(host, port)
    demo.queue(default_concurrency_limit=4)
    server_name = f"[{host}]" if ":" in host and not host.startswith("[") else host  # Gradio's IPv6 form
    launch_guarded(demo, policy, server_name=server_name, server_port=port, css=views.CSS, quiet=True,
                   prevent_thread_lock=True, show_error=False)
    url = demo.local_url + (f"?token={policy.token}" if policy.token else "")
    announce(url)
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    try:
        demo.block_thread()
    except KeyboardInterrupt:
        pass
    finally:
        demo.close()
        stop_local_models()


def launch_guarded(demo: Any, policy: Any, **launch: Any) -> None:
    """``demo.launch(**launch)`` on an app whose outermost layer is the guard: Gradio builds its routes and
    middleware on the app it is given, and the guard wraps that whole stack, Gradio's CORS layer included,
    so no request reaches any of it unchecked. Refuses to serve if Gradio did not take the app."""
    from gradio.routes import App, ORJSONResponse

    from finchain_tasks.explore.guard import Guard

    class GuardedApp(App):
        def build_middleware_stack(self) -> Any:
            return Guard(super().build_middleware_stack(), policy)

    app = GuardedApp(default_response_class=ORJSONResponse)
    demo.launch(_app=app, **launch)
    if demo.server_app is not app:
        demo.close()
        raise RuntimeError("this Gradio version did not serve the guarded app; the explorer will not run unguarded")
