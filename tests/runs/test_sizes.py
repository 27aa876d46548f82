"""Sizes are validated before anything is allocated (issue 33.6): ``seeds: 1000000000`` in a registry task set
grew to 11 GB under ``--limit 2`` before the kernel killed it. Every entry point refuses an oversized selection
in one line and writes nothing; an ordinary one is unchanged."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.finchain.generate import MAX_PROBLEMS, check_size, seed_list

HUGE = 1_000_000_000


def test_check_size_is_exact_at_the_limit():
    check_size(1, MAX_PROBLEMS)
    check_size(MAX_PROBLEMS, 1)
    with pytest.raises(ValueError, match=r"^1,000,000,000 seeds × 290 templates = 290,000,000,000 problems, more"):
        check_size(290, HUGE)
    assert seed_list(3, 5) == [5, 6, 7]
    for fresh in (False, True):  # a fresh draw of a billion would loop for hours; a range would take gigabytes
        with pytest.raises(ValueError, match="more than the 1,000,000 problems one run may hold"):
            seed_list(HUGE, fresh=fresh)


@pytest.mark.parametrize("entry", ["inspect", "lm-eval", "seed_list"])
def test_rule_a_size_refusal_names_the_real_template_count_or_none(entry):
    """Issue 40.4: a billion seeds of a 290-template task set were refused as "× 1 templates"."""
    with pytest.raises(ValueError) as err:
        if entry == "inspect":
            from finchain_tasks.inspect.tasks import finchain

            finchain(seeds=HUGE)
        elif entry == "lm-eval":
            from finchain_tasks.lm_eval.dataset import load_finchain

            load_finchain(finchain_domain="corporate_finance", finchain_level="easy", finchain_seeds=HUGE)
        else:
            seed_list(HUGE)
    message = str(err.value)
    assert "× 1 templates" not in message and "\n" not in message
    if entry == "inspect":
        assert "1,000,000,000 seeds × 290 templates = 290,000,000,000 problems" in message
    elif entry == "lm-eval":
        assert re.match(r"1,000,000,000 seeds × [0-9]+ templates", message) and "× 1 templates" not in message
    else:
        assert message.startswith("1,000,000,000 seeds are more than the 1,000,000 problems one run may hold")


def test_the_inspect_task_refuses_before_generating():
    from finchain_tasks.inspect.tasks import finchain

    with pytest.raises(ValueError, match=r"100,000 seeds × 290 templates = 29,000,000 problems"):
        finchain(seeds=100_000)
    assert len(finchain(seeds=1, domain="corporate_finance").dataset) > 0


@pytest.mark.parametrize("harness", ["lm-eval"])  # Inspect's bench builds the task above (9 s more to run here)
def test_a_registry_task_set_with_a_billion_seeds_is_refused_in_one_line(tmp_path, harness):
    registry = tmp_path / "r.yaml"
    registry.write_text("version: 1\nmodels:\n  - {name: m, display_name: M, litellm_model: openai/m, "
                        "category: general, open_weights: false, api_base: 'http://127.0.0.1:9/v1'}\n"
                        f"task_sets:\n  big: {{task: finchain, args: {{seeds: {HUGE}}}}}\n", encoding="utf-8")
    run_dir = tmp_path / "run"
    result = CliRunner().invoke(app, ["bench", "--harness", harness, "--registry", str(registry), "--models", "m",
                                      "--tasks", "big", "--limit", "2", "--run-dir", str(run_dir)])
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.splitlines() if "problems, more than" in ln]
    assert len(lines) == 1 and "Traceback" not in result.output
    assert not run_dir.exists() or not any(run_dir.rglob("*.eval"))


def test_generate_refuses_and_writes_nothing(tmp_path):
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(app, ["generate", "-n", str(HUGE), "-o", str(out)])
    assert result.exit_code == 2 and "more than the 1,000,000 one run may hold" in " ".join(result.output.split())
    assert not out.exists()
