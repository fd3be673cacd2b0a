"""The copies of a worker-run table's stores in the engine process (``engine/pull_copies.py``): once a pull
query has read a table, the engine's runner keeps its copies caught up with what the workers commit, and
every pull query still sees everything the workers had committed before it began (read-your-writes) -
applying the rest itself when the background has not got there, and only up to that point."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine.materialized import materializing_query
from ksqlpy.engine.pull_copies import Copies
from ksqlpy.engine.pull_partitions import key_partition

SOURCES = """
CREATE STREAM s (id INT KEY, k VARCHAR, v INT) WITH (kafka_topic='s', partitions=4, value_format='JSON');
CREATE TABLE src (id INT PRIMARY KEY, v INT) WITH (kafka_topic='src', partitions=4, value_format='JSON');
CREATE TABLE agg AS SELECT id, COUNT(*) AS n, SUM(v) AS total FROM s GROUP BY id;
CREATE TABLE win AS SELECT id, COUNT(*) AS n FROM s WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY id;
CREATE TABLE copy AS SELECT * FROM src WHERE v >= 0;
"""

PULLS = [
    "SELECT * FROM agg WHERE id = 3;",
    "SELECT * FROM agg WHERE id = 999;",
    "SELECT * FROM agg WHERE id IN (1, 2, 5, 999);",
    "SELECT * FROM agg;",
    "SELECT * FROM win WHERE id = 6;",
    "SELECT * FROM win;",
    "SELECT * FROM copy WHERE id = 7;",
    "SELECT * FROM copy;",
]


def _insert(engine: Engine, first: int, last: int) -> None:
    for i in range(first, last):
        engine.execute(f"INSERT INTO s (ROWTIME, id, k, v) VALUES ({i * 7000}, {i % 10}, '{'abc'[i % 3]}', {i});")
        engine.execute(f"INSERT INTO src (ROWTIME, id, v) VALUES ({i * 7000}, {i % 13}, {i});")


def _answers(engine: Engine) -> list[Any]:
    return [sorted(map(repr, engine.execute(sql)[0].data["rows"])) for sql in PULLS]


def _copies(engine: Engine, table: str) -> Copies:
    q = materializing_query(engine, engine.catalog.source(table.upper()))
    assert q is not None and q.workers is not None and q.copies is not None
    return q.copies  # type: ignore[no-any-return]


def _wait(cond: Any, what: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"not reached: {what}")
        time.sleep(0.02)


@pytest.fixture
def engines(tmp_path: Path) -> Any:
    made = []
    for workers in (False, True):
        props = {"auto.offset.reset": "earliest", **({"ksqlpy.workers": "process"} if workers else {})}
        engine = Engine(str(tmp_path / ("workers" if workers else "inline")), props)
        engine.execute(SOURCES)
        made.append(engine)
    yield made
    for engine in made:
        engine.close()


@pytest.fixture
def workers(tmp_path: Path) -> Any:
    """An engine running one GROUP BY table in worker processes."""
    engine = Engine(str(tmp_path / "workers"), {"auto.offset.reset": "earliest", "ksqlpy.workers": "process"})
    engine.execute(SOURCES.split("CREATE TABLE win")[0])  # the streams and agg
    yield engine
    engine.close()


def _settle(engines: list[Engine], first: int, last: int) -> None:
    for engine in engines:
        _insert(engine, first, last)
        engine.drain(60)


def test_the_runner_keeps_read_copies_caught_up_and_answers_stay_the_inline_engines(engines: list[Engine]) -> None:
    inline, workers = engines
    _settle(engines, 0, 40)
    assert _answers(workers) == _answers(inline)  # the first pull queries: every table's copies exist now
    workers.start()  # the runner: idle for the worker-run queries, it follows their copies
    tables = ("agg", "win", "copy")
    before = {t: _copies(workers, t).applied_by_reads for t in tables}
    for batch in ((40, 70), (70, 100)):
        _settle(engines, *batch)
        # no pull query meanwhile: the background alone brings every copy to its changelog's end
        for t in tables:
            _wait(lambda t=t: not _copies(workers, t).behind(), f"{t}'s copies caught up")
        assert {t: _copies(workers, t).applied_by_reads for t in tables} == before
        assert all(_copies(workers, t).applied > 0 for t in tables)
        assert _answers(workers) == _answers(inline)
    # the lookups found their partitions caught up: nothing replayed inside them
    assert {t: _copies(workers, t).applied_by_reads for t in tables} == before


def test_a_pull_query_sees_what_the_workers_committed_before_it_when_the_background_lags(
        engines: list[Engine], monkeypatch: pytest.MonkeyPatch) -> None:
    inline, workers = engines
    _settle(engines, 0, 30)
    assert _answers(workers) == _answers(inline)
    monkeypatch.setattr(Copies, "step", lambda self: 0)  # the background does nothing
    workers.start()
    for batch in ((30, 60), (60, 61)):  # many changes, then one
        _settle(engines, *batch)  # the workers committed them: what a pull query from now on must see
        copies = _copies(workers, "agg")
        assert copies.behind()
        got = workers.execute("SELECT * FROM agg WHERE id = 3;")[0].data["rows"]
        assert got == inline.execute("SELECT * FROM agg WHERE id = 3;")[0].data["rows"]
        assert _answers(workers) == _answers(inline)
        assert not copies.behind()  # the pull queries applied the changelog themselves


def test_a_read_applies_the_changelog_up_to_its_bound_and_no_further(workers: Engine) -> None:
    _insert(workers, 0, 20)
    workers.drain(60)
    workers.execute("SELECT * FROM agg WHERE id = 3;")  # the copies exist (no runner: only reads move them)
    copies = _copies(workers, "agg")
    q = materializing_query(workers, workers.catalog.source("AGG"))
    p = key_partition(q.materialization, (3,), copies.partitions)
    assert p is not None
    bound = copies.ends(p)  # what a pull query beginning now must see
    _insert(workers, 20, 60)  # then more is committed
    workers.drain(60)
    assert copies.ends(p) != bound
    got = copies.read(p, bound, lambda view: view.lookup((3,)))
    assert [s.checkpoint() for s in copies.parts[p].stores] == bound  # not past the bound
    assert got and got[0][0][:2] == (3, 2)  # ids 3 and 13 of the first 20 inserts
    later = copies.read(p, copies.ends(p), lambda view: view.lookup((3,)))
    assert later[0][0][:2] == (3, 6)
    assert [s.checkpoint() for s in copies.parts[p].stores] == copies.ends(p)


def test_a_stopped_querys_copies_are_not_read(workers: Engine) -> None:
    _insert(workers, 0, 10)
    workers.drain(60)
    workers.start()
    assert workers.execute("SELECT * FROM agg WHERE id = 3;")[0].data["rows"]
    copies = _copies(workers, "agg")
    q = materializing_query(workers, workers.catalog.source("AGG"))
    workers.execute(f"TERMINATE {q.query_id};")
    assert copies.closed
    assert copies.read(0, copies.ends(0), lambda view: view.lookup((3,))) == []
    assert copies.step() == 0
