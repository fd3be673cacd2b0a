"""Throughput of the serdes: ``python -m ksqlpy.serde.bench [records]``.

~50-byte JSON values of four columns (BIGINT, STRING, DOUBLE, INT), read and written in batches
through ``deserialize_batch`` / ``serialize_batch``; the same rows as DELIMITED. Median of 5 runs.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

import orjson

from ksqlpy.serde import value_serde
from ksqlpy.types import BIGINT, DOUBLE, INTEGER, STRING

COLUMNS = [("ID", BIGINT), ("NAME", STRING), ("PRICE", DOUBLE), ("QTY", INTEGER)]


def _rate(n: int, fn: Callable[[], object], runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return n / statistics.median(times)


def run(n: int = 100_000) -> dict[str, float]:
    js = value_serde("JSON", COLUMNS)
    exact = [orjson.dumps({"ID": i, "NAME": f"name{i % 100}", "PRICE": 12.5 + i % 7, "QTY": i % 50})
             for i in range(n)]
    lower = [orjson.dumps({"id": i, "name": f"name{i % 100}", "price": 12.5 + i % 7, "qty": i % 50})
             for i in range(n)]
    rows = js.deserialize_batch(exact)[0]
    dl = value_serde("DELIMITED", COLUMNS)
    text = dl.serialize_batch(rows)
    return {
        "orjson.loads alone (reference)": _rate(n, lambda: [orjson.loads(d) for d in exact]),
        "JSON deserialize_batch, keys = column names": _rate(n, lambda: js.deserialize_batch(exact)),
        "JSON deserialize_batch, lower-case keys": _rate(n, lambda: js.deserialize_batch(lower)),
        "JSON serialize_batch": _rate(n, lambda: js.serialize_batch(rows)),
        "DELIMITED deserialize_batch": _rate(n, lambda: dl.deserialize_batch(text)),
        "DELIMITED serialize_batch": _rate(n, lambda: dl.serialize_batch(rows)),
    }


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv else 100_000
    for label, rate in run(n).items():
        print(f"{label:50s} {rate / 1e6:6.2f} M records/s")


if __name__ == "__main__":
    main(sys.argv[1:])
