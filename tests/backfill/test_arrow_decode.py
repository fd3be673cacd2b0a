"""The native tier's Arrow decoder (``ksqlpy.backfill.arrow_decode``): a batch it decodes gives exactly the
group keys, aggregate arguments and timestamps of the streaming reader and grouper; a batch holding anything
it cannot prove identical - across the JSON value's types and spellings, the KAFKA key's types, tombstones,
headers, timestamps - is handed back (None) and never crashes; and the query shapes it does not cover have
no decoder at all. In one process, no Spark."""

from __future__ import annotations

import json
import struct
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest

from ksqlpy.backfill.arrow_decode import ArrowDecoder
from ksqlpy.backfill.job import BackfillJob, WorkerEngine, new_plog
from ksqlpy.backfill.stages import _grouper, _source_reader, operator
from ksqlpy.backfill.support import moves_records
from ksqlpy.engine.engine import Engine
from ksqlpy.log.base import ProducerRecord, RecordBatch
from ksqlpy.log.embedded import RawBatch
from ksqlpy.plan.topology import GroupStage
from tests.backfill.conftest import make_engine

KEYS = {
    "BIGINT": (lambda k: struct.pack(">q", k), [0, -1, 2**63 - 1, -(2**63), 42]),
    "INT": (lambda k: struct.pack(">i", k), [0, -1, 2**31 - 1, -(2**31), 42]),
    "STRING": (lambda k: str(k).encode(), ["a", "é", "", "x y", "42"]),
}
VALUE_COLUMNS = "v BIGINT, n INT, t STRING, b BOOLEAN"
SQL = ("CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c, COUNT(t) AS ct, SUM(v) AS sv, SUM(n) AS sn, MIN(v) AS lo "
       "FROM s WINDOW TUMBLING (SIZE 2 SECONDS) GROUP BY k EMIT CHANGES;")


_ENGINES: list[Engine] = []


@pytest.fixture(autouse=True)
def _close_engines() -> Iterator[None]:
    yield
    while _ENGINES:
        _ENGINES.pop().close()


def _job(tmp_path: Any, key_type: str = "BIGINT", sql: str = SQL, columns: str = VALUE_COLUMNS,
         with_clause: str = "") -> BackfillJob:
    ddl = (f"CREATE STREAM s (k {key_type} KEY, {columns}) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', "
           f"PARTITIONS=1{with_clause});")
    eng = make_engine(str(tmp_path / "plan"), ddl, [], "s")
    _ENGINES.append(eng)
    res = eng.execute(sql, {"auto.offset.reset": "latest"})
    query = eng.queries[next(r.query_id for r in res if r.query_id)]
    return BackfillJob(topology=query.topology, sink=query.sink, query_id=query.query_id,
                       properties=dict(eng.effective_properties()), partitions=1,
                       repartition=moves_records(len(query.topology.sub_topologies), 1))


def _stored(batch: RecordBatch, via: str, chunk: int = 3) -> RecordBatch | RawBatch:
    """``batch`` as given (``fetch``), or written to an embedded log in transactions of ``chunk`` records
    (so that a fetch spans several chunks) and read back as it is stored (``fetch_raw``)."""
    if via == "fetch":
        return batch
    eng = Engine(tempfile.mkdtemp(prefix="arrow-decode-"))
    _ENGINES.append(eng)
    eng.log.create_topic("raw", 1)
    rows = list(zip(batch.keys, batch.values, batch.timestamps, batch.headers, strict=True))
    for i in range(0, len(rows), chunk):
        with eng.log.transaction() as tx:
            for k, v, ts, h in rows[i:i + chunk]:
                tx.produce(ProducerRecord("raw", k, v, ts, h, 0))
    raw = eng.log.fetch_raw("raw", 0, 0, 10_000)
    assert len(raw.segments) == -(-len(rows) // chunk)
    decoded = raw.decoded()
    assert (decoded.keys, decoded.values, decoded.timestamps) == (batch.keys, batch.values, batch.timestamps)
    assert [h or None for h in decoded.headers] == [h or None for h in batch.headers]
    return raw


def _parts(job: BackfillJob) -> tuple[Any, Any, ArrowDecoder | None]:
    engine = WorkerEngine(job, new_plog(job))
    reader = _source_reader(job, engine)
    grouper = _grouper(job, engine)
    decoder = ArrowDecoder.of(operator(job, GroupStage), reader.source, reader.key_serde, reader.value_serde)
    return reader, grouper, decoder


def _batch(keys: list[bytes | None], values: list[bytes | None], tss: list[int] | None = None,
           headers: list[Any] | None = None) -> RecordBatch:
    n = len(values)
    return RecordBatch("s", 0, list(range(n)), keys, values, tss or [1000 + i for i in range(n)],
                       headers or [None] * n)


def _value(v: Any = 1, n: Any = 2, t: Any = "x", b: Any = True, spell: str = "lower") -> bytes:
    d = {"v": v, "n": n, "t": t, "b": b}
    if spell == "upper":
        d = {k.upper(): x for k, x in d.items()}
    return json.dumps(d).encode()


def _same(reader: Any, grouper: Any, decoder: ArrowDecoder, batch: RecordBatch, via: str = "fetch") -> None:
    """The decoder answers, with the streaming reader's and grouper's items, column by column."""
    got = decoder(_stored(batch, via))
    assert got is not None
    items = grouper(reader.decode(batch))
    assert got.keys[0].to_pylist() == [k[0] for k, _, _, _ in items]
    for i, col in enumerate(got.args):
        assert col.to_pylist() == [a[i] for _, a, _, _ in items]
    assert got.timestamps.tolist() == [ts for _, _, ts, _ in items]


@pytest.mark.parametrize("via", ["fetch", "raw"])
@pytest.mark.parametrize("key_type", sorted(KEYS))
def test_decoded_batches_equal_the_streaming_items(tmp_path: Any, key_type: str, via: str) -> None:
    """Both ways a batch arrives: decoded by the log (``fetch``), or as the embedded log stores it
    (``fetch_raw``: over several chunks; STRING keys, whose size varies, are refused there)."""
    reader, grouper, decoder = _parts(_job(tmp_path, key_type))
    assert decoder is not None
    enc, keys = KEYS[key_type]
    values = [_value(), _value(v=None, n=None, t=None, b=None), _value(v=2**63 - 1, n=-(2**31), t="é\"\\\u0000"),
              b'{"v": -0, "n": 7}', b"{}", _value(b=False, t="")]
    first = _batch([enc(k) for k in keys] + [enc(keys[0])], values)
    upper = _batch([enc(k) for k in keys], [_value(v=i, spell="upper") for i in range(5)])  # the names' own spelling
    if via == "raw" and key_type == "STRING":
        assert decoder(_stored(first, via)) is None
        return
    _same(reader, grouper, decoder, first, via)
    _same(reader, grouper, decoder, upper, via)
    assert decoder.batches == 2 and decoder.refused == 0


BIGINT_KEY = struct.pack(">q", 7)
# (name, key, value, timestamp, headers): each makes its batch go through the streaming reader
REFUSED = {
    "string for a number": (BIGINT_KEY, b'{"v": "12"}', 1, None),
    "fraction": (BIGINT_KEY, b'{"v": 1.0}', 1, None),
    "exponent": (BIGINT_KEY, b'{"v": 1e2}', 1, None),
    "BIGINT overflow": (BIGINT_KEY, b'{"v": 9223372036854775808}', 1, None),
    "INT overflow": (BIGINT_KEY, b'{"n": 2147483648}', 1, None),
    "number for a string": (BIGINT_KEY, b'{"t": 5}', 1, None),
    "number for a boolean": (BIGINT_KEY, b'{"b": 1}', 1, None),
    "string for a boolean": (BIGINT_KEY, b'{"b": "true"}', 1, None),
    "object for a string": (BIGINT_KEY, b'{"t": {"x": 1}}', 1, None),
    "another spelling": (BIGINT_KEY, b'{"v": 1, "N": 2}', 1, None),
    "both spellings": (BIGINT_KEY, b'{"v": 1, "V": 2}', 1, None),
    "unknown field": (BIGINT_KEY, b'{"v": 1, "extra": 2}', 1, None),
    "repeated key": (BIGINT_KEY, b'{"v": 1, "v": 2}', 1, None),
    "raw newline": (BIGINT_KEY, b'{"v": 1,\n "n": 2}', 1, None),
    "carriage return": (BIGINT_KEY, b'{"v": 1}\r{"v": 2}', 1, None),
    "two objects": (BIGINT_KEY, b'{"v": 1} {"v": 2}', 1, None),
    "null value": (BIGINT_KEY, b"null", 1, None),
    "true value": (BIGINT_KEY, b"true", 1, None),
    "array value": (BIGINT_KEY, b"[1]", 1, None),
    "empty value": (BIGINT_KEY, b"", 1, None),
    "leading space": (BIGINT_KEY, b' {"v": 1}', 1, None),
    "byte order mark": (BIGINT_KEY, b'\xef\xbb\xbf{"v": 1}', 1, None),
    "invalid UTF-8": (BIGINT_KEY, b'{"t": "\xff"}', 1, None),
    "UTF-8 of a surrogate": (BIGINT_KEY, b'{"t": "\xed\xa0\x80"}', 1, None),
    "escaped lone surrogate": (BIGINT_KEY, b'{"t": "\\ud800"}', 1, None),
    "malformed": (BIGINT_KEY, b'{"v": 1', 1, None),
    "tombstone": (BIGINT_KEY, None, 1, None),
    "null key": (None, _value(), 1, None),
    "short key": (b"\x00\x07", _value(), 1, None),
    "negative timestamp": (BIGINT_KEY, _value(), -5, None),
    "headers": (BIGINT_KEY, _value(), 1, [("h", b"1")]),
}


@pytest.mark.parametrize("via", ["fetch", "raw"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_anything_unproven_goes_to_the_streaming_reader(tmp_path: Any, name: str, via: str) -> None:
    """One odd record among plain ones: the whole batch is handed back (and the decoder stays usable)."""
    reader, grouper, decoder = _parts(_job(tmp_path))
    assert decoder is not None
    key, value, ts, headers = REFUSED[name]
    n = 4
    batch = _batch([BIGINT_KEY] * n + [key], [_value()] * n + [value], [10 + i for i in range(n)] + [ts],
                   [None] * n + [headers])
    assert decoder(_stored(batch, via)) is None
    grouper(reader.decode(batch))  # (the streaming reader reads or logs it)
    _same(reader, grouper, decoder, _batch([BIGINT_KEY] * n, [_value()] * n), via)


def test_invalid_utf8_string_key_goes_to_the_streaming_reader(tmp_path: Any) -> None:
    """KAFKA STRING keys: the streaming reader replaces invalid bytes with U+FFFD; the decoder refuses them."""
    reader, grouper, decoder = _parts(_job(tmp_path, "STRING"))
    assert decoder is not None
    batch = _batch([b"a", b"\xff"], [_value(), _value()])
    assert decoder(batch) is None
    assert [k for k, _, _, _ in grouper(reader.decode(batch))] == [("a",), ("\ufffd",)]


def test_null_group_key_from_the_value_goes_to_the_streaming_grouper(tmp_path: Any) -> None:
    sql = "CREATE TABLE bf_out AS SELECT t, COUNT(*) AS c FROM s GROUP BY t EMIT CHANGES;"
    job = _job(tmp_path, sql=sql)
    job = BackfillJob(topology=job.topology, sink=job.sink, query_id=job.query_id, properties=job.properties,
                      partitions=1, repartition=False)
    reader, grouper, decoder = _parts(job)
    assert decoder is not None
    assert decoder(_batch([BIGINT_KEY] * 2, [_value(t="a"), _value(t=None)])) is None
    _same(reader, grouper, decoder, _batch([BIGINT_KEY] * 2, [_value(t="a"), _value(t="b")]))


@pytest.mark.parametrize("sql, columns, with_clause", [
    ("CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c FROM s WHERE v > 0 GROUP BY k EMIT CHANGES;",
     VALUE_COLUMNS, ""),  # WHERE runs as the generated Python
    ("CREATE TABLE bf_out AS SELECT k, SUM(v + 1) AS c FROM s GROUP BY k EMIT CHANGES;", VALUE_COLUMNS, ""),
    ("CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c FROM s GROUP BY k EMIT CHANGES;",
     "v BIGINT, d DOUBLE", ""),  # pyarrow reads 1e400 as infinity, which the streaming reader refuses
    ("CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c FROM s GROUP BY k EMIT CHANGES;",
     "v BIGINT, a ARRAY<INT>", ""),
    ("CREATE TABLE bf_out AS SELECT k, COUNT(*) AS c FROM s GROUP BY k EMIT CHANGES;",
     VALUE_COLUMNS, ", TIMESTAMP='v'"),  # the timestamp from a column
    ("CREATE TABLE bf_out WITH (KEY_FORMAT='JSON') AS SELECT k, t, COUNT(*) AS c FROM s GROUP BY k, t EMIT CHANGES;",
     VALUE_COLUMNS, ""),
], ids=["where", "expression", "double", "array", "timestamp-column", "two-key-columns"])
def test_shapes_without_a_decoder(tmp_path: Any, sql: str, columns: str, with_clause: str) -> None:
    assert _parts(_job(tmp_path, sql=sql, columns=columns, with_clause=with_clause))[2] is None
