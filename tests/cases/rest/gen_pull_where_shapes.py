"""Generates ``pull-where-shapes.json``: the shapes of a pull query's WHERE that are neither a plain key
equality nor a plain range, against a single-key table, a multi-column-key table, a windowed table and a
single STRING key (whose one range is a range scan), with
table scans allowed (the rows; the WHERE decides them whatever the access) and, where ksqlDB's rule is
known, with them disabled (key lookups or the refusal).

Shapes: WINDOWSTART/WINDOWEND IN, NOT IN, IS [NOT] NULL, BETWEEN (ksqlDB rewrites BETWEEN on a window bound
into two bounds); OR across a key and a window bound; IN on one column of a multi-column key; key values
that are expressions (arithmetic, CAST, functions of constants), which ksqlDB's QueryFilterNode.resolveKey
hands to the GenericExpressionResolver with the key column's type (an INSERT VALUES value's rule and texts;
from memory) while a literal is taken as it is; BETWEEN, NOT BETWEEN, NOT IN, IS [NOT] NULL, LIKE on a key
(a scan; with scans off the key is met outside a comparison - ksqlDB's StatementRewriteForMagicPseudoTimestamp
rewrites BETWEEN on ROWTIME and window bounds only, from memory); the key on the right of its comparison and
value columns on the left of theirs; ranges on one part of a multi-column key; NOT over key conditions
(pushed down first, LogicRewriter); pull queries on streams (a scan of the topic up to the offsets at the start) with WHERE, LIMIT and
ROWTIME.

Expected rows come from the model below: every row of the table whose columns satisfy the WHERE.
Run ``python tests/cases/rest/gen_pull_where_shapes.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from gen_pull_rules import invalid_where  # noqa: E402 - ksqlDB's whole refusal text, written once

HERE = Path(__file__).parent

STATEMENT_ERROR = "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage"
NO_SCAN = {"ksql.query.pull.table.scan.enabled": False}
Row = list[Any]

# name -> (statements, inputs, rows of SELECT * (in store order), header schema)
TABLES: dict[str, tuple[list[str], list[dict[str, Any]], list[Row], str]] = {
    "single key": (
        ["CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);",
         "CREATE TABLE X AS SELECT ID, COUNT(*) AS N FROM S GROUP BY ID;"],
        [{"topic": "s", "key": k, "value": {"V": 1}, "timestamp": 1000} for k in (1, 2, 2, 3)],
        [[1, 1], [2, 2], [3, 1]], "`ID` INTEGER KEY, `N` BIGINT"),
    "multi-column key": (
        ["CREATE STREAM S (K1 INT KEY, K2 STRING KEY, V INT) WITH (kafka_topic='s', format='JSON', partitions=1);",
         "CREATE TABLE X AS SELECT K1, K2, COUNT(*) AS N FROM S GROUP BY K1, K2;"],
        [{"topic": "s", "key": {"K1": k1, "K2": k2}, "value": {"V": 1}, "timestamp": 1000}
         for k1, k2 in ((1, "a"), (1, "b"), (2, "a"))],
        [[1, "a", 1], [1, "b", 1], [2, "a", 1]], "`K1` INTEGER KEY, `K2` STRING KEY, `N` BIGINT"),
    "windowed": (
        ["CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);",
         "CREATE TABLE X AS SELECT ID, COUNT(*) AS N FROM S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY ID;"],
        [{"topic": "s", "key": k, "value": {"V": 1}, "timestamp": ts} for k, ts in ((1, 1000), (2, 1500), (2, 2500))],
        [[1, 1000, 2000, 1], [2, 1000, 2000, 1], [2, 2000, 3000, 1]],
        "`ID` INTEGER KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, `N` BIGINT"),
    "string key": (
        ["CREATE STREAM S (ID STRING KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);",
         "CREATE TABLE X AS SELECT ID, COUNT(*) AS N FROM S GROUP BY ID;"],
        [{"topic": "s", "key": k, "value": {"V": 1}, "timestamp": 1000} for k in ("a", "ab", "ab", "b", "c")],
        [["a", 1], ["ab", 2], ["b", 1], ["c", 1]], "`ID` STRING KEY, `N` BIGINT"),
}

Pred = Callable[[Row], bool]

# with scans off, a key column reached other than as a comparison's or IN's column side - under NOT IN,
# IS [NOT] NULL, an expression - is refused by the validator's column visitor (QueryFilterNode, from memory)
INDIRECT = "A comparison must directly reference a key column"
# a range (<, <=, >, >=) on a key that is no single STRING key (a range scan's), or on a STRING key beside
# another disjunct, needs a table scan (the visible range-scan cases show the text for INT keys and a
# multi-column key's parts)
NEEDS_SCAN = "Query requires table scan to be enabled"
COMBINED = "A comparison condition on the key column cannot be combined with other comparisons such as an IN predicate"
RESOLVABLE = "A comparison must be between a key column and a resolvable expression"
SINGLE_KEY_BOUND = "Bound on key columns '[`ID` INTEGER KEY]' must currently be '='"
MULTI_KEY_BOUND = "Bound on key columns '[`K1` INTEGER KEY, `K2` STRING KEY]' must currently be '='"


def _ws(r: Row) -> int:
    return int(r[1])


def _we(r: Row) -> int:
    return int(r[2])


# (table, WHERE, the rows it selects, with table scans disabled: "rows" = the same rows by key lookups (a
# window bound in any shape only filters the key's windows), the refusal's reason, or None = not generated:
# ksqlDB's rule with scans off not known here (BETWEEN on a key: whether it is first rewritten to a range)
SHAPES: list[tuple[str, str, Pred, str | None]] = [
    # window bounds in shapes other than a comparison: the key lookup fetches the key's windows, the WHERE
    # filters them
    ("windowed", "ID = 2 AND WINDOWSTART IN (1000, 2000)", lambda r: r[0] == 2 and _ws(r) in (1000, 2000), "rows"),
    ("windowed", "ID = 2 AND WINDOWSTART IN (2000)", lambda r: r[0] == 2 and _ws(r) == 2000, "rows"),
    ("windowed", "ID IN (1, 2) AND WINDOWEND IN (2000, 5000)", lambda r: _we(r) == 2000, "rows"),
    ("windowed", "ID = 2 AND WINDOWSTART NOT IN (1000)", lambda r: r[0] == 2 and _ws(r) != 1000, "rows"),
    ("windowed", "ID = 2 AND WINDOWSTART IS NULL", lambda r: False, "rows"),
    ("windowed", "ID = 2 AND WINDOWEND IS NOT NULL", lambda r: r[0] == 2, "rows"),
    ("windowed", "ID = 2 AND WINDOWSTART BETWEEN 1000 AND 1500", lambda r: r[0] == 2 and _ws(r) <= 1500, "rows"),
    ("windowed", "ID = 2 AND WINDOWEND BETWEEN 2500 AND 3000", lambda r: r[0] == 2 and _we(r) == 3000, "rows"),
    ("windowed", "ID = 2 AND WINDOWSTART NOT BETWEEN 1000 AND 1500", lambda r: r[0] == 2 and _ws(r) > 1500, "rows"),
    # OR across keys and window bounds
    ("windowed", "ID = 2 OR WINDOWSTART = 1000", lambda r: r[0] == 2 or _ws(r) == 1000,
     "WHERE clause missing key column for disjunct: (WINDOWSTART = 1000)"),
    ("windowed", "WINDOWEND = 2000 OR ID = 2", lambda r: r[0] == 2 or _we(r) == 2000,
     "WHERE clause missing key column for disjunct: (WINDOWEND = 2000)"),
    ("windowed", "(ID = 1 AND WINDOWSTART = 1000) OR (ID = 2 AND WINDOWEND = 3000)",
     lambda r: (r[0], _ws(r)) in ((1, 1000), (2, 2000)), "rows"),
    ("windowed", "ID = 2 AND (WINDOWSTART = 1000 OR WINDOWEND = 3000)", lambda r: r[0] == 2, "rows"),
    ("windowed", "ID = 2 AND WINDOWSTART >= 2000 OR ID = 1 AND WINDOWEND <= 2000",
     lambda r: (r[0] == 2 and _ws(r) >= 2000) or r[0] == 1, "rows"),
    ("windowed", "WINDOWSTART = 1000", lambda r: _ws(r) == 1000,
     "WHERE clause missing key column for disjunct: (WINDOWSTART = 1000)"),
    # IN on the columns of a multi-column key
    ("multi-column key", "K1 IN (1, 2) AND K2 = 'a'", lambda r: r[1] == "a", "rows"),
    ("multi-column key", "K1 = 1 AND K2 IN ('a', 'b', 'c')", lambda r: r[0] == 1, "rows"),
    ("multi-column key", "K1 IN (1, 2) AND K2 IN ('b', 'a')", lambda r: True, "rows"),
    ("multi-column key", "K2 = 'a' AND K1 IN (2)", lambda r: r[:2] == [2, "a"], "rows"),
    ("multi-column key", "K1 IN (1, 2)", lambda r: True, "Multi-column sources must specify every key in the WHERE clause"),
    ("multi-column key", "K2 IN ('a')", lambda r: r[1] == "a",
     "Multi-column sources must specify every key in the WHERE clause"),
    ("multi-column key", "K1 = 1", lambda r: r[0] == 1, "Multi-column sources must specify every key in the WHERE clause"),
    ("multi-column key", "(K1 = 1 AND K2 = 'b') OR (K1 = 2 AND K2 = 'a')",
     lambda r: r[:2] in ([1, "b"], [2, "a"]), "rows"),
    ("multi-column key", "K1 = 1 AND K2 = 'a' OR K1 = 2", lambda r: r[:2] == [1, "a"] or r[0] == 2,
     "Multi-column sources must specify every key in the WHERE clause"),
    ("multi-column key", "K1 = 0 + 1 AND K2 = CONCAT('b', '')", lambda r: r[:2] == [1, "b"], "rows"),
    ("multi-column key", "K1 IN (1 + 1) AND K2 = SUBSTRING('xa', 2)", lambda r: r[:2] == [2, "a"], "rows"),
    ("multi-column key", "K1 BETWEEN 1 AND 2 AND K2 = 'a'", lambda r: r[1] == "a", INDIRECT),
    ("multi-column key", "K1 NOT IN (2) AND K2 = 'a'", lambda r: r[:2] == [1, "a"], INDIRECT),
    ("multi-column key", "K1 = 1 AND K2 > 'a'", lambda r: r[:2] == [1, "b"], NEEDS_SCAN),
    # a range on one part of a multi-column key, a key written on the right, BETWEEN/LIKE on a part
    ("multi-column key", "K1 = 1 AND K2 >= 'a'", lambda r: r[0] == 1, NEEDS_SCAN),
    ("multi-column key", "K1 > 0 AND K2 = 'a'", lambda r: r[1] == "a", NEEDS_SCAN),
    ("multi-column key", "K1 <= 1 AND 'b' > K2", lambda r: r[:2] == [1, "a"], NEEDS_SCAN),
    ("multi-column key", "K1 = 1 AND K2 BETWEEN 'a' AND 'b'", lambda r: r[0] == 1, INDIRECT),
    ("multi-column key", "K1 = 1 AND K2 LIKE 'a%'", lambda r: r[:2] == [1, "a"], INDIRECT),
    ("multi-column key", "1 = K1 AND 'a' = K2", lambda r: r[:2] == [1, "a"], "rows"),
    ("multi-column key", "'b' = K2 AND K1 = 1", lambda r: r[:2] == [1, "b"], "rows"),
    ("multi-column key", "N = 1 AND 2 = K1 AND K2 = 'a'", lambda r: r[:2] == [2, "a"], "rows"),
    ("multi-column key", "K1 = 1 AND K2 = K2", lambda r: r[0] == 1, RESOLVABLE),
    # NOT over key conditions: pushed down to the comparisons first (LogicRewriter), then judged
    ("multi-column key", "NOT (K1 <> 1 OR K2 <> 'a')", lambda r: r[:2] == [1, "a"], "rows"),
    ("multi-column key", "K1 = 1 AND NOT (K2 <> 'b')", lambda r: r[:2] == [1, "b"], "rows"),
    ("multi-column key", "NOT (K1 = 1 AND K2 = 'a')", lambda r: r[:2] != [1, "a"], MULTI_KEY_BOUND),
    ("multi-column key", "K1 = 1 AND NOT K2 < 'b'", lambda r: r[:2] == [1, "b"], NEEDS_SCAN),
    # a key compared with != names the source's whole key (LogicalSchema.key())
    ("multi-column key", "K1 != 1 AND K2 = 'a'", lambda r: r[:2] == [2, "a"], MULTI_KEY_BOUND),
    ("multi-column key", "K1 = 1 AND NOT K2 = 'a'", lambda r: r[:2] == [1, "b"], MULTI_KEY_BOUND),
    ("multi-column key", "K1 = 1 AND K2 <> 'a' OR K1 = 2 AND K2 = 'a'", lambda r: r[:2] in ([1, "b"], [2, "a"]),
     MULTI_KEY_BOUND),
    # key values that are expressions: resolved once, with the key column's type
    ("single key", "ID = 1 + 1", lambda r: r[0] == 2, "rows"),
    ("single key", "ID = CAST('2' AS INT)", lambda r: r[0] == 2, "rows"),
    ("single key", "ID = ABS(-3)", lambda r: r[0] == 3, "rows"),
    ("single key", "ID = -(-2)", lambda r: r[0] == 2, "rows"),
    ("single key", "ID IN (0 + 1, 4 - 1)", lambda r: r[0] in (1, 3), "rows"),
    ("single key", "2 * 1 = ID", lambda r: r[0] == 2, "rows"),
    ("single key", "ID = 2147483647 + 3", lambda r: False, "rows"),  # INT arithmetic wraps as Java's
    # the key written on the right of its comparison, a value column on the left of another
    ("single key", "2 = ID", lambda r: r[0] == 2, "rows"),
    ("single key", "(2) = (ID)", lambda r: r[0] == 2, "rows"),
    ("single key", "1 + 2 = ID", lambda r: r[0] == 3, "rows"),
    ("single key", "N = 1 AND 2 = ID", lambda r: False, "rows"),
    ("single key", "N = 2 AND ID = 2", lambda r: r[0] == 2, "rows"),
    ("single key", "N > 1 AND ID IN (1, 2)", lambda r: r[0] == 2, "rows"),
    ("single key", "2 < ID", lambda r: r[0] == 3, NEEDS_SCAN),
    ("single key", "2 >= ID", lambda r: r[0] in (1, 2), NEEDS_SCAN),
    ("single key", "2 <> ID", lambda r: r[0] != 2, SINGLE_KEY_BOUND),
    ("single key", "N = ID", lambda r: r[0] == r[1], RESOLVABLE),
    ("single key", "N + 1 = ID", lambda r: r[0] == r[1] + 1, RESOLVABLE),
    ("single key", "ID > 1 AND ID < 3", lambda r: r[0] == 2, COMBINED),
    ("single key", "N > 1", lambda r: r[1] > 1, "WHERE clause missing key column for disjunct: (N > 1)"),
    ("single key", "1 < N", lambda r: r[1] > 1, "WHERE clause missing key column for disjunct: (1 < N)"),
    # NOT over a key condition: a negated comparison is the opposite comparison
    ("single key", "NOT ID = 2", lambda r: r[0] != 2, SINGLE_KEY_BOUND),
    ("single key", "NOT NOT ID = 2", lambda r: r[0] == 2, "rows"),
    ("single key", "NOT (ID <> 2)", lambda r: r[0] == 2, "rows"),
    ("single key", "NOT (ID <> 1 AND ID <> 3)", lambda r: r[0] in (1, 3), "rows"),
    ("single key", "NOT ID > 2", lambda r: r[0] <= 2, NEEDS_SCAN),
    ("single key", "NOT (ID = 2 AND N = 1)", lambda r: not (r[0] == 2 and r[1] == 1), SINGLE_KEY_BOUND),
    ("single key", "NOT (ID <> 2 OR N <> 2)", lambda r: r[0] == 2, "rows"),
    ("single key", "ID IN (1) AND NOT ID = 1", lambda r: False, SINGLE_KEY_BOUND),
    # BETWEEN, NOT BETWEEN, NOT IN, IS [NOT] NULL, LIKE on the key: not rewritten (ksqlDB rewrites BETWEEN
    # only on ROWTIME and the window bounds), so the key is met outside a comparison
    ("single key", "ID BETWEEN 1 AND 2", lambda r: r[0] in (1, 2), INDIRECT),
    ("single key", "ID NOT BETWEEN 1 AND 2", lambda r: r[0] == 3, INDIRECT),
    ("single key", "NOT ID BETWEEN 1 AND 2", lambda r: r[0] == 3, INDIRECT),
    ("single key", "ID = 2 AND ID BETWEEN 1 AND 2", lambda r: r[0] == 2, INDIRECT),
    ("windowed", "ID BETWEEN 1 AND 2", lambda r: True, INDIRECT),
    ("windowed", "2 = ID AND 1000 = WINDOWSTART", lambda r: r[0] == 2 and _ws(r) == 1000, "rows"),
    ("windowed", "ID = 2 AND 2000 <= WINDOWSTART", lambda r: r[0] == 2 and _ws(r) >= 2000, "rows"),
    ("windowed", "2000 > WINDOWEND AND 1 = ID", lambda r: False, "rows"),
    # a single STRING key: one range (either side) is a range scan, allowed with table scans off
    ("string key", "'a' < ID", lambda r: r[0] > "a", "rows"),
    ("string key", "ID >= 'ab'", lambda r: r[0] >= "ab", "rows"),
    ("string key", "NOT ID < 'b'", lambda r: r[0] >= "b", "rows"),
    ("string key", "'b' >= ID AND N = 2", lambda r: r[0] == "ab", "rows"),
    ("string key", "ID > 'a' AND ID < 'c'", lambda r: r[0] in ("ab", "b"), COMBINED),
    ("string key", "ID < 'ab' OR ID > 'b'", lambda r: r[0] in ("a", "c"), NEEDS_SCAN),
    ("string key", "ID BETWEEN 'a' AND 'b'", lambda r: r[0] in ("a", "ab", "b"), INDIRECT),
    ("string key", "ID LIKE 'a%'", lambda r: r[0].startswith("a"), INDIRECT),
    ("string key", "ID NOT LIKE 'a%'", lambda r: not r[0].startswith("a"), INDIRECT),
    ("string key", "ID = 'ab' AND ID LIKE 'a%'", lambda r: r[0] == "ab", INDIRECT),
    ("string key", "'ab' LIKE ID", lambda r: r[0] == "ab", "Like condition must be between strings"),
    ("single key", "ID NOT IN (1, 2)", lambda r: r[0] == 3, INDIRECT),
    ("single key", "NOT ID IN (1, 3)", lambda r: r[0] == 2, INDIRECT),
    ("single key", "ID IS NULL", lambda r: False, INDIRECT),
    ("single key", "ID IS NOT NULL", lambda r: True, INDIRECT),
    ("single key", "ID IN (1, 2) AND ID IN (2, 3)", lambda r: r[0] == 2,
     "A comparison condition on the key column cannot be combined with other comparisons such as an IN predicate"),
    ("single key", "ID = 2 AND N IS NOT NULL", lambda r: r[0] == 2, "rows"),
    # a key reached through a function or a cast is not compared directly; a non-key one beside a key is a filter
    ("single key", "ABS(ID) = 2", lambda r: r[0] == 2, INDIRECT),
    ("single key", "CAST(ID AS STRING) = '3'", lambda r: r[0] == 3, INDIRECT),
    ("single key", "ID = 2 AND ABS(N) = 2", lambda r: r[0] == 2, "rows"),
    ("single key", "ID IN (1, 2) AND N * 2 > 3", lambda r: r[0] == 2, "rows"),
    ("multi-column key", "K1 = 1 AND CONCAT(K2, '') = 'a'", lambda r: r[:2] == [1, "a"], INDIRECT),
    ("single key", "ID = 2 AND N BETWEEN 1 AND 2", lambda r: r[0] == 2, "rows"),
]

# key values no key can take: (key type, WHERE, the refusal). A literal is coerced by resolveKey itself
# ("'<value>' can not be converted ..."); any other expression by the resolver ("Expected type ...").
KEY_VALUE_ERRORS: list[tuple[str, str, str]] = [
    ("INT", "ID = CAST(2 AS BIGINT)", "Expected type INTEGER for field `ID` but got BIGINT(2)"),
    ("INT", "ID IN (1, CAST(2 AS BIGINT))", "Expected type INTEGER for field `ID` but got BIGINT(2)"),
    ("INT", "ID = 2.0 - 0.0", "Expected type INTEGER for field `ID` but got DECIMAL(2.0)"),
    ("INT", "ID = 1.5", "'1.5' can not be converted to the type of the key column: ID INTEGER KEY"),
    ("BIGINT", "ID = CAST(2 AS DOUBLE)", "Expected type BIGINT for field `ID` but got DOUBLE(2.0)"),
    ("INT", "ID = CAST(NULL AS INT)", "Primary key columns can not be NULL: (ID = CAST(null AS INTEGER))"),
    ("INT", "ID IN (1, NULL)", "Primary key columns can not be NULL: (ID = null)"),
    ("BIGINT", "ID IN (ABS(CAST(NULL AS BIGINT)))",
     "Primary key columns can not be NULL: (ID = ABS(CAST(null AS BIGINT)))"),
    ("DATE", "ID = CAST(1 AS INT)", "Cannot compare ID (DATE) to CAST(1 AS INTEGER) (INTEGER) with EQUAL"),
]
# key values that are expressions and widen to the key's type: (key type, record key, WHERE, shown key)
KEY_VALUE_LOOKUPS: list[tuple[str, Any, str, Any]] = [  # shown None: no row
    ("BIGINT", 2, "ID = 1 + 1", 2),
    ("BIGINT", 2, "ID = CAST(2 AS BIGINT)", 2),
    ("DOUBLE", 2.0, "ID = 1 + 1", 2.0),
    ("DOUBLE", 2.5, "ID = 5.0 / 2", 2.5),
    ("DECIMAL(3, 1)", 2.5, "ID = 2.0 + 0.5", 2.5),
    ("DECIMAL(3, 1)", 2.0, "ID = 1 + 1", 2.0),
    ("STRING", "ab", "ID = CONCAT('a', 'b')", "ab"),
    ("STRING", "ab", "ID IN (LCASE('AB'), 'x')", "ab"),
    ("TIMESTAMP", 1000, "ID = FROM_UNIXTIME(1000)", "1970-01-01T00:00:01.000"),
    ("DATE", 1, "ID = FROM_DAYS(1)", "1970-01-02"),
    ("BOOLEAN", True, "ID = (1 = 1)", True),
    ("ARRAY<BIGINT>", [1, 2], "ID = ARRAY[CAST(1 AS BIGINT), 2]", [1, 2]),
    ("STRUCT<F1 STRING, F2 INT>", {"F1": "a", "F2": 1}, "ID = STRUCT(F1 := 'a', F2 := 1)", {"F1": "a", "F2": 1}),
    # the key is found (the value coerced to the key's type), then the WHERE - which still runs on the rows
    # (QueryFilterNode's predicate) - compares with Java's equals (expr/java_equality): ARRAY[1, 2] holds
    # Integers, never equal to the key's Longs; a STRUCT's schema has its fields in order. No row.
    ("ARRAY<BIGINT>", [1, 2], "ID = ARRAY[1, 2]", None),
    ("STRUCT<F1 STRING, F2 INT>", {"F1": "a", "F2": 1}, "ID = STRUCT(F2 := 1, F1 := 'a')", None),
]


def _error(message: str) -> dict[str, Any]:
    return {"type": STATEMENT_ERROR, "message": message, "status": 400}


def _query(schema: str, rows: list[Row], final: str | None = None) -> dict[str, Any]:
    body: list[dict[str, Any]] = [{"header": {"schema": schema}}, *({"row": {"columns": r}} for r in rows)]
    if final:
        body.append({"finalMessage": final})
    return {"query": body}


def _status(n: int) -> list[dict[str, Any]]:
    return [{"admin": {"@type": "currentStatus"}}] * n


def shape_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for table, where, pred, no_scan in SHAPES:
        setup, inputs, rows, schema = TABLES[table]
        sql = f"SELECT * FROM X WHERE {where};"
        want = [r for r in rows if pred(r)]
        out.append({"name": f"{table} - WHERE {where}", "statements": [*setup, sql], "inputs": inputs,
                    "responses": [*_status(len(setup)), _query(schema, want)]})
        if no_scan == "rows":
            out.append({"name": f"{table} - WHERE {where} - key lookups with table scans disabled",
                        "statements": [*setup, sql], "inputs": inputs, "properties": NO_SCAN,
                        "responses": [*_status(len(setup)), _query(schema, want)]})
        elif no_scan is not None:
            out.append({"name": f"{table} - WHERE {where} - refused with table scans disabled",
                        "statements": [*setup, sql], "properties": NO_SCAN,
                        "expectedError": _error(invalid_where(no_scan, table == "windowed", sql))})
    return out


def _key_table(key_type: str) -> list[str]:
    return [f"CREATE STREAM S (ID {key_type} KEY, V INT) WITH (kafka_topic='s', key_format='JSON', "
            "value_format='JSON', partitions=1);",
            "CREATE TABLE X AS SELECT ID, COUNT(*) AS N FROM S GROUP BY ID;"]


def key_value_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for key_type, where, message in KEY_VALUE_ERRORS:
        sql = f"SELECT * FROM X WHERE {where};"
        # a pull query's planning errors name the statement (EngineExecutor's KsqlStatementException); a
        # type error is found before planning, in the WHERE's type check
        full = message if message.startswith("Cannot compare") else f"{message}\nStatement: {sql}"
        out.append({"name": f"a {key_type} key - WHERE {where} is refused", "statements": [*_key_table(key_type), sql],
                    "expectedError": _error(full)})
    for key_type, record_key, where, shown in KEY_VALUE_LOOKUPS:
        sql = f"SELECT * FROM X WHERE {where};"
        type_text = {"INT": "INTEGER", "STRUCT<F1 STRING, F2 INT>": "STRUCT<`F1` STRING, `F2` INTEGER>"}.get(key_type, key_type)
        for props in ({}, NO_SCAN):
            case: dict[str, Any] = {
                "name": f"a {key_type} key - WHERE {where} looks the key up"
                        + ("" if shown is not None else ", which the WHERE's Java equality then drops")
                        + (" with table scans disabled" if props else ""),
                "statements": [*_key_table(key_type), sql],
                "inputs": [{"topic": "s", "key": record_key, "value": {"V": 1}},
                           {"topic": "s", "key": None, "value": {"V": 1}}],
                "responses": [*_status(2), _query(f"`ID` {type_text} KEY, `N` BIGINT",
                                                   [] if shown is None else [[shown, 1]])]}
            if props:
                case["properties"] = props
            out.append(case)
    return out


STREAM = ("CREATE STREAM S (ID INT KEY, V INT, H ARRAY<STRUCT<KEY STRING, VALUE BYTES>> HEADERS) "
          "WITH (kafka_topic='s', value_format='JSON', partitions=1);")
EVENTS = [(1, 10, 100), (2, 20, 200), (2, 30, 300), (3, 40, 400)]


def stream_cases() -> list[dict[str, Any]]:
    """Pull queries on a stream: the topic read from the start to the offsets at the query's start, each
    record a row; LIMIT ends with 'Limit Reached', the end of the topic with 'Query Completed'."""
    inputs = [{"topic": "s", "key": k, "value": {"V": v}, "timestamp": ts,
               "headers": [{"KEY": "h", "VALUE": "AQ=="}]} for k, v, ts in EVENTS]
    schema = "`ID` INTEGER, `V` INTEGER, `H` ARRAY<STRUCT<`KEY` STRING, `VALUE` BYTES>>"
    header = [{"KEY": "h", "VALUE": "AQ=="}]
    rows = [[k, v, header] for k, v, _ in EVENTS]
    queries: list[tuple[str, str, list[Row], str]] = [
        ("SELECT * FROM S;", schema, rows, "Query Completed"),
        ("SELECT * FROM S WHERE ID = 2;", schema, [r for r in rows if r[0] == 2], "Query Completed"),
        ("SELECT * FROM S WHERE ID IN (1, 3);", schema, [r for r in rows if r[0] in (1, 3)], "Query Completed"),
        ("SELECT * FROM S WHERE V > 15 LIMIT 2;", schema, rows[1:3], "Limit Reached"),
        ("SELECT * FROM S WHERE V > 35 LIMIT 2;", schema, rows[3:], "Query Completed"),
        ("SELECT * FROM S LIMIT 0;", schema, [], "Limit Reached"),
        ("SELECT ID, ROWTIME FROM S WHERE ROWTIME >= 200;", "`ID` INTEGER, `ROWTIME` BIGINT",
         [[k, ts] for k, _, ts in EVENTS if ts >= 200], "Query Completed"),
        ("SELECT V, H[1]->KEY AS HK FROM S WHERE ID = 1;", "`V` INTEGER, `HK` STRING", [[10, "h"]],
         "Query Completed"),
        ("SELECT ID, V * 2 AS W FROM S WHERE ID BETWEEN 2 AND 3 AND V <> 30;", "`ID` INTEGER, `W` INTEGER",
         [[2, 40], [3, 80]], "Query Completed"),
    ]
    out: list[dict[str, Any]] = []
    for sql, sch, want, final in queries:
        out.append({"name": f"a stream - {sql}", "statements": [STREAM, sql], "inputs": inputs,
                    "responses": [*_status(1), _query(sch, want, final)]})
    return out


def windowed_source_cases() -> list[dict[str, Any]]:
    """Pull queries on windowed sources declared over a topic (WINDOW_TYPE): a windowed stream's rows carry
    their window bounds as value columns after the key; a windowed SOURCE table is looked up like a windowed
    aggregation, its bounds KEY columns."""
    window = "WINDOW_TYPE='TUMBLING', WINDOW_SIZE='1 SECOND'"
    inputs = [{"topic": "w", "key": 1, "value": {"V": 1}, "timestamp": 500,
               "window": {"start": 0, "end": 1000, "type": "time"}},
              {"topic": "w", "key": 2, "value": {"V": 2}, "timestamp": 1500,
               "window": {"start": 1000, "end": 2000, "type": "time"}}]
    stream = f"CREATE STREAM X (ID INT KEY, V INT) WITH (kafka_topic='w', value_format='JSON', partitions=1, {window});"
    table = (f"CREATE SOURCE TABLE X (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='w', value_format='JSON', "
             f"partitions=1, {window});")
    s_schema = "`ID` INTEGER, `WINDOWSTART` BIGINT, `WINDOWEND` BIGINT, `V` INTEGER"
    t_schema = "`ID` INTEGER KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, `V` INTEGER"
    rows = [[1, 0, 1000, 1], [2, 1000, 2000, 2]]
    queries: list[tuple[str, str, str, list[Row], str | None]] = [
        (stream, "SELECT * FROM X;", s_schema, rows, "Query Completed"),
        (stream, "SELECT * FROM X WHERE WINDOWSTART >= 1000;", s_schema, rows[1:], "Query Completed"),
        (stream, "SELECT ID, WINDOWEND FROM X WHERE ID = 2 LIMIT 1;", "`ID` INTEGER, `WINDOWEND` BIGINT",
         [[2, 2000]], "Limit Reached"),
        (table, "SELECT * FROM X WHERE ID = 2;", t_schema, rows[1:], None),
        (table, "SELECT * FROM X WHERE ID = 1 AND WINDOWSTART = 0;", t_schema, rows[:1], None),
        (table, "SELECT * FROM X WHERE ID IN (1, 2) AND WINDOWEND IN (2000);", t_schema, rows[1:], None),
        (table, "SELECT * FROM X;", t_schema, rows, None),
    ]
    return [{"name": f"a windowed {'stream' if create is stream else 'SOURCE table'} - {sql}",
             "statements": [create, sql], "inputs": inputs,
             "responses": [*_status(1), _query(sch, want, final)]} for create, sql, sch, want, final in queries]


def cases() -> list[dict[str, Any]]:
    return shape_cases() + key_value_cases() + stream_cases() + windowed_source_cases()


if __name__ == "__main__":
    (HERE / "pull-where-shapes.json").write_text(json.dumps({
        "comments": ["Pull-query WHERE shapes beyond a plain key equality, key values that are expressions, and "
                     "pull queries on streams. Generated by gen_pull_where_shapes.py, in ksqlDB's REST test "
                     "format, written for ksqlpy."],
        "tests": cases()}, indent=1) + "\n")
