"""``poll_batch``: a task's batch runs with the cyclic GC paused, and the GC is back on afterwards."""

from __future__ import annotations

import gc

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
