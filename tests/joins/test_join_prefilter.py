"""WHERE conjuncts over a stream-table join's stream side are applied to its records before they are
re-keyed and joined (``plan.join_prefilter``): which conjuncts qualify, on which joins, and that the
results are the ones the WHERE after the join alone gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import ksqlpy.plan.lower_join as lower_join
from tests.joins.conftest import Harness

SOURCES = [
    "CREATE STREAM S (ID INT KEY, FK INT, N INT, B BIGINT, D DOUBLE, NAME STRING, OK BOOLEAN) "
    "WITH (kafka_topic='s', value_format='JSON', partitions=2);",
    "CREATE STREAM S2 (ID INT KEY, FK INT, M INT) WITH (kafka_topic='s2', value_format='JSON', partitions=2);",
    "CREATE TABLE T (ID INT PRIMARY KEY, W INT, CITY STRING) WITH (kafka_topic='t', value_format='JSON', partitions=2);",
    "CREATE TABLE T2 (ID INT PRIMARY KEY, X INT) WITH (kafka_topic='t2', value_format='JSON', partitions=2);",
]


def _prefilters(h: Harness, sql: str) -> dict[str, list[str]]:
    h.sql(sql)
    q = list(h.engine.queries.values())[-1]
    out = {c.topic: [str(e) for e in c.prefilter] for sub in q.topology.sub_topologies
           for st in sub.operators for c in getattr(st, "wiring", []) if getattr(c, "prefilter", None)}
    for sub in q.topology.sub_topologies:
        for st in sub.operators:
            for op in getattr(st, "wiring", []):
                if getattr(op, "right_prefilter", None):
                    out["table"] = [str(e) for e in op.right_prefilter]
    return out


@pytest.fixture
def hs(h: Harness) -> Harness:
    for s in SOURCES:
        h.sql(s)
    return h


@pytest.mark.parametrize(("sql", "want"), [
    # the stream side's own conjuncts, re-keyed (FK) or not (ID), INNER and LEFT
    ("CREATE STREAM O AS SELECT S.FK, S.ID AS SID, N, W FROM S JOIN T ON S.FK = T.ID WHERE S.N = 3 AND T.W > 1;",
     {"s": ["(S_N = 3)"], "table": ["(T_W > 1)"]}),
    ("CREATE STREAM O AS SELECT S.ID, N, W FROM S LEFT JOIN T ON S.ID = T.ID WHERE S.N > 3 AND S.NAME <> 'x';",
     {"s": ["(S_N > 3)", "(S_NAME <> 'x')"]}),
    ("CREATE STREAM O AS SELECT S.FK, S.ID AS SID, N FROM S JOIN T ON S.FK = T.ID "
     "WHERE (S.B >= 10 OR S.D < 2 OR S.OK) AND S.NAME IS NOT NULL AND NOT S.OK;",
     {"s": ["(((S_B >= 10) OR (S_D < 2)) OR S_OK)", "(S_NAME IS NOT NULL)", "(NOT S_OK)"]}),
    ("CREATE STREAM O AS SELECT S.FK, S.ID AS SID, N FROM S JOIN T ON S.FK = T.ID WHERE S.N = 2.5;", {}),  # a DECIMAL literal
    ("CREATE STREAM O AS SELECT S.FK, S.ID AS SID, N FROM S JOIN T ON S.FK = T.ID WHERE S.ROWTIME > 5;", {"s": ["(S_ROWTIME > 5)"]}),
    # nothing that could fail, convert a string or read another side: left to the WHERE after the join
    ("CREATE STREAM O AS SELECT S.FK, S.ID AS SID, N FROM S JOIN T ON S.FK = T.ID WHERE UCASE(S.NAME) = 'A';", {}),
    ("CREATE STREAM O AS SELECT S.FK, S.ID AS SID, N FROM S JOIN T ON S.FK = T.ID WHERE S.N / 0 = 1;", {}),
    ("CREATE STREAM O AS SELECT S.FK, S.ID AS SID, N FROM S JOIN T ON S.FK = T.ID WHERE S.N = 1 OR T.W = 1;", {}),
    ("CREATE STREAM O AS SELECT S.FK, S.ID AS SID, N FROM S JOIN T ON S.FK = T.ID WHERE S.NAME = CAST(S.N AS STRING);", {}),
    ("CREATE STREAM O AS SELECT S.FK, S.ID AS SID, N FROM S JOIN T ON S.FK = T.ID WHERE T.ROWTIME > 5;",
     {"table": ["(T_ROWTIME > 5)"]}),
    ("CREATE STREAM O AS SELECT S.FK, S.ID AS SID, N FROM S JOIN T ON S.FK = T.ID WHERE T.W = 1 AND T.CITY <> 'x';",
     {"table": ["(T_W = 1)", "(T_CITY <> 'x')"]}),
    ("CREATE STREAM O AS SELECT S.ID, N FROM S LEFT JOIN T ON S.ID = T.ID WHERE T.W = 1;", {}),  # LEFT: unmatched out
    ("CREATE STREAM O AS SELECT S.FK, S.ID AS SID, N FROM S JOIN T ON S.FK = T.ID WHERE LCASE(T.CITY) = 'x';", {}),
    # joins where a dropped record could change another's result: none
    ("CREATE STREAM O AS SELECT S.FK, S.ID AS SID, N FROM S JOIN S2 WITHIN 10 SECONDS ON S.FK = S2.FK WHERE S.N = 3;", {}),
    ("CREATE TABLE O AS SELECT T.ID, W FROM T JOIN T2 ON T.ID = T2.ID WHERE T.W = 3;", {}),
    ("CREATE STREAM O AS SELECT S.FK, S.ID AS SID, N FROM S JOIN T ON S.FK = T.ID JOIN T2 ON S.FK = T2.ID WHERE S.N = 3;", {}),
])
def test_which_conjuncts_go_first(hs: Harness, sql: str, want: dict[str, list[str]]) -> None:
    assert _prefilters(hs, sql) == want


def _run(h: Harness, sql: str, monkeypatch: pytest.MonkeyPatch | None) -> list[tuple[Any, Any, int]]:
    if monkeypatch is not None:  # the query without the early conjuncts: the WHERE after the join alone
        monkeypatch.setattr(lower_join, "stream_prefilter", lambda where, join: [])
    h.sql(sql)
    for key, value, ts in [(1, {"W": 10, "CITY": "a"}, 1), (2, {"W": None, "CITY": "b"}, 1), (3, {"W": 30}, 1)]:
        h.send("T", key, value, ts)
    rows = [(i, {"FK": i % 5, "N": i % 4 or None, "B": i * 10, "D": i / 3, "NAME": None if i % 6 == 0 else f"n{i}",
                 "OK": i % 2 == 0}, 10 + i) for i in range(40)]
    rows.append((99, None, 60))  # a tombstone: never joined
    rows.append((None, {"FK": 1, "N": 3}, 61))  # no key
    rows.append((98, {"FK": None, "N": 3}, 62))  # a NULL join key
    for key, value, ts in rows:
        h.send("S", key, value, ts)
    h.run()
    out = h.read("O")
    if monkeypatch is not None:
        monkeypatch.undo()
    return sorted(out, key=repr)


@pytest.mark.parametrize("sql", [
    "CREATE STREAM O AS SELECT S.FK, S.ID AS SID, S.N, T.W, T.CITY FROM S JOIN T ON S.FK = T.ID "
    "WHERE S.N >= 2 AND (S.NAME <> 'n7' OR S.OK) AND T.CITY IS NOT NULL;",
    "CREATE STREAM O AS SELECT S.FK, S.ID AS SID, S.N, T.W FROM S LEFT JOIN T ON S.FK = T.ID WHERE S.N = 3 OR S.NAME IS NULL;",
    "CREATE STREAM O AS SELECT S.ID, S.N, T.W FROM S LEFT JOIN T ON S.ID = T.ID WHERE NOT S.OK AND S.B < 300;",
    "CREATE TABLE O AS SELECT S.FK, COUNT(*) AS C FROM S JOIN T ON S.FK = T.ID WHERE S.D > 2 GROUP BY S.FK;",
    "CREATE STREAM O AS SELECT S.FK, S.ID AS SID, T.W FROM S JOIN T ON S.FK = T.ID WHERE T.W > 5 AND T.CITY IS NOT NULL;",
    "CREATE STREAM O AS SELECT S.ID, T.W FROM S JOIN T ON S.ID = T.ID WHERE T.W IS NULL AND S.N >= 1;",
])
def test_results_are_the_where_after_the_join_alone(tmp_path: Path, sql: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def fresh(name: str) -> Harness:
        h = Harness(str(tmp_path / name))
        for s in SOURCES:
            h.sql(s)
        return h

    with_first, without = fresh("first"), fresh("after")
    try:
        got = _run(with_first, sql, None)
        assert _prefilters(fresh_probe := fresh("probe"), sql.replace(" O ", " O2 ")) != {}
        fresh_probe.engine.close()
        want = _run(without, sql, monkeypatch)
        assert got == want
        assert got  # the case joins something
    finally:
        with_first.engine.close()
        without.engine.close()
