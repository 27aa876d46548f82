"""The real ``inspect`` command line: ``inspect eval finchain`` (the short name) and ``inspect score``.

Run from a scratch directory (as a user would: the checkout is not on ``sys.path``), with mockllm,
then the logs are read back with ``read_eval_log`` and ``samples_df``.
"""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.analysis import samples_df
from inspect_ai.log import list_eval_logs, read_eval_log

from finchain_tasks.finchain.versioning import task_version
from finchain_tasks.inspect.scorer import SCORE_KEYS
from tests.support.timeouts import limit

pytestmark = pytest.mark.slow

INSPECT = str(Path(sys.executable).parent / "inspect")
MOCK_REPLY = "Default output from mockllm/model"
"""What mockllm answers when given no outputs: no step, no number."""


def _env() -> dict[str, str]:
    """The test environment (offline), plus the o200k_base tiktoken file that litellm ships.

    mockllm counts tokens with tiktoken when an output carries no usage, and tiktoken would
    download its encoding; litellm's package holds the same file under tiktoken's cache name.
    """
    env = dict(os.environ)
    spec = importlib.util.find_spec("litellm")
    if spec and spec.origin:
        env.setdefault("TIKTOKEN_CACHE_DIR", str(Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"))
    return env


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run([INSPECT, *args, "--display", "plain"], cwd=cwd, env=_env(), capture_output=True,
                          text=True, timeout=limit(600))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


@pytest.fixture(scope="module")
def cli_log(tmp_path_factory):
    work = tmp_path_factory.mktemp("cli")
    _run(["eval", "finchain", "--model", "mockllm/model", "--limit", "2", "-T", "level=easy",
          "-T", "seeds=2", "--log-dir", str(work / "logs")], cwd=work)
    logs = list_eval_logs(str(work / "logs"))
    assert len(logs) == 1
    return work, logs[0].name


def test_short_name_runs_and_logs_the_full_task_name(cli_log):
    _, path = cli_log
    log = read_eval_log(path)
    assert log.status == "success"
    assert log.eval.task == "finchain_tasks/finchain"
    assert log.eval.task_version == task_version()
    assert log.eval.task_args["level"] == "easy"
    assert log.eval.metadata["chaineval"]["profile"] == "paper"
    assert log.eval.packages.get("finchain-tasks") or log.eval.packages.get("finchain_tasks")
    assert {s.name for s in log.results.scores} == set(SCORE_KEYS)


def test_samples_read_back_with_samples_df(cli_log):
    _, path = cli_log
    df = samples_df(path)
    assert len(df) == 2
    assert all(str(i).startswith("finchain/") for i in df["id"])
    assert set(df["metadata_level"]) == {"easy"}
    values = [json.loads(v) for v in df["score_chaineval"]]  # a dict Score value arrives as JSON text
    assert all(set(v) == set(SCORE_KEYS) for v in values)
    assert all(v["chaineval"] == 0 and v["parse_ok"] == 0 for v in values)  # mockllm's reply has no number


def test_inspect_score_rescores_the_log_with_another_profile(cli_log):
    from finchain_tasks.inspect.tasks import finchain  # noqa: F401 - registers the scorer in this process
    from scorers.chaineval import score_batch
    from scorers.rows import gold_of

    work, path = cli_log
    out = work / "rescored.eval"
    _run(["score", path, "--scorer", "finchain_tasks/chaineval", "-S", "profile=reference",
          "--action", "overwrite", "--output-file", str(out)], cwd=work)
    rescored = read_eval_log(str(out))
    golds = [gold_of({"id": s.id, **s.metadata["gold"]}) for s in rescored.samples]
    expected = score_batch(golds, [s.output.completion for s in rescored.samples], profile="reference")
    for sample, want in zip(rescored.samples, expected):
        assert sample.output.completion == MOCK_REPLY
        value = sample.scores["chaineval"].value
        assert value["chaineval"] == pytest.approx(want.chaineval, abs=1e-6)
        assert sample.scores["chaineval"].metadata["profile"] == "reference"
    assert rescored.results.scores[0].params["profile"] == "reference"


def test_a_bad_task_argument_is_one_line_without_a_traceback(tmp_path):
    """Issue 31: ``-T level=hard`` printed Inspect's 250-line task-loader traceback before the message."""
    proc = subprocess.run([INSPECT, "eval", "finchain", "--model", "mockllm/model", "-T", "level=hard",
                           "--log-dir", str(tmp_path / "logs"), "--display", "plain"], cwd=tmp_path, env=_env(),
                          capture_output=True, text=True, timeout=limit(600))
    out = (proc.stdout + proc.stderr).strip()
    assert proc.returncode != 0
    assert out == "finchain: unknown level ['hard']; known: advanced, easy, intermediate", out[-2000:]


@pytest.mark.parametrize("args, message", [
    ({"seeds": True}, "finchain: seeds must be a count or a list of seeds, got True"),
    ({"seeds": [1, 2], "start_seed": 3}, "finchain: give either an explicit list of seeds or start_seed"),
    ({"domain": "crypto"}, "finchain: unknown domain ['crypto']"),
])
def test_task_argument_errors_are_inspects_plain_errors(args, message):
    from inspect_ai._util.error import PrerequisiteError

    from finchain_tasks.inspect.tasks import finchain

    with pytest.raises(PrerequisiteError) as caught:
        finchain(**args)
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)
