"""Ray Data plumbing shared by the per-row commands (``score``, ``bon --prm``, ``prm label``, ``prm select``).

What runs where: the driver (the machine where the command is typed) plans the input file into *blocks*, hands
the block descriptors to Ray Data, and writes what comes back; the per-row work runs in ``map_batches`` with a
class-based UDF (:class:`BlockWorker`, one Ray actor per worker), so each worker loads its encoder or PRM once
and keeps it for every block it is given. GPU workers ask for ``num_gpus`` (``--ray-gpus-per-worker``).

The block is the unit of work and of resumption: ``block_rows`` consecutive *lines* of the input file (blank
lines count, so line numbers stay those of the file), described by byte offsets. A worker reads its block's
bytes from the input file itself, so the input is never loaded whole, by the driver or anyone (it must be on
storage every node sees: the local disk for a laptop or one node, a shared file system for a cluster). Each
finished block is recorded atomically by the driver (written to a temporary name, then renamed) under a state
directory beside the output, ``.<output name>.ray/``. A re-run of the same command with the same output
continues: it recomputes only the blocks that have no record. Once every block is there, the driver writes the
output in input order through the command's own writer (:mod:`finchain_tasks.plumbing.output`) and removes the state.
The state is keyed by the input file (path, size, modification time), the block size and the command's
settings: change any of them and the old records are discarded, never mixed in.

Ray's own fault tolerance covers a worker that dies mid-job: the actor is restarted and its block retried
(Ray Data's defaults, ``max_restarts=-1``, ``max_task_retries=-1``); a block's output reaches the driver once,
from the attempt that finished, so nothing is lost and nothing is written twice.

Ray is imported only inside these functions: the core never needs it; a missing ``ray`` is the CLI's one-line
"install the ray extra" error.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import shutil
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from finchain_tasks.plumbing.safe_files import STREAMED, open_regular

__all__ = ["AUTO", "DEFAULT_BLOCK_ROWS", "LOCAL", "Block", "BlockJob", "BlockStore", "BlockWorker", "RaySettings",
           "check_address", "connect", "plan_blocks", "read_block", "run_blocks", "start_local", "state_dir"]

LOCAL = "local"
"""``--ray`` with no address: join the cluster ``RAY_ADDRESS`` names, else start a local one for this command."""
AUTO = "auto"
"""Ray's own ``auto``: the cluster already running on this machine (``ray start --head``)."""
DEFAULT_BLOCK_ROWS = 256
"""Lines per block: small enough that a killed job loses little, large enough that Ray's fixed cost per block
(benchmarks/ray_scale_bench.py) is small beside the work."""
CONNECT_TIMEOUT_S = 5.0
"""How long to wait for a ``HOST:PORT`` to accept a connection before saying it cannot be reached."""
LOCAL_START_ATTEMPTS = 3
"""Tries at starting a local cluster. Ray waits a fixed 30 s for its new node to register and then gives up with
"timed out during startup"; on a busy machine (another build beside the command) that happens although nothing
is wrong, and a second start succeeds. Any other start-up error is not retried."""
_STARTUP_TIMEOUT = "timed out during startup"
RAY_NODE_WAIT_ENV = "FINCHAIN_RAY_START_WAIT_S"
DEFAULT_RAY_NODE_WAIT_S = 120.0
"""How long a local start waits for its new node to register (``$FINCHAIN_RAY_START_WAIT_S``). Ray's own wait
is a fixed 30 s in its node module; a second try only starts every process anew on the same busy CPUs, so on a
loaded two-core machine (load 11) all three tries ran out. Waiting longer once is what helps."""
_RAY_OWN_NODE_WAIT_S = 30.0


class BlockJob(Protocol):
    """The per-row work of one command: built on the driver, pickled to every worker."""

    def fingerprint(self) -> str:
        """What decides the output besides the input (settings, model, version): part of the resume key."""

    def load(self) -> Any:
        """On a worker, once: the encoder, PRM or signals the rows need."""

    def run(self, state: Any, lines: list[tuple[int, bytes]]) -> tuple[list[str], dict]:
        """Output lines (JSON text, no newline) for one block's (line number, raw line) pairs, and counters."""


@dataclass(frozen=True)
class RaySettings:
    """Where and how wide: the cluster address, workers (None: as many as the cluster has room for), GPUs each."""

    address: str = LOCAL
    workers: int | None = None
    gpus_per_worker: float = 0.0
    block_rows: int = DEFAULT_BLOCK_ROWS

    def __post_init__(self) -> None:
        check_address(self.address)
        if self.workers is not None and self.workers < 1:
            raise ValueError(f"--ray-workers must be at least 1, got {self.workers}")
        if not 0 <= self.gpus_per_worker <= 64:
            raise ValueError(f"--ray-gpus-per-worker must be between 0 and 64, got {self.gpus_per_worker}")
        if not 1 <= self.block_rows <= 1_000_000:
            raise ValueError(f"--ray-block-rows must be between 1 and 1000000, got {self.block_rows}")


@dataclass(frozen=True)
class Block:
    """Lines ``first_line`` .. of the input, bytes [start, stop)."""

    index: int
    start: int
    stop: int
    first_line: int


# ------------------------------------------------------------------------------------------ addresses
def check_address(value: str) -> str:
    """``local``, ``auto``, ``ray://HOST:PORT`` or ``HOST:PORT``; anything else is a one-line error (a file name
    that ``--ray`` swallowed as its value is the usual cause)."""
    text = (value or "").strip()
    if text in (LOCAL, AUTO):
        return text
    host, port = _host_port(text)
    if host is None or port is None:
        raise ValueError(f"--ray: {value!r} is not a Ray address (local, auto, ray://HOST:PORT or HOST:PORT); "
                         "put --ray after the input file, or give it an address")
    return text


def _host_port(text: str) -> tuple[str | None, int | None]:
    rest = text.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536 or any(c.isspace() for c in host):
        return None, None
    return host.strip("[]"), int(port)


def _reachable(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Fail in seconds, with one line, when nothing listens at the address (Ray itself retries for minutes)."""
    host, port = _host_port(address)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise RuntimeError(f"cannot reach the Ray cluster at {address}: {reason} (is `ray start --head` running "
                           "there, and is the port open?)") from None


def connect(address: str) -> bool:
    """Join (or for ``local``, start) the cluster; True when this call started the connection (and so should end
    it). A process already connected (a test's cluster, a notebook) keeps its connection."""
    import ray

    address = check_address(address)
    if address not in (LOCAL, AUTO):
        _reachable(address)
    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    if address == LOCAL and not os.environ.get("RAY_ADDRESS"):
        kwargs["include_dashboard"] = False
    try:
        if address == LOCAL and "include_dashboard" in kwargs:
            start_local(**kwargs)
        else:
            ray.init(address=None if address == LOCAL else address, **kwargs)
    except Exception as exc:  # noqa: BLE001 - Ray's many connection errors become one line
        raise RuntimeError(f"cannot connect to Ray at {address}: {_one_line(exc)}") from None
    return True


def start_local(attempts: int = LOCAL_START_ATTEMPTS, **kwargs: Any) -> None:
    """Start a local cluster (``ray.init(**kwargs)``), again after Ray's fixed node start-up wait ran out: that
    wait is a busy machine's symptom, not a fault. The half-started cluster is shut down before each new try."""
    import ray

    for attempt in range(1, attempts + 1):
        try:
            with patient_node_start(node_wait_s()):
                ray.init(**kwargs)
            return
        except Exception as exc:
            if _STARTUP_TIMEOUT not in str(exc) or attempt == attempts:
                raise
            logging.getLogger(__name__).warning("Ray's local node was slow to start (try %d of %d); starting again",
                                                attempt, attempts)
            ray.shutdown()


def node_wait_s() -> float:
    """``$FINCHAIN_RAY_START_WAIT_S`` when it is a number of seconds of at least Ray's own 30, else the default."""
    raw = os.environ.get(RAY_NODE_WAIT_ENV, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_RAY_NODE_WAIT_S
    except ValueError:
        raise ValueError(f"{RAY_NODE_WAIT_ENV}={raw!r} is not a number of seconds") from None
    if not value >= _RAY_OWN_NODE_WAIT_S or value == float("inf"):
        raise ValueError(f"{RAY_NODE_WAIT_ENV}={raw!r}: give a finite number of seconds, at least "
                         f"{_RAY_OWN_NODE_WAIT_S:g} (Ray's own wait)")
    return value


class _SlowClock:
    """The ``time`` module as Ray's node module sees it during a start, with ``monotonic`` running ``stretch``
    times slower: its fixed 30 s registration wait then lasts ``30 * stretch`` real seconds. Everything else is
    the real ``time``."""

    def __init__(self, real: Any, stretch: float) -> None:
        self._real, self._stretch = real, stretch

    def monotonic(self) -> float:
        return self._real.monotonic() / self._stretch

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


@contextmanager
def patient_node_start(wait_s: float) -> Iterator[None]:
    """Give Ray's node ``wait_s`` seconds to register instead of its hard-coded 30 (Ray has no setting for it):
    its node module reads a slower clock while the cluster starts. Where that module is not laid out as this
    expects (another Ray version), nothing is changed."""
    import time

    try:
        from ray._private import node
    except ImportError:
        yield
        return
    if getattr(node, "time", None) is not time or wait_s <= _RAY_OWN_NODE_WAIT_S:
        yield
        return
    node.time = _SlowClock(time, wait_s / _RAY_OWN_NODE_WAIT_S)
    try:
        yield
    finally:
        node.time = time


def _one_line(exc: BaseException, limit: int = 200) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ------------------------------------------------------------------------------------------ blocks
def plan_blocks(path: Path, block_rows: int) -> Iterator[Block]:
    """The blocks of ``path``, read once as a stream (the file is never held whole)."""
    index = start = pos = count = lineno = 0
    first = 1
    with open_regular(path, "rb", max_bytes=STREAMED) as fh:  # a FIFO or a device is refused, never blocks
        for raw in fh:
            lineno += 1
            pos += len(raw)
            count += 1
            if count == block_rows:
                yield Block(index, start, pos, first)
                index, start, first, count = index + 1, pos, lineno + 1, 0
    if count:
        yield Block(index, start, pos, first)


def read_block(path: str | Path, block: Block) -> list[tuple[int, bytes]]:
    """(line number, raw line with its ``\\n``, as iterating the file in binary gives it) for every line of the
    block, blank ones included: a command's parser sees exactly the bytes it sees without ``--ray``."""
    with open_regular(path, "rb", max_bytes=STREAMED) as fh:
        fh.seek(block.start)
        data = fh.read(block.stop - block.start)
    return [(block.first_line + k, raw) for k, raw in enumerate(io.BytesIO(data))]


def state_dir(out: str | Path) -> Path:
    """Where the block records of a job writing ``out`` live: ``.<name>.ray/`` beside the file it writes (a
    device or pipe as output: under ``./.finchain-ray/``)."""
    from finchain_tasks.plumbing.output import writes_through

    if writes_through(out):
        digest = hashlib.sha256(os.path.realpath(out).encode()).hexdigest()[:16]
        return Path.cwd() / ".finchain-ray" / digest
    target = Path(os.path.realpath(out))
    return target.with_name(f".{target.name}.ray")


class BlockStore:
    """The finished blocks of one job, one file each (``NNNNNNNN.jsonl``: a counters line, then the output lines),
    each written under a temporary name and renamed, so a block is either recorded whole or not at all."""

    def __init__(self, root: Path, key: dict[str, Any]) -> None:
        self.root = Path(root)
        self.key = key
        self.total = 0
        self.discarded = False
        stamp = self.root / "job.json"
        if self.root.exists():
            try:
                same = json.loads(stamp.read_text("utf-8")) == key
            except (OSError, ValueError):
                same = False
            if not same:
                shutil.rmtree(self.root)
                self.discarded = True
        self.root.mkdir(parents=True, exist_ok=True)
        if not stamp.exists():
            _atomic_write(stamp, json.dumps(key, sort_keys=True))

    def _path(self, index: int) -> Path:
        return self.root / f"{index:08d}.jsonl"

    def has(self, index: int) -> bool:
        return self._path(index).is_file()

    def done(self) -> int:
        return sum(1 for _ in self.root.glob("*.jsonl"))

    def record(self, index: int, lines: list[str], extra: dict) -> None:
        _atomic_write(self._path(index), "\n".join([json.dumps(extra), *lines]) + "\n")

    def read(self, index: int) -> tuple[dict, list[str]]:
        text = self._path(index).read_text("utf-8")
        head, _, body = text.partition("\n")
        lines = body.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return json.loads(head), lines

    def lines(self) -> Iterator[str]:
        """Every output line, in input order."""
        for index in range(self.total):
            yield from self.read(index)[1]

    def extras(self) -> Iterator[dict]:
        for index in range(self.total):
            yield self.read(index)[0]

    def clear(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


# ------------------------------------------------------------------------------------------ the worker
class BlockWorker:
    """The Ray Data UDF: one per actor; loads the job's model once, then turns block descriptors into output."""

    def __init__(self, job: BlockJob, source: str, threads: int = 1) -> None:
        # the encoder would take every core of the node in each worker; a worker has the CPUs Ray gave it
        os.environ.setdefault("FINCHAIN_EMBED_THREADS", str(threads))
        self.job = job
        self.source = source
        self.state = job.load()

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        indices, texts, extras = [], [], []
        for index, start, stop, first in zip(batch["index"], batch["start"], batch["stop"], batch["first"]):
            block = Block(int(index), int(start), int(stop), int(first))
            lines, extra = self.job.run(self.state, read_block(self.source, block))
            indices.append(block.index)
            texts.append(json.dumps(lines, ensure_ascii=False))
            extras.append(json.dumps({**extra, "pid": os.getpid()}))
        return {"index": np.array(indices, dtype=np.int64), "lines": np.array(texts, dtype=object),
                "extra": np.array(extras, dtype=object)}


# ------------------------------------------------------------------------------------------ the job
def job_key(job: BlockJob, source: Path, settings: RaySettings) -> dict[str, Any]:
    """What a job's recorded blocks are kept under: the input (real path, size, mtime), the block size and the
    job's own settings. A record made under any other key is discarded, never mixed in (the worker count and
    the address are not in it: they change where blocks run, not what they hold)."""
    st = source.stat()
    return {"input": os.path.realpath(source), "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "block_rows": settings.block_rows, "job": job.fingerprint()}


def run_blocks(job: BlockJob, source: str | Path, state: str | Path, settings: RaySettings,
               on_block: Callable[[int, list[str], dict], None] | None = None) -> BlockStore:
    """Run ``job`` over every block of ``source`` on Ray, recording each finished block in ``state``; blocks
    recorded by an earlier, interrupted run of the same job are not run again. ``on_block`` is called on the
    driver after each block is recorded (rows done, for a progress bar; the PRM score cache's append)."""
    source = Path(source)
    if not source.is_file():
        raise OSError(f"{source}: no such file")
    store = BlockStore(Path(state), job_key(job, source, settings))
    blocks = list(plan_blocks(source, settings.block_rows))
    store.total = len(blocks)
    pending = [b for b in blocks if not store.has(b.index)]
    if pending:
        owned = connect(settings.address)
        try:
            _execute(job, source, pending, settings, store, on_block)
        finally:
            if owned:
                import ray

                ray.shutdown()
    missing = [b.index for b in blocks if not store.has(b.index)]
    if missing:
        raise RuntimeError(f"Ray returned no result for {len(missing)} block(s) (first: {missing[0]}); re-run the "
                           "same command to compute them")
    return store


def _workers(settings: RaySettings, pending: int) -> int:
    import ray

    resources = ray.cluster_resources()
    if settings.gpus_per_worker:
        room = int(resources.get("GPU", 0) // settings.gpus_per_worker)
        if room < 1:
            raise RuntimeError(f"--ray-gpus-per-worker {settings.gpus_per_worker:g}: the Ray cluster has "
                               f"{resources.get('GPU', 0):g} GPU(s)")
    else:
        room = max(1, int(resources.get("CPU", 1)))
    return max(1, min(settings.workers or room, pending))


def _execute(job: BlockJob, source: Path, pending: list[Block], settings: RaySettings, store: BlockStore,
             on_block: Callable[[int, list[str], dict], None] | None) -> None:
    import ray
    from ray.data import DataContext

    logging.getLogger("ray.data").setLevel(logging.ERROR)  # not its notes (progress bars off, deprecations)
    context = DataContext.get_current()
    context.enable_progress_bars = False
    items = [{"index": b.index, "start": b.start, "stop": b.stop, "first": b.first_line} for b in pending]
    remote: dict[str, Any] = {"num_cpus": 1}
    if settings.gpus_per_worker:
        remote["num_gpus"] = settings.gpus_per_worker
    dataset = ray.data.from_items(items, override_num_blocks=len(items)).map_batches(
        BlockWorker, fn_constructor_args=(job, str(source)), batch_size=1, batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=_workers(settings, len(pending))), **remote)
    try:
        for row in dataset.iter_rows():
            index, lines, extra = int(row["index"]), json.loads(row["lines"]), json.loads(row["extra"])
            store.record(index, lines, extra)
            if on_block is not None:
                on_block(index, lines, extra)
    except ray.exceptions.RayError as exc:
        raise RuntimeError(f"the Ray job failed: {_one_line(_root_cause(exc))}; blocks already done are kept, "
                           "re-run the same command to continue") from None


def _root_cause(exc: BaseException) -> BaseException:
    """The user code's exception inside Ray's wrappers (a RayTaskError's cause), when there is one."""
    seen = exc
    while getattr(seen, "cause", None) is not None or seen.__cause__ is not None:
        seen = getattr(seen, "cause", None) or seen.__cause__
    return seen
