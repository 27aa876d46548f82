"""``finchain bench --plan``/``eval --plan``: the bill, checked against a finished run on the fake OpenAI server.

The fake server here reports usage as a real OpenAI-compatible server does (o200k_base tokens of each message
plus OpenAI's chat accounting, counted in this file, not by the code under test), so the run records real-shaped
token counts and the plan's prompt tokens can be held to a tight error. The local model's registry entry runs
against the fake server (its base URL set, so no llama.cpp starts), beside a priced fake model for the cost.
"""

import json
import math
import sqlite3

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.runs import CACHE, SUMMARY
from finchain_tasks.runs.plan import totals
from finchain_tasks.runs.plan_view import compact, cost_cell, duration, money, tables
from tests.support.bench_helpers import KEY, KEY_ENV, make_reply, plan_problems
from tests.support.fake_openai import FakeOpenAI

EXACT_ERROR = 0.02
"""The plan's prompt tokens and cost against the run's, relative, where the plan has the model's tokenizer
(measured: 0.0; the plan renders exactly what was sent)."""
APPROX_ERROR = 0.15
"""The same for a model whose tokenizer the plan approximates (measured here: +6.6% against o200k_base counts)."""


def _openai_usage():
    """(path, body, text) -> (prompt, completion) tokens as OpenAI's API counts a chat request."""
    from finchain_tasks._registry import offline_tiktoken

    offline_tiktoken()
    import tiktoken

    enc = tiktoken.get_encoding("o200k_base")

    def usage(path, body, text):
        messages = body.get("messages", []) if isinstance(body, dict) else []
        prompt = 3 + sum(3 + len(enc.encode(str(m.get("content") or ""), disallowed_special=())) for m in messages)
        return prompt, len(enc.encode(text, disallowed_special=()))

    return usage


def _registry(path, base_url, templates):
    path.write_text("\n".join([
        "version: 1", "extends: default", "models:",
        f"  - {{name: priced, display_name: Priced, litellm_model: openai/gpt-4.1-mini, category: general, "
        f"open_weights: false, api_key_env: {KEY_ENV}, api_base: '{base_url}'}}",
        "task_sets:", "  mini:", "    task: finchain", f"    args: {{seeds: [0], template: [{', '.join(templates)}]}}",
    ]) + "\n", encoding="utf-8")
    return path


def _bench(registry, run_dir, *extra):
    return ["bench", "--registry", str(registry), "--models", "local-gemma3-270m,priced", "--tasks", "mini",
            "--run-dir", str(run_dir), "--limit", "3", "--display", "none", "--retry-wait", "0.05", *extra]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished bench (the local model and a priced model, 3 problems) on the fake server, and its summary."""
    root = tmp_path_factory.mktemp("plan")
    problems = plan_problems(4)
    mp = pytest.MonkeyPatch()
    mp.setenv(KEY_ENV, KEY)
    mp.setenv("XDG_DATA_HOME", str(root / "xdg"))
    mp.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    try:
        with FakeOpenAI(reply=make_reply(problems), usage=_openai_usage()) as server:
            mp.setenv("FINCHAIN_LOCAL_API_BASE", server.base_url)
            registry = _registry(root / "registry.yaml", server.base_url, [p.template_id for p in problems])
            run_dir = root / "run"
            result = CliRunner().invoke(app, _bench(registry, run_dir))
            assert result.exit_code == 0, result.output
            planned = CliRunner().invoke(app, _bench(registry, run_dir, "--plan", "--json"))
            fresh = CliRunner().invoke(app, _bench(registry, root / "empty", "--plan", "--json"))
        summary = json.loads((run_dir / SUMMARY).read_text())
        yield {"summary": summary, "plan": json.loads(planned.stdout), "fresh": json.loads(fresh.stdout),
               "run_dir": run_dir, "registry": registry, "sent": len(server.requests)}
    finally:
        mp.undo()


def _row(plan, model):
    return next(r for r in plan["rows"] if r["model"] == model)


@pytest.mark.slow  # shares one finished bench run (module fixture)
def test_the_plan_matches_the_finished_run(finished):
    plan, summary = finished["plan"], finished["summary"]
    assert finished["sent"] == 6  # 3 problems x 2 models, each sent once
    for result in summary["results"]:
        row = _row(plan, result["model"])
        assert row["requests"] == result["requested"] == 3
        error = EXACT_ERROR if row["tokenizer_exact"] else APPROX_ERROR
        assert abs(row["prompt_tokens"] - result["input_tokens"]) <= error * result["input_tokens"]
        assert row["output_tokens"]["source"].startswith("earlier run")
        assert abs(row["output_tokens"]["expected"] - result["output_tokens"]) <= 1
        assert row["answered_in_run_dir"] == result["completed"] == 3
    priced, recorded = _row(plan, "priced"), next(r for r in summary["results"] if r["model"] == "priced")
    assert recorded["cost_usd"] is not None
    assert priced["tokenizer"] == "tiktoken o200k_base" and priced["tokenizer_exact"]
    assert priced["cost_usd"]["expected"] == pytest.approx(recorded["cost_usd"], rel=EXACT_ERROR)
    assert _row(plan, "local-gemma3-270m")["cost_usd"] is None  # no price anywhere: unknown, never 0
    alone = totals([_row(plan, "local-gemma3-270m")])
    assert alone["cost_usd"] is None and alone["batch_cost_usd"] is None  # a sum of nothing is unknown too
    assert totals([priced])["cost_usd"] == priced["cost_usd"]
    assert plan["totals"]["requests"] == sum(r["requested"] for r in summary["results"])


@pytest.mark.slow  # shares one finished bench run (module fixture)
def test_without_an_earlier_run_the_plan_uses_stated_defaults(finished):
    fresh = finished["fresh"]
    local = _row(fresh, "local-gemma3-270m")
    assert local["output_tokens"]["source"].startswith("default")
    assert local["output_tokens"]["high"] == 3 * 256  # capped at the model's max_tokens
    assert local["output_tokens"]["low"] <= local["output_tokens"]["expected"] <= local["output_tokens"]["high"]
    assert local["wall_basis"].startswith("default") and local["connections"] == 1
    assert not (finished["run_dir"].parent / "empty").exists()  # --plan writes nothing


@pytest.mark.slow  # shares one finished bench run (module fixture)
def test_a_plan_reads_output_tokens_from_the_response_cache_and_survives_a_corrupt_one(finished, tmp_path):
    from finchain_tasks.runs.plan import Earlier, earlier_from_cache, earlier_from_summary

    from_cache = earlier_from_cache(finished["run_dir"])
    recorded = {r["model"]: r["output_tokens"] / r["requested"] for r in finished["summary"]["results"]}
    assert from_cache["openai/gpt-4.1-mini"].output_per_request == pytest.approx(recorded["priced"])
    for bad in (float("nan"), 1e308, -5, "12", None, True):
        (tmp_path / SUMMARY).write_text(json.dumps({"results": [
            {"model": "m", "task_set": "t", "completed": 3, "failed": 0, "requested": 3, "output_tokens": bad,
             "wall_s": bad}]}), encoding="utf-8")
        assert earlier_from_summary(tmp_path, {}) == {}, bad  # a hand-edited figure falls back to the defaults
    (tmp_path / SUMMARY).write_text(json.dumps({"results": [
        {"model": "m", "task_set": "t", "completed": 3, "failed": 1, "requested": 4, "output_tokens": 400,
         "wall_s": float("nan")}]}), encoding="utf-8")
    assert earlier_from_summary(tmp_path, {"t": 2})[("m", "t")] == Earlier(50.0, None, 8, "earlier run (summary.json)")
    (tmp_path / CACHE).write_bytes(b"not a database" * 100)
    (tmp_path / SUMMARY).write_text("{not json", encoding="utf-8")
    assert earlier_from_cache(tmp_path) == {} and earlier_from_summary(tmp_path, {}) == {}
    db = sqlite3.connect(tmp_path / "c.sqlite")
    db.execute("CREATE TABLE responses (key, model, request, output, created)")
    db.execute("INSERT INTO responses VALUES ('k', 'm', 'nan', '<html>', 0)")
    db.commit()
    db.close()
    (tmp_path / "c.sqlite").replace(tmp_path / CACHE)
    assert earlier_from_cache(tmp_path) == {}  # rows that do not parse are skipped, not fatal


@pytest.mark.slow  # shares one finished bench run (module fixture)
def test_the_paper_matrix_prints_every_model_at_80_columns(finished, monkeypatch):
    from finchain_tasks.models.registry import load_registry

    reg = load_registry(finished["registry"])
    for spec in reg.models.values():
        for env in (spec.api_key_env, spec.api_base_env):
            if env:
                monkeypatch.delenv(env, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-plan-test")
    result = CliRunner().invoke(app, ["bench", "--registry", str(finished["registry"]), "--tasks", "mini",
                                      "--plan", "--json"])
    plan = json.loads(result.stdout)
    assert {r["model"] for r in plan["rows"]} == set(reg.models)
    assert _row(plan, "gpt-5")["skip"] is None and _row(plan, "gpt-5")["tokenizer_exact"]
    assert _row(plan, "claude-sonnet-4.5")["skip"] == "ANTHROPIC_API_KEY not set"
    assert _row(plan, "gpt-4.1")["batch"]["cost_usd"]["expected"] < _row(plan, "gpt-4.1")["cost_usd"]["expected"]
    assert all(r["cost_usd"] is None or r["cost_usd"]["expected"] > 0 for r in plan["rows"])
    assert "fin-r1" in plan["totals"]["unknown_cost_models"]
    console = Console(width=80, record=True, force_terminal=False)
    for table in tables(plan):
        console.print(table)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text and "unknown" in text
    for name in reg.models:
        assert name[:12] in text.replace("\n", "")


def test_json_without_plan_is_one_line_error():
    result = CliRunner().invoke(app, ["eval", "--json"])
    assert result.exit_code != 0 and "--json goes with --plan" in result.output


@given(st.floats(min_value=0, max_value=1e308, allow_nan=False))
def test_compact_counts_and_money_stay_short_and_never_hide_a_cost(n):
    assert len(compact(n)) <= 7
    text = money(n)
    assert text.startswith(("$", "<$")) and (n == 0) == (text == "$0")
    assert len(duration(min(n, 1e9))) <= 8


def test_cost_cells_say_unknown_and_show_ranges():
    assert cost_cell(None) == "unknown"
    assert cost_cell({"expected": 2.0, "low": 1.0, "high": 3.0}) == "$2.00\n$1.00-3.00"
    assert cost_cell({"expected": 0.004, "low": 0.004, "high": 0.004}) == "<$0.01"


def test_counters_fall_back_to_a_stated_approximation():
    from finchain_tasks.runs.tokens import MESSAGE_OVERHEAD, REPLY_PRIMING, chars_counter

    counter = chars_counter()
    prompt = [{"role": "system", "content": "x" * 9}, {"role": "user", "content": "以下是一道题" * 3}]
    assert not counter.exact and counter.name.startswith("≈")
    assert counter.count(prompt) == math.ceil(9 / 4) + math.ceil(18 / 4) + 2 * MESSAGE_OVERHEAD + REPLY_PRIMING
    assert counter.total([prompt, prompt]) == 2 * counter.count(prompt)
    assert counter.count([{"role": "user", "content": ""}]) == MESSAGE_OVERHEAD + REPLY_PRIMING


def test_an_open_model_in_the_local_hf_cache_is_counted_with_its_own_chat_template(tmp_path):
    from finchain_tasks.models.registry import ModelSpec
    from finchain_tasks.runs.tokens import Counters
    from scorers.prm.tiny import tiny_tokenizer

    tokenizer = tiny_tokenizer()
    tokenizer.chat_template = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<eos>{% endfor %}"
                               "{% if add_generation_prompt %}<|assistant|>{% endif %}")
    snapshot = tmp_path / "models--acme--tiny" / "snapshots" / ("0" * 40)
    tokenizer.save_pretrained(snapshot)
    (snapshot / "config.json").write_text('{"model_type": "qwen3"}')  # a model repository always has one
    (tmp_path / "models--acme--tiny" / "refs").mkdir()
    (tmp_path / "models--acme--tiny" / "refs" / "main").write_text("0" * 40)
    spec = ModelSpec(name="tiny", display_name="Tiny", litellm_model="hosted_vllm/acme/tiny", category="general",
                     open_weights=True, hf_id="acme/tiny")
    prompt = [{"role": "system", "content": "Solve step by step."}, {"role": "user", "content": "NPV of $1,200?"}]
    counter = Counters(hf_cache=str(tmp_path)).for_model(spec)
    assert counter.exact and counter.name == "hf acme/tiny"
    expected = tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=False)
    assert counter.count(prompt) == len(tokenizer(expected, add_special_tokens=False)["input_ids"])
    missing = ModelSpec(name="gone", display_name="Gone", litellm_model="hosted_vllm/acme/gone", category="general",
                        open_weights=True, hf_id="acme/gone")
    assert not Counters(hf_cache=str(tmp_path)).for_model(missing).exact  # not cached: approximated, not fetched


def test_a_plan_of_a_billion_seeds_is_refused_in_one_line(tmp_path):
    registry = tmp_path / "r.yaml"
    registry.write_text("version: 1\nmodels:\n  - {name: m, display_name: M, litellm_model: openai/m, "
                        "category: general, open_weights: false, api_base: 'http://127.0.0.1:9/v1'}\n"
                        "task_sets:\n  big: {task: finchain, args: {seeds: 1000000000}}\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["bench", "--registry", str(registry), "--tasks", "big", "--plan", "--limit", "2"])
    assert result.exit_code == 2, result.output
    assert len([ln for ln in result.output.splitlines() if "problems, more than" in ln]) == 1
    assert "Traceback" not in result.output


def test_requests_count_best_of_n_candidates_and_voting_epochs(tmp_path):
    """samples x epochs x N: Best-of-N's sampler (which asks the model itself) renders the same prompt, and
    CFLUE's n runs every question n times (epochs)."""
    from finchain_tasks.models.registry import load_registry
    from finchain_tasks.runs.engine import plan_task_set
    from finchain_tasks.runs.rendered import render_task_set

    templates = [p.template_id for p in plan_problems(2)]
    registry = tmp_path / "r.yaml"
    registry.write_text("version: 1\nextends: default\ntask_sets:\n"
                        f"  bon: {{task: finchain, args: {{seeds: [0, 1], template: [{', '.join(templates)}], "
                        "samples: 4}}\n  vote: {task: cflue, args: {n: 3}}\n", encoding="utf-8")
    reg = load_registry(registry)
    bon, vote = (render_task_set(plan_task_set(reg, name)) for name in ("bon", "vote"))
    assert (len(bon.prompts), bon.epochs, bon.candidates, bon.requests) == (4, 1, 4, 16)
    assert bon.prompts[0][0]["role"] == "system" and bon.prompts[0][-1]["role"] == "user"
    assert (vote.epochs, vote.candidates, vote.requests) == (3, 1, 3 * len(vote.prompts))
    assert "题目" in vote.prompts[0][-1]["content"]  # the shipped sample's Chinese prompt, rendered
    assert render_task_set(plan_task_set(reg, "bon"), limit=1).requests == 4
