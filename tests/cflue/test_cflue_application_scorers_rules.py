"""The optional metric-model wrappers of the CFLUE application metrics (COMET, BERTScore) and the device choice,
rule by rule, without the models (issue 39).

``unbabel-comet`` and ``bert-score`` are not installed here and their checkpoints are not available offline, so
each test puts a small stand-in for the EXTERNAL package into ``sys.modules`` (``comet.load_from_checkpoint``,
``bert_score.score``, ``torch.cuda.is_available``) and checks what our wrapper decides: the message when the
package is missing, the checkpoint it loads, the batch size, the GPU count and layer count it passes, and the
number it returns. Whether the real models score well is theirs to test; nothing here asserts on a mock of the
wrapper itself."""

from __future__ import annotations

import re
import sys
import types

import pytest

from scorers.cflue.application import _gpu_count, bertscore_scorer, comet_scorer

DATA = [{"src": "Rates rose.", "mt": "利率上升了。", "ref": "利率上升。"}]


def _torch(available: bool) -> types.ModuleType:
    """A stand-in for torch that answers only ``torch.cuda.is_available()``."""
    module = types.ModuleType("torch")
    module.cuda = types.SimpleNamespace(is_available=lambda: available)
    return module


@pytest.fixture
def comet_package(monkeypatch):
    """A stand-in for unbabel-comet: records the checkpoint loaded and each predict call, answers 0.625."""
    calls: dict[str, list] = {"load": [], "predict": []}

    class Model:
        def predict(self, data, batch_size=8, gpus=1):  # COMET's own defaults, so a dropped argument shows
            calls["predict"].append({"data": data, "batch_size": batch_size, "gpus": gpus})
            return types.SimpleNamespace(system_score=0.625, scores=[0.625] * len(data))

    def load_from_checkpoint(path):
        calls["load"].append(path)
        return Model()

    module = types.ModuleType("comet")
    module.load_from_checkpoint = load_from_checkpoint
    monkeypatch.setitem(sys.modules, "comet", module)
    return calls


@pytest.fixture
def bert_score_package(monkeypatch):
    """A stand-in for bert-score: records each call, answers per-candidate F1 of 0.5 and 0.75 (mean 0.625)."""
    calls: list[dict] = []

    class Scores(list):
        def mean(self):
            return sum(self) / len(self)

    def score(cands, refs, model_type=None, num_layers=None, lang=None):
        calls.append({"cands": cands, "refs": refs, "model_type": model_type, "num_layers": num_layers,
                      "lang": lang})
        return Scores([0.0, 0.0]), Scores([0.0, 0.0]), Scores([0.5, 0.75])

    module = types.ModuleType("bert_score")
    module.score = score
    monkeypatch.setitem(sys.modules, "bert_score", module)
    return calls


# ---------------------------------------------------------------------------------- device
@pytest.mark.parametrize(("torch", "gpus"), [(_torch(True), 1), (_torch(False), 0), (None, 0)])
def test_the_gpu_count_is_one_with_cuda_zero_without_it_or_without_torch(monkeypatch, torch, gpus):
    monkeypatch.setitem(sys.modules, "torch", torch)  # None: `import torch` raises ImportError
    assert _gpu_count() == gpus


# ---------------------------------------------------------------------------------- COMET
@pytest.mark.parametrize(("package", "wrapper", "message"), [
    ("comet", lambda: comet_scorer("/ckpt/model.ckpt"),
     "COMET needs the unbabel-comet package: pip install unbabel-comet"),
    ("bert_score", lambda: bertscore_scorer(), "BERTScore needs the bert-score package: pip install bert-score"),
])
def test_a_missing_metric_package_is_one_import_error_naming_what_to_install(monkeypatch, package, wrapper, message):
    monkeypatch.setitem(sys.modules, package, None)
    with pytest.raises(ImportError, match=f"^{re.escape(message)}$") as error:
        wrapper()
    assert error.value.__cause__ is None and error.value.__suppress_context__


def test_comet_loads_the_users_checkpoint_once_and_returns_the_system_score(comet_package, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", _torch(False))
    score = comet_scorer("/ckpt/model.ckpt")
    assert comet_package["load"] == ["/ckpt/model.ckpt"]
    assert score(DATA) == 0.625 and score(DATA + DATA) == 0.625
    assert comet_package["load"] == ["/ckpt/model.ckpt"]
    assert [c["data"] for c in comet_package["predict"]] == [DATA, DATA + DATA]


@pytest.mark.parametrize(("kwargs", "batch_size"), [({}, 32), ({"batch_size": 1}, 1), ({"batch_size": 64}, 64)])
def test_comet_predicts_in_batches_of_32_unless_told(comet_package, monkeypatch, kwargs, batch_size):
    monkeypatch.setitem(sys.modules, "torch", _torch(False))
    comet_scorer("/ckpt/model.ckpt", **kwargs)(DATA)
    assert comet_package["predict"][0]["batch_size"] == batch_size


@pytest.mark.parametrize(("gpus", "cuda", "used"), [
    (None, True, 1), (None, False, 0),   # not given: one GPU when CUDA is there, else the CPU
    (0, True, 0), (2, False, 2),         # given: used as it is, whatever the machine has
])
def test_comet_uses_the_gpus_given_else_the_machines_count(comet_package, monkeypatch, gpus, cuda, used):
    monkeypatch.setitem(sys.modules, "torch", _torch(cuda))
    comet_scorer("/ckpt/model.ckpt", gpus=gpus)(DATA)
    assert comet_package["predict"][0]["gpus"] == used


# ---------------------------------------------------------------------------------- BERTScore
@pytest.mark.parametrize(("args", "kwargs", "model", "layers"), [
    ((), {}, "bert-base-chinese", 8),                                   # the CFLUE default: layer 8
    (("/models/bert-base-chinese",), {}, "/models/bert-base-chinese", 8),  # a local copy of it too
    (("hfl/chinese-roberta-wwm-ext",), {}, "hfl/chinese-roberta-wwm-ext", None),  # others: bert-score's default
    (("Bert-Base-Chinese",), {}, "Bert-Base-Chinese", None),            # the name is matched as written
    ((), {"num_layers": 5}, "bert-base-chinese", 5),                    # given: used as it is
    (("hfl/chinese-roberta-wwm-ext",), {"num_layers": 12}, "hfl/chinese-roberta-wwm-ext", 12),
])
def test_bertscore_uses_layer_8_of_bert_base_chinese_unless_told(bert_score_package, args, kwargs, model, layers):
    bertscore_scorer(*args, **kwargs)(["甲"], ["乙"])
    call = bert_score_package[0]
    assert (call["model_type"], call["num_layers"]) == (model, layers)


def test_bertscore_scores_chinese_candidates_against_references_and_returns_the_mean_f1(bert_score_package):
    value = bertscore_scorer()(["利率上升", "价格下跌"], ["利率上行", "价格下降"])
    assert value == 0.625 and isinstance(value, float)
    assert bert_score_package == [{"cands": ["利率上升", "价格下跌"], "refs": ["利率上行", "价格下降"],
                                   "model_type": "bert-base-chinese", "num_layers": 8, "lang": "zh"}]
