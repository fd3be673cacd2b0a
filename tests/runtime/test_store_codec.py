"""State store values (``state.codec``) go as marshal when it writes all of a batch exactly, else as pickle; the
store reads either - in LMDB and on the changelog - including the pickles every older version wrote, so a
store restored from an old changelog, or opened over old files, reads what it held. Every value a row or
accumulator can hold comes back equal and of the same type."""

from __future__ import annotations

import pickle
import shutil
from decimal import Decimal
from enum import IntEnum
from pathlib import Path

from ksqlpy.log.base import ProducerRecord
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.state.codec import decode, encode, encode_many
from ksqlpy.state.store import KeyValueStore
from tests.runtime.test_repartition_values import _same

TOPIC = "changelog"
VALUES = [
    (1, 2.5, "x", b"\x00\xff", True, False, None),
    ([1, None, 3], {"a": [1.0], "b": {"c": None}}, -0.0, float("nan"), float("inf"), 2**70, -(2**63)),
    ("caf\u00e9\U0001F600", (), [], {}, frozenset({1, 2}), {3}),
    [7, (8, "nine")],
    12,
]


class Level(IntEnum):
    LOW = 1


class Acc:
    """An accumulator object (a UDAF's state)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Acc) and other.n == self.n

    __hash__ = None  # type: ignore[assignment]


def test_plain_values_go_as_marshal_and_come_back_exactly() -> None:
    payloads = encode_many(VALUES)
    assert all(p[:1] != b"\x80" for p in payloads)
    assert all(_same(decode(p), v) for p, v in zip(payloads, VALUES, strict=True))
    assert all(_same(decode(encode(v)), v) for v in VALUES)


def test_a_value_marshal_cannot_write_pickles_the_batch() -> None:
    for odd in (Decimal("1.10"), Level.LOW, Acc(3), (1, [Decimal("2")])):
        values = [*VALUES, odd]
        payloads = encode_many(values)
        assert all(p[:1] == b"\x80" for p in payloads)
        back = [decode(p) for p in payloads]
        assert all(_same(a, b) for a, b in zip(back[:-1], VALUES, strict=True))
        assert back[-1] == odd and type(back[-1]) is type(odd)
        assert encode(odd)[:1] == b"\x80" and decode(encode(odd)) == odd


def test_older_pickled_payloads_read_back() -> None:
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        for v in VALUES:
            assert _same(decode(pickle.dumps(v, protocol)), v)


def _log(tmp: Path) -> EmbeddedLog:
    log = EmbeddedLog(str(tmp / "log"))
    log.create_topic(TOPIC, 1)
    return log


def _commit(store: KeyValueStore, log: EmbeddedLog) -> None:
    with log.transaction() as tx:
        store.flush(tx)
    store.commit_local()


def test_store_writes_marshal_and_reads_it_after_reopen_and_restore(tmp_path: Path) -> None:
    log = _log(tmp_path)
    s = KeyValueStore(str(tmp_path / "s"), log, TOPIC, 0)
    s.restore()
    s.put_many([b"a", b"b"], [VALUES[0], VALUES[1]])
    s.put(b"c", Acc(5))  # one value marshal refuses: its batch pickled
    _commit(s, log)
    s.put(b"d", VALUES[2])
    s.delete(b"b")
    _commit(s, log)
    s.close()
    changelog = log.fetch(TOPIC, 0, 0, 100)
    kinds = {k: None if v is None else v[:1] == b"\x80" for k, v in zip(changelog.keys, changelog.values, strict=True)}
    assert kinds == {b"a": True, b"b": None, b"c": True, b"d": False}
    for rebuild in (False, True):  # over its own files, then from the changelog alone
        if rebuild:
            shutil.rmtree(tmp_path / "s")
        s2 = KeyValueStore(str(tmp_path / "s"), log, TOPIC, 0)
        s2.restore()
        assert _same(s2.get(b"a"), VALUES[0]) and s2.get(b"b") is None and s2.get(b"c") == Acc(5)
        assert _same(s2.get(b"d"), VALUES[2])
        assert [k for k, _ in s2.range(b"a")] == [b"a", b"c", b"d"]
        s2.close()
    log.close()


def test_store_restores_a_changelog_of_pickles_as_older_versions_wrote(tmp_path: Path) -> None:
    log = _log(tmp_path)
    with log.transaction() as tx:
        for i, v in enumerate(VALUES):
            tx.produce(ProducerRecord(TOPIC, b"k%d" % i, pickle.dumps(v, pickle.HIGHEST_PROTOCOL), None, None, 0))
    s = KeyValueStore(str(tmp_path / "s"), log, TOPIC, 0)
    s.restore()
    assert s.restored == len(VALUES)
    assert all(_same(s.get(b"k%d" % i), v) for i, v in enumerate(VALUES))
    s.put(b"k0", "new")  # updated on top, now marshalled
    _commit(s, log)
    s.close()
    s2 = KeyValueStore(str(tmp_path / "s"), log, TOPIC, 0)
    s2.restore()
    assert s2.get(b"k0") == "new" and _same(s2.get(b"k1"), VALUES[1])
    assert _same([v for _, v in s2.range(b"k1", b"k2")], [VALUES[1]])
    s2.close()
    log.close()
