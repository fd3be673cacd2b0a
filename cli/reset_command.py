"""``ksqlpy reset QUERY_ID``: rewind a persistent query and clear its state so it recomputes on the next
start (ksqlpy.engine.reset). Runs with no engine over the data directory (its lock refuses otherwise)."""

from __future__ import annotations

import argparse
import os
import sys


def _timestamp_ms(text: str) -> int:
    from ksqlpy.engine.reset import parse_time
    from ksqlpy.errors import KsqlError

    try:
        return parse_time(text)
    except KsqlError as e:
        raise argparse.ArgumentTypeError(e.message) from None


def build_parser() -> argparse.ArgumentParser:
    from ksqlpy.cli.main import default_data_dir

    p = argparse.ArgumentParser(
        prog="ksqlpy reset",
        description="Reset a persistent query: its input positions go back to the earliest offsets (or to a "
                    "time), its internal topics and local state are deleted, so it recomputes from there the next "
                    "time the shell or server starts. Sink topics are not touched: a table sink receives every "
                    "key's updates again, a stream sink its records a second time. Stop the shell or server first.")
    p.add_argument("query_id", metavar="QUERY_ID", help="the query to reset, as SHOW QUERIES lists it")
    p.add_argument("--data-dir", metavar="DIR", default=None,
                   help=f"the engine's data directory (default {default_data_dir()})")
    to = p.add_mutually_exclusive_group()
    to.add_argument("--to-earliest", action="store_true", help="rewind to the earliest offsets (the default)")
    to.add_argument("--to-timestamp", metavar="TIME", type=_timestamp_ms,
                    help="rewind to the first record at or after TIME (epoch ms or ISO-8601, UTC by default)")
    p.add_argument("--property", "-p", action="append", default=[], metavar="K=V",
                   help="an engine property, e.g. bootstrap.servers for a Kafka log (repeatable)")
    return p


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    props: dict[str, str] = {}
    for kv in args.property:
        if "=" not in kv:
            print(f"ksqlpy reset: --property expects K=V, got {kv!r}", file=sys.stderr)
            return 2
        k, v = kv.split("=", 1)
        props[k.strip()] = v.strip()
    from ksqlpy.cli.main import default_data_dir
    from ksqlpy.engine import Engine
    from ksqlpy.engine.command_log import DurableStatements
    from ksqlpy.engine.reset import reset_query
    from ksqlpy.errors import KsqlError

    data_dir = os.path.abspath(os.path.expanduser(args.data_dir or default_data_dir()))
    if not os.path.isdir(os.path.join(data_dir, "log")) and "bootstrap.servers" not in props:
        print(f"ksqlpy reset: {data_dir} holds no ksqlpy data", file=sys.stderr)
        return 1
    try:
        engine = Engine(data_dir, props)  # refused while a shell or server runs over the directory
    except KsqlError as e:
        print(f"ksqlpy reset: {e}", file=sys.stderr)
        return 1
    try:
        DurableStatements(engine)  # the catalog and the queries, built but not running
        result = reset_query(engine, args.query_id, args.to_timestamp)
    except KsqlError as e:
        print(f"ksqlpy reset: {e}", file=sys.stderr)
        return 1
    finally:
        engine.close()
    where = "the earliest offsets" if args.to_timestamp is None else f"timestamp {args.to_timestamp}"
    print(f"Query {result.query_id} reset to {where}; it recomputes when the shell or server starts.")
    for (topic, partition), offset in sorted(result.positions.items()):
        print(f"  input {topic} partition {partition}: next offset {offset}")
    for topic in result.deleted_topics:
        print(f"  deleted internal topic {topic}")
    print(f"  deleted local state {os.path.join(data_dir, 'state', result.query_id)}")
    return 0
