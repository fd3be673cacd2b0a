"""What handing Arrow columns from Python workers to Spark's JVM costs, per record and per run: the native
tier's crossing (``ksqlpy/backfill/native.py``) measured apart from decoding.

    python -m bench.backfill_transfer [--sizes 200000,800000] [--repeat 2] [--report FILE.json]
    python -m bench.backfill_transfer --tiers python,native [--sizes ...]   # the whole tumbling COUNT/SUM

``--tiers``: instead, the benchmark's tumbling COUNT/SUM (``bench.backfill``) backfilled on each tier and
replayed on streaming, each size ``repeat`` times on one warm session, with the same split per process
(driver, JVM, Python workers): the per-record slope is what a long history costs, the fixed part what
every run pays.

Python workers build item batches of the native tier's schema (part, kind, key bytes, window start,
timestamp, sequence, headers, one long argument) from numpy - no decoding, so the Python side costs only
the Arrow build - and hand them to the JVM two ways:

* ``datasource``: a Python DataSource whose ``read`` yields ``pyarrow.RecordBatch`` (what the native tier
  uses today);
* ``map_in_arrow``: ``spark.range(tasks).mapInArrow(...)``, one row per task in, the batches out.

For each, two queries: ``count()`` (the crossing alone) and the native tier's ``groupBy(part, kind, kb,
ws)`` with count/sum/max/max_by (crossing plus Spark's aggregation and shuffle). CPU seconds of the JVM and
of the Python workers (``/proc``) at two sizes give the per-record slope and the per-run fixed cost:
``slope = (cpu(large) - cpu(small)) / (large - small)``, ``fixed = cpu(small) - slope * small``. CPU, not
time, is the figure on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from bench.backfill import _jvm_pid, cpu_by_process

SCHEMA = ("part int, kind byte, kb binary, ws long, ts long, seq long, hd binary, a0 long")
_BATCH = 20_000
_GROUPS = 5_000  # distinct keys per task: what a tumbling window's groups look like after assignment


def items(part: int, n: int) -> Iterator[pa.RecordBatch]:
    """``n`` items of the native tier's schema for one task partition, in Arrow batches."""
    import numpy as np

    arrow_schema = pa.schema([("part", pa.int32()), ("kind", pa.int8()), ("kb", pa.binary()), ("ws", pa.int64()),
                              ("ts", pa.int64()), ("seq", pa.int64()), ("hd", pa.binary()), ("a0", pa.int64())])
    keys = pa.array([f"k{i:06d}".encode() for i in range(_GROUPS)], pa.binary())
    for start in range(0, n, _BATCH):
        m = min(_BATCH, n - start)
        seq = np.arange(start, start + m, dtype=np.int64)
        ts = 1_000 + seq * 10
        yield pa.RecordBatch.from_arrays([
            pa.array(np.full(m, part, np.int32)), pa.array(np.zeros(m, np.int8)),
            keys.take(pa.array(seq % _GROUPS)), pa.array(ts - ts % 60_000), pa.array(ts), pa.array(seq),
            pa.nulls(m, pa.binary()), pa.array(seq % 1000)], schema=arrow_schema)


def _datasource(spark: Any, tasks: int, n: int) -> Any:
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

    class Reader(DataSourceReader):
        def __init__(self, options: dict[str, str]) -> None:
            self.tasks, self.n = int(options["tasks"]), int(options["n"])

        def partitions(self) -> list[InputPartition]:
            return [InputPartition(i) for i in range(self.tasks)]

        def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
            yield from items(partition.value, self.n)

    class Source(DataSource):
        @classmethod
        def name(cls) -> str:
            return "ksqlpy-transfer-probe"

        def schema(self) -> str:
            return SCHEMA

        def reader(self, schema: Any) -> DataSourceReader:
            return Reader(dict(self.options))

    spark.dataSource.register(Source)
    return spark.read.format("ksqlpy-transfer-probe").option("tasks", str(tasks)).option("n", str(n)).load()


def _map_in_arrow(spark: Any, tasks: int, n: int) -> Any:
    def gen(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for b in batches:
            for part in b.column(0).to_pylist():
                yield from items(int(part), n)

    return spark.range(0, tasks, 1, tasks).mapInArrow(gen, SCHEMA)


def _aggregated(df: Any) -> Any:
    from pyspark.sql import functions as F

    return df.groupBy("part", "kind", "kb", "ws").agg(
        F.count(F.lit(1)).alias("r0"), F.sum("a0").alias("r1"), F.max("ts").alias("ts"), F.max("seq").alias("seq"),
        F.max_by("hd", "seq").alias("hd"))


def measure(spark: Any, way: str, query: str, tasks: int, n: int) -> dict[str, float]:
    """CPU seconds per process for one run of ``way`` x ``query`` over ``tasks`` x ``n`` items."""
    jvm = _jvm_pid()
    df = (_datasource if way == "datasource" else _map_in_arrow)(spark, tasks, n)
    if query == "aggregate":
        df = _aggregated(df)
    before = cpu_by_process(jvm)
    df.count() if query == "count" else df.write.format("noop").mode("overwrite").save()
    after = cpu_by_process(jvm)
    return {k: after[k] - before[k] for k in before}


def run(sizes: list[int], repeat: int, tasks: int = 2, log: Any = print) -> dict[str, Any]:
    from ksqlpy.backfill.native import SESSION_SETTINGS
    from ksqlpy.backfill.session import spark_session

    spark = spark_session("local[2]", {"spark.sql.shuffle.partitions": "2", **SESSION_SETTINGS})
    spark.sparkContext.setLogLevel("ERROR")
    out: dict[str, Any] = {"load_average": round(os.getloadavg()[0], 2), "tasks": tasks, "sizes": sizes, "results": []}
    for way in ("datasource", "map_in_arrow"):
        for query in ("count", "aggregate"):
            measure(spark, way, query, tasks, sizes[0] // tasks)  # warm: the JIT, the workers
            per_size: dict[int, dict[str, float]] = {}
            for size in sizes:
                runs = [measure(spark, way, query, tasks, size // tasks) for _ in range(repeat)]
                per_size[size] = {k: min(r[k] for r in runs) for k in runs[0]}  # least disturbed run
            small, large = sizes[0], sizes[-1]
            row: dict[str, Any] = {"way": way, "query": query}
            for k in ("jvm", "python_workers"):
                slope = (per_size[large][k] - per_size[small][k]) / (large - small)
                row[f"{k}_us_per_record"] = round(slope * 1e6, 2)
                row[f"{k}_fixed_cpu_s"] = round(per_size[small][k] - slope * small, 2)
                row[f"{k}_cpu_s"] = {str(s): round(v[k], 2) for s, v in per_size.items()}
            out["results"].append(row)
            log(json.dumps(row))
    return out


def tiers(sizes: list[int], repeat: int, names: list[str], log: Any = print) -> dict[str, Any]:
    """The tumbling COUNT/SUM per tier (and streaming) at each size: CPU per process, slope and fixed."""
    import shutil
    import tempfile

    from bench.backfill import WORKLOADS, bids, prepare, tree_cpu_seconds
    from ksqlpy.backfill import backfill
    from ksqlpy.backfill.native import SESSION_SETTINGS
    from ksqlpy.backfill.session import spark_session

    w = next(w for w in WORKLOADS if w.name == "tumbling_count_sum")
    spark = spark_session("local[2]", {"spark.sql.shuffle.partitions": "2", **SESSION_SETTINGS})
    spark.sparkContext.setLogLevel("ERROR")
    plain = bids(max(sizes), 42)
    root = tempfile.mkdtemp(prefix="bench-transfer-")
    out: dict[str, Any] = {"load_average": round(os.getloadavg()[0], 2), "sizes": sizes, "results": []}

    def one(name: str, size: int, i: int) -> dict[str, float]:
        eng = prepare(os.path.join(root, f"{name}-{size}-{i}"), plain[:size], None if name == "streaming" else name)
        try:
            if name == "streaming":
                c0 = tree_cpu_seconds()
                eng.execute(w.sql, {"auto.offset.reset": "earliest"})
                eng.drain(3600)
                return {"driver": tree_cpu_seconds() - c0, "jvm": 0.0, "python_workers": 0.0}
            jvm = _jvm_pid()
            before = cpu_by_process(jvm)
            backfill(eng, w.sql, spark=spark)
            after = cpu_by_process(jvm)
            return {k: after[k] - before[k] for k in before}
        finally:
            eng.close()
            shutil.rmtree(os.path.join(root, f"{name}-{size}-{i}"), ignore_errors=True)

    try:
        for name in ["streaming", *names]:
            one(name, sizes[0], -1)  # warm: the JIT, the workers, the imports
            per_size = {}
            for size in sizes:
                runs = [one(name, size, i) for i in range(repeat)]
                per_size[size] = {k: min(r[k] for r in runs) for k in runs[0]}
            small, large = sizes[0], sizes[-1]
            row: dict[str, Any] = {"tier": name}
            for k in ("driver", "jvm", "python_workers"):
                slope = (per_size[large][k] - per_size[small][k]) / (large - small)
                row[f"{k}_us_per_record"] = round(slope * 1e6, 2)
                row[f"{k}_fixed_cpu_s"] = round(per_size[small][k] - slope * small, 2)
            row["cpu_us_per_record_at"] = {str(s): round(sum(v.values()) / s * 1e6, 2) for s, v in per_size.items()}
            out["results"].append(row)
            log(json.dumps(row))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.backfill_transfer")
    ap.add_argument("--sizes", default="200000,800000")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--tiers", help="python,native: the whole tumbling COUNT/SUM per tier instead")
    ap.add_argument("--report")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    report = (tiers(sizes, args.repeat, args.tiers.split(",")) if args.tiers else run(sizes, args.repeat))
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
