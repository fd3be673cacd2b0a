"""Generates REST cases over the scope of ksqlDB's REST query-validation areas, in ksqlDB's REST test format:

- ``push-queries-by-format.json``: push queries (``/query``, StreamedRow) over streams and tables for every key
  format (with JSON values) and every value format (with KAFKA keys), LIMIT and its final message, the
  projection as the header's value columns, a table's delete as a tombstone row;
- ``pull-queries-by-table-kind.json``: pull queries against tables built every way - a SOURCE table in every
  key and value format, CREATE TABLE AS SELECT with and without aggregation, windowed by each window type,
  table-table joins (primary and foreign key), and a plain CREATE TABLE, which is not queryable;
- ``insert-values-by-format.json``: INSERT ... VALUES over ``/ksql`` into streams and tables of every format,
  read back from the topic and by a push query, and its refusals with their status and error type;
- ``multi-statement-requests.json``: the admin statements of a case go to ``/ksql`` as one request, validated
  as a whole first - every statement kind after one that makes a query, and the error of a later statement.

Run ``python tests/cases/rest/gen_rest_scope.py`` to rewrite the files next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

STATEMENT_ERROR = "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage"
ERROR = "io.confluent.ksql.rest.entity.KsqlErrorMessage"
STATUS = {"admin": {"@type": "currentStatus"}}

KEY_FORMATS = ["KAFKA", "JSON", "DELIMITED", "AVRO", "PROTOBUF", "PROTOBUF_NOSR", "JSON_SR"]
VALUE_FORMATS = ["JSON", "DELIMITED", "AVRO", "PROTOBUF", "PROTOBUF_NOSR", "JSON_SR", "KAFKA"]


def _value(fmt: str, v: str, n: int) -> Any:
    """A (V STRING, N INT) value as the case's input/output format writes it."""
    return f"{v},{n}" if fmt == "DELIMITED" else {"V": v, "N": n}


def _key(fmt: str, k: int) -> Any:
    """A one-column INT key ``ID`` as the case's outputs give it: DELIMITED as text, PROTOBUF always wrapped in
    its message (ksqlDB's PROTOBUF formats wrap single keys)."""
    if fmt == "DELIMITED":
        return str(k)
    return {"ID": k} if fmt in ("PROTOBUF", "PROTOBUF_NOSR") else k


def _header(schema: str) -> dict[str, Any]:
    return {"header": {"schema": schema}}


def _rows(*rows: list[Any]) -> list[dict[str, Any]]:
    return [{"row": {"columns": list(r)}} for r in rows]


def _query(schema: str, rows: list[dict[str, Any]], final: str | None = None) -> dict[str, Any]:
    return {"query": [_header(schema), *rows] + ([{"finalMessage": final}] if final else [])}


# -------------------------------------------------------------------------------------------- push queries


def push_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    combos = [(k, "JSON") for k in KEY_FORMATS] + [("KAFKA", v) for v in VALUE_FORMATS if v != "JSON"]
    for kf, vf in combos:
        if vf == "KAFKA":
            cols, value = "V STRING", (lambda v, n: v)
            schema, rows = "`ID` INTEGER, `V` STRING", [[1, "a"], [2, "b"], [1, "c"]]
            tschema = schema
        else:
            cols, value = "V STRING, N INT", (lambda v, n, vf=vf: _value(vf, v, n))
            schema, rows = "`ID` INTEGER, `V` STRING, `N` INTEGER", [[1, "a", 1], [2, "b", 2], [1, "c", 3]]
            tschema = schema
        inputs = [{"topic": "input", "key": r[0], "value": value(r[1], r[2] if len(r) > 2 else 0), "timestamp": i}
                  for i, r in enumerate(rows)]
        fmt = f"key_format='{kf}', value_format='{vf}'"
        out.append({
            "name": f"push query over a stream - {kf} keys, {vf} values",
            "statements": [f"CREATE STREAM S (ID INT KEY, {cols}) WITH (kafka_topic='input', {fmt});",
                           "SELECT * FROM S EMIT CHANGES LIMIT 3;"],
            "inputs": inputs,
            "responses": [STATUS, _query(schema, _rows(*rows), "Limit Reached")],
        })
        out.append({
            "name": f"push query over a table - {kf} keys, {vf} values",
            "statements": [f"CREATE TABLE T (ID INT PRIMARY KEY, {cols}) WITH (kafka_topic='input', {fmt});",
                           "SELECT * FROM T EMIT CHANGES LIMIT 3;"],
            "inputs": inputs,
            "responses": [STATUS, _query(tschema, _rows(*rows), "Limit Reached")],
        })
        if vf not in ("KAFKA", "DELIMITED"):  # a tombstone: a null value deletes the key
            out.append({
                "name": f"push query over a table shows a delete as a tombstone - {kf} keys, {vf} values",
                "statements": [f"CREATE TABLE T (ID INT PRIMARY KEY, {cols}) WITH (kafka_topic='input', {fmt});",
                               "SELECT ID, V FROM T EMIT CHANGES LIMIT 2;"],
                "inputs": [inputs[0], {"topic": "input", "key": 1, "value": None, "timestamp": 5}],
                "responses": [STATUS, {"query": [_header("`ID` INTEGER, `V` STRING"),
                                                 {"row": {"columns": [1, "a"]}},
                                                 {"row": {"columns": [1, None], "tombstone": True}},
                                                 {"finalMessage": "Limit Reached"}]}],
            })
    out.append({
        "name": "push query over a stream without key columns - NONE keys",
        "statements": ["CREATE STREAM S (V STRING, N INT) WITH (kafka_topic='input', key_format='NONE', "
                       "value_format='JSON');",
                       "SELECT * FROM S EMIT CHANGES LIMIT 2;"],
        "inputs": [{"topic": "input", "key": None, "value": {"V": "a", "N": 1}},
                   {"topic": "input", "key": None, "value": {"V": "b", "N": 2}}],
        "responses": [STATUS, _query("`V` STRING, `N` INTEGER", _rows(["a", 1], ["b", 2]), "Limit Reached")],
    })
    stream = "CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='input', value_format='JSON');"
    events = [{"topic": "input", "key": 1, "value": {"V": 1}, "timestamp": 1000},
              {"topic": "input", "key": 1, "value": {"V": 2}, "timestamp": 1500},
              {"topic": "input", "key": 2, "value": {"V": 3}, "timestamp": 2100}]
    out += [
        {
            "name": "push query projecting pseudo columns, expressions and aliases",
            "statements": [stream, "SELECT ROWTIME, ID, V * 2 AS D, ROWPARTITION >= 0 AS P FROM S EMIT CHANGES LIMIT 2;"],
            "inputs": events[:2],
            "responses": [STATUS, _query("`ROWTIME` BIGINT, `ID` INTEGER, `D` INTEGER, `P` BOOLEAN",
                                         _rows([1000, 1, 2, True], [1500, 1, 4, True]), "Limit Reached")],
        },
        {
            "name": "push query with WHERE keeps matching rows only",
            "statements": [stream, "SELECT * FROM S WHERE V > 1 EMIT CHANGES LIMIT 2;"],
            "inputs": events,
            "responses": [STATUS, _query("`ID` INTEGER, `V` INTEGER", _rows([1, 2], [2, 3]), "Limit Reached")],
        },
        {
            "name": "transient aggregation emits every update of its groups",
            "statements": [stream, "SELECT ID, SUM(V) AS TOTAL FROM S GROUP BY ID EMIT CHANGES LIMIT 3;"],
            "inputs": events,
            "responses": [STATUS, _query("`ID` INTEGER, `TOTAL` INTEGER", _rows([1, 1], [1, 3], [2, 3]),
                                         "Limit Reached")],
        },
        {
            "name": "transient windowed aggregation shows window bounds only when selected",
            "statements": [stream, "SELECT ID, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY ID "
                                   "EMIT CHANGES LIMIT 3;"],
            "inputs": events,
            "responses": [STATUS, _query("`ID` INTEGER, `C` BIGINT", _rows([1, 1], [1, 2], [2, 1]),
                                         "Limit Reached")],
        },
        {
            "name": "transient hopping aggregation with its window bounds",
            "statements": [stream, "SELECT ID, WINDOWSTART AS WS, WINDOWEND AS WE, COUNT(*) AS C FROM S "
                                   "WINDOW HOPPING (SIZE 2 SECONDS, ADVANCE BY 1 SECOND) GROUP BY ID "
                                   "EMIT CHANGES LIMIT 4;"],
            "inputs": events[:2],
            "responses": [STATUS, _query("`ID` INTEGER, `WS` BIGINT, `WE` BIGINT, `C` BIGINT",
                                         _rows([1, 0, 2000, 1], [1, 1000, 3000, 1], [1, 0, 2000, 2],
                                               [1, 1000, 3000, 2]), "Limit Reached")],
        },
        {
            "name": "push query over a windowed table lists the window bounds after the key",
            "statements": [stream, "CREATE TABLE W AS SELECT ID, COUNT(*) AS C FROM S WINDOW TUMBLING "
                                   "(SIZE 1 SECOND) GROUP BY ID;",
                           "SELECT * FROM W EMIT CHANGES LIMIT 3;"],
            "inputs": events,
            "responses": [STATUS, STATUS,
                          _query("`ID` INTEGER, `WINDOWSTART` BIGINT, `WINDOWEND` BIGINT, `C` BIGINT",
                                 _rows([1, 1000, 2000, 1], [1, 1000, 2000, 2], [2, 2000, 3000, 1]),
                                 "Limit Reached")],
        },
        {
            "name": "push query over a session-windowed table",
            "statements": [stream, "CREATE TABLE W AS SELECT ID, COUNT(*) AS C FROM S WINDOW SESSION (1 SECOND) "
                                   "GROUP BY ID;",
                           "SELECT ID, WINDOWSTART, WINDOWEND, C FROM W EMIT CHANGES LIMIT 4;"],
            "inputs": events[:2],
            "responses": [STATUS, STATUS,
                          {"query": [_header("`ID` INTEGER, `WINDOWSTART` BIGINT, `WINDOWEND` BIGINT, `C` BIGINT"),
                                     {"row": {"columns": [1, 1000, 1000, 1]}},
                                     {"row": {"columns": [1, 1000, 1000, None], "tombstone": True}},
                                     {"row": {"columns": [1, 1000, 1500, 2]}}]}],
        },
        {
            "name": "push query over a stream-table join",
            "statements": [stream, "CREATE TABLE T (ID INT PRIMARY KEY, NAME STRING) WITH (kafka_topic='t', "
                                   "value_format='JSON');",
                           "SELECT S.ID, V, NAME FROM S JOIN T ON S.ID = T.ID EMIT CHANGES LIMIT 2;"],
            # a qualified column of a join is named after its source's alias
            "inputs": [{"topic": "t", "key": 1, "value": {"NAME": "one"}, "timestamp": 0},
                       {"topic": "t", "key": 2, "value": {"NAME": "two"}, "timestamp": 0}] + events,
            "responses": [STATUS, STATUS,
                          _query("`S_ID` INTEGER, `V` INTEGER, `NAME` STRING", _rows([1, 1, "one"], [1, 2, "one"]),
                                 "Limit Reached")],
        },
        {
            "name": "push query reading from latest sees only what is produced after it started",
            "statements": [stream, "SELECT * FROM S EMIT CHANGES LIMIT 1;"],
            "properties": {"auto.offset.reset": "latest"},
            "inputConditions": {"waitForActivePushQuery": True},
            "inputs": events[:1],
            "responses": [STATUS, _query("`ID` INTEGER, `V` INTEGER", _rows([1, 1]), "Limit Reached")],
        },
        {
            "name": "a SET among the admin statements lasts for their request only, not for the query",
            "statements": [stream, "SET 'auto.offset.reset'='latest';", "SELECT * FROM S EMIT CHANGES LIMIT 1;"],
            "inputs": events[:1],
            "responses": [STATUS, _query("`ID` INTEGER, `V` INTEGER", _rows([1, 1]), "Limit Reached")],
        },
        {
            "name": "push query over a stream made by INSERT VALUES in the same request",
            "statements": [stream, "INSERT INTO S (ROWTIME, ID, V) VALUES (10, 7, 70);",
                           "INSERT INTO S (ROWTIME, ID, V) VALUES (20, 8, 80);",
                           "SELECT ROWTIME, ID, V FROM S EMIT CHANGES LIMIT 2;"],
            "responses": [STATUS, _query("`ROWTIME` BIGINT, `ID` INTEGER, `V` INTEGER",
                                         _rows([10, 7, 70], [20, 8, 80]), "Limit Reached")],
        },
        {
            "name": "push query over an unknown source is a statement error",
            "statements": ["SELECT * FROM NOPE EMIT CHANGES;"],
            "expectedError": {"type": STATEMENT_ERROR, "message": "NOPE does not exist.", "status": 400},
        },
        {
            "name": "push query with an unknown column is a statement error",
            "statements": [stream, "SELECT NOPE FROM S EMIT CHANGES;"],
            "expectedError": {"type": STATEMENT_ERROR, "message": "Line: 1, Col: 8: SELECT column 'NOPE' cannot be resolved.", "status": 400},
        },
        {
            # ksqlDB's harness sends the first SELECT and everything after it to /query, one by one
            "name": "a statement after the first query goes to /query, which refuses what is no query",
            "statements": [stream, "SELECT * FROM S;", "SHOW STREAMS;"],
            "expectedError": {"type": "io.confluent.ksql.rest.entity.KsqlErrorMessage", "status": 400,
                              "message": "Statement type `io.confluent.ksql.parser.KsqlParser$PreparedStatement' "
                                         "not supported for this resource"},
        },
        {
            "name": "an INSERT after the first query goes to /query too and is refused there",
            "statements": [stream, "SELECT * FROM S;", "INSERT INTO S (ID, V) VALUES (1, 1);",
                           "SELECT * FROM S;"],
            "expectedError": {"type": "io.confluent.ksql.rest.entity.KsqlErrorMessage", "status": 400,
                              "message": "Statement type `io.confluent.ksql.parser.KsqlParser$PreparedStatement' "
                                         "not supported for this resource"},
        },
        {
            "name": "queries after the admin statements each answer in turn",
            "statements": [stream, "INSERT INTO S (ROWTIME, ID, V) VALUES (10, 7, 70);", "SELECT * FROM S;",
                           "SELECT V FROM S WHERE ID = 7;"],
            "responses": [STATUS, _query("`ID` INTEGER, `V` INTEGER", _rows([7, 70]), "Query Completed"),
                          _query("`V` INTEGER", _rows([70]), "Query Completed")],
        },
    ]
    return out


# -------------------------------------------------------------------------------------------- pull queries


def pull_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for kf, vf in [(k, "JSON") for k in KEY_FORMATS] + [("KAFKA", v) for v in VALUE_FORMATS if v not in ("JSON",)]:
        if vf == "KAFKA":
            cols, schema, val, row = "V STRING", "`ID` INTEGER KEY, `V` STRING", "a", [1, "a"]
        else:
            cols, schema, val, row = "V STRING, N INT", "`ID` INTEGER KEY, `V` STRING, `N` INTEGER", \
                _value(vf, "a", 5), [1, "a", 5]
        out.append({
            "name": f"pull query against a SOURCE table - {kf} keys, {vf} values",
            "statements": [f"CREATE SOURCE TABLE T (ID INT PRIMARY KEY, {cols}) WITH (kafka_topic='input', "
                           f"key_format='{kf}', value_format='{vf}');",
                           "SELECT * FROM T WHERE ID = 1;", "SELECT * FROM T;"],
            "inputs": [{"topic": "input", "key": 1, "value": val, "timestamp": 1},
                       {"topic": "input", "key": 2, "value": val, "timestamp": 2}],
            "responses": [STATUS, _query(schema, _rows(row)), _query(schema, _rows(row, [2, *row[1:]]))],
        })
    for kf in KEY_FORMATS[1:]:  # two key columns (KAFKA keys have one)
        out.append({
            "name": f"pull query against an aggregation grouped by two columns - {kf} keys",
            "statements": [f"CREATE STREAM S2 (A INT KEY, B STRING KEY, V INT) WITH (kafka_topic='input', "
                           f"key_format='{kf}', value_format='JSON');",
                           "CREATE TABLE T2 AS SELECT A, B, SUM(V) AS TOT FROM S2 GROUP BY A, B;",
                           "SELECT * FROM T2 WHERE A = 1 AND B = 'x';", "SELECT TOT FROM T2;"],
            "inputs": [{"topic": "input", "key": "1,x" if kf == "DELIMITED" else {"A": 1, "B": "x"}, "value": {"V": 2}},
                       {"topic": "input", "key": "2,y" if kf == "DELIMITED" else {"A": 2, "B": "y"}, "value": {"V": 3}}],
            "responses": [STATUS, STATUS, _query("`A` INTEGER KEY, `B` STRING KEY, `TOT` INTEGER", _rows([1, "x", 2])),
                          _query("`TOT` INTEGER", _rows([2], [3]))],
        })
    out += [
        {
            "name": "pull query against an aggregation of a table (a row moving to another group)",
            "statements": ["CREATE TABLE U (ID INT PRIMARY KEY, G STRING, V INT) WITH (kafka_topic='u', "
                           "value_format='JSON');",
                           "CREATE TABLE G AS SELECT G, SUM(V) AS TOT, COUNT(*) AS C FROM U GROUP BY G;",
                           "SELECT * FROM G WHERE G = 'a';"],
            "inputs": [{"topic": "u", "key": 1, "value": {"G": "a", "V": 1}},
                       {"topic": "u", "key": 2, "value": {"G": "a", "V": 2}},
                       {"topic": "u", "key": 1, "value": {"G": "b", "V": 5}}],
            "responses": [STATUS, STATUS, _query("`G` STRING KEY, `TOT` INTEGER, `C` BIGINT", _rows(["a", 2, 1]))],
        },
        {
            "name": "pull query against an aggregation keyed by a STRUCT",
            "statements": ["CREATE STREAM SK (K STRUCT<X INT> KEY, V INT) WITH (kafka_topic='sk', key_format='JSON', "
                           "value_format='JSON');",
                           "CREATE TABLE TK AS SELECT K, COUNT(*) AS C FROM SK GROUP BY K;", "SELECT * FROM TK;"],
            "inputs": [{"topic": "sk", "key": {"X": 1}, "value": {"V": 1}}],
            "responses": [STATUS, STATUS, _query("`K` STRUCT<`X` INTEGER> KEY, `C` BIGINT", _rows([{"X": 1}, 1]))],
        },
    ]
    stream = "CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='input', value_format='JSON');"
    events = [{"topic": "input", "key": 1, "value": {"V": 1}, "timestamp": 1000},
              {"topic": "input", "key": 1, "value": {"V": 2}, "timestamp": 1500},
              {"topic": "input", "key": 2, "value": {"V": 3}, "timestamp": 2100}]
    table = "CREATE TABLE T (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='t', value_format='JSON');"
    trows = [{"topic": "t", "key": 1, "value": {"V": 10}}, {"topic": "t", "key": 2, "value": {"V": 20}}]
    out += [
        {
            "name": "pull query against CREATE TABLE AS SELECT with aggregation",
            "statements": [stream, "CREATE TABLE A AS SELECT ID, SUM(V) AS TOTAL, COUNT(*) AS C FROM S GROUP BY ID;",
                           "SELECT * FROM A WHERE ID = 1;", "SELECT TOTAL FROM A WHERE ID IN (1, 2);"],
            "inputs": events,
            "responses": [STATUS, STATUS, _query("`ID` INTEGER KEY, `TOTAL` INTEGER, `C` BIGINT", _rows([1, 3, 2])),
                          _query("`TOTAL` INTEGER", _rows([3], [3]))],
        },
        {
            "name": "pull query against CREATE TABLE AS SELECT without aggregation",
            "statements": [table, "CREATE TABLE T2 AS SELECT ID, V * 2 AS D FROM T WHERE V > 10;",
                           "SELECT * FROM T2;", "SELECT * FROM T2 WHERE ID = 1;"],
            "inputs": trows,
            "responses": [STATUS, STATUS, _query("`ID` INTEGER KEY, `D` INTEGER", _rows([2, 40])),
                          _query("`ID` INTEGER KEY, `D` INTEGER", [])],
        },
        {
            "name": "pull query against a tumbling-windowed table",
            "statements": [stream, "CREATE TABLE W AS SELECT ID, COUNT(*) AS C FROM S WINDOW TUMBLING "
                                   "(SIZE 1 SECOND) GROUP BY ID;",
                           "SELECT * FROM W WHERE ID = 1;"],
            "inputs": events,
            "responses": [STATUS, STATUS,
                          _query("`ID` INTEGER KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, `C` BIGINT",
                                 _rows([1, 1000, 2000, 2]))],
        },
        {
            "name": "pull query against a hopping-windowed table",
            "statements": [stream, "CREATE TABLE W AS SELECT ID, COUNT(*) AS C FROM S WINDOW HOPPING "
                                   "(SIZE 2 SECONDS, ADVANCE BY 1 SECOND) GROUP BY ID;",
                           "SELECT * FROM W WHERE ID = 2;"],
            "inputs": events,
            "responses": [STATUS, STATUS,
                          _query("`ID` INTEGER KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, `C` BIGINT",
                                 _rows([2, 1000, 3000, 1], [2, 2000, 4000, 1]))],
        },
        {
            "name": "pull query against a session-windowed table",
            "statements": [stream, "CREATE TABLE W AS SELECT ID, COUNT(*) AS C FROM S WINDOW SESSION (1 SECOND) "
                                   "GROUP BY ID;",
                           "SELECT * FROM W WHERE ID = 1;"],
            "inputs": events,
            "responses": [STATUS, STATUS,
                          _query("`ID` INTEGER KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, `C` BIGINT",
                                 _rows([1, 1000, 1500, 2]))],
        },
        {
            "name": "pull query against a table-table join",
            "statements": [table, "CREATE TABLE U (ID INT PRIMARY KEY, NAME STRING) WITH (kafka_topic='u', "
                                  "value_format='JSON');",
                           "CREATE TABLE J AS SELECT T.ID, V, NAME FROM T JOIN U ON T.ID = U.ID;",
                           "SELECT * FROM J WHERE T_ID = 1;"],
            "inputs": trows + [{"topic": "u", "key": 1, "value": {"NAME": "one"}}],
            "responses": [STATUS, STATUS, STATUS,
                          _query("`T_ID` INTEGER KEY, `V` INTEGER, `NAME` STRING", _rows([1, 10, "one"]))],
        },
        {
            "name": "pull query against a foreign-key table join",
            "statements": ["CREATE TABLE O (OID INT PRIMARY KEY, UID INT) WITH (kafka_topic='o', value_format='JSON');",
                           "CREATE TABLE U (ID INT PRIMARY KEY, NAME STRING) WITH (kafka_topic='u', "
                           "value_format='JSON');",
                           "CREATE TABLE J AS SELECT OID, NAME FROM O JOIN U ON O.UID = U.ID;",
                           "SELECT * FROM J;"],
            "inputs": [{"topic": "u", "key": 1, "value": {"NAME": "one"}},
                       {"topic": "o", "key": 10, "value": {"UID": 1}}, {"topic": "o", "key": 11, "value": {"UID": 2}}],
            "responses": [STATUS, STATUS, STATUS, _query("`OID` INTEGER KEY, `NAME` STRING", _rows([10, "one"]))],
        },
        {
            "name": "pull query against a stream scans it to its end",
            "statements": [stream, "SELECT * FROM S WHERE V >= 2;"],
            "inputs": events,
            "responses": [STATUS, _query("`ID` INTEGER, `V` INTEGER", _rows([1, 2], [2, 3]), "Query Completed")],
        },
        {
            "name": "pull query against a table made by CREATE TABLE over a topic is refused",
            "statements": [table, "SELECT * FROM T WHERE ID = 1;"],
            "expectedError": {"type": STATEMENT_ERROR, "status": 400,
                              "message": "The `T` table isn't queryable. To derive a queryable table, you can do "
                                         "'CREATE TABLE QUERYABLE_T AS SELECT * FROM T'. See "
                                         "https://cnfl.io/queries for more info."},
        },
        {
            "name": "pull query against an unknown table",
            "statements": ["SELECT * FROM NOPE WHERE ID = 1;"],
            "expectedError": {"type": STATEMENT_ERROR, "message": "NOPE does not exist.", "status": 400},
        },
    ]
    return out


# -------------------------------------------------------------------------------------------- INSERT VALUES


def insert_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for kf, vf in [(k, "JSON") for k in KEY_FORMATS] + [("KAFKA", v) for v in VALUE_FORMATS if v != "JSON"]:
        single = vf == "KAFKA"
        cols = "V STRING" if single else "V STRING, N INT"
        fmt = f"key_format='{kf}', value_format='{vf}'"
        for kind, key in (("STREAM", "KEY"), ("TABLE", "PRIMARY KEY")):
            values = "(1, 'a')" if single else "(1, 'a', 2)"
            named = "(ID, V) VALUES (2, 'b')" if single else "(N, ID, V) VALUES (3, 2, 'b')"
            first = "a" if single else _value(vf, "a", 2)
            second = "b" if single else _value(vf, "b", 3)
            out.append({
                "name": f"INSERT VALUES into a {kind.lower()} - {kf} keys, {vf} values",
                "statements": [f"CREATE {kind} X (ID INT {key}, {cols}) WITH (kafka_topic='x', partitions=1, {fmt});",
                               f"INSERT INTO X (ROWTIME, ID, {cols.replace(' STRING', '').replace(' INT', '')}) "
                               f"VALUES (100, {values[1:]};",
                               f"INSERT INTO X {named};",
                               "SELECT * FROM X EMIT CHANGES LIMIT 2;"],
                "outputs": [{"topic": "x", "key": _key(kf, 1), "value": first, "timestamp": 100},
                            {"topic": "x", "key": _key(kf, 2), "value": second}],
                "responses": [STATUS,
                              _query("`ID` INTEGER, `V` STRING" + ("" if single else ", `N` INTEGER"),
                                     _rows([1, "a"] if single else [1, "a", 2],
                                           [2, "b"] if single else [2, "b", 3]), "Limit Reached")],
            })
    stream = ("CREATE STREAM S (ID INT KEY, V STRING, D DECIMAL(4, 2), TS TIMESTAMP, A ARRAY<INT>, "
              "M MAP<STRING, INT>, ST STRUCT<X INT, Y STRING>) WITH (kafka_topic='s', partitions=1, value_format='JSON');")
    out.append({
        "name": "INSERT VALUES coerces literals to the columns' types and leaves the rest NULL",
        "statements": [stream,
                       "INSERT INTO S (ID, V, D, TS, A, M, ST) VALUES (1, 'x', 1.25, '2020-01-02T03:04:05.006', "
                       "ARRAY[1, 2], MAP('k' := 3), STRUCT(X := 4, Z := 'dropped'));",
                       "INSERT INTO S (ID) VALUES (2);",
                       "SELECT * FROM S EMIT CHANGES LIMIT 2;"],
        "responses": [STATUS, _query("`ID` INTEGER, `V` STRING, `D` DECIMAL(4, 2), `TS` TIMESTAMP, `A` ARRAY<INTEGER>, "
                                     "`M` MAP<STRING, INTEGER>, `ST` STRUCT<`X` INTEGER, `Y` STRING>",
                                     _rows([1, "x", 1.25, "2020-01-02T03:04:05.006", [1, 2], {"k": 3},
                                            {"X": 4, "Y": None}],
                                           [2, None, None, None, None, None, None]), "Limit Reached")],
    })
    refusals = [
        ("into an unknown source", "INSERT INTO NOPE (ID) VALUES (1);", ERROR,
         "Cannot insert values into an unknown stream/table: "),
        ("with more values than columns", "INSERT INTO S (ID, V) VALUES (1, 'a', 'b');", STATEMENT_ERROR,
         "Failed to prepare statement: Expected number columns and values to match: 2, 3"),
        ("without a column list and too few values", "INSERT INTO S VALUES (1, 'a');", STATEMENT_ERROR,
         "Failed to insert values into 'S'. Expected a value for each column. Expected Columns: []. Got [1, 'a']"),
        ("into an unknown column", "INSERT INTO S (ID, NOPE) VALUES (1, 2);", STATEMENT_ERROR,
         "Failed to insert values into 'S'. Column name `NOPE` does not exist."),
        ("into ROWOFFSET", "INSERT INTO S (ID, ROWOFFSET) VALUES (1, 2);", STATEMENT_ERROR,
         "Failed to insert values into 'S'. Inserting into column `ROWOFFSET` is not allowed."),
        ("of a column reference", "INSERT INTO S (ID, V) VALUES (1, V);", STATEMENT_ERROR,
         "Failed to insert values into 'S'. Unsupported column reference in insert value: V"),
        ("of a value of the wrong type", "INSERT INTO S (ID, V) VALUES (1, 2);", STATEMENT_ERROR,
         "Failed to insert values into 'S'. Expected type STRING for field `V` but got INTEGER(2)"),
        ("of text that is no timestamp", "INSERT INTO S (ID, TS) VALUES (1, 'soon');", STATEMENT_ERROR,
         "Failed to insert values into 'S'. Expected type TIMESTAMP for field `TS` but got STRING(soon). "
         "Timestamp format must be yyyy-mm-ddThh:mm:ss[.S]"),
        ("of a decimal that does not fit", "INSERT INTO S (ID, D) VALUES (1, 123.456);", STATEMENT_ERROR,
         "Failed to insert values into 'S'. Expected type DECIMAL(4, 2) for field `D` but got DECIMAL(123.456)"),
        ("into a table without its primary key", "INSERT INTO T (V) VALUES ('a');", STATEMENT_ERROR,
         "Failed to insert values into 'T'. Value for primary key column(s) ID is required for tables"),
        ("into a windowed table", "INSERT INTO W (ID) VALUES (1);", ERROR,
         "Cannot insert values into windowed stream/table!"),
        ("into a SOURCE table", "INSERT INTO ST (ID, V) VALUES (1, 'a');", ERROR,
         "Cannot insert values into read-only table: ST"),
    ]
    setup = [stream,
             "CREATE TABLE T (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='t', partitions=1, value_format='JSON');",
             "CREATE TABLE W AS SELECT ID, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY ID;",
             "CREATE SOURCE TABLE ST (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='st', partitions=1, "
             "value_format='JSON');"]
    for name, stmt, kind, message in refusals:
        out.append({
            "name": f"INSERT VALUES {name} is refused",
            "statements": [*setup, stmt],
            "expectedError": {"type": kind, "message": message, "status": 400},
        })
    return out


# -------------------------------------------------------------------------------------------- one request


def multi_statement_cases() -> list[dict[str, Any]]:
    base = ["CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', partitions=1, value_format='JSON');",
            "CREATE STREAM S2 AS SELECT * FROM S;",
            "CREATE TABLE A AS SELECT ID, COUNT(*) AS C FROM S GROUP BY ID;"]
    out: list[dict[str, Any]] = []
    kinds: list[tuple[str, dict[str, Any]]] = [
        ("DESCRIBE S EXTENDED;", {"@type": "sourceDescription", "statementText": "{STATEMENT}"}),
        ("DESCRIBE A;", {"@type": "sourceDescription", "statementText": "{STATEMENT}"}),
        ("DESCRIBE STREAMS EXTENDED;", {"@type": "source_descriptions"}),
        ("LIST TABLES EXTENDED;", {"@type": "source_descriptions"}),
        ("SHOW STREAMS;", {"@type": "streams"}),
        ("LIST TABLES;", {"@type": "tables", "tables": [{"type": "TABLE", "name": "A", "topic": "A",
                                                         "keyFormat": "KAFKA", "valueFormat": "JSON",
                                                         "isWindowed": False}]}),
        ("SHOW QUERIES;", {"@type": "queries"}),
        ("SHOW QUERIES EXTENDED;", {"@type": "query_descriptions"}),
        ("EXPLAIN SELECT * FROM S2 EMIT CHANGES;", {"@type": "queryDescription"}),
        ("EXPLAIN CREATE STREAM S3 AS SELECT * FROM S2;", {"@type": "queryDescription"}),
        ("SHOW TOPICS;", {"@type": "kafka_topics"}),
        ("SHOW PROPERTIES;", {"@type": "properties"}),
        ("SHOW FUNCTIONS;", {"@type": "function_names"}),
        ("DESCRIBE FUNCTION COUNT;", {"@type": "describe_function", "name": "COUNT", "type": "AGGREGATE"}),
        ("SHOW TYPES;", {"@type": "type_list"}),
        ("CREATE OR REPLACE STREAM S2 AS SELECT ID, V + 1 AS V FROM S;", {
            "@type": "currentStatus", "commandId": "stream/S2/create"}),
        ("TERMINATE ALL;", {"@type": "currentStatus", "commandId": "terminate/ALL/execute",
                            "commandStatus": {"status": "SUCCESS", "message": "Query terminated.",
                                              "queryId": None}}),
        ("DROP STREAM S2 DELETE TOPIC;", {"@type": "currentStatus", "commandId": "stream/S2/drop",
                                          "commandStatus": {"status": "SUCCESS", "queryId": None,
                                                            "message": "Source `S2` (topic: S2) was dropped."}}),
    ]
    for stmt, entity in kinds:
        out.append({
            "name": f"one request: {stmt.rstrip(';')} after statements that made queries",
            "statements": [*base, stmt],
            "responses": [STATUS, STATUS, STATUS, {"admin": entity}],
        })
    out += [
        {
            "name": "one request: a later statement's error runs nothing of the request",
            "statements": [*base, "DROP STREAM NOPE;", "SHOW STREAMS;"],
            "expectedError": {"type": STATEMENT_ERROR, "message": "Stream NOPE does not exist.", "status": 400},
        },
        {
            # the source at the harness's count, as the sinks the outputs name (created before the statements)
            "name": "one request: a statement sees the sources made before it in the request",
            "statements": [base[0].replace("partitions=1, ", ""), *base[1:], "CREATE STREAM S4 AS SELECT ID, V FROM S2 WHERE V > 0;",
                           "CREATE TABLE A2 AS SELECT ID, C * 2 AS D FROM A;"],
            "inputs": [{"topic": "s", "key": 1, "value": {"V": 5}}],
            "outputs": [{"topic": "S2", "key": 1, "value": {"V": 5}}, {"topic": "S4", "key": 1, "value": {"V": 5}},
                        {"topic": "A", "key": 1, "value": {"C": 1}}, {"topic": "A2", "key": 1, "value": {"D": 2}}],
            "responses": [STATUS] * 5,
        },
        {
            "name": "one request: dropping a source a query of the request reads is refused",
            "statements": [*base, "DROP STREAM S;"],
            "expectedError": {"type": STATEMENT_ERROR, "status": 400, "message": "Cannot drop S."},
        },
    ]
    # a later statement's new topic with a count the broker refuses: the sandbox's topic client has the broker
    # validate it, so the request fails in validation (a plain KsqlException, 40000) after an INSERT VALUES and
    # an INSERT INTO ... SELECT too
    partitions = "Number of partitions was set to an invalid non-positive value."
    replicas = "Replication factor must be larger than 0, or -1 to use the default\n\tvalue."
    refused = [
        ("CREATE STREAM", "CREATE STREAM N (ID INT KEY) WITH (kafka_topic='n', partitions=0, value_format='JSON');",
         "n", partitions),
        ("CREATE TABLE", "CREATE TABLE N (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='n', partitions=2, replicas=-4, "
                         "value_format='JSON');", "n", replicas),
        ("CREATE STREAM AS SELECT", "CREATE STREAM N WITH (partitions=-3) AS SELECT * FROM S2;", "N", partitions),
        ("CREATE TABLE AS SELECT", "CREATE TABLE N WITH (kafka_topic='n_t', replicas=0) AS SELECT ID, SUM(V) AS T "
                                   "FROM S2 GROUP BY ID;", "n_t", replicas),
    ]
    for kind, stmt, topic, cause in refused:
        out.append({
            "name": f"one request: a later {kind}'s refused topic count fails the request in validation",
            "statements": [base[0], "INSERT INTO S (ID, V) VALUES (1, 2);", base[1], "INSERT INTO S2 SELECT * FROM S;",
                           stmt, "SHOW STREAMS;"],
            "expectedError": {"type": ERROR, "status": 400,
                              "message": f"Failed to guarantee existence of topic {topic}\nCaused by: {cause}"},
        })
    return out


FILES = {
    "push-queries-by-format.json": ("Push queries over /query across key and value formats, streams, tables and "
                                    "windows.", push_cases),
    "pull-queries-by-table-kind.json": ("Pull queries against tables built every way and streams.", pull_cases),
    "insert-values-by-format.json": ("INSERT ... VALUES over /ksql into every format, and its refusals.",
                                     insert_cases),
    "multi-statement-requests.json": ("A case's admin statements as one /ksql request, validated as a whole.",
                                      multi_statement_cases),
}


if __name__ == "__main__":
    for name, (comment, build) in FILES.items():
        (HERE / name).write_text(json.dumps({"comments": [comment + " Generated by gen_rest_scope.py, in ksqlDB's "
                                                          "REST test format, written for ksqlpy."],
                                             "tests": build()}, indent=1) + "\n")
