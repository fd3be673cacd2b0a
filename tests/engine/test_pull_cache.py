"""Prepared key lookups (``engine/pull_cache.py``): a repeated pull query of the same shape is answered
without parsing, and always gives what the full path gives - for new data, other literals, and after the
catalog changed under it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine.pull_cache import shape_of
from ksqlpy.errors import KsqlError


def _engine(tmp_path: Path) -> Engine:
    return Engine(str(tmp_path), {"auto.offset.reset": "earliest"})


def _full(engine: Engine, sql: str) -> Any:
    """The answer of the full path (parse, analyze, compile), never from a prepared lookup."""
    return engine.execute_statement(engine.parse(sql)[0]).data


def _cached(engine: Engine, sql: str) -> Any:
    """The answer of ``execute``, asserting it came from a prepared lookup."""
    hits = engine.pull_cache.hits
    data = engine.execute(sql)[0].data
    assert engine.pull_cache.hits == hits + 1, f"not answered from a prepared lookup: {sql}"
    return data


@pytest.fixture
def engine(tmp_path: Path) -> Any:
    e = _engine(tmp_path)
    e.execute("CREATE STREAM pay (id STRING KEY, user_id STRING, amount INT, region INT) "
              "WITH (kafka_topic='pay', format='JSON', partitions=2);")
    e.execute("CREATE TABLE per_user AS SELECT user_id, COUNT(*) AS n, SUM(amount) AS total FROM pay "
              "GROUP BY user_id;")
    e.execute("CREATE TABLE per_region AS SELECT region, COUNT(*) AS n FROM pay GROUP BY region;")
    e.execute("CREATE TABLE per_pair AS SELECT user_id, region, SUM(amount) AS total FROM pay "
              "GROUP BY user_id, region;")
    e.execute("CREATE TABLE per_min AS SELECT user_id, COUNT(*) AS n FROM pay "
              "WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY user_id;")
    for i, (user, amount, region) in enumerate([("ann", 5, 1), ("bob", 7, -2), ("ann", 3, 1), ("o'neil", 1, 3),
                                                 ("cy", 2, -2), ("ann", 10, 70000)]):
        e.execute(f"INSERT INTO pay (id, user_id, amount, region, ROWTIME) VALUES "
                  f"('p{i}', '{user.replace(chr(39), chr(39) * 2)}', {amount}, {region}, {i * 40_000});")
    e.drain()
    yield e
    e.close()


def test_other_literals_give_their_own_rows(engine: Engine) -> None:
    assert _full(engine, "SELECT * FROM per_user WHERE user_id = 'ann';")["rows"] == [("ann", 3, 18)]
    assert _cached(engine, "SELECT * FROM per_user WHERE user_id = 'bob';")["rows"] == [("bob", 1, 7)]
    assert _cached(engine, "SELECT * FROM per_user WHERE user_id = 'o''neil';")["rows"] == [("o'neil", 1, 1)]
    assert _cached(engine, "SELECT * FROM per_user WHERE user_id = 'nobody';")["rows"] == []
    assert _cached(engine, "SELECT * FROM per_user WHERE user_id = 'ann';")["rows"] == [("ann", 3, 18)]
    # whitespace does not change the shape; the text otherwise must match
    assert _cached(engine, "SELECT *  FROM per_user\n WHERE user_id = 'cy'  ;")["rows"] == [("cy", 1, 2)]


@pytest.mark.parametrize(("first", "others"), [
    ("SELECT * FROM per_region WHERE region = 1;", ["region = 3", "region = 9", "region = 70000"]),
    ("SELECT * FROM per_region WHERE region = -2;", ["region = -1", "region = -2", "region = -5"]),
    ("SELECT region, n * 10 AS tens FROM per_region WHERE region IN (1, 3);",
     ["region IN (70000, 1)", "region IN (3, 4)"]),
    ("SELECT * FROM per_region WHERE region = 1 OR region = -3;", ["region = 70000 OR region = -2"]),
    ("SELECT * FROM per_region WHERE 1 = region;", ["3 = region"]),
    ("SELECT * FROM per_pair WHERE user_id = 'ann' AND region = 1;",
     ["user_id = 'ann' AND region = 70000", "user_id = 'bob' AND region = 3", "user_id = 'bob' AND region = 1"]),
    ("SELECT * FROM per_pair WHERE (user_id = 'ann' AND region = -1) OR (region = -2 AND user_id = 'cy');",
     ["(user_id = 'bob' AND region = -2) OR (region = -3 AND user_id = 'ann')"]),
    ("SELECT * FROM per_pair WHERE user_id IN ('ann', 'bob') AND region IN (1, 2);",
     ["user_id IN ('cy', 'ann') AND region IN (70000, 1)"]),
    ("SELECT * FROM per_min WHERE user_id = 'ann';", ["user_id = 'bob'", "user_id = 'cy'"]),
    ("SELECT user_id, WINDOWSTART, n FROM per_min WHERE user_id IN ('ann', 'bob') LIMIT 2;",
     ["user_id IN ('bob', 'ann')", "user_id IN ('cy', 'nobody')"]),
    ("SELECT * FROM per_region WHERE region = 1;", ["region = 3", "region = 7"]),
])
def test_prepared_answers_equal_the_full_path(engine: Engine, first: str, others: list[str]) -> None:
    head, _, _ = first.partition(" WHERE ")
    tail = " LIMIT 2;" if "LIMIT" in first else ";"
    _full(engine, first)
    for where in others:
        sql = f"{head} WHERE {where}{tail}"
        assert _cached(engine, sql) == _full(engine, sql), sql


def test_results_follow_inserts(engine: Engine) -> None:
    sql = "SELECT * FROM per_user WHERE user_id = 'bob';"
    assert _full(engine, sql)["rows"] == [("bob", 1, 7)]
    engine.execute("INSERT INTO pay (id, user_id, amount, region) VALUES ('p9', 'bob', 100, 1);")
    engine.drain()
    assert _cached(engine, sql)["rows"] == [("bob", 2, 107)]
    assert _cached(engine, "SELECT * FROM per_user WHERE user_id = 'dee';")["rows"] == []
    engine.execute("INSERT INTO pay (id, user_id, amount, region) VALUES ('p10', 'dee', 4, 1);")
    engine.drain()
    assert _cached(engine, "SELECT * FROM per_user WHERE user_id = 'dee';")["rows"] == [("dee", 1, 4)]


def test_drop_and_create_void_the_prepared_lookup(engine: Engine) -> None:
    sql = "SELECT * FROM per_user WHERE user_id = 'ann';"
    assert _full(engine, sql)["rows"] == [("ann", 3, 18)]
    assert [c for c, _ in _cached(engine, sql)["columns"]] == ["USER_ID", "N", "TOTAL"]
    generation = engine.generation
    engine.execute("DROP TABLE per_user;")
    assert engine.generation > generation
    with pytest.raises(KsqlError, match="PER_USER does not exist"):
        engine.execute(sql)
    # the same name again, another query and other columns: the same text answers from the new table
    engine.execute("CREATE TABLE per_user AS SELECT user_id, MAX(amount) AS top FROM pay GROUP BY user_id;")
    engine.drain()
    data = engine.execute(sql)[0].data
    assert [c for c, _ in data["columns"]] == ["USER_ID", "TOP"]
    assert data["rows"] == [("ann", 10)]
    assert _cached(engine, "SELECT * FROM per_user WHERE user_id = 'bob';")["rows"] == [("bob", 7)]


def test_any_catalog_change_voids_prepared_lookups(engine: Engine) -> None:
    sql = "SELECT * FROM per_region WHERE region = 1;"
    _full(engine, sql)
    _cached(engine, sql)
    engine.execute("CREATE STREAM other (id INT KEY, v INT) WITH (kafka_topic='other', value_format='JSON', "
                   "partitions=1);")
    misses = engine.pull_cache.misses
    assert engine.execute(sql)[0].data["rows"] == [(1, 2)]  # prepared again by the full path ...
    assert engine.pull_cache.misses == misses + 1
    _cached(engine, sql)  # ... and used from then on
    engine.execute("SET 'ksql.query.pull.table.scan.enabled'='false';")
    misses = engine.pull_cache.misses
    engine.execute(sql)
    assert engine.pull_cache.misses == misses + 1
    # reads (a pull query, INSERT VALUES, SHOW) change nothing a prepared lookup uses
    engine.execute("INSERT INTO pay (id, user_id, amount, region) VALUES ('p9', 'bob', 1, 1);")
    engine.execute("SHOW TABLES;")
    engine.drain()
    assert _cached(engine, sql)["rows"] == [(1, 3)]


def test_errors_are_those_of_the_full_path(engine: Engine) -> None:
    _full(engine, "SELECT * FROM per_region WHERE region IN (1, 3);")
    # a value the INT key cannot take (ksqlDB's STRICT coercion: widening only), in an IN list or after =
    for bad in ("SELECT * FROM per_region WHERE region IN (1.5, 3);", "SELECT * FROM per_region WHERE region = 1.5;",
                "SELECT * FROM per_region WHERE region = 3000000000;"):
        with pytest.raises(KsqlError) as full:
            _full(engine, bad)
        with pytest.raises(KsqlError) as cached:
            engine.execute(bad)
        assert str(cached.value) == str(full.value)
        assert str(full.value).endswith(f"\nStatement: {bad}")  # a planning error names the statement
    # a literal of another type is another shape: the full path reports its error every time
    for _ in range(2):
        with pytest.raises(KsqlError, match="Cannot compare REGION"):
            engine.execute("SELECT * FROM per_region WHERE region IN (1, 3) AND region = 'x';")
        with pytest.raises(KsqlError, match="Cannot compare REGION"):
            engine.execute("SELECT * FROM per_region WHERE region = 'x';")


def test_only_exact_key_lookups_are_prepared(engine: Engine) -> None:
    for sql in ("SELECT * FROM per_user WHERE user_id = 'ann' AND n > 1;",  # a value column
                "SELECT * FROM per_user WHERE user_id = 'ann' OR user_id = 'ann';",  # a repeated literal
                "SELECT * FROM per_user WHERE user_id = UCASE('ann');",  # not a bare literal
                "SELECT * FROM per_min WHERE user_id = 'ann' AND WINDOWSTART >= 0;",  # window bounds
                "SELECT * FROM per_pair WHERE user_id = 'ann';"):  # not every key column
        engine.execute("SET 'ksql.query.pull.table.scan.enabled'='true';")
        expected = _full(engine, sql)
        assert engine.pull_cache.entries == {}, sql
        hits = engine.pull_cache.hits
        assert engine.execute(sql)[0].data == expected
        assert engine.pull_cache.hits == hits


def test_shapes() -> None:
    s = shape_of("SELECT a, 5 AS five FROM t WHERE k = 12 AND j = 'x''y' LIMIT 3;")
    assert s == ("SELECT a, 5 AS five FROM t WHERE k = ? AND j = ? LIMIT 3;", [("num", "12"), ("str", "'x''y'")])
    # the ';' is part of the shape: a text without it (which a client's parse refuses) is another text
    assert shape_of("select * from t where 1ST_COL = 1e3") == ("select * from t where 1ST_COL = ?", [("num", "1e3")])
    assert shape_of("\n" * 20 + "  select * from t where k = 1;") == ("select * from t where k = ?;", [("num", "1")])
    for not_a_candidate in ("SELECT * FROM t;", "SELECT * FROM t WHERE k = 1 EMIT CHANGES;",
                            "SELECT * FROM t WHERE k = ${key};", "SELECT * FROM t WHERE k = 1; -- note",
                            "SELECT * FROM t WHERE k = 1 /* note */;", "SELECT * FROM t WHERE k = 1; SELECT 1;",
                            "INSERT INTO t (k) VALUES (1);", "SELECT * FROM t WHERE k = 'open"):
        assert shape_of(not_a_candidate) is None, not_a_candidate


def test_prepared_lookups_while_the_runner_runs(tmp_path: Path) -> None:
    """With the background runner started, prepared lookups read committed state without the lock."""
    engine = _engine(tmp_path)
    try:
        engine.execute("CREATE STREAM src (id INT KEY, v INT) WITH (kafka_topic='src', value_format='JSON', "
                       "partitions=1);")
        engine.execute("CREATE TABLE sums AS SELECT id, SUM(v) AS s FROM src GROUP BY id;")
        for i in range(5):
            engine.execute(f"INSERT INTO src (id, v) VALUES ({i}, {i * 10});")
        engine.drain()
        engine.start()
        _full(engine, "SELECT * FROM sums WHERE id = 0;")
        got: list[Any] = []
        with engine.lock:  # a batch or a statement holding the lock does not block a prepared lookup
            t = threading.Thread(target=lambda: got.extend(
                r for i in range(5) for r in _cached(engine, f"SELECT * FROM sums WHERE id = {i};")["rows"]))
            t.start()
            t.join(10)
        assert got == [(i, i * 10) for i in range(5)]
    finally:
        engine.close()


def test_the_oldest_shape_goes_when_the_cache_is_full(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    from ksqlpy.engine import pull_cache

    monkeypatch.setattr(pull_cache, "MAX_ENTRIES", 2)
    shapes = ["SELECT * FROM per_user WHERE user_id = 'ann';", "SELECT n FROM per_user WHERE user_id = 'ann';",
              "SELECT total FROM per_user WHERE user_id = 'ann';"]
    for sql in shapes:
        _full(engine, sql)
    assert len(engine.pull_cache.entries) == 2
    assert [k[0] for k in engine.pull_cache.entries] == [s.replace("'ann'", "?") for s in shapes[1:]]
    assert _cached(engine, "SELECT total FROM per_user WHERE user_id = 'bob';")["rows"] == [(7,)]
    assert engine.execute("SELECT * FROM per_user WHERE user_id = 'bob';")[0].data["rows"] == [("bob", 1, 7)]


def test_a_lookup_prepared_under_request_properties_is_not_used_without_them(engine: Engine) -> None:
    engine.execute("SET 'ksql.query.pull.limit.clause.enabled'='false';")
    sql = "SELECT * FROM per_user WHERE user_id = 'ann' LIMIT 1;"
    allowed = {"ksql.query.pull.limit.clause.enabled": "true"}
    assert engine.execute_statement(engine.parse(sql)[0], allowed).data["rows"] == [("ann", 3, 18)]
    with pytest.raises(KsqlError, match="LIMIT clause in pull queries is currently disabled"):
        engine.execute("SELECT * FROM per_user WHERE user_id = 'bob' LIMIT 1;")


def test_never_waiting_for_the_lock_reads_a_locked_table_when_the_lock_is_free(engine: Engine) -> None:
    """``unlocked_only`` (the REST server's event loop) answers a table it must read under the engine
    lock - no background runner here, as with tables kept by worker processes - when the lock is free
    now, and gives way (None) instead of waiting while another thread holds it."""
    from ksqlpy.engine.pull_cache import run_cached

    _full(engine, "SELECT * FROM per_user WHERE user_id = 'ann';")
    hit = run_cached(engine, "SELECT * FROM per_user WHERE user_id = 'bob';", unlocked_only=True)
    assert hit is not None and hit[0].data["rows"] == [("bob", 1, 7)] and hit[1] == "PER_USER"
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with engine.lock:
            held.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert held.wait(10)
        assert run_cached(engine, "SELECT * FROM per_user WHERE user_id = 'bob';", unlocked_only=True) is None
    finally:
        release.set()
        t.join()


@pytest.mark.parametrize(("key_type", "stored", "first", "other", "other_stored"), [
    ("TIMESTAMP", "'2020-01-01T00:00:00'", "'2020-01-01T00:00:00.000'", "'2020-01-02T10:00:00'",
     "'2020-01-02T10:00'"),
    ("DATE", "'2020-01-02'", "'2020-01-02'", "'2021-03-04'", "'2021-03-04'"),
    ("TIME", "'10:00:01'", "'10:00:01.000'", "'23:59:59'", "'23:59:59'"),
])
def test_time_keys_take_text_as_the_where_does(tmp_path: Path, key_type: str, stored: str, first: str, other: str,
                                               other_stored: str) -> None:
    """A DATE/TIME/TIMESTAMP key looked up by text finds its row, on the full path and the prepared one
    (ksqlDB's resolveKey coerces the literal with DefaultSqlValueCoercer.STRICT, which parses text for the time
    types) - the text was used as the key itself, and found nothing."""
    e = _engine(tmp_path)
    try:
        e.execute(f"CREATE STREAM s (k {key_type} KEY, v INT) WITH (kafka_topic='s', format='JSON', partitions=1);")
        e.execute("CREATE TABLE t AS SELECT k, SUM(v) AS total FROM s GROUP BY k;")
        e.execute(f"INSERT INTO s (k, v) VALUES ({stored}, 5);")
        e.execute(f"INSERT INTO s (k, v) VALUES ({other_stored}, 7);")
        e.drain()
        assert [r[1] for r in _full(e, f"SELECT * FROM t WHERE k = {first};")["rows"]] == [5]
        assert [r[1] for r in _cached(e, f"SELECT * FROM t WHERE k = {other};")["rows"]] == [7]
        assert sorted(r[1] for r in _full(e, f"SELECT * FROM t WHERE k IN ({first}, {other});")["rows"]) == [5, 7]
        with pytest.raises(KsqlError, match=f"'nope' can not be converted to the type of the key column: K {key_type}"):
            _full(e, "SELECT * FROM t WHERE k = 'nope';")
    finally:
        e.close()
