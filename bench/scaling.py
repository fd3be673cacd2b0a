"""Scaling out: records/s of a stateful query with 1 and 2 worker processes, embedded and on Kafka.

    python -m bench.scaling [--log embedded|kafka|both] [--records N] [--workers 1,2] [--runs 3]
                            [--set KEY=VALUE ...] [--report FILE.json]

A 4-partition topic is filled first; then a windowed aggregation (COUNT and SUM per key and 10 s tumbling
window, 1000 keys, cache.max.bytes.buffering on) starts from the earliest offset in ``ksqlpy.workers=process``
mode. Throughput is measured from the workers' own progress reports, from the moment every worker runs its
final share of the partitions until 90 % of the input is done, so process start-up, group rebalances and
the last partial batch do not count. Over the same span, from /proc: the CPU each worker used (all its
threads), the broker's (Kafka: the tansu process this script starts), and the machine's - what other
processes took meanwhile is CPU the workers could not have had.

Runs alternate (1, 2, 1, 2, ...). Printed per run, then medians with two ratios to the first worker count:
``x`` (records/s, the wall-clock figure; also paired run by run) and the records per worker-CPU-second
ratio (1.0: a second worker costs nothing extra per record - the runtime scales, and a wall ratio below
it means the machine did not have the cores free). This uses both cores (it is the one place that should);
it is not a test. Best run on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
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


def _cpu_seconds(pid: int, main_thread: bool = False) -> float:
    """CPU time (user + system) a process has used - all threads, or only its main (Python) thread - from
    /proc (0 where unavailable)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/stat" if main_thread else f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


def _machine_busy() -> float:
    """CPU seconds the whole machine has been busy (every core, every process), from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


class _Sample:
    """CPU counters at one instant: each worker, the broker, this process, the machine."""

    def __init__(self, worker_pids: list[int], broker_pid: int | None, done: int) -> None:
        self.t = time.monotonic()
        self.done = done
        self.workers = {pid: _cpu_seconds(pid) for pid in worker_pids}
        self.mains = {pid: _cpu_seconds(pid, main_thread=True) for pid in worker_pids}
        self.broker = _cpu_seconds(broker_pid) if broker_pid else 0.0
        self.engine = _cpu_seconds(os.getpid())
        self.machine = _machine_busy()


def _one(log_kind: str, workers: int, n: int, bootstrap: str | None, broker_pid: int | None = None,
         extra: dict[str, Any] | None = None) -> dict[str, Any]:
    from ksqlpy.engine import Engine

    suffix = uuid.uuid4().hex[:8]
    props: dict[str, Any] = {"ksql.service.id": f"scale{suffix}_", "auto.offset.reset": "earliest",
                             "ksqlpy.workers": "process", "num.stream.threads": workers,
                             "cache.max.bytes.buffering": 10_000_000, **(extra or {})}
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
            first: _Sample | None = None
            last: _Sample | None = None
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                statuses = query.workers.statuses()
                done = sum(s.get("processed", 0) or 0 for s in statuses)
                owned = [p for s in statuses for p in s.get("assigned") or []]
                if first is None and sorted(owned) == list(range(PARTITIONS)) and all(
                        s.get("assigned") for s in statuses):
                    first = _Sample(query.workers.pids(), broker_pid, done)
                if first is not None and done >= 0.9 * n:
                    last = _Sample(query.workers.pids(), broker_pid, done)
                    break
                time.sleep(0.02)
            else:
                raise TimeoutError(f"{log_kind}/{workers} workers did not finish")
        finally:
            engine.close()
    assert first is not None and last is not None
    span = last.t - first.t
    measured = 0.9 * n - first.done
    per_worker = [last.workers[p] - first.workers.get(p, 0.0) for p in last.workers]
    cpu = sum(per_worker)
    main = sum(last.mains[p] - first.mains.get(p, 0.0) for p in last.mains)
    broker = last.broker - first.broker
    engine_cpu = last.engine - first.engine
    machine = last.machine - first.machine
    return {"log": log_kind, "workers": workers, "records": n, "records_per_s": round(measured / span),
            "worker_cores": [round(c / span, 2) for c in per_worker],
            "cores_used": round(cpu / span, 2),
            "records_per_cpu_s": round(measured / cpu) if cpu > 0 else None,
            # the client library's own threads (librdkafka: fetch, decompress, compress, send) vs Python's
            "client_threads_share": round(1 - main / cpu, 2) if cpu > 0 else None,
            "broker_cores": round(broker / span, 2) if broker_pid else None,
            "broker_us_per_record": round(1e6 * broker / measured, 2) if broker_pid else None,
            "engine_cores": round(engine_cpu / span, 2),
            # what the rest of the machine (other processes) took meanwhile: the cores the workers could not have
            "other_cores": round(max(0.0, machine - cpu - broker - engine_cpu) / span, 2),
            "seconds": round(span, 2)}


def _value(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        return text


def _summary(kind: str, counts: list[int], got: dict[int, list[dict[str, Any]]], n: int) -> list[dict[str, Any]]:
    """Medians per worker count, and the ratios to the first count: of the medians and run pair by run pair
    (runs alternate, so pairs saw the same machine)."""
    rows = []
    base = got[counts[0]]
    for w in counts:
        runs = got[w]

        def med(key: str, runs: list[dict[str, Any]] = runs) -> float:
            vals = [r[key] for r in runs if r.get(key) is not None]
            return round(statistics.median(vals), 2) if vals else float("nan")

        rows.append({
            "log": kind, "workers": w, "records": n, "runs": runs,
            "median_records_per_s": med("records_per_s"),
            "speedup": round(med("records_per_s") / statistics.median(r["records_per_s"] for r in base), 2),
            "paired_speedup": round(statistics.median(a["records_per_s"] / b["records_per_s"]
                                                      for a, b in zip(runs, base, strict=True)), 2),
            "median_records_per_cpu_s": med("records_per_cpu_s"),
            "cpu_efficiency": round(med("records_per_cpu_s") / statistics.median(
                r["records_per_cpu_s"] for r in base), 2),
            "median_cores_used": med("cores_used"),
            "median_broker_cores": med("broker_cores"),
            "median_broker_us_per_record": med("broker_us_per_record"),
            "median_other_cores": med("other_cores"),
            "median_engine_cores": med("engine_cores"),
        })
    return rows


def _print_run(r: dict[str, Any]) -> None:
    broker = (f"  broker {r['broker_cores']} cores ({r['broker_us_per_record']} us/rec)"
              if r.get("broker_cores") is not None else "")
    print(f"  {r['log']:9} workers={r['workers']}  {r['records_per_s']:>9,} rec/s  worker cores {r['worker_cores']}"
          f"  {r['records_per_cpu_s']:>9,} rec/worker-CPU-s ({r['client_threads_share']:.0%} in client threads)"
          f"{broker}  other processes {r['other_cores']} cores",
          flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.scaling", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--log", choices=["embedded", "kafka", "both"], default="both")
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="an engine property for every run (e.g. commit.interval.ms=0 to commit per batch)")
    ap.add_argument("--report", help="write the results as JSON here")
    args = ap.parse_args(argv)
    kinds = ["embedded", "kafka"] if args.log == "both" else [args.log]
    counts = [int(w) for w in args.workers.split(",")]
    extra = {k: _value(v) for k, _, v in (item.partition("=") for item in args.set)}
    results: list[dict[str, Any]] = []
    for kind in kinds:
        broker = None
        if kind == "kafka":
            from bench.broker import Broker

            broker = Broker().__enter__()
        try:
            # runs of each worker count alternate (1, 2, 1, 2, ...), so a machine that gets busier or
            # quieter while the benchmark runs affects them alike
            got: dict[int, list[dict[str, Any]]] = {w: [] for w in counts}
            for _ in range(args.runs):
                for w in counts:
                    r = _one(kind, w, args.records, broker.bootstrap if broker else None,
                             broker.proc.pid if broker and broker.proc else None, extra)
                    got[w].append(r)
                    _print_run(r)
            for row in _summary(kind, counts, got, args.records):
                results.append(row)
                broker_part = (f"  broker {row['median_broker_cores']} cores, "
                               f"{row['median_broker_us_per_record']} us/rec" if kind == "kafka" else "")
                print(f"{kind:9} workers={row['workers']}  median {row['median_records_per_s']:>10,.0f} rec/s  "
                      f"x{row['speedup']} (paired x{row['paired_speedup']})  "
                      f"{row['median_records_per_cpu_s']:>9,.0f} rec/worker-CPU-s (x{row['cpu_efficiency']})  "
                      f"worker cores {row['median_cores_used']}{broker_part}  "
                      f"engine {row['median_engine_cores']} cores  "
                      f"other processes {row['median_other_cores']} cores", flush=True)
        finally:
            if broker is not None:
                broker.close()
    if args.report:
        with open(args.report, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
