"""``python -m bench backfill --online``: pull-query latency on a real server while it backfills a query on
Spark, against the same server idle (issue 16's acceptance: p99 during the backfill at most 2x idle, with
progress visible).

A ``ksqlpy server`` over a data directory holding the Nexmark bids and a small table it materializes by
streaming; one client issues key lookups on that table back to back: first with nothing else running (idle),
then while the server backfills ``CREATE STREAM ... AS SELECT`` over the bids with ``ksqlpy.backfill=spark``
(the Spark session started and warmed by a first small backfill: the steady state of a server). Meanwhile
``GET /backfills/<id>`` is read every tenth of a second: the report says how many distinct ``recordsRead`` values it
saw before DONE (progress visible) and the server's peak anonymous memory during the run.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
from typing import Any

PULL_DDL = "CREATE STREAM pq_src (k STRING KEY, v INT) WITH (KAFKA_TOPIC='pq_src', VALUE_FORMAT='JSON', PARTITIONS=2);"
PULL_TABLE = "CREATE TABLE pq AS SELECT k, COUNT(*) AS c, SUM(v) AS s FROM pq_src GROUP BY k EMIT CHANGES;"
WARM = "CREATE STREAM warm_out AS SELECT k, v FROM pq_src WHERE v > 10 EMIT CHANGES;"
BACKFILL = ("CREATE STREAM bf_online AS SELECT auction, bidder, price * 908 / 1000 AS price, channel FROM bid "
            "WHERE price > 1000 EMIT CHANGES;")
KEYS = 50


def _percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0


def _summary(lat_ms: list[float]) -> dict[str, float]:
    return {"count": len(lat_ms), "p50_ms": round(_percentile(lat_ms, 0.5), 2),
            "p99_ms": round(_percentile(lat_ms, 0.99), 2), "max_ms": round(max(lat_ms, default=0.0), 2)}


def prepare(path: str, records: int, seed: int) -> None:
    """The data directory: the bids and the small source, their DDL in the command log."""
    from bench.backfill import DDL, bids
    from ksqlpy.engine.command_log import DurableStatements
    from ksqlpy.engine.engine import Engine
    from ksqlpy.log.base import ProducerRecord

    engine = Engine(path)
    statements = DurableStatements(engine)
    statements.execute(DDL)
    statements.execute(PULL_DDL)
    data = bids(records, seed)
    for i in range(0, len(data), 10_000):
        with engine.log.transaction() as tx:
            tx.produce_many([ProducerRecord("bid", k, v, ts, None, None) for k, v, ts in data[i:i + 10_000]])
    del data
    with engine.log.transaction() as tx:
        tx.produce_many([ProducerRecord("pq_src", f"k{i % KEYS}".encode(), json.dumps({"V": i}).encode(),
                                        1_000 + i, None, None) for i in range(2_000)])
    engine.close()


class Puller:
    """Key lookups on ``pq`` back to back on one connection, recording each one's latency."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.latencies: list[float] = []
        self.phase = ""  # the backfill's phase as last read (``GET /backfills``), kept with each sample
        self.phases: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.errors = 0

    def one(self, i: int) -> None:
        t0 = time.perf_counter()
        r = self.client.post("/query", json={"ksql": f"SELECT * FROM pq WHERE k='k{i % KEYS}';",
                                             "streamsProperties": {}},
                             headers={"Accept": "application/vnd.ksql.v1+json"})
        self.latencies.append((time.perf_counter() - t0) * 1000)
        self.phases.append(self.phase)
        if r.status_code != 200 or len(r.json()) != 2:
            self.errors += 1

    def _run(self) -> None:
        i = 0
        while not self._stop.is_set():
            self.one(i)
            i += 1

    def __enter__(self) -> Puller:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _ksql(c: Any, sql: str, props: dict[str, str] | None = None) -> Any:
    r = c.post("/ksql", json={"ksql": sql, "streamsProperties": props or {}})
    if r.status_code != 200:
        raise RuntimeError(f"{sql}: {r.status_code} {r.text}")
    return r.json()


def _status(c: Any, qid: str) -> dict[str, Any]:
    return dict(c.get(f"/backfills/{qid}").json())


def _wait_done(c: Any, qid: str, timeout_s: float, on_status: Any = None, every_s: float = 0.5) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        status = _status(c, qid)
        if on_status is not None:
            on_status(status)
        if status["phase"] in ("DONE", "FAILED", "CANCELLED"):
            return status
        if time.monotonic() > deadline:
            raise TimeoutError(f"backfill {qid} not done after {timeout_s} s: {status}")
        time.sleep(every_s)


def run(records: int, master: str, seed: int = 42, idle_queries: int = 400, log: Any = print) -> dict[str, Any]:
    import httpx

    from bench.backfill import PeakMemory, _anon_mb
    from ksqlpy.testing.server_process import ServerProcess

    root = tempfile.mkdtemp(prefix="bench-backfill-online-")
    load = os.getloadavg()[0]
    try:
        prepare(root, records, seed)
        proc = ServerProcess(root, {"spark.master": master}, startup_timeout_s=120)
        proc.start()
        try:
            with httpx.Client(base_url=proc.url, timeout=120) as c:
                _ksql(c, PULL_TABLE, {"auto.offset.reset": "earliest"})
                deadline = time.monotonic() + 60
                while True:  # the table has every key before anything is measured
                    rows = c.post("/query", json={"ksql": "SELECT * FROM pq;", "streamsProperties": {}},
                                  headers={"Accept": "application/vnd.ksql.v1+json"}).json()
                    if len(rows) - 1 >= KEYS and sum(r["row"]["columns"][1] for r in rows[1:]) == 2_000:
                        break
                    if time.monotonic() > deadline:
                        raise TimeoutError("the pull-query table did not fill")
                    time.sleep(0.2)
                t0 = time.monotonic()
                warm = _ksql(c, WARM, {"ksqlpy.backfill": "spark"})[0]["commandStatus"]["queryId"]
                _wait_done(c, warm, 600)
                startup = time.monotonic() - t0
                log(f"spark session on {master} and a first backfill: {startup:.1f} s")
                idle = Puller(c)
                for i in range(idle_queries):
                    idle.one(i)
                log(f"idle: {_summary(idle.latencies)}")
                seen: list[int] = []
                during: Puller | None = None

                def progress(status: dict[str, Any]) -> None:
                    if during is not None:
                        during.phase = status["phase"]
                    if status["phase"] == "COMPUTING" and (not seen or seen[-1] != status["recordsRead"]):
                        seen.append(int(status["recordsRead"]))

                with httpx.Client(base_url=proc.url, timeout=120) as pull_client:
                    assert proc.proc is not None
                    base_mb = _anon_mb(proc.proc.pid)
                    with PeakMemory(proc.proc.pid) as peak:
                        t1 = time.monotonic()
                        qid = _ksql(c, BACKFILL, {"ksqlpy.backfill": "spark"})[0]["commandStatus"]["queryId"]
                        during = Puller(pull_client)
                        with during:
                            final = _wait_done(c, qid, 3600, progress, every_s=0.1)
                        wall = time.monotonic() - t1
                log(f"during: {_summary(during.latencies)}")
                idle_s, during_s = _summary(idle.latencies), _summary(during.latencies)
                return {
                    "master": master, "records": records, "load_average": round(load, 2), "cpus": os.cpu_count(),
                    "startup_seconds": round(startup, 2), "backfill_wall_seconds": round(wall, 2),
                    "phase": final["phase"], "sink_records": final.get("sinkRecords"),
                    "idle": idle_s, "during_backfill": during_s,
                    "p99_ratio": round(during_s["p99_ms"] / idle_s["p99_ms"], 2) if idle_s["p99_ms"] else None,
                    "during_by_phase": {ph: _summary([x for x, q in zip(during.latencies, during.phases, strict=True)
                                                      if q == ph]) for ph in dict.fromkeys(during.phases)},
                    "pull_errors": idle.errors + during.errors,
                    "progress_values_seen": len(seen), "progress_samples": seen[:20],
                    "server_peak_anon_mb": round(peak.peaks[proc.proc.pid], 1),
                    "server_anon_mb_before": round(base_mb, 1),
                }
        finally:
            proc.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(args: Any) -> int:
    records = args.records or (200_000 if args.quick else 2_000_000)
    report = run(records, args.master, args.seed)
    print(json.dumps(report, indent=2))
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=2)
    return 0 if report["phase"] == "DONE" and not report["pull_errors"] else 1
