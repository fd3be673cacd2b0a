"""A join's stream sources carry only the columns the query reads (``plan.join_columns``): which columns
each source keeps for which query shapes, that the results are those of the whole rows, that the rows
written to repartition topics and window stores really are narrower, and that with rows in the processing
log every column stays."""

from __future__ import annotations

import marshal
import pickle
from pathlib import Path
from typing import Any

import pytest

import ksqlpy.plan.lower_join as lower_join
from ksqlpy.engine import Engine
from tests.joins.conftest import PROPS, Harness

SOURCES = [
    "CREATE STREAM S (ID INT KEY, FK INT, N INT, NAME STRING, PAD STRING) "
    "WITH (kafka_topic='s', value_format='JSON', partitions=2);",
    "CREATE STREAM S2 (ID INT KEY, FK INT, M INT, PAD STRING) WITH (kafka_topic='s2', value_format='JSON', partitions=2);",
    "CREATE STREAM S3 (ID INT KEY, G INT, PAD STRING) WITH (kafka_topic='s3', value_format='JSON', partitions=2);",
    "CREATE TABLE T (ID INT PRIMARY KEY, W INT, PAD STRING) WITH (kafka_topic='t', value_format='JSON', partitions=2);",
    "CREATE TABLE T2 (ID INT PRIMARY KEY, X INT, PAD STRING) WITH (kafka_topic='t2', value_format='JSON', partitions=2);",
]


def _read(h: Harness, sql: str) -> dict[str, list[str]]:
    """Source topic -> the columns its channels keep (only channels that drop some)."""
    h.sql(sql)
    q = list(h.engine.queries.values())[-1]
    out: dict[str, list[str]] = {}
    for sub in q.topology.sub_topologies:
        for st in sub.operators:
            for c in getattr(st, "wiring", []):
                if getattr(c, "columns_read", None) is not None:
                    assert c.topic not in out or out[c.topic] == sorted(c.columns_read)
                    out[c.topic] = sorted(c.columns_read)
    return out


@pytest.fixture
def hs(h: Harness) -> Harness:
    for s in SOURCES:
        h.sql(s)
    return h


@pytest.mark.parametrize(("sql", "want"), [
    # stream-stream: the criteria, the WHERE and the GROUP BY's keys and arguments (q8's shape)
    ("CREATE TABLE O WITH (key_format='JSON') AS SELECT S.FK, S.NAME, COUNT(*) AS C FROM S JOIN S2 WITHIN 10 SECONDS ON S.FK = S2.FK "
     "WHERE S.N = S2.M GROUP BY S.FK, S.NAME;", {"s": ["FK", "N", "NAME"], "s2": ["FK", "M"]}),
    ("CREATE TABLE O AS SELECT S.FK, SUM(S2.M) AS T FROM S JOIN S2 WITHIN 10 SECONDS ON S.FK = S2.FK GROUP BY S.FK;",
     {"s": ["FK"], "s2": ["FK", "M"]}),
    ("CREATE TABLE O AS SELECT S.FK, COUNT(*) AS C FROM S JOIN S2 WITHIN 10 SECONDS ON S.FK = S2.FK GROUP BY S.FK "
     "HAVING COUNT(*) > 1;", {"s": ["FK"], "s2": ["FK"]}),
    # the projection, a criteria over an expression, LEFT and FULL joins, pseudo columns (not value columns)
    ("CREATE STREAM O AS SELECT S2.FK, S.ID, S2.M FROM S LEFT JOIN S2 WITHIN 1 MINUTE ON S.FK + 1 = S2.FK;",
     {"s": ["FK"], "s2": ["FK", "M"]}),
    ("CREATE STREAM O AS SELECT ROWKEY AS K, S.ROWTIME AS RT, S2.ROWOFFSET AS RO FROM S FULL JOIN S2 "
     "WITHIN 1 MINUTE ON S.FK = S2.FK;", {"s": ["FK"], "s2": ["FK"]}),
    # stream-table: the stream side narrower, the table side whole
    ("CREATE STREAM O AS SELECT S.FK, S.N, T.W FROM S JOIN T ON S.FK = T.ID;", {"s": ["FK", "N"]}),
    ("CREATE STREAM O AS SELECT S.ID, T.W FROM S JOIN T ON S.ID = T.ID WHERE LCASE(S.NAME) = 'a';", {"s": ["NAME"]}),
    # n-way: every step's criteria
    ("CREATE STREAM O AS SELECT S.FK, S3.G FROM S JOIN S2 WITHIN 1 MINUTE ON S.FK = S2.FK "
     "JOIN S3 WITHIN 1 MINUTE ON S2.M = S3.G;", {"s": ["FK"], "s2": ["FK", "M"], "s3": ["G"]}),
    ("CREATE STREAM O AS SELECT T.ID, S.FK, T.W FROM S JOIN S2 WITHIN 1 MINUTE ON S.FK = S2.FK JOIN T ON S2.M = T.ID;",
     {"s": ["FK"], "s2": ["FK", "M"]}),
    # everything read, or a node above the join that is not analysed: every column kept
    ("CREATE STREAM O AS SELECT * FROM S JOIN S2 WITHIN 1 MINUTE ON S.FK = S2.FK;", {}),
    ("CREATE STREAM O AS SELECT S.FK, S.N, S.NAME, S.PAD, S2.M, S2.PAD AS P2, S2.FK AS F2 FROM S JOIN S2 "
     "WITHIN 1 MINUTE ON S.FK = S2.FK;", {}),
    ("CREATE STREAM O AS SELECT S.FK, S2.M FROM S JOIN S2 WITHIN 1 MINUTE ON S.FK = S2.FK PARTITION BY S2.M;", {}),
    ("CREATE STREAM O AS SELECT S.FK, EXPLODE(ARRAY[S2.M]) AS E FROM S JOIN S2 WITHIN 1 MINUTE ON S.FK = S2.FK;", {}),
    ("CREATE TABLE O AS SELECT T.ID, W FROM T JOIN T2 ON T.ID = T2.ID;", {}),
])
def test_which_columns_each_source_keeps(hs: Harness, sql: str, want: dict[str, list[str]]) -> None:
    assert _read(hs, sql) == want


def _feed(h: Harness) -> None:
    for key, value, ts in [(1, {"W": 10, "PAD": "t1"}, 1), (2, {"W": None, "PAD": "t2"}, 1), (3, {"W": 30}, 1)]:
        h.send("T", key, value, ts)
    for i in range(40):
        h.send("S", i, {"FK": i % 5, "N": i % 4 or None, "NAME": None if i % 6 == 0 else f"n{i % 3}",
                        "PAD": "x" * i}, 10 + i * 100)
        h.send("S2", 100 + i, {"FK": (i * 3) % 5, "M": i % 3, "PAD": "y" * i}, 30 + i * 100)
        h.send("S3", 200 + i, {"G": i % 4, "PAD": "z"}, 40 + i * 100)
    h.send("S", 99, None, 5000)  # a tombstone
    h.send("S", None, {"FK": 1, "N": 3}, 5001)  # no key
    h.send("S2", 98, {"FK": None, "M": 3}, 5002)  # a NULL join key


RESULT_CASES = [
    "CREATE TABLE O WITH (key_format='JSON') AS SELECT S.FK, S.NAME, COUNT(*) AS C FROM S JOIN S2 WITHIN 10 SECONDS ON S.FK = S2.FK "
    "WHERE S.N = S2.M GROUP BY S.FK, S.NAME;",
    "CREATE TABLE O AS SELECT S.FK, SUM(S2.M) AS T FROM S JOIN S2 WITHIN 1 SECONDS ON S.FK = S2.FK GROUP BY S.FK;",
    "CREATE STREAM O AS SELECT S2.FK, S.ID, S2.M FROM S LEFT JOIN S2 WITHIN 1 MINUTE ON S.FK + 1 = S2.FK;",
    "CREATE STREAM O AS SELECT ROWKEY AS K, S.ROWTIME AS RT, S2.M FROM S FULL JOIN S2 WITHIN 300 MILLISECONDS "
    "GRACE PERIOD 0 MILLISECONDS ON S.FK = S2.FK;",
    "CREATE STREAM O AS SELECT S.FK, S.N, T.W FROM S LEFT JOIN T ON S.FK = T.ID WHERE S.NAME IS NOT NULL;",
    "CREATE STREAM O AS SELECT S.FK, S3.G, LEN(S2.PAD) AS L FROM S JOIN S2 WITHIN 1 MINUTE ON S.FK = S2.FK "
    "JOIN S3 WITHIN 1 MINUTE ON S2.M = S3.G;",
]


def _run(h: Harness, sql: str) -> list[tuple[Any, Any, int]]:
    h.sql(sql)
    _feed(h)
    h.run()
    return sorted(h.read("O"), key=repr)


@pytest.mark.parametrize("sql", RESULT_CASES)
def test_results_are_those_of_whole_rows(tmp_path: Path, sql: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def fresh(name: str) -> Harness:
        h = Harness(str(tmp_path / name))
        for s in SOURCES:
            h.sql(s)
        return h

    narrow, whole = fresh("narrow"), fresh("whole")
    try:
        assert _read(fresh_probe := fresh("probe"), sql) != {}
        fresh_probe.engine.close()
        got = _run(narrow, sql)
        monkeypatch.setattr(lower_join, "stream_columns_read", lambda plan, join: {})
        want = _run(whole, sql)
        monkeypatch.undo()
        assert got == want
        assert got  # the case joins something
    finally:
        narrow.engine.close()
        whole.engine.close()


def _stored_rows(engine: Engine) -> list[tuple]:
    """The rows in the query's repartition topics and window-store changelogs (internal payloads)."""
    rows: list[tuple] = []
    for topic in engine.log.list_topics():
        name = getattr(topic, "name", topic)
        if "-jt_query_" not in name:
            continue
        info = engine.log.describe_topic(name)
        assert info is not None
        for p in range(info.partitions):
            batch = engine.log.fetch(name, p, 0, 1_000_000)
            for k, v in zip(batch.keys, batch.values, strict=True):
                if v is None or (k is not None and k[:1] == b"\x00"):  # store meta entries
                    continue
                try:
                    obj = marshal.loads(v)
                except (ValueError, EOFError, TypeError):
                    obj = pickle.loads(v)
                row = obj[1] if "repartition" in name else obj
                if isinstance(row, tuple):
                    rows.append(row)
    return rows


@pytest.mark.parametrize(("include", "narrow"), [("false", True), ("true", False)])
def test_internal_rows_carry_only_read_columns(tmp_path: Path, include: str, narrow: bool) -> None:
    """The re-keyed records and the window stores hold NULL for what the query never reads - unless failing
    rows are logged whole (``ksql.logging.processing.rows.include``)."""
    h = Harness(str(tmp_path))
    h.engine.close()
    h.engine = Engine(str(tmp_path), {**PROPS, "ksql.logging.processing.rows.include": include})
    try:
        for s in SOURCES:
            h.sql(s)
        h.sql("CREATE STREAM O AS SELECT S.FK, S2.M FROM S JOIN S2 WITHIN 1 MINUTE ON S.FK = S2.FK;")
        _feed(h)
        h.run()
        assert h.read("O")
        rows = _stored_rows(h.engine)
        assert rows
        pads = [v for r in rows for v in r if isinstance(v, str) and v[:1] in ("x", "y") and set(v) <= {"x", "y"}]
        assert (not pads) is narrow
    finally:
        h.engine.close()
