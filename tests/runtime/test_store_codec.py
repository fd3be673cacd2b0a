"""State store values (``state.codec``) go as marshal when it writes all of a batch exactly, else as pickle; the
store reads either - in LMDB and on the changelog - including the pickles every older version wrote, so a
store restored from an old changelog, or opened over old files, reads what it held. Every value a row or
accumulator can hold comes back equal and of the same type."""

from __future__ import annotations

import marshal
import pickle
import random
import shutil
from decimal import Decimal
from enum import IntEnum
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.log.base import ProducerRecord
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.state import codec
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


def _no_references(payload: bytes) -> bool:
    """A marshal payload written without its table of shared objects (no type code flagged as a reference
    target): the version-2 encoding of the value it holds is the payload itself."""
    return payload == marshal.dumps(marshal.loads(payload), 2)


def test_values_go_as_marshal_version_2_and_earlier_version_4_payloads_read_back() -> None:
    """marshal's version 2 writes no table of shared objects (versions 3 and 4 build one per value); every
    version reads back the same value, so version-4 payloads written by earlier versions of ksqlpy - in LMDB
    and on the changelog - read as they did."""
    shared = "shared string"
    row = (shared, 1_700_000_000_000, shared, [shared, 1_700_000_000_000], None)
    for v in [*VALUES, row]:
        assert encode(v) == marshal.dumps(v, 2)
        assert _same(decode(encode(v)), v)
        assert _same(decode(marshal.dumps(v, 4)), v) and _same(decode(marshal.dumps(v, 3)), v)
    assert encode_many([row, VALUES[0]]) == [marshal.dumps(row, 2), marshal.dumps(VALUES[0], 2)]
    assert all(_no_references(p) for p in encode_many(VALUES))


def test_a_value_that_refers_to_itself_is_pickled() -> None:
    """Only marshal's references could write a structure that contains itself; without them marshal refuses
    it (too deeply nested) and the value is pickled, as any value marshal cannot write."""
    loop: list = [1]
    loop.append(loop)
    payload = encode(loop)
    assert payload[:1] == b"\x80"
    back = decode(payload)
    assert back[0] == 1 and back[1] is back
    assert all(p[:1] == b"\x80" for p in encode_many([VALUES[0], loop]))


def _random_value(rnd: random.Random, depth: int = 0) -> Any:
    if depth < 3 and rnd.random() < 0.5:
        items = [_random_value(rnd, depth + 1) for _ in range(rnd.randrange(0, 6))]
        return tuple(items) if rnd.random() < 0.6 else items
    return rnd.choice((
        lambda: None, lambda: True, lambda: False,
        lambda: rnd.choice((0, 1, -1, 2**31 - 1, -(2**31), 2**31, -(2**31) - 1, 2**63 - 1, -(2**63), 2**15, 2**30,
                            -(2**30), 1_700_000_000_170, -1_700_000_000_170, 2**64, -(2**70))),
        lambda: rnd.randrange(-(2**64), 2**64),
        lambda: rnd.choice((0.0, -0.0, 1.5, float("nan"), float("inf"), -float("inf"), 1e300)),
        lambda: "".join(chr(rnd.randrange(32, 127)) for _ in range(rnd.randrange(0, 40))),
        lambda: rnd.choice(("caf\u00e9", "\U0001F600", "", "a\udc80")),
        lambda: bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 10))),
        lambda: rnd.choice(({"a": 1}, frozenset({1}), {2}, (), [])),
    ))()


@pytest.mark.skipif(codec._dumps_many is None, reason="the _ssjoin extension is not built")
@pytest.mark.parametrize("seed", range(3))
def test_the_c_writer_gives_marshals_bytes(seed: int) -> None:
    """``marshal_many`` by the C writer (``dumps_many``) is ``marshal.dumps(v, 2)`` byte for byte - over None,
    bools, ints from one digit to past 64 bits, floats (NaN, -0.0, infinities), ASCII and other strings (a lone
    surrogate too), bytes, dicts and sets, tuples and lists nested and deeper than the writer goes - and raises
    marshal's ValueError for what marshal cannot write (then the batch is pickled)."""
    rnd = random.Random(seed)
    values = [_random_value(rnd) for _ in range(3000)]
    deep: Any = (1,)
    for _ in range(12):
        deep = (deep, [deep])
    values.append(deep)
    assert codec.marshal_many(values) == [marshal.dumps(v, 2) for v in values]
    assert codec._dumps_many(values) == [marshal.dumps(v, 2) for v in values]
    with pytest.raises(ValueError):
        codec.marshal_many([1, Decimal("1")])
    assert all(p[:1] == b"\x80" for p in encode_many([1, Decimal("1")]))
