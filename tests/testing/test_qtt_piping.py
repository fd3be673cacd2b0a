"""The runner's model of ksqlDB's driver-by-driver piping (``ksqlpy.testing.piping``); the case-level pins
are tests/cases/harness-drivers.json."""

from __future__ import annotations

from pathlib import Path

from ksqlpy.log.base import ProducerRecord
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.testing.piping import GatedLog, java_hash_order, java_string_hash, settle_query


def _log(tmp_path: Path, n: int) -> GatedLog:
    log = EmbeddedLog(str(tmp_path / "log"))
    log.create_topic("t", 1)
    with log.transaction() as tx:
        tx.produce_many([ProducerRecord("t", b"k", str(i).encode(), i, None, 0) for i in range(n)])
    return GatedLog(log)


def test_java_string_hash_is_string_hash_code() -> None:
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("polygenelubricants") == 2**31  # Integer.MIN_VALUE, unsigned
    assert java_string_hash("\U0001f600") == (0xD83D * 31 + 0xDE00)  # UTF-16 code units


def test_hash_set_order_is_by_bucket() -> None:
    # 'L' = 76 -> bucket 12, 'R' = 82 -> bucket 2; 'T1' = 2653 -> 13, 'T2' -> 14, 'LEFT' -> 4, 'RIGHT' -> 9
    assert java_hash_order(["L", "R"]) == ["R", "L"]
    assert java_hash_order(["T1", "T2", "LEFT", "RIGHT"]) == ["LEFT", "RIGHT", "T1", "T2"]


def test_hash_set_order_grows_the_table_past_three_quarters() -> None:
    # 13 names: 32 buckets, where 'p' (112) is bucket 16 - after 'b'..'m' (2..13); among 16 it came first
    names = ["p"] + [chr(c) for c in range(ord("b"), ord("m") + 1)]
    assert java_hash_order(names) == [chr(c) for c in range(ord("b"), ord("m") + 1)] + ["p"]
    assert java_hash_order(names[:12])[0] == "p"


def test_a_limited_topic_reads_up_to_its_limit(tmp_path: Path) -> None:
    gate = _log(tmp_path, 5)
    try:
        gate.limit("t", {0: 3})
        assert gate.end_offset("t", 0) == 3
        assert gate.fetch("t", 0, 0).offsets == [0, 1, 2]
        assert gate.fetch("t", 0, 2).offsets == [2]
        assert gate.fetch("t", 0, 3).offsets == []
        assert gate.fetch_raw("t", 0, 1).count == 2
        gate.limit("t")  # no partition listed: nothing visible
        assert gate.end_offset("t", 0) == 0 and gate.fetch("t", 0, 0).offsets == []
        gate.lift("t")
        assert gate.end_offset("t", 0) == 5 and len(gate.fetch("t", 0, 0).offsets) == 5
        gate.limit("t", {0: 1})
        gate.lift_all()
        assert gate.fetch_raw("t", 0, 0).count == 5
        assert gate.ends("t") == {0: 5} and gate.ends("missing") == {}
    finally:
        gate.close()  # the wrapped log's close: the engine closes its log through the gate


def test_closing_the_gate_closes_the_log(tmp_path: Path) -> None:
    gate = _log(tmp_path, 1)
    assert not gate.wrapped._closed
    gate.close()  # Engine.close calls log.close(): a gate method of that name leaked every case's stores
    assert gate.wrapped._closed


def test_a_held_topic_shows_nothing_whatever_is_written_until_driven(tmp_path: Path) -> None:
    log = EmbeddedLog(str(tmp_path / "log"))
    gate = GatedLog(log)
    try:
        gate.hold("t")  # before the topic exists: a CREATE STREAM makes it later
        log.create_topic("t", 2)
        _append(gate, 1, 2)  # an INSERT VALUES while the statements run
        assert gate.end_offset("t", 0) == 0 and gate.end_offset("t", 1) == 0
        assert gate.fetch("t", 0, 0).offsets == [] and gate.start_offset("t", 0) == 0
        gate.drive("t")  # the driver starts: the rows written before are not piped
        assert gate.end_offset("t", 0) == 0
        _append(gate, 3)
        assert gate.fetch("t", 0, 0).values == [b"3"]
        gate.pipe("t", 0, [0])
        assert gate.fetch("t", 0, 0).values == [b"3", b"1"]
    finally:
        gate.close()


def _append(gate: GatedLog, *values: int) -> None:
    with gate.wrapped.transaction() as tx:
        tx.produce_many([ProducerRecord("t", b"k", str(v).encode(), v, None, 0) for v in values])


def test_a_driven_topic_shows_what_was_piped_in_the_order_piped(tmp_path: Path) -> None:
    gate = _log(tmp_path, 3)  # real offsets 0, 1, 2 hold "0", "1", "2"
    try:
        gate.drive("t")
        assert gate.end_offset("t", 0) == 0 and gate.fetch("t", 0, 0).offsets == []
        assert gate.start_offset("t", 0) == 0
        gate.pipe("t", 0, [2, 0])
        batch = gate.fetch("t", 0, 0)
        assert batch.offsets == [0, 1] and batch.values == [b"2", b"0"]  # numbered by their place
        assert batch.timestamps == [2, 0]
        assert gate.fetch("t", 0, 1).values == [b"0"]
        assert gate.fetch("t", 0, 0, max_records=1).values == [b"2"]
        assert gate.fetch("t", 0, 2).offsets == []
        raw = gate.fetch_raw("t", 0, 1)
        assert raw.offset == 1 and raw.decoded().values == [b"0"]
        gate.pipe("t", 0, [2])  # a record piped twice is read twice (ksqlDB re-reads a topic it wrote)
        assert gate.fetch("t", 0, 2).values == [b"2"] and gate.end_offset("t", 0) == 3
        gate.lift_all()
        assert gate.fetch("t", 0, 0).values == [b"0", b"1", b"2"]
    finally:
        gate.close()


def test_what_is_written_to_a_driven_topic_is_piped_as_it_is_written(tmp_path: Path) -> None:
    gate = _log(tmp_path, 2)
    try:
        gate.drive("t")  # the records already there wait for ``pipe``
        gate.pipe("t", 0, [1])
        _append(gate, 10, 11)  # the fed query's own writes: real offsets 2, 3
        assert gate.end_offset("t", 0) == 3
        assert gate.fetch("t", 0, 0).values == [b"1", b"10", b"11"]
        gate.pipe("t", 0, [0])  # after the writes seen so far
        _append(gate, 12)
        assert gate.fetch("t", 0, 0).values == [b"1", b"10", b"11", b"0", b"12"]
        assert gate.fetch("t", 0, 3).offsets == [3, 4]
    finally:
        gate.close()


class _Query:
    """Processes one record per poll; what it writes is held until a poll finds nothing to process (as a
    task's held writes reach the log then), and is readable from the next poll on."""

    def __init__(self, work: list[int]) -> None:
        self.work = work
        self.held: list[int] = []
        self.polls = 0

    def poll(self) -> int:
        self.polls += 1
        if not self.work:
            self.work, self.held = self.held, []
            return 0
        n = self.work.pop(0)
        if n > 1:
            self.held.append(n - 1)  # a record it writes to a topic it reads
        return 1


def test_settling_a_query_polls_until_two_polls_find_nothing() -> None:
    q = _Query([3])
    settle_query(q, timeout_s=5)
    assert q.work == [] and q.held == []
    assert q.polls == 7  # 3, (write 2), 2, (write 1), 1, two idle polls
    idle = _Query([])
    settle_query(idle, timeout_s=5)
    assert idle.polls == 2
