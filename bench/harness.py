"""The benchmark run, start to end: the inputs (``bench.inputs``), every engine on every workload side by side
(``bench.engine_runs``), then the report - targets, tables, JSON and chart (``bench.report``).

Each measurement runs in a fresh process (its own CPU time and peak RSS). ksqlpy runs on the embedded
log (a private copy of the generated topics per workload); the peers and the Kafka ceiling run against
one tansu broker holding the same records; the embedded ceiling runs on the same embedded copy as
ksqlpy. Figures: records = input bids consumed, seconds = first record to last result committed,
records/s, records/s per busy core = records / CPU seconds of the engine process.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import time
from collections.abc import Callable
from typing import Any

from bench.engine_runs import (
    REPO,
    Options,
    run_ceiling_embedded,
    run_flink,
    run_kafka_side,
    run_ksqlpy,
    run_latency,
    run_pathway,
)
from bench.final_results import compare
from bench.inputs import source_log
from bench.join_reference import JOINS, explain, references
from bench.report import agreement_targets, chart, judge_rounds, machine, print_summary


def compile_bytecode(say: Callable[[str], None]) -> None:
    """Write ksqlpy's bytecode caches before measuring. An environment with PYTHONDONTWRITEBYTECODE (as
    this one's) never writes them, so every worker process compiled ksqlpy from source inside the clock
    (py-spy: ~0.1-0.3 s CPU per worker); an installed package has them. py_compile writes regardless."""
    import compileall

    if not compileall.compile_dir(os.path.join(REPO, "ksqlpy"), quiet=1, workers=1):
        say("  (some ksqlpy modules did not compile to bytecode)")


def explain_joins(agreement: list[dict[str, Any]], results: list[dict[str, Any]], src: str, opts: Options) -> None:
    """The stream-table joins whose engines disagree: what each engine's result is, against the rows the
    generated events decide (``bench.join_reference``); then ksqlpy's row dumps go."""
    differ = [a["workload"] for a in agreement if not a["agree"] and a["workload"] in JOINS]
    try:
        if differ:
            opts.say(f"join results differ ({', '.join(differ)}): checking them against the generated events ...")
            explain(agreement, results, references(opts.events, opts.seed, differ, src))
    finally:
        for r in results:
            path = r.pop("rows_dump", None)
            if path:
                shutil.rmtree(os.path.dirname(path), ignore_errors=True)


def run_round(src: str, data: dict[str, Any], opts: Options) -> list[dict[str, Any]]:
    """Every engine once on every workload: ksqlpy, then the peers it is compared with."""
    say = opts.say
    results: list[dict[str, Any]] = []
    say(f"ksqlpy on the embedded log ({data['bids']:,} bids, ~{data['avg_bid_bytes']:.0f} B each):")
    results += run_ksqlpy(src, opts)
    if opts.log == "kafka":  # ksqlpy on KafkaLog runs with the peers, on the broker (run_kafka_side)
        if importlib.util.find_spec("ksqlpy.log.kafka") is None:
            say("ksqlpy on KafkaLog: pending (ksqlpy.log.kafka does not exist yet, issue 6)")
            results += [{"workload": w, "engine": "ksqlpy", "log": "kafka", "error": "pending: KafkaLog (issue 6)"}
                        for w in opts.workloads]
    say("hand-written loop on the embedded log:")
    results += run_ceiling_embedded(src, opts)
    if opts.flink:
        say("Flink SQL (PyFlink mini-cluster, the same events as JSON lines):")
        results += run_flink(opts)
    if opts.pathway:
        say("Pathway (its JSON-lines reader, streaming):")
        results += run_pathway(opts)
    say("Kafka side (same bids on a tansu broker):")
    results += run_kafka_side(src, opts)
    return results


def run(opts: Options) -> dict[str, Any]:
    t_start = time.perf_counter()
    say = opts.say
    compile_bytecode(say)
    src = source_log(opts.events, opts.seed, say)
    with open(os.path.join(src, "READY")) as f:
        data = json.load(f)
    # ``--rounds N``: ksqlpy and its peers alternate N times, so each ratio is taken N times from runs close
    # in time (a pair) and the verdict is the median pair's - the machine's other work slows a whole run
    per_round: list[list[dict[str, Any]]] = []
    agreement: list[dict[str, Any]] = []
    for n in range(max(1, opts.rounds)):
        if opts.rounds > 1:
            say(f"round {n + 1} of {opts.rounds}:")
        results = run_round(src, data, opts)
        if n == 0:  # the final results are the same every round: compared once
            agreement = compare(results)
        explain_joins(agreement if n == 0 else [], results, src, opts)
        per_round.append(results)
    results = per_round[0]
    latency = []
    if opts.latency:
        say("latency on the embedded engine:")
        latency = run_latency(opts)
    report = {"machine": machine(), "data": data, "events": opts.events, "seed": opts.seed,
              "results": results, "latency": latency, "agreement": agreement,
              "targets": judge_rounds(per_round, latency) + agreement_targets(agreement),
              "wall_seconds": round(time.perf_counter() - t_start, 1),
              "when": time.strftime("%Y-%m-%d %H:%M:%S")}
    if len(per_round) > 1:  # "results" is the first round's (its tables and chart); every round's rows here
        report["rounds"] = per_round
    print_summary(report, say)
    if opts.report:
        with open(opts.report, "w") as f:
            json.dump(report, f, indent=1)
        say(f"report: {opts.report}")
    if opts.chart:
        say(f"chart: {opts.chart}" if chart(results, opts.chart) else "chart skipped: matplotlib not installed")
    return report
