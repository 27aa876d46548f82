"""The Files and Batches endpoints of the OpenAI API, for :class:`tests.support.fake_openai.FakeOpenAI`.

Routes (under ``/v1``): ``POST /files`` (multipart upload, ``purpose=batch``), ``GET /files/{id}/content``,
``POST /batches`` (from an uploaded JSONL file), ``GET /batches/{id}`` (poll), ``POST /batches/{id}/cancel``.

A batch is ``in_progress`` while ``hold`` is set (a test holds batches to kill a run mid-batch, then lets
go); otherwise it completes at its next poll. Each line's answer comes from the server's ``reply`` and
``rule``, as a direct request would: a ``status`` fault becomes a failed item in the error file
(``{"custom_id", "response": null, "error": {"code": <status>, "message"}}``, the shape Inspect's OpenAI
batcher reads), anything else a completion in the output file. Every create is recorded in ``created``
(batch id and the lines it held), so a test can assert that no batch was created twice.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, Optional


@dataclass
class BatchRecord:
    id: str
    lines: list[dict[str, Any]]
    info: dict[str, Any]


@dataclass
class BatchStore:
    """The server's files and batches (thread-safe: the HTTP server answers on many threads)."""

    hold: threading.Event = field(default_factory=threading.Event)
    created: list[BatchRecord] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    polls: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids)}"

    def upload(self, content_type: str, raw: bytes) -> dict[str, Any]:
        message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
        parts = {p.get_param("name", header="content-disposition"): p for p in message.iter_parts()}
        data = parts["file"].get_payload(decode=True) or b""
        with self._lock:
            file_id = self._new_id("file")
            self.files[file_id] = data
        return {"id": file_id, "object": "file", "bytes": len(data), "created_at": int(time.time()),
                "filename": parts["file"].get_filename() or "batch.jsonl", "purpose": "batch", "status": "processed"}

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            data = self.files[body["input_file_id"]]
            lines = [json.loads(line) for line in data.decode().splitlines() if line.strip()]
            batch_id = self._new_id("batch")
            info = {"id": batch_id, "object": "batch", "endpoint": body.get("endpoint", "/v1/chat/completions"),
                    "input_file_id": body["input_file_id"], "completion_window": body.get("completion_window", "24h"),
                    "status": "in_progress", "created_at": int(time.time()),
                    "request_counts": {"total": len(lines), "completed": 0, "failed": 0}}
            self.created.append(BatchRecord(batch_id, lines, info))
            return dict(info)

    def retrieve(self, batch_id: str, answer: Callable[[dict[str, Any]], tuple[Optional[dict], Optional[dict]]]
                 ) -> Optional[dict[str, Any]]:
        """The batch's state; a batch not held completes here, each line answered by ``answer(body)`` ->
        (completion body, None) or (None, error)."""
        with self._lock:
            self.polls += 1
            record = next((r for r in self.created if r.id == batch_id), None)
            if record is None:
                return None
            if record.info["status"] == "in_progress" and not self.hold.is_set():
                self._complete(record, answer)
            return dict(record.info)

    def _complete(self, record: BatchRecord, answer: Callable) -> None:
        out, err = [], []
        for n, line in enumerate(record.lines):
            body, error = answer(line["body"])
            entry = {"id": f"batch_req_{record.id}_{n}", "custom_id": line["custom_id"]}
            if error is None:
                out.append({**entry, "response": {"status_code": 200, "request_id": f"req_{n}", "body": body},
                            "error": None})
            else:
                err.append({**entry, "response": None, "error": error})
        info = record.info
        for kind, rows in (("output_file_id", out), ("error_file_id", err)):
            if rows:
                file_id = self._new_id("file")
                self.files[file_id] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                info[kind] = file_id
        info.update(status="completed", completed_at=int(time.time()),
                    request_counts={"total": len(record.lines), "completed": len(out), "failed": len(err)})

    def cancel(self, batch_id: str) -> Optional[dict[str, Any]]:
        with self._lock:
            record = next((r for r in self.created if r.id == batch_id), None)
            if record is None:
                return None
            record.info["status"] = "cancelled"
            return dict(record.info)

    def bodies(self) -> list[dict[str, Any]]:
        """The request body of every line of every batch created, in order."""
        return [line["body"] for record in self.created for line in record.lines]
