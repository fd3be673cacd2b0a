"""The workloads as Flink SQL jobs on a PyFlink local mini-cluster (run in bench/.venvs/flink, not our env).

``python flink_job.py CONFIG_JSON``. One process per measurement: the PyFlink driver starts the JVM
(``startup_seconds``: process start until the table environment answers), runs the same query over a
small input twice (the first run loads and compiles Flink's classes; the second is
``job_fixed_seconds``, Flink's per-job cost on a warm JVM - planning, job submission, task deployment,
finishing), then over the whole input.
Sources are Flink's filesystem connector with the JSON format over the bids (auctions, persons) exported
as JSON lines, one file per reader; event time is ``date_time`` with a watermark at the latest
timestamp (every file is in event order). Sinks are the filesystem connector with JSON (append-only
results) or Debezium JSON (a changelog: the unbounded GROUP BY), or ``blackhole`` (Flink's own cost
without writing). Configuration as nexmark-flink runs it: mini-batch (2 s / 50,000 records) with local-
global aggregation, object reuse; no checkpoints (heap state).

Figures: ``seconds`` and ``cpu_seconds`` are the whole job's minus the small job's (the per-job fixed
cost subtracted, as the per-record rate is what compares); the raw job figures are ``job_seconds`` and
``job_cpu_seconds``. CPU is the whole process tree (the Python driver and the JVM). After the clock the
sink's files are read back into the workload's final result (``bench.final_results``). Prints one JSON
object.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from typing import Any

from bench.final_results import Result
from bench.proc_tree import process_age_s, tree_cpu_seconds, tree_peak_rss_mb
from bench.workloads import WORKLOADS

COLUMNS = {
    "bid": "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, date_time BIGINT, "
           "extra STRING",
    "auction": "id BIGINT, item_name STRING, description STRING, initial_bid BIGINT, reserve BIGINT, "
               "date_time BIGINT, expires BIGINT, seller BIGINT, category BIGINT, extra STRING",
    "person": "id BIGINT, name STRING, email_address STRING, credit_card STRING, city STRING, state STRING, "
              "date_time BIGINT, extra STRING",
}

# epoch milliseconds of a window bound (the bounds here are whole seconds: TUMBLE/HOP of whole seconds)
MS = "UNIX_TIMESTAMP(CAST({} AS STRING)) * 1000"
WS, WE = MS.format("window_start"), MS.format("window_end")
BIDS = "auction, bidder, price, channel, url, date_time, extra"

# workload -> (sink columns, changelog?, SELECT over {bid} {auction} {person}); the SELECTs are Nexmark's Flink SQL, shaped like the
# ksqlDB statements of bench/workloads.py where the dialects differ (noted there)
QUERIES: dict[str, tuple[str, bool, str]] = {
    "q0": (COLUMNS["bid"], False, f"SELECT {BIDS} FROM {{bid}}"),
    "q1": ("auction BIGINT, bidder BIGINT, price BIGINT, date_time BIGINT, extra STRING", False,
           "SELECT auction, bidder, price * 908 / 1000, date_time, extra FROM {bid}"),
    "q2": ("auction BIGINT, price BIGINT", False, "SELECT auction, price FROM {bid} WHERE MOD(auction, 123) = 0"),
    "q5": ("auction BIGINT, window_start BIGINT, window_end BIGINT, num BIGINT", False,
           f"SELECT auction, {WS}, {WE}, COUNT(*) FROM TABLE(HOP(TABLE {{bid}}, DESCRIPTOR(dt), INTERVAL '2' SECOND, "
           "INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end"),
    "q7": ("auction BIGINT, window_start BIGINT, window_end BIGINT, max_price BIGINT", False,
           f"SELECT auction, {WS}, {WE}, MAX(price) FROM TABLE(TUMBLE(TABLE {{bid}}, DESCRIPTOR(dt), "
           "INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end"),
    # ksqlDB's session bounds are the first and last record's times (Flink's end adds the gap)
    "q11": ("bidder BIGINT, window_start BIGINT, window_end BIGINT, bid_count BIGINT", False,
            "SELECT bidder, MIN(date_time), MAX(date_time), COUNT(*) FROM TABLE(SESSION(TABLE {bid} PARTITION BY "
            "bidder, DESCRIPTOR(dt), INTERVAL '10' SECOND)) GROUP BY bidder, window_start, window_end"),
    "q14": ("auction BIGINT, bidder BIGINT, price BIGINT, bid_time_type STRING, date_time BIGINT, extra STRING, "
            "c_counts INT", False,
            "SELECT auction, bidder, price * 908 / 1000, CASE WHEN MOD(date_time / 3600000, 24) >= 8 AND "
            "MOD(date_time / 3600000, 24) <= 18 THEN 'dayTime' WHEN MOD(date_time / 3600000, 24) <= 6 OR "
            "MOD(date_time / 3600000, 24) >= 20 THEN 'nightTime' ELSE 'otherTime' END, date_time, extra, "
            "CHAR_LENGTH(extra) - CHAR_LENGTH(REPLACE(extra, 'c', '')) FROM {bid} "
            "WHERE price * 908 / 1000 > 1000000 AND price * 908 / 1000 < 50000000"),
    "q17": ("auction BIGINT, `day` STRING, total_bids BIGINT, rank1_bids BIGINT, rank2_bids BIGINT, rank3_bids BIGINT, "
            "min_price BIGINT, max_price BIGINT, avg_price DOUBLE, sum_price BIGINT", True,
            "SELECT auction, DATE_FORMAT(dt, 'yyyy-MM-dd'), COUNT(*), COUNT(*) FILTER (WHERE price < 10000), "
            "COUNT(*) FILTER (WHERE price >= 10000 AND price < 1000000), COUNT(*) FILTER (WHERE price >= 1000000), "
            "MIN(price), MAX(price), AVG(CAST(price AS DOUBLE)), SUM(price) FROM {bid} "
            "GROUP BY auction, DATE_FORMAT(dt, 'yyyy-MM-dd')"),
    "q21": ("auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, channel_id STRING", False,
            "SELECT auction, bidder, price, channel, CASE WHEN LOWER(channel) = 'apple' THEN '0' "
            "WHEN LOWER(channel) = 'google' THEN '1' WHEN LOWER(channel) = 'facebook' THEN '2' "
            "WHEN LOWER(channel) = 'baidu' THEN '3' ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) END "
            "FROM {bid} WHERE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) IS NOT NULL "
            "OR LOWER(channel) IN ('apple', 'google', 'facebook', 'baidu')"),
    "q22": ("auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, dir1 STRING, dir2 STRING, dir3 STRING",
            False, "SELECT auction, bidder, price, channel, SPLIT_INDEX(url, '/', 3), SPLIT_INDEX(url, '/', 4), "
                   "SPLIT_INDEX(url, '/', 5) FROM {bid}"),
    "q3": ("seller BIGINT, name STRING, city STRING, state STRING, id BIGINT", False,
           "SELECT A.seller, P.name, P.city, P.state, A.id FROM {auction} AS A INNER JOIN {person} AS P "
           "ON A.seller = P.id WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')"),
    "q8": ("id BIGINT, name STRING, starttime BIGINT", False,
           "SELECT P.id, P.name, " + MS.format("P.starttime") + " FROM "
           "(SELECT id, name, window_start AS starttime, window_end AS endtime FROM TABLE(TUMBLE(TABLE {person}, "
           "DESCRIPTOR(dt), INTERVAL '10' SECOND)) GROUP BY id, name, window_start, window_end) P JOIN "
           "(SELECT seller, window_start AS starttime, window_end AS endtime FROM TABLE(TUMBLE(TABLE {auction}, "
           "DESCRIPTOR(dt), INTERVAL '10' SECOND)) GROUP BY seller, window_start, window_end) A "
           "ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime"),
    # the auction as of the bid's time (an event-time temporal join): ksqlDB's stream-table join
    "q20": ("auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, date_time BIGINT, "
            "extra STRING, item_name STRING, description STRING, initial_bid BIGINT, reserve BIGINT, "
            "a_date_time BIGINT, expires BIGINT, seller BIGINT, category BIGINT, a_extra STRING", False,
            "SELECT B.auction, B.bidder, B.price, B.channel, B.url, B.date_time, B.extra, A.item_name, "
            "A.description, A.initial_bid, A.reserve, A.date_time, A.expires, A.seller, A.category, A.extra "
            "FROM {bid} AS B JOIN {auction_v} FOR SYSTEM_TIME AS OF B.dt AS A ON B.auction = A.id "
            "WHERE A.category = 10"),
}

TUNING = {"table.exec.mini-batch.enabled": "true", "table.exec.mini-batch.allow-latency": "2s",
          "table.exec.mini-batch.size": "50000", "table.optimizer.agg-phase-strategy": "TWO_PHASE",
          "table.optimizer.distinct-agg.split.enabled": "true", "pipeline.object-reuse": "true",
          "table.local-time-zone": "UTC"}


def _env(parallelism: int) -> Any:
    from pyflink.table import EnvironmentSettings, TableEnvironment

    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    conf = env.get_config()
    conf.set("parallelism.default", str(parallelism))
    for k, v in TUNING.items():
        conf.set(k, v)
    return env


def _run_job(env: Any, workload: str, data: str, out: str, sink: str, tag: str) -> tuple[float, float]:
    """Create the tables over ``data`` (a directory per topic) and run the workload into ``out``; wall and
    process-tree CPU seconds of the job (from submitting the INSERT until it has finished)."""
    w = WORKLOADS[workload]
    for topic in w.inputs:
        env.execute_sql(f"CREATE TEMPORARY TABLE {topic}_{tag} ({COLUMNS[topic]}, dt AS TO_TIMESTAMP_LTZ(date_time, 3), "
                        f"WATERMARK FOR dt AS dt) WITH ('connector' = 'filesystem', "
                        f"'path' = '{os.path.join(data, topic)}', 'format' = 'json')")
    if workload == "q20":
        # the auction as a versioned table, each version valid from its own time: Flink's temporal join
        # sees a version of the bid's own time, as ksqlpy's join task, which takes the table side first at
        # equal timestamps (as Kafka Streams does)
        env.execute_sql(f"CREATE TEMPORARY TABLE auction_v_{tag} ({COLUMNS['auction']}, dt AS TO_TIMESTAMP_LTZ("
                        "date_time, 3), WATERMARK FOR dt AS dt, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                        f"'connector' = 'filesystem', 'path' = '{os.path.join(data, 'auction')}', 'format' = 'json')")
    columns, changelog, select = QUERIES[workload]
    if sink == "blackhole":
        props = "'connector' = 'blackhole'"
    else:
        fmt = "debezium-json" if changelog else "json"
        props = f"'connector' = 'filesystem', 'path' = '{out}', 'format' = '{fmt}'"
    env.execute_sql(f"CREATE TEMPORARY TABLE sink_{tag} ({columns}) WITH ({props})")
    sql = select.format(**{t: f"{t}_{tag}" for t in ("bid", "auction", "person", "auction_v")})
    c0, t0 = tree_cpu_seconds(), time.perf_counter()
    env.execute_sql(f"INSERT INTO sink_{tag} {sql}").wait()
    return time.perf_counter() - t0, tree_cpu_seconds() - c0


def read_result(workload: str, out: str, dump: str | None = None) -> tuple[int, dict[str, Any]]:
    """Output records and the final result of the sink's files (JSON rows, or Debezium's before/after)."""
    spec = WORKLOADS[workload].result
    res = Result(spec.kind, spec.columns, spec.key)
    changelog = QUERIES[workload][1]
    n = 0
    for root, _, files in os.walk(out):
        for name in files:
            if name.startswith("."):
                continue
            with open(os.path.join(root, name), "rb") as f:
                for line in f:
                    rec = json.loads(line)
                    n += 1
                    if not changelog:
                        res.add(rec)
                    elif rec["op"] in ("c", "r", "u"):
                        res.add(rec["after"])
                    else:
                        res.retract(rec["before"])
    if dump:
        res.dump(dump)
    return n, res.summary()


def main(cfg: dict[str, Any]) -> dict[str, Any]:
    env = _env(cfg["parallelism"])
    env.execute_sql("SELECT 1").collect().close()
    startup = process_age_s()
    out = cfg["out"]
    shutil.rmtree(out, ignore_errors=True)
    # the first job on a JVM also loads and compiles Flink's classes: run the small job twice, the
    # second one is the per-job fixed cost of a warm JVM
    _run_job(env, cfg["workload"], cfg["warm"], os.path.join(out, "warm0"), cfg["sink"], "warm0")
    fixed_s, fixed_cpu = _run_job(env, cfg["workload"], cfg["warm"], os.path.join(out, "warm"), cfg["sink"], "warm")
    job_s, job_cpu = _run_job(env, cfg["workload"], cfg["data"], os.path.join(out, "main"), cfg["sink"], "main")
    result: dict[str, Any] = {
        "records": cfg["records"], "seconds": max(job_s - fixed_s, 1e-3), "cpu_seconds": max(job_cpu - fixed_cpu, 1e-3),
        "job_seconds": round(job_s, 3), "job_cpu_seconds": round(job_cpu, 3),
        "job_fixed_seconds": round(fixed_s, 3), "job_fixed_cpu_seconds": round(fixed_cpu, 3),
        "startup_seconds": round(startup, 3), "peak_rss_mb": tree_peak_rss_mb(), "parallelism": cfg["parallelism"],
        # with the fixed cost subtracted, what remains of a job under twice that cost is mostly noise
        "too_short": job_s < 2 * fixed_s,
    }
    if cfg["sink"] != "blackhole":
        result["outputs"], result["final"] = read_result(cfg["workload"], os.path.join(out, "main"), cfg.get("dump"))
    shutil.rmtree(out, ignore_errors=True)
    return result


if __name__ == "__main__":
    res = main(json.loads(sys.argv[1]))
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
    os._exit(0)  # the JVM gateway would otherwise be shut down politely (seconds)
