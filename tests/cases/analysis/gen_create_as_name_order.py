"""Writes tests/cases/analysis/create-as-name-order.json: a CREATE ... AS SELECT whose name is taken and whose
query is at fault reports the query's fault.

ksqlDB checks the sink's name on the planned query (from memory of EngineExecutor.maybeCreateSinkDdl, run on the
logical plan's output node): analysis (an unknown column, an unknown function) and planning (a SELECT producing
the other kind of result) come first; only a query that plans is refused for its name - 'A <kind> with the same
name already exists' without OR REPLACE (or with ksql.create.or.replace.enabled=false), 'CREATE OR REPLACE is not
supported on source <kind>s' over a SOURCE stream or table. A sink topic that exists with other partition counts is refused before
the name and the upgrade are looked at (ksqlDB's TopicCreateInjector runs before the statement executes). Every kind of existing source (a stream, a table, a
SOURCE stream, a SOURCE table, the sink of a CREATE STREAM/TABLE AS SELECT) against both statement kinds, with
and without OR REPLACE.

Run ``python tests/cases/analysis/gen_create_as_name_order.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
SETUP = [
    "CREATE STREAM S (K INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);",
    "CREATE TABLE T (K INT PRIMARY KEY, V INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);",
]
# the existing source named N: the statement that makes it, its kind, whether it is a SOURCE
EXISTING = {
    "a stream": ("CREATE STREAM N (K INT KEY, V INT) WITH (kafka_topic='n', value_format='JSON', partitions=1);",
                 "stream", False),
    "a table": ("CREATE TABLE N (K INT PRIMARY KEY, V INT) WITH (kafka_topic='n', value_format='JSON', "
                "partitions=1);", "table", False),
    "a SOURCE stream": ("CREATE SOURCE STREAM N (K INT KEY, V INT) WITH (kafka_topic='n', value_format='JSON', "
                        "partitions=1);", "stream", True),
    "a SOURCE table": ("CREATE SOURCE TABLE N (K INT PRIMARY KEY, V INT) WITH (kafka_topic='n', "
                       "value_format='JSON', partitions=1);", "table", True),
    "the sink of a CREATE STREAM AS SELECT": ("CREATE STREAM N AS SELECT * FROM S;", "stream", False),
    "the sink of a CREATE TABLE AS SELECT": ("CREATE TABLE N AS SELECT * FROM T;", "table", False),
}
# the statement's query: (name, SELECT of a stream-producing query, of a table-producing one, expected message)
FAULTS = [
    ("an unknown column", "SELECT K, NOPE FROM S", "SELECT K, NOPE FROM T", "SELECT column 'NOPE' cannot be resolved."),
    ("an unknown function", "SELECT K, NO_SUCH_FN(V) AS X FROM S", "SELECT K, NO_SUCH_FN(V) AS X FROM T",
     "Can't find any functions with the name 'NO_SUCH_FN'"),
    ("the other kind of result", "SELECT * FROM T", "SELECT * FROM S",
     "Invalid result type. Your SELECT query produces a {other}. Please use CREATE {other} AS SELECT statement "
     "instead."),
]


def case(name: str, statements: list[str], message: str, properties: dict[str, str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "statements": SETUP + statements}
    if properties:
        out["properties"] = properties
    out["expectedException"] = {"type": EXCEPTION, "message": message}
    return out


def cases() -> list[dict[str, Any]]:
    out = []
    for existing_name, (create, existing_kind, is_source) in EXISTING.items():
        for kind in ("STREAM", "TABLE"):
            other = "TABLE" if kind == "STREAM" else "STREAM"
            for replace in (False, True):
                verb = "CREATE OR REPLACE" if replace else "CREATE"
                for fault, stream_select, table_select, message in FAULTS:
                    select = stream_select if kind == "STREAM" else table_select
                    out.append(case(f"{verb} {kind} AS SELECT with {fault} over {existing_name}: the query's fault",
                                    [create, f"{verb} {kind} N AS {select};"], message.format(other=other)))
                # a query without fault: the name's own refusal (or, OR REPLACE over a sink of the same kind, none)
                good = "SELECT * FROM S" if kind == "STREAM" else "SELECT * FROM T"
                if not replace:
                    message = f"Cannot add {kind.lower()} 'N': A {existing_kind} with the same name already exists"
                elif is_source:
                    message = (f"Cannot add {kind.lower()} 'N': CREATE OR REPLACE is not supported on source "
                               f"{existing_kind}s.")
                else:
                    continue
                out.append(case(f"{verb} {kind} AS SELECT over {existing_name}: the name is refused",
                                [create, f"{verb} {kind} N AS {good};"], message))
    for kind, select, fault_select, message in (
            ("STREAM", "SELECT * FROM S", "SELECT K, NOPE FROM S", "SELECT column 'NOPE' cannot be resolved."),
            ("TABLE", "SELECT * FROM T", "SELECT K, NOPE FROM T", "SELECT column 'NOPE' cannot be resolved.")):
        first = f"CREATE {kind} N AS {select};"
        off = {"ksql.create.or.replace.enabled": "false"}
        out.append(case(f"CREATE OR REPLACE {kind} AS SELECT with replacing disabled: the name is refused",
                        [first, f"CREATE OR REPLACE {kind} N AS {select} WHERE V > 0;"],
                        f"Cannot add {kind.lower()} 'N': A {kind.lower()} with the same name already exists", off))
        out.append(case(f"CREATE OR REPLACE {kind} AS SELECT with replacing disabled and an unknown column: the "
                        "query's fault", [first, f"CREATE OR REPLACE {kind} N AS {fault_select};"], message, off))
    # the sink's topic exists with other counts: ksqlDB's TopicCreateInjector runs before the statement executes,
    # so its error comes before the name's and the upgrade's
    for kind, select in (("STREAM", "SELECT * FROM S"), ("TABLE", "SELECT * FROM T")):
        first = f"CREATE {kind} N AS {select};"
        topic = ("A Kafka topic with the name 'N' already exists, with different partition/replica configuration "
                 "than required. KSQL expects 3 partitions (topic has 1), 1 replication factor (topic has 1).")
        out.append(case(f"CREATE {kind} AS SELECT over a sink whose topic has other counts: the topic's error",
                        [first, f"CREATE {kind} N WITH (partitions=3) AS {select};"], topic))
        out.append(case(f"CREATE OR REPLACE {kind} AS SELECT changing the format into a topic with other counts: "
                        "the topic's error", [first, f"CREATE OR REPLACE {kind} N WITH (partitions=3, "
                                              f"value_format='DELIMITED') AS {select};"], topic))
        out.append(case(f"CREATE OR REPLACE {kind} AS SELECT changing the format: the upgrade's error",
                        [first, f"CREATE OR REPLACE {kind} N WITH (value_format='DELIMITED') AS {select};"],
                        "Cannot upgrade data source: DataSource '`N`' has topic = "))
    return out


def main() -> None:
    doc = {"comments": [__doc__.split("\n\n")[1].replace("\n", " ")], "tests": cases()}
    path = Path(__file__).with_name("create-as-name-order.json")
    path.write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
