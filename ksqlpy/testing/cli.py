"""``ksqlpy test``: run QTT files or one ksql-test-runner style case, print and report the results.

    ksqlpy test PATH... [--report FILE.json] [--bootstrap-servers HOST:PORT] [-k SUBSTRING] [--jobs N]
                [--partitioning ttd|kafka]
    ksqlpy test --statements s.sql --input in.json --output out.json
    ksqlpy test --rest REST_QTT_PATH...   (REST cases through a real server)

Exit status: 0 when nothing failed, 1 when some case failed, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from typing import Any

from ksqlpy.testing.executor import EngineFactory
from ksqlpy.testing.partitioning import Placement
from ksqlpy.testing.report import CaseResult, write_json, write_text
from ksqlpy.testing.runner import discover, load_cases, mutation_check, run_all, select
from ksqlpy.testing.single import single_case


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ksqlpy test", description="Run ksqlDB query-validation tests (QTT).")
    p.add_argument("paths", nargs="*", help="QTT files or directories of them")
    p.add_argument("--report", metavar="FILE.json", help="write a JSON report of every case")
    p.add_argument("--bootstrap-servers", metavar="HOST:PORT", help="run on Kafka instead of the embedded log")
    p.add_argument("-k", dest="substring", metavar="SUBSTRING", help="only cases whose 'file :: name' contains it")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="cases run in N processes (default 1)")
    p.add_argument("--timeout", type=float, default=60.0, metavar="S", help="per-case time limit (default 60)")
    p.add_argument("--drain-timeout", type=float, default=10.0, metavar="S",
                   help="time the engine gets to process each input group (default 10)")
    p.add_argument("--partitioning", choices=[p.value for p in Placement], default=Placement.TTD.value,
                   help="ttd: every record in partition 0, as ksqlDB's TopologyTestDriver (default); kafka: "
                        "records where their key hashes, one input processed at a time")
    p.add_argument("--top", type=int, default=15, metavar="N", help="how many top reasons to print")
    p.add_argument("--mutate", action="store_true",
                   help="self-check: re-run passed cases with one expectation changed; they must fail")
    p.add_argument("-v", "--verbose", action="store_true", help="print every case with its status and reason")
    p.add_argument("--rest", action="store_true",
                   help="run REST cases through a real 'ksqlpy server' subprocess (see ksqlpy.testing.rest)")
    p.add_argument("--strict-errors", action="store_true",
                   help="REST cases: an expected error that never came fails the case even when no query ran "
                        "(ksqlDB's harness holds it against query results only; our own files run strict)")
    p.add_argument("--backfill-differential", action="store_true",
                   help="invariant 1: run each case's CREATE ... AS SELECT once streaming and once backfilled on "
                        "Spark (local[2], one session) and compare the sinks; prints counts by reason "
                        "(see ksqlpy.testing.differential)")
    p.add_argument("--spark-master", default="local[2]", metavar="URL",
                   help="Spark master of --backfill-differential (default local[2])")
    p.add_argument("--backfill-live", type=float, default=0.5, metavar="SHARE",
                   help="share of each case's inputs (the last ones) produced after the queries start, so the "
                        "hand-off to streaming is compared too (default 0.5; 0: all inputs are history)")
    p.add_argument("--backfill-property", action="append", default=[], metavar="K=V",
                   help="an engine property of the backfilled side only, e.g. ksqlpy.backfill.task.records=2 "
                        "(every partition cut into two-record tasks: sub-ranges, partial aggregates) or "
                        "ksqlpy.backfill.tier=native (repeatable)")
    single = p.add_argument_group("single case (like ksql-test-runner)")
    single.add_argument("--statements", metavar="FILE.sql")
    single.add_argument("--input", metavar="FILE.json", help='{"inputs": [...]}')
    single.add_argument("--output", metavar="FILE.json", help='{"outputs": [...]}')
    return p


def default_factory() -> EngineFactory:
    """The real engine, imported only when a case runs (so ``--help`` works without it)."""
    from ksqlpy.engine import Engine
    from ksqlpy.testing.extension import with_test_functions

    def make(data_dir: str, properties: dict[str, Any]) -> Any:
        return Engine(data_dir, with_test_functions(properties))

    return make


def preflight(factory: EngineFactory, properties: dict[str, Any]) -> str | None:
    """Start and close one engine, so a bad cluster address is one clear error, not N failed cases."""
    with tempfile.TemporaryDirectory(prefix="ksqlpy-qtt-") as data_dir:
        try:
            factory(data_dir, dict(properties)).close()
        except Exception as e:  # noqa: BLE001 - reported to the user as is
            return f"{type(e).__name__}: {e}"
    return None


def main(argv: list[str], factory: EngineFactory | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if hasattr(sys.stdout, "reconfigure"):  # a value may hold a lone surrogate (half of a cut character)
        sys.stdout.reconfigure(errors="backslashreplace")
    if args.statements is None and (args.input or args.output):
        parser.error("--input/--output need --statements")
    if args.statements is None and not args.paths:
        parser.error("give QTT files/directories, or --statements with --input/--output")
    if args.statements is not None and args.paths:
        parser.error("give either PATH... or --statements, not both")
    try:
        cases = ([single_case(args.statements, args.input, args.output)] if args.statements
                 else select(load_cases(discover(args.paths)), args.substring))
    except (OSError, ValueError) as e:
        print(f"ksqlpy test: {e}", file=sys.stderr)
        return 2
    if args.rest:
        from ksqlpy.testing.rest import run_rest

        rest_results = run_rest(cases, timeout_s=args.timeout, progress=_progress if sys.stderr.isatty() else None,
                                strict_errors=args.strict_errors)
        if sys.stderr.isatty():
            sys.stderr.write("\r\033[K")
        rest_survivors: list[tuple[str, str]] = []
        if args.mutate:
            rest_survivors = _rest_mutation_check(cases, rest_results, args.timeout)
        write_text(rest_results, sys.stdout, verbose=args.verbose, top=args.top)
        if args.report:
            write_json(rest_results, args.report)
        return 1 if rest_survivors or any(r.status == "failed" for r in rest_results) else 0
    if factory is None:
        try:
            factory = default_factory()
        except ImportError as e:
            print(f"ksqlpy test: the engine is not available: {e}", file=sys.stderr)
            return 2
    if args.backfill_property and not args.backfill_differential:
        parser.error("--backfill-property needs --backfill-differential")
    if any("=" not in kv for kv in args.backfill_property):
        parser.error("--backfill-property takes K=V")
    if not 0 <= args.backfill_live <= 1:
        parser.error("--backfill-live takes a share from 0 to 1")
    if args.backfill_differential:
        return _differential(cases, factory, args)
    extra: dict[str, Any] = {}
    jobs = args.jobs
    if args.bootstrap_servers:
        extra["bootstrap.servers"] = args.bootstrap_servers
        jobs = 1  # cases share topic names: one at a time on a shared cluster
        problem = preflight(factory, extra)
        if problem:
            print(f"ksqlpy test: cannot start an engine on {args.bootstrap_servers}: {problem}", file=sys.stderr)
            return 2
    options: dict[str, Any] = dict(timeout_s=args.timeout, drain_timeout_s=args.drain_timeout,
                                   extra_properties=extra, cleanup_topics=bool(args.bootstrap_servers),
                                   placement=Placement(args.partitioning))
    results = run_all(cases, factory, jobs=jobs, progress=_progress if sys.stderr.isatty() else None, **options)
    if sys.stderr.isatty():
        sys.stderr.write("\r\033[K")
    survivors: list[tuple[str, str]] = []
    if args.mutate:
        mutated, survivors = mutation_check(cases, results, factory, **options)
        print(f"Mutation self-check: {mutated} mutants of passed cases, {len(survivors)} still passed")
        for case_id, what in survivors:
            print(f"  NOT CHECKED {case_id}: mutating {what} did not make it fail")
        print()
    write_text(results, sys.stdout, verbose=args.verbose or args.statements is not None, top=args.top)
    if args.report:
        write_json(results, args.report)
    return 1 if survivors or any(r.status == "failed" for r in results) else 0


def _differential(cases: list[Any], factory: EngineFactory, args: argparse.Namespace) -> int:
    """``--backfill-differential``: exit 1 when some supported case differs between the lowerings."""
    from ksqlpy.backfill.session import spark_session
    from ksqlpy.testing.differential import Outcome, run_all_differential, summary

    tty = sys.stderr.isatty()

    def progress(done: int, total: int, r: Any) -> None:
        if tty:
            sys.stderr.write(f"\r\033[K[{done}/{total}] {r.outcome.value:11} {r.case_id[:100]}")
        elif done % 50 == 0 or done == total:
            sys.stderr.write(f"[{done}/{total}]\n")
        sys.stderr.flush()

    spark = spark_session(args.spark_master, {"spark.sql.shuffle.partitions": "4"})
    spark.sparkContext.setLogLevel("ERROR")
    try:
        props = dict(kv.split("=", 1) for kv in args.backfill_property)
        results = run_all_differential(cases, spark, factory, args.drain_timeout, progress, props, args.backfill_live)
    finally:
        spark.stop()
    if tty:
        sys.stderr.write("\r\033[K")
    print(summary(results, args.top, args.verbose))
    if args.report:
        import json

        with open(args.report, "w") as f:
            json.dump([{"case": r.case_id, "outcome": r.outcome.value, "reason": r.reason, "queries": r.queries,
                        "records": r.records}
                       for r in results], f, indent=1)
    return 1 if any(r.outcome is Outcome.DIFFERENT for r in results) else 0


def _rest_mutation_check(cases: list[Any], results: list[CaseResult], timeout_s: float) -> list[tuple[str, str]]:
    """``--mutate`` for REST cases: every passed case again with one expectation changed, on one server;
    prints and returns the mutants that still passed."""
    from ksqlpy.testing.mutation import mutate_rest
    from ksqlpy.testing.rest import run_rest

    mutants = [(case, m) for case, result in zip(cases, results, strict=True)
               if result.status == "passed" and (m := mutate_rest(case)) is not None]
    outcomes = run_rest([mutant for _, (mutant, _) in mutants], timeout_s=timeout_s)
    survivors = [(case.id, what) for (case, (_, what)), r in zip(mutants, outcomes, strict=True)
                 if r.status == "passed"]
    print(f"Mutation self-check: {len(mutants)} passed cases mutated, {len(survivors)} still passed")
    for case_id, what in survivors:
        print(f"  NOT CHECKED {case_id}: mutating {what} did not make it fail")
    print()
    return survivors


def _progress(done: int, total: int, result: CaseResult) -> None:
    sys.stderr.write(f"\r\033[K[{done}/{total}] {result.status:7} {result.id[:100]}")
    sys.stderr.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
