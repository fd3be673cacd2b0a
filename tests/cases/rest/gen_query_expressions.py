"""Generates three files of REST cases on what a query's SELECT list may hold, over pull and push queries
(ksqlDB's rules, in our words and values; sources as each section says):

- ``table-function-queries.json``: table functions (EXPLODE, CUBE_EXPLODE) in push queries and stream pull
  queries - one output row per element, several functions zipped (the longest result sets the row count, the
  shorter ones are NULL-padded), a NULL array exploding to no row, LIMIT counting output rows, an unnamed
  one named ``KSQL_COL_0``; and their refusals with ksqlDB's texts (ksqldb-rules 7.4, from memory of
  Analyzer.TableFunctionVisitor and QueryAnalyzer): a table source (push and pull), aggregation, nesting, CASE.
- ``lambda-queries.json``: TRANSFORM / FILTER / REDUCE over arrays and maps in table pull queries (key lookup,
  and a WHERE that needs a scan), stream pull queries and push queries; a lambda argument named as a column
  and a reused argument in a nested lambda are refused while the statement is prepared (ksqldb-rules 1.7).
- ``quoted-name-queries.json``: quoted names keep their case through pull and push queries - header schema,
  WHERE on a quoted key, a key selected after a value column keeping its KEY marker, two columns whose
  names differ only in case, a push query's id naming its source as written (QueryIdUtil: ``transient_`` +
  the leftmost source's alias); an unquoted reference to a lower-case name is upper-cased and so unknown,
  with MetaStoreImpl.checkAlternatives' hints for sources (ksqldb-rules 1.7: one lower-case match, one
  all-caps match, several) in pull, push and CREATE ... AS SELECT.

Run ``python tests/cases/rest/gen_query_expressions.py`` to rewrite the files next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

STATUS = {"admin": {"@type": "currentStatus"}}
DONE = {"finalMessage": "Query Completed"}
LIMIT = {"finalMessage": "Limit Reached"}


def _row(*columns: Any) -> dict[str, Any]:
    return {"row": {"columns": list(columns)}}


def _header(schema: str, query_id: str | None = None) -> dict[str, Any]:
    header: dict[str, Any] = {"schema": schema}
    if query_id is not None:
        header["queryId|starts_with"] = query_id
    return {"header": header}


def _error(message: str) -> dict[str, Any]:
    return {"type": "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage", "message": message, "status": 400}


# ------------------------------------------------------------------------------------------- table functions

ARRAYS = ("CREATE STREAM ARRS (K INT KEY, A ARRAY<STRING>, B ARRAY<INT>) WITH (kafka_topic='arrs', "
          "value_format='JSON', partitions=1);")
ARRAY_INPUTS = [
    {"topic": "arrs", "key": 1, "value": {"A": None, "B": [5]}, "timestamp": 1000},
    {"topic": "arrs", "key": 2, "value": {"A": [], "B": None}, "timestamp": 2000},
    {"topic": "arrs", "key": 3, "value": {"A": ["p", None], "B": [7]}, "timestamp": 3000},
]
ARRAY_TABLE = "CREATE TABLE LASTS AS SELECT K, LATEST_BY_OFFSET(B[1]) AS B1, COUNT(*) AS C FROM ARRS GROUP BY K;"


def table_function_cases() -> list[dict[str, Any]]:
    def case(name: str, sql: str, response: list[dict[str, Any]] | None = None, error: str | None = None,
             extra: list[str] | None = None) -> dict[str, Any]:
        c: dict[str, Any] = {"name": name, "statements": [ARRAYS, *(extra or []), sql], "inputs": ARRAY_INPUTS}
        if error is not None:
            c["expectedError"] = _error(error)
        else:
            c["responses"] = [STATUS] * (1 + len(extra or [])) + [{"query": response}]
        return c

    exploded = [_row(3, "p"), _row(3, None)]
    zipped = [_row(1, None, 5), _row(3, "p", 7), _row(3, None, None)]
    return [
        case("a stream pull query explodes each array into a row per element; a NULL or empty array gives none",
             "SELECT K, EXPLODE(A) AS E FROM ARRS;",
             [_header("`K` INTEGER, `E` STRING"), *exploded, DONE]),
        case("a push query explodes each array into a row per element",
             "SELECT K, EXPLODE(A) AS E FROM ARRS EMIT CHANGES LIMIT 2;",
             [_header("`K` INTEGER, `E` STRING"), *exploded, LIMIT]),
        case("a push query's LIMIT counts exploded rows, not input records",
             "SELECT K, EXPLODE(ARRAY[K, K * 10, K * 100]) AS E FROM ARRS EMIT CHANGES LIMIT 4;",
             [_header("`K` INTEGER, `E` INTEGER"), _row(1, 1), _row(1, 10), _row(1, 100), _row(2, 2), LIMIT]),
        case("two table functions in a stream pull query are zipped, the shorter padded with NULL",
             "SELECT K, EXPLODE(A) AS E, EXPLODE(B) AS F FROM ARRS;",
             [_header("`K` INTEGER, `E` STRING, `F` INTEGER"), *zipped, DONE]),
        case("two table functions in a push query are zipped, the shorter padded with NULL",
             "SELECT K, EXPLODE(A) AS E, EXPLODE(B) AS F FROM ARRS EMIT CHANGES LIMIT 3;",
             [_header("`K` INTEGER, `E` STRING, `F` INTEGER"), *zipped, LIMIT]),
        case("an unnamed table function is the column KSQL_COL_0",
             "SELECT K, EXPLODE(B) FROM ARRS EMIT CHANGES LIMIT 2;",
             [_header("`K` INTEGER, `KSQL_COL_0` INTEGER"), _row(1, 5), _row(3, 7), LIMIT]),
        case("a stream pull query's WHERE filters the records before they are exploded",
             "SELECT K, EXPLODE(B) AS E FROM ARRS WHERE K > 1;",
             [_header("`K` INTEGER, `E` INTEGER"), _row(3, 7), DONE]),
        case("CUBE_EXPLODE gives every combination of its array's elements and NULL",
             "SELECT K, CUBE_EXPLODE(ARRAY[K, 2]) AS C FROM ARRS WHERE K = 3;",
             [_header("`K` INTEGER, `C` ARRAY<INTEGER>"), _row(3, [None, None]), _row(3, [None, 2]),
              _row(3, [3, None]), _row(3, [3, 2]), DONE]),
        case("a push query over a table refuses a table function", "SELECT K, EXPLODE(ARRAY[B1]) AS E FROM LASTS "
             "EMIT CHANGES;", error="Table source is not supported with table functions", extra=[ARRAY_TABLE]),
        case("a pull query over a table refuses a table function, a key lookup too",
             "SELECT K, EXPLODE(ARRAY[B1, C]) AS E FROM LASTS WHERE K = 1;",
             error="Table source is not supported with table functions", extra=[ARRAY_TABLE]),
        case("a table function with an aggregation is refused",
             "SELECT K, EXPLODE(B) AS E, COUNT(*) AS N FROM ARRS GROUP BY K EMIT CHANGES;",
             error="Table functions cannot be used with aggregations."),
        case("a table function inside another is refused, naming both",
             "SELECT K, EXPLODE(EXPLODE(ARRAY[B])) AS E FROM ARRS EMIT CHANGES;",
             error="Table functions cannot be nested: EXPLODE(EXPLODE())"),
        case("a table function inside CASE is refused, naming the CASE",
             "SELECT K, CASE WHEN K > 1 THEN EXPLODE(B) ELSE 0 END AS X FROM ARRS;",
             error="Table functions cannot be used in CASE: (CASE WHEN (K > 1) THEN EXPLODE(B) ELSE 0 END)"),
    ]


# ------------------------------------------------------------------------------------------------- lambdas

COLLECTIONS = ("CREATE STREAM COLS (K STRING KEY, A ARRAY<INT>, M MAP<STRING, INT>) WITH (kafka_topic='cols', "
               "value_format='JSON', partitions=1);")
COLLECTION_INPUTS = [
    {"topic": "cols", "key": "k1", "value": {"A": [1, 2, 3], "M": {"x": 1, "y": 5}}, "timestamp": 1000},
    {"topic": "cols", "key": "k2", "value": {"A": [4], "M": {"z": 3}}, "timestamp": 2000},
]
COLLECTION_TABLE = ("CREATE TABLE LATEST AS SELECT K, LATEST_BY_OFFSET(A) AS A, COUNT(*) AS C FROM COLS "
                    "GROUP BY K;")


def lambda_cases() -> list[dict[str, Any]]:
    def case(name: str, sql: str, response: list[dict[str, Any]] | None = None, error: str | None = None,
             table: bool = False) -> dict[str, Any]:
        statements = [COLLECTIONS, *([COLLECTION_TABLE] if table else []), sql]
        c: dict[str, Any] = {"name": name, "statements": statements, "inputs": COLLECTION_INPUTS}
        if error is not None:
            c["expectedError"] = _error(error)
        else:
            c["responses"] = [STATUS] * (len(statements) - 1) + [{"query": response}]
        return c

    arrays = "TRANSFORM(A, x => x * 10) AS T, FILTER(A, x => x > 1) AS F, REDUCE(A, 0, (s, x) => s + x) AS R"
    maps = ("TRANSFORM(M, (p, q) => UCASE(p), (p, q) => q + 1) AS TM, FILTER(M, (p, q) => q > 2) AS FM, "
            "REDUCE(M, 0, (s, p, q) => s + q) AS RM")
    map_schema = "`K` STRING, `TM` MAP<STRING, INTEGER>, `FM` MAP<STRING, INTEGER>, `RM` INTEGER"
    map_rows = [_row("k1", {"X": 2, "Y": 6}, {"y": 5}, 6), _row("k2", {"Z": 4}, {"z": 3}, 3)]
    return [
        case("array lambdas in a table pull query by key",
             f"SELECT K, {arrays} FROM LATEST WHERE K = 'k1';",
             [_header("`K` STRING KEY, `T` ARRAY<INTEGER>, `F` ARRAY<INTEGER>, `R` INTEGER"),
              _row("k1", [10, 20, 30], [2, 3], 6)], table=True),
        case("a lambda in a table pull query's WHERE filters the scanned rows",
             "SELECT K, TRANSFORM(A, x => x + 1) AS T FROM LATEST WHERE ARRAY_LENGTH(FILTER(A, x => x > 1)) = 2;",
             [_header("`K` STRING KEY, `T` ARRAY<INTEGER>"), _row("k1", [2, 3, 4])], table=True),
        case("array lambdas in a stream pull query", f"SELECT K, {arrays} FROM COLS;",
             [_header("`K` STRING, `T` ARRAY<INTEGER>, `F` ARRAY<INTEGER>, `R` INTEGER"),
              _row("k1", [10, 20, 30], [2, 3], 6), _row("k2", [40], [4], 4), DONE]),
        case("map lambdas in a stream pull query", f"SELECT K, {maps} FROM COLS;",
             [_header(map_schema), *map_rows, DONE]),
        case("map lambdas in a push query", f"SELECT K, {maps} FROM COLS EMIT CHANGES LIMIT 2;",
             [_header(map_schema), *map_rows, LIMIT]),
        case("a table function over a lambda's result",
             "SELECT K, EXPLODE(TRANSFORM(A, x => x + 1)) AS E FROM COLS;",
             [_header("`K` STRING, `E` INTEGER"), _row("k1", 2), _row("k1", 3), _row("k1", 4), _row("k2", 5),
              DONE]),
        case("a lambda argument named as a column is refused in a pull query",
             "SELECT K, TRANSFORM(A, K => K + 1) AS T FROM COLS;",
             error="Exception while preparing statement: Lambda function argument can't be a column name: K"),
        case("a lambda argument named as a column is refused in a push query, in any case",
             "SELECT K, FILTER(M, (m, v) => v > 1) AS F FROM COLS EMIT CHANGES;",
             error="Exception while preparing statement: Lambda function argument can't be a column name: M"),
        case("a nested lambda reusing its outer argument's name is refused",
             "SELECT K, TRANSFORM(A, x => TRANSFORM(A, x => x)) AS T FROM LATEST WHERE K = 'k1';",
             error="Exception while preparing statement: Reusing lambda arguments in nested lambda is not allowed",
             table=True),
    ]


# --------------------------------------------------------------------------------------------- quoted names

QUOTED = ("CREATE STREAM `events` (`id` INT KEY, `Val` STRING, VAL INT) WITH (kafka_topic='events', "
          "value_format='JSON', partitions=1);")
QUOTED_INPUTS = [
    {"topic": "events", "key": 1, "value": {"Val": "a", "VAL": 2}, "timestamp": 1000},
    {"topic": "events", "key": 2, "value": {"Val": "b", "VAL": 3}, "timestamp": 2000},
]
QUOTED_TABLE = ("CREATE TABLE `latest` AS SELECT `id`, LATEST_BY_OFFSET(`Val`) AS `lastVal`, SUM(VAL) AS TOTAL "
                "FROM `events` GROUP BY `id`;")
CAPS = "CREATE STREAM EVENTS2 (ID INT KEY, V INT) WITH (kafka_topic='events2', value_format='JSON', partitions=1);"
MIXED = ("CREATE TABLE `Events` (`id` INT PRIMARY KEY, V INT) WITH (kafka_topic='events3', value_format='JSON', "
         "partitions=1);")


def quoted_name_cases() -> list[dict[str, Any]]:
    def case(name: str, sql: str, response: list[dict[str, Any]] | None = None, error: str | None = None,
             extra: list[str] | None = None) -> dict[str, Any]:
        statements = [QUOTED, *(extra or []), sql]
        c: dict[str, Any] = {"name": name, "statements": statements, "inputs": QUOTED_INPUTS}
        if error is not None:
            c["expectedError"] = _error(error)
        else:
            c["responses"] = [STATUS] * (len(statements) - 1) + [{"query": response}]
        return c

    table = [QUOTED_TABLE]
    lower_hint = '\nDid you mean "latest"? Hint: wrap the source name in double quotes to make it case-sensitive.'
    caps_hint = "\nDid you mean EVENTS2? Hint: try removing double quotes from the source name."
    several = '\nDid you mean "'  # then each match with its kind, in the metastore's order
    return [
        case("a pull query by a quoted key over a quoted table keeps every name's case",
             "SELECT * FROM `latest` WHERE `id` = 1;",
             [_header("`id` INTEGER KEY, `lastVal` STRING, `TOTAL` INTEGER"), _row(1, "a", 2)], extra=table),
        case("a pull query selecting the key after a value column keeps its KEY marker",
             "SELECT `lastVal`, `id` FROM `latest` WHERE `id` IN (1, 2);",
             [_header("`lastVal` STRING, `id` INTEGER KEY"), _row("a", 1), _row("b", 2)], extra=table),
        case("a push query over a quoted stream: columns differing only in case are two columns",
             "SELECT * FROM `events` EMIT CHANGES LIMIT 2;",
             [_header("`id` INTEGER, `Val` STRING, `VAL` INTEGER", "transient_events_"), _row(1, "a", 2),
              _row(2, "b", 3), LIMIT]),
        case("a push query's id names its source by the alias given",
             "SELECT e.`id`, e.`Val` FROM `events` e WHERE e.VAL > 2 EMIT CHANGES LIMIT 1;",
             [_header("`id` INTEGER, `Val` STRING", "transient_E_"), _row(2, "b"), LIMIT]),
        case("a stream pull query filters on a quoted column",
             "SELECT `Val`, VAL FROM `events` WHERE `Val` = 'b';",
             [_header("`Val` STRING, `VAL` INTEGER"), _row("b", 3), DONE]),
        case("an unquoted reference to a lower-case key is upper-cased and unknown",
             "SELECT * FROM `latest` WHERE id = 1;", error="WHERE column 'ID' cannot be resolved.", extra=table),
        case("an unquoted reference to a lower-case column in a push query is unknown",
             "SELECT val, id FROM `events` EMIT CHANGES;", error="SELECT column 'ID' cannot be resolved."),
        case("a pull query naming a lower-case table without quotes is told to quote it",
             "SELECT * FROM latest WHERE `id` = 1;", error=f"LATEST does not exist.{lower_hint}", extra=table),
        case("a push query naming a lower-case stream without quotes is told to quote it",
             "SELECT * FROM events EMIT CHANGES;",
             error='EVENTS does not exist.\nDid you mean "events"? Hint: wrap the source name in double quotes '
                   "to make it case-sensitive."),
        case("a quoted lower-case name of an upper-case source is told to drop the quotes",
             "SELECT * FROM `events2`;", error=f"events2 does not exist.{caps_hint}", extra=[CAPS]),
        case("several sources matching but for case are listed",
             "SELECT * FROM EVENTS EMIT CHANGES;", error=f"EVENTS does not exist.{several}", extra=[MIXED]),
        case("CREATE STREAM AS SELECT from a lower-case stream named without quotes is told to quote it",
             "CREATE STREAM COPY AS SELECT * FROM events;",
             error='EVENTS does not exist.\nDid you mean "events"? Hint: wrap the source name in double quotes '
                   "to make it case-sensitive."),
    ]


if __name__ == "__main__":
    for name, cases in (("table-function-queries.json", table_function_cases()),
                        ("lambda-queries.json", lambda_cases()),
                        ("quoted-name-queries.json", quoted_name_cases())):
        (HERE / name).write_text(json.dumps({"comments": ["Generated by gen_query_expressions.py, in ksqlDB's REST "
                                                          "test format, written for ksqlpy."],
                                             "tests": cases}, indent=1) + "\n")
