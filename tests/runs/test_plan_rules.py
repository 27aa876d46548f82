"""The bill's user-visible rules (``--plan``), one table-driven test per rule (issue 39.3), without a server:
the fields of the ``--json`` output (docs/running-the-matrix.md lists them), which recorded figures an earlier
run's summary may contribute, how its answers are counted, and how the totals add up (unknown stays unknown, the
batch bill falls back to the list price, models run side by side). The end-to-end bill against a finished run
on the fake server is tests/runs/test_plan.py."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict
from types import SimpleNamespace

import pytest

from finchain_tasks.models.registry import Price
from finchain_tasks.runs import CACHE, SUMMARY
from finchain_tasks.runs.plan import (
    Earlier,
    _cost,
    _count,
    _output,
    _provider_key,
    _wall,
    build_plan,
    connections_for,
    earlier_from_cache,
    earlier_from_summary,
    plan_row,
    totals,
)
from finchain_tasks.runs.rendered import RenderedTaskSet

TOP = {"schema", "run_dir", "limit", "max_connections", "task_sets", "rows", "totals", "totals_ready", "skipped"}
TASK_SET = {"name", "task", "samples", "epochs", "candidates", "max_tokens"}
ROW = {"model", "task_set", "provider", "category", "skip", "samples", "epochs", "candidates", "requests",
       "prompt_tokens", "tokenizer", "tokenizer_exact", "output_tokens", "max_tokens", "price", "cost_usd", "batch",
       "connections", "wall_s", "wall_basis", "answered_in_run_dir"}
OUTPUT = {"per_request", "expected", "low", "high", "source"}
RANGE = {"expected", "low", "high"}
TOTALS = {"rows", "models", "requests", "prompt_tokens", "output_tokens", "cost_usd", "unknown_cost_models",
          "batch_cost_usd", "wall_s"}
"""The documented fields (docs/running-the-matrix.md, ``--json``), written out here."""


@pytest.fixture(scope="module")
def plan_inputs(tmp_path_factory):
    """A priced model with a batch API, a local-URL model without a price, and a skipped one, on one task set of
    two problems; with an earlier run's summary for the priced model."""
    from finchain_tasks.models.registry import load_registry
    from finchain_tasks.runs.engine import plan_task_set
    from tests.support.bench_helpers import plan_problems

    root = tmp_path_factory.mktemp("plan-rules")
    templates = [p.template_id for p in plan_problems(2)]
    (root / "r.yaml").write_text(
        "version: 1\nextends: default\nmodels:\n"
        "  - {name: served, display_name: S, litellm_model: openai/served, category: general, open_weights: false, "
        "api_base: 'http://127.0.0.1:9/v1'}\n"
        f"task_sets:\n  two: {{task: finchain, args: {{seeds: [0], template: [{', '.join(templates)}]}}}}\n",
        encoding="utf-8")
    reg = load_registry(root / "r.yaml")
    run_dir = root / "run"
    run_dir.mkdir()
    (run_dir / SUMMARY).write_text(json.dumps({"results": [
        {"model": "gpt-4.1-mini", "task_set": "two", "completed": 3, "failed": 1, "output_tokens": 400,
         "wall_s": 8.0}]}), encoding="utf-8")
    specs = [reg.models["gpt-4.1-mini"], reg.models["served"], reg.models["gpt-4.1"]]
    return specs, [plan_task_set(reg, "two")], [(reg.models["gpt-4.1"], ["OPENAI_API_KEY"])], run_dir


@pytest.fixture
def plan(plan_inputs):
    """The plan of :func:`plan_inputs`, built in each test (0.05 s once the tokenizers are loaded): mutmut credits
    what a module-scoped fixture calls to the one test that set it up (tests/MUTANTS.md)."""
    specs, plans, skipped, run_dir = plan_inputs
    return build_plan(specs, plans, skipped=skipped, run_dir=run_dir)


# ---------------------------------------------------------------------------------------------- fields

def test_the_plan_carries_every_documented_field(plan):
    assert set(plan) == TOP and plan["schema"] == "finchain-plan/1"
    assert [set(t) for t in plan["task_sets"]] == [TASK_SET]
    assert plan["skipped"] == [{"model": "gpt-4.1", "reason": "OPENAI_API_KEY not set"}]
    assert set(plan["totals"]) == TOTALS and set(plan["totals_ready"]) == TOTALS


@pytest.mark.parametrize("model", ["gpt-4.1-mini", "served", "gpt-4.1"])
def test_each_row_carries_every_documented_field(plan, model):
    (row,) = [r for r in plan["rows"] if r["model"] == model]
    assert set(row) == ROW and set(row["output_tokens"]) == OUTPUT
    assert row["cost_usd"] is None or set(row["cost_usd"]) == RANGE
    assert row["price"] is None or {"input", "output"} <= set(row["price"])
    assert row["batch"] is None or (set(row["batch"]) == {"api", "price", "cost_usd"}
                                    and set(row["batch"]["cost_usd"]) == RANGE)


def test_an_earlier_run_sets_the_output_and_the_answers_already_in_the_run_directory(plan):
    rows = {r["model"]: r for r in plan["rows"]}
    mini = rows["gpt-4.1-mini"]
    # 400 tokens over 3 completed + 1 failed answers: 100 per request, 2 requests
    assert mini["output_tokens"] == {"per_request": 100.0, "expected": 200, "low": 200, "high": 200,
                                     "source": f"earlier run ({SUMMARY})"}
    assert mini["answered_in_run_dir"] == 4 and mini["wall_s"] == 4.0  # 8 s over 4 requests, 2 requests
    assert rows["served"]["answered_in_run_dir"] == 0 and rows["served"]["output_tokens"]["source"].startswith(
        "default")
    assert rows["served"]["cost_usd"] is None and rows["served"]["batch"] is None  # no price, an api_base


# --------------------------------------------------------------------------------- an earlier summary

@pytest.mark.parametrize(("value", "read"), [
    (0, 0.0), (12, 12.0), (2.5, 2.5), (1e15 - 1, 1e15 - 1),
    (1e15, None), (-1, None), (float("nan"), None), (True, None), ("12", None), (None, None),
])
def test_a_recorded_figure_counts_only_as_a_plausible_number(value, read):
    assert _count(value) == read


@pytest.mark.parametrize(("result", "per_request", "answers"), [
    ({"completed": 4, "output_tokens": 400}, 100.0, 4),
    ({"completed": 3, "failed": 1, "output_tokens": 400}, 100.0, 4),   # a failed answer was paid for too
    ({"failed": 2, "output_tokens": 100}, 50.0, 2),
    ({"completed": 0, "failed": 0, "output_tokens": 100}, None, None),  # no answer: nothing to learn
    ({"completed": 4}, None, None),                                    # no tokens recorded
])
def test_an_earlier_summary_counts_completed_and_failed_answers(tmp_path, result, per_request, answers):
    (tmp_path / SUMMARY).write_text(json.dumps({"results": [{"model": "m", "task_set": "t", **result}]}))
    found = earlier_from_summary(tmp_path, {"t": 1})
    if per_request is None:
        assert found == {}
    else:
        earlier = found[("m", "t")]
        assert (earlier.output_per_request, earlier.answers) == (per_request, answers)


# ---------------------------------------------------------------------------------------------- totals

def _range(x):
    return None if x is None else {"expected": x, "low": x / 2, "high": 2 * x}


def _row(model, wall, cost=None, batch=None, requests=2):
    return {"model": model, "requests": requests, "prompt_tokens": 10 * requests, "wall_s": wall,
            "output_tokens": {"expected": 5, "low": 1, "high": 9}, "cost_usd": _range(cost),
            "batch": None if batch is None else {"cost_usd": _range(batch)}}


@pytest.mark.parametrize(("rows", "cost", "batch", "unknown"), [
    ([], None, None, []),                                              # a sum of nothing is unknown, not $0
    ([_row("a", 1)], None, None, ["a"]),
    ([_row("a", 1, cost=2.0)], 2.0, 2.0, []),                          # no batch API: the list price
    ([_row("a", 1, cost=2.0, batch=1.0)], 2.0, 1.0, []),               # a batch API: its price
    ([_row("a", 1, cost=2.0, batch=1.0), _row("b", 1)], 2.0, 1.0, ["b"]),
])
def test_totals_sum_the_known_costs_and_name_the_unknown(rows, cost, batch, unknown):
    got = totals(rows)
    assert got["cost_usd"] == _range(cost) and got["batch_cost_usd"] == _range(batch)
    assert got["unknown_cost_models"] == unknown


def test_total_costs_are_summed_then_rounded_to_a_millionth_of_a_dollar():
    got = totals([_row("a", 1, cost=4e-7), _row("b", 1, cost=4e-7)])
    assert got["cost_usd"] == got["batch_cost_usd"] == {"expected": 1e-6, "low": 0.0, "high": 2e-6}


def test_totals_count_rows_models_requests_tokens_and_run_models_side_by_side():
    rows = [_row("a", 10.0, requests=2), _row("a", 5.0, requests=3), _row("b", 12.0, requests=1)]
    got = totals(rows)
    assert (got["rows"], got["models"], got["requests"], got["prompt_tokens"]) == (3, 2, 6, 60)
    assert got["output_tokens"] == {"expected": 15, "low": 3, "high": 27}
    assert got["wall_s"] == 15.0  # a's two task sets one after another; b beside them
    assert totals([])["wall_s"] == 0.0
    assert totals([_row("a", 1.26), _row("a", 0.01)])["wall_s"] == 1.3  # to a tenth of a second


# ------------------------------------------------------------------------- the arithmetic of one row

def _spec(model="openai/m", api_base=None, api_base_env=None, local=None, category="general", max_tokens=None):
    """The fields of a registry model a row's arithmetic reads."""
    return SimpleNamespace(litellm_model=model, api_base=api_base, api_base_env=api_base_env, local=local,
                           category=category, generation=SimpleNamespace(max_tokens=max_tokens))


LOCAL = SimpleNamespace(gguf="x.gguf")


@pytest.mark.parametrize(("spec", "key"), [
    (_spec("openai/m"), "openai"),
    (_spec("anthropic/claude-x"), "anthropic"),
    (_spec("hosted_vllm/acme/m"), "hosted_vllm"),
    (_spec("gemini/a/b"), "gemini"),                                      # the provider is before the first /
    (_spec("openai/m", api_base="http://127.0.0.1:9/v1"), "hosted_vllm"),  # a server of its own: self-hosted
    (_spec("openai/m", api_base_env="MY_BASE"), "hosted_vllm"),
    (_spec("openai/m", api_base="http://127.0.0.1:9/v1", local=LOCAL), "openai"),  # the local model: its own speed
])
def test_the_speed_table_is_keyed_by_the_provider_or_self_hosted_for_a_base_url_of_its_own(spec, key):
    assert _provider_key(spec) == key


@pytest.mark.parametrize(("max_connections", "local", "connections"), [
    (None, None, 10), (None, LOCAL, 1), (0, None, 10), (3, None, 3), (3, LOCAL, 3), (1, None, 1),
])
def test_connections_are_the_flag_else_one_for_the_local_model_else_inspects_default(max_connections, local,
                                                                                     connections):
    assert connections_for(_spec(local=local), max_connections) == connections


@pytest.mark.parametrize(("spec", "requests", "out", "connections", "wall", "basis"), [
    # OpenAI: 0.6 s + 80 tokens at 80 tok/s = 1.6 s a request, 10 at a time: 16 s; 100 at 500 rpm: 12 s
    (_spec("openai/m"), 100, 80.0, 10, 16.0, "default: OpenAI tier 1, 500 rpm, 80 tok/s"),
    (_spec("openai/m"), 100, 80.0, 1, 160.0, "default: OpenAI tier 1, 500 rpm, 80 tok/s"),
    # the rate limit binds: 100 requests at 50 rpm are 120 s, though 10 connections would take 20 s
    (_spec("anthropic/c"), 100, 60.0, 10, 120.0, "default: Anthropic tier 1, 50 rpm, 60 tok/s"),
    (_spec("anthropic/c"), 1, 60.0, 1, 2.0, "default: Anthropic tier 1, 50 rpm, 60 tok/s"),
    # no rate limit: only the speed counts (0.3 s + 1 s, 10 requests over 2 connections)
    (_spec("openai/m", api_base="http://127.0.0.1:9/v1"), 10, 40.0, 2, 6.5,
     "default: self-hosted (vLLM, 7-8B, 1 GPU), 40 tok/s"),
    (_spec("openai/m", api_base="http://127.0.0.1:9/v1", local=LOCAL), 4, 36.0, 1, 8.0,
     "default: local model, 2 CPU cores, 36 tok/s"),
    (_spec("acme/m"), 60, 30.0, 60, 60.0, "default: unknown provider, 60 rpm, 30 tok/s"),
    (_spec("acme/m"), 0, 30.0, 1, 0.0, "default: unknown provider, 60 rpm, 30 tok/s"),
    (_spec("openai/m", api_base="http://127.0.0.1:9/v1"), 1, 0.0, 10, 0.03,              # no limit: no floor
     "default: self-hosted (vLLM, 7-8B, 1 GPU), 40 tok/s"),
])
def test_wall_time_is_the_slower_of_the_rate_limit_and_the_requests_over_the_connections(
        spec, requests, out, connections, wall, basis):
    assert _wall(spec, requests, out, connections, None) == (pytest.approx(wall), basis)


@pytest.mark.parametrize(("seconds", "wall", "basis"), [
    (0.5, 50.0, "earlier run: 0.50 s/request"),
    (2.125, 212.5, "earlier run: 2.12 s/request"),
    (None, 16.0, "default: OpenAI tier 1, 500 rpm, 80 tok/s"),   # an earlier run without a wall time
])
def test_an_earlier_runs_seconds_per_request_set_the_wall_time_whatever_the_connections(seconds, wall, basis):
    earlier = Earlier(80.0, seconds, 4, "earlier run (summary.json)")
    assert _wall(_spec("openai/m"), 100, 80.0, 10, earlier) == (pytest.approx(wall), basis)


def _rendered(prompts=3, epochs=1, candidates=1, max_tokens=None):
    return RenderedTaskSet("ts", "finchain", [[{"role": "user", "content": "q"}]] * prompts, epochs, candidates,
                           max_tokens)


@pytest.mark.parametrize(("spec", "rendered", "output"), [
    # the category's default, times the requests
    (_spec(), _rendered(3), {"per_request": 400, "expected": 1200, "low": 450, "high": 3000,
                             "source": "default: general chat model, 150-1000/request"}),
    (_spec(category="math"), _rendered(2, epochs=2), {"per_request": 200, "expected": 800, "low": 200, "high": 1600,
                                                      "source": "default: math model (cf. MetaMath-13B: 198), "
                                                                "50-400/request"}),
    # capped at the task's max_tokens, unless the registry gives the model its own
    (_spec(), _rendered(1, max_tokens=300), {"per_request": 300, "expected": 300, "low": 150, "high": 300,
                                             "source": "default: general chat model, 150-300/request"}),
    (_spec(max_tokens=200), _rendered(1, max_tokens=100), {"per_request": 200, "expected": 200, "low": 150,
                                                           "high": 200,
                                                           "source": "default: general chat model, 150-200/request"}),
    # a registry budget of a reasoning model
    (_spec(max_tokens=4096), _rendered(1, candidates=2), {"per_request": 2500, "expected": 5000, "low": 1200,
                                                          "high": 8192, "source": "default: reasoning model "
                                                          "(thinking billed), 600-4096/request"}),
])
def test_without_an_earlier_run_the_output_is_the_stated_default_per_request_times_the_requests(spec, rendered,
                                                                                                output):
    assert _output(spec, rendered, None) == output


@pytest.mark.parametrize(("per", "requests", "output"), [
    (100.0, 3, {"per_request": 100.0, "expected": 300, "low": 300, "high": 300}),
    (33.34, 3, {"per_request": 33.3, "expected": 100, "low": 100, "high": 100}),
    (12.25, 2, {"per_request": 12.2, "expected": 24, "low": 24, "high": 24}),
])
def test_an_earlier_runs_output_per_request_is_the_whole_range_rounded_to_tokens(per, requests, output):
    got = _output(_spec(), _rendered(requests), Earlier(per, None, 4, "from before"))
    assert got == {**output, "source": "from before"}


@pytest.mark.parametrize(("price", "prompt", "output", "cost"), [
    (None, 1000, {"expected": 10, "low": 5, "high": 20}, None),                    # unknown stays unknown
    (Price(2.0, 8.0), 1000, {"expected": 100, "low": 50, "high": 200},
     {"expected": 0.0028, "low": 0.0024, "high": 0.0036}),                           # per 1M tokens
    (Price(0.0, 0.0), 1000, {"expected": 100, "low": 50, "high": 200},
     {"expected": 0.0, "low": 0.0, "high": 0.0}),
    (Price(2.0, 8.0), 1_000_000, {"expected": 1_000_000, "low": 0, "high": 2_000_000},
     {"expected": 10.0, "low": 2.0, "high": 18.0}),
    (Price(0.35, 1.0), 1, {"expected": 0, "low": 0, "high": 1},
     {"expected": 0.0, "low": 0.0, "high": 0.000001}),                               # to the millionth of a dollar
])
def test_a_cost_is_prompt_and_output_tokens_at_the_price_per_million_rounded_to_a_millionth(price, prompt, output,
                                                                                           cost):
    assert _cost(price, prompt, output) == cost


# ------------------------------------------------------------------------------- earlier runs, in detail

def _summary(tmp_path, *results):
    (tmp_path / SUMMARY).write_text(json.dumps({"results": list(results)}), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("result", "candidates", "earlier"), [
    # 8 s over 4 requests; the tokens and answers per candidate request
    ({"completed": 4, "output_tokens": 400, "wall_s": 8.0}, 1, (100.0, 2.0, 4)),
    ({"completed": 4, "output_tokens": 400, "wall_s": 8.0}, 4, (25.0, 0.5, 16)),       # Best-of-4
    ({"completed": 4, "output_tokens": 400, "wall_s": 8.0}, 3, (400 / 12, 8 / 12, 12)),
    # the requests a run asked for (more than it answered) share its wall time; fewer count as the answers
    ({"completed": 4, "requested": 8, "output_tokens": 400, "wall_s": 8.0}, 1, (100.0, 1.0, 4)),
    ({"completed": 4, "requested": 2, "output_tokens": 400, "wall_s": 8.0}, 1, (100.0, 2.0, 4)),
    ({"completed": 4, "requested": "eight", "output_tokens": 400, "wall_s": 8.0}, 1, (100.0, 2.0, 4)),
    # no wall time recorded, or none measured: no seconds per request
    ({"completed": 4, "output_tokens": 400}, 1, (100.0, None, 4)),
    ({"completed": 4, "output_tokens": 400, "wall_s": 0}, 1, (100.0, None, 4)),
    ({"completed": 1, "output_tokens": 0, "wall_s": 1.0}, 1, (0.0, 1.0, 1)),           # zero tokens is a figure
])
def test_an_earlier_summary_gives_tokens_and_seconds_per_request_of_each_candidate(tmp_path, result, candidates,
                                                                                    earlier):
    # rows of no use before it (not an object, no answers, no tokens) are passed over, not the end of the list
    before = ["row", {"model": "m", "task_set": "t", "completed": 0, "output_tokens": 5},
              {"model": "m", "task_set": "t", "completed": 3}]
    found = earlier_from_summary(_summary(tmp_path, *before, {"model": "m", "task_set": "t", **result}),
                                 {"t": candidates})
    got = found[("m", "t")]
    assert (got.output_per_request, got.seconds_per_request, got.answers) == earlier
    assert got.source == f"earlier run ({SUMMARY})"


def test_an_earlier_summary_of_a_task_set_not_planned_counts_one_candidate(tmp_path):
    found = earlier_from_summary(_summary(tmp_path, {"model": "m", "task_set": "other", "completed": 2,
                                                     "output_tokens": 10, "wall_s": 4.0}), {"t": 4})
    assert found[("m", "other")].answers == 2 and found[("m", "other")].seconds_per_request == 2.0


@pytest.mark.parametrize("content", [
    None,                                                        # no summary
    "{not json",
    json.dumps([{"model": "m", "task_set": "t", "completed": 1, "output_tokens": 1}]),  # not an object
    json.dumps({"results": {"model": "m"}}),                     # results not a list
    json.dumps({"results": ["m", 3, None]}),                     # rows not objects
    json.dumps({"results": [{"model": 1, "task_set": "t", "completed": 1, "output_tokens": 1}]}),
    json.dumps({"results": [{"model": "m", "task_set": None, "completed": 1, "output_tokens": 1}]}),
    json.dumps({"results": [{"task_set": "t", "completed": 1, "output_tokens": 1}]}),
])
def test_a_missing_or_damaged_summary_or_row_contributes_nothing(tmp_path, content):
    if content is not None:
        (tmp_path / SUMMARY).write_text(content, encoding="utf-8")
    assert earlier_from_summary(tmp_path, {"t": 1}) == {}
    assert earlier_from_summary(None, {"t": 1}) == {}


def _cache(tmp_path, rows):
    db = sqlite3.connect(tmp_path / CACHE)
    db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT, request TEXT, output TEXT, created REAL)")
    db.executemany("INSERT INTO responses VALUES (?, ?, ?, ?, 0)",
                   [(str(i), model, request, output) for i, (model, request, output) in enumerate(rows)])
    db.commit()
    db.close()
    return tmp_path


def _answer(tokens):
    return json.dumps({"usage": {"output_tokens": tokens}})


def test_the_response_cache_gives_each_models_mean_output_by_registry_name_else_litellm_id(tmp_path):
    run_dir = _cache(tmp_path, [
        ("openai/x", "{not json", _answer(5)),                           # a bad row first: the rest still counts
        ("openai/m", json.dumps({"finchain_model": "m-hot"}), _answer(10)),
        ("openai/m", json.dumps({"finchain_model": "m-hot"}), _answer(20)),
        ("openai/m", json.dumps({}), _answer(7)),                        # no registry name: the litellm id
        ("openai/m", json.dumps({"finchain_model": None}), _answer(9)),
        ("openai/x", json.dumps({"finchain_model": "x"}), _answer("12")),  # not a count: skipped
        ("openai/x", json.dumps({"finchain_model": "x"}), json.dumps({"usage": None})),
        ("openai/x", json.dumps({"finchain_model": "x"}), json.dumps({})),
        ("openai/x", "{not json", _answer(5)),
        ("openai/x", json.dumps(["a list"]), _answer(5)),
        ("openai/x", json.dumps({"finchain_model": "x"}), json.dumps(["a list"])),
    ])
    assert earlier_from_cache(run_dir) == {
        "m-hot": Earlier(15.0, None, 2, "response cache (2 answers)"),
        "openai/m": Earlier(8.0, None, 2, "response cache (2 answers)"),
    }


@pytest.mark.parametrize("content", [None, b"not a database at all, not even close" * 40, b""])
def test_a_missing_or_unreadable_response_cache_contributes_nothing(tmp_path, content):
    if content is not None:
        (tmp_path / CACHE).write_bytes(content)
    assert earlier_from_cache(tmp_path) == {}
    assert earlier_from_cache(None) == {}


# ------------------------------------------------------------------------------- one row, whole

class _Counter:
    """Stands in for a tokenizer: 10 tokens a prompt."""

    name, exact = "stand-in", False

    def total(self, prompts):
        return 10 * len(prompts)


@pytest.mark.parametrize(("epochs", "candidates"), [(1, 1), (2, 1), (1, 3), (2, 3)])
def test_a_rows_prompt_tokens_are_each_prompt_times_its_epochs_and_candidates(plan_inputs, epochs, candidates):
    row = plan_row(plan_inputs[0][1], _rendered(2, epochs, candidates), _Counter(), None, None, None)
    assert (row["samples"], row["epochs"], row["candidates"]) == (2, epochs, candidates)
    assert (row["requests"], row["prompt_tokens"]) == (2 * epochs * candidates, 20 * epochs * candidates)
    assert (row["tokenizer"], row["tokenizer_exact"]) == ("stand-in", False)


def _priced(price, prompt, output):
    return {k: round((prompt * price.input + output[k] * price.output) / 1e6, 6) for k in RANGE}


@pytest.mark.parametrize("max_connections", [None, 3])
def test_a_row_prices_its_tokens_at_the_list_price_and_through_the_batch_api(plan_inputs, max_connections):
    from finchain_tasks.models.batch import resolve_batch_price
    from finchain_tasks.models.registry import resolve_price

    mini = plan_inputs[0][0]
    row = plan_row(mini, _rendered(2, max_tokens=300), _Counter(), None, max_connections, "A not set")
    price, batch = resolve_price(mini), resolve_batch_price(mini)
    assert price is not None and batch is not None   # the shipped entry has a list and a batch price
    assert (row["model"], row["task_set"], row["provider"], row["category"], row["skip"]) == (
        "gpt-4.1-mini", "ts", "openai", mini.category, "A not set")
    assert row["price"] == asdict(price) and row["cost_usd"] == _priced(price, 20, row["output_tokens"])
    assert row["batch"] == {"api": "openai", "price": asdict(batch), "cost_usd": _priced(batch, 20,
                                                                                         row["output_tokens"])}
    assert row["max_tokens"] == 300 and row["connections"] == (max_connections or 10)


def test_a_row_of_a_self_hosted_model_has_no_price_and_no_batch_api_and_its_provider_is_the_first_part():
    from finchain_tasks.models.registry import ModelSpec

    tiny = ModelSpec(name="tiny", display_name="Tiny", litellm_model="hosted_vllm/acme/tiny", category="general",
                     open_weights=True)
    row = plan_row(tiny, _rendered(1), _Counter(), None, None, None)
    assert (row["provider"], row["price"], row["cost_usd"], row["batch"]) == ("hosted_vllm", None, None, None)


@pytest.mark.parametrize(("source", "answered"), [("earlier run (summary.json)", 4),
                                                  ("response cache (4 answers)", 0)])
def test_a_rows_wall_time_is_to_a_tenth_and_only_an_earlier_run_counts_answers_in_the_run_directory(
        plan_inputs, source, answered):
    row = plan_row(plan_inputs[0][1], _rendered(3), _Counter(), Earlier(100.0, 0.123, 4, source), None, None)
    assert (row["wall_s"], row["wall_basis"], row["answered_in_run_dir"]) == (0.4, "earlier run: 0.12 s/request",
                                                                             answered)


def test_a_plan_takes_its_limit_connections_skip_reasons_and_each_models_earlier_figures(plan_inputs, tmp_path):
    specs, plans, _, _ = plan_inputs
    mini, served, full = specs
    run_dir = _cache(_summary(tmp_path, {"model": "gpt-4.1-mini", "task_set": "two", "completed": 1,
                                         "output_tokens": 30}), [
        ("openai/served", json.dumps({"finchain_model": "served"}), _answer(70)),   # by registry name
        (full.litellm_model, json.dumps({}), _answer(50)),                          # by litellm id
        ("openai/gpt-4.1-mini", json.dumps({"finchain_model": "gpt-4.1-mini"}), _answer(999)),  # the summary wins
    ])
    got = build_plan(specs, plans, skipped=[(full, ["A_KEY", "B_KEY"])], limit=1, max_connections=3, run_dir=run_dir)
    assert got["run_dir"] == str(run_dir) and got["limit"] == 1 and got["max_connections"] == 3
    rows = {r["model"]: r for r in got["rows"]}
    assert [r["samples"] for r in got["rows"]] == [1, 1, 1] and got["task_sets"][0]["samples"] == 1
    assert {m: r["output_tokens"]["per_request"] for m, r in rows.items()} == {
        "gpt-4.1-mini": 30.0, "served": 70.0, "gpt-4.1": 50.0}
    assert {m: r["connections"] for m, r in rows.items()} == {"gpt-4.1-mini": 3, "served": 3, "gpt-4.1": 3}
    assert {m: r["skip"] for m, r in rows.items()} == {"gpt-4.1-mini": None, "served": None,
                                                       "gpt-4.1": "A_KEY, B_KEY not set"}
    assert got["skipped"] == [{"model": "gpt-4.1", "reason": "A_KEY, B_KEY not set"}]
    assert (got["totals"]["rows"], got["totals_ready"]["rows"], got["totals_ready"]["models"]) == (3, 2, 2)
    assert build_plan(specs[:1], plans)["run_dir"] is None
