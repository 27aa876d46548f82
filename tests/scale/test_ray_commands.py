"""Every ``--ray`` command on one local Ray cluster (one file, so the suite starts the cluster once):

- ``finchain score --ray``: the same bytes as the single-process command on 1,000 rows (hostile lines included), a
  worker killed mid-job costs nothing, an interrupted job resumes at block granularity, and a bad or unreachable
  address is one line, fast;
- ``prm select``, ``prm label`` and ``bon --prm`` with ``--ray`` give what they give without it (the calc PRM and
  the exact recipe: no model download, no network).

Which records a job may reuse (the block store's key) is checked without a cluster."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.engine import all_templates
from finchain_tasks.prm.wrong_step_traces import inject_error
from finchain_tasks.scale.jobs import SelectJob
from finchain_tasks.scale.ray_map import BlockStore, RaySettings, job_key, plan_blocks, read_block, run_blocks
from tests.prm_labels.conftest import first_template_per_domain

runner = CliRunner()
N_ROWS = 1000


def _rows() -> list[bytes]:
    """1,000 lines over 4 problems (few distinct step texts: the encoder's time stays small), their outputs
    right, rounded or wrong, by FinChain id or with gold inline, and hostile lines among them."""
    problems = [tpl.generate(0) for tpl in list(all_templates().values())[:4]]
    lines = []
    for i in range(N_ROWS):
        p = problems[i % 4]
        output = [p.solution, p.solution.replace("Step 2", "Step 2 roughly"), "Step 1: 1 + 1 = 3\nFinal answer: 3"][
            i % 3]
        row = {"id": p.id, "output": output, "n": i} if i % 2 else {**p.to_dict(), "output": output, "n": i}
        lines.append(json.dumps(row).encode())
    lines[0] = b"\xef\xbb\xbf" + lines[0]
    lines[7] = b""                                    # blank: no output row, line numbers still count it
    lines[250] = b'{"id": "cut'                       # not JSON
    lines[501] = b'{"id": "caf\xe9"}'                  # not UTF-8
    lines[750] = json.dumps({"id": "finchain/x/y/z/1", "output": "x"}).encode()  # no such template
    return lines


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """The input and the single-process command's output (the reference)."""
    root = tmp_path_factory.mktemp("score")
    pred = root / "pred.jsonl"
    pred.write_bytes(b"\n".join(_rows()) + b"\n")
    out = root / "single.jsonl"
    result = runner.invoke(app, ["score", str(pred), "-o", str(out)])
    assert result.exit_code == 1, result.output  # the hostile lines are error rows
    return pred, out.read_bytes()


def test_score_on_ray_writes_the_single_process_bytes(ray_cluster, scored, tmp_path):
    pred, reference = scored
    out = tmp_path / "ray.jsonl"
    result = runner.invoke(app, ["score", str(pred), "-o", str(out), "--ray", "local", "--ray-block-rows", "150",
                                 "--ray-workers", "2"])
    assert result.exit_code == 1 and "wrote 999 rows" in " ".join(result.output.split())
    assert out.read_bytes() == reference
    assert not (tmp_path / ".ray.jsonl.ray").exists()  # the block records go once the output is written


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    """600 candidates (right and wrong outputs of 20 problems) and the calc PRM's rows for them in this process:
    the kill and resume tests exercise the plumbing with a job whose workers start in a second (no encoder)."""
    problems = [tpl.generate(1) for tpl in list(all_templates().values())[:20]]
    rows = [{"id": f"c{i}", "problem_id": problems[i % 20].id,
             "output": problems[i % 20].solution if i % 3 else "Step 1: 2 + 2 = 5\nFinal answer: 5"}
            for i in range(600)]
    path = tmp_path_factory.mktemp("pool") / "cands.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    job = _calc_job(path)
    lines, _ = job.run(job.load(), read_block(path, next(plan_blocks(path, 10_000))))
    return path, lines


def _calc_job(path) -> SelectJob:
    return SelectJob("calc", "min", 1.0, {}, source=str(path))


def test_a_worker_killed_mid_job_loses_and_duplicates_nothing(ray_cluster, pool, tmp_path):
    path, reference = pool
    settings = RaySettings(workers=2, block_rows=20)
    total = sum(1 for _ in plan_blocks(path, settings.block_rows))
    seen, killed = [], {}

    def on_block(index, lines, extra):
        seen.append((index, extra["pid"]))
        if not killed and len(seen) == 2:
            killed["pid"] = extra["pid"]
            os.kill(extra["pid"], signal.SIGKILL)

    store = run_blocks(_calc_job(path), path, tmp_path / "state", settings, on_block=on_block)
    assert killed and len(seen) == total  # killed after 2 of 30 blocks; every block came back exactly once
    assert sorted(i for i, _ in seen) == list(range(total))
    assert any(pid != killed["pid"] for _, pid in seen[2:])
    assert list(store.lines()) == reference


def test_an_interrupted_job_resumes_at_block_granularity(ray_cluster, pool, tmp_path):
    path, reference = pool
    settings = RaySettings(workers=1, block_rows=50)
    done = []

    def stop_after_two(index, lines, extra):
        done.append(index)
        if len(done) == 2:
            raise KeyboardInterrupt  # the driver dies with 2 blocks recorded

    with pytest.raises(KeyboardInterrupt):
        run_blocks(_calc_job(path), path, tmp_path / "state", settings, on_block=stop_after_two)
    again = []
    store = run_blocks(_calc_job(path), path, tmp_path / "state", settings, on_block=lambda i, *_: again.append(i))
    assert sorted(again) == sorted(set(range(store.total)) - set(done))
    assert list(store.lines()) == reference


def _key(source, **changed):
    settings = RaySettings(workers=1, block_rows=changed.pop("block_rows", 300))
    job = changed.pop("job", _calc_job(source))
    return job_key(job, source, settings)


@pytest.mark.parametrize("change", ["nothing", "input", "size", "mtime", "block_rows", "job", "unreadable record"])
def test_records_are_reused_only_by_the_same_job_on_the_same_input(change, tmp_path):
    """Rule: a job's blocks are kept under the input (path, size, mtime), the block size and the job's settings;
    change any and the old blocks are discarded, never mixed in (no cluster: the store decides before Ray is asked)."""
    source = tmp_path / "in.jsonl"
    source.write_text('{"id": "a"}\n')
    state = tmp_path / "state"
    first = BlockStore(state, _key(source))
    first.record(0, ['{"old": true}'], {})
    if change == "input":
        other = tmp_path / "other.jsonl"
        other.write_text(source.read_text())
        os.utime(other, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns))
        source = other
    elif change == "size":
        stamp = source.stat().st_mtime_ns
        source.write_text('{"id": "b"}\n\n')
        os.utime(source, ns=(stamp, stamp))
    elif change == "mtime":
        os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 1))
    elif change == "unreadable record":
        (state / "job.json").write_text('{"cut')
    extra = {"block_rows": 299} if change == "block_rows" else {"job": SelectJob("calc", "mean", 1.0, {},
                                                                              source=str(source))} \
        if change == "job" else {}
    again = BlockStore(state, _key(source, **extra))
    assert again.discarded is (change != "nothing") and again.has(0) is (change == "nothing")
    assert json.loads((state / "job.json").read_text()) == again.key  # the new key is stamped at once


def test_blocks_cover_every_line_once(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"a\n\nbb\r\nc\xe2\x80\xa8\nlast-no-newline")  # a CR and a U+2028 stay inside lines
    blocks = list(plan_blocks(path, 2))
    lines = [pair for b in blocks for pair in read_block(path, b)]
    assert [n for n, _ in lines] == [1, 2, 3, 4, 5]
    assert b"".join(raw for _, raw in lines) == path.read_bytes()


@pytest.mark.parametrize("address, message", [
    ("127.0.0.1:1", "cannot reach the Ray cluster at 127.0.0.1:1"),
    ("ray://127.0.0.1:1", "cannot reach the Ray cluster at ray://127.0.0.1:1"),
    ("pred.jsonl", "is not a Ray address"),
])
def test_a_bad_or_unreachable_address_is_one_fast_line(tmp_path, address, message):
    pred = tmp_path / "pred.jsonl"
    pred.write_text("{}\n")
    t0 = time.monotonic()
    result = runner.invoke(app, ["score", str(pred), "-o", str(tmp_path / "o.jsonl"), "--ray", address])
    assert result.exit_code == 2 and time.monotonic() - t0 < 60  # a bounded connect, not Ray's minutes of retries
    text = " ".join(result.output.split())
    assert message in text and "Traceback" not in result.output
    assert not (tmp_path / "o.jsonl").exists()


def test_without_ray_installed_the_line_names_the_extra(tmp_path, monkeypatch):
    import sys

    pred = tmp_path / "pred.jsonl"
    pred.write_text("{}\n")
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails as it does where ray is absent
    result = runner.invoke(app, ["score", str(pred), "-o", str(tmp_path / "o.jsonl"), "--ray", "local"])
    assert result.exit_code == 2, result.output
    assert "pip install 'finchain-tasks[ray]'" in " ".join(result.output.split())


def test_a_torch_vector_does_not_depend_on_its_batch(scored):
    """Why --ray can equal the single process byte for byte: a text's vector is the same whatever texts it is
    encoded with (before, a padded batch moved the last bits)."""
    import numpy as np

    from scorers.embeddings import shared_embedder

    texts = [line for tpl in list(all_templates().values())[:2] for line in tpl.generate(0).solution.splitlines()]
    embedder = shared_embedder(backend="torch")
    together = embedder.encode(texts)
    alone = np.stack([embedder.encode([t])[0] for t in texts[:3]])
    assert len(set(map(len, texts))) > 3  # texts of several lengths: a padded batch would move some vectors
    assert np.array_equal(together[:3], alone) and np.array_equal(together, embedder.encode(texts[::-1])[::-1])


# ------------------------------------------------------------------------------------------ the PRM commands
RAY = ["--ray", "local", "--ray-block-rows", "3", "--ray-workers", "2"]


@pytest.fixture(scope="module")
def prm_pool(tmp_path_factory):
    """Gold and wrong-step candidates of 4 problems, and one without steps or gold."""
    path = tmp_path_factory.mktemp("prm-pool") / "cands.jsonl"
    rows = []
    for tpl in first_template_per_domain()[:4]:
        problem = tpl.generate(0)
        rows.append({"id": f"{problem.id}#gold", "problem_id": problem.id, "output": problem.solution})
        for k in range(len(problem.steps)):
            inj = inject_error(problem, k)
            if inj:
                rows.append({"id": f"{problem.id}#err{k}", "problem_id": problem.id, "output": inj.output})
    rows.append({"id": "no-steps", "question": "Q?", "output": ""})
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def _invoke(*args):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


def test_prm_select_on_ray_keeps_what_single_process_keeps(ray_cluster, prm_pool, tmp_path):
    _invoke("prm", "select", prm_pool, "--prm", "calc", "--out", tmp_path / "one", "-k", "2")
    _invoke("prm", "select", prm_pool, "--prm", "calc", "--out", tmp_path / "many", "-k", "2", *RAY)
    one = [json.loads(x) for x in (tmp_path / "one" / "sft.jsonl").read_text().splitlines()]
    many = [json.loads(x) for x in (tmp_path / "many" / "sft.jsonl").read_text().splitlines()]
    assert [r["id"] for r in many] == [r["id"] for r in one] and len(one) > 4
    for a, b in zip(one, many):
        assert b["reward"] == pytest.approx(a["reward"], abs=1e-9)
        assert b == {**a, "reward": b["reward"]}
    assert json.loads((tmp_path / "many" / "selection.json").read_text()) == json.loads(
        (tmp_path / "one" / "selection.json").read_text())


def test_prm_label_on_ray_writes_the_same_labels_in_input_order(ray_cluster, prm_pool, tmp_path):
    _invoke("prm", "label", prm_pool, "--out", tmp_path / "one.jsonl")
    _invoke("prm", "label", prm_pool, "--out", tmp_path / "many.jsonl", *RAY[:-1], "1")  # one encoder load
    assert (tmp_path / "many.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    summary = json.loads((tmp_path / "many.jsonl.summary.json").read_text())
    assert summary == json.loads((tmp_path / "one.jsonl.summary.json").read_text())
    assert summary["steps"] > 10


def _bon_run(root, pool_path):
    """An lm-eval finchain_bon samples file whose pools are the candidates of ``pool_path`` (3 per problem)."""
    rows = [json.loads(x) for x in pool_path.read_text().splitlines()][:-1]
    by_problem: dict[str, list] = {}
    for r in rows:
        by_problem.setdefault(r["problem_id"], []).append(r["output"])
    lines = []
    for i, (pid, texts) in enumerate(by_problem.items()):
        cands = [{"text": t, "answer": str(k), "key": str(k), "correct": k == 0, "chaineval": float(k == 0),
                  "reward": 0.5, "step_probs": [], "p_traj": None, "n_unverified": 0} for k, t in enumerate(texts)]
        record = {"n": len(cands), "prm": "hf:/old:dual", "agg": "min", "zeta": 1.0, "cluster": pid,
                  "question": pid, "candidates": cands, "selected": {}, "values": {}}
        lines.append(json.dumps({"doc_id": i, "filter": "bon", "filtered_resps": [json.dumps(record)]}))
    run = root / "run" / "model"
    run.mkdir(parents=True)
    (run / "samples_finchain_bon_2026.jsonl").write_text("\n".join(lines) + "\n")
    return root / "run"


def test_bon_rescoring_on_ray_fills_the_same_score_cache(ray_cluster, prm_pool, tmp_path):
    one = _bon_run(tmp_path / "a", prm_pool)
    many = tmp_path / "b" / "run"
    shutil.copytree(one, many)
    args = ["--no-plot", "--ns", "1,2", "--subsamples", "5", "--bootstrap", "0", "--prm", "calc"]
    _invoke("bon", one, *args)
    _invoke("bon", many, *args, *RAY)

    def scores(run):
        return {r["key"]: r["score"] for r in map(json.loads, (run / "bon_prm_scores.jsonl").read_text().splitlines())}

    assert scores(many).keys() == scores(one).keys() and len(scores(one)) > 10
    for key, score in scores(one).items():
        assert scores(many)[key]["reward"] == pytest.approx(score["reward"], abs=1e-9)
    assert (many / "bon_curves.csv").read_text() == (one / "bon_curves.csv").read_text()
    again = runner.invoke(app, ["bon", str(many), *args, *RAY])  # everything cached: Ray is not even asked
    assert again.exit_code == 0 and "0 candidate(s) scored now" in " ".join(again.output.split())
