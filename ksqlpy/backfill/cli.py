"""``python -m ksqlpy backfill --data-dir DIR "CREATE TABLE ... AS SELECT ..."``

Opens the durable engine of ``DIR`` (the shell's and server's data directory: the statement goes into its
command log), runs the statement as a Spark backfill and exits; the next shell or server on ``DIR`` runs
the query on from where the backfill stopped. ``--master`` (or ``--property spark.master=...``) chooses
the Spark cluster; ``--property k=v`` sets engine and ``spark.*`` properties.
"""

from __future__ import annotations

import argparse
import os
import sys


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="ksqlpy backfill", description="Run a CREATE ... AS SELECT with its "
                                 "history computed on Spark, then hand it to the streaming query.")
    ap.add_argument("--data-dir", required=True, help="the engine's data directory (as the shell's --data-dir)")
    ap.add_argument("--master", default=None, help="Spark master (default: property spark.master, else local[*])")
    ap.add_argument("--property", "-p", action="append", default=[], metavar="K=V",
                    help="an engine or spark.* property (repeatable)")
    ap.add_argument("sql", help="one CREATE STREAM/TABLE ... AS SELECT statement")
    args = ap.parse_args(argv)
    props: dict[str, str] = {}
    for kv in args.property:
        if "=" not in kv:
            ap.error(f"--property expects K=V, got {kv!r}")
        k, v = kv.split("=", 1)
        props[k.strip()] = v.strip()

    from ksqlpy.backfill.run import backfill
    from ksqlpy.engine import Engine
    from ksqlpy.engine.command_log import DurableStatements
    from ksqlpy.errors import KsqlError

    os.makedirs(args.data_dir, exist_ok=True)
    try:
        engine = Engine(data_dir=args.data_dir, properties=props)  # refused if another engine holds the directory
    except KsqlError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    try:
        statements = DurableStatements(engine)
        result = backfill(engine, args.sql, statements=statements, master=args.master)
    except KsqlError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        engine.close()
    print(f"Backfilled query {result.query_id}: {result.records_read} records read, {result.sink_records} "
          f"written to the sink, {result.state_entries} state entries handed over, {result.late_records} late "
          f"records dropped, {result.processing_errors} processing-log entries.")
    for p, (start, end) in sorted(result.positions.items()):
        print(f"  partition {p}: offsets {start}..{end - 1} backfilled; streaming continues at {end}")
    return 0
