"""Throughput of the embedded log: ``python -m ksqlpy.log.bench [records]``.

Measures produce in 10k-record transactions (per-record ``produce`` with and without building the
ProducerRecord, and columnar ``produce_batch``) and ``fetch`` in 10k batches, with ~60-byte values
and 1000 distinct keys over 4 partitions. Prints the median of three runs.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

from ksqlpy.log.base import ProducerRecord
from ksqlpy.log.embedded import EmbeddedLog

BATCH = 10_000


def _median_rate(n: int, fn: Callable[[], object], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return n / statistics.median(times)


def run(n: int = 200_000) -> dict[str, float]:
    d = tempfile.mkdtemp(prefix="ksqlpy-bench-")
    log = EmbeddedLog(d)
    try:
        log.create_topic("t", 4)
        value = b'{"ID":12345,"NAME":"some name","PRICE":12.5,"QTY":17,"X":1}'
        keys = [b"key-%d" % (i % 1000) for i in range(n)]
        prebuilt = [ProducerRecord("t", keys[i], value, 1000 + i) for i in range(n)]

        def produce_building() -> None:
            for s in range(0, n, BATCH):
                with log.transaction() as tx:
                    for i in range(s, min(n, s + BATCH)):
                        tx.produce(ProducerRecord("t", keys[i], value, 1000 + i))

        def produce_prebuilt() -> None:
            for s in range(0, n, BATCH):
                with log.transaction() as tx:
                    for r in prebuilt[s:s + BATCH]:
                        tx.produce(r)

        def produce_batch() -> None:
            for s in range(0, n, BATCH):
                with log.transaction() as tx:
                    k = keys[s:s + BATCH]
                    tx.produce_batch("t", None, k, [value] * len(k), range(s, s + len(k)))

        out = {
            "produce (ProducerRecord built per record)": _median_rate(n, produce_building),
            "produce (prebuilt ProducerRecords)": _median_rate(n, produce_prebuilt),
            "produce_batch (columnar)": _median_rate(n, produce_batch),
        }
        total = sum(log.end_offset("t", p) for p in range(4))

        def fetch_all() -> None:
            for p in range(4):
                off = 0
                while True:
                    b = log.fetch("t", p, off, BATCH)
                    if not len(b):
                        break
                    off = b.next_offset

        out[f"fetch ({BATCH} per call, {total} records)"] = _median_rate(total, fetch_all)
        return out
    finally:
        log.close()
        shutil.rmtree(d, ignore_errors=True)


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv else 200_000
    for label, rate in run(n).items():
        print(f"{label:55s} {rate / 1e6:6.2f} M records/s")


if __name__ == "__main__":
    main(sys.argv[1:])
