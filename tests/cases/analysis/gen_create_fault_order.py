"""Writes tests/cases/analysis/create-fault-order.json: which of two faults in one CREATE STREAM/TABLE is reported.

ksqlDB's order (from memory; ../shared/reference/ksqldb-rules.md 1.1, 1.4-1.6): the whole text parses first (a
syntax error anywhere wins); then the AST builder prepares the statement - AstBuilder.visitCreateStream/Table
visits the columns in order (SqlTypeParser: ``Cannot resolve unknown type``), builds TableElements (``Duplicate
column names``), CreateSourceProperties (the WITH clause: unknown keys, then missing or invalid values), and
last the CreateStream/CreateTable constructor (a stream's PRIMARY KEY, a table's KEY: a ParseFailedException of
its own, ``Line: L, Col: C: ...`` without the ``Failed to prepare statement:`` prefix). Then the injectors
(DefaultFormatInjector: a missing VALUE_FORMAT; SchemaRegisterInjector: an unknown format) and last
CreateSourceFactory (reserved column names, a table without PRIMARY KEY). Every pair of faults from different
steps: the earlier step's message; for both source kinds.

Run ``python tests/cases/analysis/gen_create_fault_order.py`` after changing it.
"""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path
from typing import Any

Case = dict[str, Any]
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
PREPARE = "Failed to prepare statement: "
KINDS_TEXT = ("\nTables have PRIMARY KEYs, which are unique and NON NULL.\n"
              "Streams have KEYs, which have no uniqueness or NON NULL constraints.")


class Statement:
    """A CREATE statement built up fault by fault."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.key = "K STRING KEY" if kind == "STREAM" else "K STRING PRIMARY KEY"
        self.columns = ["V INT"]
        self.props = {"kafka_topic": "'n'", "value_format": "'JSON'", "partitions": "1"}

    def text(self) -> str:
        columns = ", ".join(([self.key] if self.key else []) + self.columns)
        props = ", ".join(f"{k}={v}" for k, v in self.props.items())
        return f"CREATE {self.kind} N ({columns}) WITH ({props});"


def unknown_type(s: Statement) -> str:
    s.columns[0] = "V NOSUCHTYPE"
    return PREPARE + "Cannot resolve unknown type: NOSUCHTYPE"


def duplicate(s: Statement) -> str:
    s.columns.append("V STRING")
    return PREPARE + "Duplicate column names: `V`"


def unknown_property(s: Statement) -> str:
    s.props["foo"] = "'x'"
    return PREPARE + "Invalid config variable(s) in the WITH clause: FOO"


def missing_topic(s: Statement) -> str:
    del s.props["kafka_topic"]
    return PREPARE + 'Missing required property "KAFKA_TOPIC" which has no default value.'


def invalid_value(s: Statement) -> str:
    s.props["wrap_single_value"] = "'maybe'"
    return PREPARE + "Invalid value maybe for property WRAP_SINGLE_VALUE: Expected value to be either true or false"


def wrong_key(s: Statement) -> str:
    if s.kind == "STREAM":
        s.key = "K STRING PRIMARY KEY"
        return "Column `K` is a 'PRIMARY KEY' column: please use 'KEY' for streams." + KINDS_TEXT
    s.key = "K STRING KEY"
    return "Column `K` is a 'KEY' column: please use 'PRIMARY KEY' for tables." + KINDS_TEXT


def missing_value_format(s: Statement) -> str:
    del s.props["value_format"]
    return ("Statement is missing the 'VALUE_FORMAT' property from the WITH clause. Either provide one or set a "
            "default via the 'ksql.persistence.default.format.value' config.")


def unknown_format(s: Statement) -> str:
    s.props["value_format"] = "'NOPE'"
    return "Unknown format: NOPE"


def reserved_name(s: Statement) -> str:
    s.columns.append("ROWTIME BIGINT")
    return "'ROWTIME' is a reserved column name. You cannot use it as a name for a column."


def no_primary_key(s: Statement) -> str:
    s.key = ""
    return "Tables require a PRIMARY KEY. Please define the PRIMARY KEY."


# (label, step, fault, kinds) - steps in ksqlDB's order; faults of one step are not paired with each other
# (their order is the step's own), except where noted
FAULTS = [
    ("an unknown column type", 0, unknown_type, ("STREAM", "TABLE")),
    ("a duplicate column", 1, duplicate, ("STREAM", "TABLE")),
    ("an unknown WITH property", 2, unknown_property, ("STREAM", "TABLE")),
    ("a missing KAFKA_TOPIC", 3, missing_topic, ("STREAM", "TABLE")),
    ("an invalid WITH value", 3, invalid_value, ("STREAM", "TABLE")),
    ("the wrong key constraint", 4, wrong_key, ("STREAM", "TABLE")),
    ("a missing VALUE_FORMAT", 5, missing_value_format, ("STREAM", "TABLE")),
    ("an unknown format", 6, unknown_format, ("STREAM", "TABLE")),
    ("a reserved column name", 7, reserved_name, ("STREAM", "TABLE")),
    ("no PRIMARY KEY", 8, no_primary_key, ("TABLE",)),
]
# faults that cannot be written together (one replaces what the other writes)
EXCLUSIVE = {("a missing VALUE_FORMAT", "an unknown format"), ("the wrong key constraint", "no PRIMARY KEY")}


def cases() -> list[Case]:
    out: list[Case] = []
    for (first, step1, fault1, kinds1), (second, step2, fault2, kinds2) in combinations(FAULTS, 2):
        if step1 == step2 or (first, second) in EXCLUSIVE:
            continue
        for kind in kinds1:
            if kind not in kinds2:
                continue
            s = Statement(kind)
            expected = fault1(s)
            fault2(s)
            out.append({"name": f"{kind.lower()}: {first} before {second}", "statements": [s.text()],
                        "expectedException": {"type": EXCEPTION, "message": expected}})
    # one fault alone: every message in full (the pairs above show only the earlier one of each)
    for label, _, fault, kinds in FAULTS:
        for kind in kinds:
            s = Statement(kind)
            expected = fault(s)
            out.append({"name": f"{kind.lower()}: {label} alone", "statements": [s.text()],
                        "expectedException": {"type": EXCEPTION, "message": expected}})
    # a type registered by an earlier statement resolves, so the later fault is the one reported
    s = Statement("STREAM")
    s.columns[0] = "V ADDRESS"
    expected = wrong_key(s)
    out.append({"name": "stream: a registered type, then the wrong key constraint",
                "statements": ["CREATE TYPE ADDRESS AS STRUCT<STREET STRING>;", s.text()],
                "expectedException": {"type": EXCEPTION, "message": expected}})
    # the first of several columns with the wrong constraint, where it is declared
    out.append({"name": "stream: the first PRIMARY KEY column is named, with its position",
                "statements": ["CREATE STREAM N (V INT, K1 STRING PRIMARY KEY, K2 STRING PRIMARY KEY) "
                               "WITH (kafka_topic='n', value_format='JSON', partitions=1);"],
                "expectedException": {"type": EXCEPTION,
                                      "message": "Line: 1, Col: 25: Column `K1` is a 'PRIMARY KEY' column"}})
    # a syntax error later in the text comes before every fault the AST builder finds
    out.append({"name": "stream: a syntax error after the wrong key constraint",
                "statements": ["CREATE STREAM N (K STRING PRIMARY KEY, V INT) WITH (kafka_topic='n', "
                               "value_format='JSON', partitions=1) EMIT;"],
                "expectedException": {"type": "io.confluent.ksql.parser.exception.ParseFailedException",
                                      "message": "Syntax Error"}})
    out += as_select_cases()
    out += factory_cases()
    return out


def factory_cases() -> list[Case]:
    """CreateSourceFactory's own order (from memory): the schema (reserved names), the TIMESTAMP column, a name
    another source has, a table's PRIMARY KEY, then the formats' serde features (WRAP_SINGLE_VALUE)."""
    def create(kind: str, cols: str, extra: str = "", fmt: str = "JSON") -> str:
        return (f"CREATE {kind} N ({cols}) WITH (kafka_topic='n', value_format='{fmt}', partitions=1{extra});")

    existing_stream = create("STREAM", "K STRING KEY, V INT")
    existing_table = create("TABLE", "K STRING PRIMARY KEY, V INT")
    reserved = "'ROWTIME' is a reserved column name. You cannot use it as a name for a column."
    no_ts = "The TIMESTAMP column set in the WITH clause does not exist in the schema: 'NOPE'"
    no_key = "Tables require a PRIMARY KEY. Please define the PRIMARY KEY."
    wrap = "Format 'KAFKA' does not support 'WRAP_SINGLE_VALUE' set to 'true'."
    shapes = [
        ("table: a reserved column name before a missing TIMESTAMP column", [],
         create("TABLE", "K STRING PRIMARY KEY, V INT, ROWTIME BIGINT", ", timestamp='NOPE'"), reserved),
        ("table: a missing TIMESTAMP column before no PRIMARY KEY", [],
         create("TABLE", "V INT", ", timestamp='NOPE'"), no_ts),
        ("stream: a missing TIMESTAMP column before a taken name", [existing_stream],
         create("STREAM", "K STRING KEY, V INT", ", timestamp='NOPE'"), no_ts),
        ("table: a taken name before no PRIMARY KEY", [existing_table], create("TABLE", "V INT"),
         "Cannot add table 'N': A table with the same name already exists"),
        ("table: no PRIMARY KEY before an unsupported WRAP_SINGLE_VALUE", [],
         create("TABLE", "V INT", ", wrap_single_value='true'", "KAFKA"), no_key),
        ("stream: a missing TIMESTAMP column before an unsupported WRAP_SINGLE_VALUE", [],
         create("STREAM", "K STRING KEY, V INT", ", wrap_single_value='true', timestamp='NOPE'", "KAFKA"), no_ts),
        ("stream: a taken name before an unsupported WRAP_SINGLE_VALUE", [existing_stream],
         create("STREAM", "K STRING KEY, V INT", ", wrap_single_value='true'", "KAFKA"),
         "Cannot add stream 'N': A stream with the same name already exists"),
        ("stream: an unsupported WRAP_SINGLE_VALUE alone", [],
         create("STREAM", "K STRING KEY, V INT", ", wrap_single_value='true'", "KAFKA"), wrap),
    ]
    return [{"name": label, "statements": [*before, statement],
             "expectedException": {"type": EXCEPTION, "message": message}}
            for label, before, statement, message in shapes]


SOURCE = "CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
SINK = "CREATE STREAM O AS SELECT K, V FROM S;"


def as_select_cases() -> list[Case]:
    """CREATE ... AS SELECT and INSERT INTO ... SELECT: AstBuilder visits the query (its CAST types) before the
    WITH clause (CreateSourceAsProperties / InsertIntoProperties); both before the sanitizer (unknown sources)
    and the analyzer (unknown columns, then the sink's formats)."""
    unknown_type = PREPARE + "Cannot resolve unknown type: NOSUCHTYPE"
    unknown_prop = PREPARE + "Invalid config variable(s) in the WITH clause: FOO"
    shapes = [
        ("CSAS: an unknown CAST type before an unknown WITH property", [SOURCE],
         "CREATE STREAM O2 WITH (foo=1) AS SELECT K, CAST(V AS NOSUCHTYPE) AS W FROM S;", unknown_type),
        ("CSAS: an unknown WITH property before an unknown source", [],
         "CREATE STREAM O2 WITH (foo=1) AS SELECT K, V FROM NOPE;", unknown_prop),
        ("CSAS: an unknown WITH property before an unknown column", [SOURCE],
         "CREATE STREAM O2 WITH (foo=1) AS SELECT K, NOPE FROM S;", unknown_prop),
        ("CSAS: an unknown column before an unknown sink format", [SOURCE],
         "CREATE STREAM O2 WITH (value_format='NOPE') AS SELECT K, NOPE FROM S;",
         "SELECT column 'NOPE' cannot be resolved."),
        ("CTAS: an unknown WITH property before an unknown source", [],
         "CREATE TABLE O2 WITH (foo=1) AS SELECT K, COUNT(*) AS C FROM NOPE GROUP BY K;", unknown_prop),
        ("INSERT INTO: an unknown CAST type before an unknown WITH property", [SOURCE, SINK],
         "INSERT INTO O WITH (foo=1) SELECT K, CAST(V AS NOSUCHTYPE) AS V FROM S;", unknown_type),
        ("INSERT INTO: an unknown WITH property before an unknown source", [SOURCE, SINK],
         "INSERT INTO O WITH (foo=1) SELECT K, V FROM NOPE;", unknown_prop),
    ]
    return [{"name": label, "statements": [*before, statement],
             "expectedException": {"type": EXCEPTION, "message": message}}
            for label, before, statement, message in shapes]


if __name__ == "__main__":
    path = Path(__file__).with_name("create-fault-order.json")
    path.write_text(json.dumps({"comments": ["Generated by gen_create_fault_order.py - do not edit."],
                                "tests": cases()}, indent=2) + "\n")
    print(f"{len(cases())} cases -> {path}")
