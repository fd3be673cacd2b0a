"""The consistency token's vector (engine/consistency.py): its wire form, merging, and IQv2's bound rule."""

from __future__ import annotations

import base64
import json

import pytest

from ksqlpy.engine.consistency import ConsistencyError, OffsetVector, check_bound, permits


def _decoded(token: str) -> str:
    return base64.b64decode(token).decode()


def test_the_token_is_base64_of_jackson_compact_json_version_first() -> None:
    v = OffsetVector()
    v.update("t", 0, 5)
    assert _decoded(v.serialize()) == '{"version":0,"offsetVector":{"t":{"0":5}}}'
    assert OffsetVector().serialize() == base64.b64encode(b'{"version":0,"offsetVector":{}}').decode()


def test_maps_are_written_in_a_concurrent_hash_maps_order() -> None:
    v = OffsetVector()
    for p in (17, 3, 0):  # Integer keys: bin p & 15 in a 16-bin table
        v.update("t", p, p)
    v.update("b", 0, 1)
    v.update("a", 0, 1)  # 'a' hashes to 97 (bin 1), 'b' to 98 (bin 2), 't' to 116 (bin 4)
    assert json.loads(_decoded(v.serialize()))["offsetVector"] == {"a": {"0": 1}, "b": {"0": 1},
                                                                     "t": {"0": 0, "17": 17, "3": 3}}
    assert list(json.loads(_decoded(v.serialize()))["offsetVector"]["t"]) == ["0", "17", "3"]


def test_round_trip_and_merge_keeps_the_larger_offset() -> None:
    a = OffsetVector({"t": {0: 5, 1: 2}})
    b = OffsetVector.deserialize(OffsetVector({"t": {0: 3, 1: 9}, "u": {0: 1}}).serialize())
    a.merge(b)
    assert a.offsets == {"t": {0: 5, 1: 9}, "u": {0: 1}}


@pytest.mark.parametrize("token", ["xx!", base64.b64encode(b"not json").decode(),
                                   base64.b64encode(b'{"offsetVector":{"t":{"zero":1}}}').decode()])
def test_a_token_that_cannot_be_read_is_refused(token: str) -> None:
    with pytest.raises(ConsistencyError, match="Couldn't decode consistency token"):
        OffsetVector.deserialize(token)


def test_the_bound_rule_of_one_store_partition() -> None:
    pos = OffsetVector({"t": {0: 5}})
    assert permits(pos, OffsetVector({"t": {0: 5}}), 0)
    assert not permits(pos, OffsetVector({"t": {0: 6}}), 0)
    assert permits(pos, OffsetVector({"t": {1: 99}}), 0)  # no bound for this partition
    assert not permits(pos, OffsetVector({"u": {0: 0}}), 0)  # a bound topic the store never saw
    assert permits(OffsetVector(), OffsetVector(), 0)


def test_the_refusal_names_partition_position_and_bound() -> None:
    with pytest.raises(ConsistencyError) as e:
        check_bound({0: OffsetVector({"t": {0: 1}})}, OffsetVector({"t": {0: 4}}))
    assert e.value.message == (
        "Failed to get value from materialized table: NOT_UP_TO_BOUND: For store partition 0, the current "
        "position Position{position={t={0=1}}} is not yet up to the bound "
        "PositionBound{position=Position{position={t={0=4}}}}")
