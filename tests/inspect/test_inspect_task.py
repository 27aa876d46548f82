"""The finchain Inspect task and the chaineval scorer, in process with mockllm.

The gold solution must score 1 on every key and a wrong answer 0; per-domain and per-level means
must appear in the log; re-scoring the log with the ``reference`` profile must give exactly what
``score_batch`` gives for the same (gold, output) pairs under that profile.
"""

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from inspect_ai import eval as inspect_eval
from inspect_ai import score as inspect_score
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from finchain_tasks import __version__
from finchain_tasks.engine import all_templates
from finchain_tasks.finchain import prompts
from finchain_tasks.finchain.generate import CANONICAL_SEEDS, FRESH_SEED_FLOOR
from finchain_tasks.finchain.versioning import task_version
from finchain_tasks.inspect.scorer import SCORE_KEYS, chaineval
from finchain_tasks.inspect.tasks import finchain
from scorers.chaineval import score_batch
from scorers.params import resolve
from scorers.rows import gold_of
from tests.support.timeouts import limit

WRONG = "Step 1: I cannot work this out from the question.\nFinal answer: unknown"
"""A step with no value and a wrong final answer: every key must be 0 (first error: gold step 1)."""


def _two_templates():
    """Two templates that differ in domain and in level, found in the registry (not hard-coded)."""
    templates = list(all_templates().values())
    first = templates[0]
    second = next(t for t in templates if t.domain != first.domain and t.level != first.level)
    return first, second


def test_default_task_is_the_canonical_split_of_every_template():
    task = finchain()
    templates = all_templates().values()
    samples = list(task.dataset)
    assert len(samples) == len(templates) * len(CANONICAL_SEEDS)
    assert len({s.id for s in samples}) == len(samples)
    assert {s.metadata["domain"] for s in samples} == {t.domain for t in templates}
    assert {s.metadata["level"] for s in samples} == {t.level for t in templates}
    first = next(iter(templates)).generate(0)
    sample = next(s for s in samples if s.id == first.id)  # the dataset is in the stratified order (--limit)
    assert sample.id == first.id and sample.input == first.question and sample.target == first.solution
    assert {"domain", "topic", "level", "template", "seed", "gold"} <= set(sample.metadata)
    assert task.version == task_version()
    assert task.metadata["finchain_tasks_version"] == __version__
    assert task.metadata["chaineval"] == resolve("paper").to_dict()
    assert task.metadata["embedder"]["embedding_model"] == resolve("paper").embedding_model
    assert task.headline_metric.scorer == "chaineval" and task.headline_metric.score == "chaineval"
    assert task.headline_metric.metric == "mean"


def test_selection_parameters_accept_lists_and_comma_text():
    first, second = _two_templates()
    by_list = finchain(domain=[first.domain, second.domain], level=[first.level, second.level], seeds=1)
    by_text = finchain(domain=f"{first.domain},{second.domain}", level=f"{first.level}, {second.level}", seeds=1)
    assert [s.id for s in by_list.dataset] == [s.id for s in by_text.dataset]
    assert {s.metadata["level"] for s in by_list.dataset} == {first.level, second.level}
    one = finchain(template=first.id, seeds=[3, 5])
    assert [s.id for s in one.dataset] == [first.generate(3).id, first.generate(5).id]


def test_fresh_seeds_avoid_the_canonical_split_and_are_recorded():
    first, _ = _two_templates()
    task = finchain(template=first.id, seeds=3, fresh=True)
    seeds = [s.metadata["seed"] for s in task.dataset]
    assert len(seeds) == 3 and all(seed >= FRESH_SEED_FLOOR for seed in seeds)
    assert task.metadata["seeds"] == seeds and task.metadata["fresh_seeds"] is True


@pytest.mark.parametrize("bad", [dict(domain="no_such_domain"), dict(level="impossible"),
                                 dict(seeds=[1, 2], fresh=True), dict(profile="no_such_profile"),
                                 dict(chaineval_params={"no_such_parameter": 1})])
def test_bad_parameters_fail_before_any_sample_runs(bad):
    with pytest.raises(ValueError):
        finchain(**bad)


def _mock(outputs_by_question: dict[str, str]):
    """mockllm answering each question with its scripted text (samples run concurrently, in any order)."""

    def answer(input, tools, tool_choice, config):
        output = ModelOutput.from_content("mockllm/model", outputs_by_question[input[-1].text])
        output.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)  # no tiktoken download
        return output

    return get_model("mockllm/model", custom_outputs=answer)


def _metric(score, group: str, name: str) -> float:
    """A grouped metric of an EvalScore by its group and name (the dict key carries Inspect's prefix)."""
    found = [m.value for m in score.metrics.values() if m.group == group and m.name == name]
    assert len(found) == 1, (group, name, list(score.metrics))
    return found[0]


@pytest.fixture(scope="module")
def scored_log(tmp_path_factory):
    """A paper-profile eval of 4 samples: gold answers for one template, wrong ones for the other."""
    first, second = _two_templates()
    task = finchain(template=[first.id, second.id], seeds=[0, 1])
    outputs = {s.input: (s.target if s.metadata["template"] == first.name else WRONG) for s in task.dataset}
    log = inspect_eval(task, model=_mock(outputs), display="none", log_dir=str(tmp_path_factory.mktemp("logs")))[0]
    assert log.status == "success", log.error
    assert sum(task.scorer[0].batcher.batch_sizes) == 4  # every sample went through the shared micro-batcher
    return log, first, second, outputs


def test_gold_scores_one_and_wrong_scores_zero_on_every_key(scored_log):
    log, first, _, _ = scored_log
    assert len(log.samples) == 4
    for sample in log.samples:
        value = sample.scores["chaineval"].value
        assert set(value) == set(SCORE_KEYS)
        if sample.metadata["template"] == first.name:
            assert value["chaineval"] == pytest.approx(1.0, abs=1e-6)
            assert {k: v for k, v in value.items() if k != "chaineval"} == {
                "fac": 1.0, "fac_strict": 1.0, "step_f1": 1.0, "precision": 1.0, "recall": 1.0, "parse_ok": 1.0,
                "no_error": 1.0, "err_1": 0.0, "err_2": 0.0, "err_3": 0.0, "err_4plus": 0.0}
            assert sample.scores["chaineval"].answer == sample.target.splitlines()[-1].split(": ", 1)[1]
        else:
            assert {k: value[k] for k in ("chaineval", "fac", "fac_strict", "step_f1", "precision", "recall")} == {
                "chaineval": 0.0, "fac": 0.0, "fac_strict": 0.0, "step_f1": 0.0, "precision": 0.0, "recall": 0.0}
            assert value["err_1"] == 1.0 and value["no_error"] == 0.0
            assert sample.scores["chaineval"].metadata["first_error_step"] == 1
            assert sample.scores["chaineval"].answer == "unknown"


def test_log_records_version_prompt_metrics_and_headline(scored_log):
    log, first, second, _ = scored_log
    assert log.eval.task_version == task_version()
    assert log.eval.metadata["chaineval"]["profile"] == "paper"
    assert [step.solver for step in log.plan.steps] == ["system_message", "generate"]
    assert log.samples[0].messages[0].role == "system" and log.samples[0].messages[0].text == prompts.SYSTEM_PROMPT
    scores = {s.name: s for s in log.results.scores}
    assert set(scores) == set(SCORE_KEYS)
    chain = scores["chaineval"]
    assert chain.metrics["mean"].value == pytest.approx(0.5, abs=1e-6)
    assert "stderr" in chain.metrics
    assert set(chain.metrics) == {"mean", "stderr"}  # per-domain means are opt-in: see grouped_metrics
    assert scores["fac"].metrics["mean"].value == 0.5 and scores["no_error"].metrics["mean"].value == 0.5
    assert scores["err_1"].metrics["mean"].value == 0.5
    assert log.results.headline.scorer == "chaineval" and log.results.headline.metric == "mean"


def test_explanation_shows_the_alignment(scored_log):
    log, first, _, _ = scored_log
    gold_sample = next(s for s in log.samples if s.metadata["template"] == first.name)
    explanation = gold_sample.scores["chaineval"].explanation
    assert "| gold step | model step | similarity | gate | score | match |" in explanation
    n_steps = gold_sample.metadata["n_steps"]
    assert explanation.count("✓") == n_steps
    assert "Unpaired gold steps: none" in explanation
    alignment = gold_sample.scores["chaineval"].metadata["alignment"]
    assert [(a["gold"], a["pred"]) for a in alignment] == [(k, k) for k in range(1, n_steps + 1)]


def test_rescoring_the_log_with_the_reference_profile(scored_log):
    log, first, _, outputs = scored_log
    rescored = inspect_score(log, chaineval(profile="reference"), action="overwrite", display="none")
    problems = {t.generate(seed).id: t.generate(seed) for t in _two_templates() for seed in (0, 1)}
    ids = [s.id for s in rescored.samples]
    expected = score_batch([gold_of(problems[i].to_dict()) for i in ids],
                           [outputs[problems[i].question] for i in ids], profile="reference")
    for sample, want in zip(rescored.samples, expected):
        got = sample.scores["chaineval"]
        assert got.metadata["profile"] == "reference" and got.metadata["chaineval"] == resolve("reference").to_dict()
        for key in ("chaineval", "fac", "step_f1", "parse_ok"):
            assert got.value[key] == pytest.approx(getattr(want, key), abs=1e-6), (sample.id, key)
    wrong = next(s for s in rescored.samples if s.metadata["template"] != first.name)
    paper = next(s for s in log.samples if s.id == wrong.id)
    assert wrong.scores["chaineval"].value["chaineval"] != paper.scores["chaineval"].value["chaineval"]
    assert {s.scorer for s in rescored.results.scores} == {"chaineval"}
    assert rescored.results.scores[0].params["profile"] == "reference"
    # the settings the scores were computed with, for every key (the task metadata keeps the creation-time ones)
    assert all(s.metadata["chaineval"] == resolve("reference").to_dict() for s in rescored.results.scores)


def test_per_domain_and_level_means_on_request(scored_log):
    from finchain_tasks.inspect.scorer import grouped_metrics

    log, first, second, _ = scored_log
    rescored = inspect_score(log, chaineval(), metrics=grouped_metrics(), action="overwrite", display="none")
    scores = {s.name: s for s in rescored.results.scores}
    chain = scores["chaineval"]
    assert _metric(chain, "domain", first.domain) == pytest.approx(1.0, abs=1e-6)
    assert _metric(chain, "domain", second.domain) == 0.0
    assert _metric(chain, "level", first.level) == pytest.approx(1.0, abs=1e-6)
    assert _metric(chain, "level", second.level) == 0.0
    assert _metric(scores["fac"], "domain", first.domain) == 1.0
    assert set(scores["recall"].metrics) == {"mean", "stderr"}


def test_rescoring_with_overrides_records_the_resolved_settings(scored_log):
    log, *_ = scored_log
    rescored = inspect_score(log, chaineval(profile="reference", step_tol=0.1), action="overwrite", display="none")
    want = resolve("reference", step_tol=0.1).to_dict()
    assert rescored.results.scores[0].metadata["chaineval"] == want
    assert all(s.scores["chaineval"].metadata["chaineval"] == want for s in rescored.samples)


def test_metric_names_fit_80_columns(scored_log):
    """Inspect's own results panel, rendered at 80 columns: every key and metric name whole."""
    from inspect_ai._display.core.results import task_scores
    from rich.console import Console

    log, *_ = scored_log
    console = Console(width=80, record=True, color_system=None)
    for row in task_scores(log.results.scores):
        console.print(row)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    words = set(text.split())
    assert set(SCORE_KEYS) <= words and {"mean", "stderr"} <= words, text
    assert "…" not in text, text


# --- the explanation ---------------------------------------------------------------------------

def _explained(gold, output: str, profile: str = "paper") -> str:
    from finchain_tasks.inspect.scorer import to_score

    result = score_batch([gold], [output], profile)[0]
    return to_score(result, gold, result.pred_steps, profile).explanation


def _markdown(text: str):
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").parse(text)


def _inline_text(token) -> str:
    return "".join(c.content for c in token.children or [] if c.type in ("text", "code_inline"))


LONG = ("Future value of the deposit after applying the compounding growth factor to the original "
        "principal amount over the whole holding period = 14,600 × 1.3404 = $19,570.50")


def test_explanation_keeps_results_lists_unpaired_steps_and_uses_two_decimals():
    from scorers.records import GoldSolution, GoldStep

    gold = GoldSolution((GoldStep("Growth", 1.3404, "", "Growth factor = (1 + 0.076) ^ 4 = 1.3404"),
                         GoldStep("Future value", 19570.5, "$", LONG)), 19570.5, "$")
    output = (f"Step 1: Growth factor = (1 + 0.076) ^ 4 = 1.3404\nStep 2: {LONG}\n"
              "Step 3: We note the weather was pleasant that day.\nFinal answer: $19,570.50")
    text = _explained(gold, output)
    assert text.count("= $19,570.50") >= 2  # the result survives shortening, on both sides of the table
    assert "Unpaired model steps:" in text and "- step 3: We note the weather was pleasant that day." in text
    assert "Unpaired gold steps: none." in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and "✓" in line]
    assert rows and all(re.search(r"\| \d\.\d\d \| 1 \| \d\.\d\d \| ✓ \|$", r) for r in rows), rows
    assert re.search(r"\*\*ChainEval \d\.\d\d\*\*", text) and "step F1 " in text


def test_model_text_cannot_break_the_markdown():
    from scorers.records import GoldSolution, GoldStep

    gold = GoldSolution((GoldStep("Rate", 5.0, "%", "Rate = 5%"),), 5.0, "%")
    output = "Step 1: Rate `x` | *y* <u>z</u> = 5%\nStep 2: An extra | step with `ticks`\nFinal answer: 5% `rm` ``x`"
    answer = score_batch([gold], [output])[0].final_answer
    assert "``" in answer  # the parser keeps the backticks: the explanation must contain them
    tokens = _markdown(_explained(gold, output))
    codes = [c.content for t in tokens if t.type == "inline" for c in t.children if c.type == "code_inline"]
    assert answer in codes  # the whole answer is one code span: its backticks stayed inside
    cells = [tokens[k + 1] for k, t in enumerate(tokens) if t.type in ("th_open", "td_open")]
    header_width = 6
    assert len(cells) % header_width == 0 and len(cells) >= 2 * header_width
    assert _inline_text(cells[header_width + 1]) == "1. Rate `x` | *y* <u>z</u> = 5%"
    assert not any(t.type in ("html_inline", "em_open", "strong_open") for c in cells for t in c.children or []
                   if "Rate" in _inline_text(c))
    bullets = [_inline_text(t) for t in tokens if t.type == "inline" and "extra" in t.content]
    assert bullets == ["step 2: An extra | step with `ticks`"]


@settings(max_examples=200, deadline=None)
@example(head="0" * 87, result="0")  # found by a fresh clone's CI: the cut text was one character too long
@given(head=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300),
       result=st.from_regex(r"\$?[0-9][0-9,.]{0,20}%?", fullmatch=True))
def test_shortened_steps_keep_their_computed_result(head, result):
    from finchain_tasks.inspect.scorer import shorten

    text = f"{head.replace('=', ' ')} = {result}"
    short = shorten(text, 90)
    assert len(short) <= 90
    assert short.endswith(" ".join(f"= {result}".split()))


@pytest.mark.slow
def test_inspect_score_command_records_the_settings_it_used(scored_log, tmp_path):
    """``inspect score ... -S profile=reference -S step_tol=0.1`` as a user types it: the rescored
    log says, per scorer and per sample, which settings produced its numbers."""
    import subprocess
    import sys
    from pathlib import Path

    from inspect_ai.log import read_eval_log

    log, *_ = scored_log
    out = tmp_path / "rescored.eval"
    inspect = str(Path(sys.executable).parent / "inspect")
    proc = subprocess.run([inspect, "score", log.location, "--scorer", "finchain_tasks/chaineval",
                           "-S", "profile=reference", "-S", "step_tol=0.1", "--action", "overwrite",
                           "--output-file", str(out), "--display", "plain"],
                          capture_output=True, text=True, timeout=limit(600))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    rescored = read_eval_log(str(out))
    want = resolve("reference", step_tol=0.1).to_dict()
    assert {s.name for s in rescored.results.scores} == set(SCORE_KEYS)
    assert all(s.metadata["chaineval"] == want for s in rescored.results.scores)
    assert all(s.scores["chaineval"].metadata["chaineval"] == want for s in rescored.samples)
