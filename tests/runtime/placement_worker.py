"""A worker process for the start-up placement test: opens the shared EmbeddedLog (LMDB) and runs the
join stores' move into the partitions it owns, as a query's worker does before its tasks restore.

    python tests/runtime/placement_worker.py DATA_DIR ROLE

ROLE ``late``: reads the changelog, then waits (file ``late-read`` written, ``first-ran`` awaited) before
its moves are written - a worker whose read came before another worker's task began to run.
ROLE ``first``: waits for the late one's read, runs its move, then runs its task: a newer entry for each
key placed in its partitions (the key's own records after the upgrade), and writes ``first-ran``.
Both print ``DONE``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ksqlpy import types as T
from ksqlpy.log.base import ProducerRecord
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.runtime.join_keys import store_encoder
from ksqlpy.runtime.join_placement import placement, relocate
from ksqlpy.runtime.join_rows import key_encoder

FMT, PARTITIONS, TOPIC, GROUP = "AVRO", 4, "q-join-store-changelog", "q"
KEYS = range(12)
OWNED = {"first": [0, 2], "late": [1, 3]}
NEWER = b"newer"


def entry(k: int) -> bytes:
    """A table-side entry's store key for join key ``k`` (``join_placement.join_key``'s ``\\x03`` kind)."""
    return b"\x03" + store_encoder(FMT, key_encoder(FMT, [T.INTEGER]))((k,))


def home(k: int) -> int:
    p = placement(FMT, PARTITIONS)(entry(k)[1:])
    assert p is not None
    return p


def _wait(path: Path) -> None:
    deadline = time.monotonic() + 60
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(str(path))
        time.sleep(0.02)


def main(argv: list[str]) -> int:
    data, role = Path(argv[0]), argv[1]
    log = EmbeddedLog(str(data / "log"))
    if role == "late":
        write = log.transaction

        @contextmanager
        def after_first() -> Iterator[Any]:
            (data / "late-read").touch()
            _wait(data / "first-ran")
            with write() as tx:
                yield tx

        log.transaction = after_first  # type: ignore[method-assign]
        relocate(log, GROUP, [TOPIC], FMT, PARTITIONS, None, None, OWNED[role])
    else:
        _wait(data / "late-read")
        relocate(log, GROUP, [TOPIC], FMT, PARTITIONS, None, None, OWNED[role])
        for k in KEYS:
            if home(k) in OWNED[role]:
                log.produce(ProducerRecord(TOPIC, entry(k), NEWER, None, None, home(k)))
        (data / "first-ran").touch()
    log.close()
    print("DONE", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
