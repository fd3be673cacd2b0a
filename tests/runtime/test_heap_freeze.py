"""``HeapFreeze``: a server's long-lived objects are frozen out of the cyclic GC once it serves and after a
query is set up; garbage is collected (not frozen) first, and a stopped query's cycles are collected."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.runtime.heap_freeze import HeapFreeze

DDL = "CREATE STREAM src (id STRING KEY, v INT) WITH (kafka_topic='src', value_format='JSON', partitions=1);"


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


@pytest.fixture(autouse=True)
def _thawed() -> Iterator[None]:
    """The test process's heap is never left frozen (it would keep every later test's cycles)."""
    gc.unfreeze()
    yield
    gc.unfreeze()
    gc.collect()


def test_disabled_it_freezes_nothing() -> None:
    h = HeapFreeze()
    assert h.settle() == 0
    assert gc.get_freeze_count() == 0


def test_settle_collects_garbage_then_freezes_what_is_alive() -> None:
    h = HeapFreeze()
    h.enabled = True
    garbage = _Node()
    dead = weakref.ref(garbage)
    del garbage
    alive = _Node()
    frozen = h.settle()
    assert frozen > 0 and gc.get_freeze_count() > 0
    assert dead() is None  # collected before the freeze, not frozen with the rest
    assert gc.is_tracked(alive)
    # (the young generation's count right after is not checked: in a full test run other tests' threads
    # allocate meanwhile - the fresh-clone CI saw 105)


def test_a_frozen_cycle_is_collected_after_enough_releases() -> None:
    h = HeapFreeze()
    h.enabled = True
    h.thaw_after = 2
    node = _Node()
    ref = weakref.ref(node)
    h.settle()
    del node
    gc.collect()
    assert ref() is not None  # frozen: the collector does not see it
    h.settle()
    assert ref() is not None  # a settle without releases does not thaw
    assert h.released() is False
    h.settle()
    assert ref() is not None  # one stopped query: not yet
    assert h.released() is True
    h.settle()
    assert ref() is None  # thawed, collected, and the rest frozen again
    assert gc.get_freeze_count() > 0
    assert h.released() is False  # counted again from the thaw


def test_releases_are_not_counted_while_disabled() -> None:
    h = HeapFreeze()
    h.thaw_after = 1
    assert h.released() is False


def test_the_engine_settles_on_start_and_after_a_query_and_collects_stopped_ones(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        engine.heap.enabled = True
        engine.heap.thaw_after = 2
        engine.execute(DDL)
        assert gc.get_freeze_count() == 0  # nothing before the engine serves
        engine.start()
        at_start = gc.get_freeze_count()
        assert at_start > 0
        cycle = _Node()  # a cycle alive while the query is set up, garbage once it stops
        engine.execute("CREATE STREAM a AS SELECT * FROM src;")
        assert gc.get_freeze_count() > at_start  # the query's plan and code frozen with it
        ref = weakref.ref(cycle)
        del cycle
        gc.collect()
        assert ref() is not None  # frozen
        engine.execute("TERMINATE CSAS_A_0;")
        assert ref() is not None  # one stop: no full collection yet
        engine.execute("CREATE STREAM b AS SELECT * FROM src;")
        engine.execute("TERMINATE CSAS_B_1;")
        assert ref() is None  # the second stop thaws the heap: what was frozen with the queries is collected
    finally:
        engine.close()


def test_off_by_default_for_an_engine(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        engine.start()
        engine.execute(DDL)
        engine.execute("CREATE STREAM a AS SELECT * FROM src;")
        assert gc.get_freeze_count() == 0
    finally:
        engine.close()
