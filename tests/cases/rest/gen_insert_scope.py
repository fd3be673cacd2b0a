"""Generates ``insert-scope.json``: INSERT INTO ... SELECT and INSERT INTO ... VALUES over ``/ksql`` across their
rules, in ksqlDB's REST test format, written for ksqlpy.

INSERT INTO ... SELECT: the sink keeps its own formats (a query from a JSON stream into a DELIMITED or JSON-keyed
one writes the sink's formats); the sink may be a CREATE STREAM AS SELECT's sink, written by both queries; a
PARTITION BY whose key matches the sink's; a query id chosen in the WITH clause and the properties it may not
have; the sink compatibility rules (column names, types, order, key columns, a stream without key columns) and
the targets it refuses (a table, a CREATE TABLE AS SELECT sink, a query producing a table, a SOURCE stream, a
stream with header columns, an unknown name).

INSERT INTO ... VALUES: into a stream a running query reads (the query's sink gets the row), into the sinks of
CREATE STREAM|TABLE AS SELECT (neither is read-only), the key left out of a stream's column list (a NULL key),
expressions and functions as values, a stream without key columns (KEY_FORMAT NONE), DELIMITED text holding the
delimiter, and the refusals of the pseudo columns and of duplicate query ids.

Run ``python tests/cases/rest/gen_insert_scope.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

STATEMENT_ERROR = "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage"
ERROR = "io.confluent.ksql.rest.entity.KsqlErrorMessage"
STATUS = {"admin": {"@type": "currentStatus"}}

S = "CREATE STREAM S (K INT KEY, A INT, B STRING) WITH (kafka_topic='s', partitions=1, value_format='JSON');"
S2 = "CREATE STREAM S2 (K INT KEY, A INT, B STRING) WITH (kafka_topic='s2', partitions=1, value_format='JSON');"
T = "CREATE TABLE T (K INT PRIMARY KEY, A INT, B STRING) WITH (kafka_topic='t', partitions=1, value_format='JSON');"


def _in(topic: str, key: Any, value: Any, ts: int) -> dict[str, Any]:
    return {"topic": topic, "key": key, "value": value, "timestamp": ts}


def _out(topic: str, key: Any, value: Any, ts: int | None = None) -> dict[str, Any]:
    rec = {"topic": topic, "key": key, "value": value}
    if ts is not None:
        rec["timestamp"] = ts
    return rec


def _query(schema: str, rows: list[list[Any]], final: str | None = "Limit Reached") -> dict[str, Any]:
    """A push query's response: its header's schema names no key (ksqlDB's transient query schema)."""
    schema = schema.replace(" KEY,", ",")
    return {"query": [{"header": {"schema": schema}}, *({"row": {"columns": r}} for r in rows)]
            + ([{"finalMessage": final}] if final else [])}


def _error(name: str, statements: list[str], message: str, kind: str = STATEMENT_ERROR) -> dict[str, Any]:
    return {"name": name, "statements": statements,
            "expectedError": {"type": kind, "message": message, "status": 400}}


def _schema_error(result: str, sink: str) -> str:
    return f"Incompatible schema between results and sink.\nResult schema is {result}\nSink schema is {sink}"


SINK_SCHEMA = "`K` INTEGER KEY, `A` INTEGER, `B` STRING"


def insert_select() -> list[dict[str, Any]]:
    rows = [_in("s", 1, {"A": 10, "B": "x"}, 1000), _in("s", 2, {"A": 20, "B": "y,z"}, 2000)]
    cases: list[dict[str, Any]] = [
        {"name": "INSERT INTO SELECT writes the sink's value format (DELIMITED) from a JSON stream",
         "statements": [S, "CREATE STREAM D (K INT KEY, A INT, B STRING) WITH (kafka_topic='d', partitions=1, "
                           "value_format='DELIMITED');",
                        "INSERT INTO D SELECT * FROM S;"],
         "inputs": rows,
         "outputs": [*rows, _out("d", 1, "10,x", 1000), _out("d", 2, '20,"y,z"', 2000)],
         "responses": [STATUS, STATUS, STATUS]},
        {"name": "INSERT INTO SELECT writes the sink's key format (JSON) from a KAFKA-keyed stream",
         "statements": [S, "CREATE STREAM J (K INT KEY, A INT, B STRING) WITH (kafka_topic='j', partitions=1, "
                           "key_format='JSON', value_format='JSON');",
                        "INSERT INTO J SELECT * FROM S;",
                        "SELECT * FROM J EMIT CHANGES LIMIT 2;"],
         "inputs": rows,
         "outputs": [*rows, _out("j", 1, {"A": 10, "B": "x"}, 1000), _out("j", 2, {"A": 20, "B": "y,z"}, 2000)],
         "responses": [STATUS, STATUS, STATUS, _query(SINK_SCHEMA, [[1, 10, "x"], [2, 20, "y,z"]])]},
        {"name": "INSERT INTO the sink of a CREATE STREAM AS SELECT: both queries write its topic",
         "statements": [S, S2, "CREATE STREAM ALL_ROWS AS SELECT * FROM S;",
                        "INSERT INTO ALL_ROWS SELECT * FROM S2;",
                        "SELECT * FROM ALL_ROWS EMIT CHANGES LIMIT 3;"],
         "inputs": [_in("s", 1, {"A": 10, "B": "x"}, 1000), _in("s2", 2, {"A": 20, "B": "y"}, 2000),
                    _in("s", 3, {"A": 30, "B": "z"}, 3000)],
         "responses": [STATUS, STATUS, STATUS, STATUS,
                       _query(SINK_SCHEMA, [[1, 10, "x"], [2, 20, "y"], [3, 30, "z"]])]},
        {"name": "INSERT INTO SELECT with PARTITION BY a value column the sink has as its key",
         "statements": [S, "CREATE STREAM BY_A (A INT KEY, K INT, B STRING) WITH (kafka_topic='by_a', "
                           "partitions=1, value_format='JSON');",
                        "INSERT INTO BY_A SELECT A, K, B FROM S PARTITION BY A;"],
         "inputs": rows,
         "outputs": [*rows, _out("by_a", 10, {"K": 1, "B": "x"}, 1000), _out("by_a", 20, {"K": 2, "B": "y,z"}, 2000)],
         "responses": [STATUS, STATUS, STATUS]},
        {"name": "INSERT INTO SELECT with PARTITION BY an expression named as the sink's key",
         "statements": [S, "CREATE STREAM BY_E (E INT KEY, A INT, B STRING) WITH (kafka_topic='by_e', "
                           "partitions=1, value_format='JSON');",
                        "INSERT INTO BY_E SELECT K * 100 AS E, A, B FROM S PARTITION BY K * 100;"],
         "inputs": rows,
         "outputs": [*rows, _out("by_e", 100, {"A": 10, "B": "x"}, 1000),
                     _out("by_e", 200, {"A": 20, "B": "y,z"}, 2000)],
         "responses": [STATUS, STATUS, STATUS]},
        {"name": "INSERT INTO SELECT runs under the query id its WITH clause names",
         "statements": [S, S2, "INSERT INTO S2 WITH (QUERY_ID='copy_s') SELECT * FROM S;",
                        "TERMINATE COPY_S;"],
         "responses": [STATUS, STATUS, {"admin": {"@type": "currentStatus",
                                                  "commandStatus": {
                                                      "status": "SUCCESS", "message": "Created query with ID COPY_S",
                                                      "queryId": "COPY_S"}}}, STATUS]},
        _error("INSERT INTO SELECT with a query id already running is refused",
               [S, S2, "INSERT INTO S2 WITH (QUERY_ID='COPY_S') SELECT * FROM S;",
                "INSERT INTO S2 WITH (QUERY_ID='COPY_S') SELECT * FROM S;"],
               "Query ID 'COPY_S' already exists."),
        _error("INSERT INTO SELECT with a query id of a reserved prefix is refused",
               [S, S2, "INSERT INTO S2 WITH (QUERY_ID='CSAS_MINE') SELECT * FROM S;"],
               "Query IDs must not start with a reserved query ID prefix (INSERTQUERY_, CTAS_, CSAS_, CST_). "
               "Got 'CSAS_MINE'."),
        _error("INSERT INTO SELECT with a query id of other characters is refused",
               [S, S2, "INSERT INTO S2 WITH (QUERY_ID='copy-s') SELECT * FROM S;"],
               "Query IDs may contain only alphanumeric characters and '_'. Got: 'COPY-S'"),
        _error("INSERT INTO SELECT takes no sink property in its WITH clause",
               [S, S2, "INSERT INTO S2 WITH (KAFKA_TOPIC='other') SELECT * FROM S;"],
               "Invalid config variable(s) in the WITH clause: KAFKA_TOPIC"),
        _error("INSERT INTO SELECT takes no format in its WITH clause",
               [S, S2, "INSERT INTO S2 WITH (VALUE_FORMAT='AVRO') SELECT * FROM S;"],
               "Invalid config variable(s) in the WITH clause: VALUE_FORMAT"),
        _error("INSERT INTO SELECT with the value columns in another order is refused",
               [S, S2, "INSERT INTO S2 SELECT K, B, A FROM S;"],
               _schema_error("`K` INTEGER KEY, `B` STRING, `A` INTEGER", SINK_SCHEMA)),
        _error("INSERT INTO SELECT with a value column fewer is refused",
               [S, S2, "INSERT INTO S2 SELECT K, A FROM S;"],
               _schema_error("`K` INTEGER KEY, `A` INTEGER", SINK_SCHEMA)),
        _error("INSERT INTO SELECT with a value column more is refused",
               [S, S2, "INSERT INTO S2 SELECT K, A, B, A AS C FROM S;"],
               _schema_error("`K` INTEGER KEY, `A` INTEGER, `B` STRING, `C` INTEGER", SINK_SCHEMA)),
        _error("INSERT INTO SELECT with the key named otherwise is refused",
               [S, S2, "INSERT INTO S2 SELECT K AS ID, A, B FROM S;"],
               _schema_error("`ID` INTEGER KEY, `A` INTEGER, `B` STRING", SINK_SCHEMA)),
        _error("INSERT INTO SELECT with a key of another type is refused",
               [S, "CREATE STREAM SK (K STRING KEY, A INT, B STRING) WITH (kafka_topic='sk', partitions=1, "
                   "value_format='JSON');",
                "INSERT INTO SK SELECT * FROM S;"],
               _schema_error(SINK_SCHEMA, "`K` STRING KEY, `A` INTEGER, `B` STRING")),
        _error("INSERT INTO SELECT with a value of another type is refused",
               [S, "CREATE STREAM SV (K INT KEY, A STRING, B STRING) WITH (kafka_topic='sv', partitions=1, "
                   "value_format='JSON');",
                "INSERT INTO SV SELECT * FROM S;"],
               _schema_error(SINK_SCHEMA, "`K` INTEGER KEY, `A` STRING, `B` STRING")),
        _error("INSERT INTO SELECT of a keyed stream into a stream without key columns is refused",
               [S, "CREATE STREAM NK (A INT, B STRING) WITH (kafka_topic='nk', partitions=1, value_format='JSON');",
                "INSERT INTO NK SELECT * FROM S;"],
               _schema_error(SINK_SCHEMA, "`A` INTEGER, `B` STRING")),
        _error("INSERT INTO SELECT into a table is refused",
               [S, T, "INSERT INTO T SELECT * FROM S;"],
               "INSERT INTO can only be used to insert into a stream. T is a table."),
        _error("INSERT INTO SELECT into the sink of a CREATE TABLE AS SELECT is refused",
               [S, "CREATE TABLE COUNTS AS SELECT K, COUNT(*) AS N FROM S GROUP BY K;",
                "INSERT INTO COUNTS SELECT K, COUNT(*) AS N FROM S GROUP BY K;"],
               "INSERT INTO can only be used to insert into a stream. COUNTS is a table."),
        _error("INSERT INTO SELECT of a query producing a table is refused",
               [S, T, "INSERT INTO S SELECT * FROM T;"],
               "Incompatible data sink and query result. Data sink (S) type is KSTREAM but select query result is "
               "KTABLE."),
        _error("INSERT INTO SELECT into a SOURCE stream is refused",
               [S, "CREATE SOURCE STREAM RO (K INT KEY, A INT, B STRING) WITH (kafka_topic='ro', partitions=1, "
                   "value_format='JSON');",
                "INSERT INTO RO SELECT * FROM S;"],
               "Cannot insert into read-only stream: RO"),
        _error("INSERT INTO SELECT into a stream with header columns is refused",
               [S, "CREATE STREAM H (K INT KEY, A INT, B STRING, HS ARRAY<STRUCT<KEY STRING, VALUE BYTES>> HEADERS) "
                   "WITH (kafka_topic='h', partitions=1, value_format='JSON');",
                "INSERT INTO H SELECT * FROM S;"],
               "Cannot insert into H because it has header columns"),
        _error("INSERT INTO SELECT into an unknown stream is refused",
               [S, "INSERT INTO NOPE SELECT * FROM S;"],
               "Source `NOPE` does not exist."),
    ]
    return cases


def insert_values() -> list[dict[str, Any]]:
    return [
        {"name": "INSERT VALUES into a stream a running query reads reaches the query's sink",
         "statements": [S, "CREATE STREAM BIG AS SELECT * FROM S WHERE A > 5;",
                        "INSERT INTO S (K, A, B) VALUES (1, 3, 'small');",
                        "INSERT INTO S (K, A, B) VALUES (2, 30, 'big');",
                        "SELECT * FROM BIG EMIT CHANGES LIMIT 1;"],
         "responses": [STATUS, STATUS,
                       _query(SINK_SCHEMA, [[2, 30, "big"]])]},
        {"name": "INSERT VALUES into the sink of a CREATE STREAM AS SELECT",
         "statements": [S, "CREATE STREAM COPY AS SELECT * FROM S;",
                        "INSERT INTO COPY (K, A, B) VALUES (7, 70, 'direct');",
                        "SELECT * FROM COPY EMIT CHANGES LIMIT 1;"],
         "responses": [STATUS, STATUS, _query(SINK_SCHEMA, [[7, 70, "direct"]])]},
        {"name": "INSERT VALUES into the sink of a CREATE TABLE AS SELECT",
         "statements": [S, "CREATE TABLE LATEST AS SELECT K, LATEST_BY_OFFSET(A) AS A FROM S GROUP BY K;",
                        "INSERT INTO LATEST (K, A) VALUES (7, 70);",
                        "SELECT * FROM LATEST EMIT CHANGES LIMIT 1;"],
         "responses": [STATUS, STATUS, _query("`K` INTEGER KEY, `A` INTEGER", [[7, 70]])]},
        {"name": "INSERT VALUES into a stream without the key column writes a NULL key",
         "statements": [S, "INSERT INTO S (A, B) VALUES (1, 'no key');",
                        "SELECT * FROM S EMIT CHANGES LIMIT 1;"],
         "outputs": [_out("s", None, {"A": 1, "B": "no key"})],
         "responses": [STATUS, _query(SINK_SCHEMA, [[None, 1, "no key"]])]},
        {"name": "INSERT VALUES of expressions and functions: each evaluated once, then coerced",
         "statements": ["CREATE STREAM E (K STRING KEY, I INT, L BIGINT, D DOUBLE, S STRING, TS TIMESTAMP) WITH "
                        "(kafka_topic='e', partitions=1, value_format='JSON');",
                        "INSERT INTO E (K, I, L, D, S, TS) VALUES (CONCAT('a', 'b'), 1 + 2, ABS(-4), 5, "
                        "CASE WHEN 1 < 2 THEN 'yes' ELSE 'no' END, FROM_UNIXTIME(1000));",
                        "SELECT * FROM E EMIT CHANGES LIMIT 1;"],
         "outputs": [_out("e", "ab", {"I": 3, "L": 4, "D": 5.0, "S": "yes", "TS": 1000})],
         "responses": [STATUS,
                       _query("`K` STRING KEY, `I` INTEGER, `L` BIGINT, `D` DOUBLE, `S` STRING, `TS` TIMESTAMP",
                              [["ab", 3, 4, 5.0, "yes", "1970-01-01T00:00:01.000"]])]},
        {"name": "INSERT VALUES into a stream without key columns (KEY_FORMAT NONE), with and without a column list",
         "statements": ["CREATE STREAM NK (A INT, B STRING) WITH (kafka_topic='nk', partitions=1, key_format='NONE', "
                        "value_format='JSON');",
                        "INSERT INTO NK (A, B) VALUES (1, 'x');",
                        "INSERT INTO NK VALUES (2, 'y');",
                        "SELECT * FROM NK EMIT CHANGES LIMIT 2;"],
         "outputs": [_out("nk", None, {"A": 1, "B": "x"}), _out("nk", None, {"A": 2, "B": "y"})],
         "responses": [STATUS,
                       _query("`A` INTEGER, `B` STRING", [[1, "x"], [2, "y"]])]},
        {"name": "INSERT VALUES of DELIMITED text holding the delimiter and a quote",
         "statements": ["CREATE STREAM D (K INT KEY, A STRING, B INT) WITH (kafka_topic='d', partitions=1, "
                        "value_format='DELIMITED');",
                        "INSERT INTO D (K, A, B) VALUES (1, 'x,\"y\"', 2);",
                        "SELECT * FROM D EMIT CHANGES LIMIT 1;"],
         "outputs": [_out("d", 1, '"x,""y""",2')],
         "responses": [STATUS, _query("`K` INTEGER KEY, `A` STRING, `B` INTEGER",
                                                         [[1, 'x,"y"', 2]])]},
        {"name": "INSERT VALUES with ROWTIME sets the record's timestamp",
         "statements": [S, "INSERT INTO S (ROWTIME, K, A, B) VALUES (12345, 1, 2, 'at');",
                        "SELECT ROWTIME, K FROM S EMIT CHANGES LIMIT 1;"],
         "outputs": [_out("s", 1, {"A": 2, "B": "at"}, 12345)],
         "responses": [STATUS, _query("`ROWTIME` BIGINT, `K` INTEGER", [[12345, 1]])]},
        _error("INSERT VALUES of a negative ROWTIME is refused as Kafka's record refuses it",
               [S, "INSERT INTO S (ROWTIME, K, A) VALUES (-1, 1, 2);"],
               "Failed to insert values into 'S'. Invalid timestamp: -1. Timestamp should always be non-negative "
               "or null."),
        _error("INSERT VALUES of a negative ROWTIME computed by an expression is refused",
               [S, "INSERT INTO S (K, A, ROWTIME) VALUES (1, 2, 1000 - 2000);"],
               "Failed to insert values into 'S'. Invalid timestamp: -1000. Timestamp should always be "
               "non-negative or null."),
        {"name": "INSERT VALUES of ROWTIME 0 is written at time 0",
         "statements": [S, "INSERT INTO S (ROWTIME, K, A, B) VALUES (0, 1, 2, 'epoch');"],
         "outputs": [_out("s", 1, {"A": 2, "B": "epoch"}, 0)],
         "responses": [STATUS]},
        _error("INSERT VALUES into ROWPARTITION is refused",
               [S, "INSERT INTO S (ROWPARTITION, K, A) VALUES (0, 1, 2);"],
               "Failed to insert values into 'S'. Inserting into column `ROWPARTITION` is not allowed."),
        _error("INSERT VALUES into a window bound of a stream that is not windowed is refused",
               [S, "INSERT INTO S (WINDOWSTART, K, A) VALUES (0, 1, 2);"],
               "Failed to insert values into 'S'. Column name `WINDOWSTART` does not exist."),
        _error("INSERT VALUES of a text ROWTIME is refused",
               [S, "INSERT INTO S (ROWTIME, K, A) VALUES ('2020-01-01T00:00:00', 1, 2);"],
               "Failed to insert values into 'S'. Expected type BIGINT for field `ROWTIME` but got "
               "STRING(2020-01-01T00:00:00)"),
        _error("INSERT VALUES into a windowed stream is refused",
               [S, "CREATE STREAM WS (K INT KEY, C BIGINT) WITH (kafka_topic='ws', partitions=1, value_format='JSON', "
                   "window_type='TUMBLING', window_size='1 SECOND');",
                "INSERT INTO WS (K, C) VALUES (1, 2);"],
               "Cannot insert values into windowed stream/table!", ERROR),
        _error("INSERT VALUES into a SOURCE stream is refused",
               ["CREATE SOURCE STREAM RO (K INT KEY, A INT) WITH (kafka_topic='ro', partitions=1, "
                "value_format='JSON');",
                "INSERT INTO RO (K, A) VALUES (1, 2);"],
               "Cannot insert values into read-only stream: RO", ERROR),
        _error("INSERT VALUES naming a header column is refused",
               ["CREATE STREAM H (K INT KEY, A INT, HS ARRAY<STRUCT<KEY STRING, VALUE BYTES>> HEADERS) WITH "
                "(kafka_topic='h', partitions=1, value_format='JSON');",
                "INSERT INTO H (K, A, HS) VALUES (1, 2, ARRAY[]);"],
               "Cannot insert into HEADER columns: HS", ERROR),
        _error("INSERT VALUES without a column list into a stream with header columns is refused",
               ["CREATE STREAM H (K INT KEY, A INT, HS ARRAY<STRUCT<KEY STRING, VALUE BYTES>> HEADERS) WITH "
                "(kafka_topic='h', partitions=1, value_format='JSON');",
                "INSERT INTO H VALUES (1, 2);"],
               "Cannot insert into HEADER columns: HS", ERROR),
        {"name": "INSERT VALUES with a column list leaving out the header columns is written",
         "statements": ["CREATE STREAM H (K INT KEY, A INT, HS ARRAY<STRUCT<KEY STRING, VALUE BYTES>> HEADERS) WITH "
                        "(kafka_topic='h', partitions=1, value_format='JSON');",
                        "INSERT INTO H (K, A) VALUES (1, 2);"],
         "outputs": [_out("h", 1, {"A": 2})],
         "responses": [STATUS]},
    ]


def main() -> None:
    doc = {"comments": ["INSERT INTO ... SELECT and INSERT INTO ... VALUES over /ksql across their rules. Generated by "
                        "gen_insert_scope.py, in ksqlDB's REST test format, written for ksqlpy."],
           "tests": insert_select() + insert_values()}
    (HERE / "insert-scope.json").write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
