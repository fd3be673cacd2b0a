"""Scaling out: records/s of a stateful query with 1 and 2 worker processes, embedded and on Kafka.

    python -m bench.scaling [--log embedded|kafka|both] [--records N] [--workers 1,2] [--runs 3]

A 4-partition topic is filled first; then a windowed aggregation (COUNT and SUM per key and 10 s tumbling
window, 1000 keys, cache.max.bytes.buffering on) starts from the earliest offset in ``ksqlpy.workers=process``
mode. Throughput is measured from the workers' own progress reports between 10 % and 90 % of the input,
so process start-up and the last partial batch do not count; so are the cores the workers used meanwhile
(from /proc) and records per worker CPU-second, which tells a machine busy with other work from a
runtime that does not scale. Reported: the median of ``--runs``. This uses both cores (it is the one place
that should); it is not a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import struct
import sys
import tempfile
import time
import uuid
from typing import Any

import orjson

PARTITIONS = 4
KEYS = 1_000


def _fill(log: Any, topic: str, n: int) -> None:
    """n records over KEYS keys, keyed partitioning, event time spread over 20 windows."""
    chunk = 50_000
    pack = struct.Struct(">i").pack
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        keys = [pack(i % KEYS) for i in range(start, stop)]
        values = [orjson.dumps({"V": i % 1000, "NAME": "x" * 20}) for i in range(start, stop)]
        tss = [1_000_000 + i * 200_000 // n for i in range(start, stop)]
        with log.transaction() as tx:
            tx.produce_batch(topic, None, keys, values, tss)


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used, from /proc (0 where unavailable)."""
    import os

    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


def _one(log_kind: str, workers: int, n: int, bootstrap: str | None) -> dict[str, Any]:
    from ksqlpy.engine import Engine

    suffix = uuid.uuid4().hex[:8]
    props: dict[str, Any] = {"ksql.service.id": f"scale{suffix}_", "auto.offset.reset": "earliest",
                             "ksqlpy.workers": "process", "num.stream.threads": workers,
                             "cache.max.bytes.buffering": 10_000_000}
    if bootstrap:
        props.update({"bootstrap.servers": bootstrap, "ksql.streams.session.timeout.ms": 2000})
    with tempfile.TemporaryDirectory(prefix="ksqlpy-scaling-") as d:
        engine = Engine(d, props)
        try:
            src = f"scale-src-{suffix}"
            engine.execute(f"CREATE STREAM S (ID INT KEY, V INT, NAME STRING) WITH (KAFKA_TOPIC='{src}', "
                           f"PARTITIONS={PARTITIONS}, VALUE_FORMAT='JSON');")
            _fill(engine.log, src, n)
            engine.execute(f"CREATE TABLE T WITH (KAFKA_TOPIC='scale-out-{suffix}') AS SELECT ID, COUNT(*) AS C, "
                           "SUM(V) AS SV FROM S WINDOW TUMBLING (SIZE 10 SECONDS) GROUP BY ID;")
            (query,) = engine.queries.values()
            marks: dict[float, float] = {}
            cpu_at: dict[float, float] = {}
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                done = sum(s.get("processed", 0) or 0 for s in query.workers.statuses())
                now = time.monotonic()
                for frac in (0.1, 0.9):
                    if frac not in marks and done >= frac * n:
                        marks[frac] = now
                        cpu_at[frac] = sum(_cpu_seconds(pid) for pid in query.workers.pids())
                if done >= n:
                    break
                time.sleep(0.02)
            else:
                raise TimeoutError(f"{log_kind}/{workers} workers did not finish")
            span = marks[0.9] - marks[0.1]
            cpu = cpu_at[0.9] - cpu_at[0.1]
            return {"log": log_kind, "workers": workers, "records": n, "records_per_s": round(0.8 * n / span),
                    "cores_used": round(cpu / span, 2),
                    "records_per_cpu_s": round(0.8 * n / cpu) if cpu > 0 else None}
        finally:
            engine.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.scaling", description=__doc__)
    ap.add_argument("--log", choices=["embedded", "kafka", "both"], default="both")
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--report", help="write the results as JSON here")
    args = ap.parse_args(argv)
    kinds = ["embedded", "kafka"] if args.log == "both" else [args.log]
    counts = [int(w) for w in args.workers.split(",")]
    results: list[dict[str, Any]] = []
    for kind in kinds:
        broker = None
        if kind == "kafka":
            from bench.broker import Broker

            broker = Broker().__enter__()
        try:
            base = None
            for w in counts:
                got = [_one(kind, w, args.records, broker.bootstrap if broker else None) for _ in range(args.runs)]
                runs = [g["records_per_s"] for g in got]
                cores = [g["cores_used"] for g in got]
                per_cpu = [g["records_per_cpu_s"] for g in got]
                med = statistics.median(runs)
                base = base or med
                row = {"log": kind, "workers": w, "records": args.records, "runs": runs,
                       "median_records_per_s": med, "speedup": round(med / base, 2), "cores_used": cores,
                       "records_per_cpu_s": per_cpu}
                results.append(row)
                print(f"{kind:9} workers={w}  median {med:>10,.0f} rec/s  runs {runs}  x{row['speedup']}  "
                      f"cores used {cores}  rec per CPU-s {per_cpu}", flush=True)
        finally:
            if broker is not None:
                broker.close()
    if args.report:
        with open(args.report, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
