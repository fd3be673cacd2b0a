"""@udaf end to end: streams and tables (undo), literal initial arguments, variadic columns, configuration,
STRUCT aggregates kept in the state store, session merges, pull queries on the result."""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlError
from tests.udf.conftest import Extensions, values

FUNCTIONS = '''
from __future__ import annotations

import dataclasses
from typing import Any

from ksqlpy.udf import sql, udaf


@udaf("MY_SUM", description="Sum with undo: usable over tables.")
class MySum:
    def initialize(self) -> int:
        return 0

    def aggregate(self, v: int, agg: int) -> int:
        return agg + (v or 0)

    def undo(self, v: int, agg: int) -> int:
        return agg - (v or 0)

    def merge(self, a: int, b: int) -> int:
        return a + b

    def map(self, agg: int) -> int:
        return agg


@udaf("MY_MAX", description="No undo: streams only.")
class MyMax:
    def initialize(self) -> int:
        return -1

    def aggregate(self, v: int, agg: int) -> int:
        return agg if v is None else max(agg, v)

    def merge(self, a: int, b: int) -> int:
        return max(a, b)

    def map(self, agg: int) -> int:
        return agg


@dataclasses.dataclass
class Stats:
    count: int
    total: float


@udaf("STATS", description="Count and total as a STRUCT, kept as one in the store.")
class StatsOf:
    def initialize(self) -> Stats:
        return Stats(0, 0.0)

    def aggregate(self, v: float, agg: Stats) -> Stats:
        if v is not None:
            agg.count += 1
            agg.total += v
        return agg

    def merge(self, a: Stats, b: Stats) -> Stats:
        return Stats(a.count + b.count, a.total + b.total)

    def map(self, agg: Stats) -> Stats:
        return agg


@udaf("JOINED", description="The strings joined by a literal separator, with a literal limit.")
class Joined:
    def __init__(self, sep: str, limit: sql.INT) -> None:
        self.sep, self.limit = sep, limit
        self.prefix = ""

    def configure(self, config: dict[str, Any]) -> None:
        self.prefix = str(config.get("ksql.functions.joined.prefix", ""))

    def initialize(self) -> list[str]:
        return []

    def aggregate(self, first: str, *more: str, agg: list[str]) -> list[str]:
        for s in (first, *more):
            if s is not None and len(agg) < self.limit:
                agg.append(s)
        return agg

    def merge(self, a: list[str], b: list[str]) -> list[str]:
        return (a + b)[: self.limit]

    def map(self, agg: list[str]) -> str:
        return self.prefix + self.sep.join(agg)
'''

STREAM = ("CREATE STREAM S (K STRING KEY, V INT, D DOUBLE, A STRING, B STRING) "
          "WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")


@pytest.fixture
def engine(ext: Extensions):  # type: ignore[no-untyped-def]
    ext.write("aggregates.py", FUNCTIONS)
    e = ext.engine()
    e.execute(STREAM)
    return e


def _insert(engine, *rows: tuple) -> None:  # type: ignore[no-untyped-def]
    for k, v, d, a, b in rows:
        engine.execute(f"INSERT INTO S (K, V, D, A, B) VALUES ('{k}', {v}, {d}, '{a}', '{b}');")


def test_a_stream_aggregation_and_a_pull_query_on_its_table(engine) -> None:  # type: ignore[no-untyped-def]
    engine.execute("CREATE TABLE T AS SELECT K, MY_SUM(V) AS S, MY_MAX(V) AS M, STATS(D) AS ST, "
                   "JOINED(A, B, '+', 3) AS J FROM S GROUP BY K;")
    _insert(engine, ("x", 1, 0.5, "a", "b"), ("x", 5, 1.5, "c", "d"), ("y", 2, 2.0, "e", "f"))
    engine.drain(10)
    assert values(engine, "T")[-1] == (2, 2, {"COUNT": 1, "TOTAL": 2.0}, "e+f")
    rows = engine.execute("SELECT * FROM T WHERE K = 'x';")[0].data["rows"]
    assert [tuple(r) for r in rows] == [("x", 6, 5, {"COUNT": 2, "TOTAL": 2.0}, "a+b+c")]
    assert engine.catalog.source("T").schema_string() == (
        "K STRING PRIMARY KEY, S BIGINT, M BIGINT, ST STRUCT<`COUNT` BIGINT, `TOTAL` DOUBLE>, J STRING")


def test_a_table_aggregation_undoes_replaced_rows(engine) -> None:  # type: ignore[no-untyped-def]
    engine.execute("CREATE TABLE U (ID STRING PRIMARY KEY, G STRING, V INT) "
                   "WITH (KAFKA_TOPIC='u', VALUE_FORMAT='JSON', PARTITIONS=1);")
    engine.execute("CREATE TABLE BY_G AS SELECT G, MY_SUM(V) AS S FROM U GROUP BY G;")
    for id_, g, v in (("1", "a", 10), ("2", "a", 5), ("1", "b", 10), ("2", "a", 7)):
        engine.execute(f"INSERT INTO U (ID, G, V) VALUES ('{id_}', '{g}', {v});")
    engine.drain(10)
    rows = {r[0]: r[1] for r in engine.execute("SELECT * FROM BY_G;")[0].data["rows"]}
    assert rows == {"a": 7, "b": 10}


def test_an_aggregate_without_undo_is_refused_over_a_table(engine) -> None:  # type: ignore[no-untyped-def]
    engine.execute("CREATE TABLE U (ID STRING PRIMARY KEY, G STRING, V INT) "
                   "WITH (KAFKA_TOPIC='u', VALUE_FORMAT='JSON', PARTITIONS=1);")
    with pytest.raises(KsqlError, match="MY_MAX cannot be applied to a table source, only to a stream source"):
        engine.execute("CREATE TABLE BY_G AS SELECT G, MY_MAX(V) AS M FROM U GROUP BY G;")


def test_literal_arguments_must_be_literals_and_configuration_reaches_the_function(engine) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(KsqlError, match="Parameter 3 passed to function JOINED must be a literal constant, but was expression: 'A'"):
        engine.execute("CREATE TABLE T AS SELECT K, JOINED(A, B, A, 3) AS J FROM S GROUP BY K;")
    with pytest.raises(KsqlError, match=r"Function 'JOINED' does not accept parameters \(STRING, STRING\)"):
        engine.execute("CREATE TABLE T AS SELECT K, JOINED(A, B) AS J FROM S GROUP BY K;")
    engine.execute("CREATE TABLE T AS SELECT K, JOINED(A, '/', 5) AS J FROM S GROUP BY K;",
                   {"ksql.functions.joined.prefix": "> "})
    _insert(engine, ("x", 1, 0.5, "a", "b"), ("x", 5, 1.5, "c", "d"))
    engine.drain(10)
    assert values(engine, "T")[-1] == ("> a/c",)


def test_session_windows_merge_with_the_user_merge(engine) -> None:  # type: ignore[no-untyped-def]
    engine.execute("CREATE TABLE W AS SELECT K, MY_SUM(V) AS S FROM S WINDOW SESSION (20 SECONDS) GROUP BY K;")
    for ts, v in ((0, 1), (30_000, 2), (15_000, 4)):  # the last record bridges the two sessions
        engine.execute(f"INSERT INTO S (ROWTIME, K, V) VALUES ({ts}, 'x', {v});")
    engine.drain(10)
    rows = engine.execute("SELECT * FROM W WHERE K = 'x';")[0].data["rows"]
    assert [r[-1] for r in rows] == [7]


def test_the_aggregate_state_survives_a_restart(ext: Extensions) -> None:
    """The STRUCT aggregate is kept in the store (and its changelog) as a plain value: after a restart that
    replays the command log, the aggregation goes on from the stored state, not from the input's start."""
    from ksqlpy.engine import Engine
    from ksqlpy.engine.command_log import DurableStatements

    ext.write("aggregates.py", FUNCTIONS)
    first = ext.engine(**{"auto.offset.reset": "latest"})
    statements = DurableStatements(first)
    statements.execute(STREAM)
    statements.execute("CREATE TABLE T AS SELECT K, STATS(D) AS ST FROM S GROUP BY K;")
    first.execute("INSERT INTO S (K, D) VALUES ('x', 1.5);")
    first.drain(10)
    data_dir = first.data_dir
    first.close()
    ext.engines.remove(first)
    again = Engine(data_dir, {"ksql.extension.dir": str(ext.dir), "auto.offset.reset": "latest",
                              "cache.max.bytes.buffering": 0})
    ext.engines.append(again)
    DurableStatements(again)
    again.execute("INSERT INTO S (K, D) VALUES ('x', 2.0);")
    again.drain(10)
    rows = again.execute("SELECT ST FROM T WHERE K = 'x';")[0].data["rows"]
    assert [tuple(r) for r in rows] == [({"COUNT": 2, "TOTAL": 3.5},)]
