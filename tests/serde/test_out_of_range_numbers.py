"""A number outside its column's range, by ksqlDB's rule for each format (reference 4.2, 4.3):

- JSON (and JSON_SR, read by the same deserializer): Jackson reads numbers as BigDecimal and narrows them
  with ``intValue()``/``longValue()`` - the low 32/64 bits, no error (``1e10`` into INT is 1410065408, ``1e30``
  into BIGINT 5076944270305263616, the low bits of 10^30, not of the double 1e30); fractions truncate.
- DELIMITED: ``Integer.parseInt``/``Long.parseLong`` - out of range is a deserialization error: the record
  goes to the processing log and the query goes on.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord

KEY = (1).to_bytes(4, "big")


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest", "ksql.logging.processing.stream.auto.create": "false"})
    yield e
    e.close()


def _run(engine: Engine, fmt: str, values: list[bytes]) -> tuple[list[bytes], list[str]]:
    engine.execute(f"CREATE STREAM S (ID INT KEY, I INT, B BIGINT) WITH (kafka_topic='s', partitions=1, "
                   f"value_format='{fmt}');")
    engine.execute("CREATE STREAM O AS SELECT * FROM S;")
    for v in values:
        engine.log.produce(ProducerRecord("s", KEY, v, 1))
    engine.drain()
    errors = [(x["message"].get("deserializationError") or {}).get("errorMessage") for x in engine.plog.entries]
    return engine.log.fetch("O", 0, 0, 100).values, errors


def test_json_narrows_as_java_does(engine: Engine) -> None:
    out, errors = _run(engine, "JSON", [b'{"I": 1e10, "B": 1e30}', b'{"I": 10000000000, "B": 100000000000000000000}',
                                        b'{"I": 2147483648, "B": 9223372036854775808}', b'{"I": 1.9, "B": -1.9}'])
    assert [orjson.loads(v) for v in out] == [
        {"I": 1410065408, "B": 5076944270305263616}, {"I": 1410065408, "B": 7766279631452241920},
        {"I": -2147483648, "B": -9223372036854775808}, {"I": 1, "B": -1}]
    assert errors == []


def test_delimited_out_of_range_goes_to_the_processing_log(engine: Engine) -> None:
    out, errors = _run(engine, "DELIMITED", [b"10000000000,1", b"1,100000000000000000000", b"7,8"])
    assert out == [b"7,8"]
    assert errors == ["Error deserializing delimited"] * 2  # ksqlDB's message; the parse failure is the cause
