"""An INNER stream-stream join checks the WHERE's conjuncts over the two sides' own columns on each pair it
matches, before building the joined row (``plan.join_prefilter.pair_prefilter``): which conjuncts qualify
(integer arithmetic included - it wraps and cannot fail; a division only by a positive literal), on which
joins, and that the results are the ones the WHERE after the join alone gives (q8's shape among them). A join
whose results go straight into its task's result rows leaves the WHERE to the stage after it (no prefilter run)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import ksqlpy.plan.lower_join as lower_join
from tests.joins.conftest import Harness

SOURCES = [
    "CREATE STREAM L (ID INT KEY, K INT, N INT, B BIGINT, NAME STRING) WITH (kafka_topic='l', value_format='JSON', "
    "partitions=2);",
    "CREATE STREAM R (ID INT KEY, K INT, M INT, D DOUBLE) WITH (kafka_topic='r', value_format='JSON', partitions=2);",
    "CREATE STREAM X (ID INT KEY, K INT) WITH (kafka_topic='x', value_format='JSON', partitions=2);",
]


def _pairs(h: Harness, sql: str) -> list[str]:
    h.sql(sql)
    q = list(h.engine.queries.values())[-1]
    return [str(e) for sub in q.topology.sub_topologies for st in sub.operators
            for op in getattr(st, "wiring", []) for e in getattr(op, "pair_prefilter", [])]


def _fresh(tmp: Path, name: str) -> Harness:
    h = Harness(str(tmp / name))
    for s in SOURCES:
        h.sql(s)
    return h


@pytest.mark.parametrize(("where", "want"), [
    # q8's: both sides' times in one 10 s window
    ("WHERE L.ROWTIME / 10000 = R.ROWTIME / 10000", ["((L_ROWTIME / 10000) = (R_ROWTIME / 10000))"]),
    ("WHERE L.N + R.M > 3 AND L.NAME IS NOT NULL AND R.M % 4 = 1",
     ["((L_N + R_M) > 3)", "(L_NAME IS NOT NULL)", "((R_M % 4) = 1)"]),
    ("WHERE L.B * 2 - R.M < 100 OR L.N = R.M", ["((((L_B * 2) - R_M) < 100) OR (L_N = R_M))"]),
    # what could fail or convert: left to the WHERE after the join
    ("WHERE L.N / R.M = 1", []),  # a divisor that may be 0
    ("WHERE L.N / 0 = 1", []),
    ("WHERE R.D / 2 > 1", []),  # DOUBLE arithmetic
    ("WHERE UCASE(L.NAME) = 'A' AND L.N = R.M", ["(L_N = R_M)"]),
])
def test_which_conjuncts_are_checked_on_a_pair(tmp_path: Path, where: str, want: list[str]) -> None:
    h = _fresh(tmp_path, "h")
    try:
        assert _pairs(h, f"CREATE STREAM O AS SELECT L.K, L.N, R.M FROM L JOIN R WITHIN 10 SECONDS ON L.K = R.K "
                         f"{where};") == want
    finally:
        h.engine.close()


@pytest.mark.parametrize("sql", [
    "CREATE STREAM O AS SELECT L.K, L.N, R.M FROM L LEFT JOIN R WITHIN 10 SECONDS ON L.K = R.K WHERE L.N = R.M;",
    "CREATE STREAM O AS SELECT ROWKEY AS K, L.N, R.M FROM L FULL JOIN R WITHIN 10 SECONDS ON L.K = R.K WHERE L.N = R.M;",
    "CREATE STREAM O AS SELECT L.K, L.N, R.M FROM L JOIN R WITHIN 10 SECONDS ON L.K = R.K "
    "JOIN X WITHIN 10 SECONDS ON L.K = X.K WHERE L.N = R.M;",
])
def test_outer_and_n_way_joins_are_left_alone(tmp_path: Path, sql: str) -> None:
    h = _fresh(tmp_path, "h")
    try:
        assert _pairs(h, sql) == []
    finally:
        h.engine.close()


def _run(h: Harness, sql: str, monkeypatch: pytest.MonkeyPatch | None) -> list[tuple[Any, Any, int]]:
    if monkeypatch is not None:  # the WHERE after the join alone
        monkeypatch.setattr(lower_join, "pair_prefilter", lambda where, join: [])
    h.sql(sql)
    rnd = random.Random(3)
    for i in range(150):
        ts = 1000 + i * 900
        if rnd.random() < 0.4:
            h.send("L", i, {"K": rnd.randrange(6), "N": rnd.choice([None, *range(8)]), "B": rnd.randrange(-50, 50),
                            "NAME": rnd.choice([None, "a", "b"])}, ts)
        else:
            h.send("R", i, {"K": rnd.randrange(6), "M": rnd.choice([None, *range(8)]), "D": rnd.random()}, ts)
    h.run()
    out = h.read("O")
    if monkeypatch is not None:
        monkeypatch.undo()
    return sorted(out, key=repr)


@pytest.mark.parametrize("sql", [
    "CREATE STREAM O AS SELECT L.K, L.ID AS LID, R.ID AS RID FROM L JOIN R WITHIN 10 SECONDS ON L.K = R.K "
    "WHERE L.ROWTIME / 10000 = R.ROWTIME / 10000;",
    "CREATE STREAM O AS SELECT L.K, L.ID AS LID, R.ID AS RID, L.N, R.M FROM L JOIN R WITHIN 5 SECONDS "
    "GRACE PERIOD 0 SECONDS ON L.K = R.K WHERE L.N + R.M > 6 AND L.NAME IS NOT NULL OR L.B * 3 < R.M;",
    # q8's shape: a re-keyed side, the cross-side window check, a GROUP BY after the join
    "CREATE TABLE O WITH (key_format='JSON') AS SELECT L.K AS K, (L.ROWTIME / 10000) * 10000 AS W, COUNT(*) AS C "
    "FROM L JOIN R WITHIN 10 SECONDS ON L.N = R.M WHERE L.ROWTIME / 10000 = R.ROWTIME / 10000 "
    "GROUP BY L.K, (L.ROWTIME / 10000) * 10000;",
])
def test_results_are_the_where_after_the_join_alone(tmp_path: Path, sql: str, monkeypatch: pytest.MonkeyPatch) -> None:
    first, after = _fresh(tmp_path, "first"), _fresh(tmp_path, "after")
    try:
        got = _run(first, sql, None)
        assert _pairs(probe := _fresh(tmp_path, "probe"), sql.replace(" O ", " O2 ")) != []
        probe.engine.close()
        want = _run(after, sql, monkeypatch)
        assert got == want
        assert got  # the case joins something
    finally:
        first.engine.close()
        after.engine.close()


def test_a_join_building_the_result_rows_leaves_the_where_to_the_stage_after_it(tmp_path: Path) -> None:
    """The plan keeps the pair prefilter; a join whose results are built straight into its task's result rows
    (``join_task.ResultRows``) does not run it - a pair the WHERE drops costs one tuple there, and the WHERE
    after the join evaluates every conjunct anyway (q8: 60,000 prefilter calls to drop 3,339 rows)."""
    from ksqlpy.runtime.join_stream_stream import StreamStreamJoin

    h = _fresh(tmp_path, "h")
    try:
        assert _pairs(h, "CREATE STREAM O AS SELECT L.K, L.N, R.M FROM L JOIN R WITHIN 10 SECONDS ON L.K = R.K "
                         "WHERE L.ROWTIME / 10000 = R.ROWTIME / 10000;") != []
        q = list(h.engine.queries.values())[-1]
        joins = [(t.ctx, op) for t in q.tasks if hasattr(t, "ctx") for op in t.ctx.operators
                 if isinstance(op, StreamStreamJoin)]
        assert joins and all(ctx.result_rows is not None and op.keep_pair is None for ctx, op in joins)
    finally:
        h.engine.close()
