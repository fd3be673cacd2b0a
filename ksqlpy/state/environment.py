"""One LMDB environment for the stores of one query on one host (the engine's or a worker's state root).

Why: opening an environment creates its files and maps it - about 1.2 ms of CPU here, more than a small
query's set-up spends on anything else - and a query of four partitions with three stores per task opened
twelve. The stores under one state root share one environment instead: each store's entries in a named
database of its own (its name is the store's path under the root, as the files of one environment per
store were laid out), the checkpoints in one ``meta`` database, one key per store. A store's changelog,
restore, standby copy and name are what they were; only where its bytes live changed.

LMDB forbids opening one environment twice in a process, so environments are shared through a process-wide
registry and closed with their last store. Each worker process of a query has its own state root, so its
own environment: worker processes never wait on each other's write transactions.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import lmdb

from ksqlpy.private_files import FILE_MODE, private_dir

MAP_SIZE = 1 << 36  # address space, not memory: the files grow as written
_META = b"meta"
_CHECKPOINT = b"checkpoint"  # a store's checkpoint key in an environment of its own
_MIN_DBS = 16


class StoreEnvironment:
    """An LMDB environment and the stores open in it (``open_store``), closed with the last of them."""

    _open: dict[str, StoreEnvironment] = {}
    _lock = threading.Lock()

    def __init__(self, root: str, max_dbs: int, shared: bool) -> None:
        private_dir(root)
        self.root = root
        self.shared = shared
        self.max_dbs = max_dbs
        self.env = lmdb.open(root, map_size=MAP_SIZE, max_dbs=max_dbs, subdir=True, sync=False, metasync=False,
                             readahead=False, mode=FILE_MODE)
        self.meta = self.env.open_db(_META)
        self.users = 0

    @classmethod
    def shared_at(cls, root: str, stores: int) -> StoreEnvironment:
        """The environment of the state root ``root`` for a query with up to ``stores`` stores here (opened
        now, or the one already open in this process); one more user until ``release``."""
        key = os.path.realpath(root)
        with cls._lock:
            env = cls._open.get(key)
            if env is None:
                env = cls._open[key] = cls(root, max(_MIN_DBS, stores + 2), shared=True)
            env.users += 1
            return env

    @classmethod
    def private(cls, directory: str) -> StoreEnvironment:
        """An environment for one store alone (a store built outside a query's set-up: the backfill's,
        tests'): the layout of one environment per store, ``data`` and ``meta`` databases."""
        env = cls(directory, 2, shared=False)
        env.users = 1
        return env

    def open_store(self, name: str) -> tuple[Any, Any, bytes]:
        """``(data database, meta database, checkpoint key)`` of the store ``name`` (its path under the root).
        Raises ``lmdb.DbsFullError`` when the environment has no room for another database."""
        if not self.shared:
            return self.env.open_db(b"data"), self.meta, _CHECKPOINT
        raw = name.encode("utf-8")
        return self.env.open_db(b"store:" + raw), self.meta, _CHECKPOINT + b":" + raw

    def release(self) -> None:
        """One user less; the last one closes the environment (and takes it out of the registry)."""
        with StoreEnvironment._lock:
            self.users -= 1
            if self.users > 0:
                return
            if self.shared:
                key = os.path.realpath(self.root)
                if StoreEnvironment._open.get(key) is self:
                    del StoreEnvironment._open[key]
        self.env.close()


def stores_in(root: str) -> list[str]:
    """The stores kept in the shared environment at ``root`` (their paths under it), in name order: what a
    directory listing gave when each store had an environment of its own."""
    key = os.path.realpath(root)
    env = StoreEnvironment._open.get(key)
    handle = env.env if env is not None else lmdb.open(root, readonly=True, subdir=True)
    try:
        with handle.begin() as txn:
            return [k[len(b"store:"):].decode("utf-8") for k, _ in txn.cursor() if k.startswith(b"store:")]
    finally:
        if env is None:
            handle.close()
