"""``finchain prm train`` under ``accelerate launch``: two CPU processes with per-process batch 2 train the tiny
PRM as one process with batch 2 and gradient accumulation 2 does (the same examples in every optimizer step),
both runs are subprocesses of the real console entry, and both checkpoints load with ``hf:<out>``; plus the
runtime's errors, mixed precision in process, and the shipped ZeRO-2 config against accelerate's own parser."""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("accelerate")

from finchain_tasks.prm.accelerate_train import ZERO2_CONFIG, make_runtime  # noqa: E402
from scorers.prm.one_device import OneDevice  # noqa: E402
from scorers.prm.training import DrawOrder  # noqa: E402
from tests.support.timeouts import limit  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
STEPS = 3
# Per-step losses of the two runs differ only by float32 rounding: the mean of the two processes' losses (an
# all-reduce) against the sum of each half-loss, and gradients averaged by DDP against accumulated ones; AdamW's
# normalised updates keep that at rounding size over a few steps (measured: at most 6e-8 over 4 steps).
LOSS_TOL = 1e-5


def _labels(path: Path, n: int = 24) -> Path:
    """Traces whose steps say 'good' or 'bad', a few labels unknown, six templates (two held out at 0.34)."""
    rng, rows = random.Random(7), []
    for i in range(n):
        labels = [rng.randint(0, 1) for _ in range(rng.randint(1, 3))]
        if i % 5 == 0:
            labels[0] = None
        texts = ["cash flow good" if y else "tax ratio bad" for y in labels]
        traj = None if i % 7 == 0 else int(all(labels))
        rows.append({"id": f"r{i}", "question": "Q", "steps": texts, "final_answer": "1", "step_labels": labels,
                     "traj_label": traj, "meta": {"template": f"t{i % 6}"}})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACCELERATE_")}
    return {**env, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "CUDA_VISIBLE_DEVICES": ""}


def _train_args(labels: Path, out: Path) -> list[str]:
    return ["-m", "finchain_tasks.cli.main", "prm", "train", str(labels), "-o", str(out), "--steps", str(STEPS),
            "--batch-size", "2", "--eval-every", str(STEPS), "--eval-share", "0.34", "--lr", "3e-3", "--device", "cpu"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """(one process, grad accumulation 2) and (accelerate launch, 2 CPU processes): run side by side."""
    tmp = tmp_path_factory.mktemp("accel")
    labels = _labels(tmp / "labels.jsonl")
    one, two = tmp / "one", tmp / "two"
    single = subprocess.Popen([sys.executable, *_train_args(labels, one), "--grad-accum", "2"], env=_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # --multi_gpu is accelerate's multi-process launcher (torchrun); with --device cpu each process is a CPU
    # process on gloo (`--cpu --num_processes 2` starts one process unless mpirun is configured)
    launch = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
              "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
              "--main_process_port", str(_free_port())]
    multi = subprocess.run([*launch, *_train_args(labels, two)], env=_env(), capture_output=True, text=True,
                           timeout=limit(600))
    single_out = single.communicate(timeout=limit(600))[0]
    assert single.returncode == 0, single_out[-3000:]
    assert multi.returncode == 0, (multi.stdout + multi.stderr)[-3000:]
    return {"one": one, "two": two, "one_out": single_out, "two_out": multi.stdout}


def _summary(path: Path) -> dict:
    return json.loads((path / "train_summary.json").read_text())


def test_two_processes_train_as_one_process_with_grad_accum_two(runs):
    one, two = _summary(runs["one"]), _summary(runs["two"])
    assert [r["step"] for r in two["history"]] == list(range(1, STEPS + 1))
    for a, b in zip(one["history"], two["history"]):
        assert b["loss"] == pytest.approx(a["loss"], abs=LOSS_TOL)
    assert one["history"][-1]["loss"] != one["history"][0]["loss"]  # it trained
    # evaluation is sharded over the two processes and gathered in order: every held-out label is counted once
    for key in ("n_steps", "n_traj"):
        assert two["final"][key] == one["final"][key] == one["before"][key] > 0
    assert two["before"] == pytest.approx(one["before"], abs=1e-9)
    assert "accelerate" not in one  # the plain loop's summary is unchanged
    assert two["accelerate"] == {"processes": 2, "distributed_type": "MULTI_CPU", "mixed_precision": "no",
                                 "grad_accum": 1, "zero_stage": None, "batch_size": 2, "effective_batch": 4}


def test_only_the_main_process_logs(runs):
    out = " ".join(runs["two_out"].split())
    assert out.count("checkpoint:") == 1 and out.count("--base tiny is a plumbing check") == 1
    assert out.count("'step': 1,") == 1


def test_both_checkpoints_load_with_the_hf_spec_and_score_alike(runs):
    from finchain_tasks.prm import load_prm
    from scorers.prm.base import PRMInput

    items = [PRMInput("Q", ("cash flow good", "tax ratio bad"), "1"), PRMInput("Q", ("cash flow good",), "1")]
    a, b = (load_prm(f"hf:{runs[k]}").score_batch(items) for k in ("one", "two"))
    for x, y in zip(a, b):
        assert list(y.step_probs) == pytest.approx(list(x.step_probs), abs=1e-5)
        assert y.p_traj == pytest.approx(x.p_traj, abs=1e-5)


@pytest.fixture
def fresh_accelerate_state():
    """accelerate keeps its state in process-wide singletons: clear them after an in-process Accelerator."""
    from accelerate.state import AcceleratorState

    yield
    AcceleratorState._reset_state(reset_partial_state=True)


def test_bf16_mixed_precision_trains_close_to_fp32(tmp_path, fresh_accelerate_state):
    from finchain_tasks.prm.train_job import run_train
    from scorers.prm.training import TrainConfig

    labels = _labels(tmp_path / "labels.jsonl")
    runtime = make_runtime("cpu", "bf16", 1)
    assert type(runtime).__name__ == "AccelerateRuntime" and runtime.acc.mixed_precision == "bf16"
    cfg = {"steps": 2, "batch_size": 4, "lr": 3e-3, "eval_every": 2}
    low = run_train(labels, tmp_path / "bf16", config=TrainConfig(**cfg), eval_share=0.34, runtime=runtime)
    full = run_train(labels, tmp_path / "fp32", config=TrainConfig(**cfg), eval_share=0.34)
    assert low["accelerate"]["mixed_precision"] == "bf16"
    for a, b in zip(full["history"], low["history"]):  # bf16 keeps ~3 significant digits in the forward pass
        assert b["loss"] == pytest.approx(a["loss"], rel=0.05)


def test_the_launch_config_applies_unless_an_option_is_given(monkeypatch, fresh_accelerate_state):
    # what `accelerate launch --mixed_precision bf16 --gradient_accumulation_steps 3` puts in the environment
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "bf16")
    monkeypatch.setenv("ACCELERATE_GRADIENT_ACCUMULATION_STEPS", "3")
    from_config = make_runtime("cpu", None, None)
    assert (from_config.acc.mixed_precision, from_config.grad_accum) == ("bf16", 3)
    from accelerate.state import AcceleratorState

    AcceleratorState._reset_state(reset_partial_state=True)
    assert make_runtime("cpu", None, 2).grad_accum == 2  # --grad-accum wins


def test_without_a_launch_the_plain_loop_runs(monkeypatch):
    for key in ("ACCELERATE_MIXED_PRECISION", "WORLD_SIZE"):
        monkeypatch.delenv(key, raising=False)
    runtime = make_runtime(None, None, None)
    assert isinstance(runtime, OneDevice) and (runtime.device, runtime.grad_accum) == ("cpu", 1)
    assert isinstance(make_runtime("cuda", "no", 3), OneDevice)


@pytest.mark.parametrize(("args", "message"), [(("cpu", "fp8", None), "--mixed-precision: one of no, fp16, bf16"),
                                               (("cpu", None, 0), "--grad-accum must be at least 1")])
def test_bad_options_are_one_line_errors(args, message):
    with pytest.raises(ValueError, match=message) as err:
        make_runtime(*args)
    assert "\n" not in str(err.value)


def test_deepspeed_named_but_missing_is_one_line(monkeypatch):
    try:
        import deepspeed  # noqa: F401

        pytest.skip("deepspeed is installed here")
    except ImportError:
        pass
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "bf16")  # as `accelerate launch --config_file zero2.yaml`
    monkeypatch.setenv("ACCELERATE_USE_DEEPSPEED", "true")
    with pytest.raises(ValueError, match="names DeepSpeed, which is not installed: pip install deepspeed") as err:
        make_runtime(None, None, None)
    assert "\n" not in str(err.value)


def test_accelerate_missing_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "accelerate", None)  # `import accelerate` raises ImportError
    with pytest.raises(ValueError, match=r"finchain-tasks\[train\]"):
        make_runtime("cpu", "bf16", None)


def test_the_zero2_config_is_one_accelerate_reads():
    from accelerate.commands.config.config_args import load_config_from_file
    from accelerate.commands.launch import launch_command_parser

    config = load_config_from_file(str(ZERO2_CONFIG))  # unknown top-level keys raise here
    assert config.distributed_type == "DEEPSPEED" and config.mixed_precision == "bf16"
    assert config.deepspeed_config["zero_stage"] == 2 and config.deepspeed_config["offload_optimizer_device"] == "none"
    options = {action.dest for action in launch_command_parser()._actions}
    assert set(config.deepspeed_config) <= options  # every DeepSpeed key is an `accelerate launch` option


@given(n=st.integers(1, 40), batch=st.integers(1, 8), seed=st.integers(0, 3), batches=st.integers(1, 12))
def test_draws_are_batches_of_the_examples_an_epoch_without_repeats(n, batch, seed, batches):
    draws = list(DrawOrder(n, batch, seed, batches))
    assert len(draws) == batches and all(len(d) == batch and all(0 <= i < n for i in d) for d in draws)
    first_epoch = [i for d in draws[:n // batch] for i in d]
    assert len(first_epoch) == len(set(first_epoch))
    assert draws == list(DrawOrder(n, batch, seed, batches))
