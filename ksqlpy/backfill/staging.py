"""Where a backfill's tasks put what they produce, so that only positions and counts reach the driver.

Each Spark task writes its sink records, state entries, processing-log entries and counts (rows of
``OUT_SCHEMA``) into one Arrow IPC stream file of its own under the run's staging directory, then returns
one row naming the file (``STAGED``). The driver commits the files in (partition, range) order, reading
them batch by batch: its memory does not depend on how much the backfill writes. A task attempt writes
``<task>.<attempt>.arrow`` and renames it into ``<task>.arrow`` when it is complete, so a retried or
speculative attempt never leaves half a file behind. The directory must be reachable from the executors
(a local or one-machine cluster: the engine's data directory; else ``ksqlpy.backfill.staging.dir`` on a
shared file system); it is removed when the run ends, committed or not.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from ksqlpy.backfill.job import STAGED

OUT_SCHEMA = pa.schema([
    pa.field("kind", pa.int8()), pa.field("part", pa.int32()), pa.field("key", pa.binary()),
    pa.field("value", pa.binary()), pa.field("ts", pa.int64()), pa.field("headers", pa.binary()),
    pa.field("src", pa.int32()), pa.field("off", pa.int64()),
])


STAGING_PROPERTY = "ksqlpy.backfill.staging.dir"


def new_run_dir(root: str, query_id: str) -> str:
    """A fresh staging directory for one run under ``root``."""
    path = os.path.join(root, f"{query_id}-{uuid.uuid4().hex[:8]}")
    os.makedirs(path, mode=0o700)
    return path


def remove(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


class StagedFile:
    """One task's output file, written batch by batch; ``commit()`` makes it visible under its final name."""

    def __init__(self, directory: str, task: str) -> None:
        self.final = os.path.join(directory, f"{task}.arrow")
        self.path = os.path.join(directory, f"{task}.{uuid.uuid4().hex[:8]}.arrow")
        self._sink = pa.OSFile(self.path, "wb")
        self._writer = pa.ipc.new_stream(self._sink, OUT_SCHEMA)
        self.rows = 0
        self._open = True

    def write(self, batch: pa.RecordBatch) -> None:
        if batch.num_rows:
            self._writer.write_batch(batch)
            self.rows += batch.num_rows

    def _close(self) -> None:
        if self._open:
            self._open = False
            try:
                self._writer.close()
            finally:
                self._sink.close()

    def commit(self) -> str:
        self._close()
        os.replace(self.path, self.final)
        return self.final

    def abort(self) -> None:
        """Drop an unfinished file (nothing once it is committed)."""
        if not self._open:
            return
        try:
            self._close()
        finally:
            try:
                os.remove(self.path)
            except OSError:
                pass


def read(path: str) -> Iterator[pa.RecordBatch]:
    """The batches of a staged file, one at a time (memory-mapped: nothing is read ahead)."""
    with pa.memory_map(path, "r") as source:
        yield from pa.ipc.open_stream(source)


def staged_row(path: str, part: int, src: int, start: int) -> dict[str, Any]:
    """The one row a task returns through Spark: where its file is, and which range it covers."""
    return {"kind": STAGED, "part": part, "key": None, "value": path.encode(), "ts": None, "headers": None,
            "src": src, "off": start}
