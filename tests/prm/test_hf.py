"""The ``hf`` backend on a tiny randomly initialised Qwen3 built in the test (no network, no weights)."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from scorers.prm.base import PRMInput, prm_input  # noqa: E402
from scorers.prm.hf import HEADS_FILE, PRM_CONFIG, STEP_TOKEN, FinPRM, TruncationError, format_input  # noqa: E402
from scorers.prm.tiny import tiny_prm, tiny_tokenizer  # noqa: E402

ITEMS = [prm_input("What is 2 + 2?", "Step 1: 2 + 2 = 4\nStep 2: so it is 4\nFinal answer: 4"),
         prm_input("Rate?", "Step 1: 0.05 × 2 = 0.1\nStep 2: as a percent 10%\nStep 3: done\nFinal answer: 10%"),
         PRMInput("Short", ("one",), "1")]


@pytest.fixture(autouse=True)
def _one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_release_format_matches_the_documented_layout():
    text = format_input(PRMInput("Q?", ("a", "b"), "42"))
    assert text == "##Question\nQ?\n\n##Thinking Trajectory\na<extra_0>b<extra_0>\n\n##Final Answer\n42<extra_1>"


@pytest.mark.parametrize("mode", ["dual", "release"])
def test_forward_gives_one_probability_per_step(mode):
    prm = tiny_prm(mode, seed=1)
    scores = prm.score_batch(ITEMS)
    assert [len(s.step_probs) for s in scores] == [2, 3, 1]
    for s in scores:
        assert all(0.0 < p < 1.0 for p in s.step_probs) and 0.0 < s.p_traj < 1.0
        assert s.reward == pytest.approx(min(s.step_probs) + s.p_traj)
        assert (s.agg, s.zeta, s.prm) == ("min", 1.0, f"hf:tiny:{mode}")


def test_dual_heads_read_the_hidden_state_at_each_placeholder():
    """A second implementation: run the backbone by hand and apply the heads where the placeholders are."""
    prm = tiny_prm("dual", seed=2)
    item = ITEMS[1]
    ids = prm.tokenizer(format_input(item), add_special_tokens=False, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        hidden = prm.backbone(input_ids=ids).last_hidden_state[0]
        step_positions = (ids[0] == prm.step_id).nonzero().flatten().tolist()
        expected = [torch.sigmoid(prm.heads["step_head"](hidden[p])).item() for p in step_positions]
        traj = torch.sigmoid(prm.heads["traj_head"](hidden[-1])).item()
    [score] = prm.score_batch([item])
    assert list(score.step_probs) == pytest.approx(expected, abs=1e-6)
    assert score.p_traj == pytest.approx(traj, abs=1e-6)


def test_release_mode_uses_one_shared_two_class_head():
    prm = tiny_prm("release", seed=3)
    assert set(prm.heads.state_dict()) == {"score.weight", "score.bias"}
    assert prm.heads["score"].weight.shape == (2, 32)


def test_batching_does_not_change_scores():
    prm = tiny_prm("dual", seed=4, batch_tokens=64)
    together = prm.score_batch(ITEMS)
    alone = [prm.score_batch([i])[0] for i in ITEMS]
    for a, b in zip(together, alone):
        assert list(a.step_probs) == pytest.approx(list(b.step_probs), abs=1e-5)
        assert a.p_traj == pytest.approx(b.p_traj, abs=1e-5)


def test_batches_group_by_length_under_the_token_budget():
    prm = tiny_prm("dual", seed=0, batch_tokens=100)
    # longest first; a batch holds items while longest × count <= 100
    assert prm.batches([10, 50, 20, 45, 30]) == [[1, 3], [4, 2, 0]]
    assert prm.batches([200]) == [[0]]


def test_truncation_that_drops_a_placeholder_fails_loudly():
    prm = tiny_prm("dual", seed=0, max_length=12)
    with pytest.raises(TruncationError, match=r"item 0: \d+ of 3 placeholders lost to truncation"):
        prm.score_batch([ITEMS[0]])


def test_placeholder_count_in_step_text_is_caught():
    """A step that itself contains the placeholder would shift every later score: refuse it."""
    prm = tiny_prm("dual", seed=0)
    with pytest.raises(TruncationError):
        prm.score_batch([PRMInput("q", (f"a {STEP_TOKEN} b",), "1")])


@pytest.mark.parametrize("mode", ["dual", "release"])
def test_saved_checkpoint_loads_back_with_identical_outputs(tmp_path, mode):
    prm = tiny_prm(mode, seed=5, save_to=tmp_path)
    assert (tmp_path / HEADS_FILE).is_file()
    assert json.loads((tmp_path / PRM_CONFIG).read_text())["mode"] == mode
    loaded = FinPRM.from_pretrained(str(tmp_path))
    assert loaded.mode == mode
    for a, b in zip(prm.score_batch(ITEMS), loaded.score_batch(ITEMS)):
        assert a.step_probs == b.step_probs and a.p_traj == b.p_traj


def test_release_directory_without_prm_config_is_read_in_the_requested_mode(tmp_path):
    prm = tiny_prm("release", seed=6, save_to=tmp_path)
    (tmp_path / PRM_CONFIG).unlink()
    loaded = FinPRM.from_pretrained(str(tmp_path), mode="release")
    assert [s.step_probs for s in loaded.score_batch(ITEMS)] == [s.step_probs for s in prm.score_batch(ITEMS)]
    with pytest.raises(RuntimeError):           # the release head does not fit the dual layout
        FinPRM.from_pretrained(str(tmp_path), mode="dual")


def test_qwen_style_checkpoint_reads_p_good_at_the_step_separator(tmp_path):
    from transformers import AutoModelForTokenClassification, Qwen3Config

    torch.manual_seed(7)
    tok = tiny_tokenizer()
    config = Qwen3Config(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=16, num_labels=2,
                         pad_token_id=tok.pad_token_id)
    model = AutoModelForTokenClassification.from_config(config).eval()
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    prm = FinPRM.from_pretrained(str(tmp_path), mode="qwen")
    [score] = prm.score_batch([ITEMS[1]])
    assert len(score.step_probs) == 3 and score.p_traj is None
    ids = tok(prm._text(ITEMS[1]), add_special_tokens=False, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        good = torch.softmax(model(input_ids=ids).logits[0], -1)[:, 1]
    assert list(score.step_probs) == pytest.approx(good[ids[0] == prm.step_id].tolist(), abs=1e-6)


def test_unknown_mode_and_missing_placeholder_are_clear_errors():
    prm = tiny_prm("dual", seed=0)
    with pytest.raises(ValueError, match="unknown hf PRM mode 'triple'"):
        FinPRM(prm.backbone, prm.tokenizer, "triple")
    with pytest.raises(ValueError, match="no placeholder token '<nope>'"):
        FinPRM(prm.backbone, prm.tokenizer, "dual", step_token="<nope>")


def test_spec_string_loads_a_saved_checkpoint(tmp_path):
    from finchain_tasks.prm import load_prm

    saved = tiny_prm("release", seed=8, save_to=tmp_path)
    prm = load_prm(f"hf:{tmp_path}:release", agg="mean", zeta=0.5)
    assert isinstance(prm, FinPRM) and prm.mode == "release" and prm.name == f"hf:{tmp_path}:release"
    [a], [b] = saved.score_batch([ITEMS[0]]), prm.score_batch([ITEMS[0]])
    assert a.step_probs == b.step_probs and b.agg == "mean" and b.zeta == 0.5
    assert b.reward == pytest.approx(sum(b.step_probs) / len(b.step_probs) + 0.5 * b.p_traj)
