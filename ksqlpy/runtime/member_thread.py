"""A query's consumer-group member run as a thread of the engine process (``ksqlpy.workers=inline`` in a
cluster).

Servers sharing a ``ksql.service.id`` on Kafka must share each persistent query's partitions through its
consumer group, whether the query runs inline or in worker processes: never two servers processing one
partition. An inline query in a server on Kafka therefore runs the worker loop (``workers.WorkerRunner``:
membership, tasks built for the assigned partitions, commit on revoke, stores restored on assign) in a
thread of the server process instead of a process of its own. Its stores start their restore phase from
the server's warm copies (standby replicas, ``server/ownership.py``) when those are ahead, so a partition
taken over after a failover replays only the changelog's tail. ``ThreadWorker`` gives the supervisor
(``coordinator.QueryWorkers``) the process interface it watches and restarts.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import threading
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from ksqlpy.runtime.workers import WorkerRunner, WorkerSpec

_LOG = logging.getLogger("ksqlpy.workers")


class _ThreadRunner(WorkerRunner):
    """The worker loop, stopped by its connection rather than by exiting the process."""

    def _control(self) -> None:
        try:
            while self.conn.poll(0):
                if self.conn.recv() == "stop":
                    self.stop = True
        except (EOFError, OSError):
            self.stop = True  # the supervisor is gone


class ThreadWorker:
    """``subprocess.Popen``'s interface (poll, wait, kill, pid, returncode) for a worker thread."""

    def __init__(self, spec: WorkerSpec, conn: Connection,
                 copies: Callable[[str, int], Any] | None = None) -> None:
        self.spec = spec
        self.copies = copies
        self.conn = conn
        self.returncode: int | None = None
        self.pid = os.getpid()
        self.runner: _ThreadRunner | None = None
        self.thread = threading.Thread(target=self._run, name=f"ksqlpy-member-{spec.query_id}-{spec.index}",
                                       daemon=True)
        self.thread.start()

    def _run(self) -> None:
        code = 0
        try:
            self.runner = _ThreadRunner(self.spec, self.conn, os.getppid())
            self.runner.ctx.copies = self.copies
            self.runner.run()
        except BaseException as e:  # noqa: BLE001 - reported; the supervisor restarts the member
            code = 2
            with contextlib.suppress(Exception):
                self.conn.send({"type": "fatal", "index": self.spec.index, "error": f"{type(e).__name__}: {e}",
                                "trace": traceback.format_exc()})
        finally:
            if self.runner is not None:
                try:
                    self.runner.close()
                except Exception:  # noqa: BLE001
                    _LOG.warning("closing member %s of %s failed", self.spec.index, self.spec.query_id,
                                 exc_info=True)
            with contextlib.suppress(Exception):
                self.conn.close()
            self.returncode = code

    def poll(self) -> int | None:
        return None if self.thread.is_alive() else self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        self.thread.join(timeout)
        if self.thread.is_alive():
            raise subprocess.TimeoutExpired(f"member thread of {self.spec.query_id}", timeout or 0)
        return self.returncode

    def kill(self) -> None:
        if self.runner is not None:
            self.runner.stop = True


def start_thread(spec: WorkerSpec, copies: Callable[[str, int], Any] | None = None) -> tuple[Any, Connection]:
    """Start ``spec``'s member thread; returns (its process stand-in, the supervisor's connection).
    ``copies``: the host's warm copies of stores (``context.WarmCopies.warm_copy``), which the thread's
    stores start their restore from."""
    import socket

    mine, theirs = socket.socketpair()
    conn = Connection(mine.detach())
    return ThreadWorker(spec, Connection(theirs.detach()), copies), conn
