"""The default embedding backend (issue 31): the fastest installed backend that meets the agreement bar on this
machine, torch where none is installed or a GPU is there; ``FINCHAIN_EMBEDDING_BACKEND`` names one outright.

What is installed and what the CPU can do are this machine's facts, so the tests take them away one by one
(``find_spec`` answering None for a package, the CPU without bfloat16) and read the choice each time."""

from __future__ import annotations

import importlib.util

import pytest

from scorers import embedding_backends as eb


@pytest.fixture
def machine(monkeypatch):
    """Every backend runnable, no GPU; ``machine(absent=..., bf16=..., gpu=...)`` takes things away."""
    monkeypatch.delenv(eb.BACKEND_ENV, raising=False)
    real = importlib.util.find_spec

    def set_up(absent: tuple[str, ...] = (), bf16: bool = True, gpu: bool = False) -> None:
        monkeypatch.setattr(eb.importlib.util, "find_spec",
                            lambda name, *a: None if name in absent else real(name, *a) or object())
        monkeypatch.setattr(eb, "cpu_has_bf16", lambda: bf16)
        monkeypatch.setattr(eb, "nvidia_gpu_present", lambda: gpu)

    return set_up


@pytest.mark.parametrize("absent, bf16, gpu, expected", [
    ((), True, False, "openvino-bf16"),  # the fastest within the bar
    ((), False, False, "openvino"),  # no bfloat16 on this CPU: OpenVINO fp32
    (("openvino",), True, False, "onnx"),  # no OpenVINO: ONNX Runtime fp32
    (("openvino", "onnxruntime"), True, False, "torch"),  # nothing else installed
    (("onnx",), True, False, "torch"),  # no exporter, no fast backend
    ((), True, True, "torch"),  # a GPU: torch encodes there
])
def test_unset_picks_the_fastest_backend_that_runs_here(machine, absent, bf16, gpu, expected):
    machine(absent=absent, bf16=bf16, gpu=gpu)
    assert eb.default_backend() == expected


def test_never_the_int8_backend_by_default(machine):
    machine()
    assert "onnx-int8" not in eb.AUTO_ORDER and eb.default_backend() != "onnx-int8"


@pytest.mark.parametrize("value, expected", [("torch", "torch"), ("auto", "openvino-bf16"), (" onnx ", "onnx")])
def test_the_setting_names_a_backend_outright(machine, monkeypatch, value, expected):
    machine()
    monkeypatch.setenv(eb.BACKEND_ENV, value)
    assert eb.default_backend() == expected


def test_a_named_backend_that_cannot_run_fails_instead_of_falling_back(machine, monkeypatch):
    machine(absent=("openvino",))
    monkeypatch.setenv(eb.BACKEND_ENV, "openvino-bf16")
    with pytest.raises(eb.BackendUnavailable, match="pip install 'finchain-tasks\\[openvino\\]'"):
        eb.default_backend()
    monkeypatch.setenv(eb.BACKEND_ENV, "openvino-fp16")
    with pytest.raises(ValueError, match="choose one of auto, torch"):
        eb.default_backend()
