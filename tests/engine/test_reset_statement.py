"""RESET QUERY (ksqlpy's own statement): a running query is rewound, its state dropped, and it recomputes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlError, KsqlParseError

ROWS = [(1000, 1, 1), (2000, 1, 2), (3000, 2, 3), (4000, 1, 4), (5000, 3, 5)]


def _insert(engine: Engine, rows: list[tuple[int, int, int]]) -> None:
    engine.execute(" ".join(f"INSERT INTO s (ROWTIME, id, v) VALUES ({t}, {i}, {v});" for t, i, v in rows))


def _table(engine: Engine) -> dict[int, tuple]:
    engine.drain()
    [res] = engine.execute("SELECT * FROM totals;")
    return {r[0]: tuple(r[1:]) for r in res.data["rows"]}


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path))
    e.execute("CREATE STREAM s (id INT KEY, v INT) WITH (kafka_topic='s', value_format='JSON', partitions=2);")
    yield e
    e.close()


def test_reset_recomputes_what_a_fresh_query_computes(engine: Engine, tmp_path: Path) -> None:
    _insert(engine, ROWS[:3])
    [created] = engine.execute("CREATE TABLE totals AS SELECT id, COUNT(*) AS n, SUM(v) AS total FROM s GROUP BY id;")
    _insert(engine, ROWS[3:])
    assert _table(engine) == {1: (1, 4), 3: (1, 5)}  # 'latest': only what came after it
    [res] = engine.execute(f"RESET QUERY {created.query_id.lower()};")
    assert res.message.startswith(f"Query {created.query_id} reset to the earliest offsets")
    assert list(engine.queries) == [created.query_id]
    assert _table(engine) == {1: (3, 7), 2: (1, 3), 3: (1, 5)}
    _insert(engine, [(6000, 2, 10)])
    assert _table(engine) == {1: (3, 7), 2: (2, 13), 3: (1, 5)}


def test_reset_to_a_time(engine: Engine) -> None:
    engine.execute("SET 'auto.offset.reset'='earliest';")
    [created] = engine.execute("CREATE TABLE totals AS SELECT id, COUNT(*) AS n, SUM(v) AS total FROM s GROUP BY id;")
    _insert(engine, ROWS)
    assert _table(engine) == {1: (3, 7), 2: (1, 3), 3: (1, 5)}
    engine.execute(f"RESET QUERY {created.query_id} TO TIMESTAMP '1970-01-01T00:00:03.500';")
    assert _table(engine) == {1: (1, 4), 3: (1, 5)}
    engine.execute(f"RESET QUERY {created.query_id} TO TIMESTAMP 2500;")
    assert _table(engine) == {1: (1, 4), 2: (1, 3), 3: (1, 5)}


def test_reset_errors_name_what_is_wrong(engine: Engine) -> None:
    with pytest.raises(KsqlError, match=r"^Unknown queryId: NOPE \(persistent queries: none\)$"):
        engine.execute("RESET QUERY nope;")
    engine.execute("CREATE TABLE totals AS SELECT id, COUNT(*) AS n FROM s GROUP BY id;")
    with pytest.raises(KsqlError, match="Not a time: 'yesterday'"):
        engine.execute("RESET QUERY CTAS_TOTALS_1 TO TIMESTAMP 'yesterday';")
    with pytest.raises(KsqlParseError, match="Expecting {'EARLIEST', 'TIMESTAMP'}"):
        engine.execute("RESET QUERY CTAS_TOTALS_1 TO LATEST;")
