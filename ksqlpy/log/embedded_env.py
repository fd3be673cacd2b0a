"""The LMDB environment under an EmbeddedLog: its databases, key layouts and topic metadata.

On-disk layout (``<dir>/data.mdb`` + ``<dir>/lock.mdb``), four named databases; all integers in keys
are big-endian so byte order is numeric order:

``meta``
    ``b"v"``            -> uint64 LE: metadata version, bumped by every topic create/delete/config change
                           (processes cache topic metadata and re-read it when the version moves)
    ``b"n"``            -> uint32 LE: next topic id
    ``b"t" + name``     -> JSON ``{"id", "partitions", "replicas", "config"}``
``parts``   key ``>II`` (topic id, partition)           -> ``<qq`` (start offset, end offset)
            start = lowest retained offset, end = next offset to assign (the high watermark).
            Offsets in ``[start, end)`` are dense: every one has a record (only prefixes are deleted).
``records`` key ``>IIQ`` (topic id, partition, offset of the chunk's first record) -> a chunk of
            consecutive records (see ``record_codec``): what one transaction wrote to the partition.
            A chunk may straddle the start offset; records below it are skipped by readers.
``groups``  key ``>II`` (topic id, partition) + group name (UTF-8) -> ``<q`` committed offset

Topics get a fresh numeric id on creation, so a deleted and re-created topic never sees old records
or old committed offsets.
"""

from __future__ import annotations

import gc
import logging
import os
import struct
import sys
import threading
import time
from dataclasses import dataclass

import lmdb

from ksqlpy.log.base import TopicInfo
from ksqlpy.private_files import FILE_MODE, private_dir

DEFAULT_MAP_SIZE = (64 << 30) if sys.maxsize > 2**32 else (1 << 30)
FLUSH_EVERY = 50_000  # records buffered in a transaction before they are put as chunks
CLOSE_WAIT_S = 10.0  # how long the last close waits for another thread's write transaction to end

LOG = logging.getLogger(__name__)

PK = struct.Struct(">II")  # parts / groups key: topic id, partition
RK = struct.Struct(">IIQ")  # records key: topic id, partition, first offset of the chunk
SE = struct.Struct("<qq")  # parts value: start, end offsets
Q = struct.Struct("<q")  # groups value: committed offset


@dataclass(frozen=True)
class Topic:
    id: int
    name: str
    partitions: int
    replicas: int
    config: dict[str, str]

    def info(self) -> TopicInfo:
        return TopicInfo(self.name, self.partitions, self.replicas, dict(self.config))


class Env:
    """One LMDB environment per (process, directory), reference counted."""

    _registry: dict[tuple[int, str], Env] = {}
    _lock = threading.Lock()

    def __init__(self, path: str, map_size: int, sync: bool) -> None:
        private_dir(path)
        self.path = path
        self.env = lmdb.open(
            path, map_size=map_size, max_dbs=16, max_readers=1024, sync=sync, metasync=sync,
            readahead=False, lock=True, mode=FILE_MODE,
        )
        self.meta = self.env.open_db(b"meta")
        self.parts = self.env.open_db(b"parts")
        self.records = self.env.open_db(b"records")
        self.groups = self.env.open_db(b"groups")
        self.cond = threading.Condition()
        self.refs = 0
        # id(WriteTxn) -> (thread ident, "thread name in caller"): the write transactions begun and not
        # ended yet, so the last close can tell whether py-lmdb's close would wait for one (see release)
        self.writers: dict[int, tuple[int, str]] = {}

    @classmethod
    def acquire(cls, path: str, map_size: int, sync: bool) -> Env:
        key = (os.getpid(), os.path.realpath(path))
        with cls._lock:
            env = cls._registry.get(key)
            if env is None:
                if any(k[1] == key[1] for k in cls._registry):
                    raise RuntimeError(
                        f"EmbeddedLog {key[1]!r} was opened before this process was forked; LMDB cannot "
                        "open it again in the child. Start worker processes with the 'spawn' or "
                        "'forkserver' multiprocessing method, or fork before opening the log."
                    )
                env = cls._registry[key] = Env(key[1], map_size, sync)
            env.refs += 1
            return env

    @classmethod
    def release(cls, env: Env) -> None:
        """Drop a reference; the last one closes the environment - unless a write transaction begun by
        another thread is still open. py-lmdb (3.x) makes ``close`` wait until the owning thread ends that
        transaction, which never comes if the thread is gone and the transaction object lives on (in a
        reference cycle, a stored exception): that was a hang at exit. Such a transaction gets a garbage
        collection and ``CLOSE_WAIT_S`` to end; after that the environment is left open (registered as
        unclosed, so reopening the directory in this process reuses it) and the error names where the
        transaction began."""
        with cls._lock:
            env.refs -= 1
            if env.refs > 0:
                return
            if env._others_writing():
                gc.collect()  # a transaction left in a cycle is aborted when collected
                deadline = time.monotonic() + CLOSE_WAIT_S
                while env._others_writing() and time.monotonic() < deadline:
                    time.sleep(0.01)
                if env._others_writing():
                    LOG.error("EmbeddedLog %s left open: write transaction(s) never ended, begun in %s",
                              env.path, ", ".join(sorted(w for _, w in env.writers.values())))
                    return
            for k, v in list(cls._registry.items()):
                if v is env:
                    del cls._registry[k]
            env.env.close()

    def _others_writing(self) -> bool:
        me = threading.get_ident()
        return any(ident != me for ident, _ in list(self.writers.values()))


class WriteTxn:
    """An LMDB write transaction the Env keeps account of (``Env.writers``) until it commits or aborts.

    As a context manager it is LMDB's own: the transaction on entry, commit on a normal exit, abort on an
    exception."""

    __slots__ = ("env", "txn")

    def __init__(self, env: Env) -> None:
        self.env = env
        self.txn = env.env.begin(write=True)
        caller = sys._getframe(2).f_code
        env.writers[id(self)] = (threading.get_ident(), f"{threading.current_thread().name} ({caller.co_qualname})")

    def commit(self) -> None:
        try:
            self.txn.commit()
        finally:
            self.env.writers.pop(id(self), None)

    def abort(self) -> None:
        try:
            self.txn.abort()
        finally:
            self.env.writers.pop(id(self), None)

    def __del__(self) -> None:
        # dropped without commit or abort: py-lmdb aborts the transaction as it frees it
        self.env.writers.pop(id(self), None)

    def __enter__(self) -> lmdb.Transaction:
        return self.txn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.abort()


def _reset_after_fork() -> None:
    Env._lock = threading.Lock()  # a thread of the parent may have held it at fork time


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)
