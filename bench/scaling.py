"""Scaling out: records/s of a stateful query with 1 and 2 worker processes, embedded and on Kafka.

    python -m bench.scaling [--log embedded|kafka|both] [--records N] [--workers 1,2] [--runs 3]

A 4-partition topic is filled first; then a windowed aggregation (COUNT and SUM per key and 10 s tumbling
window, 1000 keys, cache.max.bytes.buffering on) starts from the earliest offset in ``ksqlpy.workers=process``
mode. Throughput is measured from the workers' own progress reports, from the moment every worker runs its
final share of the partitions until 90 % of the input is done, so process start-up, group rebalances and
the last partial batch do not count; so are the cores the workers used meanwhile
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


def _one(log_kind: str, workers: int, n: int, bootstrap: str | None, broker_pid: int | None = None) -> dict[str, Any]:
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
            # measure from the moment every worker runs its final share of the partitions (on Kafka the
            # group rebalances as workers join, and each rebuild restores state) until 90 % is done
            marks: dict[float, float] = {}
            cpu_at: dict[float, float] = {}
            base_done = 0
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                statuses = query.workers.statuses()
                done = sum(s.get("processed", 0) or 0 for s in statuses)
                now = time.monotonic()
                owned = [p for s in statuses for p in s.get("assigned") or []]
                if 0.1 not in marks and sorted(owned) == list(range(PARTITIONS)) and all(
                        s.get("assigned") for s in statuses):
                    marks[0.1], base_done = now, done
                    cpu_at[0.1] = sum(_cpu_seconds(pid) for pid in query.workers.pids())
                    if broker_pid:
                        cpu_at[-0.1] = _cpu_seconds(broker_pid)
                if 0.1 in marks and done >= 0.9 * n:
                    marks[0.9] = now
                    cpu_at[0.9] = sum(_cpu_seconds(pid) for pid in query.workers.pids())
                    if broker_pid:
                        cpu_at[-0.9] = _cpu_seconds(broker_pid)
                    break
                time.sleep(0.02)
            else:
                raise TimeoutError(f"{log_kind}/{workers} workers did not finish")
            span = marks[0.9] - marks[0.1]
            cpu = cpu_at[0.9] - cpu_at[0.1]
            measured = 0.9 * n - base_done
            return {"log": log_kind, "workers": workers, "records": n, "records_per_s": round(measured / span),
                    "cores_used": round(cpu / span, 2),
                    "broker_cores": round((cpu_at[-0.9] - cpu_at[-0.1]) / span, 2) if broker_pid else None,
                    "records_per_cpu_s": round(measured / cpu) if cpu > 0 else None}
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
            # runs of each worker count alternate, so a machine that gets busier or quieter while the
            # benchmark runs affects them alike
            got: dict[int, list[dict[str, Any]]] = {w: [] for w in counts}
            for _ in range(args.runs):
                for w in counts:
                    got[w].append(_one(kind, w, args.records, broker.bootstrap if broker else None,
                                       broker.proc.pid if broker and broker.proc else None))
            base = None
            for w in counts:
                runs = [g["records_per_s"] for g in got[w]]
                cores = [g["cores_used"] for g in got[w]]
                per_cpu = [g["records_per_cpu_s"] for g in got[w]]
                med = statistics.median(runs)
                base = base or med
                row = {"log": kind, "workers": w, "records": args.records, "runs": runs,
                       "median_records_per_s": med, "speedup": round(med / base, 2), "cores_used": cores,
                       "records_per_cpu_s": per_cpu, "broker_cores": [g["broker_cores"] for g in got[w]]}
                results.append(row)
                print(f"{kind:9} workers={w}  median {med:>10,.0f} rec/s  runs {runs}  x{row['speedup']}  "
                      f"cores used {cores}  rec per CPU-s {per_cpu}"
                      + (f"  broker cores {row['broker_cores']}" if kind == "kafka" else ""), flush=True)
        finally:
            if broker is not None:
                broker.close()
    if args.report:
        with open(args.report, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
