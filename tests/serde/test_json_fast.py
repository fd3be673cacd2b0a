"""The msgspec fast path for JSON rows gives exactly the generic reader's rows, or stands aside."""

from __future__ import annotations

import random

import orjson
import pytest

from ksqlpy.serde import SerdeError, value_serde
from ksqlpy.serde.json_fast import fast_rows, fast_writer, key_layouts
from ksqlpy.types import BIGINT, BOOLEAN, DATE, DOUBLE, INTEGER, STRING, TIME, TIMESTAMP, Array, Decimal

COLUMNS = [("B", BOOLEAN), ("I", INTEGER), ("L", BIGINT), ("F", DOUBLE), ("S", STRING), ("DT", DATE),
           ("TM", TIME), ("TS", TIMESTAMP)]

# JSON texts per column, including every edge the fast path must either get right or refuse
EDGES: dict[str, list[str]] = {
    "B": ["true", "false", "null", "1", "0", '"true"', "[]", "{}"],
    "I": ["0", "-0", "7", "2147483647", "-2147483648", "2147483648", "-2147483649", "1.0", "1.9", "-1.5",
          "1e2", "1E0", '"12"', '"x"', "true", "null", "123456789012345678901234567890", "[1]"],
    "L": ["1700000000005", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
          "-9223372036854775809", "2.5", '"9"', "false", "null", "1e3"],
    "F": ["0", "-0", "1.5", "-0.0", "-0e3", "-1e-400", "1e308", "1e-320", "5e-324", "123456789012345678901234567890",
          "0.1", "3.141592653589793238462643383279", "9007199254740993", '"NaN"', '"1.5"', '"x"', "true",
          "null", "1E+2", "-1e-2"],
    "S": ['""', '"abc"', '"a\\u0000b"', '"\\ud83d\\ude00"', '"\\ud800"', '"caf\u00e9"', '"\\"q\\""', "12",
          "1.5", "true", '{"a":1}', "[1,2]", "null", '"\\/"'],
    "DT": ["19000", "-1", "2147483648", "1.5", '"3"', "null"],
    "TM": ["3600000", "0", "null", "-5", "86400000", "86400001", '"1"'],
    "TS": ["1700000000000", "0", "null", "1.0"],
}


def _generic(serde, data: bytes):
    """The generic per-record reader's answer: a row, None, or the error text."""
    try:
        return serde.deserialize(data)
    except (SerdeError, ValueError) as e:
        return ("error", str(e))


def _keys(lower: bool) -> list[str]:
    return [n.lower() if lower else n for n, _ in COLUMNS]


def _record(rng: random.Random, keys: list[str]) -> bytes:
    parts = []
    for k, (n, _) in zip(keys, COLUMNS, strict=True):
        if rng.random() < 0.1:
            continue  # missing field: NULL
        pool = EDGES[n] if rng.random() < 0.3 else EDGES[n][:3]  # mostly plain values, some edges
        parts.append(f'"{k}":{rng.choice(pool)}')
    rng.shuffle(parts)
    return ("{" + ",".join(parts) + "}").encode()


@pytest.mark.parametrize("lower", [False, True])
def test_fast_rows_equal_the_generic_reader_or_stand_aside(lower: bool) -> None:
    serde = value_serde("JSON", COLUMNS)
    fast = fast_rows(COLUMNS)
    assert fast is not None
    rng = random.Random(7)
    keys = _keys(lower)
    answered = 0
    for _ in range(4000):
        data = _record(rng, keys)
        fast.skip = 0  # judge every record on its own
        rows = fast([data])
        if rows is not None:
            answered += 1
            assert repr(rows) == repr([_generic(serde, data)]), data  # (repr: -0.0 and 0.0 told apart)
    assert answered > 900  # the fast path did answer for the records it can prove


@pytest.mark.parametrize("literal", ["-0.0", "-0e3", "-0.000E-5"])
def test_a_negative_zero_literal_is_left_to_the_generic_reader(literal: str) -> None:
    """ksqlDB reads the number as a BigDecimal, which has no negative zero: 0.0, where msgspec gives -0.0."""
    serde = value_serde("JSON", COLUMNS)
    fast = fast_rows(COLUMNS)
    assert fast is not None
    data = f'{{"F":{literal},"S":"2020-01-01"}}'.encode()
    assert fast([data]) is None
    rows, errors = serde.deserialize_batch([data])
    assert repr(rows[0][3]) == "0.0" and not errors


def test_an_underflow_to_negative_zero_is_left_to_the_generic_reader_too() -> None:
    """-1e-400 is a BigDecimal whose double is -0.0; the typed decode cannot tell it from the literal -0.0."""
    fast = fast_rows(COLUMNS)
    assert fast is not None
    data = b'{"F":-1e-400,"S":"2020-01-01"}'
    assert fast([data]) is None
    rows, _ = value_serde("JSON", COLUMNS).deserialize_batch([data])
    assert repr(rows[0][3]) == "-0.0"


@pytest.mark.parametrize("data", [
    b'{"b":true,"B":false}', b'{"B":true,"b":false}', b'{"Ts":5}', b'{"ts":1,"extra":2}', b'{"L":1,"L":2}',
    b'{"l":3}', b"null", b"[]", b"1", b'{"L":1} ', b' {"L":1}', b'{"L":1}x', b'{"L":1', b"", b'{"S":"\xff"}',
    b'\xef\xbb\xbf{"L":1}', b"{}",
])
def test_odd_objects_read_as_the_generic_reader_reads_them(data: bytes) -> None:
    serde = value_serde("JSON", COLUMNS)
    rows, errors = serde.deserialize_batch([data])
    expect = _generic(serde, data)
    if isinstance(expect, tuple) and expect[:1] == ("error",):
        assert rows == [None] and [e for _, e in errors] == [expect[1]]
    else:
        assert rows == [expect] and not errors


def test_a_bad_record_does_not_lose_the_batch() -> None:
    serde = value_serde("JSON", COLUMNS)
    good = [orjson.dumps({"l": i, "s": f"x{i}", "f": i / 3}) for i in range(50)]
    batch = good[:20] + [b'{"l": oops}', None, b'{"l":"12"}'] + good[20:]
    rows, errors = serde.deserialize_batch(batch)
    assert [i for i, _ in errors] == [20]
    assert rows[21] is None and rows[22][2] == 12
    assert [r for i, r in enumerate(rows) if i not in (20, 21, 22)] == [serde.deserialize(g) for g in good]
    # the following clean batches are read right, whichever path reads them
    for _ in range(5):
        assert serde.deserialize_batch(good) == ([serde.deserialize(g) for g in good], [])


def test_the_fast_path_backs_off_and_comes_back() -> None:
    fast = fast_rows([("L", BIGINT)])
    assert fast is not None
    assert fast([b'{"L":1}', b'{"X":2}']) is None
    assert fast([b'{"L":1}']) is None  # skipped: straight to the generic reader
    assert fast([b'{"L":1}']) == [(1,)]
    assert fast([b'{"l":2}']) == [(2,)]  # the other spelling, tried second ...
    assert fast.decoders[0] is not fast.decoders[1] and fast([b'{"l":3}']) == [(3,)]  # ... then first


def test_layouts_and_types_the_fast_path_refuses() -> None:
    assert key_layouts(["A", "B"]) == [["A", "B"], ["a", "b"]]
    assert key_layouts(["a", "B"]) == [["a", "B"]]  # "a" is a quoted lower-case name: exact only
    assert key_layouts(["Id", "ID"]) == []  # both upper-case alike: only the generic lookup is right
    assert fast_rows([("D", Decimal(4, 2))]) is None
    assert fast_rows([("A", Array(STRING))]) is None
    assert fast_rows([]) is None


def test_fast_writer_writes_the_generic_writers_bytes() -> None:
    cols = [("B", BOOLEAN), ("I", INTEGER), ("L", BIGINT), ("S", STRING), ("DT", DATE), ("TM", TIME),
            ("TS", TIMESTAMP), ("lower", STRING)]
    serde = value_serde("JSON", cols)
    assert fast_writer(cols) is not None
    rng = random.Random(3)
    texts = ["", "a\"b\\c", "\n\r\t\b\f", "\x00\x01\x1f\x7f", "\u2028\u2029", "é日本😀", "</script>"]
    texts += ["".join(chr(rng.randrange(0x20000)) for _ in range(20)).encode("utf-8", "replace").decode()
              for _ in range(200)]
    rows = []
    for _ in range(2000):
        rows.append((rng.choice([True, False, None]), rng.choice([0, -2**31, 2**31 - 1, None, 7]),
                     rng.choice([2**63 - 1, -2**63, 1700000000000, None]), rng.choice(texts + [None]),
                     rng.choice([19000, None]), rng.choice([0, 86399999]), rng.choice([0, None]),
                     rng.choice(texts)))
    expect = [serde.serialize(r) for r in rows]
    assert fast_writer(cols)(rows) == expect  # type: ignore[misc]
    assert serde.serialize_batch(rows) == expect
    # a null row, or a value the generic writer refuses, takes the generic writer for the batch
    assert serde.serialize_batch([rows[0], None]) == [serde.serialize(rows[0]), None]
    with pytest.raises(TypeError):
        serde.serialize_batch([rows[0], (True, 1, 2, "\ud800", 1, 2, 3, "x")])


def test_fast_writer_writes_doubles_as_the_generic_writer_or_stands_aside() -> None:
    """msgspec writes a double as the generic writer does for a magnitude in [1e-3, 1e7) (and zero); outside
    it ksqlDB writes Double.toString's exponent form (``1.0E10``, ``1.0E-5``) and NaN/infinity as strings: a
    batch holding one of those goes the generic way."""
    import math
    import struct

    from ksqlpy.serde.json_fast import NotPlainDoubles

    cols = [("K", STRING), ("F", DOUBLE), ("G", DOUBLE)]
    serde = value_serde("JSON", cols)
    write = fast_writer(cols)
    assert write is not None
    rng = random.Random(5)
    plain = [0.0, -0.0, 1.5, -2.25, 0.001, 9999999.999999998, -9999999.5, 0.1, 1 / 3, 7, None]
    plain += [rng.random() * 10 ** rng.randint(-2, 6) * rng.choice((1, -1)) for _ in range(3000)]
    plain = [v for v in plain if v is None or not v or 1e-3 <= abs(v) < 1e7]
    rows = [("k", rng.choice(plain), rng.choice(plain)) for _ in range(3000)]
    expect = [serde.serialize(r) for r in rows]
    assert write(rows) == expect
    assert serde.serialize_batch(rows) == expect
    odd = [1e7, -1e7, 1e16, -1e16, 9.99e-4, -1e-7, 5e-324, 1.2345678901234568e17, 1.7976931348623157e308, math.nan,
           math.inf, -math.inf]
    odd += [struct.unpack("d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(50)]
    for v in odd:
        batch = rows[:5] + [("k", 1.0, v)]
        if v and not (1e-3 <= abs(v) < 1e7):  # (NaN compares False)
            with pytest.raises(NotPlainDoubles):
                write(batch)
        assert serde.serialize_batch(batch) == [serde.serialize(r) for r in batch]
    assert serde.serialize(("k", math.nan, 1e16)) == b'{"K":"k","F":"NaN","G":1.0E16}'
    assert serde.serialize(("k", 1e-5, -1.2345678e10)) == b'{"K":"k","F":1.0E-5,"G":-1.2345678E10}'
    from decimal import Decimal as Dec

    with pytest.raises(TypeError):  # not a double: the generic writer's rendering
        write([("k", Dec("1.5"), None)])


def test_fast_writer_refuses_types_msgspec_writes_differently() -> None:
    assert fast_writer([("D", Decimal(4, 2))]) is None
    assert fast_writer([("A", Array(STRING))]) is None


def test_a_batch_longer_than_a_decode_chunk_reads_whole_and_in_order() -> None:
    """Batches are decoded in chunks (so other threads get the interpreter between them): every record
    once, in order, and a bad record in a later chunk still sends the whole batch to the generic reader."""
    from ksqlpy.serde.json_fast import CHUNK

    cols = [("L", BIGINT), ("S", STRING)]
    fast = fast_rows(cols)
    assert fast is not None
    n = 2 * CHUNK + 500
    good = [orjson.dumps({"L": i, "S": f"s{i}"}) for i in range(n)]
    assert fast(good) == [(i, f"s{i}") for i in range(n)]
    bad = good[: n - 3] + [b'{"L": "x"}'] + good[n - 2:]
    assert fast(bad) is None
