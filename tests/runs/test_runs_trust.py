"""Results a researcher can trust (issue 10), end to end against FakeOpenAI on 127.0.0.1:

- two registry models of one litellm id (the same server at temperature 0 and 0.8) keep their own names,
  settings and numbers; their temperature and max_tokens travel as Inspect generation config and are
  what the server received; the summary gives each score a standard error (equal to the one Inspect
  logged) and a 95% interval, the settings, the skipped models and the coverage; ``--limit`` takes the
  same stratified problems for both;
- a corrupt response cache is set aside with a one-line warning, and a bench against a server that
  injects faults (empty choices, null content, 429, 500, stalls, malformed JSON at 20%, seeded), followed
  by a re-run, leaves every sample completed exactly once with the right score.
"""

import json
import math
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.runs import CACHE, LOGS, REPORT_HTML, REPORT_MD, SUMMARY
from finchain_tasks.runs.cache import ResponseCache
from finchain_tasks.runs.summary import latest_logs, sample_rows
from tests.support.bench_helpers import (
    KEY,
    KEY_ENV,
    TASK_SET,
    UNSET_ENV,
    WRONG,
    make_reply,
    plan_problems,
    question_of,
    write_registry,
)
from tests.support.fake_openai import Chaos, FakeOpenAI

pytestmark = pytest.mark.slow


@pytest.fixture
def bench_env(monkeypatch, tmp_path):
    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.delenv(UNSET_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return tmp_path


def _twins_registry(path: Path, base_url: str, templates: list[str]) -> Path:
    """Two registry models of ONE litellm id, different temperature and max_tokens, plus one without its key."""
    rows = [("cool", "0.0", 128, KEY_ENV), ("warm", "0.8", 256, KEY_ENV), ("nokey", "0.0", 64, UNSET_ENV)]
    lines = ["version: 1", "models:"]
    for name, temperature, max_tokens, env in rows:
        lines.append(f"  - {{name: {name}, display_name: Twin {name}, litellm_model: openai/twin, category: general, "
                     f"open_weights: false, api_key_env: {env}, api_base: '{base_url}', "
                     f"generation: {{temperature: {temperature}, max_tokens: {max_tokens}}}}}")
    lines += ["task_sets:", f"  {TASK_SET}:", "    task: finchain",
              f"    args: {{seeds: [0, 1], template: [{', '.join(templates)}]}}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _args(registry: Path, run_dir: Path, models: str, *extra: str) -> list[str]:
    return ["bench", "--registry", str(registry), "--models", models, "--tasks", TASK_SET, "--run-dir", str(run_dir),
            "--retry-wait", "0.05", "--display", "none", *extra]


def test_twins_of_one_litellm_id_keep_their_names_generation_config_numbers_and_stats(bench_env):
    problems = plan_problems(3)
    gold = {p.question: p.solution for p in problems}
    # the cool twin answers with the gold solution, the warm one always wrongly: their numbers must differ
    reply = lambda body: gold.get(question_of(body), WRONG) if body.get("temperature") == 0 else WRONG  # noqa: E731
    run_dir = bench_env / "run"
    limit = len({p.domain for p in problems})  # of 2 seeds x 3 templates: a real sample, seed 0 of each first
    with FakeOpenAI(reply=reply) as server:
        registry = _twins_registry(bench_env / "r.yaml", server.base_url, [p.template_id for p in problems])
        result = CliRunner().invoke(app, _args(registry, run_dir, "cool,warm,nokey", "--limit", str(limit),
                                               "--profile", "reference"))
    assert result.exit_code == 0, result.output
    assert "not distinct" not in result.output
    assert "0.75" in " ".join(result.output.split())  # the reference profile's floor, said under the tables

    sent = {(r.body["temperature"], r.body["max_tokens"]) for r in server.requests}
    assert sent == {(0.0, 128), (0.8, 256)}  # what the registry asked, as received by the server
    asked = Counter(r.body["temperature"] for r in server.requests)
    assert asked == {0.0: limit, 0.8: limit}
    by_temp = {t: {question_of(r.body) for r in server.requests if r.body["temperature"] == t} for t in (0.0, 0.8)}
    assert by_temp[0.0] == by_temp[0.8]  # the same stratified sample for both models (paired)
    chosen = [p for p in problems if p.question in by_temp[0.0]]
    assert {p.domain for p in chosen} == {p.domain for p in problems}  # a limit spreads over the domains

    headers = {h.eval.metadata["finchain_model"]: h for h in latest_logs(run_dir / LOGS)}
    assert set(headers) == {"cool", "warm"}
    for name, (temperature, max_tokens) in {"cool": (0.0, 128), "warm": (0.8, 256)}.items():
        config, args = headers[name].eval.model_generate_config, headers[name].eval.model_args
        assert (config.temperature, config.max_tokens) == (temperature, max_tokens)
        assert "temperature" not in args and "max_tokens" not in args and args["finchain_model"] == name

    summary = json.loads((run_dir / SUMMARY).read_text())
    rows = {r["model"]: r for r in summary["results"]}
    assert set(rows) == {"cool", "warm"}
    assert rows["cool"]["scores"]["fac"] == 1.0 and rows["warm"]["scores"]["fac"] == 0.0
    for name, row in rows.items():
        assert (row["completed"], row["requested"]) == (limit, limit)
        assert row["settings"]["temperature"] == {"cool": 0.0, "warm": 0.8}[name]
        assert row["settings"]["max_tokens"] == {"cool": 128, "warm": 256}[name]
        assert row["settings"]["profile"] == "reference" and row["settings"]["limit"] == limit
        assert row["settings"]["task_version"] and row["settings"]["seeds"] == [0, 1]
        assert row["settings"]["sample_order"]["seed"] == 0
        values = [s["scores"]["chaineval"] for s in sample_rows(headers[name])]
        mean = sum(values) / len(values)
        se = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1) / len(values))
        stat = row["stats"]["chaineval"]
        assert stat["mean"] == pytest.approx(mean) and stat["stderr"] == pytest.approx(se)
        assert stat["ci95"] == pytest.approx([mean - 1.96 * se, mean + 1.96 * se], abs=1e-4)
        logged = {s.name: s.metrics for s in headers[name].results.scores}["chaineval"]
        assert stat["stderr"] == pytest.approx(logged["stderr"].value)  # the host's own figure
    assert summary["skipped"] == [{"model": "nokey", "reason": f"{UNSET_ENV} not set"}]
    assert summary["coverage"]["domains_with_templates"]
    report = (run_dir / REPORT_MD).read_text()
    page = (run_dir / REPORT_HTML).read_text()
    for text in (report, page):
        assert "Twin cool" in text and "Twin warm" in text and "nokey" in text and UNSET_ENV in text
        assert "±" in text and "95% interval" in text and "Coverage" in text
        assert "†" in text and "0.75" in text
    se = rows["cool"]["stats"]["chaineval"]["stderr"]
    assert f"±{se:.3f}" in report


def test_faults_and_a_corrupt_cache_end_after_a_rerun_with_every_sample_completed_once_and_right(bench_env):
    problems = plan_problems(12)
    expected_fac = {p.id: (1.0 if i % 2 == 0 else 0.0) for i, p in enumerate(problems)}  # make_reply's pattern
    run_dir = bench_env / "run"
    run_dir.mkdir()
    (run_dir / CACHE).write_bytes(b"this is not a SQLite database, it was damaged" * 100)
    chaos = Chaos(rate=0.3, seed=8)  # a seed whose first draws exercise every fault kind with these 12 problems
    with FakeOpenAI(reply=make_reply(problems), chaos=chaos) as server:
        registry = write_registry(bench_env / "r.yaml", server.base_url, ["fake-a", "fake-b"],
                                  [p.template_id for p in problems])
        base = _args(registry, run_dir, "fake-a,fake-b", "--timeout", "5", "--max-connections", "4")
        first = CliRunner().invoke(app, [*base, "--max-retries", "0", "--retry-attempts", "0"])
        kinds_first = Counter(r.fault.kind for r in server.requests if r.fault)
        broken = run_dir / LOGS / "2026-01-01T00-00-00+00-00_finchain_broken.eval"
        broken.write_bytes(b"PK\x03\x04 a log whose writer was killed")  # a damaged log must not stop the resume
        second = CliRunner().invoke(app, [*base, "--max-retries", "8"])
    assert first.exit_code == 1, first.output  # with no retries, faults failed samples
    assert second.exit_code == 0, second.output
    assert f"the log {broken} is unreadable" in " ".join(second.stderr.split()), second.stderr
    assert not broken.exists() and list(broken.parent.glob(f"{broken.name}.unreadable-*"))
    warnings = [ln for ln in first.output.splitlines() if "response cache" in ln and "set aside" in ln]
    assert len(warnings) == 1, first.output
    assert list(run_dir.glob(f"{CACHE}.corrupt-*"))
    assert kinds_first, "the first run met no fault"

    kinds = Counter(r.fault.kind for r in server.requests if r.fault)
    assert set(kinds) == {"empty_choices", "null_content", "status", "delay", "malformed"}, kinds  # all exercised
    assert {r.fault.status for r in server.requests if r.fault and r.fault.kind == "status"} == {429, 500}
    final = {}
    for header in latest_logs(run_dir / LOGS):
        for row in sample_rows(header):
            key = (header.eval.metadata["finchain_model"], row["id"])
            assert key not in final, f"{key} twice"
            final[key] = row
    assert set(final) == {(m, p.id) for m in ("fake-a", "fake-b") for p in problems}
    for (_, sid), row in final.items():
        assert row["error"] is None, row["error"]
        assert row["scores"]["fac"] == expected_fac[sid]
        if expected_fac[sid]:
            assert row["scores"]["chaineval"] == pytest.approx(1.0)
    answered = Counter((r.body["model"], question_of(r.body)) for r in server.requests if r.fault is None)
    assert set(answered.values()) == {1}  # an answer once received is never asked for again
    cache = ResponseCache(run_dir / CACHE)
    outputs = [json.loads(e["output"]) for e in cache.entries()]
    assert len(outputs) == 2 * len(problems)
    assert all(o["choices"] and o["choices"][0]["message"]["content"] for o in outputs)
    summary = json.loads((run_dir / SUMMARY).read_text())
    assert all((r["completed"], r["failed"], r["missing"]) == (len(problems), 0, []) for r in summary["results"])


def test_a_cflue_smoke_run_shows_the_robust_invalid_rate_beside_the_strict_one(bench_env):
    """A model that answers only in a form the official rule cannot read: strict says every answer is
    invalid, robust reads them; both rates are in the summary and the report."""
    run_dir = bench_env / "run"
    with FakeOpenAI(reply="Let me think.\nThe answer is (B).") as server:
        registry = bench_env / "r.yaml"
        registry.write_text("\n".join([
            "version: 1", "models:",
            f"  - {{name: fake-a, display_name: Fake A, litellm_model: openai/fake-a, category: general, "
            f"open_weights: false, api_key_env: {KEY_ENV}, api_base: '{server.base_url}'}}",
            "task_sets:", "  cf: {task: cflue, args: {type: single_choice}}", ""]), encoding="utf-8")
        result = CliRunner().invoke(app, ["bench", "--registry", str(registry), "--models", "fake-a", "--tasks", "cf",
                                          "--run-dir", str(run_dir), "--display", "none", "--limit", "4"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads((run_dir / SUMMARY).read_text())["results"]
    assert row["completed"] == 4 and row["settings"]["extract"] == "robust"  # the default profile's reading
    assert row["scores"]["invalid_strict"] == 1.0 and row["scores"]["invalid_robust"] == 0.0
    assert "invalid_strict" in result.output and "invalid_robust" in result.output
    report = (run_dir / REPORT_MD).read_text()
    assert "| invalid_robust | invalid_strict |" in report
