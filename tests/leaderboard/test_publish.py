"""``finchain leaderboard publish``: the site plus a versioned data release in a folder, or the release uploaded
as a Hugging Face dataset (only huggingface_hub's network calls replaced); nothing published holds a key, a
local path or a raw log unless asked."""

import csv
import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.leaderboard.publish import tex
from tests.leaderboard.runs import KEY, LIMIT

pytestmark = pytest.mark.slow
REPO = "someone/finchain-board"
RELEASE_FILES = {"leaderboard.csv", "leaderboard.json", "reported.json", "samples.parquet", "leaderboard.tex",
                 "README.md"}


def _args(lb_runs, *extra):
    return ["leaderboard", "publish", "paper26", "-s", str(lb_runs["inspect"]), "-s", str(lb_runs["lm-eval"]),
            "--registry", str(lb_runs["inspect"].parent / "registry.yaml"), "--models", "all", *extra]


def _all_text(root: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in root.rglob("*") if p.is_file())


def test_publish_to_a_folder_writes_the_site_and_a_versioned_release(lb_runs, tmp_path):
    out = tmp_path / "pub"
    result = CliRunner().invoke(app, _args(lb_runs, "--to", str(out)))
    assert result.exit_code == 0, result.output
    assert (out / "index.html").is_file() and (out / "assets" / "app.js").is_file()
    (release,) = (out / "data").iterdir()
    assert release.name.startswith("paper26-v") and {p.name for p in release.iterdir()} == RELEASE_FILES
    rows = list(csv.DictReader((release / "leaderboard.csv").open(encoding="utf-8")))
    assert sorted((r["model"], r["harness"]) for r in rows) == [("fake-a", "inspect"), ("fake-a", "lm-eval"),
                                                                 ("fake-b", "inspect")]
    b = next(r for r in rows if r["model"] == "fake-b")
    assert float(b["chaineval"]) == 1.0 and b["chaineval_low"] and b["tie_group"]
    samples = pd.read_parquet(release / "samples.parquet")
    assert len(samples) == 3 * LIMIT and "source" not in samples.columns
    assert json.loads((release / "reported.json").read_text())["rows"][0]["status"] == "reported, not reproduced"
    assert r"\begin{tabular}" in (release / "leaderboard.tex").read_text()
    text = _all_text(out)
    assert KEY not in text and str(tmp_path) not in text and str(lb_runs["inspect"].parent) not in text
    assert not list(out.rglob("*.eval")) and not list(out.rglob("samples_*.jsonl"))


def test_raw_logs_only_when_asked(lb_runs, tmp_path):
    out = tmp_path / "pub"
    assert CliRunner().invoke(app, _args(lb_runs, "--to", str(out), "--include-raw")).exit_code == 0
    assert list(out.rglob("*.eval")) and list(out.rglob("samples_*.jsonl"))
    assert KEY not in _all_text(out)


class FakeHub:
    """The Hub's HTTP API as far as an upload goes, behind an httpx MockTransport: huggingface_hub itself runs
    unchanged (card check, repo creation, pre-upload, commit), only the network is replaced."""

    def __init__(self):
        self.requests = []
        self.files = {}

    def handle(self, request):
        import base64

        import httpx2

        path = request.url.path
        self.requests.append((request.method, path))
        if path.endswith("/validate-yaml"):
            return httpx2.Response(200, json={})
        if path == "/api/repos/create":
            body = json.loads(request.content)
            self.created = (body.get("organization"), body.get("name"), body.get("type"))
            return httpx2.Response(200, json={"url": "https://huggingface.co/datasets/someone/finchain-board"})
        if "/preupload/" in path:
            files = json.loads(request.content)["files"]
            return httpx2.Response(200, json={"files": [{"path": f["path"], "uploadMode": "regular",
                                                         "shouldIgnore": False} for f in files]})
        if "/commit/" in path:
            self.commit_path = path
            for line in request.content.decode().splitlines():
                item = json.loads(line)
                if item["key"] == "file":
                    self.files[item["value"]["path"]] = base64.b64decode(item["value"]["content"])
            oid = "a" * 40
            return httpx2.Response(200, json={"commitUrl": f"https://huggingface.co/datasets/{REPO}/commit/{oid}",
                                              "commitOid": oid, "success": True})
        return httpx2.Response(404, json={"error": f"unexpected {request.method} {path}"})


@pytest.fixture
def fake_hub(monkeypatch):
    import httpx2
    from huggingface_hub.utils import _http

    hub = FakeHub()
    monkeypatch.setenv("HF_TOKEN", "hf_test_token_not_real")
    _http.set_client_factory(lambda: httpx2.Client(transport=httpx2.MockTransport(hub.handle)))
    yield hub
    _http.set_client_factory(_http.default_client_factory)


def test_publish_to_hugging_face_uploads_the_release(lb_runs, fake_hub):
    result = CliRunner().invoke(app, _args(lb_runs, "--to", "hf:someone/finchain-board"))
    assert result.exit_code == 0, result.output
    assert fake_hub.created == ("someone", "finchain-board", "dataset")
    assert fake_hub.commit_path == "/api/datasets/someone/finchain-board/commit/main"
    folders = {p.split("/")[0] for p in fake_hub.files}
    assert len(folders) == 1 and folders.pop().startswith("paper26-v")
    assert {p.split("/", 1)[1] for p in fake_hub.files} == RELEASE_FILES
    csv_text = next(body for p, body in fake_hub.files.items() if p.endswith(".csv")).decode()
    assert "fake-b,Fake B" in csv_text
    assert not any(KEY.encode() in body for body in fake_hub.files.values())
    assert "someone/finchain-board" in result.output


def test_bad_hf_target_is_one_line(lb_runs):
    result = CliRunner().invoke(app, _args(lb_runs, "--to", "hf:not a repo"))
    assert result.exit_code == 2 and "owner/name" in result.output


def test_latex_escapes_names():
    assert tex("a_b & 50% {x}") == r"a\_b \& 50\% \{x\}"
