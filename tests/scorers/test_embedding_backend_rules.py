"""The embedding backends' rules over plain data, without loading the embedding model (issue 31.18).

Which backend runs on which machine, the thread count, where exports live and what keys them, the int8
weight format and the pooling of an ONNX encoder are rules a user sees; the real MiniLM agreement runs
(tests/scorers/test_embedding_backends.py) take a minute, so mutation testing could not afford them per
mutant. Here the machine's facts (environment variables, installed packages, the CPU's and driver's
answers) are set by the test, and the exported transformer is replaced by a hand-written ONNX graph whose
output the test computes independently with numpy: an embedding table looked up per token. One test
exports a tiny random BERT for real, the only thing that exercises the exporter itself."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from scorers import embedding_backends as eb

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

VOCAB = ["[PAD]", "[UNK]", "net", "income", "tax", "rate", "a", "b", "is", "final"]
DIM = 4
TABLE = (np.arange(len(VOCAB) * DIM, dtype=np.float32).reshape(len(VOCAB), DIM) % 7 - 3) / 100
"""Per-token vectors of the stand-in encoder: small (norms below 1, so a missing normalisation shows), the
padding token's row non-zero (so pooling over padding shows)."""
TYPE_ROW = np.array([0.01, 0.0, -0.02, 0.005], dtype=np.float32)
"""Added to every token with token type 0 (the encoder sends only type 0)."""


# -- machine facts ------------------------------------------------------------------------------

@pytest.fixture
def installed(monkeypatch):
    """``installed(absent=...)``: every package importable except those named (find_spec answers None)."""
    def set_up(absent: tuple[str, ...] = ()) -> None:
        monkeypatch.setattr(eb.importlib.util, "find_spec",
                            lambda name, *a: None if name in absent else object())

    return set_up


def test_unknown_backend_lists_every_choice():
    with pytest.raises(ValueError) as err:
        eb.check_backend("tensorrt")
    assert str(err.value) == ("unknown embedding backend 'tensorrt' (FINCHAIN_EMBEDDING_BACKEND); choose one of "
                              "auto, torch, onnx, onnx-int8, openvino, openvino-bf16")


def test_missing_packages_are_all_named_with_the_extra(installed, monkeypatch):
    monkeypatch.setattr(eb, "cpu_has_bf16", lambda: False)
    installed(absent=("onnxruntime", "onnx", "openvino", "torch"))
    with pytest.raises(eb.BackendUnavailable) as err:
        eb.check_backend("onnx-int8")
    assert str(err.value) == "embedding backend 'onnx-int8' needs onnxruntime, onnx: pip install 'finchain-tasks[onnx]'"
    with pytest.raises(eb.BackendUnavailable) as err:  # missing packages are told before the CPU's lack
        eb.check_backend("openvino-bf16")
    assert str(err.value) == ("embedding backend 'openvino-bf16' needs openvino, onnx: "
                              "pip install 'finchain-tasks[openvino]'")
    assert eb.check_backend("torch") is None  # the reference needs nothing the check knows of


def test_bfloat16_is_required_by_the_bf16_backend_only(installed, monkeypatch):
    installed()
    monkeypatch.setattr(eb, "cpu_has_bf16", lambda: False)
    with pytest.raises(eb.BackendUnavailable) as err:
        eb.check_backend("openvino-bf16")
    assert str(err.value) == ("embedding backend 'openvino-bf16' needs a CPU with bfloat16 instructions "
                              "(AVX512_BF16 or AMX), which this one lacks: use 'openvino' or 'onnx'")
    for name in ("openvino", "onnx", "onnx-int8", "torch"):
        eb.check_backend(name)
    monkeypatch.setattr(eb, "cpu_has_bf16", lambda: True)
    eb.check_backend("openvino-bf16")


def _fake_openvino(capabilities: list[str]) -> types.ModuleType:
    """An ``openvino`` module whose CPU reports ``capabilities`` (and that knows no other query)."""
    class Core:
        def get_property(self, device, key):
            if (device, key) != ("CPU", "OPTIMIZATION_CAPABILITIES"):
                raise RuntimeError(f"no property {key!r} of {device!r}")
            return capabilities

    return types.SimpleNamespace(Core=Core)


def test_bfloat16_is_read_from_the_cpu_plugin(monkeypatch):
    monkeypatch.setitem(sys.modules, "openvino", _fake_openvino(["FP32", "BF16", "INT8"]))
    assert eb.cpu_has_bf16() is True
    monkeypatch.setitem(sys.modules, "openvino", _fake_openvino(["FP32", "FP16", "INT8"]))
    assert eb.cpu_has_bf16() is False


def test_bfloat16_answer_matches_this_cpus_flags():
    pytest.importorskip("openvino")
    flags = set(Path("/proc/cpuinfo").read_text().split()) if Path("/proc/cpuinfo").exists() else None
    if not flags:
        pytest.skip("no /proc/cpuinfo to compare with")
    assert eb.cpu_has_bf16() == bool(flags & {"avx512_bf16", "amx_bf16"})


@pytest.mark.parametrize("value", ["", "   ", "auto"])
def test_blank_or_auto_setting_is_the_automatic_choice(installed, monkeypatch, value):
    installed()
    monkeypatch.setattr(eb, "cpu_has_bf16", lambda: False)
    monkeypatch.setattr(eb, "nvidia_gpu_present", lambda: False)
    monkeypatch.setenv(eb.BACKEND_ENV, value)
    assert eb.default_backend() == "openvino"


@pytest.mark.parametrize("error", [ImportError, RuntimeError])
def test_auto_skips_a_backend_whose_hardware_query_fails(installed, monkeypatch, error):
    """A broken OpenVINO install (its query raising) costs the bf16 choice, not the start."""
    installed()
    monkeypatch.setattr(eb, "nvidia_gpu_present", lambda: False)

    def broken():
        raise error("openvino plugin failed to load")

    monkeypatch.setattr(eb, "cpu_has_bf16", broken)
    assert eb.auto_backend() == "openvino"


def test_a_gpu_is_the_nvidia_drivers_proc_entry(monkeypatch):
    real_path = Path
    assert eb.nvidia_gpu_present() == real_path("/proc/driver/nvidia/version").exists()
    seen = []

    class DriverLoaded(type(real_path())):
        def exists(self, *a, **k):
            seen.append(str(self))
            return str(self) == "/proc/driver/nvidia/version"

    monkeypatch.setattr(eb, "Path", DriverLoaded)
    assert eb.nvidia_gpu_present() is True and seen == ["/proc/driver/nvidia/version"]


# -- threads --------------------------------------------------------------------------------------

def test_threads_setting_is_read_strictly(monkeypatch):
    for value, threads in ((" 4 ", 4), ("1", 1), ("12", 12)):
        monkeypatch.setenv("FINCHAIN_EMBED_THREADS", value)
        assert eb.encoder_threads() == threads
    for value, message in (("0", "FINCHAIN_EMBED_THREADS must be >= 1, got 0"),
                           ("-2", "FINCHAIN_EMBED_THREADS must be >= 1, got -2"),
                           ("many", "FINCHAIN_EMBED_THREADS must be a whole number, got 'many'"),
                           ("2.5", "FINCHAIN_EMBED_THREADS must be a whole number, got '2.5'")):
        monkeypatch.setenv("FINCHAIN_EMBED_THREADS", value)
        with pytest.raises(ValueError) as err:
            eb.encoder_threads()
        assert str(err.value) == message
        assert err.value.__context__ is None or err.value.__suppress_context__  # no "during handling" chain


def test_threads_default_to_the_cores_this_process_may_use(monkeypatch):
    monkeypatch.delenv("FINCHAIN_EMBED_THREADS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    assert eb.encoder_threads() == 3  # the affinity mask, not the machine's count
    monkeypatch.setenv("FINCHAIN_EMBED_THREADS", " ")  # set but blank: the same default
    assert eb.encoder_threads() == 3
    monkeypatch.delattr(os, "sched_getaffinity")
    assert eb.encoder_threads() == 16  # where the mask cannot be read (macOS, Windows)
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert eb.encoder_threads() == 1


# -- which runtime sees a GPU ------------------------------------------------------------------------

def test_cuda_is_asked_of_the_backends_own_runtime(monkeypatch, installed):
    ort = types.SimpleNamespace(get_available_providers=lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    monkeypatch.setitem(sys.modules, "onnxruntime", ort)
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(cuda=types.SimpleNamespace(is_available=lambda: 0)))
    installed()
    assert eb.cuda_available("onnx") is True and eb.cuda_available("onnx-int8") is True
    assert eb.cuda_available("openvino") is False and eb.cuda_available("openvino-bf16") is False
    assert eb.cuda_available("torch") is False and eb.cuda_available() is False
    ort.get_available_providers = lambda: ["CPUExecutionProvider"]
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(cuda=types.SimpleNamespace(is_available=lambda: 1)))
    assert eb.cuda_available("onnx") is False
    assert eb.cuda_available("torch") is True and eb.cuda_available() is True
    installed(absent=("torch",))  # torch not installed: no GPU for it, and no import attempted
    assert eb.cuda_available() is False


# -- the export cache ---------------------------------------------------------------------------------

def test_cache_root_is_the_setting_or_the_user_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("FINCHAIN_EMBEDDING_CACHE", str(tmp_path / "mine"))
    assert eb.cache_root() == tmp_path / "mine"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    for unset in (True, False):
        if unset:
            monkeypatch.delenv("FINCHAIN_EMBEDDING_CACHE")
        else:
            monkeypatch.setenv("FINCHAIN_EMBEDDING_CACHE", "")
        if sys.platform.startswith("linux"):
            assert eb.cache_root() == tmp_path / "xdg" / "finchain-tasks" / "embeddings"
        else:
            assert eb.cache_root().parts[-2:] == ("finchain-tasks", "embeddings")


def _sha(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part)
    return digest.hexdigest()[:16]


def test_model_hash_is_names_sizes_and_contents(tmp_path):
    (tmp_path / "config.json").write_text('{"hidden_size": 4}')
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_bytes(b"mean")
    (tmp_path / "README.md").write_text("a model card")
    (tmp_path / "empty-folder").mkdir()
    want = _sha(b"1_Pooling/config.json\x004\x00", b"mean", b'config.json\x0018\x00', b'{"hidden_size": 4}')
    assert eb.model_hash(tmp_path) == want
    (tmp_path / "README.md").write_text("another card")  # the model card is not the model
    assert eb.model_hash(tmp_path) == want
    (tmp_path / "1_Pooling" / "config.json").write_bytes(b"MEAN")
    assert eb.model_hash(tmp_path) != want


def test_large_weights_are_hashed_by_head_and_tail(tmp_path):
    mib = 1 << 20
    body = bytearray(np.random.default_rng(3).integers(0, 256, 5 * mib + 7, dtype=np.uint8).tobytes())
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(body)
    size = len(body)
    first = eb.model_hash(tmp_path)
    assert first == _sha(f"model.safetensors\0{size}\0".encode(), bytes(body[:mib]), bytes(body[-mib:]))
    body[2 * mib] ^= 1  # the middle is not read: start-up stays cheap
    weights.write_bytes(body)
    assert eb.model_hash(tmp_path) == first
    for at in (mib - 1, size - mib):  # the last byte of the head, the first of the tail
        body[at] ^= 1
        weights.write_bytes(body)
        assert eb.model_hash(tmp_path) != first
        body[at] ^= 1
    sampled = tmp_path / "sampled"  # one byte over 4 MiB: head and tail only
    sampled.mkdir()
    body = bytearray(4 * mib + 1)
    (sampled / "w.bin").write_bytes(body)
    before = eb.model_hash(sampled)
    body[2 * mib] = 1
    (sampled / "w.bin").write_bytes(body)
    assert eb.model_hash(sampled) == before
    whole = tmp_path / "whole"
    whole.mkdir()
    exact = bytearray(4 * mib)  # up to 4 MiB a file is read whole
    (whole / "w.bin").write_bytes(exact)
    before = eb.model_hash(whole)
    assert before == _sha(f"w.bin\0{4 * mib}\0".encode(), bytes(exact))
    exact[2 * mib] = 1
    (whole / "w.bin").write_bytes(exact)
    assert eb.model_hash(whole) != before


# -- a stand-in transformer: an embedding table as an ONNX graph -------------------------------------------

def _table_graph(out: Path) -> None:
    """last_hidden_state = TABLE[input_ids] + TYPE_ROW[token_type_ids]; the mask is an input it ignores
    (as a transformer's output at padded positions is not zero, pooling must mask them itself)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes = [helper.make_node("Gather", ["table", "input_ids"], ["tokens"]),
             helper.make_node("Gather", ["types", "token_type_ids"], ["typed"]),
             helper.make_node("Add", ["tokens", "typed"], ["summed"]),
             helper.make_node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["maskf", "zero"], ["nothing"]),
             helper.make_node("Unsqueeze", ["nothing", "axis"], ["nothing3"]),
             helper.make_node("Add", ["summed", "nothing3"], ["last_hidden_state"])]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "tokens"])
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    graph = helper.make_graph(nodes, "table", inputs,
                              [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                                             ["batch", "tokens", DIM])],
                              initializer=[numpy_helper.from_array(TABLE, "table"),
                                           numpy_helper.from_array(np.stack([TYPE_ROW, -TYPE_ROW]), "types"),
                                           numpy_helper.from_array(np.zeros((), np.float32), "zero"),
                                           numpy_helper.from_array(np.array([2], np.int64), "axis")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(out))


def _model_folder(root: Path, max_seq_length: int | None = 6) -> Path:
    """A model folder the encoder reads: a word-level tokenizer over VOCAB whose file asks for fixed
    padding to 16 (which batching must override), the hidden size, the sentence-transformers config."""
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace

    root.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer(WordLevel({w: i for i, w in enumerate(VOCAB)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = Whitespace()
    tokenizer.enable_padding(length=16, pad_id=0, pad_token="[PAD]")
    tokenizer.save(str(root / "tokenizer.json"))
    (root / "config.json").write_text(json.dumps({"hidden_size": DIM}))
    st_config = {} if max_seq_length is None else {"max_seq_length": max_seq_length}
    (root / "sentence_bert_config.json").write_text(json.dumps(st_config))
    return root


def _expected(text: str, max_tokens: int) -> np.ndarray:
    """Mean of the text's token rows (unknown words: [UNK]), first ``max_tokens`` only, as a unit vector."""
    ids = [VOCAB.index(w) if w in VOCAB else 1 for w in text.split()][:max_tokens]
    if not ids:
        return np.zeros(DIM, dtype=np.float32)
    pooled = (TABLE[ids] + TYPE_ROW).astype(np.float64).mean(axis=0)
    return (pooled / np.linalg.norm(pooled)).astype(np.float32)


@pytest.fixture
def exports(monkeypatch, tmp_path):
    """A fresh export cache whose exporter writes the table graph; the list records each export's target."""
    done: list[Path] = []

    def export(model_dir, out):
        json.loads((Path(model_dir) / "config.json").read_text())  # it is given the model's folder
        done.append(Path(out))
        _table_graph(Path(out))

    monkeypatch.chdir(tmp_path)  # a file written to a relative path by broken code lands here, not in the checkout
    monkeypatch.setenv("FINCHAIN_EMBEDDING_CACHE", str(tmp_path / "cache" / "nested"))
    monkeypatch.setattr(eb, "_export_fp32", export)
    return done


def test_exports_are_keyed_by_model_and_backend_and_reused(exports, tmp_path):
    model = _model_folder(tmp_path / "model")
    root = tmp_path / "cache" / "nested" / eb.model_hash(model)
    onnx_path = eb.exported_model(model, "onnx")
    assert onnx_path == root / "onnx.fp32-opset17" / "model.onnx" and onnx_path.is_file()
    assert json.loads((onnx_path.parent / "source.json").read_text()) == {
        "model_dir": str(model), "backend": "onnx", "recipe": "fp32-opset17"}
    assert eb.exported_model(model, "onnx") == onnx_path
    assert eb.exported_model(model, "openvino") == onnx_path == eb.exported_model(model, "openvino-bf16")
    assert len(exports) == 1  # one export, shared by OpenVINO, reused on later calls
    # written in a hidden folder beside its place (the same file system, so the rename into place is atomic)
    assert exports[0].parent.parent == root and exports[0].parent.name.startswith(".onnx-")
    int8 = eb.exported_model(model, "onnx-int8")
    assert int8 == root / "onnx-int8.matmulnbits8-b32" / "model_int8.onnx"
    assert sorted(p.name for p in int8.parent.iterdir()) == ["model_int8.onnx", "source.json"]
    assert json.loads((int8.parent / "source.json").read_text())["recipe"] == "matmulnbits8-b32"
    assert len(exports) == 2 and sorted(p.name for p in root.iterdir()) == [
        "onnx-int8.matmulnbits8-b32", "onnx.fp32-opset17"]  # no temporary folder left behind


def test_an_export_finished_by_another_process_first_is_kept(exports, monkeypatch, tmp_path):
    model = _model_folder(tmp_path / "model")
    final = tmp_path / "cache" / "nested" / eb.model_hash(model) / "onnx.fp32-opset17"

    def racing(model_dir, out):  # the other process renames its export into place while this one works
        final.mkdir(parents=True)
        (final / "model.onnx").write_bytes(b"theirs")
        _table_graph(Path(out))

    monkeypatch.setattr(eb, "_export_fp32", racing)
    assert eb.exported_model(model, "onnx") == final / "model.onnx"
    assert (final / "model.onnx").read_bytes() == b"theirs"
    assert sorted(p.name for p in final.parent.iterdir()) == ["onnx.fp32-opset17"]

    (final / "model.onnx").unlink()  # something else holds the place, without a model: that is an error
    (final / "stray").write_text("x")
    monkeypatch.setattr(eb, "_export_fp32", lambda model_dir, out: _table_graph(Path(out)))
    with pytest.raises(OSError):
        eb.exported_model(model, "onnx")
    assert sorted(p.name for p in final.parent.iterdir()) == ["onnx.fp32-opset17"]


# -- the int8 weight format ----------------------------------------------------------------------------

def _reference_quantize(weight: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray]:
    """MatMulNBits' symmetric 8-bit layout, element by element: per output column and K-block, scale =
    max |w| / 127 and code = round-half-even(w / scale) + 128 (a zero block: scale 0, codes 128)."""
    k, n = weight.shape
    blocks = -(-k // block)
    codes = np.full((n, blocks, block), 128, dtype=np.uint8)
    scales = np.zeros((n, blocks), dtype=np.float32)
    for col in range(n):
        for b in range(blocks):
            rows = range(b * block, min(k, (b + 1) * block))
            scale = max(abs(float(np.float32(weight[r, col]))) for r in rows) / 127.0
            scales[col, b] = scale
            for r in rows:
                if scale:
                    codes[col, b, r - b * block] = int(np.rint(np.float32(weight[r, col]) / np.float32(scale))) + 128
    return codes, scales


def test_block_quantize_is_matmulnbits_layout_exactly():
    rng = np.random.default_rng(11)
    weight = rng.standard_normal((40, 3)).astype(np.float32)
    weight[:32, 1] = 0.0  # an all-zero block: scale 0, every code the zero point
    weight[5, 0] = -4.0  # a block whose extreme is negative: code 1
    weight[35, 2] = 1e-30  # a tiny value in a padded block
    for block in (32, 16, 8):
        with np.errstate(all="raise"):  # no 0/0 on the zero block (numpy would warn during the export)
            codes, scales = eb.block_quantize(weight, block)
        want_codes, want_scales = _reference_quantize(weight, block)
        assert codes.dtype == np.uint8 and scales.dtype == np.float32
        np.testing.assert_array_equal(codes, want_codes)
        np.testing.assert_array_equal(scales, want_scales)
    codes, scales = eb.block_quantize(weight)  # the default block is INT8_BLOCK (32)
    assert codes.shape == (3, 2, 32) and scales.shape == (3, 2)
    assert codes[0, 0, 5] == 1 and codes[1, 0].tolist() == [128] * 32 and scales[1, 0] == 0
    assert codes[:, 1, 8:].tolist() == [[128] * 24] * 3  # K padded with zeros to whole blocks


def _weights_graph(out: Path, with_ms_opset: bool) -> None:
    """x @ W + B then @ y: one weight matmul, a bias add with a constant, an activation-activation matmul."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["h"], name="proj"), helper.make_node("Add", ["h", "B"], ["hb"]),
         helper.make_node("MatMul", ["hb", "y"], ["z"])], "weights",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 20]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, "c"])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["b", "c"])],
        initializer=[numpy_helper.from_array(np.linspace(-1, 1, 60, dtype=np.float32).reshape(20, 3), "W"),
                     numpy_helper.from_array(np.array([0.5, -0.25, 1.0], np.float32), "B")])
    opsets = [helper.make_opsetid("", 17)] + ([helper.make_opsetid("com.microsoft", 1)] if with_ms_opset else [])
    onnx.save(helper.make_model(graph, opset_imports=opsets), str(out))


@pytest.mark.parametrize("with_ms_opset", [False, True])
def test_quantize_rewrites_weight_matmuls_only(tmp_path, with_ms_opset):
    import onnx
    import onnxruntime as ort

    src, dst = tmp_path / "fp32.onnx", tmp_path / "int8.onnx"
    _weights_graph(src, with_ms_opset)
    eb._quantize(src, dst, block=16)
    model = onnx.load(str(dst))
    nodes = [(n.op_type, list(n.input)) for n in model.graph.node]
    assert nodes == [("MatMulNBits", ["x", "W_q8", "W_scales"]), ("Add", ["h", "B"]), ("MatMul", ["hb", "y"])]
    assert model.graph.node[0].domain == "com.microsoft" and model.graph.node[0].name == "proj_q8"
    attrs = {a.name: a.i for a in model.graph.node[0].attribute}
    assert attrs == {"K": 20, "N": 3, "bits": 8, "block_size": 16, "accuracy_level": 4}
    stored = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
    assert sorted(stored) == ["B", "W_q8", "W_scales"]  # the fp32 weight is gone
    codes, scales = eb.block_quantize(np.linspace(-1, 1, 60, dtype=np.float32).reshape(20, 3), 16)
    np.testing.assert_array_equal(stored["W_q8"], codes)
    np.testing.assert_array_equal(stored["W_scales"], scales)
    assert [(o.domain, o.version) for o in model.opset_import].count(("com.microsoft", 1)) == 1
    x = np.random.default_rng(0).standard_normal((4, 20)).astype(np.float32)
    y = np.eye(3, dtype=np.float32)
    got = ort.InferenceSession(str(dst), providers=["CPUExecutionProvider"]).run(None, {"x": x, "y": y})[0]
    want = x @ np.linspace(-1, 1, 60, dtype=np.float32).reshape(20, 3) + np.array([0.5, -0.25, 1.0])
    np.testing.assert_allclose(got, want, atol=0.05)


# -- the ONNX encoder: tokenise, run, pool over the mask, normalise -------------------------------------

TEXTS = ["net income is final", "tax", "", "a b a b a b a b a b", "rate rate unknownword", "final"]


def test_onnx_encoder_pools_the_real_tokens_into_unit_vectors(exports, tmp_path, monkeypatch):
    monkeypatch.setenv("FINCHAIN_EMBED_THREADS", "3")
    encoder = eb.OnnxEncoder(_model_folder(tmp_path / "model", max_seq_length=6), "onnx")
    assert encoder.path == eb.exported_model(tmp_path / "model", "onnx") and encoder.device == "cpu"
    options = encoder.session.get_session_options()
    assert (options.intra_op_num_threads, options.inter_op_num_threads) == (3, 1)
    assert encoder.session.get_providers() == ["CPUExecutionProvider"]
    widths = []
    real = encoder.session

    class Recording:  # the runtime's view of each batch
        def run(self, names, feeds):
            widths.append((feeds["input_ids"].shape[1], feeds["attention_mask"].sum(axis=1).tolist()))
            return real.run(names, feeds)

    encoder.session = Recording()
    got = encoder.encode(TEXTS, batch_size=2)
    want = np.stack([_expected(t, 6) for t in TEXTS])
    assert got.shape == (len(TEXTS), DIM) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, atol=1e-6)
    assert np.all(got[2] == 0)  # an empty text: a zero vector, not NaN
    # batched by exact token count, shortest first, at most batch_size texts: nothing is padded (padding moves
    # a vector's last bits, so a vector would depend on its batch), and a text of no tokens never runs
    assert widths == [(1, [1, 1]), (3, [3]), (4, [4]), (6, [6])]
    np.testing.assert_allclose(encoder.encode(TEXTS[::-1], batch_size=4), want[::-1], atol=1e-6)


def test_onnx_encoder_truncates_at_the_models_length(exports, tmp_path):
    long = " ".join(["tax"] * 256 + ["net"] * 40)
    encoder = eb.OnnxEncoder(_model_folder(tmp_path / "model", max_seq_length=None), "onnx", threads=1)
    np.testing.assert_allclose(encoder.encode([long], 8)[0], _expected("tax", 1), atol=1e-5)  # default 256
    assert encoder.session.get_session_options().intra_op_num_threads == 1
    encoder = eb.OnnxEncoder(_model_folder(tmp_path / "model2", max_seq_length=3), "onnx", threads=2)
    np.testing.assert_allclose(encoder.encode(["a b a b"], 8)[0], _expected("a b a", 3), atol=1e-6)
    assert encoder.session.get_session_options().intra_op_num_threads == 2


def test_onnx_encoder_checks_the_backend_before_exporting(exports, tmp_path, monkeypatch, installed):
    model = _model_folder(tmp_path / "model")
    with pytest.raises(ValueError, match="unknown embedding backend 'onnx-fp16'"):
        eb.OnnxEncoder(model, "onnx-fp16")
    installed(absent=("onnxruntime",))
    with pytest.raises(eb.BackendUnavailable, match="needs onnxruntime"):
        eb.OnnxEncoder(model, "onnx")
    assert exports == []


def test_onnx_encoder_asks_for_cuda_only_when_told(exports, tmp_path, monkeypatch):
    """The CPU is always named, after CUDA when the caller wants the GPU and this build has CUDA. A CUDA build
    (as ONNX Runtime itself lists providers) refuses a session that names none."""
    import warnings

    import onnxruntime as ort
    from onnxruntime.capi import _pybind_state

    model = _model_folder(tmp_path / "model")
    cuda_build = lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"]  # noqa: E731
    monkeypatch.setattr(ort, "get_available_providers", cuda_build)
    monkeypatch.setattr(_pybind_state, "get_available_providers", cuda_build)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every provider named exists
        cpu = eb.OnnxEncoder(model, "onnx", threads=1)
    assert cpu.device == "cpu" and cpu.session.get_providers() == ["CPUExecutionProvider"]
    monkeypatch.undo()
    monkeypatch.setattr(ort, "get_available_providers", cuda_build)  # this CPU build's session then warns
    monkeypatch.setenv("FINCHAIN_EMBEDDING_CACHE", str(tmp_path / "cache" / "nested"))
    monkeypatch.setattr(eb, "_export_fp32", lambda model_dir, out: _table_graph(Path(out)))
    with pytest.warns(UserWarning, match="Specified provider 'CUDAExecutionProvider' is not in available"):
        assert eb.OnnxEncoder(model, "onnx", threads=1, gpu=True).device == "cuda"
    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CPUExecutionProvider"])
    assert eb.OnnxEncoder(model, "onnx", threads=1, gpu=True).device == "cpu"


@pytest.mark.parametrize("backend", ["openvino", "openvino-bf16"])
def test_openvino_runs_the_same_export_in_its_precision(exports, tmp_path, backend):
    ov = pytest.importorskip("openvino")
    if backend == "openvino-bf16" and not eb.cpu_has_bf16():
        pytest.skip("this CPU has no bfloat16")
    model = _model_folder(tmp_path / "model")
    encoder = eb.OnnxEncoder(model, backend, threads=1)  # not the machine's default (all cores)
    assert encoder.device == "cpu" and encoder.path == eb.exported_model(model, "onnx")
    compiled = encoder.session.compiled
    assert compiled.get_property("INFERENCE_PRECISION_HINT") == (ov.Type.bf16 if backend.endswith("bf16")
                                                                 else ov.Type.f32)
    assert compiled.get_property("INFERENCE_NUM_THREADS") == 1
    assert str(compiled.get_property("PERFORMANCE_HINT")) == "THROUGHPUT"  # one stream per thread (issue 44)
    assert compiled.get_property("NUM_STREAMS") == encoder.session.streams == 1
    got = encoder.encode(TEXTS, batch_size=2)
    first = got.copy()
    encoder.encode(["tax"], batch_size=2)  # a later run does not overwrite earlier results
    np.testing.assert_array_equal(got, first)
    np.testing.assert_allclose(got, np.stack([_expected(t, 6) for t in TEXTS]),
                               atol=2e-2 if backend.endswith("bf16") else 1e-6)
    assert list((encoder.path.parent.parent / "openvino-compiled").glob("*.blob"))


def test_openvino_bf16_refuses_a_compile_that_fell_back_to_fp32(exports, tmp_path, monkeypatch):
    """A CPU without bfloat16 compiles a bf16 hint in fp32 silently; the backend must not then call itself
    bf16 (a stand-in Core answers as such a CPU's plugin does)."""
    ov = pytest.importorskip("openvino")
    real_core = ov.Core

    class Fp32Only(real_core):
        def compile_model(self, *args, **kwargs):
            compiled = super().compile_model(*args, **kwargs)
            return types.SimpleNamespace(
                get_property=lambda key: ov.Type.f32 if key == "INFERENCE_PRECISION_HINT" else
                compiled.get_property(key),
                create_infer_request=compiled.create_infer_request)

    monkeypatch.setattr(ov, "Core", Fp32Only)
    with pytest.raises(eb.BackendUnavailable) as err:
        eb._OpenVinoSession(eb.exported_model(_model_folder(tmp_path / "model"), "onnx"), "openvino-bf16", 1)
    assert str(err.value) == "OpenVINO compiled 'openvino-bf16' in f32, not bf16: use 'onnx'"
    assert eb._OpenVinoSession(eb.exported_model(tmp_path / "model", "onnx"), "openvino", 1).request is not None


# -- the exporter itself, on a tiny random BERT ----------------------------------------------------------

@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    """A 1-layer BERT of width 8 saved as safetensors, in a folder that also carries code of its own (an
    ``auto_map`` naming a module that leaves a mark and raises when imported)."""
    torch = pytest.importorskip("torch")
    from transformers import BertConfig, BertModel

    root = tmp_path_factory.mktemp("tiny-bert")
    torch.manual_seed(0)
    model = BertModel(BertConfig(vocab_size=len(VOCAB), hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                                 intermediate_size=16, max_position_embeddings=32)).eval()
    model.save_pretrained(root / "model", safe_serialization=True)
    config = json.loads((root / "model" / "config.json").read_text())
    (root / "model" / "config.json").write_text(json.dumps({**config, "auto_map": {"AutoModel": "evil.EvilModel"}}))
    marker = root / "code-ran"
    (root / "model" / "evil.py").write_text(f"open({str(marker)!r}, 'w').close()\nraise RuntimeError('code ran')\n")
    return root, model, marker


def test_export_is_the_transformer_with_free_batch_and_length(tiny_bert, tmp_path):
    import onnx
    import onnxruntime as ort
    import torch

    root, model, marker = tiny_bert
    out = tmp_path / "model.onnx"
    eb._export_fp32(root / "model", out)
    assert not marker.exists()  # the folder's own code never ran
    graph = onnx.load(str(out))
    assert [o.version for o in graph.opset_import if o.domain in ("", "ai.onnx")] == [17]
    names = ["input_ids", "attention_mask", "token_type_ids"]
    assert [i.name for i in graph.graph.input] == names
    assert [o.name for o in graph.graph.output] == ["last_hidden_state"]
    for value in [*graph.graph.input, *graph.graph.output]:
        assert [d.dim_param for d in value.type.tensor_type.shape.dim[:2]] == ["batch", "tokens"]
    ids = np.array([[2, 3, 4, 5, 6], [7, 8, 9, 0, 0], [3, 3, 0, 0, 0]], dtype=np.int64)  # not the traced 2 x 8
    mask = (ids > 0).astype(np.int64)
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    got = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    with torch.no_grad():
        want = model(**{k: torch.from_numpy(v) for k, v in feeds.items()}).last_hidden_state.numpy()
    np.testing.assert_allclose(got * mask[:, :, None], want * mask[:, :, None], atol=1e-5)


def test_export_refuses_pickled_weights(tiny_bert, tmp_path):
    """Weights load from safetensors only: a pickle can run code when loaded."""
    import torch

    root, model, _ = tiny_bert
    folder = tmp_path / "pickled"
    folder.mkdir()
    (folder / "config.json").write_text((root / "model" / "config.json").read_text())
    torch.save(model.state_dict(), folder / "pytorch_model.bin")
    with pytest.raises(OSError):
        eb._export_fp32(folder, tmp_path / "model.onnx")
    assert not (tmp_path / "model.onnx").exists()


def test_export_never_runs_folder_code_even_when_a_prompt_would_be_answered_yes(tmp_path, monkeypatch):
    """A model type transformers does not know, with code of its own: the export refuses it outright rather
    than asking (a user answering yes would run the folder's code)."""
    pytest.importorskip("transformers")
    from transformers import dynamic_module_utils

    folder = tmp_path / "custom"
    folder.mkdir()
    marker = tmp_path / "code-ran"
    (folder / "config.json").write_text(json.dumps({"model_type": "finchain-custom", "auto_map": {
        "AutoConfig": "custom.CustomConfig", "AutoModel": "custom.CustomModel"}}))
    (folder / "custom.py").write_text(f"open({str(marker)!r}, 'w').close()\nraise RuntimeError('code ran')\n")
    monkeypatch.setattr("builtins.input", lambda *a: "y")
    monkeypatch.setattr(dynamic_module_utils, "HF_MODULES_CACHE", str(tmp_path / "modules"))
    with pytest.raises(ValueError, match="trust_remote_code"):
        eb._export_fp32(folder, tmp_path / "model.onnx")
    assert not marker.exists() and not (tmp_path / "model.onnx").exists()


# -- batch sizes (issue 44: OpenVINO keeps kernels per input shape) ------------------------------

@pytest.mark.parametrize(("count", "batch_size", "sizes"), [
    (0, 128, []),                                   # no texts, no batch
    (1, 128, [1]),
    (100, 128, [64, 32, 4]),                        # below one batch: powers of two, largest first
    (128, 128, [128]),                              # exactly one full batch
    (300, 128, [128, 128, 32, 8, 4]),               # full batches, then the rest in powers of two
    (7, 3, [3, 3, 1]),                              # a batch size that is no power of two
    (5, 1, [1, 1, 1, 1, 1]),
])
def test_batch_bounds_are_full_batches_then_powers_of_two(count, batch_size, sizes):
    bounds = eb.batch_bounds(count, batch_size)
    assert [stop - start for start, stop in bounds] == sizes
    assert [start for start, _ in bounds] == [sum(sizes[:k]) for k in range(len(sizes))]  # contiguous, in order


def test_batch_bounds_give_few_shapes_whatever_the_count():
    """The rule's point: however many texts share a token count, their batches take at most log2(batch) + 1
    sizes (so OpenVINO meets a bounded set of input shapes), and every text is in exactly one batch."""
    seen: set[int] = set()
    for count in range(0, 1000):
        bounds = eb.batch_bounds(count, 128)
        assert sorted(k for a, b in bounds for k in range(a, b)) == list(range(count))
        seen.update(b - a for a, b in bounds)
    assert seen == {1, 2, 4, 8, 16, 32, 64, 128}
