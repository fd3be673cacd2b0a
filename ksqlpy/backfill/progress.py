"""How far a running backfill is, per source partition, with a rate and an ETA.

Tasks run in Spark's executors, so they report where the driver can see it without a round trip through
Spark: each task rewrites one small file in the run's staging directory (``progress/<partition>-<start>``)
with the number of records of its range it has read, after every log batch (in place: one fixed-width
write). The driver's ``Progress`` sums the files per source partition when asked
(EXPLAIN's task offsets, SHOW QUERIES, the REST status entry, the metrics, the shell's progress line), and
counts the records its commit has written. A task that is retried starts its file again from zero.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

PROGRESS_DIR = "progress"


class Phase(Enum):
    STARTING = "STARTING"  # the Spark session and the job are being set up
    COMPUTING = "COMPUTING"  # Spark tasks read and process their ranges
    COMMITTING = "COMMITTING"  # the driver commits the staged files (sink, state, processing log)
    DONE = "DONE"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


def task_file(staging: str, partition: int, start: int) -> str:
    return os.path.join(staging, PROGRESS_DIR, f"{partition}-{start}")


class TaskReport:
    """A task's records read so far, rewritten in place in its file after each batch (executor side). One
    ``pwrite`` of a fixed-width number: a rename per batch would cost milliseconds on ext4, which flushes
    a file's data when it replaces another. A failure to write is no reason to fail the task."""

    def __init__(self, staging: str, partition: int, start: int) -> None:
        try:
            self.fd: int | None = os.open(task_file(staging, partition, start), os.O_WRONLY | os.O_CREAT, 0o600)
        except OSError:
            self.fd = None

    def __call__(self, done: int) -> None:
        if self.fd is not None:
            try:
                os.pwrite(self.fd, b"%020d" % done, 0)
            except OSError:
                pass

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _read(path: str) -> int:
    try:
        with open(path) as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return 0


@dataclass
class Progress:
    """A backfill's progress: ranges per source partition, records read per partition, records committed."""

    query_id: str
    ranges: dict[int, tuple[int, int]]  # source partition -> [start, end) to backfill
    staging: str = ""
    phase: Phase = Phase.STARTING
    started: float = field(default_factory=time.monotonic)
    computing_since: float | None = None
    committed_records: int = 0  # output rows the driver has committed so far
    error: str | None = None
    resumed_tasks: int = 0  # tasks whose staged output a resumed run found complete
    _final: dict[int, int] = field(default_factory=dict)

    def enter(self, phase: Phase) -> None:
        if phase is Phase.COMPUTING and self.computing_since is None:
            self.computing_since = time.monotonic()
        if phase in (Phase.COMMITTING, Phase.DONE):  # everything was read: freeze the per-partition counts
            self._final = {p: e - s for p, (s, e) in self.ranges.items()}
        self.phase = phase

    def read_per_partition(self) -> dict[int, int]:
        """Records read so far per source partition (from the tasks' files)."""
        if self._final:
            return dict(self._final)
        done = dict.fromkeys(self.ranges, 0)
        directory = os.path.join(self.staging, PROGRESS_DIR)
        try:
            names = os.listdir(directory)
        except OSError:
            return done
        for name in names:
            head, _, start = name.partition("-")
            if not head.isdigit() or not start.isdigit():
                continue
            p = int(head)
            if p in done:
                done[p] += _read(os.path.join(directory, name))
        return {p: min(n, self.ranges[p][1] - self.ranges[p][0]) for p, n in done.items()}

    @property
    def total(self) -> int:
        return sum(e - s for s, e in self.ranges.values())

    def snapshot(self) -> dict[str, Any]:
        """The status entry: per partition offsets, records read, and the whole run's rate and ETA."""
        read = self.read_per_partition()
        done = sum(read.values())
        total = self.total
        now = time.monotonic()
        since = self.computing_since
        rate = done / (now - since) if since is not None and now > since and done else 0.0
        eta = round((total - done) / rate, 1) if rate > 0 and done < total else (0.0 if done >= total else None)
        return {
            "queryId": self.query_id,
            "phase": self.phase.value,
            "recordsRead": done,
            "recordsTotal": total,
            "recordsPerSecond": round(rate, 1),
            "etaSeconds": eta,
            "committedRecords": self.committed_records,
            "elapsedSeconds": round(now - self.started, 1),
            "resumedTasks": self.resumed_tasks,
            "error": self.error,
            "partitions": [
                {"partition": p, "startOffset": s, "endOffset": e, "offset": s + read.get(p, 0),
                 "recordsRead": read.get(p, 0), "recordsTotal": e - s}
                for p, (s, e) in sorted(self.ranges.items())],
        }
