"""A PRM checkpoint from elsewhere never runs code unless the user asks (issue 32): the mode the user names
wins over the checkpoint's ``prm_config.json``, remote code needs ``trust_remote_code``, weights load from
safetensors only unless ``allow_pickle``. Every payload would write a marker file; the marker must not appear."""

from __future__ import annotations

import json
import pickle

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from scorers.prm.hf import PRM_CONFIG, CheckpointLayoutError, FinPRM  # noqa: E402
from tests.prm.test_hf import ITEMS, _authors_checkpoint  # noqa: E402
from tests.support.payloads import marker_source, pickle_payload  # noqa: E402


def _hostile(folder, marker, mode="qwen", arch="Qwen3ForProcessRewardModel"):
    """The authors' release layout plus remote code that writes ``marker``, named by ``auto_map``, and a
    ``prm_config.json`` asking for ``mode``."""
    _authors_checkpoint(folder)
    for name in ("configuration_evil.py", "modeling_evil.py"):
        # subclasses, not transformers' own classes re-exported: loading a remote class registers it for its auto
        # class, and that mark on Qwen3Config itself would make every later save copy "remote code" files
        (folder / name).write_text(marker_source(marker) + "from transformers import Qwen3Config, Qwen3Model\n\n\n"
                                   "class EvilConfig(Qwen3Config):\n    pass\n\n\n"
                                   "class EvilModel(Qwen3Model):\n    pass\n")
    cfg = json.loads((folder / "config.json").read_text())
    cfg.update(architectures=[arch], auto_map={"AutoConfig": "configuration_evil.EvilConfig",
                                               "AutoModel": "modeling_evil.EvilModel",
                                               "AutoModelForTokenClassification": "modeling_evil.EvilModel"})
    (folder / "config.json").write_text(json.dumps(cfg))
    (folder / PRM_CONFIG).write_text(json.dumps({"mode": mode}))
    return folder


def test_the_mode_the_user_names_wins_and_no_remote_code_runs(tmp_path):
    from finchain_tasks.prm import load_prm

    marker = tmp_path / "ran"
    folder = _hostile(tmp_path / "ckpt", marker)
    prm = load_prm(f"hf:{folder}:release")
    assert prm.mode == "release" and not marker.exists()
    [score] = prm.score_batch([ITEMS[0]])
    assert len(score.step_probs) == 2 and score.p_traj is not None
    # no mode named: the file's qwen is taken, still without its code (the score.* head is read directly)
    qwen = load_prm(f"hf:{folder}")
    assert qwen.mode == "qwen" and qwen.heads is not None and not marker.exists()
    [q] = qwen.score_batch([ITEMS[0]])
    assert len(q.step_probs) == 2 and q.p_traj is None and all(0 <= p <= 1 for p in q.step_probs)


def test_a_head_only_its_own_code_can_read_needs_the_explicit_flag(tmp_path):
    marker = tmp_path / "ran"
    folder = _hostile(tmp_path / "ckpt", marker)
    weights = folder / "model.safetensors"
    from safetensors.torch import load_file, save_file

    tensors = {k.replace("score.", "v_head."): v for k, v in load_file(str(weights)).items()}
    save_file(tensors, str(weights), metadata={"format": "pt"})
    with pytest.raises(CheckpointLayoutError, match=r"needs the checkpoint's own Python code.*--trust-remote-code"):
        FinPRM.from_pretrained(str(folder), mode="qwen")
    assert not marker.exists()
    unknown = json.loads((folder / "config.json").read_text())
    unknown["model_type"] = "evil_prm"
    (folder / "config.json").write_text(json.dumps(unknown))
    with pytest.raises(CheckpointLayoutError, match=r"--trust-remote-code"):
        FinPRM.from_pretrained(str(folder), mode="qwen")
    assert not marker.exists()


def test_the_payload_is_live_when_the_user_opts_in(tmp_path, monkeypatch):
    """The control: the same folder's code does run under trust_remote_code (so the tests above can fail)."""
    import transformers.dynamic_module_utils as dyn
    from transformers import AutoConfig

    monkeypatch.setattr(dyn, "HF_MODULES_CACHE", str(tmp_path / "modules"))
    marker = tmp_path / "ran"
    folder = _hostile(tmp_path / "ckpt", marker)
    AutoConfig.from_pretrained(folder, trust_remote_code=True)
    assert marker.exists()


def test_pickle_weights_are_refused_unless_the_user_opts_in(tmp_path):
    marker = tmp_path / "ran"
    folder = tmp_path / "ckpt"
    _authors_checkpoint(folder)
    (folder / "model.safetensors").unlink()
    (folder / "pytorch_model.bin").write_bytes(pickle_payload(marker))
    for mode in ("dual", "release", "qwen", None):
        with pytest.raises(CheckpointLayoutError, match=r"only in pickle files \(pytorch_model\.bin\).*--allow-pickle"):
            FinPRM.from_pretrained(str(folder), mode=mode)
    assert not marker.exists()
    with pytest.raises(Exception):  # noqa: B017 - opted in: torch's weights_only loader still refuses exec
        FinPRM.from_pretrained(str(folder), mode="release", allow_pickle=True)
    assert not marker.exists()
    pickle.loads((folder / "pytorch_model.bin").read_bytes())  # the control: a plain unpickle runs it
    assert marker.exists()


@pytest.mark.parametrize("value", ["true", 1, None])
def test_host_opt_ins_take_booleans_only(value):
    from finchain_tasks.prm import opt_ins, opt_ins_text

    with pytest.raises(ValueError, match="prm_trust_remote_code must be true or false"):
        opt_ins(value, False)
    assert opt_ins_text(opt_ins(True, False)) == "trust_remote_code" and opt_ins_text(opt_ins()) == ""
