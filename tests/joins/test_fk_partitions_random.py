"""Foreign-key table-table joins over several partitions lose no row, whatever the path.

Random runs of left and right upserts and deletes - foreign keys that change, become NULL and come back, right
rows deleted and re-created - over partition counts that differ between the tables, with the foreign key taken
from a value column, from one column of a multi-column left key, or computed by an expression, and the
criteria written either way round. Each record is processed before the next is written, or records are processed in
batches of random sizes. The join's final table (the last record per key of the sink topic) must be the one
Kafka Streams' foreign-key join gives processing the records one at a time (``_reference``).
"""

from __future__ import annotations

import json
import random
import sys
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "cases" / "joins"))
from fk_model import fk_join  # noqa: E402 - the model the case generators use, next to them

if TYPE_CHECKING:  # the fixture's type only
    from conftest import Harness

FK_FROM = {
    # name: (left table DDL, criteria, foreign key of a left (key, value) pair, left key of a record)
    "value column": (
        "CREATE TABLE L (ID INT PRIMARY KEY, FK INT, V STRING) WITH (kafka_topic='l', value_format='JSON', "
        "key_format='{kf}', PARTITIONS={lp});",
        "L.FK = R.ID", lambda k, v: v["FK"]),
    "value column, criteria flipped": (
        "CREATE TABLE L (ID INT PRIMARY KEY, FK INT, V STRING) WITH (kafka_topic='l', value_format='JSON', "
        "key_format='{kf}', PARTITIONS={lp});",
        "R.ID = L.FK", lambda k, v: v["FK"]),
    "expression": (
        "CREATE TABLE L (ID INT PRIMARY KEY, FK INT, V STRING) WITH (kafka_topic='l', value_format='JSON', "
        "key_format='{kf}', PARTITIONS={lp});",
        "L.FK + 1 = R.ID", lambda k, v: None if v["FK"] is None else v["FK"] + 1),
    "struct value column": (
        "CREATE TABLE L (ID INT PRIMARY KEY, FK STRUCT<A INT>, V STRING) WITH (kafka_topic='l', "
        "value_format='JSON', key_format='{kf}', PARTITIONS={lp});",
        "L.FK = R.ID", lambda k, v: None if v["FK"] is None else v["FK"]["A"]),
    "left key column": (
        "CREATE TABLE L (ID INT PRIMARY KEY, FK INT PRIMARY KEY, V STRING) WITH (kafka_topic='l', "
        "value_format='JSON', key_format='JSON', PARTITIONS={lp});",
        "L.FK = R.ID", lambda k, v: k[1]),
}


def _reference(ops: list[tuple[str, Any, dict | None, int]], fk_of: Any, *, inner: bool) -> dict[Any, tuple]:
    """The join's final table (left key -> (V, W)) as Kafka Streams' foreign-key join processing the records
    one at a time gives it (``fk_model``, shared with the case generators). Since KAFKA-16407 an INNER join
    skips no change that could leave a result behind (a change to a NULL foreign key deletes it), so the final
    table does not depend on how the records were batched."""
    records, _ = fk_join(ops, fk_of, inner=inner)
    out: dict[Any, tuple] = {}
    for key, result, _ in records:
        if result is None:
            out.pop(key, None)
        else:
            row, r = result
            out[key] = (row["V"], r["W"] if r is not None else None)
    return out


STRUCT_KEYED = {"struct value column"}  # the right table keyed by a STRUCT<A INT>, foreign keys {"A": n}
# a producer's own AVRO key schema for the right topic of the STRUCT-keyed shapes: another record name than
# the one ksqlpy would register, so the topic's key bytes carry another schema id than the join's own
PRODUCER_KEY = {"type": "record", "name": "CustomerKey", "namespace": "com.example",
                "fields": [{"name": "A", "type": ["null", "int"], "default": None}]}


def _right_ddl(kf: str, rp: int, struct: bool = False) -> str:
    return (f"CREATE TABLE R (ID {'STRUCT<A INT>' if struct else 'INT'} PRIMARY KEY, W STRING) WITH "
            f"(kafka_topic='r', value_format='JSON', key_format='{kf}', PARTITIONS={rp});")


def _producer_send(h: Harness, schema_id: int, rid: int, value: dict | None, ts: int) -> None:
    """A right record as its producer writes it: the key framed with the producer's schema id."""
    import io
    import json
    import struct

    import fastavro

    from ksqlpy.log.base import ProducerRecord

    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, fastavro.parse_schema(PRODUCER_KEY), {"A": rid})
    kb = b"\x00" + struct.pack(">I", schema_id) + buf.getvalue()
    vb = None if value is None else json.dumps(value).encode()
    h.engine.log.produce(ProducerRecord("r", kb, vb, ts))


def _params() -> list[Any]:
    out = []
    shapes = [("KAFKA", 4, 4), ("KAFKA", 4, 1), ("JSON", 1, 4), ("KAFKA", 3, 2)]
    # schema-registry key formats: a STRUCT right key is re-keyed first, a primitive one is taken as written
    sr_shapes = [("AVRO", 4, 4), ("PROTOBUF", 1, 4), ("JSON_SR", 4, 1), ("AVRO", 3, 2)]
    for fk_from in FK_FROM:
        for kind in ("JOIN", "LEFT JOIN"):
            chosen = sr_shapes if fk_from in STRUCT_KEYED else shapes + sr_shapes[:3]
            for i, (kf, lp, rp) in enumerate(chosen):
                for batched in (False, True) if i % 2 == 0 else (True,):
                    mode = "batches" if batched else "one at a time"
                    out.append(pytest.param(fk_from, kind, kf, lp, rp, batched,
                                            id=f"{fk_from}-{kind}-{kf}-{lp}x{rp}-{mode}"))
    return out


@pytest.mark.parametrize(("fk_from", "kind", "kf", "lp", "rp", "batched"), _params())
def test_foreign_key_join_final_table(h: Harness, fk_from: str, kind: str, kf: str, lp: int, rp: int,
                                      batched: bool) -> None:
    ddl, criteria, fk_of = FK_FROM[fk_from]
    multi_key = fk_from == "left key column"
    struct = fk_from in STRUCT_KEYED
    producer_id = None
    if struct and kf == "AVRO":  # the right topic's key schema is its producer's
        producer_id = h.engine.schema_registry.register("r-key", json.dumps(PRODUCER_KEY))
    h.sql(ddl.format(kf=kf, lp=lp))
    h.sql(_right_ddl(kf, rp, struct))
    key_cols = "L.ID, L.FK" if multi_key else "L.ID"
    h.sql(f"CREATE TABLE OUT AS SELECT {key_cols}, V, W FROM L {kind} R ON {criteria};")

    def send_right(rid: int, value: dict | None, ts: int) -> None:
        if producer_id is not None:
            _producer_send(h, producer_id, rid, value, ts)
        else:
            h.send("R", {"A": rid} if struct else rid, value, ts)

    rnd = random.Random(zlib.crc32(f"{fk_from}/{kind}/{kf}/{lp}/{rp}".encode()))
    left: dict[Any, dict] = {}
    right: dict[int, dict] = {}
    ops: list[tuple[str, Any, dict | None, int]] = []
    for n in range(120):
        ts = 1000 + n
        roll = rnd.random()
        if roll < 0.45:
            lid = rnd.randrange(12)
            fk = None if rnd.random() < 0.1 else rnd.randrange(8)
            if multi_key:
                key: Any = (lid, rnd.randrange(8))
                value = {"V": f"v{n}"}
                left[key] = value
            else:
                key = lid
                value = {"FK": {"A": fk} if struct and fk is not None else fk, "V": f"v{n}"}
                left[key] = value
            h.send("L", key, value, ts)
            ops.append(("l", key, value, ts))
        elif roll < 0.55 and left:
            key = rnd.choice(sorted(left))
            del left[key]
            h.send("L", key, None, ts)
            ops.append(("l", key, None, ts))
        elif roll < 0.9:
            rid = rnd.randrange(9)
            right[rid] = {"W": f"w{n}"}
            send_right(rid, right[rid], ts)
            ops.append(("r", rid, right[rid], ts))
        elif right:
            rid = rnd.choice(sorted(right))
            del right[rid]
            send_right(rid, None, ts)
            ops.append(("r", rid, None, ts))
        if not batched or rnd.random() < 0.15:
            h.run()
    h.run()

    want = _reference(ops, fk_of, inner=kind == "JOIN")
    final: dict[Any, Any] = {}
    for key, value, _ in h.read("OUT"):
        final[key] = value
    got = {k: tuple(v) for k, v in final.items() if v is not None}
    assert got == want
