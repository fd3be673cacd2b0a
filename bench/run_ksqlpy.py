"""One ksqlpy workload in its own process: ``python -m bench.run_ksqlpy LOG_DIR WORKLOAD [--profile F]``.

A fresh process per workload so peak RSS and CPU time are the workload's own. The clock runs from
submitting the CREATE ... AS SELECT until ``Engine.drain`` finds no input left, i.e. until the last
input record's result is committed to the sink (on the embedded log every batch's outputs and input
position commit in one transaction). On Kafka it runs from the first record, as the peers' clocks do
(``run_kafka``). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from typing import Any

import orjson

from bench.proc_tree import cpu_seconds, peak_rss_mb, tree_cpu_seconds, tree_peak_rss_mb
from bench.workloads import SOURCES_SQL, WORKLOADS


def run(log_dir: str, workload: str, profile: str | None = None, sampler: str | None = None,
        cache: int | None = None, check: bool = True, dump: str | None = None, workers: int = 1,
        pipelined: bool = False, settings: dict[str, str] | None = None, batches: bool = False) -> dict:
    """``cache``: ``cache.max.bytes.buffering`` (None: ksqlDB's default, 10 MB; 0: every update goes out).
    ``workers`` > 1: the query in that many worker processes (``ksqlpy.workers=process``); the clock starts
    once the engine's spare interpreters have done their imports (as a server's have long before a query
    arrives: engine start-up, like the peers' start-up outside their clocks); the workers' own start-up -
    taking a spare, building their tasks - is in the clock (and reported as ``startup_seconds``: until every
    worker processed its first batch), and the CPU is the whole process tree's. ``pipelined``: ``ksqlpy.commit.pipelined``. ``settings``: more
    properties (``--set KEY=VALUE``). ``batches``: also report every batch (``BatchClock``)."""
    from ksqlpy.engine import Engine
    from ksqlpy.log import EmbeddedLog

    w = WORKLOADS[workload]
    log = EmbeddedLog(log_dir)
    records = sum(log.end_offset(t, p) for t in w.inputs for p in range(log.describe_topic(t).partitions))  # type: ignore[union-attr]
    with tempfile.TemporaryDirectory(prefix="ksqlpy-bench-") as data_dir:
        props: dict = {"auto.offset.reset": "earliest"}
        if cache is not None:
            props["cache.max.bytes.buffering"] = cache
        cpu = cpu_seconds
        if pipelined:
            props["ksqlpy.commit.pipelined"] = "true"
        props.update(settings or {})
        if workers > 1:
            props.update({"ksqlpy.workers": "process", "num.stream.threads": workers})
            cpu = tree_cpu_seconds
        engine = Engine(data_dir, props, log=log)
        engine.execute(SOURCES_SQL)
        spares = getattr(engine.worker_manager, "spares", None)
        if spares is not None:
            spares.wait_ready(120)
        sink = f"bench_{workload}"
        prof = None
        if profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        clock = BatchClock() if batches and workers == 1 else None
        c0, t0 = cpu(), time.perf_counter()
        engine.execute(w.sql.format(sink=sink))
        startup = _workers_started(engine, t0) if workers > 1 else None
        engine.drain(3600)
        t1, c1 = time.perf_counter(), cpu()
        if clock is not None:
            clock.stop()
        if prof is not None:
            prof.disable()
            prof.dump_stats(profile)  # type: ignore[arg-type]
        peak = peak_rss_mb() if workers == 1 else tree_peak_rss_mb()
        info = log.describe_topic(sink.upper())
        out = sum(log.end_offset(info.name, p) for p in range(info.partitions)) if info else 0
        final = final_result(engine, sink, workload, dump) if check else None
        engine.close()
    return {
        "workload": workload, "engine": "ksqlpy", "log": "embedded", "workers": workers, "records": records,
        "outputs": out, "seconds": t1 - t0, "cpu_seconds": c1 - c0,
        "peak_rss_mb": peak, **({"final": final} if final else {}),
        **({"startup_seconds": round(startup, 3)} if startup is not None else {}),
        **({"batches": clock.batches} if clock is not None else {}),
    }


class BatchClock:
    """Every batch a task processes in this process (``runtime.task.poll_batch`` as the queries call it):
    ``[task id, records, thread CPU microseconds]`` in processing order, the batch's young collection included.

    Why: a workload's batches are the same from run to run (one thread drains inputs that are all there),
    so two runs' lists pair batch by batch - a run slower in every batch by one factor was slowed by the
    machine (its other work sharing the core and its caches), one slower in some batches by something of
    its own. Records per CPU-second alone cannot tell the two apart."""

    def __init__(self) -> None:
        import ksqlpy.engine.queries as queries

        self._module = queries
        self._poll = queries.poll_batch
        self.batches: list[list[Any]] = []
        clock, add, poll = time.thread_time_ns, self.batches.append, self._poll

        def timed(task: Any) -> int:
            c0 = clock()
            n = poll(task)
            if n:
                add([task.task_id, n, (clock() - c0) // 1000])
            return n

        queries.poll_batch = timed  # type: ignore[assignment]

    def stop(self) -> None:
        self._module.poll_batch = self._poll  # type: ignore[assignment]


def _workers_started(engine: Any, t0: float, timeout_s: float = 120.0) -> float | None:
    """Seconds from ``t0`` until every worker process of the query reported its first batch (a worker
    reports once it has started, built its tasks and polled them once)."""
    q = list(engine.queries.values())[-1]
    qw = getattr(q, "workers", None)
    if qw is None:
        return None
    deadline = time.perf_counter() + timeout_s
    while time.perf_counter() < deadline:
        if all(s.get("pid") for s in qw.statuses()):
            return time.perf_counter() - t0
        time.sleep(0.005)
    return None


def final_result(engine: Any, sink: str, workload: str, dump: str | None = None) -> dict[str, Any]:
    """The sink's final result (``bench.final_results``), read back after the clock stopped: every
    record decoded with the sink's own serdes; a table's changelog read in offset order per partition
    (a key lives in one partition), its last row per key kept."""
    from bench.final_results import Result

    spec = WORKLOADS[workload].result
    src = engine.catalog.source(sink.upper())
    kser, vser = engine.key_serde(src), engine.value_serde(src)
    kcols = [c.name for c in src.key_columns]
    vcols = [c.name for c in src.value_columns]
    windowed = src.windowed is not None
    res = Result(spec.kind, spec.columns, spec.key)
    info = engine.log.describe_topic(src.topic)
    for p in range(info.partitions):
        off = 0
        while True:
            b = engine.log.fetch(src.topic, p, off, 50_000)
            if not b.offsets:
                break
            for kb, vb in zip(b.keys, b.values, strict=True):
                key = kser.deserialize(kb)
                row: dict[str, Any] = {}
                if windowed:
                    key, row["window_start"], row["window_end"] = key
                if key is not None:
                    row.update(zip(kcols, key, strict=True))
                value = vser.deserialize(vb)
                if spec.kind == "rows":
                    row.update(zip(vcols, value, strict=True))  # type: ignore[arg-type]
                    res.add(row)
                elif value is None:
                    res.delete(row)
                else:
                    row.update(zip(vcols, value, strict=True))
                    res.upsert(row)
            off = b.next_offset
    if dump:
        res.dump(dump)
    return res.summary()


def run_kafka(cfg: dict) -> dict:
    """The workload on KafkaLog against the bench's broker. The clock runs as the peers' and the Kafka
    ceiling's do: from the first input record fetched until every input partition's position reached
    its end offset and the last batch was committed. (Query start-up before that - planning, sink
    topic creation, consumer assignment - is ~0.1-0.2 s, reported as ``startup_seconds``.)"""
    from ksqlpy.engine import Engine

    w = WORKLOADS[cfg["workload"]]
    ends = cfg["end_offsets"]
    with tempfile.TemporaryDirectory(prefix="ksqlpy-bench-") as data_dir:
        # the record cache as the peer compared with emits: off for every update (Quix ``.current()``)
        props = {"auto.offset.reset": "earliest", "bootstrap.servers": cfg["bootstrap"],
                 "ksql.service.id": cfg["group"], "cache.max.bytes.buffering": cfg.get("cache", 0)}
        engine = Engine(data_dir, props)
        bid_only = SOURCES_SQL.split(";")[0] + ";"  # only the bids are on the broker
        engine.execute(bid_only.replace("WITH (kafka_topic='bid'", f"WITH (kafka_topic='{cfg['topic']}'"))
        first: list[tuple[float, float]] = []
        fetch = engine.log.fetch

        def timed_fetch(topic: str, partition: int, offset: int, max_records: int = 10000):  # type: ignore[no-untyped-def]
            b = fetch(topic, partition, offset, max_records)
            if not first and b.offsets and topic == cfg["topic"]:
                first.append((cpu_seconds(), time.perf_counter()))
            return b

        engine.log.fetch = timed_fetch  # type: ignore[method-assign]
        t_submit = time.perf_counter()
        engine.execute((w.final_sql if cfg.get("final") else w.sql).format(sink=cfg["out"]))
        tasks = [t for q in engine.queries.values() for t in q.tasks if t.topic == cfg["topic"]]
        deadline = t_submit + 1800
        # until every input record's result is committed (a task holds processed batches for the commit
        # interval: its position runs ahead of what is committed)
        while any(t.committed_position < ends[t.partition] for t in tasks) and time.perf_counter() < deadline:
            engine.drain(5)
        t1, c1 = time.perf_counter(), cpu_seconds()
        c0, t0 = first[0] if first else (c1, t1)
        done = sum(min(t.position, ends[t.partition]) for t in tasks)
        sink = engine.catalog.source(cfg["out"].upper())
        info = engine.log.describe_topic(sink.topic) if sink is not None else None
        out = sum(engine.log.end_offset(info.name, p) for p in range(info.partitions)) if info else None
        engine.close()
    return {"records": done, "outputs": out, "seconds": t1 - t0, "cpu_seconds": c1 - c0,
            "startup_seconds": round(t0 - t_submit, 3), "peak_rss_mb": peak_rss_mb()}


def main(argv: list[str] | None = None) -> None:
    if argv is None and len(sys.argv) == 3 and sys.argv[1] == "--kafka":
        sys.stdout.buffer.write(orjson.dumps(run_kafka(orjson.loads(sys.argv[2]))) + b"\n")
        sys.stdout.flush()
        os._exit(0)
    ap = argparse.ArgumentParser()
    ap.add_argument("log_dir")
    ap.add_argument("workload")
    ap.add_argument("--profile", help="write cProfile stats of the drained query to this file")
    ap.add_argument("--cache", type=int, help="cache.max.bytes.buffering (default: ksqlDB's 10 MB; 0: off)")
    ap.add_argument("--no-check", action="store_true", help="do not read the sink back for the final result")
    ap.add_argument("--dump", help="write the final result's canonical rows here (for diffing engines)")
    ap.add_argument("--workers", type=int, default=1, help="worker processes (ksqlpy.workers=process)")
    ap.add_argument("--pipelined", action="store_true", help="ksqlpy.commit.pipelined=true")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a property (repeatable)")
    ap.add_argument("--batches", action="store_true",
                    help="also report every batch: [task, records, thread CPU us] (compare runs batch by batch)")
    args = ap.parse_args(argv)
    sys.stdout.buffer.write(orjson.dumps(run(args.log_dir, args.workload, args.profile, cache=args.cache,
                                             check=not args.no_check, dump=args.dump,
                                             workers=args.workers, pipelined=args.pipelined,
                                             settings=dict(kv.split("=", 1) for kv in args.set),
                                             batches=args.batches)) + b"\n")
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown (nothing left to flush)


if __name__ == "__main__":
    main()
