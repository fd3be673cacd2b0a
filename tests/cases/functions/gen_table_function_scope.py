"""Table functions over their whole scope, as ksqlDB's Analyzer, ExpressionTypeManager and CodeGenRunner treat them
(from memory of their source): EXPLODE and CUBE_EXPLODE over every element type (a NULL element kept, a NULL or
empty array no rows), two table functions of unequal lengths zipped with NULLs; where they may stand - the
Analyzer's TableFunctionVisitor looks at SELECT items only, item by item before any clause's column references
(nested or in CASE: refused even over an unknown column); outside the SELECT list (WHERE, PARTITION BY, HAVING's
aggregate arguments) the call is typed as its result (a non-BOOLEAN WHERE is refused as such) and only code
generation fails, asking the scalar registry for it ("Invalid Predicate: Can't find any functions with the name
'EXPLODE'."); a table source is refused once analysis is done, whatever the query kind.

Writes tests/cases/functions/table-function-scope.json: ``python tests/cases/functions/gen_table_function_scope.py
tests/cases/functions/table-function-scope.json`` after changing this file.
"""
import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import write_cases  # noqa: E402

EXC = "io.confluent.ksql.util.KsqlStatementException"
FUNCTIONS = ["EXPLODE", "CUBE_EXPLODE"]

# element type, two elements as JSON writes and reads them
ELEMENTS: list[tuple[str, list[Any]]] = [
    ("INT", [1, -2]),
    ("BIGINT", [1, 9007199254740993]),
    ("DOUBLE", [1.5, -0.25]),
    ("BOOLEAN", [True, False]),
    ("STRING", ["a", ""]),
    ("DECIMAL(4, 2)", [1.25, -10.75]),
    ("DATE", [0, 19000]),
    ("TIME", [0, 3600000]),
    ("TIMESTAMP", [0, 1600000000000]),
    ("BYTES", ["AQI=", ""]),
    ("ARRAY<INT>", [[1, 2], []]),
    ("MAP<STRING, INT>", [{"a": 1}, {}]),
    ("STRUCT<F INT, G STRING>", [{"F": 1, "G": "x"}, {"F": None, "G": None}]),
]


def _name(t: str) -> str:
    return t.split("(")[0].split("<")[0]


def _stream(columns: str, topic: str = "s") -> str:
    return f"CREATE STREAM S (K STRING KEY, {columns}) WITH (kafka_topic='{topic}', value_format='JSON');"


def _cube(a: list[Any]) -> list[list[Any]]:
    n = len(a)
    out: list[list[Any]] = []
    for i in range(1 << n):
        row = [a[j] if (i >> (n - j - 1)) & 1 else None for j in range(n)]
        if row not in out:
            out.append(row)
    return out


def element_cases() -> list[dict[str, Any]]:
    tests: list[dict[str, Any]] = []
    for t, (x, y) in ELEMENTS:
        arr = [x, None, y]
        tests.append({
            "name": f"EXPLODE of ARRAY<{_name(t)}>: one row per element, NULL kept, NULL or empty array no rows",
            "statements": [_stream(f"A ARRAY<{t}>"), "CREATE STREAM O AS SELECT K, EXPLODE(A) AS E FROM S;"],
            "inputs": [{"topic": "s", "key": "k", "value": {"A": arr}},
                       {"topic": "s", "key": "n", "value": {"A": None}},
                       {"topic": "s", "key": "e", "value": {"A": []}}],
            "outputs": [{"topic": "O", "key": "k", "value": {"E": v}} for v in arr],
        })
        tests.append({
            "name": f"CUBE_EXPLODE of ARRAY<{_name(t)}>: every combination, a NULL element's once",
            "statements": [_stream(f"A ARRAY<{t}>"), "CREATE STREAM O AS SELECT K, CUBE_EXPLODE(A) AS C FROM S;"],
            "inputs": [{"topic": "s", "key": "k", "value": {"A": [x, y]}},
                       {"topic": "s", "key": "m", "value": {"A": [None, y]}},
                       {"topic": "s", "key": "n", "value": {"A": None}}],
            "outputs": ([{"topic": "O", "key": "k", "value": {"C": c}} for c in _cube([x, y])]
                        + [{"topic": "O", "key": "m", "value": {"C": c}} for c in _cube([None, y])]),
        })
        tests.append({
            "name": f"EXPLODE and CUBE_EXPLODE of ARRAY<{_name(t)}> zipped: the shorter result padded with NULL",
            "statements": [_stream(f"A ARRAY<{t}>, B ARRAY<{t}>"),
                           "CREATE STREAM O AS SELECT K, EXPLODE(A) AS E, CUBE_EXPLODE(B) AS C, EXPLODE(B) AS F "
                           "FROM S;"],
            "inputs": [{"topic": "s", "key": "k", "value": {"A": [x, y, x], "B": [y, x]}}],
            "outputs": [{"topic": "O", "key": "k", "value": {"E": e, "C": c, "F": f}}
                        for e, c, f in zip([x, y, x, None], _cube([y, x]), [y, x, None, None], strict=True)],
        })
    return tests


def _refused(name: str, statements: list[str], message: str) -> dict[str, Any]:
    return {"name": name, "statements": statements, "expectedException": {"type": EXC, "message": message}}


STREAM = _stream("A ARRAY<INT>, BA ARRAY<BOOLEAN>, V INT")
TABLE = ("CREATE TABLE T (K STRING PRIMARY KEY, A ARRAY<INT>, BA ARRAY<BOOLEAN>, V INT) "
         "WITH (kafka_topic='t', value_format='JSON');")


def placement_cases() -> list[dict[str, Any]]:
    tests: list[dict[str, Any]] = []
    for f in FUNCTIONS:
        arg = "A"
        missing = f"Can't find any functions with the name '{f}'"
        boolean = f"{f}(BA)" if f == "EXPLODE" else f"ARRAY_CONTAINS({f}(BA), true)"
        for src, create in (("stream", STREAM), ("table", TABLE)):
            s = "S" if src == "stream" else "T"
            sink = "STREAM" if src == "stream" else "TABLE"
            tests.append(_refused(
                f"{f} in the WHERE of a {src}: typed, then refused by code generation",
                [create, f"CREATE {sink} O AS SELECT K, V FROM {s} WHERE {boolean};"],
                f"Invalid Predicate: {missing}."))
            tests.append(_refused(
                f"{f} in the WHERE of a {src} that is no BOOLEAN: logical planning's type error first",
                [create, f"CREATE {sink} O AS SELECT K, V FROM {s} WHERE {f}({arg});"],
                f"Type error in WHERE expression: Should evaluate to boolean but is {f}({arg}) "
                f"({'INTEGER' if f == 'EXPLODE' else 'ARRAY<INTEGER>'}) instead."))
        tests.append(_refused(
            f"{f} in a table's SELECT: a table source is refused",
            [TABLE, f"CREATE TABLE O AS SELECT K, {f}(A) AS X FROM T;"],
            "Table source is not supported with table functions"))
        tests.append(_refused(
            f"{f} in PARTITION BY: refused by code generation of the key",
            [STREAM, f"CREATE STREAM O AS SELECT {f}(A) AS X, V FROM S PARTITION BY {f}(A);"],
            f"Invalid SelectKey: {missing}."))
        tests.append(_refused(
            f"{f} in an aggregate's argument in HAVING: refused by code generation of the aggregation's input",
            [STREAM, f"CREATE TABLE O AS SELECT K, COUNT(*) AS N FROM S GROUP BY K HAVING COUNT({f}(A)) > 1;"],
            f"Invalid Select: {missing}."))
        tests.append(_refused(
            f"{f} in SELECT beside GROUP BY",
            [STREAM, f"CREATE TABLE O AS SELECT K, {f}(A) AS X, COUNT(*) AS N FROM S GROUP BY K;"],
            "Table functions cannot be used with aggregations."))
        tests.append(_refused(
            f"{f} as an aggregate's argument in SELECT",
            [STREAM, f"CREATE TABLE O AS SELECT K, COLLECT_LIST({f}(A)) AS X FROM S GROUP BY K;"],
            "Table functions cannot be used with aggregations."))
        for outer in FUNCTIONS:
            tests.append(_refused(
                f"{outer} of {f} over an unknown column: nested is found before the unknown column",
                [STREAM, f"CREATE STREAM O AS SELECT K, {outer}({f}(ZZ)) AS X FROM S;"],
                f"Table functions cannot be nested: {outer}({f}())"))
        tests.append(_refused(
            f"{f} in CASE whose condition names an unknown column: CASE is found first",
            [STREAM, f"CREATE STREAM O AS SELECT K, CASE WHEN ZZ > 0 THEN {f}({arg}) END AS X FROM S;"],
            "Table functions cannot be used in CASE: "))
        tests.append(_refused(
            f"{f} nested over an unknown column in a join's projection: nested first",
            [STREAM, TABLE, f"CREATE STREAM O AS SELECT S.K, {f}(EXPLODE(S.ZZ)) AS X FROM S JOIN T ON S.K = T.K;"],
            f"Table functions cannot be nested: {f}(EXPLODE())"))
        tests.append(_refused(
            f"{f} nested in an item before a reserved name: SELECT items are analysed in order",
            [STREAM, f"CREATE STREAM O AS SELECT K, {f}(EXPLODE(A)) AS X, V AS ROWTIME FROM S;"],
            f"Table functions cannot be nested: {f}(EXPLODE())"))
        tests.append(_refused(
            f"{f} nested in an item after a reserved name: SELECT items are analysed in order",
            [STREAM, f"CREATE STREAM O AS SELECT K, V AS ROWTIME, {f}(EXPLODE(A)) AS X FROM S;"],
            "`ROWTIME` is a reserved column name. You cannot use it as an alias for a column."))
        tests.append(_refused(
            f"{f} over a table in a push query",
            [TABLE, f"SELECT K, {f}(A) FROM T EMIT CHANGES;"],
            "Table source is not supported with table functions"))
    tests.append({
        "name": "EXPLODE in a stream-table join's projection",
        "statements": [STREAM, "CREATE TABLE T (K STRING PRIMARY KEY, W INT) WITH (kafka_topic='t', "
                               "value_format='JSON');",
                       "CREATE STREAM O AS SELECT S.K, EXPLODE(S.A) AS X, T.W FROM S JOIN T ON S.K = T.K;"],
        "inputs": [{"topic": "t", "key": "k", "value": {"W": 7}},
                   {"topic": "s", "key": "k", "value": {"A": [1, 2], "BA": None, "V": 0}}],
        "outputs": [{"topic": "O", "key": "k", "value": {"X": 1, "W": 7}},
                    {"topic": "O", "key": "k", "value": {"X": 2, "W": 7}}],
    })
    return tests


def cases() -> list[dict[str, Any]]:
    return element_cases() + placement_cases()


if __name__ == "__main__":
    write_cases(sys.argv[1], __doc__, cases())
