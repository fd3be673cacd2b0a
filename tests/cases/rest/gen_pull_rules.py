"""Generates ``pull-query-rules.json``: every pull-query refusal rule (and its accepting counterpart) against
every kind of queryable table, in ksqlDB's REST test format, with the properties that switch a rule on set the
way ksqlDB's harness sets them (the case's ``properties``, sent with each request).

Table kinds: CREATE TABLE AS SELECT with aggregation, windowed (TUMBLING) aggregation, a table-table join,
CREATE SOURCE TABLE, and CREATE TABLE AS SELECT without aggregation; plus a stream and a plain CREATE TABLE
(not queryable). Rules (ksqlDB's PullQueryValidator, then the pull planner's key and scan rules):

- clauses a pull query does not support (JOIN, WINDOW, GROUP BY - also an aggregate without GROUP BY, which
  the analyzer groups by a constant -, PARTITION BY, HAVING), each with the hint to add EMIT CHANGES (a windowed
  table joined with one that is not meets the Analyzer's windowing refusal first: pull-rule-order.json);
- ROWOFFSET / ROWPARTITION in SELECT or WHERE;
- ``ksql.query.pull.limit.clause.enabled=false`` refuses LIMIT; LIMIT otherwise cuts the rows;
- with ``ksql.query.pull.table.scan.enabled=false``: a disjunct without a key comparison (a non-key
  predicate, a key OR'ed with a non-key), no WHERE at all and a range on a non-STRING key need a scan; a key
  compared with ``!=`` is refused by its bound; an OR of key equalities is key lookups; NOT is pushed down to
  the comparisons first (``NOT ID <> 1`` is a lookup, ``NOT ID = 1`` a key compared with ``<>``); a window
  bound compared with anything but =, <, <=, >, >= (``!=``, IS [NOT] DISTINCT FROM) needs a scan;
- WINDOWSTART / WINDOWEND of a table that is not windowed cannot be resolved;
- ``ksql.query.pull.stream.enabled=false`` refuses a pull query on a stream, whatever its WHERE;
- a plain CREATE TABLE is not queryable;
- an unknown source (FROM or JOIN) is the sanitizer's error, before any of the rules above, with its position
  and did-you-mean hint as in any query.

Run ``python tests/cases/rest/gen_pull_rules.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

STATEMENT_ERROR = "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage"
HINT = " See https://cnfl.io/queries for more info.\nAdd EMIT CHANGES if you intended to issue a push query."
NO_SCAN = {"ksql.query.pull.table.scan.enabled": False}

STREAM = "CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON');"
T1 = "CREATE TABLE T1 (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='t1', value_format='JSON');"
T2 = "CREATE TABLE T2 (ID INT PRIMARY KEY, W INT) WITH (kafka_topic='t2', value_format='JSON');"

# name -> (statements that make it, inputs, its rows as ``SELECT *`` gives them (key 1 then key 2), the
# header's schema of SELECT *)
KINDS: dict[str, tuple[list[str], list[dict[str, Any]], list[list[Any]], str]] = {
    "CTAS aggregate": (
        [STREAM, "CREATE TABLE X AS SELECT ID, COUNT(*) AS V FROM S GROUP BY ID;"],
        [{"topic": "s", "key": 1, "value": {"V": 7}}, {"topic": "s", "key": 2, "value": {"V": 8}},
         {"topic": "s", "key": 2, "value": {"V": 9}}],
        [[1, 1], [2, 2]], "`ID` INTEGER KEY, `V` BIGINT"),
    "windowed aggregate": (
        [STREAM, "CREATE TABLE X AS SELECT ID, COUNT(*) AS V FROM S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY ID;"],
        [{"topic": "s", "key": 1, "value": {"V": 7}, "timestamp": 1000},
         {"topic": "s", "key": 2, "value": {"V": 8}, "timestamp": 1100},
         {"topic": "s", "key": 2, "value": {"V": 9}, "timestamp": 1200}],
        [[1, 1000, 2000, 1], [2, 1000, 2000, 2]],
        "`ID` INTEGER KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, `V` BIGINT"),
    "table-table join": (
        [T1, T2, "CREATE TABLE X AS SELECT T1.ID AS ID, T1.V AS V, T2.W AS W FROM T1 JOIN T2 ON T1.ID = T2.ID;"],
        [{"topic": "t2", "key": 1, "value": {"W": 10}}, {"topic": "t2", "key": 2, "value": {"W": 20}},
         {"topic": "t1", "key": 1, "value": {"V": 1}}, {"topic": "t1", "key": 2, "value": {"V": 2}}],
        [[1, 1, 10], [2, 2, 20]], "`ID` INTEGER KEY, `V` INTEGER, `W` INTEGER"),
    "SOURCE table": (
        ["CREATE SOURCE TABLE X (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='x', value_format='JSON');"],
        [{"topic": "x", "key": 1, "value": {"V": 1}}, {"topic": "x", "key": 2, "value": {"V": 2}}],
        [[1, 1], [2, 2]], "`ID` INTEGER KEY, `V` INTEGER"),
    "CTAS without aggregation": (
        [T1, "CREATE TABLE X AS SELECT * FROM T1 WHERE V > 0;"],
        [{"topic": "t1", "key": 1, "value": {"V": 1}}, {"topic": "t1", "key": 2, "value": {"V": 2}},
         {"topic": "t1", "key": 3, "value": {"V": -1}}],
        [[1, 1], [2, 2]], "`ID` INTEGER KEY, `V` INTEGER"),
}

# a refused query: (rule, query, properties, message)
CLAUSES = [
    ("a JOIN", "SELECT * FROM X JOIN T9 ON X.ID = T9.ID;", "Pull queries don't support JOIN clauses." + HINT),
    ("a WINDOW clause", "SELECT ID, COUNT(*) FROM X WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY ID;",
     "Pull queries don't support WINDOW clauses." + HINT),
    ("GROUP BY", "SELECT ID, COUNT(*) FROM X GROUP BY ID;", "Pull queries don't support GROUP BY clauses." + HINT),
    ("an aggregate without GROUP BY", "SELECT COUNT(*) FROM X;",
     "Pull queries don't support GROUP BY clauses." + HINT),
    ("PARTITION BY", "SELECT * FROM X PARTITION BY V;", "Pull queries don't support PARTITION BY clauses." + HINT),
    ("HAVING", "SELECT * FROM X HAVING V > 1;", "Pull queries don't support HAVING clauses." + HINT),
    ("ROWOFFSET selected", "SELECT ID, ROWOFFSET FROM X;",
     "Pull queries don't support the following columns in SELECT clauses: `ROWOFFSET`"),
    ("ROWPARTITION in WHERE", "SELECT * FROM X WHERE ROWPARTITION = 1;",
     "Pull queries don't support the following columns in WHERE clauses: `ROWPARTITION`"),
]
T9 = "CREATE TABLE T9 (ID INT PRIMARY KEY, Z INT) WITH (kafka_topic='t9', value_format='JSON');"
LIMIT_OFF = {"ksql.query.pull.limit.clause.enabled": False}
LIMIT_OFF_MESSAGE = ("LIMIT clause in pull queries is currently disabled. You can enable them by setting "
                     "ksql.query.pull.limit.clause.enabled=true." + HINT)
SCANS = [
    ("a non-key predicate", "SELECT * FROM X WHERE V = 1;", "WHERE clause missing key column for disjunct: (V = 1)"),
    ("a key OR'ed with a non-key predicate", "SELECT * FROM X WHERE ID = 1 OR V = 2;",
     "WHERE clause missing key column for disjunct: (V = 2)"),
    ("no WHERE", "SELECT * FROM X;", "Query requires table scan to be enabled"),
    ("a range on an INT key", "SELECT * FROM X WHERE ID > 1;", "Query requires table scan to be enabled"),
    ("a key compared with !=", "SELECT * FROM X WHERE ID != 1;",
     "Bound on key columns '[`ID` INTEGER KEY]' must currently be '='"),
    ("a key compared with a column", "SELECT * FROM X WHERE ID = V;",
     "A comparison must be between a key column and a resolvable expression"),
    ("an expression of the key", "SELECT * FROM X WHERE ID + 1 = 2;", "A comparison must directly reference a key column"),
    ("a key with = and IN", "SELECT * FROM X WHERE ID = 1 AND ID IN (1, 2);",
     "A comparison condition on the key column cannot be combined with other comparisons such as an IN predicate"),
    # NOT is pushed down to the comparisons first (LogicRewriter.rewriteNegations): NOT ID = 1 is ID <> 1
    ("a negated key equality", "SELECT * FROM X WHERE NOT ID = 1;",
     "Bound on key columns '[`ID` INTEGER KEY]' must currently be '='"),
    ("a negated OR of keys", "SELECT * FROM X WHERE NOT (ID = 1 OR ID = 2);",
     "Bound on key columns '[`ID` INTEGER KEY]' must currently be '='"),
]
# window bounds take =, <, <=, >, >= only (QueryFilterNode's VALID_WINDOW_BOUND_COMPARISONS, texts from memory)
WINDOW_SCANS = [
    ("WINDOWSTART compared with !=", "SELECT * FROM X WHERE ID = 1 AND WINDOWSTART != 1000;",
     "Unsupported WINDOWSTART bounds: NOT_EQUAL"),
    ("WINDOWEND compared with <>", "SELECT * FROM X WHERE ID = 1 AND 2000 <> WINDOWEND;",
     "Unsupported WINDOWEND bounds: NOT_EQUAL"),
    ("a negated WINDOWSTART equality", "SELECT * FROM X WHERE ID = 1 AND NOT WINDOWSTART = 1000;",
     "Unsupported WINDOWSTART bounds: NOT_EQUAL"),
    ("WINDOWSTART IS DISTINCT FROM", "SELECT * FROM X WHERE ID = 1 AND WINDOWSTART IS DISTINCT FROM 1000;",
     "Unsupported WINDOWSTART bounds: IS_DISTINCT_FROM"),
    ("WINDOWEND IS NOT DISTINCT FROM", "SELECT * FROM X WHERE ID = 1 AND WINDOWEND IS NOT DISTINCT FROM 2000;",
     "Unsupported WINDOWEND bounds: IS_NOT_DISTINCT_FROM"),
]


def invalid_where(reason: str, windowed: bool, sql: str) -> str:
    """The whole refusal of a WHERE key lookups cannot answer with scans off (ksqlDB's
    QueryFilterNode.invalidWhereClauseException, from memory): reason, syntax help, what the WHERE must be -
    with the window bounds a windowed table takes -, the scan switch; then the statement, as the pull query's
    planning errors name it."""
    window = ("\n - (optionally) limits the time bounds of the windowed table.\n\t Bounds on [`WINDOWSTART`, "
              "`WINDOWEND`] are supported\n\t Supported operators are [EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL, "
              "LESS_THAN, LESS_THAN_OR_EQUAL]") if windowed else ""
    return (f"{reason}.{HINT}\nPull queries require a WHERE clause that:\n - includes a key equality expression, "
            "e.g. `SELECT * FROM X WHERE <key-column>=Y;`.\n - in the case of a multi-column key, is a conjunction "
            f"of equality expressions that cover all key columns.{window}\nIf more flexible queries are needed, "
            f"table scans can be enabled by setting ksql.query.pull.table.scan.enabled=true.\nStatement: {sql}")


def _error(message: str) -> dict[str, Any]:
    return {"type": STATEMENT_ERROR, "message": message, "status": 400}


def _query(schema: str, rows: list[list[Any]]) -> dict[str, Any]:
    return {"query": [{"header": {"schema": schema}}, *({"row": {"columns": r}} for r in rows)]}


def _status(n: int) -> list[dict[str, Any]]:
    return [{"admin": {"@type": "currentStatus"}}] * n


def _refused(kind: str, rule: str, setup: list[str], sql: str, message: str,
             properties: dict[str, Any] | None = None) -> dict[str, Any]:
    case: dict[str, Any] = {"name": f"{kind} - {rule} is refused", "statements": [*setup, sql],
                            "expectedError": _error(message)}
    if properties:
        case["properties"] = properties
    return case


def cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for kind, (setup, inputs, rows, schema) in KINDS.items():
        windowed = kind == "windowed aggregate"
        for rule, sql, message in CLAUSES:
            if windowed and "JOIN" in sql:
                # the Analyzer reads the join before PullQueryValidator refuses it: a windowed table joined with
                # one that is not is refused for its windowing first
                rule, message = ("a JOIN with a table not windowed", "Can not join windowed source to "
                                 "non-windowed source.\n`X` is TUMBLING windowed\n`T9` is not windowed")
            out.append(_refused(kind, rule, [*setup, T9] if "JOIN" in sql else setup, sql, message))
        out.append(_refused(kind, "LIMIT with ksql.query.pull.limit.clause.enabled=false", setup,
                            "SELECT * FROM X LIMIT 1;", LIMIT_OFF_MESSAGE, LIMIT_OFF))
        for rule, sql, message in SCANS + (WINDOW_SCANS if windowed else []):
            out.append(_refused(kind, f"{rule} with table scans disabled", setup, sql,
                                invalid_where(message, windowed, sql), NO_SCAN))
        if not windowed:
            for col in ("WINDOWSTART", "WINDOWEND"):
                out.append(_refused(kind, f"{col} of a table that is not windowed", setup,
                                    f"SELECT * FROM X WHERE ID = 1 AND {col} >= 0;",
                                    f"WHERE column '{col}' cannot be resolved"))
        accepted = [
            ("a key lookup", "SELECT * FROM X WHERE ID = 2;", {}, [rows[1]]),
            ("an OR of keys with table scans disabled", "SELECT * FROM X WHERE ID = 1 OR ID = 2;", NO_SCAN, rows),
            ("an IN of keys with table scans disabled", "SELECT * FROM X WHERE ID IN (2, 1);", NO_SCAN, rows),
            ("a non-key predicate (a table scan)", "SELECT * FROM X WHERE V >= 2;", {},
             [r for r in rows if r[-1 if windowed else 1] >= 2]),
            ("LIMIT", "SELECT * FROM X WHERE ID = 1 LIMIT 1;", {}, [rows[0]]),
            ("LIMIT 0", "SELECT * FROM X LIMIT 0;", {}, []),
            ("a negated key inequality with table scans disabled", "SELECT * FROM X WHERE NOT ID <> 2;", NO_SCAN,
             [rows[1]]),
            ("a negated AND of key inequalities with table scans disabled",
             "SELECT * FROM X WHERE NOT (ID <> 1 AND ID <> 2);", NO_SCAN, rows),
        ]
        if windowed:
            accepted += [
                ("a key with WINDOWSTART != (a table scan)",
                 "SELECT * FROM X WHERE ID IN (1, 2) AND WINDOWSTART != 2000;", {}, rows),
                ("a key with WINDOWEND IS DISTINCT FROM (a table scan)",
                 "SELECT * FROM X WHERE ID = 2 AND WINDOWEND IS DISTINCT FROM 2000;", {}, []),
                ("a key with a negated WINDOWSTART bound and table scans disabled",
                 "SELECT * FROM X WHERE ID = 1 AND NOT WINDOWSTART < 1000;", NO_SCAN, [rows[0]]),
                ("a key with a negated WINDOWEND bound and table scans disabled",
                 "SELECT * FROM X WHERE ID = 2 AND NOT WINDOWEND > 1500;", NO_SCAN, []),
            ]
            accepted.append(("a key with WINDOWSTART bounds and table scans disabled",
                             "SELECT * FROM X WHERE ID = 1 AND WINDOWSTART >= 1000 AND WINDOWEND <= 2000;",
                             NO_SCAN, [rows[0]]))
        for rule, sql, props, want in accepted:
            case: dict[str, Any] = {"name": f"{kind} - {rule}", "statements": [*setup, sql], "inputs": inputs,
                                    "responses": [*_status(len(setup)), _query(schema, want)]}
            if props:
                case["properties"] = props
            out.append(case)
    events = [{"topic": "s", "key": 1, "value": {"V": 7}}, {"topic": "s", "key": 2, "value": {"V": 8}}]
    out += [
        _refused("a stream", "a pull query with ksql.query.pull.stream.enabled=false", [STREAM], "SELECT * FROM S;",
                 "Pull queries on streams are disabled. To create a push query on the stream, add EMIT CHANGES to "
                 "the end. To enable pull queries on streams, set the ksql.query.pull.stream.enabled config to "
                 "'true'.", {"ksql.query.pull.stream.enabled": False}),
        _refused("a stream", "a pull query with a WHERE and ksql.query.pull.stream.enabled=false", [STREAM],
                 "SELECT * FROM S WHERE ID = 1;", "Pull queries on streams are disabled.",
                 {"ksql.query.pull.stream.enabled": False}),
        _refused("a stream", "an unknown column before ksql.query.pull.stream.enabled=false", [STREAM],
                 "SELECT NOPE FROM S;", "SELECT column 'NOPE' cannot be resolved.",
                 {"ksql.query.pull.stream.enabled": False}),
        {"name": "a stream - a pull query with table scans disabled reads it whole", "statements": [STREAM,
         "SELECT * FROM S WHERE V = 8;"], "properties": NO_SCAN, "inputs": events,
         "responses": [*_status(1), {"query": [{"header": {"schema": "`ID` INTEGER, `V` INTEGER"}},
                                               {"row": {"columns": [2, 8]}}, {"finalMessage": "Query Completed"}]}]},
        {"name": "a stream - a pull query with LIMIT", "statements": [STREAM, "SELECT * FROM S LIMIT 1;"],
         "inputs": [{"topic": "s", "key": 1, "value": {"V": 7}}, {"topic": "s", "key": 1, "value": {"V": 8}}],
         "responses": [*_status(1), {"query": [{"header": {"schema": "`ID` INTEGER, `V` INTEGER"}},
                                               {"row": {"columns": [1, 7]}}, {"finalMessage": "Limit Reached"}]}]},
        _refused("an unknown source", "a pull query", [STREAM], "SELECT * FROM NOPE WHERE ID = 1;",
                 "Line: 1, Col: 15: NOPE does not exist."),
        _refused("an unknown source", "a pull query with GROUP BY (the source is checked first)", [STREAM],
                 "SELECT ID, COUNT(*) FROM NOPE GROUP BY ID;", "Line: 1, Col: 26: NOPE does not exist."),
        _refused("an unknown source", "a pull query joining it (the source is checked first)", [STREAM],
                 "SELECT * FROM S JOIN NOPE ON S.ID = NOPE.ID;", "Line: 1, Col: 22: NOPE does not exist."),
        _refused("an unknown source", "a pull query naming a quoted source unquoted",
                 ["CREATE STREAM \"Low\" (ID INT KEY, V INT) WITH (kafka_topic='low', value_format='JSON');"],
                 "SELECT * FROM low;", "LOW does not exist.\nDid you mean \"Low\"? Hint: wrap the source name in "
                 "double quotes to make it case-sensitive."),
        _refused("a plain CREATE TABLE", "a key lookup", [T1], "SELECT * FROM T1 WHERE ID = 1;",
                 "The `T1` table isn't queryable. To derive a queryable table, you can do 'CREATE TABLE "
                 "QUERYABLE_T1 AS SELECT * FROM T1'. See https://cnfl.io/queries for more info."),
    ]
    return out


# a key lookup's value, coerced to the key column's type as ksqlDB's resolveKey does (DefaultSqlValueCoercer.STRICT:
# numbers only widen, text becomes a DATE/TIME/TIMESTAMP; from memory): key type, literal, the row's key as the
# response shows it (None: refused)
KEY_VALUES: list[tuple[str, str, Any]] = [
    ("INT", "1", 1), ("INT", "1.0", None), ("INT", "3000000000", None),
    ("BIGINT", "1", 1), ("BIGINT", "1.5", None),
    ("DOUBLE", "1", 1.0), ("DOUBLE", "1.0", 1.0), ("DOUBLE", "1e0", 1.0),
    ("DECIMAL(4, 1)", "1", 1.0), ("DECIMAL(4, 1)", "1.0", 1.0), ("DECIMAL(4, 1)", "1e0", None),
    ("TIMESTAMP", "'2020-01-01T00:00:00'", "2020-01-01T00:00:00.000"),
    ("TIMESTAMP", "'2020-01-01T00:00:00.000'", "2020-01-01T00:00:00.000"),
    ("DATE", "'2020-01-02'", "2020-01-02"),
    ("TIME", "'10:00:01'", "10:00:01"),
    ("BOOLEAN", "true", True), ("BYTES", "TO_BYTES('AQI=', 'base64')", "AQI="),
]
# the record key that makes the shown key, where the JSON key's form is not the shown one (millis, days)
KEY_RECORDS: dict[str, Any] = {"2020-01-01T00:00:00.000": 1577836800000, "2020-01-02": 18263, "10:00:01": 36001000}


def key_value_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for key_type, literal, shown in KEY_VALUES:
        setup = [f"CREATE STREAM S (ID {key_type} KEY, V INT) WITH (kafka_topic='s', key_format='JSON', "
                 "value_format='JSON');",
                 "CREATE TABLE T AS SELECT ID, COUNT(*) AS N FROM S GROUP BY ID;"]
        type_text = key_type.replace("INT", "INTEGER") if key_type == "INT" else key_type
        for form, where in (("=", f"ID = {literal}"), ("IN", f"ID IN ({literal})")):
            sql = f"SELECT * FROM T WHERE {where};"
            if shown is None:
                out.append(_refused(f"a {key_type} key", f"a lookup with {form} {literal}", setup, sql,
                                    f"'{literal if 'e' not in literal else float(literal)}' can not be converted to "
                                    f"the type of the key column: ID {type_text} KEY\nStatement: {sql}"))
                continue
            out.append({"name": f"a {key_type} key - a lookup with {form} {literal} takes the value", "statements":
                        [*setup, sql], "inputs": [{"topic": "s", "key": KEY_RECORDS.get(shown, shown),
                                                   "value": {"V": 1}}],
                        "responses": [*_status(2), _query(f"`ID` {type_text} KEY, `N` BIGINT", [[shown, 1]])]})
    return out


if __name__ == "__main__":
    (HERE / "pull-query-rules.json").write_text(json.dumps({
        "comments": ["Every pull-query refusal rule against every kind of queryable table, streams and a table "
                     "that is not queryable. Generated by gen_pull_rules.py, in ksqlDB's REST test format, written "
                     "for ksqlpy."],
        "tests": cases() + key_value_cases()}, indent=1) + "\n")
