"""The ``hf`` backend on a tiny randomly initialised Qwen3 built in the test (no network, no weights)."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from scorers.prm.base import PRMInput, prm_input  # noqa: E402
from scorers.prm.hf import (  # noqa: E402
    HEADS_FILE,
    PRM_CONFIG,
    STEP_TOKEN,
    WEIGHTS_FILE,
    CheckpointLayoutError,
    FinPRM,
    TruncationError,
    format_input,
)
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


def _release_text(question: str, choices: str, trace: str, final_answer: str) -> str:
    """The release's collator (DianJin-PRM/src/prm_trainer/prm_train.py), transcribed: a second implementation."""
    trace = trace.replace("\n\n", "<extra_0>") + "<extra_0>"
    return (f"##Question\n{question}\n{choices}\n\n##Thinking Trajectory\n{trace}\n\n"
            f"##Final Answer\n{final_answer}<extra_1>")


def test_release_format_matches_the_release_collator():
    text = format_input(PRMInput("Q?", ("a", "b"), "42"))
    assert text == "##Question\nQ?\n\n\n##Thinking Trajectory\na<extra_0>b<extra_0>\n\n##Final Answer\n42<extra_1>"
    assert text == _release_text("Q?", "", "a\n\nb", "42")
    with_choices = PRMInput("Which?", ("x", "y", "z"), "B", choices="A. 1\nB. 2")
    assert format_input(with_choices) == _release_text("Which?", "A. 1\nB. 2", "x\n\ny\n\nz", "B")


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


def test_release_mode_uses_the_release_head_names_and_shapes():
    """Qwen3ForProcessRewardModel.score = Sequential(Linear(h, h), ReLU(), Linear(h, num_labels=2))."""
    prm = tiny_prm("release", seed=3)
    shapes = {k: tuple(v.shape) for k, v in prm.heads.state_dict().items()}
    assert shapes == {"score.0.weight": (32, 32), "score.0.bias": (32,), "score.2.weight": (2, 32),
                      "score.2.bias": (2,)}


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
    if mode == "dual":
        assert (tmp_path / HEADS_FILE).is_file()
        assert json.loads((tmp_path / PRM_CONFIG).read_text())["mode"] == mode
    else:  # the authors' layout: one weights file, nothing of this project's own
        assert not (tmp_path / HEADS_FILE).exists() and not (tmp_path / PRM_CONFIG).exists()
        assert json.loads((tmp_path / "config.json").read_text())["architectures"] == ["Qwen3ForProcessRewardModel"]
    loaded = FinPRM.from_pretrained(str(tmp_path), mode=mode)
    assert loaded.mode == mode
    for a, b in zip(prm.score_batch(ITEMS), loaded.score_batch(ITEMS)):
        assert a.step_probs == b.step_probs and a.p_traj == b.p_traj


def _authors_checkpoint(folder, seed: int = 6):
    """A tiny checkpoint written the way the release's ``Qwen3ForProcessRewardModel.save_pretrained`` lays it
    out (built here by hand, not by FinPRM): config.json with the release's auto_map, one model.safetensors
    holding ``model.*`` (a Qwen3Model) and ``score.0``/``score.2``, a tokenizer with <extra_0>/<extra_1>."""
    from safetensors.torch import save_file
    from transformers import AutoModel, Qwen3Config

    torch.manual_seed(seed)
    tok = tiny_tokenizer()
    config = Qwen3Config(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=16, pad_token_id=tok.pad_token_id)
    backbone = AutoModel.from_config(config).eval()
    score = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2)).eval()
    tensors = {f"model.{k}": v.contiguous() for k, v in backbone.state_dict().items()}
    tensors.update({f"score.{k}": v.contiguous() for k, v in score.state_dict().items()})
    folder.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    cfg = config.to_dict()
    cfg.update(architectures=["Qwen3ForProcessRewardModel"], alpha=1.0,
               auto_map={"AutoConfig": "fin_config.Qwen3PRMConfig", "AutoModel": "fin_prm.Qwen3ForProcessRewardModel"})
    (folder / "config.json").write_text(json.dumps(cfg))
    tok.save_pretrained(folder)
    return tok, backbone, score


def test_a_checkpoint_in_the_authors_layout_scores_as_the_release_does(tmp_path):
    """The release reads P(good) = softmax(score(h))[1] at every <extra_0> and <extra_1>, in sequence order
    (make_step_rewards); recomputed here from the hand-built parts on the collator's text."""
    from finchain_tasks.prm import load_prm

    tok, backbone, score = _authors_checkpoint(tmp_path / "fin-prm")
    prm = load_prm(f"hf:{tmp_path / 'fin-prm'}:release", agg="mean")
    assert prm.mode == "release"
    item = PRMInput("What is the rate?", ("0.05 × 2 = 0.1", "as a percent 10%"), "10%", choices="A. 10%\nB. 5%")
    text = _release_text(item.question, item.choices, "\n\n".join(item.steps), item.final_answer)
    ids = tok(text, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        probs = torch.softmax(score(backbone(input_ids=ids).last_hidden_state[0]), -1)[:, 1]
    extra0, extra1 = tok.convert_tokens_to_ids(["<extra_0>", "<extra_1>"])
    positive = probs[(ids[0] == extra0) | (ids[0] == extra1)].tolist()
    [got] = prm.score_batch([item])
    assert len(positive) == 3
    assert list(got.step_probs) == pytest.approx(positive[:2], abs=1e-6)
    assert got.p_traj == pytest.approx(positive[2], abs=1e-6)
    assert got.reward == pytest.approx(sum(positive[:2]) / 2 + positive[2], abs=1e-6)


def test_saving_in_release_mode_writes_the_authors_layout(tmp_path):
    from safetensors import safe_open

    _authors_checkpoint(tmp_path / "a", seed=9)
    loaded = FinPRM.from_pretrained(str(tmp_path / "a"), mode="release")
    loaded.save_pretrained(tmp_path / "b")
    first, second = str(tmp_path / "a" / WEIGHTS_FILE), str(tmp_path / "b" / WEIGHTS_FILE)
    with safe_open(first, "pt") as a, safe_open(second, "pt") as b:
        assert set(a.keys()) == set(b.keys())
        assert all(torch.equal(a.get_tensor(k), b.get_tensor(k)) for k in a.keys())


def test_a_checkpoint_in_the_wrong_layout_names_the_files_expected_and_found(tmp_path):
    _authors_checkpoint(tmp_path / "rel")
    with pytest.raises(CheckpointLayoutError, match=r"expected .*prm_heads\.safetensors.*found .*model\.safetensors"
                       r".*release checkpoint.*:release"):
        FinPRM.from_pretrained(str(tmp_path / "rel"), mode="dual")
    tiny_prm("dual", seed=6, save_to=tmp_path / "dual")
    (tmp_path / "dual" / PRM_CONFIG).unlink()
    with pytest.raises(CheckpointLayoutError, match=r"not a 'release' checkpoint: expected .*score\.0\.weight.*found "
                       r".*prm_heads\.safetensors.*missing tensors score\.0\.weight"):
        FinPRM.from_pretrained(str(tmp_path / "dual"), mode="release")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CheckpointLayoutError, match=r"found nothing"):
        FinPRM.from_pretrained(str(tmp_path / "empty"), mode="release")


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
