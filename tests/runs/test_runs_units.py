"""The pieces of ``finchain eval``/``bench`` that need no server: cache keys and cache reads in the provider,
the default stratified sample, pinned fresh seeds, missing keys, cost semantics and report escaping."""

import html

import anyio
import pytest

from finchain_tasks.runs.cache import ResponseCache, request_key
from finchain_tasks.runs.engine import TaskPlan, pin_fresh_seeds, split_ready, stratified_templates
from finchain_tasks.runs.report import html_report, markdown
from finchain_tasks.runs.summary import cost_of
from tests.support.bench_helpers import KEY, KEY_ENV, UNSET_ENV, files_containing, write_registry

BASE = {"model": "openai/fake", "messages": [{"role": "user", "content": "What is 2 + 2?"}], "max_tokens": 64}


def test_cache_key_depends_on_what_is_asked_not_on_how_it_travels(tmp_path):
    key = request_key(BASE, epoch=1, version="1.0.0")
    travel = {**BASE, "api_base": "http://127.0.0.1:1234/v1", "timeout": 3, "num_retries": 2, "api_key": KEY,
              "extra_headers": {"X-Trace": "t"}}
    assert request_key(travel, epoch=1, version="1.0.0") == key
    for changed in ({**BASE, "max_tokens": 65}, {**BASE, "model": "openai/other"},
                    {**BASE, "messages": [{"role": "user", "content": "What is 2 + 3?"}]}):
        assert request_key(changed, epoch=1, version="1.0.0") != key
    assert request_key(BASE, epoch=2, version="1.0.0") != key
    assert request_key(BASE, epoch=1, version="1.0.1") != key
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put(key, "openai/fake", travel, '{"completion": "4"}')
    assert cache.get(key) == '{"completion": "4"}' and len(cache) == 1
    assert files_containing(tmp_path, KEY) == []  # database and WAL file


def test_the_provider_answers_from_the_cache_without_sending_a_request(tmp_path, monkeypatch):
    from inspect_ai.model import ChatMessageUser, GenerateConfig, ModelOutput, get_model

    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    path = tmp_path / "responses.sqlite"
    api = get_model("litellm/openai/fake", api_base="http://127.0.0.1:9/v1", api_key="none", memoize=False,
                    response_cache=str(path)).api  # nothing listens on port 9: a request would fail
    messages, config = [ChatMessageUser(content="What is 2 + 2?")], GenerateConfig(max_tokens=64)
    request = api.request(messages, config)
    ResponseCache(path).put(request_key(request), "openai/fake", request,
                            ModelOutput.from_content("openai/fake", "Final answer: 4").model_dump_json())
    output, call = anyio.run(api.generate, messages, [], "auto", config)
    assert output.completion == "Final answer: 4" and output.metadata == {"finchain_cache": "hit"}
    assert call.response["finchain_cache"] == "hit"


def test_the_default_sample_has_one_template_per_domain_spread_over_levels():
    from finchain_tasks.engine import all_templates, get

    chosen = stratified_templates()
    domains = {t.domain for t in all_templates().values()}
    assert sorted(get(t).domain for t in chosen) == sorted(domains)
    assert stratified_templates() == chosen  # deterministic
    if len(domains) > 1:
        assert len({get(t).level for t in chosen}) > 1
    two = stratified_templates(2)
    assert len(two) == 2 * len(domains) and set(chosen) <= set(two)


def test_fresh_seeds_are_drawn_once_and_pinned_for_a_resume():
    from finchain_tasks.finchain.generate import FRESH_SEED_FLOOR
    from finchain_tasks.inspect.tasks import finchain

    plan = TaskPlan("finchain_fresh", "finchain", {"fresh": True, "seeds": 2})
    pinned = pin_fresh_seeds(plan, None)
    seeds = pinned.args["seeds"]
    assert len(seeds) == 2 and all(s >= FRESH_SEED_FLOOR for s in seeds)
    assert pin_fresh_seeds(plan, {"task": "finchain", "args": pinned.args}).args["seeds"] == seeds
    more = TaskPlan("finchain_fresh", "finchain", {"fresh": True, "seeds": 3})
    assert len(pin_fresh_seeds(more, {"task": "finchain", "args": pinned.args}).args["seeds"]) == 3
    template = stratified_templates()[0]
    task = finchain(template=template, seeds=seeds, fresh=True)
    assert [s.metadata["seed"] for s in task.dataset] == seeds and task.metadata["fresh_seeds"] is True
    with pytest.raises(ValueError):
        finchain(template=template, seeds=[1, 2], fresh=True)  # canonical seeds are never "fresh"


def test_models_without_their_key_are_listed_not_run(tmp_path, monkeypatch):
    from finchain_tasks.models.registry import load_registry

    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.delenv(UNSET_ENV, raising=False)
    reg = load_registry(write_registry(tmp_path / "r.yaml", "http://127.0.0.1:9/v1", ["a"], ["x/y/z"], missing=["b"]))
    ready, skipped = split_ready([reg.models["a"], reg.models["b"]])
    assert [m.name for m in ready] == ["a"] and [(m.name, miss) for m, miss in skipped] == [("b", [UNSET_ENV])]


def test_cost_is_none_when_unknown_and_never_zero():
    rows = [{"input_tokens": 1000, "output_tokens": 500, "cost": None}, {"input_tokens": 0, "output_tokens": 0,
                                                                         "cost": None}]
    assert cost_of(rows, None) == (None, "unknown")
    assert cost_of(rows, {"input": 2.0, "output": 8.0, "source": "registry"}) == (0.006, "registry")
    priced = [{"input_tokens": 10, "output_tokens": 5, "cost": 0.25}, {"input_tokens": 0, "output_tokens": 0,
                                                                      "cost": None}]
    assert cost_of(priced, None) == (0.25, "litellm")


def _summary(category: str) -> dict:
    evil = "<script>alert('x')</script> | **bold** _it_"
    result = {"model": "m", "display_name": evil, "category": category, "task_set": "finchain", "requested": 2,
              "completed": 1, "failed": 1, "missing": [], "scores": {"chaineval": 0.5, "fac": 1.0, "step_f1": 0.5},
              "by_domain": {"d": {"n": 1, "chaineval": 0.5}}, "by_level": {"easy": {"n": 1, "chaineval": 0.5}},
              "input_tokens": 10, "output_tokens": 5, "cost_usd": None, "wall_s": 1.0,
              "failures": [{"id": "finchain/d/t/x/0", "epoch": 1, "reason": evil}]}
    return {"run_dir": "/tmp/run", "generated": "now", "finchain_tasks_version": "0", "sessions": 1,
            "wall_s_total": 1.0, "results": [result]}


def test_reports_escape_model_text_and_say_the_local_model_is_no_baseline():
    from finchain_tasks.models.local import LOCAL_MODEL_NOTE

    page, text = html_report(_summary("local")), markdown(_summary("local"))
    assert "<script>" not in page and html.escape("<script>alert('x')</script>") in page
    assert "<script>" not in text and "\\|" in text and "unknown" in text
    assert html.escape(LOCAL_MODEL_NOTE) in page and "not a meaningful baseline" in text
    assert "not a meaningful baseline" not in html_report(_summary("general"))


# ------------------------------------------------------------------------------------------ issue 10
def _stat(mean: float, se: float, n: int = 20) -> dict:
    return {"n": n, "mean": mean, "stderr": se, "ci95": [mean - 1.96 * se, mean + 1.96 * se]}


def _rich_summary(profile: str = "paper") -> dict:
    summary = _summary("general")
    result = summary["results"][0]
    result.update(model="a-rather-long-registry-model-name", task_set="finchain-with-a-long-name", harness="inspect",
                  status="success", duplicated=[],
                  scores={"chaineval": 0.5, "fac": 0.25, "step_f1": 0.125, "invalid_strict": 1.0},
                  stats={"chaineval": _stat(0.5, 0.05), "fac": _stat(0.25, 0.1), "step_f1": _stat(0.125, 0.03),
                         "invalid_strict": _stat(1.0, 0.0)},
                  settings={"profile": profile, "task_version": "1.2.0", "seeds": [0, 1], "sample_order": {
                      "method": "stratified", "seed": 0, "limit": 20}, "limit": 20, "max_tokens": 256,
                            "temperature": 0.0, "top_p": None})
    summary.update(skipped=[{"model": "claude-x", "reason": "ANTHROPIC_API_KEY not set"}], warnings=[],
                   coverage={"templates": 50, "domains_with_templates": {"personal_finance": 25},
                             "domains_without_templates": ["crypto_finance"]})
    return summary


def test_reports_show_stderr_interval_settings_skipped_coverage_and_the_reference_floor():
    from finchain_tasks.runs.summary import REFERENCE_NOTE

    text, page = markdown(_rich_summary("reference")), html_report(_rich_summary("reference"))
    for doc in (text, page):
        assert "0.500 ±0.050" in doc and "0.402, 0.598" in doc  # 0.5 ± 1.96 × 0.05
        assert "claude-x" in doc and "ANTHROPIC_API_KEY" in doc
        assert "crypto" in doc and "personal" in doc and "1.2.0" in doc and "256" in doc
        assert "0.75" in doc and "†" in doc
    assert html.escape(REFERENCE_NOTE) in page
    assert "<script>" not in page and "<script>" not in text  # model text stays escaped
    plain = markdown(_rich_summary("paper"))
    assert "†" not in plain and "0.75" not in plain


def test_the_tables_of_eval_and_bench_stay_readable_at_80_columns():
    from rich.console import Console

    from finchain_tasks.runs.summary import score_columns, tables

    summary = _rich_summary()
    summary["results"].append({**summary["results"][0], "model": "second-model", "display_name": "Second"})
    console = Console(width=80, record=True, color_system=None)
    for table in tables(summary):
        console.print(table)
    out = console.export_text()
    assert all(len(line) <= 80 for line in out.splitlines())
    assert "…" not in out  # nothing truncated
    for name in score_columns(summary):
        assert name in out, name
    assert "±0.050" in out and "±0.100" in out


def test_many_score_columns_at_80_columns_move_to_a_second_table_and_crop_no_cell():
    """Issue 31: with CFLUE's and ChainEval's columns together, rich squeezed the table at 80 columns and cropped
    ``36/36`` to ``36/3`` and the model name to nothing. Every cell must come through whole (the model id may
    fold over lines, and is read back by joining them)."""
    from rich.console import Console

    from finchain_tasks.runs.summary import score_columns, tables

    summary = _rich_summary()
    result = summary["results"][0]
    keys = ["chaineval", "fac", "step_f1", "accuracy", "answer_f1", "invalid_robust", "invalid_strict", "rouge_l"]
    result.update(model="litellm/openai/gpt-4.1-mini-2025-04-14", task_set="finchain", requested=36, completed=36,
                  scores={k: 0.5 for k in keys}, stats={k: _stat(0.5, 0.05) for k in keys})
    console = Console(width=80, record=True, color_system=None)
    shown = tables(summary, console.width)
    for table in shown:
        console.print(table)
    out = console.export_text()
    assert all(len(line) <= 80 for line in out.splitlines())
    assert "…" not in out and out.count("36/36") == len([t for t in shown if "results" in str(t.title)]) >= 2
    heads = [c.header for t in shown if "results" in str(t.title) for c in t.columns]
    assert all(name in heads for name in score_columns(summary))
    for table in (t for t in shown if "results" in str(t.title)):
        alone = Console(width=80, record=True, color_system=None)
        alone.print(table)
        cells = "".join(line.split("│")[1] for line in alone.export_text().splitlines() if line[:1] == "│")
        assert cells.replace(" ", "") == "litellm/openai/gpt-4.1-mini-2025-04-14·finchain", cells


def test_a_corrupt_cache_is_set_aside_with_one_line_and_a_fresh_one_works(tmp_path):
    from finchain_tasks.runs.cache import forget, open_cache, set_aside_if_corrupt

    path = tmp_path / "responses.sqlite"
    assert set_aside_if_corrupt(path) is None  # absent: nothing to do
    good = open_cache(str(path.resolve()))
    good.put("k", "m", BASE, "{}")
    assert set_aside_if_corrupt(path) is None and len(good) == 1  # sound: left alone
    forget(path)  # the run that used it ended; then the file was damaged
    path.write_bytes(b"garbage" * 1000)
    warning = set_aside_if_corrupt(path)
    assert warning and "\n" not in warning and "set aside" in warning
    (aside,) = tmp_path.glob("responses.sqlite.corrupt-*")
    assert aside.read_bytes() == b"garbage" * 1000 and not path.exists()
    fresh = open_cache(str(path.resolve()))
    assert len(fresh) == 0
    fresh.put("k", "m", BASE, "{}")
    assert fresh.get("k") == "{}"


def test_two_task_sets_asking_the_same_task_are_named_in_one_line():
    from types import SimpleNamespace

    from finchain_tasks.runs.engine import check_distinct

    specs = [SimpleNamespace(name="cool"), SimpleNamespace(name="warm")]
    same = {"seeds": [0], "template": ["a/b/c"]}
    check_distinct(specs, [TaskPlan("one", "finchain", same), TaskPlan("two", "finchain", {**same, "seeds": [1]})])
    with pytest.raises(ValueError) as err:
        check_distinct(specs, [TaskPlan("one", "finchain", same), TaskPlan("two", "finchain", dict(same))])
    message = str(err.value)
    assert "\n" not in message and "'one'" in message and "'two'" in message and "cool, warm" in message


def test_a_failure_reason_names_the_fault_not_tenacitys_future():
    from finchain_tasks.runs.summary import _first_line

    raw = "RetryError(<Future at 0x7f6fb3f2bcd0 state=finished raised MalformedResponse>)\nTraceback ..."
    assert _first_line(raw) == "retries ran out (MalformedResponse)"
    assert _first_line("litellm.BadRequestError: 400\nmore") == "litellm.BadRequestError: 400"
