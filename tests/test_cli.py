"""The finchain command: real invocations, clear one-line errors, files that read back."""

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.engine import Problem, all_templates
from tests.support.timeouts import limit

runner = CliRunner()


class Outcome:
    """A CLI result whose output has rich's line wrapping folded back into single spaces."""

    def __init__(self, result):
        self.exit_code = result.exit_code
        self.output = " ".join(result.output.split())


def invoke(*args):
    return Outcome(runner.invoke(app, list(args), catch_exceptions=False))


def test_list_shows_every_template():
    result = invoke("list")
    assert result.exit_code == 0
    assert f"{len(all_templates())} FinChain templates" in result.output


def test_list_advanced_shows_the_concepts_each_combines():
    result = invoke("list", "--level", "advanced", "--domain", "investment_analysis")
    assert result.exit_code == 0 and "combines" in result.output
    tpl = all_templates()["investment_analysis/npv/two_stage_growth"]
    assert " ".join("; ".join(tpl.concepts).split()) in result.output


def test_show_prints_question_and_trace():
    result = invoke("show", "finchain/investment_analysis/npv/two_stage_growth/3")
    assert result.exit_code == 0 and "Step 1:" in result.output and "Final answer:" in result.output


def test_generate_jsonl_with_filters_reads_back(tmp_path):
    out = tmp_path / "deep" / "p.jsonl"
    result = invoke("generate", "-d", "personal_finance", "-l", "advanced", "-n", "3", "-o", str(out))
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 5 * 3 and {r["level"] for r in rows} == {"advanced"}
    assert all(Problem.from_dict(r).to_dict() == r for r in rows)


def test_fresh_seeds_avoid_the_canonical_range(tmp_path):
    out = tmp_path / "f.jsonl"
    assert invoke("generate", "--template", "annual_compounding", "--fresh", "-n", "4", "-o", str(out)).exit_code == 0
    seeds = [json.loads(line)["seed"] for line in out.read_text().splitlines()]
    assert len(set(seeds)) == 4 and min(seeds) >= 1_000_000


def test_parquet_output(tmp_path):
    pytest.importorskip("datasets", reason="the hf extra is not installed")
    out = tmp_path / "p.parquet"
    assert invoke("generate", "-t", "budgeting", "-n", "2", "-f", "parquet", "-o", str(out)).exit_code == 0
    import pyarrow.parquet as pq

    assert pq.read_table(out).num_rows == 10


@pytest.mark.parametrize("args, message", [
    (["generate", "-d", "astrology"], "unknown domain ['astrology']"),
    (["generate", "-n", "-2"], "--seeds must be zero or more"),
    (["generate", "-f", "xlsx"], "--format must be jsonl, parquet or hf"),
    (["generate", "-o", "/proc/no/such/dir/x.jsonl"], "cannot write /proc/no/such/dir/x.jsonl"),
    (["show", "finchain/nope"], "expected finchain/<domain>/<topic>/<template>/<seed>"),
    (["show", "finchain/a/b/c/1"], "no template 'a/b/c'"),
    (["verify", "--file", "/no/such.jsonl"], "No such file"),
    (["score", "/no/such.jsonl"], "no such file"),
    (["score", "x.jsonl", "--profile", "fancy"], "unknown ChainEval profile 'fancy'"),
])
def test_bad_arguments_give_one_clear_line(args, message):
    result = invoke(*args)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_verify_reports_a_tampered_record(tmp_path):
    good = all_templates()["investment_analysis/roi/simple_roi"].generate(1).to_dict()
    bad = json.loads(json.dumps(good))
    bad["steps"][1]["value"] = bad["steps"][1]["value"] + 1000
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    result = invoke("verify", "--file", str(path))
    assert result.exit_code == 1 and "step 2" in result.output and "in 1 of 2 problems" in result.output


def test_verify_names_the_line_of_a_malformed_file(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"id": 1}\nnot json\n')
    result = invoke("verify", "--file", str(path))
    assert result.exit_code == 2 and "rows.jsonl:1" in result.output


def test_score_mixed_rows_keeps_every_row(tmp_path):
    problems = [t.generate(0) for t in list(all_templates().values())[:3]]
    rows = [
        {**problems[0].to_dict(), "output": problems[0].solution},                      # structured gold
        {"id": "ref-1", "solution": problems[1].solution, "model_generation": "no idea"},  # reference rows
        {"id": problems[2].id, "response": problems[2].solution},                        # gold from the id
        {"id": "broken", "output": "x"},                                                 # no gold
    ]
    path = tmp_path / "pred.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n{oops\n")
    out = tmp_path / "scores.jsonl"
    result = invoke("score", str(path), "-o", str(out))
    assert result.exit_code == 1
    scored = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(scored) == 5
    assert scored[0]["chaineval"] == pytest.approx(1.0, abs=1e-6) and scored[0]["fac"] == 1.0
    assert scored[1]["chaineval"] == 0.0 and scored[1]["fac"] == 0.0
    assert scored[2]["fac"] == 1.0 and scored[2]["domain"] == problems[2].domain
    assert "no gold" in scored[3]["error"] and "not JSON" in scored[4]["error"]
    assert scored[0]["chaineval_meta"]["embedding_model"].endswith("all-MiniLM-L6-v2")
    assert "2 could not be scored" in result.output


def test_console_script_runs():
    result = subprocess.run([sys.executable, "-m", "finchain_tasks.cli.main", "--version"],
                            capture_output=True, text=True, timeout=limit(300))
    assert result.returncode == 0 and "finchain-tasks" in result.stdout


# -- finchain verify: the template standard over many seeds --------------------------------------
def _clean(b):
    b.money("principal", 1_000, 90_000, step=10)
    b.percent("rate", 2, 9, decimals=2)
    b.ask("{principal} earns {rate} for a year. How much interest does it earn?")
    b.step("interest", "Interest for the year", "principal * rate / 100", unit="$")


def _lopsided(b):
    b.money("a", 100, 1_000)
    b.money("c", 100, 1_000)
    b.ask("Project A returns {a} plus a $400 bonus, Project B {c}. Which project returns more?")
    b.step("gap", "Return of A with the bonus minus return of B", "a + 400 - c", unit="$")
    b.step("pick", "Project that returns more", "'Project A' if gap > 0 else 'Project B'")


def _standard_templates(monkeypatch, *fns):
    from finchain_tasks.cli import dataset
    from finchain_tasks.engine import Template

    chosen = [Template("test_domain", "test_topic", fn.__name__.strip("_"), "easy", fn, 99 << 32) for fn in fns]
    monkeypatch.setattr(dataset, "_select", lambda *filters: chosen)


def test_verify_report_prints_the_figures_and_passes(monkeypatch):
    _standard_templates(monkeypatch, _clean)
    result = invoke("verify", "--seeds", "40", "--report")
    assert result.exit_code == 0, result.output
    assert "Template standard: figures per template" in result.output
    assert "clean E - 100.0%" in result.output  # name, level, no categorical answer, every question distinct
    assert "all 1 templates meet every rule (40 seeds each, variety over 1000)" in result.output


def test_verify_fails_naming_template_seed_and_rule(monkeypatch):
    _standard_templates(monkeypatch, _clean, _lopsided)
    result = invoke("verify", "--seeds", "40", "--report")
    assert result.exit_code == 1
    assert "FAIL test_domain/test_topic/lopsided, seed " in result.output
    assert ", rule balance: option 1 of 2 is the answer in" in result.output
    assert "in 1 of 2 templates (40 seeds each" in result.output


def test_verify_rejects_a_seed_count_below_one():
    result = invoke("verify", "--seeds", "0")
    assert result.exit_code == 2 and "--seeds must be at least 1, got 0" in result.output


def test_verify_file_checks_the_stored_solution_text(tmp_path):
    good = all_templates()["investment_analysis/roi/simple_roi"].generate(1).to_dict()
    edited = json.loads(json.dumps(good))
    edited["solution"] = edited["solution"].replace("Step 1: ", "Step 1: npv(x) ", 1)
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(edited) + "\n")
    result = invoke("verify", "--file", str(path))
    assert result.exit_code == 1 and "in 1 of 2 problems" in result.output
    assert "rule text: stored solution line 1 is 'Step 1: npv(x) " in result.output


def _leaky(b):
    b.money("principal", 1_000, 90_000, step=10)
    b.percent("rate", 2, 9, decimals=2)
    b.ask("{principal} earns {rate} for a year. How much interest does it earn?")
    b.step("interest", "Value of interest_due", "principal * rate / 100", unit="$")


def test_verify_all_prints_every_failing_seed(monkeypatch):
    _standard_templates(monkeypatch, _leaky)
    grouped = invoke("verify", "--seeds", "30")
    every = invoke("verify", "--seeds", "30", "--all")
    assert grouped.exit_code == every.exit_code == 1
    assert grouped.output.count("FAIL ") == 1 and "... and 29 more seeds failing rule text" in grouped.output
    assert every.output.count("FAIL ") == 30 and "identifier 'interest_due'" in every.output
