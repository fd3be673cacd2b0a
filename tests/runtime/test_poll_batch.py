"""``poll_batch``: a task's batch runs with the cyclic GC paused, and the GC is back on afterwards."""

from __future__ import annotations

import gc
import threading

import pytest

from ksqlpy.runtime.task import poll_batch


class _Task:
    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.enabled_during: bool | None = None

    def poll(self) -> int:
        self.enabled_during = gc.isenabled()
        if self.fail:
            raise RuntimeError("batch failed")
        return 7


def test_the_batch_runs_without_the_collector_and_it_is_back_after() -> None:
    assert gc.isenabled()
    t = _Task()
    assert poll_batch(t) == 7
    assert t.enabled_during is False and gc.isenabled()


def test_a_failing_batch_turns_the_collector_back_on() -> None:
    t = _Task(fail=True)
    with pytest.raises(RuntimeError):
        poll_batch(t)
    assert t.enabled_during is False and gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off() -> None:
    gc.disable()
    try:
        t = _Task()
        assert poll_batch(t) == 7
        assert not gc.isenabled()
    finally:
        gc.enable()


class _Survivors:
    """A batch whose objects outlive it (state a query keeps), past the first generation's threshold."""

    def __init__(self) -> None:
        self.kept: list[list[int]] = []

    def poll(self) -> int:
        self.kept.extend([i] for i in range(2_000))
        return 1


def test_the_collection_a_batch_made_due_runs_before_poll_batch_returns() -> None:
    # regression: it ran in the next thread to allocate - in the server, a request on the event loop
    threads: list[str] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            threads.append(threading.current_thread().name)

    saved = gc.get_threshold()
    gc.collect()
    gc.set_threshold(500, saved[1], saved[2])
    gc.callbacks.append(seen)
    try:
        t = _Survivors()
        assert poll_batch(t) == 1
        collected_in_batch = len(threads)  # read before anything else allocates
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*saved)
    assert collected_in_batch == 1 and threads == [threading.current_thread().name]


def test_nothing_is_collected_when_nothing_is_due() -> None:
    gc.collect()
    before = gc.get_stats()[0]["collections"]
    assert poll_batch(_Task()) == 7
    assert gc.get_stats()[0]["collections"] == before
