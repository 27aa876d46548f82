"""Embedding only what can score (issue 44, item 1): ChainEval computes the gate first and embeds only the steps
in at least one pair the gate lets through. Every metric, and every alignment detail, must be bit for bit what
embedding every step gives (``embed_all=True``): over realistic outputs of every shipped template with the real
encoder (fresh encoders, so the vectors themselves come from different batches), and over random gates with
exact vectors."""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorers.chaineval import score_batch
from scorers.records import GoldSolution, GoldStep

WORDS = ("then", "next", "so", "we compute", "carefully", "thus")


class CountingEmbedder:
    """Exact pseudo-random unit vectors by text (the same text, the same vector, in any batch), and a count of
    the texts each run asked for."""

    def __init__(self, dim: int = 6):
        self.dim = dim
        self.asked: list[str] = []

    def encode_cached(self, texts):
        self.asked.extend(texts)
        out = np.zeros((len(texts), self.dim), np.float32)
        for row, text in enumerate(texts):
            vec = np.random.default_rng(zlib.crc32(text.encode())).normal(size=self.dim) + 0.8
            out[row] = vec / np.linalg.norm(vec)
        return out


def _realistic(problems, seed: int = 0) -> list[str]:
    """Outputs that read like a model's: steps reworded with filler, a quarter of values wrong, some steps
    dropped or added, categorical steps kept as words, a final answer line."""
    rng = random.Random(seed)
    outputs = []
    for problem in problems:
        lines = []
        for j, step in enumerate(problem.gold_steps(), 1):
            if rng.random() < 0.1:
                continue
            value = step.value
            if isinstance(value, float) and rng.random() < 0.25:
                value = round(value * rng.choice([1.3, 0.5, 10.0]), 2)
            lines.append(f"Step {j}: {' '.join(rng.sample(WORDS, 2))} {step.description.lower()} = {value}")
            if rng.random() < 0.15:
                lines.append(f"Step {j}b: note that the figure {rng.randint(1, 999)} is not used here")
        lines.append(f"Final answer: {problem.answer}")
        outputs.append("\n".join(lines))
    return outputs


@pytest.fixture(scope="module")
def template_set():
    from finchain_tasks.engine import all_templates

    problems = [template.generate(3) for template in all_templates().values()]
    return [p.gold() for p in problems], _realistic(problems)


@pytest.mark.parametrize("profile,half", [("paper", 0), ("reference", 1)])
def test_gated_embedding_changes_no_result_on_every_template_with_the_real_encoder(template_set, profile, half):
    """Half the templates per profile (every template once), each side with a fresh encoder: the suite's time."""
    from scorers.embedding_backends import default_backend
    from scorers.embeddings import Embedder

    golds, outputs = (side[half::2] for side in template_set)
    backend = default_backend()
    gated = score_batch(golds, outputs, profile, Embedder(backend=backend))
    full = score_batch(golds, outputs, profile, Embedder(backend=backend), embed_all=True)
    assert [r.scores() for r in gated] == [r.scores() for r in full]
    assert [r.alignment for r in gated] == [r.alignment for r in full]
    assert gated == full


@pytest.mark.parametrize("profile", ["paper", "reference"])
def test_gated_embedding_skips_texts_on_realistic_outputs(template_set, profile):
    golds, outputs = template_set
    gated, full = CountingEmbedder(), CountingEmbedder()
    score_batch(golds, outputs, profile, gated)
    score_batch(golds, outputs, profile, full, embed_all=True)
    assert set(gated.asked) < set(full.asked)  # fewer texts, and none the full run did not embed


def test_matrices_for_a_viewer_hold_every_similarity_even_where_the_gate_shuts():
    """The explorer's heat map (``keep_matrices``) shows the similarity of every pair, gated or not."""
    gold = GoldSolution((GoldStep("Revenue", 100.0, "", "Revenue = 100"),
                         GoldStep("Cost", 40.0, "", "Cost = 40")), 60.0)
    output = "Step 1: Revenue = 100\nStep 2: Cost = 45\nStep 3: Profit = 60"
    embedder = CountingEmbedder()
    kept = score_batch([gold], [output], "paper", embedder, keep_matrices=True)[0]
    vectors = embedder.encode_cached(["Revenue = #", "Cost = #", "Revenue = #", "Cost = #", "Profit = #"])
    expected = np.round(np.clip(vectors[:2] @ vectors[2:].T, 0, 1).astype(np.float64), 4).tolist()
    assert kept.matrices["similarity"] == expected
    assert kept.matrices["gate"] == [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]


def test_a_step_whose_every_pair_the_gate_shuts_is_not_embedded():
    gold = GoldSolution((GoldStep("Revenue", 100.0, "", "Revenue = 100"),
                         GoldStep("Cost", 40.0, "", "Cost amount = 40")), 60.0)
    embedder = CountingEmbedder()
    score_batch([gold], ["Step 1: Revenue = 100\nStep 2: Cost = 45\nStep 3: Margin = 7"], "paper", embedder)
    assert embedder.asked == ["Revenue = #", "Revenue = #"]


def test_a_path_through_a_shut_pair_still_shows_its_similarity():
    """With a gap penalty of 0.5 and pairing on ties, the reference path pairs the shut cell rather than skip
    twice: the alignment detail shows that pair's cosine, embedded after the alignment."""
    gold = GoldSolution((GoldStep("Revenue", 100.0, "", "Revenue = 100"),), 100.0)
    output = "Step 1: Revenue = 130"
    gated = score_batch([gold], [output], "reference", CountingEmbedder(), gap_penalty=0.5)[0]
    full = score_batch([gold], [output], "reference", CountingEmbedder(), gap_penalty=0.5, embed_all=True)[0]
    assert [(a["gold"], a["pred"], a["gate"]) for a in gated.alignment] == [(1, 1, 0.0)]
    assert gated.alignment[0]["similarity"] > 0
    assert gated == full


VALUES = st.sampled_from([None, 10.0, 20.0, 0.0, -5.0, "Project A", "Tier 2", True, False])
PRED_VALUES = st.sampled_from(["10", "20", "21", "0", "-5", "12.5", "Project A", "Project B", "Tier 2", "yes",
                               "no", "", "not compliant"])
NAMES = st.sampled_from(["Revenue", "Cost", "Profit", "Decision", "Margin", "Rate"])


@st.composite
def cases(draw):
    golds, outputs = [], []
    for _ in range(draw(st.integers(1, 4))):
        steps = tuple(GoldStep(name, value, "", f"{name} = {value}") for name, value in
                      draw(st.lists(st.tuples(NAMES, VALUES), min_size=0, max_size=5)))
        golds.append(GoldSolution(steps, steps[-1].value if steps else None))
        lines = [f"Step {j}: {name} is {value}" for j, (name, value) in
                 enumerate(draw(st.lists(st.tuples(NAMES, PRED_VALUES), min_size=0, max_size=5)), 1)]
        outputs.append("\n".join(lines))
    profile = draw(st.sampled_from(["paper", "reference"]))
    overrides = draw(st.fixed_dictionaries({}, optional={
        "missing_value_gate": st.sampled_from([0.0, 0.5, 1.0]), "gap_penalty": st.sampled_from([0.0, 0.25, 0.5, 0.7]),
        "tie_rule": st.sampled_from(["skip", "pair"]), "objective": st.sampled_from(["max_sum", "min_cost"]),
        "match_threshold": st.sampled_from([0.0, 0.45])}))
    return golds, outputs, profile, overrides


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_gated_embedding_equals_embedding_everything_for_any_gate(case):
    golds, outputs, profile, overrides = case
    gated_embedder = CountingEmbedder()
    gated = score_batch(golds, outputs, profile, gated_embedder, keep_matrices=False, **overrides)
    full = score_batch(golds, outputs, profile, CountingEmbedder(), embed_all=True, **overrides)
    assert gated == full
    assert [r.alignment for r in gated] == [r.alignment for r in full]
