"""``join_placement``: a store key's partition is the one its repartition record is placed in, and the
relocation moves only what is misplaced, once."""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy import types as T
from ksqlpy.log.base import ProducerRecord
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.log.partitioner import partition_for_key
from ksqlpy.runtime.aggregator import META_STREAM_TIME, encode_key
from ksqlpy.runtime.group_by import SOURCE_PREFIX
from ksqlpy.runtime.join_keys import store_encoder
from ksqlpy.runtime.join_placement import aggregated, placement, relocate
from ksqlpy.runtime.join_rows import key_encoder
from ksqlpy.state import codec
from ksqlpy.state.windowed import t8

KEYS: list[tuple[list[T.SqlType], tuple]] = [
    ([T.INTEGER], (7,)), ([T.STRING], ("k-1",)), ([T.BIGINT, T.STRING], (3, "x")),
]


@pytest.mark.parametrize("fmt", ["AVRO", "JSON_SR", "PROTOBUF"])
@pytest.mark.parametrize(("types", "key"), KEYS)
def test_a_store_key_places_where_its_repartition_record_goes(fmt: str, types: list[T.SqlType], key: tuple) -> None:
    encode = key_encoder(fmt, types)
    for n in (2, 3, 4, 7):
        assert placement(fmt, n)(store_encoder(fmt, encode)(key)) == partition_for_key(encode(key), n)


def _entries(log: Any, topic: str, p: int) -> dict[bytes, bytes]:
    batch = log.fetch(topic, p, 0, 1000)
    out: dict[bytes, Any] = {}
    for k, v in zip(batch.keys, batch.values, strict=True):
        out[k] = v
    return {k: v for k, v in out.items() if v is not None}


def test_relocation_moves_misplaced_entries_once(tmp_path: Any) -> None:
    fmt, n, topic = "AVRO", 4, "store-changelog"
    encode = store_encoder(fmt, key_encoder(fmt, [T.INTEGER]))
    place = placement(fmt, n)
    log = EmbeddedLog(str(tmp_path))
    log.create_topic(topic, n, 1, {})
    keys = list(range(12))
    home = {k: place(encode((k,))) for k in keys}
    wrong = {k: (home[k] + 1) % n for k in keys}
    for k in keys:  # every table entry one partition off, and one key also at home with a newer value
        log.produce(ProducerRecord(topic, b"\x03" + encode((k,)), b"old%d" % k, None, None, wrong[k]))
    log.produce(ProducerRecord(topic, b"\x03" + encode((5,)), b"new5", None, None, home[5]))
    log.produce(ProducerRecord(topic, b"\x00seq", b"1", None, None, wrong[0]))  # bookkeeping stays
    assert relocate(log, "q", [topic], "KAFKA", n, None) == 0  # no registry framing: nothing ever moves
    assert relocate(log, "q", [topic], fmt, n, None) == 12
    for k in keys:
        assert b"\x03" + encode((k,)) not in _entries(log, topic, wrong[k])
        assert _entries(log, topic, home[k])[b"\x03" + encode((k,))] == (b"new5" if k == 5 else b"old%d" % k)
    assert _entries(log, topic, wrong[0])[b"\x00seq"] == b"1"
    log.produce(ProducerRecord(topic, b"\x03" + encode((3,)), b"again", None, None, wrong[3]))
    assert relocate(log, "q", [topic], fmt, n, None) == 0  # done once: the store is not read again
    assert relocate(log, "other", [topic], fmt, n, None) == 1  # (read again, only the new entry moves)
    log.close()


def test_an_aggregation_on_the_join_key_places_its_groups_by_their_key() -> None:
    """Group records (plain, window, session) by the key they hold, a table aggregation's source row by its
    group key; the task's bookkeeping and what it cannot read stay."""
    fmt, n = "AVRO", 4
    encode = key_encoder(fmt, [T.INTEGER])
    place = aggregated(encode, n)
    for k in range(8):
        home = partition_for_key(encode((k,)), n)
        rec = [1000, (k,), 3]  # time, key, accumulators (``runtime.accumulate``)
        assert place(b"K" + encode_key((k,)), codec.encode(rec)) == home
        assert place(b"W" + encode_key((k,)) + t8(0), codec.encode(rec)) == home
        assert place(b"S" + encode_key((k,)) + t8(10) + t8(0), codec.encode(rec)) == home
        assert place(SOURCE_PREFIX + encode_key((k,)), codec.encode(((k,), ("v",)))) == home
    assert place(META_STREAM_TIME, codec.encode(1000)) is None
    assert place(b"K(1,)", b"not a record") is None
