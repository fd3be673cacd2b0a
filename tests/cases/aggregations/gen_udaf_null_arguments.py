"""Writes tests/cases/aggregations/udaf-null-arguments.json: a built-in aggregate called with a NULL literal
where a column argument goes, over every aggregate x the query shapes (a stream, a windowed stream, a table).

The rule: ksqlDB resolves aggregate calls with the UdfIndex scalar functions use (from memory of
UdafAggregateFunctionFactory; reference rules 2.8), where a NULL argument fits any parameter and a tie between
the best overloads is refused. So an aggregate with several overloads that differ only in that parameter is
ambiguous (SUM, AVG, MIN, MAX, STDDEV_SAMP, STDDEV_SAMPLE, SUM_LIST), the refusal listing every overload;
one with a single overload takes the NULL as that parameter's type and runs (HISTOGRAM's STRING,
CORRELATION's DOUBLE - every value is NULL, so the map stays empty and the correlation is NaN); a parameter
of any type takes it too (COUNT, COUNT_DISTINCT: nothing is counted); and a type variable that only the NULL
could bind leaves the result without a type, refused as a projected NULL is - inside a larger expression or in
HAVING too (COLLECT_LIST, COLLECT_SET, EARLIEST/LATEST_BY_OFFSET, TOPK, TOPKDISTINCT, ATTR); so does a NULL
taken by a parameter of any type that the result copies (TOPK's other columns become fields of its struct).
AVG and STDDEV_SAMP/STDDEV_SAMPLE list no DECIMAL overload (from memory of AverageUdaf and
StandardDeviationSampUdaf: Integer, Long and Double factories only). A NULL literal where an initial argument
goes is resolved alike: LATEST_BY_OFFSET(V, NULL) fits both the ignoreNulls and the n overload - ambiguous. User aggregates
(ksqlDB's test UDAFs) are resolved by the same rules. The call is resolved before a table source's refusal of an aggregate without undo, and whatever the window.

Run ``python tests/cases/aggregations/gen_udaf_null_arguments.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
HINT = "For detailed information on a function run: DESCRIBE FUNCTION <Function-Name>;"
CANNOT_INFER = "Can't infer a type of null. Please explicitly cast it to a required type, e.g. CAST(null AS VARCHAR)."

STREAM = "CREATE STREAM INPUT (ID INT KEY, V INT) WITH (kafka_topic='input_topic', value_format='JSON');"
TABLE = "CREATE TABLE INPUT (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='input_topic', value_format='JSON');"
SHAPES = {
    "a stream": (STREAM, "", "ID"),
    "a windowed stream": (STREAM, " WINDOW TUMBLING (SIZE 10 SECONDS)", "ID"),
    "a table": (TABLE, "", "V"),
}

NUMERIC = ["INT", "BIGINT", "DOUBLE", "DECIMAL"]
# AVG and STDDEV_SAMP/STDDEV_SAMPLE declare no DECIMAL overload (a DECIMAL reaches DOUBLE by implicit cast)
JAVA_NUMERIC = ["INT", "BIGINT", "DOUBLE"]
ORDERED = [*NUMERIC, "STRING", "BYTES", "DATE", "TIME", "TIMESTAMP"]
# the aggregates whose overloads differ only in the parameter the NULL fills: (call, parameter types)
AMBIGUOUS = {
    "SUM": NUMERIC, "AVG": JAVA_NUMERIC, "STDDEV_SAMP": JAVA_NUMERIC, "STDDEV_SAMPLE": JAVA_NUMERIC,
    "MIN": ORDERED, "MAX": ORDERED, "SUM_LIST": ["ARRAY<INT>", "ARRAY<BIGINT>", "ARRAY<DOUBLE>"],
}
# a type variable only the NULL could bind
UNTYPED = ["COLLECT_LIST(NULL)", "COLLECT_SET(NULL)", "ATTR(NULL)", "LATEST_BY_OFFSET(NULL)",
           "LATEST_BY_OFFSET(NULL, false)", "EARLIEST_BY_OFFSET(NULL, 2)", "EARLIEST_BY_OFFSET(NULL, 2, true)",
           "TOPK(NULL, 2)", "TOPK(NULL, V, 2)", "TOPKDISTINCT(NULL, 3)",
           # TOPK's other columns are of any type, so a NULL fits; its result struct's field would have no type
           "TOPK(V, NULL, 2)", "TOPK(V, V, NULL, 2)", "TOPK(V, NULL, NULL, 3)"]


def ambiguous(name: str, params: list[str]) -> str:
    calls = "\n".join(f"{name}({p} val)" for p in params)
    return (f"Function '{name}' cannot be resolved due to ambiguous method parameters (null).\n"
            "Use CAST() to explicitly cast your parameters to one of the supported function calls.\n"
            f"Valid function calls are:\n{calls}\n{HINT}")


def refused(name: str, source: str, query: str, message: str) -> dict[str, Any]:
    return {"name": name, "statements": [source, query],
            "expectedException": {"type": EXCEPTION, "message": message}}


def refusals() -> list[dict[str, Any]]:
    out = []
    for fn, params in AMBIGUOUS.items():
        for shape, (source, window, key) in SHAPES.items():
            query = f"CREATE TABLE OUTPUT AS SELECT {key}, {fn}(NULL) AS R FROM INPUT{window} GROUP BY {key};"
            out.append(refused(f"{fn}(NULL) over {shape}: every overload fits a NULL alike - ambiguous",
                               source, query, ambiguous(fn, params)))
    for call in UNTYPED:
        for shape, (source, window, key) in SHAPES.items():
            query = f"CREATE TABLE OUTPUT AS SELECT {key}, {call} AS R FROM INPUT{window} GROUP BY {key};"
            out.append(refused(f"{call} over {shape}: nothing binds its type variable", source, query,
                               CANNOT_INFER))
    source, window, key = SHAPES["a stream"]
    out.append(refused("COLLECT_LIST(NULL) inside an expression has no type either", source,
                       f"CREATE TABLE OUTPUT AS SELECT {key}, ARRAY_LENGTH(COLLECT_LIST(NULL)) AS R "
                       f"FROM INPUT GROUP BY {key};", CANNOT_INFER))
    out.append(refused("COLLECT_SET(NULL) only in HAVING has no type either", source,
                       f"CREATE TABLE OUTPUT AS SELECT {key}, COUNT(*) AS R FROM INPUT GROUP BY {key} "
                       "HAVING ARRAY_LENGTH(COLLECT_SET(NULL)) > 0;", CANNOT_INFER))
    # a NULL where an initial (literal) argument goes is resolved by the same index: the by-offset
    # aggregates' second parameter is ignoreNulls (BOOLEAN) in one overload and n (INT) in another
    for fn, n in (("LATEST_BY_OFFSET", "latestN"), ("EARLIEST_BY_OFFSET", "earliestN")):
        calls = "\n".join(f"{fn}({p})" for p in ("T val", "T val, BOOLEAN ignoreNulls", f"T val, INT {n}",
                                                   f"T val, INT {n}, BOOLEAN ignoreNulls"))
        message = (f"Function '{fn}' cannot be resolved due to ambiguous method parameters (INTEGER, null).\n"
                   "Use CAST() to explicitly cast your parameters to one of the supported function calls.\n"
                   f"Valid function calls are:\n{calls}\n{HINT}")
        for shape, (source_, window, key_) in SHAPES.items():
            out.append(refused(f"{fn}(V, NULL) over {shape}: ignoreNulls or {n} - ambiguous", source_,
                               f"CREATE TABLE OUTPUT AS SELECT {key_}, {fn}(V, NULL) AS R FROM INPUT{window} "
                               f"GROUP BY {key_};", message))
    # user aggregates (ksqlDB's test UDAFs, always registered here) follow the same index
    out.append(refused("GENERIC_VAR_ARG(NULL, V): a user aggregate's type variable only the NULL binds", source,
                       f"CREATE TABLE OUTPUT AS SELECT {key}, GENERIC_VAR_ARG(NULL, V) AS R FROM INPUT GROUP BY {key};",
                       CANNOT_INFER))
    out.append(refused("TEST_UDAF(NULL): a user aggregate's overloads fit a NULL alike", source,
                       f"CREATE TABLE OUTPUT AS SELECT {key}, TEST_UDAF(NULL) AS R FROM INPUT GROUP BY {key};",
                       "Function 'TEST_UDAF' cannot be resolved due to ambiguous method parameters (null)."))
    return out


def _input(key: int, v: int | None, ts: int) -> dict[str, Any]:
    return {"topic": "input_topic", "key": key, "value": {"V": v}, "timestamp": ts}


# the calls that resolve: (select items, the value every row gets, the result schema)
RUNS = [
    ("HISTOGRAM(NULL) AS H", {"H": {}}, "H MAP<STRING, BIGINT>"),
    ("CORRELATION(NULL, V) AS C", {"C": "NaN"}, "C DOUBLE"),
    ("CORRELATION(V, NULL) AS C", {"C": "NaN"}, "C DOUBLE"),
    ("CORRELATION(NULL, NULL) AS C", {"C": "NaN"}, "C DOUBLE"),
    ("COUNT_DISTINCT(NULL) AS N", {"N": 0}, "N BIGINT"),
    ("COUNT(NULL) AS N", {"N": 0}, "N BIGINT"),
]


def runs() -> list[dict[str, Any]]:
    out = []
    for items, value, schema in RUNS:
        call = items.split(" AS ")[0]
        # a stream: two rows of one key
        out.append({
            "name": f"{call} over a stream: the NULL takes its parameter's type; nothing to aggregate",
            "statements": [STREAM, f"CREATE TABLE OUTPUT AS SELECT ID, {items} FROM INPUT GROUP BY ID;"],
            "inputs": [_input(1, 5, 0), _input(1, None, 1)],
            "outputs": [{"topic": "OUTPUT", "key": 1, "value": value, "timestamp": t} for t in (0, 1)],
            "post": {"sources": [{"name": "OUTPUT", "type": "table", "schema": f"ID INTEGER KEY, {schema}"}]},
        })
        # session windows: two sessions merged by a third record
        window = "WINDOW SESSION (10 SECONDS)"
        # (window start, end, value, timestamp): each session's row at its end; the third record joins both
        # sessions, which are deleted (tombstones at their ends) for the merged one
        merged = [(0, 0, value, 0), (20000, 20000, value, 20000), (0, 0, None, 0), (20000, 20000, None, 20000),
                  (0, 20000, value, 20000)]
        out.append({
            "name": f"{call} over session windows merged by a later record",
            "statements": [STREAM, f"CREATE TABLE OUTPUT AS SELECT ID, {items} FROM INPUT {window} GROUP BY ID;"],
            "inputs": [_input(1, 1, 0), _input(1, 2, 20000), _input(1, 3, 10000)],
            "outputs": [{"topic": "OUTPUT", "key": 1, "value": v, "timestamp": ts,
                         "window": {"start": start, "end": end, "type": "session"}}
                        for start, end, v, ts in merged],
        })
        if call.startswith("COUNT_DISTINCT"):
            continue  # no undo: refused over a table
        # a table: a row moves to another group (undo from the old one)
        out.append({
            "name": f"{call} over a table: a row moving between groups",
            "statements": [TABLE, f"CREATE TABLE OUTPUT AS SELECT V, {items} FROM INPUT GROUP BY V;"],
            "inputs": [_input(1, 5, 0), _input(1, 6, 1)],
            "outputs": [{"topic": "OUTPUT", "key": 5, "value": value, "timestamp": 0},
                        {"topic": "OUTPUT", "key": 5, "value": value, "timestamp": 1},
                        {"topic": "OUTPUT", "key": 6, "value": value, "timestamp": 1}],
        })
    return out


def main() -> None:
    tests = refusals() + runs()
    (HERE / "udaf-null-arguments.json").write_text(json.dumps({"tests": tests}, indent=1) + "\n", encoding="utf-8")
    print(f"{len(tests)} cases")


if __name__ == "__main__":
    main()
