"""The C block decoder (``serde.json_blocks``) takes a batch only when every record reads exactly as the JSON
serde's generic reader reads it: for batches of values built from every primitive column type - keys in
both spellings and any order, missing keys, nulls, escapes, surrogate pairs, non-ASCII text, numbers at
their type's bounds, in fractions and exponents, whitespace - a taken batch's blocks are the generic rows
(unread columns NULL, then the timestamp, partition, offset and key columns), and a batch holding anything
the typed decode would not take (another key, a key twice, a mistyped value, malformed JSON or UTF-8, a
lone surrogate, a tombstone, a negative or NULL timestamp column) is refused whole."""

from __future__ import annotations

import random

import orjson
import pytest

from ksqlpy.serde.json_blocks import NATIVE, json_blocks
from ksqlpy.serde.json_format import JsonValueSerde
from ksqlpy.types import BIGINT, BOOLEAN, DATE, DOUBLE, INTEGER, STRING, TIME, TIMESTAMP

pytestmark = pytest.mark.skipif(NATIVE is None, reason="the _jsonblocks extension is not built")

COLUMNS = [("ID", BIGINT), ("NAME", STRING), ("N", INTEGER), ("OK", BOOLEAN), ("X", DOUBLE), ("D", DATE),
           ("T", TIME), ("TS", TIMESTAMP), ("NOTE", STRING)]
READ = [True, True, True, True, True, True, True, False, False]
TS_COL = 7


def _decoder(read: list[bool] = READ, ts_col: int | None = TS_COL):  # type: ignore[no-untyped-def]
    dec = json_blocks(COLUMNS, read, ts_col)
    assert dec is not None
    return dec


def _decode(values: list[bytes | None], read: list[bool] = READ, ts_col: int | None = TS_COL):  # type: ignore[no-untyped-def]
    n = len(values)
    keys = [(1000 + i,) for i in range(n)]
    return _decoder(read, ts_col)(values, keys, [5] * n, 3, list(range(10, 10 + n))), keys


def _expected(values: list[bytes], keys: list[tuple], read: list[bool] = READ,
              ts_col: int | None = TS_COL) -> list[tuple]:
    serde = JsonValueSerde(COLUMNS)
    out = []
    for i, v in enumerate(values):
        row = serde.deserialize(v)
        ts = row[ts_col] if ts_col is not None else 5
        out.append(tuple(x if r else None for x, r in zip(row, read, strict=True)) + (ts, 3, 10 + i) + keys[i])
    return out


def _same(a: tuple, b: tuple) -> bool:
    """Equal values of equal types (1 and 1.0, -0.0 and 0.0 told apart)."""
    return len(a) == len(b) and all(type(x) is type(y) and repr(x) == repr(y) for x, y in zip(a, b, strict=True))


STRINGS = ["", "plain", 'quo"te', "back\\slash", "tab\tnew\nline", "caf\u00e9", "\u20ac 5", "\U0001f600 smile",
           "nul\u0000byte", "/slash", "a" * 300, "\u007f"]
NUMBERS = {"ID": ["0", "-0", "9223372036854775807", "-9223372036854775808", "17", "-42"],
           "N": ["2147483647", "-2147483648", "0", "12"],
           "X": ["0", "-0", "1.5", "1e3", "1E-7", "-2.5e+10", "123456789012345678901234567890",
                 "0.1", "3", "9007199254740993", "1.7976931348623157e308"],
           "D": ["19000", "-1", "0"], "T": ["0", "86400000", "43200123"],
           "TS": ["0", "1700000000005", "9223372036854775807"]}


def _record(rnd: random.Random, lower: bool) -> bytes:
    fields: list[tuple[str, str]] = []
    for name, t in COLUMNS:
        if name != "TS" and rnd.random() < 0.1:
            continue  # missing: NULL
        if name != "TS" and rnd.random() < 0.1:
            text = "null"
        elif t is STRING:
            text = orjson.dumps(rnd.choice(STRINGS)).decode()
            if rnd.random() < 0.3:  # the same text escaped the other ways JSON allows
                text = "".join(f"\\u{ord(c):04x}" if c.isalpha() and ord(c) < 0x10000 else c for c in text)
        elif t is BOOLEAN:
            text = rnd.choice(["true", "false"])
        else:
            text = rnd.choice(NUMBERS[name])
        fields.append((name.lower() if lower else name, text))
    rnd.shuffle(fields) if rnd.random() < 0.3 else None
    ws = rnd.choice(["", " ", "\n\t ", "\r\n"])
    body = f",{ws}".join(f'{ws}"{k}"{ws}:{ws}{v}' for k, v in fields)
    return f"{ws}{{{body}{ws}}}{ws}".encode()


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("lower", [False, True])
def test_a_taken_batch_reads_as_the_generic_reader(seed: int, lower: bool) -> None:
    rnd = random.Random(seed)
    values = [_record(rnd, lower) for _ in range(300)]
    got, keys = _decode(values)  # type: ignore[arg-type]
    assert got is not None, "every record is one the typed decode takes"
    blocks, tss = got
    want = _expected(values, keys)
    assert all(_same(b, w) for b, w in zip(blocks, want, strict=True))
    assert tss == [w[len(COLUMNS)] for w in want]


def test_all_columns_read_and_the_records_own_timestamp() -> None:
    rnd = random.Random(99)
    values = [_record(rnd, False) for _ in range(50)]
    read = [True] * len(COLUMNS)
    got, keys = _decode(values, read, None)  # type: ignore[arg-type]
    assert got is not None
    assert all(_same(b, w) for b, w in zip(got[0], _expected(values, keys, read, None), strict=True))
    assert got[1] == [5] * 50


def test_chunks_of_a_long_batch_join_up() -> None:
    rnd = random.Random(7)
    values = [_record(rnd, False) for _ in range(2500)]
    got, keys = _decode(values)  # type: ignore[arg-type]
    assert got is not None and len(got[0]) == 2500
    assert all(_same(b, w) for b, w in zip(got[0], _expected(values, keys), strict=True))


GOOD = b'{"ID": 1, "NAME": "a", "TS": 10}'


@pytest.mark.parametrize("bad", [
    b'{"ID": 1, "NAME": "a", "TS": 10, "OTHER": 1}',  # another key
    b'{"ID": 1, "Name": "a", "TS": 10}',  # a spelling of no layout
    b'{"ID": 1, "name": "a", "TS": 10}',  # two spellings in one object
    b'{"ID": 1, "ID": 2, "TS": 10}',  # a key twice
    b'{"I\\u0044": 1, "TS": 10}',  # an escaped key
    b'{"ID": "1", "TS": 10}',  # a string for BIGINT (the generic reader coerces it)
    b'{"ID": 1.0, "TS": 10}',  # a fraction for BIGINT
    b'{"ID": 1e2, "TS": 10}',  # an exponent for BIGINT
    b'{"ID": 9223372036854775808, "TS": 10}',  # beyond 64 bits
    b'{"ID": 99999999999999999999999, "TS": 10}',
    b'{"N": 2147483648, "TS": 10}',  # beyond 32 bits
    b'{"T": 86400001, "TS": 10}',  # beyond a day
    b'{"T": -1, "TS": 10}',
    b'{"OK": 1, "TS": 10}',  # a number for BOOLEAN
    b'{"NAME": 5, "TS": 10}',  # a number for STRING (the generic reader writes its text)
    b'{"NAME": true, "TS": 10}',
    b'{"NAME": ["a"], "TS": 10}',
    b'{"NAME": {"a": 1}, "TS": 10}',
    b'{"NOTE": 5, "TS": 10}',  # unread columns are checked too
    b'{"X": 1e400, "TS": 10}',  # not finite
    b'{"X": "1.5", "TS": 10}',
    b'{"ID": 01, "TS": 10}',  # malformed numbers
    b'{"ID": -, "TS": 10}',
    b'{"X": 1., "TS": 10}',
    b'{"X": .5, "TS": 10}',
    b'{"X": 1e, "TS": 10}',
    b'{"ID": 1, "TS": 10',  # malformed objects
    b'{"ID": 1, "TS": 10,}',
    b'{"ID" 1, "TS": 10}',
    b'{"ID": 1 "TS": 10}',
    b'{"ID": 1, "TS": 10} x',
    b'{"ID": 1, "TS": 10}{}',
    b'[1, 2]',
    b'null',
    b'',
    b'  ',
    b'{"NAME": "a\\x", "TS": 10}',  # a bad escape
    b'{"NAME": "\\ud800", "TS": 10}',  # lone surrogates
    b'{"NAME": "\\udc00x", "TS": 10}',
    b'{"NAME": "\\ud800\\u0041", "TS": 10}',
    b'{"NAME": "\\u12g4", "TS": 10}',
    b'{"NAME": "a\nb", "TS": 10}',  # a raw control character
    b'{"NAME": "\xff", "TS": 10}',  # invalid UTF-8
    b'{"NOTE": "\xc3(", "TS": 10}',
    b'{"NAME": "\xed\xa0\x80", "TS": 10}',  # an encoded surrogate
    b'{"NAME": "unterminated, "TS": 10}',
    b'{"NAME": nul, "TS": 10}',
    b'{"OK": tru, "TS": 10}',
    b'{"ID": 1}',  # no timestamp: NULL
    b'{"ID": 1, "TS": null}',
    b'{"ID": 1, "TS": -5}',  # a negative timestamp
    None,  # a tombstone
    b'{"X": -0.0, "TS": 10}',  # a negative zero: the literal reads as 0.0, an underflow as -0.0 (generic reader)
    b'{"X": -0e5, "TS": 10}',
    b'{"X": -1e-400, "TS": 10}',
])
def test_a_batch_with_a_record_the_typed_decode_would_not_take_is_refused(bad: bytes | None) -> None:
    dec = _decoder()
    values = [GOOD, bad, GOOD]
    assert dec(values, [(1,), (2,), (3,)], [5, 5, 5], 0, [0, 1, 2]) is None  # type: ignore[arg-type]
    # a refused batch makes the next one skip the C decoder (the caller's generic reader then decides)
    assert dec([GOOD], [(1,)], [5], 0, [0]) is None
    assert dec([GOOD], [(1,)], [5], 0, [0]) is not None


def test_only_the_types_it_takes() -> None:
    from ksqlpy.types import Array, Decimal

    assert json_blocks([("A", Decimal(4, 2))], [True], None) is None
    assert json_blocks([("A", Array(STRING))], [True], None) is None
    assert json_blocks([("A", STRING)], [True], 0) is None  # a timestamp column read as an integer only
    assert json_blocks([("A", BIGINT)], [True], 0) is not None


def test_a_key_that_is_no_tuple_is_refused() -> None:
    dec = _decoder()
    assert dec([GOOD], [None], [5], 0, [0]) is None  # type: ignore[list-item]


@pytest.mark.parametrize("good", [
    b'{"NAME": "\\ud83d\\ude00 \\u00e9\\u20ac\\"\\\\\\/\\b\\f\\n\\r\\t\\u0000", "TS": 1}',  # escapes, a pair
    b'{"NAME": "\xf0\x9f\x98\x80 caf\xc3\xa9", "NOTE": "\xe2\x82\xac", "TS": 1}',  # UTF-8 as is
    b'{}'.replace(b"}", b'"TS": 0}'),
    b' \r\n\t{ "TS" : 0 , "X" : -0 } \n',
    b'{"X": 2, "N": -0, "D": -2147483648, "OK": false, "TS": 1}',
    b'{"X": 4.9e-324, "NAME": null, "OK": null, "TS": 1}',
])
def test_edge_records_read_as_the_generic_reader(good: bytes) -> None:
    got, keys = _decode([good, GOOD])
    assert got is not None
    assert all(_same(b, w) for b, w in zip(got[0], _expected([good, GOOD], keys), strict=True))


def test_blocks_of_atomic_values_are_untracked_and_others_tracked() -> None:
    import gc

    dec = _decoder()
    got = dec([GOOD, GOOD], [(1,), ([1, 2],)], [5, 5], 0, [0, 1])  # type: ignore[list-item]
    assert got is not None
    assert not gc.is_tracked(got[0][0])  # every value atomic: as the collector would leave it
    assert gc.is_tracked(got[0][1])  # a key holding a list keeps its block tracked
