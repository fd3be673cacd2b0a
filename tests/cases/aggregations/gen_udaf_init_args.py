"""Writes tests/cases/aggregations/udaf-init-args.json: an aggregate's initial (literal) arguments over the UDAFs
that take them x the expressions that are not literals x the query shapes.

The rule (ksqlDB's ``UdafUtil.createAggregateFunctionInitArgs``, from memory of its source): once the call is
resolved by the types of all its arguments, each argument after the column arguments must be a ``Literal``
node of the statement as written - a CAST of a literal, arithmetic, NOT, a comparison, a function call or a
column is none, whatever it would evaluate to. The refusal names the argument's 1-based position in the call
and its text: ``Parameter <n> passed to function <F> must be a literal constant, but was expression: '<e>'``.
It is found while the aggregate's type is worked out (logical planning), so before a table source's refusal of
an aggregate without undo (physical planning) and whatever the window. A parenthesised or negative number is a
literal; a literal out of the function's range is the function's own refusal (``latestN must be 1 or
greater``).

Run ``python tests/cases/aggregations/gen_udaf_init_args.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
STREAM = ("CREATE STREAM S (ID INT KEY, V INT, W STRING, N INT, B BOOLEAN) "
          "WITH (kafka_topic='s', value_format='JSON', partitions=1);")
TABLE = ("CREATE TABLE T (ID INT PRIMARY KEY, V INT, W STRING, N INT, B BOOLEAN) "
         "WITH (kafka_topic='t', value_format='JSON', partitions=1);")
# calls with a slot {x} where an initial argument goes: (call, position of the slot, the slot's type)
CALLS = [
    ("TOPK(V, {x})", 2, "INT"),
    ("TOPK(V, W, {x})", 3, "INT"),
    ("TOPKDISTINCT(V, {x})", 2, "INT"),
    ("LATEST_BY_OFFSET(V, {x})", 2, "INT"),
    ("LATEST_BY_OFFSET(V, {x}, true)", 2, "INT"),
    ("LATEST_BY_OFFSET(V, 2, {x})", 3, "BOOLEAN"),
    ("EARLIEST_BY_OFFSET(V, {x})", 2, "INT"),
    ("EARLIEST_BY_OFFSET(V, {x}, false)", 2, "INT"),
    ("EARLIEST_BY_OFFSET(V, 2, {x})", 3, "BOOLEAN"),
]
# expressions of the slot's type that are not literals, as written -> as ksqlDB's ExpressionFormatter prints them
NOT_LITERALS = {
    "INT": [("CAST(2 AS INT)", "CAST(2 AS INTEGER)"), ("1 + 1", "(1 + 1)"), ("ABS(2)", "ABS(2)"), ("N", "N"),
            ("CASE WHEN true THEN 2 ELSE 3 END", "(CASE WHEN true THEN 2 ELSE 3 END)")],
    "BOOLEAN": [("CAST('true' AS BOOLEAN)", "CAST('true' AS BOOLEAN)"), ("NOT false", "(NOT false)"),
                ("1 = 1", "(1 = 1)"), ("B", "B")],
}
SHAPES = {
    "a stream aggregation": (STREAM, "CREATE TABLE O AS SELECT ID, {call} AS X FROM S GROUP BY ID;"),
    "a tumbling window": (STREAM, "CREATE TABLE O AS SELECT ID, {call} AS X FROM S WINDOW TUMBLING (SIZE 1 MINUTE) "
                                  "GROUP BY ID;"),
    "a session window, another aggregate first": (
        STREAM, "CREATE TABLE O AS SELECT W, COUNT(*) AS C, {call} AS X FROM S WINDOW SESSION (1 MINUTE) GROUP BY W;"),
    "a table source (before its refusal of an aggregate without undo)": (
        TABLE, "CREATE TABLE O AS SELECT W, {call} AS X FROM T GROUP BY W;"),
}


def _refused(call: str, position: int, written: str, printed: str, shape: str) -> dict[str, Any]:
    source, query = SHAPES[shape]
    text = call.format(x=written)
    name = text.split("(")[0]
    return {
        "name": f"{text} in {shape}: argument {position} is no literal",
        "statements": [source, query.format(call=text)],
        "expectedException": {"type": EXCEPTION, "message": f"Parameter {position} passed to function {name} must "
                                                             f"be a literal constant, but was expression: '{printed}'"},
    }


def _accepted_literals() -> list[dict[str, Any]]:
    """A parenthesised literal is still one; a negative one reaches the function's own range check."""
    rows = [(1, 5), (1, 9), (1, 7)]
    return [
        {
            "name": "TOPK(V, (2)): a parenthesised number is a literal",
            "statements": [STREAM, "CREATE TABLE O AS SELECT ID, TOPK(V, (2)) AS X FROM S GROUP BY ID;"],
            "inputs": [{"topic": "s", "key": k, "value": {"V": v}} for k, v in rows],
            "outputs": [{"topic": "O", "key": 1, "value": {"X": x}} for x in ([5], [9, 5], [9, 7])],
        },
        {
            "name": "LATEST_BY_OFFSET(V, (2), (false)): parenthesised literals",
            "statements": [STREAM, "CREATE TABLE O AS SELECT ID, LATEST_BY_OFFSET(V, (2), (false)) AS X FROM S "
                                   "GROUP BY ID;"],
            "inputs": [{"topic": "s", "key": k, "value": {"V": v}} for k, v in rows],
            "outputs": [{"topic": "O", "key": 1, "value": {"X": x}} for x in ([5], [5, 9], [9, 7])],
        },
        *({
            "name": f"{fn}(V, -2): a negative number is a literal, refused by the function's range",
            "statements": [STREAM, f"CREATE TABLE O AS SELECT ID, {fn}(V, -2) AS X FROM S GROUP BY ID;"],
            "expectedException": {"type": EXCEPTION, "message": f"{what}N must be 1 or greater"},
        } for fn, what in (("LATEST_BY_OFFSET", "latest"), ("EARLIEST_BY_OFFSET", "earliest"))),
    ]


def cases() -> list[dict[str, Any]]:
    out = []
    for call, position, kind in CALLS:
        for written, printed in NOT_LITERALS[kind]:
            for shape in SHAPES:
                out.append(_refused(call, position, written, printed, shape))
    return out + _accepted_literals()


if __name__ == "__main__":
    (HERE / "udaf-init-args.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n", encoding="utf-8")
