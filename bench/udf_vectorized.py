"""``python -m bench.udf_vectorized [--records N] [--repeat R] [--profile]``: a vectorized Python function
against its row form, per record, in the generated stage of a query and in the whole query.

Functions: a one-operation product and a short arithmetic formula, each as a row function (plain Python
per record), a vectorized function over lists (plain Python per batch) and a vectorized function over NumPy
arrays (``vectorized="numpy"``). All figures are CPU time (``process_time``, so other processes on a shared
machine count less than in wall time), the best of ``--repeat`` rounds, every variant once per round.

* **stage**: the stateless stage of ``SELECT K, <expr> FROM S`` compiled by the engine's code generator
  (``ksqlpy.plan.codegen``) over the same decoded batches (``--batch`` records, the reader's batch size),
  as the engine builds it (the vectorized forms and the bare column without a per-record loop, the row
  form with one) and forced into the per-record loop (``StageSpec(columnar=False)``); the function's cost
  in the stage is the stage's time minus that of the bare column's stage of the same form, per record
  ("in loop": both forced into the loop).
* **call alone**: the function's own cost per record outside the pipeline - the row form called once per
  record, the batch form once per batch, on the same argument lists.
* **read + stage**: the JSON records decoded by the query's reader (``SourceReader.decode``: the KAFKA key and
  the JSON value) and run through the stage, as the engine runs them (a stage without a per-record loop
  reads the batch as columns, ``ksqlpy.plan.column_rows``) and with the reader forced to row tuples.
* **query**: ``CREATE STREAM ... AS SELECT K, <expr> AS V FROM S`` on an embedded log of ``--query-records``
  JSON records, a fresh engine per variant, from the statement until ``Engine.drain`` finds no input left
  (decode, the stage, encode, produce and commit); the function's cost is again the difference to the bare
  column.

``--profile`` prints where the row form's time goes in the stage and in the query (cProfile).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import pstats
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import orjson

FUNCTIONS = '''
import math

import numpy as np

from ksqlpy.udf import udf


@udf("MUL_ROW")
def mul_row(x: float, y: float) -> float:
    return x * y


@udf("MUL_LIST", vectorized=True)
def mul_list(x: float, y: float) -> float:
    return [a * b for a, b in zip(x, y, strict=True)]


@udf("MUL_NUMPY", vectorized="numpy")
def mul_numpy(x: float, y: float) -> float:
    return x * y


@udf("FORMULA_ROW")
def formula_row(x: float, y: float) -> float:
    return math.sqrt(x * x + y * y) * 0.5 + x / (y + 1.0) - 3.0


@udf("FORMULA_LIST", vectorized=True)
def formula_list(x: float, y: float) -> float:
    sqrt = math.sqrt
    return [sqrt(a * a + b * b) * 0.5 + a / (b + 1.0) - 3.0 for a, b in zip(x, y, strict=True)]


@udf("FORMULA_NUMPY", vectorized="numpy")
def formula_numpy(x: float, y: float) -> float:
    return np.sqrt(x * x + y * y) * 0.5 + x / (y + 1.0) - 3.0
'''

VARIANTS = [
    ("bare columns", "X"),
    ("x * y, row", "MUL_ROW(X, Y)"),
    ("x * y, vectorized (lists)", "MUL_LIST(X, Y)"),
    ("x * y, vectorized (NumPy)", "MUL_NUMPY(X, Y)"),
    ("formula, row", "FORMULA_ROW(X, Y)"),
    ("formula, vectorized (lists)", "FORMULA_LIST(X, Y)"),
    ("formula, vectorized (NumPy)", "FORMULA_NUMPY(X, Y)"),
]


def _stage(registry: Any, expr: str, columnar: bool = True) -> Any:
    from ksqlpy import types as T
    from ksqlpy.expr.binder import bind
    from ksqlpy.expr.scope import Scope
    from ksqlpy.expr.stages import BindContext
    from ksqlpy.grammar import parse_expression
    from ksqlpy.plan.codegen import StageSpec, build_stateless
    from ksqlpy.plan.logical import ColumnRole, OutputColumn, RowSchema, SchemaColumn

    schema = RowSchema([SchemaColumn("K", T.STRING, ColumnRole.KEY), SchemaColumn("X", T.DOUBLE, ColumnRole.VALUE),
                        SchemaColumn("Y", T.DOUBLE, ColumnRole.VALUE),
                        SchemaColumn("ROWTIME", T.BIGINT, ColumnRole.SYSTEM)])
    scope = Scope.of([(c.name, c.type) for c in schema.columns])
    outputs = [[OutputColumn("K", T.STRING, bind(parse_expression("K"), scope, BindContext(registry)))],
               [OutputColumn("V", T.DOUBLE, bind(parse_expression(expr), scope, BindContext(registry)))]]
    return build_stateless(StageSpec(schema, None, None, schema, [], outputs, registry, columnar=columnar))


def measure(records: int, batch: int, repeat: int) -> list[dict[str, Any]]:
    from ksqlpy.udf.loader import FunctionSources, load_functions

    with tempfile.TemporaryDirectory(prefix="ksqlpy-bench-udf-") as tmp:
        (Path(tmp) / "bench_functions.py").write_text(textwrap.dedent(FUNCTIONS))
        registry = load_functions(FunctionSources(extension_dir=tmp, entry_points=False))
        batches = []
        for start in range(0, records, batch):
            rows = [("k", float(i % 1000) + 0.5, float(i % 7) + 1.25) for i in range(start, min(records, start + batch))]
            n = len(rows)
            batches.append((rows, [0] * n, [0] * n, list(range(n)), [None] * n, [False] * n))
        # each variant as the engine builds it, and forced into the per-record loop (``columnar=False``)
        stages = [(label, expr, _stage(registry, expr), _stage(registry, expr, columnar=False))
                  for label, expr in VARIANTS]
        best = {(label, loop): float("inf") for label, _ in VARIANTS for loop in (False, True)}
        gc.disable()  # as the runtime runs a batch
        try:
            for _ in range(repeat):  # rounds over every variant: a load spike hits them all, the minimum wins
                for label, _, built, looped in stages:
                    for loop, stage in ((False, built), (True, looped)):
                        t0 = time.process_time()
                        for rows, tss, parts, offs, hdrs, tombs in batches:
                            stage(rows, tss, parts, offs, hdrs, tombs, [], None)
                        best[label, loop] = min(best[label, loop], time.process_time() - t0)
        finally:
            gc.enable()
        results = [{"variant": label, "expr": expr, "loop_free": "out.extend(" in built.source,
                    "ns_per_record": best[label, False] / records * 1e9,
                    "loop_ns_per_record": best[label, True] / records * 1e9}
                   for label, expr, built, _ in stages]
        calls = _calls_alone(registry, batches, repeat)
    bare = results[0]
    for r in results:
        # the function's cost: the stage minus the bare column's stage of the same form (a loop-free stage
        # against the loop-free bare stage, a loop against the loop), and both forced into the loop
        r["function_ns_per_record"] = r["ns_per_record"] - (
            bare["ns_per_record"] if r["loop_free"] else bare["loop_ns_per_record"])
        r["loop_function_ns_per_record"] = r["loop_ns_per_record"] - bare["loop_ns_per_record"]
        r["call_ns_per_record"] = calls.get(r["expr"])
    return results


def measure_read_and_stage(records: int, batch: int, repeat: int) -> dict[tuple[str, bool], float]:
    """CPU ns per record of reading the JSON records (key and value, ``SourceReader.decode``) and running the
    stage on them, for every variant: ``(label, True)`` as the engine runs it (a stage without a per-record
    loop reads columns, ``ColumnRows``), ``(label, False)`` with the reader forced to row tuples."""
    from ksqlpy.engine import Engine
    from ksqlpy.log.base import RecordBatch
    from ksqlpy.runtime.processing_log import ProcessingLog
    from ksqlpy.runtime.reader import SourceReader

    best = {(label, columns): float("inf") for label, _ in VARIANTS for columns in (True, False)}
    with tempfile.TemporaryDirectory(prefix="ksqlpy-bench-udf-") as tmp:
        ext = Path(tmp) / "ext"
        ext.mkdir()
        (ext / "bench_functions.py").write_text(textwrap.dedent(FUNCTIONS))
        engine = Engine(str(Path(tmp) / "d"), {"ksql.extension.dir": str(ext)})
        try:
            engine.execute("CREATE STREAM S (K STRING KEY, X DOUBLE, Y DOUBLE) "
                           "WITH (KAFKA_TOPIC='s', KEY_FORMAT='KAFKA', VALUE_FORMAT='JSON', PARTITIONS=1);")
            source = engine.catalog.source("S")
            registry = engine.functions
            plog = ProcessingLog()
            batches = []
            for start in range(0, records, batch):
                n = min(records, start + batch) - start
                batches.append(RecordBatch(
                    "s", 0, list(range(start, start + n)), [b"k%d" % (i % 100) for i in range(start, start + n)],
                    [orjson.dumps({"X": float(i % 1000) + 0.5, "Y": float(i % 7) + 1.25})
                     for i in range(start, start + n)], [0] * n, [None] * n))
            runs = []
            for label, expr in VARIANTS:
                stage = _stage(registry, expr)
                for columns in (True, False):
                    reader = SourceReader(source, engine.key_serde(source), engine.value_serde(source), plog, "Q",
                                          keep_tombstones=False)
                    reader.columnar = columns and stage.columnar  # as the engine wires it (or forced to rows)
                    runs.append(((label, columns), reader, stage))
            gc.disable()
            try:
                for _ in range(repeat):
                    for key, reader, stage in runs:
                        t0 = time.process_time()
                        for b in batches:
                            d = reader.decode(b)
                            stage(d.rows, d.timestamps, d.partitions, d.offsets, d.headers, d.tombstones, [], None)
                        best[key] = min(best[key], time.process_time() - t0)
            finally:
                gc.enable()
        finally:
            engine.close()
    return {k: v / records * 1e9 for k, v in best.items()}


def _calls_alone(registry: Any, batches: list[tuple], repeat: int) -> dict[str, float]:
    """The function's own cost per record, outside the pipeline: the row form called once per record over
    the argument lists, the vectorized form once per batch on them (what the engine passes either form)."""
    from ksqlpy import types as T

    columns = [([r[1] for r in rows], [r[2] for r in rows]) for rows, *_ in batches]
    n = sum(len(x) for x, _ in columns)
    out: dict[str, float] = {}
    for _, expr in VARIANTS[1:]:
        name = expr.split("(")[0]
        resolved = registry.scalars[name].resolve([T.DOUBLE, T.DOUBLE])
        best = float("inf")
        for _ in range(repeat):
            t0 = time.process_time()
            if resolved.batch_impl is not None:
                for x, y in columns:
                    resolved.batch_impl(x, y)
            else:
                impl = resolved.impl
                for x, y in columns:
                    for a, b in zip(x, y, strict=True):
                        impl(a, b)
            best = min(best, time.process_time() - t0)
        out[expr] = best / n * 1e9
    return out


def _cpu() -> float:
    return time.process_time()


def measure_queries(records: int, repeat: int, profile: bool = False) -> tuple[dict[str, float], str | None]:
    """CPU per record of ``CREATE STREAM ... AS SELECT K, <expr> AS V FROM S`` for every variant, from the
    statement until the engine has no input left; a fresh engine (own state) per run, one shared log.
    With ``profile``: the cProfile summary of one run of the row form of the formula."""
    from ksqlpy.engine import Engine
    from ksqlpy.log import EmbeddedLog

    best = {label: float("inf") for label, _ in VARIANTS}
    report = None
    with tempfile.TemporaryDirectory(prefix="ksqlpy-bench-udf-") as tmp:
        ext = Path(tmp) / "ext"
        ext.mkdir()
        (ext / "bench_functions.py").write_text(textwrap.dedent(FUNCTIONS))
        log = EmbeddedLog(Path(tmp) / "log")
        log.create_topic("s", 1)
        keys = [b"k%d" % (i % 100) for i in range(records)]
        values = [orjson.dumps({"X": float(i % 1000) + 0.5, "Y": float(i % 7) + 1.25}) for i in range(records)]
        for start in range(0, records, 50_000):
            with log.transaction() as tx:
                tx.produce_batch("s", 0, keys[start:start + 50_000], values[start:start + 50_000],
                                 [0] * len(values[start:start + 50_000]))
        props = {"auto.offset.reset": "earliest", "ksql.extension.dir": str(ext)}
        source = ("CREATE STREAM S (K STRING KEY, X DOUBLE, Y DOUBLE) "
                  "WITH (KAFKA_TOPIC='s', KEY_FORMAT='KAFKA', VALUE_FORMAT='JSON');")
        run = 0

        def once(expr: str, prof: cProfile.Profile | None = None) -> float:
            nonlocal run
            run += 1
            with tempfile.TemporaryDirectory(prefix="ksqlpy-bench-udf-", dir=tmp) as data:
                # a log of its own (the engine closes it) on the same files; a service of its own (no
                # replay of the earlier runs' statements)
                engine = Engine(data, {**props, "ksql.service.id": f"bench_{run}_"}, log=EmbeddedLog(log.path))
                try:
                    engine.execute(source)
                    gc.collect()
                    if prof is not None:
                        prof.enable()
                    c0 = _cpu()
                    engine.execute(f"CREATE STREAM O{run} AS SELECT K, {expr} AS V FROM S;")
                    engine.drain(600)
                    c1 = _cpu()
                    if prof is not None:
                        prof.disable()
                    out = log.describe_topic(f"O{run}")
                    assert out is not None and log.end_offset(out.name, 0) == records, "the query did not finish"
                finally:
                    engine.close()
            return c1 - c0

        for _ in range(repeat):
            for label, expr in VARIANTS:
                best[label] = min(best[label], once(expr))
        if profile:
            prof = cProfile.Profile()
            once("FORMULA_ROW(X, Y)", prof)
            report = _profile_text(prof)
        log.close()
    return {label: t / records * 1e9 for label, t in best.items()}, report


def profile_stage(records: int, batch: int) -> str:
    """cProfile of the stage with the row form of the formula: where its time goes per call."""
    from ksqlpy.udf.loader import FunctionSources, load_functions

    with tempfile.TemporaryDirectory(prefix="ksqlpy-bench-udf-") as tmp:
        (Path(tmp) / "bench_functions.py").write_text(textwrap.dedent(FUNCTIONS))
        registry = load_functions(FunctionSources(extension_dir=tmp, entry_points=False))
        stage = _stage(registry, "FORMULA_ROW(X, Y)")
        prof = cProfile.Profile()
        prof.enable()
        for start in range(0, records, batch):
            rows = [("k", float(i % 1000) + 0.5, float(i % 7) + 1.25) for i in range(start, min(records, start + batch))]
            n = len(rows)
            stage(rows, [0] * n, [0] * n, list(range(n)), [None] * n, [False] * n, [], None)
        prof.disable()
    return _profile_text(prof)


def _profile_text(prof: cProfile.Profile, top: int = 14) -> str:
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(top)
    lines = buf.getvalue().splitlines()
    first = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    return "\n".join(lines[first:first + top + 1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.udf_vectorized", description=__doc__)
    ap.add_argument("--records", type=int, default=400_000, help="records through the stage")
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--query-records", type=int, default=100_000, help="records through the whole query")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--profile", action="store_true", help="print where the row form's time goes")
    args = ap.parse_args(argv)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    results = measure(args.records, args.batch, args.repeat)
    read = measure_read_and_stage(args.records, args.batch, args.repeat)
    query, report = measure_queries(args.query_records, max(1, args.repeat // 2), args.profile)
    qbase = query[VARIANTS[0][0]]
    for r in results:
        r["query_ns_per_record"] = query[r["variant"]]
        r["query_function_ns_per_record"] = query[r["variant"]] - qbase
    print("CPU ns per record. stage: as the engine builds it (loop-free: no per-record loop); function: the "
          "stage minus the bare column's stage of the same form; in loop: the function with both stages forced "
          "into the per-record loop; call: the function alone; query: decode to commit, and its function")
    print(f"{'variant':30} {'loop-free':>9} {'stage':>8} {'function':>9} {'in loop':>8} {'call':>7} {'query':>8} "
          f"{'function':>9}")
    for r in results:
        call = r["call_ns_per_record"]
        print(f"{r['variant']:30} {'yes' if r['loop_free'] else 'no':>9} {r['ns_per_record']:8.1f} "
              f"{r['function_ns_per_record']:9.1f} {r['loop_function_ns_per_record']:8.1f} "
              f"{'' if call is None else format(call, '7.1f'):>7} {r['query_ns_per_record']:8.1f} "
              f"{r['query_function_ns_per_record']:9.1f}")
    by = {r["variant"]: r for r in results}
    print("\nrow / vectorized, per record:")
    heads = ("function in the stage", "in loop", "whole stage", "call alone", "function in the query", "whole query")
    keys = ("function_ns_per_record", "loop_function_ns_per_record", "ns_per_record", "call_ns_per_record",
            "query_function_ns_per_record", "query_ns_per_record")
    print(f"{'':30} " + " ".join(f"{h:>{max(len(h), 8)}}" for h in heads))
    for fn in ("x * y", "formula"):
        row = by[f"{fn}, row"]
        for form in ("lists", "NumPy"):
            vec = by[f"{fn}, vectorized ({form})"]
            cells = [_ratio(row[k], vec[k]) for k in keys]
            print(f"{fn + ', ' + form:30} " + " ".join(f"{c:>{max(len(h), 8)}}" for c, h in zip(cells, heads, strict=True)))
    print("\nread + stage (JSON key and value decoded, then the stage), CPU ns per record: as the engine runs it "
          "(a loop-free stage reads columns) and with the reader forced to row tuples; the function: minus the "
          "bare column's read + stage")
    base = read[VARIANTS[0][0], True]
    print(f"{'variant':30} {'columns':>8} {'rows':>8} {'function':>9}")
    for label, _ in VARIANTS:
        print(f"{label:30} {read[label, True]:8.1f} {read[label, False]:8.1f} {read[label, True] - base:9.1f}")
    print(f"{'':30} " + " ".join(f"{h:>14}" for h in ("read + stage", "its function")))
    for fn in ("x * y", "formula"):
        row = read[f"{fn}, row", True]
        vec = read[f"{fn}, vectorized (NumPy)", True]
        print(f"{fn + ', NumPy':30} {_ratio(row, vec):>14} {_ratio(row - base, vec - base):>14}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    bare = by[VARIANTS[0][0]]["query_ns_per_record"]
    for fn in ("x * y", "formula"):
        row = by[f"{fn}, row"]["query_ns_per_record"]
        print(f"whole query, {fn}: a function costing nothing would make it at most {row / bare:.2f}x faster "
              f"(the row form's query / the bare column's)")
    if args.profile:
        print("\nthe stage, row form of the formula (cProfile, by own time):")
        print(profile_stage(min(args.records, 100_000), args.batch))
        print("\nthe whole query, row form of the formula (cProfile, by own time):")
        print(report)
    return 0


def _ratio(row: float, vec: float) -> str:
    return f"{row / vec:.1f}x" if vec > 0 else "n/m"  # not measurable: the vectorized cost is within noise


if __name__ == "__main__":
    sys.exit(main())
