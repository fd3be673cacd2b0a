"""Where a query starts reading when ``auto.offset.reset`` is not set: by the kind of each source, as
ksqlDB's source builders default it (``SourceBuilderBase``: streams latest, tables - windowed or not -
earliest); once set, in either spelling and in any layer, it applies to every source alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.engine import Engine


def _rows(engine: Engine, sql: str) -> list[tuple]:
    engine.drain()
    [res] = engine.execute(sql)
    return sorted(tuple(r) for r in res.data["rows"])


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path))
    e.execute("CREATE STREAM s (id INT KEY, v STRING) WITH (kafka_topic='s', value_format='JSON', partitions=2);"
              "CREATE TABLE t (id INT PRIMARY KEY, v STRING) WITH (kafka_topic='t', value_format='JSON', partitions=2);"
              "INSERT INTO s (id, v) VALUES (1, 'old');"
              "INSERT INTO t (id, v) VALUES (1, 'old');")
    yield e
    e.close()


def test_unset_a_table_source_is_read_from_the_earliest_offset_a_stream_from_the_latest(engine: Engine) -> None:
    engine.execute("CREATE TABLE t2 AS SELECT * FROM t; CREATE STREAM s2 AS SELECT * FROM s;"
                   "CREATE TABLE counts AS SELECT id, COUNT(*) AS n FROM s GROUP BY id;")
    engine.execute("INSERT INTO s (id, v) VALUES (2, 'new'); INSERT INTO t (id, v) VALUES (2, 'new');")
    assert _rows(engine, "SELECT * FROM t2;") == [(1, "old"), (2, "new")]
    assert _rows(engine, "SELECT * FROM s2;") == [(2, "new")]
    assert _rows(engine, "SELECT * FROM counts;") == [(2, 1)]  # an aggregation of a stream: latest


def test_unset_a_windowed_table_and_a_table_aggregation_start_at_the_earliest(engine: Engine) -> None:
    engine.execute("CREATE TABLE per_v AS SELECT v, COUNT(*) AS n FROM t GROUP BY v;")
    assert _rows(engine, "SELECT * FROM per_v;") == [("old", 1)]
    engine.execute("CREATE TABLE w WITH (kafka_topic='w_topic', partitions=2) AS "
                   "SELECT id, COUNT(*) AS n FROM s WINDOW TUMBLING (SIZE 1 HOUR) GROUP BY id;")
    engine.execute("INSERT INTO s (id, v) VALUES (3, 'x');")
    engine.drain()
    engine.execute("CREATE TABLE w_src (id INT PRIMARY KEY, n BIGINT) WITH (kafka_topic='w_topic', "
                   "value_format='JSON', window_type='TUMBLING', window_size='1 HOUR');")
    [push] = engine.execute("SELECT id, n FROM w_src EMIT CHANGES LIMIT 1;")
    engine.drain()
    assert [tuple(r) for r in push.data] == [(3, 1)]


def test_unset_a_push_query_on_a_table_shows_its_rows_one_on_a_stream_waits(engine: Engine) -> None:
    [tq] = engine.execute("SELECT * FROM t EMIT CHANGES LIMIT 1;")
    engine.drain()
    assert [tuple(r) for r in tq.data] == [(1, "old")]
    [sq] = engine.execute("SELECT * FROM s EMIT CHANGES LIMIT 1;")
    engine.drain()
    engine.execute("INSERT INTO s (id, v) VALUES (5, 'later');")
    engine.drain()
    assert [tuple(r) for r in sq.data] == [(5, "later")]


@pytest.mark.parametrize("name", ["auto.offset.reset", "ksql.streams.auto.offset.reset"])
def test_set_latest_applies_to_tables_too(engine: Engine, name: str) -> None:
    engine.execute(f"SET '{name}'='latest'; CREATE TABLE t2 AS SELECT * FROM t;")
    engine.execute("INSERT INTO t (id, v) VALUES (2, 'new');")
    assert _rows(engine, "SELECT * FROM t2;") == [(2, "new")]


def test_configured_latest_applies_to_tables_too(tmp_path: Path) -> None:
    e = Engine(str(tmp_path), {"ksql.streams.auto.offset.reset": "latest"})
    try:
        e.execute("CREATE TABLE t (id INT PRIMARY KEY, v STRING) WITH (kafka_topic='t', value_format='JSON', "
                  "partitions=1); INSERT INTO t (id, v) VALUES (1, 'old'); CREATE TABLE t2 AS SELECT * FROM t;")
        e.execute("INSERT INTO t (id, v) VALUES (2, 'new');")
        assert _rows(e, "SELECT * FROM t2;") == [(2, "new")]
    finally:
        e.close()


def test_set_earliest_applies_to_streams(engine: Engine) -> None:
    engine.execute("SET 'auto.offset.reset'='earliest'; CREATE STREAM s2 AS SELECT * FROM s;")
    assert _rows(engine, "SELECT * FROM s2;") == [(1, "old")]
