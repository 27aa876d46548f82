"""``VllmServer`` and ``finchain serve vllm`` against a stand-in ``vllm`` executable (tests/support/fake_vllm.py):
health wait, one-line failures with the log tail, and a stop that leaves no process, zombie or bound port."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.models.registry import load_registry
from finchain_tasks.models.vllm_server import VllmServer
from tests.support import fake_vllm

REPO = Path(__file__).resolve().parents[2]
SPEC = load_registry().models["fin-r1"]


@pytest.fixture(scope="module")
def vllm_bin(tmp_path_factory) -> Path:
    return fake_vllm.install(tmp_path_factory.mktemp("bin"))


@pytest.fixture
def record(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "record"
    monkeypatch.setenv("FAKE_VLLM_RECORD", str(folder))
    monkeypatch.delenv("FAKE_VLLM_MODE", raising=False)
    return folder


def gone(pid: int) -> bool:
    """No such process, not even a zombie (a zombie keeps its /proc entry until it is reaped)."""
    return not Path(f"/proc/{pid}").exists()


def exited(pid: int, within: float = 15.0) -> bool:
    """The process ended within ``within`` s: gone, or a zombie (an orphan is reaped by its new parent, not us)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


OWNER = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from finchain_tasks.models.registry import load_registry
from finchain_tasks.models.vllm_server import VllmServer
server = VllmServer(load_registry().models["fin-r1"], log_path=Path(sys.argv[2]), vllm_bin=sys.argv[3]).start()
print(server.pid, flush=True)
time.sleep(600)
"""


def test_a_server_does_not_outlive_an_owner_killed_with_sigkill(vllm_bin, record, tmp_path):
    """SIGKILL leaves the owner no say: the server gets SIGTERM from the kernel (PR_SET_PDEATHSIG) and stops."""
    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(REPO), str(tmp_path / "o.log"), str(vllm_bin)],
                             stdout=subprocess.PIPE, text=True, env={**os.environ, "FAKE_VLLM_RECORD": str(record)})
    try:
        pid = int(owner.stdout.readline())
        owner.kill()
        owner.wait(timeout=30)
        assert exited(pid), f"vllm stand-in {pid} outlived its owner"
        deadline = time.monotonic() + 15
        while not records(record) and time.monotonic() < deadline:
            time.sleep(0.05)
        (rec,) = records(record)  # it stopped through its SIGTERM handler, and stopped its child
        assert exited(rec["child_pid"])
    finally:
        owner.kill()
        owner.wait()


def port_free(port: int) -> bool:
    """Nothing listens there: a new server can bind it (with SO_REUSEADDR, as servers bind, so that a closed
    connection's TIME_WAIT does not count; on Linux it never lets two sockets listen on one port)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def records(folder: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


def test_start_health_and_stop_leave_no_process_and_free_the_port(vllm_bin, record, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_VLLM_DELAY", "0.4")  # loading weights: the health check must wait, with a progress line
    lines: list[str] = []
    server = VllmServer(SPEC, log_path=tmp_path / "fin-r1.log", vllm_bin=str(vllm_bin), devices="3",
                        progress=lines.append, progress_every=0.1)
    with server:
        assert server.running() and server.base_url == f"http://127.0.0.1:{server.port}/v1"
        assert not port_free(server.port)
        pid = server.pid
    assert lines and "waiting for vLLM (fin-r1)" in lines[0] and "/health" in lines[0]
    (rec,) = records(record)
    assert rec["pid"] == pid and rec["devices"] == "3"
    assert rec["argv"][:2] == ["serve", "SUFE-AIFLM-Lab/Fin-R1"] and "--reasoning-parser" in rec["argv"]
    assert gone(pid) and gone(rec["child_pid"])  # the server and what it spawned, both reaped
    assert port_free(server.port)
    assert server.record()["startup_s"] >= 0.4 and server.record()["revision"] == "main"
    server.stop()  # twice is fine


def test_a_server_that_exits_at_once_is_reported_at_once_with_its_exit_code_and_log(vllm_bin, record, tmp_path,
                                                                                      monkeypatch):
    monkeypatch.setenv("FAKE_VLLM_MODE", "exit")
    server = VllmServer(SPEC, log_path=tmp_path / "x.log", vllm_bin=str(vllm_bin), startup_timeout=600)
    t0 = time.monotonic()
    with pytest.raises(RuntimeError) as err:
        server.start()
    message = str(err.value)
    assert time.monotonic() - t0 < 300  # reported when it exits, never after the 600 s timeout (wide: CI is slow)
    assert "exited with code 3 before it was healthy" in message and "CUDA out of memory" in message
    assert "\n" not in message and str(tmp_path / "x.log") in message
    assert not server.running() and port_free(server.port)


def test_a_server_that_never_gets_healthy_fails_after_its_timeout_and_is_stopped(vllm_bin, record, tmp_path,
                                                                                  monkeypatch):
    monkeypatch.setenv("FAKE_VLLM_MODE", "never_healthy")
    server = VllmServer(SPEC, log_path=tmp_path / "x.log", vllm_bin=str(vllm_bin), startup_timeout=1.0)
    t0 = time.monotonic()
    with pytest.raises(RuntimeError) as err:
        server.start()
    assert time.monotonic() - t0 >= 1.0  # it waited its timeout (an upper bound would only time the machine)
    message = str(err.value)
    assert f"did not answer http://127.0.0.1:{server.port}/health within 1 s" in message
    assert "Application startup complete" in message and "\n" not in message  # the log's last lines, one line
    (rec,) = records(record)  # it was stopped (SIGTERM), so it wrote its record
    assert gone(rec["pid"]) and gone(rec["child_pid"]) and port_free(server.port)


def test_a_missing_executable_is_one_line_naming_the_extra(monkeypatch, tmp_path):
    monkeypatch.delenv("FINCHAIN_VLLM_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    result = CliRunner().invoke(app, ["serve", "vllm", "fin-r1"])
    assert result.exit_code == 2
    assert "no vLLM executable 'vllm'" in result.output and "finchain-tasks[vllm]" in result.output


def test_serve_vllm_refuses_a_model_without_a_vllm_block(vllm_bin):
    result = CliRunner().invoke(app, ["serve", "vllm", "gpt-5", "--vllm-bin", str(vllm_bin)])
    assert result.exit_code == 2 and "has no `vllm` block" in result.output


SIGTERM_OWNER = """
import json, os, signal, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from finchain_tasks.models.registry import load_registry
from finchain_tasks.models.vllm_server import VllmServer
print(json.dumps({"default_before": signal.getsignal(signal.SIGTERM) is signal.SIG_DFL}), flush=True)
try:
    with VllmServer(load_registry().models["fin-r1"], log_path=Path(sys.argv[2]), vllm_bin=sys.argv[3]) as server:
        print(json.dumps({"port": server.port}), flush=True)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(30)  # the handler raises here
except SystemExit as exc:
    print(json.dumps({"code": exc.code, "default_after": signal.getsignal(signal.SIGTERM) is signal.SIG_DFL}),
          flush=True)
    raise
"""


def test_sigterm_to_the_owner_stops_the_server_through_the_with_block(vllm_bin, record, tmp_path):
    """SIGTERM (a job scheduler's stop) becomes SystemExit while a server runs, so the ``with`` block stops it.
    The owner is a child process: a SIGTERM sent to a test worker itself could take the worker down."""
    owner = subprocess.run([sys.executable, "-c", SIGTERM_OWNER, str(REPO), str(tmp_path / "t.log"), str(vllm_bin)],
                           capture_output=True, text=True, timeout=120,
                           env={**os.environ, "FAKE_VLLM_RECORD": str(record)})
    said = {k: v for line in owner.stdout.splitlines() for k, v in json.loads(line).items()}
    assert owner.returncode == 128 + signal.SIGTERM, owner.stdout + owner.stderr
    assert said["default_before"] and said["code"] == 128 + signal.SIGTERM
    assert said["default_after"]  # the handler is the owner's only while a server runs
    (rec,) = records(record)
    assert gone(rec["pid"]) and gone(rec["child_pid"]) and port_free(said["port"])


def test_serve_vllm_prints_the_host_lines_and_stops_cleanly_on_ctrl_c(vllm_bin, record, tmp_path):
    """`finchain serve vllm fin-r1 -- --enforce-eager` in a subprocess: the base URL and the paste lines, then
    Ctrl-C stops the server and its child; the port is free."""
    sig = signal.SIGINT
    from finchain_tasks.cli.serve_cmd import vllm_host_lines

    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "80", "FAKE_VLLM_RECORD": str(record)}
    # Ctrl-C as a terminal delivers it: a runner started with `nohup ... &` hands its children SIGINT ignored
    cmd = [sys.executable, "-c", "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
           "from finchain_tasks.cli.main import run; run()", "serve", "vllm", "fin-r1", "--vllm-bin", str(vllm_bin),
           "--log", str(tmp_path / "serve.log"), "--", "--enforce-eager"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path)
    out = []
    try:
        for line in proc.stdout:
            out.append(line)
            if line.startswith("Ctrl-C stops it."):
                break
        proc.send_signal(sig)
        rest, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
    text = "".join(out)
    url = next(line.split()[0] for line in out if line.startswith("http://127.0.0.1:"))
    assert all(line in text for line in vllm_host_lines(SPEC, url, "SUFE-AIFLM-Lab/Fin-R1")), text
    assert f"export FINCHAIN_FIN_R1_API_BASE={url}" in text
    assert proc.returncode in (0, 128 + sig), text + rest
    (rec,) = records(record)
    assert rec["argv"][-1] == "--enforce-eager"  # arguments after -- reach vllm serve, last
    assert gone(rec["pid"]) and gone(rec["child_pid"])
    assert port_free(int(url.rsplit(":", 1)[1].split("/")[0]))


@pytest.mark.parametrize("raw", ["", "abc", "nan", "inf", "-5", "0", "１２"])
def test_bad_environment_numbers_are_one_line(monkeypatch, raw):
    from finchain_tasks.models.vllm_server import gpu_inventory, startup_timeout_default

    monkeypatch.setenv("FINCHAIN_GPU_MEMORY_GB", raw)
    monkeypatch.setenv("FINCHAIN_VLLM_STARTUP_TIMEOUT", raw)
    if raw == "":  # unset in effect: the defaults
        assert startup_timeout_default() == 1800 and gpu_inventory().memory_gb > 0
        return
    if raw == "１２":  # full-width digits are a number to Python's float(): accepted as 12
        assert startup_timeout_default() == 12 and gpu_inventory().memory_gb == 12
        return
    checks = ((startup_timeout_default, "FINCHAIN_VLLM_STARTUP_TIMEOUT"), (gpu_inventory, "FINCHAIN_GPU_MEMORY_GB"))
    for fn, name in checks:
        with pytest.raises(ValueError) as err:
            fn()
        assert str(err.value).startswith(f"{name}={raw!r}") and "\n" not in str(err.value)


def test_gpu_inventory_takes_ids_from_cuda_visible_devices_and_count_from_gpus(monkeypatch):
    from finchain_tasks.models.vllm_server import gpu_inventory

    monkeypatch.setenv("FINCHAIN_GPU_MEMORY_GB", "141")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,5,7")
    assert gpu_inventory().ids == ("2", "5", "7") and gpu_inventory(2).ids == ("2", "5")
    assert gpu_inventory().memory_gb == 141 and gpu_inventory().source == "$FINCHAIN_GPU_MEMORY_GB"


@pytest.mark.parametrize("value", ["inf", "1e400"])
def test_serve_vllm_refuses_a_gpu_memory_that_is_not_a_number(vllm_bin, value):
    """(NaN is refused by the option's own range check, before the command runs.)"""
    result = CliRunner().invoke(app, ["serve", "vllm", "fin-r1", "--vllm-bin", str(vllm_bin), "--gpu-memory-gb", value])
    assert result.exit_code == 2 and "GPU memory must be a positive number of GB, not inf" in result.output
