"""Writes tests/cases/ddl/timestamp-column-names.json: the column a TIMESTAMP property names is read as a column
reference, the same way for CREATE STREAM/TABLE and CREATE ... AS SELECT.

From memory of ksqlDB's ColumnReferenceParser (used by CreateSourceProperties and CreateSourceAsProperties
.getTimestampColumnName): an unquoted name is upper-cased, a back-quoted or double-quoted one keeps its case, a
source qualifier is dropped. A name that matches no column is reported without quotes
(TimestampExtractionPolicyFactory: 'The TIMESTAMP column set in the WITH clause does not exist in the schema: ...').

Run ``python tests/cases/ddl/gen_timestamp_column_names.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
MISSING = "The TIMESTAMP column set in the WITH clause does not exist in the schema: "
# two columns whose names differ by case only: the reference must pick the right one
COLUMNS = "`ts` BIGINT, TS BIGINT, V INT"
LOWER, UPPER = 1000, 2000

# reference as written -> the column it names (None: no column)
REFERENCES: dict[str, tuple[str | None, str]] = {
    "an unquoted lower-case name": ("ts", "TS"),
    "a back-quoted lower-case name": ("`ts`", "ts"),
    "a back-quoted upper-case name": ("`TS`", "TS"),
    "a double-quoted lower-case name": ('"ts"', "ts"),
    "a qualified back-quoted name": ("X.`ts`", "ts"),
    "a qualified unquoted name": ("X.ts", "TS"),
}
MISSING_REFERENCES = {
    "a back-quoted name no column has": ("`nope`", "nope"),
    "an unquoted name no column has": ("nope", "NOPE"),
    "a back-quoted name differing by case": ("`Ts`", "Ts"),
}


def source(kind: str, name: str, topic: str, extra: str = "") -> str:
    key = "K INT KEY" if kind == "STREAM" else "K INT PRIMARY KEY"
    return (f"CREATE {kind} {name} ({key}, {COLUMNS}) WITH (kafka_topic='{topic}', value_format='JSON', "
            f"partitions=1{extra});")


def row(ts: int) -> dict[str, Any]:
    return {"topic": "input", "key": 1, "value": {"ts": LOWER, "TS": UPPER, "V": 7}, "timestamp": ts}


def expected(kind_topic: str, column: str) -> list[dict[str, Any]]:
    return [{"topic": kind_topic, "key": 1, "value": {"ts": LOWER, "TS": UPPER, "V": 7},
             "timestamp": LOWER if column == "ts" else UPPER}]


def cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for kind in ("STREAM", "TABLE"):
        for what, (ref, column) in REFERENCES.items():
            prop = ref
            out.append({
                "name": f"CREATE {kind} with TIMESTAMP as {what} reads that column",
                "statements": [source(kind, "INPUT", "input", f", timestamp='{prop}'"),
                               f"CREATE {kind} OUT AS SELECT * FROM INPUT;"],
                "inputs": [row(5)], "outputs": expected("OUT", column)})
            out.append({
                "name": f"CREATE {kind} AS SELECT with TIMESTAMP as {what} writes that column",
                "statements": [source(kind, "INPUT", "input"),
                               f"CREATE {kind} OUT WITH (timestamp='{prop}') AS SELECT * FROM INPUT;"],
                "inputs": [row(5)], "outputs": expected("OUT", column)})
        for what, (ref, shown) in MISSING_REFERENCES.items():
            out.append({
                "name": f"CREATE {kind} with TIMESTAMP as {what}",
                "statements": [source(kind, "INPUT", "input", f", timestamp='{ref}'")],
                "expectedException": {"type": EXCEPTION, "message": f"{MISSING}'{shown}'"}})
            out.append({
                "name": f"CREATE {kind} AS SELECT with TIMESTAMP as {what}",
                "statements": [source(kind, "INPUT", "input"),
                               f"CREATE {kind} OUT WITH (timestamp='{ref}') AS SELECT * FROM INPUT;"],
                "expectedException": {"type": EXCEPTION, "message": f"{MISSING}'{shown}'"}})
    return out


if __name__ == "__main__":
    target = Path(__file__).with_name("timestamp-column-names.json")
    target.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": cases()}, indent=2) + "\n")
