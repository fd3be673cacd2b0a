"""Generates ``transient-reserved-aliases.json``: a push or pull query may not alias an expression to a
pseudo or window column's name (ROWTIME, ROWPARTITION, ROWOFFSET, WINDOWSTART, WINDOWEND), as a persistent
query may not; unlike a persistent query it may select those columns as themselves.

ksqlDB refuses the alias where the select item is built from the statement's text (from memory of
SingleColumn's checkForReservedToken: an alias that is a system column's name, unless the expression's text
after its qualifier is that name), which knows nothing of the statement's kind: push, pull (on a table, a
windowed table, a stream, refused JOIN or GROUP BY included), joins and aggregations alike. Only the
Analyzer's ``Reserved column name in select`` (the column selected as itself) is limited to persistent
queries. The alias is refused before any pull-query rule (GROUP BY, JOIN) and before an unknown column later
in the SELECT.

Run ``python tests/cases/rest/gen_transient_reserved_aliases.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

STATEMENT_ERROR = "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage"
NAMES = ("ROWTIME", "ROWPARTITION", "ROWOFFSET", "WINDOWSTART", "WINDOWEND")
STATUS = {"admin": {"@type": "currentStatus"}}

S = "CREATE STREAM S (K STRING KEY, A INT, C STRING) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
T = "CREATE TABLE T (K STRING PRIMARY KEY, V INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);"
X = "CREATE SOURCE TABLE X (K STRING PRIMARY KEY, V INT) WITH (kafka_topic='x', value_format='JSON', partitions=1);"
W = "CREATE TABLE W AS SELECT K, COUNT(*) AS N FROM S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY K;"


def alias(name: str) -> str:
    return f"`{name}` is a reserved column name. You cannot use it as an alias for a column."


# (shape, statements before, the query with {item} for the aliased item)
SHAPES: list[tuple[str, list[str], str]] = [
    ("push over a stream", [S], "SELECT K, {item} FROM S EMIT CHANGES;"),
    ("push over a table", [T], "SELECT K, {item} FROM T EMIT CHANGES;"),
    ("push aggregation", [S], "SELECT K, {item} FROM S GROUP BY K EMIT CHANGES;"),
    ("push aggregation without GROUP BY", [S], "SELECT {item} FROM S EMIT CHANGES;"),
    ("push windowed aggregation", [S], "SELECT K, {item} FROM S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY K "
                                       "EMIT CHANGES;"),
    ("push stream-table join", [S, T], "SELECT S.K, {item} FROM S JOIN T ON S.K = T.K EMIT CHANGES;"),
    ("push stream-stream join", [S, S.replace("STREAM S ", "STREAM R ").replace("'s'", "'r'")],
     "SELECT S.K, {item} FROM S JOIN R WITHIN 1 SECOND ON S.K = R.K EMIT CHANGES;"),
    ("pull over a table", [X], "SELECT K, {item} FROM X WHERE K = 'a';"),
    ("pull over a windowed table", [S, W], "SELECT K, {item} FROM W WHERE K = 'a';"),
    ("pull over a stream", [S], "SELECT K, {item} FROM S;"),
    ("pull with GROUP BY", [X], "SELECT K, {item} FROM X GROUP BY K;"),
    ("pull join", [X, T], "SELECT X.K, {item} FROM X JOIN T ON X.K = T.K WHERE X.K = 'a';"),
]

# the expression each shape aliases: a value column, or an aggregate where the query groups
EXPRESSIONS = {
    "push over a stream": "A", "push over a table": "V", "push aggregation": "COUNT(*)",
    "push aggregation without GROUP BY": "COUNT(*)", "push windowed aggregation": "MAX(A)",
    "push stream-table join": "T.V", "push stream-stream join": "R.A", "pull over a table": "V",
    "pull over a windowed table": "N", "pull over a stream": "A", "pull with GROUP BY": "COUNT(*)",
    "pull join": "T.V",
}


def refusals() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for shape, before, template in SHAPES:
        for name in NAMES:
            item = f"{EXPRESSIONS[shape]} AS {name}"
            out.append({
                "name": f"{shape} - an expression aliased {name}",
                "statements": [*before, template.format(item=item)],
                "expectedError": {"type": STATEMENT_ERROR, "message": alias(name), "status": 400},
            })
        # before an unknown column later in the SELECT (the alias is refused as the item is read)
        out.append({
            "name": f"{shape} - an alias ROWTIME before an unknown column after it",
            "statements": [*before, template.format(item=f"{EXPRESSIONS[shape]} AS ROWTIME, NOPE")],
            "expectedError": {"type": STATEMENT_ERROR, "message": alias("ROWTIME"), "status": 400},
        })
    return out


# a struct field named like a reserved column: the sanitizer names the item by the field, and the item's text
# (``ST->ROWTIME``) is not the name after a qualifier - refused in every query kind, aliased to its own name too
ST = ("CREATE STREAM SS (K STRING KEY, ST STRUCT<ROWTIME INT, ROWOFFSET INT, WINDOWSTART INT>) "
      "WITH (kafka_topic='ss', value_format='JSON', partitions=1);")
STT = ("CREATE SOURCE TABLE ST_T (K STRING PRIMARY KEY, ST STRUCT<ROWTIME INT, ROWOFFSET INT, WINDOWSTART INT>) "
       "WITH (kafka_topic='stt', value_format='JSON', partitions=1);")
STRUCT_SHAPES: list[tuple[str, list[str], str]] = [
    ("push over a stream", [ST], "SELECT K, {item} FROM SS EMIT CHANGES;"),
    ("push over a table", [STT], "SELECT K, {item} FROM ST_T EMIT CHANGES;"),
    ("push stream-table join", [ST, T], "SELECT SS.K, {item} FROM SS JOIN T ON SS.K = T.K EMIT CHANGES;"),
    ("pull over a table", [STT], "SELECT K, {item} FROM ST_T WHERE K = 'a';"),
    ("pull over a stream", [ST], "SELECT K, {item} FROM SS;"),
]


def struct_refusals() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for shape, before, template in STRUCT_SHAPES:
        for name in ("ROWTIME", "ROWOFFSET", "WINDOWSTART"):
            for form, item in (("un-aliased", f"ST->{name}"), ("aliased to its own name", f"ST->{name} AS {name}")):
                out.append({
                    "name": f"{shape} - a struct field {name} {form}",
                    "statements": [*before, template.format(item=item)],
                    "expectedError": {"type": STATEMENT_ERROR, "message": alias(name), "status": 400},
                })
    return out


def _query(schema: str, *rows: list[Any]) -> dict[str, Any]:
    return {"query": [{"header": {"schema": schema}}, *({"row": {"columns": r}} for r in rows),
                      {"finalMessage": "Limit Reached"}]}


def acceptances() -> list[dict[str, Any]]:
    """What a transient query may still name so: the column itself, un-aliased or aliased to its own name
    (qualified or not), and a quoted name differing in case."""
    record = [{"topic": "s", "key": "a", "value": {"A": 1, "C": "c"}, "timestamp": 5}]
    props = {"auto.offset.reset": "earliest"}
    return [
        {"name": "push over a stream - the pseudo columns un-aliased",
         "statements": [S, "SELECT K, ROWTIME, ROWPARTITION, ROWOFFSET FROM S EMIT CHANGES LIMIT 1;"],
         "inputs": record, "properties": props,
         "responses": [STATUS, _query("`K` STRING, `ROWTIME` BIGINT, `ROWPARTITION` INTEGER, `ROWOFFSET` BIGINT",
                                      ["a", 5, 0, 0])]},
        {"name": "push over a stream - ROWTIME aliased to its own name, qualified and not",
         "statements": [S, "SELECT K, S.ROWTIME AS ROWTIME, ROWOFFSET AS ROWOFFSET FROM S EMIT CHANGES LIMIT 1;"],
         "inputs": record, "properties": props,
         "responses": [STATUS, _query("`K` STRING, `ROWTIME` BIGINT, `ROWOFFSET` BIGINT", ["a", 5, 0])]},
        {"name": "push over a stream - quoted lower-case aliases are not reserved",
         "statements": [S, "SELECT K, A AS `rowtime`, C AS `windowstart` FROM S EMIT CHANGES LIMIT 1;"],
         "inputs": record, "properties": props,
         "responses": [STATUS, _query("`K` STRING, `rowtime` INTEGER, `windowstart` STRING", ["a", 1, "c"])]},
        {"name": "push over a stream - struct fields named like reserved columns aliased to other names",
         "statements": [ST, "SELECT K, ST->ROWTIME AS RT, ST->WINDOWSTART AS WS FROM SS EMIT CHANGES LIMIT 1;"],
         "inputs": [{"topic": "ss", "key": "a", "value": {"ST": {"ROWTIME": 3, "ROWOFFSET": 4, "WINDOWSTART": 7}}}],
         "properties": props,
         "responses": [STATUS, _query("`K` STRING, `RT` INTEGER, `WS` INTEGER", ["a", 3, 7])]},
        {"name": "push with the offset columns off - a struct field ROWOFFSET is an ordinary name",
         "statements": [ST, "SELECT K, ST->ROWOFFSET FROM SS EMIT CHANGES LIMIT 1;"],
         "inputs": [{"topic": "ss", "key": "a", "value": {"ST": {"ROWTIME": 3, "ROWOFFSET": 4, "WINDOWSTART": 7}}}],
         "properties": {**props, "ksql.rowpartition.rowoffset.enabled": "false"},
         "responses": [STATUS, _query("`K` STRING, `ROWOFFSET` INTEGER", ["a", 4])]},
        {"name": "push with the offset columns off - ROWPARTITION and ROWOFFSET are ordinary aliases",
         "statements": [S, "SELECT K, A AS ROWPARTITION, C AS ROWOFFSET FROM S EMIT CHANGES LIMIT 1;"],
         "inputs": record, "properties": {**props, "ksql.rowpartition.rowoffset.enabled": "false"},
         "responses": [STATUS, _query("`K` STRING, `ROWPARTITION` INTEGER, `ROWOFFSET` STRING", ["a", 1, "c"])]},
    ]


def cases() -> list[dict[str, Any]]:
    return [*refusals(), *struct_refusals(), *acceptances()]


if __name__ == "__main__":
    path = HERE / "transient-reserved-aliases.json"
    path.write_text(json.dumps({"comments": ["Generated by gen_transient_reserved_aliases.py - do not edit."],
                                "tests": cases()}, indent=2) + "\n")
    print(f"{len(cases())} cases -> {path}")
