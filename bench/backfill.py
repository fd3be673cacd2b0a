"""``python -m bench backfill [--quick] [--records N] [--master URL] [--report FILE.json]``: the Spark backfill
against streaming replay, per workload and tier, on the same Nexmark bids.

Each workload's query runs twice over identical input: by the streaming runtime reading the history from
the earliest offset (in this process), and as a backfill on Spark. Reported per workload and tier:
``records``, CPU per record of each (``streaming_cpu_us_per_record``; ``backfill_cpu_us_per_record`` over
all processes - this driver, the JVM and its Python workers - each sampled from /proc, ``TreeCpu``), wall times, Spark's
``startup_seconds`` (paid once: the session is reused by every run), the driver's peak memory during the
backfill (anonymous resident memory of this process and of the JVM, sampled every 50 ms: the LMDB files
mapped into them are not counted) and ``equal``:
the sink (a table's after collapsing updates), the state handed over, late drops and processing-log
entries identical to streaming.

CPU per record is the figure to compare on a shared machine (wall times depend on the load); the
load average at the start is in the report.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any

from ksqlpy.testing.differential import collapse
from ksqlpy.testing.differential import sink_records as sink

DDL = ("CREATE STREAM bid (auction BIGINT KEY, bidder BIGINT, price BIGINT, channel STRING, url STRING, "
       "date_time BIGINT, extra STRING) WITH (kafka_topic='bid', key_format='KAFKA', value_format='JSON', "
       "partitions=2);")


@dataclass(frozen=True)
class Workload:
    name: str
    sql: str
    table: bool
    out_of_order: bool = False


WORKLOADS = (
    Workload("filter_projection", "CREATE STREAM bf_out AS SELECT auction, bidder, price * 908 / 1000 AS price, "
             "channel FROM bid WHERE price > 1000 EMIT CHANGES;", table=False),
    Workload("tumbling_count_sum", "CREATE TABLE bf_out AS SELECT auction, COUNT(*) AS num, SUM(price) AS total "
             "FROM bid WINDOW TUMBLING (SIZE 10 SECONDS) GROUP BY auction EMIT CHANGES;", table=True),
    Workload("out_of_order_grace", "CREATE TABLE bf_out AS SELECT auction, COUNT(*) AS num, SUM(price) AS total "
             "FROM bid WINDOW TUMBLING (SIZE 2 SECONDS, GRACE PERIOD 1 SECOND) GROUP BY auction EMIT CHANGES;",
             table=True, out_of_order=True),
)
# the fused Python tier for every workload; the native tier (``ksqlpy.backfill.native``) for those it lowers
TIERS = ("python", "native")


def tiers_of(w: Workload, tiers: tuple[str, ...] = TIERS) -> list[str]:
    return [t for t in tiers if t == "python" or w.table]


@dataclass
class Result:
    workload: str
    tier: str
    records: int
    streaming_cpu_us_per_record: float
    backfill_cpu_us_per_record: float
    streaming_wall_seconds: float
    backfill_wall_seconds: float
    startup_seconds: float
    peak_driver_memory_mb: float
    peak_jvm_memory_mb: float
    driver_memory_growth_mb: float  # the driver's peak during the backfill minus its memory before it
    tasks: int
    cpu_us_per_record_by_process: dict[str, float]  # driver, jvm, python_workers (the backfill's CPU split)
    sink_records: int
    late_records: int
    processing_errors: int
    equal: bool
    differences: list[str]


# ------------------------------------------------------------------------------------------------ /proc
def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def tree_cpu_seconds(pid: int | None = None) -> float:
    """User + system CPU of a process tree, reaped children included."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for p in _tree(pid or os.getpid()):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return total / tick


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU of one process (its reaped children not included)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_by_process(jvm: int | None) -> dict[str, float]:
    """CPU seconds so far of this driver, the JVM, and the JVM's descendants (Spark's Python workers,
    reaped ones included through their parents' counts)."""
    out = {"driver": process_cpu_seconds(os.getpid()), "jvm": 0.0, "python_workers": 0.0}
    if jvm is not None:
        out["jvm"] = process_cpu_seconds(jvm)
        out["python_workers"] = tree_cpu_seconds(jvm) - out["jvm"]
    return out


class TreeCpu:
    """CPU of the driver, the JVM and the JVM's descendants (Spark's Python workers) over a window, each
    process's own user + system time sampled every 100 ms: a worker that exits inside the window keeps
    what it was last seen with (a process's count dies with it, and its parent's count of reaped children
    holds its whole life, not the window's part). The sampling thread's own CPU is taken off the driver's."""

    def __init__(self, jvm: int | None) -> None:
        self.jvm = jvm
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.own = 0.0
        self.driver = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self, initial: bool = False) -> None:
        if self.jvm is None:
            return
        for p in _tree(self.jvm):
            c = process_cpu_seconds(p)
            if not c and p not in self.last:
                continue
            self.first.setdefault(p, c if initial else 0.0)
            self.last[p] = max(c, self.last.get(p, 0.0))

    def _run(self) -> None:
        t0 = time.thread_time()
        while not self._stop.wait(0.1):
            self._sample()
        self._sample()
        self.own = time.thread_time() - t0

    def __enter__(self) -> TreeCpu:
        self._sample(initial=True)
        self.driver = process_cpu_seconds(os.getpid())
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.driver = process_cpu_seconds(os.getpid()) - self.driver - self.own

    def by_process(self) -> dict[str, float]:
        jvm = self.last.get(self.jvm, 0.0) - self.first.get(self.jvm, 0.0) if self.jvm is not None else 0.0
        workers = sum(self.last[p] - self.first[p] for p in self.last if p != self.jvm)
        return {"driver": self.driver, "jvm": jvm, "python_workers": workers}


def _anon_mb(pid: int) -> float:
    """Anonymous resident memory (heap): the log's and the stores' memory-mapped LMDB files, which count
    in the resident size of whoever reads them, are left out."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class PeakMemory:
    """The highest anonymous resident memory of some processes, sampled every 50 ms while it runs."""

    def __init__(self, *pids: int) -> None:
        self.pids = pids
        self.peaks = dict.fromkeys(pids, 0.0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            for p in self.pids:
                self.peaks[p] = max(self.peaks[p], _anon_mb(p))
            if self._stop.wait(0.05):
                return

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _jvm_pid() -> int | None:
    for p in _tree(os.getpid())[1:]:
        try:
            with open(f"/proc/{p}/comm") as f:
                if f.read().strip() == "java":
                    return p
        except OSError:
            continue
    return None


# ------------------------------------------------------------------------------------------------ input
def bids(records: int, seed: int) -> list[tuple[bytes, bytes, int]]:
    from bench.nexmark import NexmarkGenerator

    out = []
    for topic, k, v, ts in NexmarkGenerator(int(records / 0.92) + 100, seed):
        if topic == "bid":
            out.append((k, v, ts))
            if len(out) == records:
                break
    return out


def shuffled(records: list[tuple[bytes, bytes, int]], seed: int) -> list[tuple[bytes, bytes, int]]:
    """Every 10th record 0-4 s late: some within the grace period, some dropped."""
    rnd = random.Random(seed)
    return [(k, v, ts - rnd.randrange(4000) if i % 10 == 7 else ts) for i, (k, v, ts) in enumerate(records)]


def prepare(path: str, records: list[tuple[bytes, bytes, int]], tier: str | None = None) -> Any:
    from ksqlpy.backfill.native import TIER_PROPERTY
    from ksqlpy.engine.engine import Engine
    from ksqlpy.log.base import ProducerRecord

    engine = Engine(path, {TIER_PROPERTY: tier} if tier else {})
    engine.execute(DDL)
    step = 10_000
    for i in range(0, len(records), step):
        with engine.log.transaction() as tx:
            tx.produce_many([ProducerRecord("bid", k, v, ts, None, None) for k, v, ts in records[i:i + step]])
    return engine


# ------------------------------------------------------------------------------------------------ comparing
# sink() and collapse(): the differential check's readers (ksqlpy.testing.differential), one copy for both
def state(query: Any) -> dict[int, list[tuple[bytes, str]]]:
    if query.aggregation is None:
        return {}
    return {a.kv.partition: [(k, repr(v)) for k, v in a.kv.items(b"")] for a in query.aggregation.aggregators}


def late(query: Any) -> int:
    return 0 if query.aggregation is None else sum(a.late for a in query.aggregation.aggregators)


def differences(ref: Any, eng: Any, qid: str, table: bool, plog_ref: list[Any], plog_bf: list[Any]) -> list[str]:
    diffs = []
    want, got = sink(ref, "BF_OUT"), sink(eng, "BF_OUT")
    if table:
        if collapse(want) != collapse(got):
            diffs.append("sink")
    elif any([r for r in want if r[0] == p] != [r for r in got if r[0] == p] for p in {r[0] for r in want + got}):
        diffs.append("sink")
    if state(ref.queries[qid]) != state(eng.queries[qid]):
        diffs.append("state")
    if late(ref.queries[qid]) != late(eng.queries[qid]):
        diffs.append("late drops")
    if sorted(map(repr, plog_ref)) != sorted(map(repr, plog_bf)):
        diffs.append("processing log")
    return diffs


def _plog(engine: Any) -> list[Any]:
    """What the engine's processing log received (message texts)."""
    got: list[Any] = []
    inner = engine.plog._emit

    def emit(logger: str, message: Any) -> None:
        got.append((logger, message))
        inner(logger, message)

    engine.plog._emit = emit
    return got


# ------------------------------------------------------------------------------------------------ running
def run(records: int, master: str, seed: int = 42, workloads: tuple[Workload, ...] = WORKLOADS,
        log: Any = print, tiers: tuple[str, ...] = TIERS) -> dict[str, Any]:
    from ksqlpy.backfill import backfill
    from ksqlpy.backfill.session import NICE_PROPERTY, spark_session

    load = os.getloadavg()[0]
    plain = bids(records, seed)
    late_input = shuffled(plain, seed)
    t0 = time.monotonic()
    # Spark at the benchmark's own CPU priority (a server lowers it, ``ksqlpy.backfill.spark.nice``): on a loaded
    # machine a process 10 steps down is preempted far more often, and each time its caches are refilled, which
    # costs CPU per record that is not the backfill's - the comparison with streaming is at equal priority
    spark = spark_session(master, {NICE_PROPERTY: 0})
    spark.sparkContext.setLogLevel("ERROR")
    results: list[Result] = []
    root = tempfile.mkdtemp(prefix="bench-backfill-")
    try:
        # the JVM, the session, the DataSource's planning and Python workers with ksqlpy imported: what a
        # process pays once (a small backfill of each kind), reused by every later backfill
        for w in workloads:
            for tier in tiers_of(w, tiers):
                warm = prepare(os.path.join(root, f"warm-{w.name}-{tier}"), plain[:2000], tier)
                backfill(warm, w.sql, spark=spark)
                warm.close()
        startup = time.monotonic() - t0
        log(f"spark session on {master} and a first backfill: {startup:.1f} s")
        # every workload's Python tier before any native run: the native tier's Arrow workers exit some time
        # after their run, and their CPU then lands in whichever run's window their parent reaps them in
        runs = sorted(((w, tier) for w in workloads for tier in tiers_of(w, tiers)),
                      key=lambda r: tiers.index(r[1]) if r[1] in tiers else len(tiers))
        for w, tier in runs:
            data = late_input if w.out_of_order else plain
            ref = prepare(os.path.join(root, f"{w.name}-{tier}-ref"), data)
            plog_ref = _plog(ref)
            # (this process only: the streaming runtime starts no other, and Spark's workers, children of
            # the JVM in this tree, may exit meanwhile and take their counts with them)
            c0, t1 = process_cpu_seconds(os.getpid()), time.monotonic()
            ref.execute(w.sql, {"auto.offset.reset": "earliest"})
            ref.drain(24 * 3600)  # (drain's default gives up after 10 s)
            s_cpu, s_wall = process_cpu_seconds(os.getpid()) - c0, time.monotonic() - t1
            eng = prepare(os.path.join(root, f"{w.name}-{tier}-bf"), data, tier)
            plog_bf = _plog(eng)
            # Spark kills Python workers idle for a minute (the streaming replay above can take longer): a
            # worker that dies inside the measured window takes its whole CPU count with it, so the window
            # would be short of it. A small backfill of the same kind right before starts the workers anew
            warm = prepare(os.path.join(root, f"{w.name}-{tier}-rewarm"), data[:2000], tier)
            backfill(warm, w.sql, spark=spark)
            warm.close()
            jvm = _jvm_pid()
            me = os.getpid()
            before_mb = _anon_mb(me)
            with PeakMemory(*([me, jvm] if jvm else [me])) as peak, TreeCpu(jvm) as cpu:
                t1 = time.monotonic()
                res = backfill(eng, w.sql, spark=spark)
                b_wall = time.monotonic() - t1
            by = cpu.by_process()
            b_cpu = sum(by.values())
            diffs = differences(ref, eng, res.query_id, w.table, plog_ref, plog_bf)
            results.append(Result(
                w.name, tier, len(data), round(s_cpu / len(data) * 1e6, 2), round(b_cpu / len(data) * 1e6, 2),
                round(s_wall, 2), round(b_wall, 2), round(startup, 2), round(peak.peaks[me], 1),
                round(peak.peaks[jvm], 1) if jvm else 0.0, round(peak.peaks[me] - before_mb, 1),
                int(res.details.get("tasks", 0)),
                {k: round(v / len(data) * 1e6, 2) for k, v in by.items()}, res.sink_records,
                res.late_records, res.processing_errors, not diffs, diffs))
            log(json.dumps(asdict(results[-1])))
            ref.close()
            eng.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {"master": master, "records": records, "load_average": round(load, 2), "cpus": os.cpu_count(),
            "results": [asdict(r) for r in results]}


def main(args: Any) -> int:
    records = args.records or (200_000 if args.quick else 2_000_000)
    names = [n.strip() for n in args.workloads.split(",")] if args.workloads else [w.name for w in WORKLOADS]
    chosen = tuple(w for w in WORKLOADS if w.name in names)
    tiers = tuple(t.strip() for t in args.tiers.split(",")) if getattr(args, "tiers", None) else TIERS
    report = run(records, args.master, args.seed, chosen, tiers=tiers)
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=2)
    return 0 if all(r["equal"] for r in report["results"]) else 1
