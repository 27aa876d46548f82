"""One rule decides which argument names are secrets, for logs, result files and cache keys alike."""

import pytest

from finchain_tasks.plumbing.redaction import is_secret_name
from tests.support.timeouts import limit


@pytest.mark.parametrize("name", ["api_key", "OPENAI_API_KEY", "apikey", "key", "access_token", "auth_token",
                                  "authorization", "Authorization", "password", "client_secret", "credentials"])
def test_secret_names(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["max_tokens", "top_k", "temperature", "api_base", "base_url", "model",
                                  "keyword", "monkey", "tokenizer_backend"])
def test_ordinary_parameters(name):
    assert not is_secret_name(name)


def test_the_no_secrets_helper_reads_inspects_compressed_logs(tmp_path):
    """The bench tests' scan (``files_containing``) must see inside Inspect's ``.eval`` logs, whose members are
    zstd-compressed: a secret in the header and one in a sample are found, and a clean log has no hit. The scan
    runs in a fresh process, where nothing has imported Inspect yet (as at the start of a test session)."""
    import json
    import os
    import subprocess
    import sys
    import zipfile
    from pathlib import Path

    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log

    header_secret, sample_secret = "sk-test-in-header-4321", "sk-test-in-sample-8765"

    def log(metadata: dict, text: str) -> EvalLog:
        spec = EvalSpec(created="2026-01-01T00:00:00+00:00", task="t", dataset=EvalDataset(), model="mockllm/model",
                        config=EvalConfig(), metadata=metadata)
        return EvalLog(eval=spec, samples=[EvalSample(id=1, epoch=1, input=text, target="x")])

    write_eval_log(log({"note": header_secret}, "a question"), str(tmp_path / "logs" / "header.eval"))
    write_eval_log(log({}, f"a question with {sample_secret} in it"), str(tmp_path / "logs" / "sample.eval"))
    write_eval_log(log({}, "a clean question"), str(tmp_path / "logs" / "clean.eval"))
    with zipfile.ZipFile(tmp_path / "logs" / "sample.eval") as archive:  # the case the scan must handle
        assert {i.compress_type for i in archive.infolist()} - {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
    assert sample_secret.encode() not in (tmp_path / "logs" / "sample.eval").read_bytes()

    repo = Path(__file__).resolve().parents[1]
    code = ("import json, sys\nfrom pathlib import Path\nfrom tests.support.bench_helpers import files_containing\n"
            "root = Path(sys.argv[1])\n"
            "print(json.dumps({s: sorted({Path(h.split('!')[0]).name for h in files_containing(root, s)})"
            " for s in sys.argv[2:]}))\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path), header_secret, sample_secret, "sk-nowhere"],
                          capture_output=True, text=True, timeout=limit(300), cwd=repo,
                          env={**os.environ, "PYTHONPATH": str(repo)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        header_secret: ["header.eval"], sample_secret: ["sample.eval"], "sk-nowhere": []}
