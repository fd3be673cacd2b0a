"""A join's JSON sources decoded straight into blocks in C (``serde.json_blocks`` through
``JoinWiring.channel``) give the sink and the processing log the reader's way gives: stream-stream (q8's
shape, re-keyed through a repartition topic, a timestamp column) and stream-table joins, with batches
of lower-case keys, bad records (malformed JSON, a mistyped value, a tombstone, a negative timestamp
column), NULL join keys and a key expression that fails - and the C path really runs for clean batches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

import ksqlpy.runtime.join_rows as join_rows
from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord
from ksqlpy.serde import json_blocks

pytestmark = pytest.mark.skipif(json_blocks.NATIVE is None, reason="the _jsonblocks extension is not built")

SOURCES = [
    "CREATE STREAM P (ID BIGINT KEY, NAME STRING, DT BIGINT, PAD STRING) "
    "WITH (kafka_topic='p', value_format='JSON', partitions=2, timestamp='DT');",
    "CREATE STREAM A (ID BIGINT KEY, SELLER BIGINT, DT BIGINT, CODE STRING) "
    "WITH (kafka_topic='a', value_format='JSON', partitions=2, timestamp='DT');",
    "CREATE STREAM B (ID BIGINT KEY, AUCTION BIGINT, PRICE DOUBLE) WITH (kafka_topic='b', value_format='JSON', "
    "partitions=2);",
    "CREATE TABLE T (ID BIGINT PRIMARY KEY, SELLER BIGINT, CODE STRING) WITH (kafka_topic='t', value_format='JSON', "
    "partitions=2);",
]

QUERIES = [
    # q8's shape: persons by key, auctions re-keyed by seller, a WHERE over both, a GROUP BY
    "CREATE TABLE O WITH (key_format='JSON') AS SELECT P.ID AS ID, P.NAME AS NAME, COUNT(*) AS C "
    "FROM P JOIN A WITHIN 10 SECONDS ON P.ID = A.SELLER WHERE P.DT / 10000 = A.DT / 10000 "
    "GROUP BY P.ID, P.NAME EMIT CHANGES;",
    "CREATE STREAM O AS SELECT P.ID AS PID, P.PAD, A.CODE FROM P LEFT JOIN A WITHIN 5 SECONDS "
    "ON P.ID = CAST(A.CODE AS BIGINT);",
    "CREATE STREAM O AS SELECT B.AUCTION, B.ID AS BID, B.PRICE, T.CODE FROM B JOIN T ON B.AUCTION = T.ID;",
]


def _records() -> list[tuple[str, Any, Any, int]]:
    """(topic, key, value as a dict or raw bytes, timestamp) in produce order."""
    out: list[tuple[str, Any, Any, int]] = []
    for i in range(60):
        out.append(("t", i % 7, {"SELLER": i % 5, "CODE": str(i % 7)}, 1000 + i))
        out.append(("p", i % 9, {"NAME": f"n{i}", "DT": 1000 + 100 * i, "PAD": "x" * (i % 4)}, 0))
        out.append(("a", 100 + i, {"SELLER": i % 9, "DT": 1050 + 100 * i, "CODE": str(i % 9)}, 0))
        out.append(("b", i, {"AUCTION": i % 8, "PRICE": i / 3}, 1500 + i))
    # a batch of lower-case keys, then bad records among good ones
    out += [("p", 3, {"name": "lower", "dt": 8000, "pad": "l"}, 0), ("a", 900, {"seller": 3, "dt": 8001}, 0)]
    out += [("p", 4, b"{bad", 0), ("a", 901, {"SELLER": "x", "DT": 8002}, 0), ("a", 902, None, 0),
            ("p", 5, {"NAME": "neg", "DT": -4}, 0), ("a", 903, {"SELLER": None, "DT": 8003}, 0),
            ("a", 904, {"SELLER": 4, "DT": 8004, "CODE": "not a number"}, 0),
            ("p", 4, {"NAME": "ok", "DT": 8005}, 0), ("b", 99, {"AUCTION": 2, "PRICE": "1.5"}, 9000),
            ("t", 6, b'{"SELLER": true}', 8999), ("b", 98, b"[1]", 9001), ("b", 97, {"AUCTION": 6, "price": 2}, 9002)]
    return out


def _run(tmp: Path, query: str, native: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list, list, int]:
    taken = [0]
    if native:
        real = json_blocks.JsonBlocks.__call__

        def spy(self: json_blocks.JsonBlocks, *a: Any) -> Any:
            got = real(self, *a)
            taken[0] += got is not None
            return got

        monkeypatch.setattr(json_blocks.JsonBlocks, "__call__", spy)
    else:
        monkeypatch.setattr(join_rows, "json_blocks", lambda *a: None)
    engine = Engine(str(tmp), {"auto.offset.reset": "earliest", "ksql.service.id": "nd_"})
    try:
        for s in SOURCES:
            engine.execute(s)
        engine.execute(query)
        for topic, key, value, ts in _records():
            src = engine.catalog.source(topic.upper())
            assert src is not None
            kb = engine.key_serde(src).serialize((key,))
            vb = value if value is None or isinstance(value, bytes) else orjson.dumps(value)
            engine.log.produce(ProducerRecord(src.topic, kb, vb, ts))
            if topic == "b" and key % 20 == 0:
                engine.drain(30)  # several batches
        engine.drain(30)
        sink = engine.catalog.source("O")
        assert sink is not None
        ks, vs = engine.key_serde(sink), engine.value_serde(sink)
        rows = []
        for p in range(engine.log.describe_topic(sink.topic).partitions):  # type: ignore[union-attr]
            b = engine.log.fetch(sink.topic, p, 0, 1_000_000)
            rows += [(ks.deserialize(k), None if v is None else vs.deserialize(v), t)
                     for k, v, t in zip(b.keys, b.values, b.timestamps, strict=True)]
        log = sorted(orjson.dumps({**e, "time": 0}, option=orjson.OPT_SORT_KEYS) for e in engine.plog.entries)
    finally:
        engine.close()
    return rows, log, taken[0]


@pytest.mark.parametrize("query", QUERIES)
def test_the_c_decode_gives_what_the_reader_gives(tmp_path: Path, query: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as m:
        want_rows, want_log, _ = _run(tmp_path / "py", query, False, m)
    got_rows, got_log, taken = _run(tmp_path / "c", query, True, monkeypatch)
    assert taken > 0, "the C decoder took the clean batches"
    assert want_rows and want_log
    assert got_rows == want_rows
    assert got_log == want_log
