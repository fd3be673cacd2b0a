"""Closing an EmbeddedLog while a write transaction begun by another thread was never ended.

py-lmdb 3 makes ``Environment.close`` wait for the thread that owns an open write transaction; when that
thread is gone and the transaction object lives on, the close never returned (a CI run hung in it)."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.log import embedded_env
from ksqlpy.log.base import ProducerRecord
from ksqlpy.log.embedded import EmbeddedLog


def _close_within(log: EmbeddedLog, seconds: float) -> bool:
    """Close ``log`` on a daemon thread; whether it returned in time (a hung close stays behind)."""
    t = threading.Thread(target=log.close, daemon=True)
    t.start()
    t.join(seconds)
    return not t.is_alive()


def _begin_in_another_thread(log: EmbeddedLog, keep: list[Any], abort_at_end: bool = False) -> threading.Thread:
    """Begin a write transaction on a thread that then waits (``thread.done.set()`` lets it end, aborting
    the transaction first if ``abort_at_end``) without ending the transaction: ``keep`` holds it. The thread stays alive so the closing thread's ident differs
    from the owner's (a new thread may reuse an ended one's, and py-lmdb compares idents)."""
    begun, done = threading.Event(), threading.Event()

    def work() -> None:
        w = log._write()
        w.txn.put(b"x", b"y", db=log._e.meta)
        keep.append(w)
        del w
        begun.set()
        done.wait(60)
        if abort_at_end:
            keep[0].abort()

    t = threading.Thread(target=work, name="leaky-writer", daemon=True)
    t.done = done  # type: ignore[attr-defined]
    t.start()
    assert begun.wait(20)
    return t


def test_a_write_transaction_left_in_a_reference_cycle_does_not_stop_the_close(tmp_path: Path) -> None:
    log = EmbeddedLog(str(tmp_path / "log"))
    log.create_topic("t", 1)
    cycle: list[Any] = []
    owner = _begin_in_another_thread(log, cycle)
    cycle.append(cycle)  # only the cycle holds the transaction now
    del cycle
    try:
        assert _close_within(log, 20)
    finally:
        owner.done.set()  # type: ignore[attr-defined]
    with EmbeddedLog(str(tmp_path / "log")) as again:  # the uncommitted put is gone; the topic is not
        assert again.topic_exists("t")
        with again._env.begin() as txn:
            assert txn.get(b"x", db=again._e.meta) is None


def test_a_write_transaction_held_for_ever_leaves_the_environment_open_and_says_where_it_began(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(embedded_env, "CLOSE_WAIT_S", 0.2)
    path = str(tmp_path / "log")
    log = EmbeddedLog(path)
    log.create_topic("t", 1)
    held: list[Any] = []
    owner = _begin_in_another_thread(log, held, abort_at_end=True)
    try:
        with caplog.at_level(logging.ERROR, logger=embedded_env.__name__):
            assert _close_within(log, 20)
    finally:
        owner.done.set()  # type: ignore[attr-defined]
    assert "left open" in caplog.text and "leaky-writer" in caplog.text and "work" in caplog.text
    # reopening the directory in this process reuses the environment left open (LMDB forbids a second one)
    again = EmbeddedLog(path)
    assert again._e is log._e
    owner.join(20)
    assert not again._e.writers
    with again.transaction() as tx:
        tx.produce_many([ProducerRecord("t", None, b"v", 1, None, 0)])
    assert _close_within(again, 20)
    assert not [e for e in embedded_env.Env._registry.values() if e.path == path]


def test_the_last_close_still_closes_after_ordinary_writes_from_other_threads(tmp_path: Path) -> None:
    log = EmbeddedLog(str(tmp_path / "log"))
    log.create_topic("t", 2)

    def produce(p: int) -> None:
        for i in range(20):
            with log.transaction() as tx:
                tx.produce_many([ProducerRecord("t", None, b"%d" % i, i, None, p)])

    threads = [threading.Thread(target=produce, args=(p,)) for p in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    env = log._e
    assert env.writers == {}
    assert _close_within(log, 20)
    assert env not in embedded_env.Env._registry.values()
