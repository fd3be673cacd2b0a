"""The consistency token's vector (engine/consistency.py): its wire form, merging, and IQv2's bound rule."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from ksqlpy.engine.consistency import ConsistencyError, OffsetVector, check_bound, permits, requested
from ksqlpy.engine.engine import Engine
from ksqlpy.engine.pull import PullExecutionError
from ksqlpy.engine.pull_partitions import Probe, reading


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


def test_a_bound_the_store_has_not_reached_fails_the_run_and_a_cluster_host_checks_its_own_partitions(
        tmp_path: Path) -> None:
    """The bound is checked where the store is read: a run behind it fails as the plan runs (PullExecutionError,
    with the columns for the header); a cluster's host checks only the partitions routed to it, and the probe
    that finds the partitions reads no store, so checks none."""
    e = Engine(str(tmp_path / "e"), {})
    try:
        e.execute("CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=2);"
                  "CREATE TABLE T AS SELECT ID, COUNT(*) AS C FROM S GROUP BY ID;"
                  "INSERT INTO S (ID, V) VALUES (1, 1); INSERT INTO S (ID, V) VALUES (2, 1);")
        e.drain()
        props = {"ksql.query.pull.consistency.token.enabled": "true"}
        behind_on_1 = OffsetVector({"s": {1: 9}}).serialize()  # key 2 lives on partition 1, key 1 on 0
        token = requested.set(behind_on_1)
        try:
            with pytest.raises(PullExecutionError) as err:
                e.execute("SELECT * FROM T;", props)
            assert err.value.message.startswith("Failed to get value from materialized table: NOT_UP_TO_BOUND: "
                                                "For store partition 1,")
            assert [c[0] for c in err.value.data["columns"]] == ["ID", "C"]
            assert e.execute("SELECT * FROM T WHERE ID = 1;", props)[-1].data["rows"] == [(1, 1)]
            with reading(frozenset({0})):  # this host reads partition 0 alone: its bound is reached
                got = e.execute("SELECT * FROM T;", props)[-1].data
            assert got["rows"] == [(1, 1)]
            assert OffsetVector.deserialize(got["consistencyToken"]).offsets == {"s": {0: 0, 1: 9}}
            with reading(frozenset({1})), pytest.raises(PullExecutionError):
                e.execute("SELECT * FROM T;", props)
            with reading(None, Probe()):  # the probe: no store read, no check; the request's vector as it came
                got = e.execute("SELECT * FROM T;", props)[-1].data
            assert got["rows"] == [] and got["consistencyToken"] == behind_on_1
        finally:
            requested.reset(token)
    finally:
        e.close()
