"""One engine per data directory: an exclusive lock held for the engine's lifetime.

Two engines over one directory would both run every persistent query - every output record written
twice, state stores opened by two writers. So an engine takes ``<data dir>/.ksqlpy.lock`` (``flock``,
exclusive, non-blocking) and writes who holds it into the file; a second engine - a shell, a server or a
backfill, in another process or the same one - is refused at once with the directory and the holder. The
operating system releases the lock when the holder exits, however it exits, so a crash leaves no stale lock.

A second shell is refused rather than attached as a client: the embedded shell serves no API another
process could attach to; ``ksqlpy server`` over the directory and ``ksqlpy --server URL`` is the way to
share one engine between several sessions.
"""

from __future__ import annotations

import fcntl
import os
import socket
import sys
import time
from typing import IO

import orjson

from ksqlpy.errors import KsqlError
from ksqlpy.private_files import FILE_MODE, private_dir

LOCK_FILE = ".ksqlpy.lock"


class DataDirectoryInUse(KsqlError):
    """Another engine holds the data directory."""


def _holder_text(path: str) -> str:
    try:
        with open(path, "rb") as f:
            info = orjson.loads(f.read() or b"{}")
    except (OSError, orjson.JSONDecodeError):
        info = {}
    if not info.get("pid"):
        return "another process"
    where = "" if info.get("host") == socket.gethostname() else f" on {info.get('host')}"
    return f"process {info['pid']}{where} ({info.get('command', '?')})"


def _command() -> str:
    argv = [os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python", *sys.argv[1:]]
    if argv and argv[0] in ("__main__.py", "-m", "-c"):
        argv[0] = "ksqlpy"
    text = " ".join(argv)
    return text if len(text) <= 160 else text[:157] + "..."


class DataDirectoryLock:
    """Held from ``acquire`` until ``release`` (or the process exits)."""

    def __init__(self, data_dir: str) -> None:
        self.data_dir = os.path.abspath(data_dir)
        self.path = os.path.join(self.data_dir, LOCK_FILE)
        self._file: IO[bytes] | None = None

    def acquire(self) -> DataDirectoryLock:
        private_dir(self.data_dir)
        f = open(self.path, "a+b", opener=lambda p, fl: os.open(p, fl, FILE_MODE))  # noqa: SIM115 - held open
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.close()
            raise DataDirectoryInUse(
                f"The data directory {self.data_dir} is in use by {_holder_text(self.path)}. Only one ksqlpy engine "
                "(shell, server or backfill) may run over a data directory: stop that one, use another --data-dir, "
                "or run 'ksqlpy server' there and connect to it with 'ksqlpy --server URL'.") from None
        f.truncate(0)
        f.write(orjson.dumps({"pid": os.getpid(), "host": socket.gethostname(), "command": _command(),
                              "since": int(time.time())}))
        f.flush()
        self._file = f
        return self

    def release(self) -> None:
        f, self._file = self._file, None
        if f is not None:
            try:
                f.truncate(0)
                fcntl.flock(f.fileno(), fcntl.LOCK_UN)
            finally:
                f.close()
