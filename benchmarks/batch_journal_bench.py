"""What ``--batch``'s journal (``batches/``) costs at the paper's scale.

A batch's file is written whole (then renamed) when the batch is created and when it is collected, so that a kill
never leaves half a file. At the paper's matrix (26 models x 2,900 problems = 75,400 requests, batches of 100:
754 batches) that is 1,508 writes. This prints the journal's size, the slowest write, the total time spent
writing over a run, and the time to load it on resume (with every key claimable). The first design, one file
for the whole run rewritten at each of those events, did not finish this benchmark in 10 minutes (quadratic:
~12 MB rewritten 1,508 times, each rewrite blocking the event loop).
Run: ``python -m benchmarks.batch_journal_bench [requests] [batch size]``.
"""

from __future__ import annotations

import sys
import tempfile
import time
import uuid
from pathlib import Path

from finchain_tasks.runs.batch_mode import JOURNAL, Journal


def main(requests: int = 75_400, size: int = 100) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / JOURNAL
        journal = Journal(path)
        writes: list[float] = []
        for b in range(0, requests, size):
            ids = [(str(uuid.uuid4()), uuid.uuid4().hex) for _ in range(min(size, requests - b))]
            t = time.perf_counter()
            journal.record(f"batch_{b // size}", "OpenAIBatcher", ids)
            writes.append(time.perf_counter() - t)
            t = time.perf_counter()
            journal.mark(f"batch_{b // size}", {cid: "answered" for cid, _ in ids})
            writes.append(time.perf_counter() - t)
        t = time.perf_counter()
        Journal(path)
        load = time.perf_counter() - t
        total, files = sum(f.stat().st_size for f in path.iterdir()), len(list(path.iterdir()))
        print(f"requests {requests:,}, batches of {size}: {len(writes):,} writes")
        print(f"journal size: {total / 1e6:.1f} MB in {files} files ({total / requests:.0f} bytes/request)")
        print(f"slowest write: {max(writes) * 1e3:.1f} ms; all writes: {sum(writes):.2f} s over the run")
        print(f"load on resume: {load * 1e3:.0f} ms")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
