"""Struct, array and map access chains in every clause, as ksqlDB evaluates them (from memory of its
ExpressionTypeManager and SqlToJavaVisitor's ArrayAccess/map get/struct getters): ``->`` on a NULL struct, ``[i]``
on a NULL array or map, an index past either end (1-based, negative from the end, 0) and a missing map key are NULL
all along the chain - in SELECT, WHERE, GROUP BY (a NULL group key drops the record), PARTITION BY (a NULL key is
kept), an aggregate's argument and a join's criteria; a field the struct lacks is refused while the expression is
typed, worded by its clause (``Error in WHERE expression: ...`` in WHERE and HAVING).

Writes tests/cases/functions/access-chains.json: ``python tests/cases/functions/gen_access_chains.py
tests/cases/functions/access-chains.json`` after changing this file.
"""
import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import write_cases  # noqa: E402

EXC = "io.confluent.ksql.util.KsqlStatementException"
STREAM = ("CREATE STREAM S (K STRING KEY, ST STRUCT<F INT, G STRUCT<H STRING>>, A ARRAY<STRUCT<F INT, "
          "G STRUCT<H STRING>>>, M MAP<STRING, ARRAY<STRUCT<F INT>>>) WITH (kafka_topic='s', value_format='JSON', "
          "partitions=1);")
ROWS: list[dict[str, Any]] = [
    {"ST": {"F": 1, "G": {"H": "h"}}, "A": [{"F": 2, "G": {"H": "a"}}, {"F": 3, "G": None}],
     "M": {"x": [{"F": 4}, {"F": 5}]}},
    {"ST": None, "A": None, "M": None},
    {"ST": {"F": None, "G": None}, "A": [], "M": {"y": []}},
    {"ST": {"F": 0, "G": {"H": None}}, "A": [None], "M": {"x": [None]}},
]
# chain, its value per row
CHAINS: list[tuple[str, list[Any]]] = [
    ("ST->G->H", ["h", None, None, None]),
    ("ST->F", [1, None, None, 0]),
    ("A[1]->G->H", ["a", None, None, None]),
    ("A[-1]->F", [3, None, None, None]),
    ("A[2]->G->H", [None, None, None, None]),
    ("A[3]->F", [None, None, None, None]),
    ("A[-3]->F", [None, None, None, None]),
    ("A[0]->F", [None, None, None, None]),
    ("M['x'][1]->F", [4, None, None, None]),
    ("M['x'][-1]->F", [5, None, None, None]),
    ("M['y'][1]->F", [None, None, None, None]),
    ("M['x'][3]->F", [None, None, None, None]),
]


def _inputs(keys: list[str] | None = None) -> list[dict[str, Any]]:
    keys = keys or ["k"] * len(ROWS)
    return [{"topic": "s", "key": k, "value": v} for k, v in zip(keys, ROWS, strict=True)]


def _refused(name: str, sql: str, message: str) -> dict[str, Any]:
    return {"name": name, "statements": [STREAM, sql], "expectedException": {"type": EXC, "message": message}}


def cases() -> list[dict[str, Any]]:
    select = ", ".join(f"{c} AS C{i}" for i, (c, _) in enumerate(CHAINS))
    tests: list[dict[str, Any]] = [{
        "name": "every chain in SELECT over full, NULL, empty and partly NULL containers",
        "statements": [STREAM, f"CREATE STREAM O AS SELECT K, {select} FROM S;"],
        "inputs": _inputs(),
        "outputs": [{"topic": "O", "key": "k", "value": {f"C{i}": vals[r] for i, (_, vals) in enumerate(CHAINS)}}
                    for r in range(len(ROWS))],
    }]
    for c, vals in CHAINS:
        kept = [r for r, v in enumerate(vals) if v is None]
        tests.append({
            "name": f"{c} IS NULL in WHERE",
            "statements": [STREAM, f"CREATE STREAM O AS SELECT K, ST->F AS F FROM S WHERE {c} IS NULL;"],
            "inputs": _inputs([f"r{r}" for r in range(len(ROWS))]),
            "outputs": [{"topic": "O", "key": f"r{r}", "value": {"F": CHAINS[1][1][r]}} for r in kept],
        })
    tests.append({
        "name": "chains in GROUP BY: a NULL group key drops the record",
        "statements": [STREAM, "CREATE TABLE O AS SELECT M['x'][-1]->F AS G, COUNT(*) AS N FROM S "
                               "GROUP BY M['x'][-1]->F;"],
        "inputs": _inputs() + _inputs()[:1],
        "outputs": [{"topic": "O", "key": 5, "value": {"N": 1}}, {"topic": "O", "key": 5, "value": {"N": 2}}],
    })
    tests.append({
        "name": "a chain in PARTITION BY: a NULL key is kept",
        "statements": [STREAM, "CREATE STREAM O AS SELECT A[1]->G->H AS P, ST->F AS F FROM S "
                               "PARTITION BY A[1]->G->H;"],
        "inputs": _inputs(),
        "outputs": [{"topic": "O", "key": "a", "value": {"F": 1}}, {"topic": "O", "key": None, "value": {"F": None}},
                    {"topic": "O", "key": None, "value": {"F": None}}, {"topic": "O", "key": None, "value": {"F": 0}}],
    })
    tests.append({
        "name": "chains as aggregate arguments: NULL inputs skipped",
        "statements": [STREAM, "CREATE TABLE O AS SELECT K, SUM(A[-1]->F) AS S1, MAX(M['x'][1]->F) AS M1 FROM S "
                               "GROUP BY K;"],
        "inputs": _inputs(),
        "outputs": [{"topic": "O", "key": "k", "value": {"S1": 3, "M1": 4}} for _ in ROWS],
    })
    tests.append({
        "name": "a chain as a stream-table join's criteria: a NULL one matches nothing",
        "statements": [STREAM, "CREATE TABLE T (K STRING PRIMARY KEY, V INT) WITH (kafka_topic='t', "
                               "value_format='JSON', partitions=1);",
                       "CREATE STREAM O AS SELECT T.K, S.ST->F AS F, T.V FROM S JOIN T ON S.ST->G->H = T.K;"],
        "inputs": [{"topic": "t", "key": "h", "value": {"V": 9}}] + _inputs(),
        "outputs": [{"topic": "O", "key": "h", "value": {"F": 1, "V": 9}}],
    })
    missing = "Could not find field 'ZZ' in 'ST'."
    tests += [
        _refused("a missing field in SELECT", "CREATE STREAM O AS SELECT K, ST->ZZ AS X FROM S;", missing),
        _refused("a missing field in WHERE", "CREATE STREAM O AS SELECT K FROM S WHERE ST->ZZ = 1;",
                 f"Error in WHERE expression: {missing}"),
        _refused("a missing field in PARTITION BY", "CREATE STREAM O AS SELECT ST->ZZ, K FROM S PARTITION BY ST->ZZ;",
                 missing),
        _refused("a missing field in GROUP BY", "CREATE TABLE O AS SELECT ST->ZZ, COUNT(*) AS N FROM S "
                                                "GROUP BY ST->ZZ;", missing),
        _refused("a missing field in HAVING", "CREATE TABLE O AS SELECT K, COUNT(*) AS N FROM S GROUP BY K "
                                              "HAVING MAX(ST->ZZ) > 1;", missing),
        _refused("a missing field deep in a chain", "CREATE STREAM O AS SELECT K, A[1]->G->ZZ AS X FROM S;",
                 "Could not find field 'ZZ' in 'A[1]->G'."),
        _refused("-> on a map", "CREATE STREAM O AS SELECT K, M->F AS X FROM S;",
                 "Expected STRUCT type, got: MAP<STRING, ARRAY<STRUCT<`F` INTEGER>>>"),
    ]
    return tests


if __name__ == "__main__":
    write_cases(sys.argv[1], __doc__, cases())
