"""Comparison rules: expected record specs against what the sink topics hold.

Values (ksqlDB's ExpectedRecordComparator, made exact):

- A DOUBLE (the sink schema says so: ``coerce`` marks the expected number as an :class:`ApproxDouble`)
  matches any number within 1e-6 of it (``1`` matches ``1.0``, ``0.3`` matches ``0.30000000000000004``).

- null equals only null; booleans only booleans; strings only strings (or BYTES whose base64 is that
  string); arrays element-wise with equal length; objects with exactly the same field names
  (case-sensitive) and equal fields.
- Numbers are exact decimals, never floats. They must have the same value. In addition the *scale*
  (digits after the point, as written) must match, as BigDecimal.equals requires in ksqlDB: expected
  ``1.10`` fails against ``1.1``, expected ``1`` fails against ``1.0``. Exceptions, all because Java
  and Python print doubles differently: when either number is written with an exponent (``1.0E7``,
  ``4.6116860184273879E18``) both are compared as doubles; when the actual number's magnitude is where
  Java prints doubles with an exponent (>= 1e7, or < 1e-3 and non-zero) the scale is not compared.
  An expected non-integer against an actual JSON integer compares by value only (ksqlDB compares
  ``intValue()`` there; we do not truncate).
- An expected *string* matches an actual decimal number when it parses to the same value and scale
  (ksqlDB's ``new BigDecimal(text).equals(actual)``: DECIMAL expectations are often written "3.40";
  the text as Java's BigDecimal reads it: no surrounding blanks, no ``_``, no NaN/Infinity).

Records (``record=True``, ksqlDB's ExpectedRecordComparator from memory; REST responses keep the rules
above): an actual integer is compared by its Java type - ``expected.intValue() == actual`` for an Integer,
``expected.longValue()`` for a Long, so an expected ``1.9`` matches an actual ``1`` and an expected
``4294967297`` an Integer ``1`` (truncation toward zero, then the low 32/64 bits). A JSON integer is an
Integer, Long or BigInteger by its size (Jackson's untyped read); AVRO ``long`` and KAFKA BIGINT are Longs
(``JavaLong``). A BigInteger (a JSON integer beyond a long: a DECIMAL(38, 0), say) compares by value, as
before: whether compareNumber has a branch for it is not remembered, and only the looser reading can
never fail a case ksqlDB passes. An expected object
matches an actual one with as many fields whose every expected field equals ``actual.get(name)`` - a name
the actual lacks reads null, an actual field the expected one lacks is never looked at (``compareStruct``).
- A number read by a KAFKA DOUBLE serde (a float) equals an expected number of the same double value.
- Object field names are compared exactly; ``coerce.resolve_names`` first gives the expected names the
  sink schema's spelling (row columns and STRUCT fields match case-insensitively, as ksqlDB reads JSON;
  MAP keys stay exact).

Records: key, window (windowed sinks only, and then required), value always; ``timestamp`` and
``headers`` only when the expected record gives them. Topics: the same number of records, in order
within each partition (records of different partitions may interleave in any order).
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ksqlpy.testing import exactjson
from ksqlpy.testing.exactjson import JavaLong, JsonNumber
from ksqlpy.testing.model import Header, TestRecord, Window, header_to_spec
from ksqlpy.testing.specserde import Undecodable

_JAVA_SCI_HIGH = Decimal("1e7")
DOUBLE_TOLERANCE = Decimal("1e-6")


class ApproxDouble(JsonNumber):
    """An expected number where the sink holds a DOUBLE: compared within ``DOUBLE_TOLERANCE``."""


_INT_BITS, _LONG_BITS = 32, 64
_BIGDECIMAL_TEXT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def doubles_close(expected: Decimal, actual: Any) -> bool:
    if isinstance(actual, bool) or not isinstance(actual, int | float | Decimal):
        return False
    if isinstance(actual, float) and actual != actual:  # NaN is written as the string "NaN"
        return False
    if float(expected) == float(actual):
        return True
    return abs(Decimal(expected) - Decimal(actual)) <= DOUBLE_TOLERANCE
_JAVA_SCI_LOW = Decimal("1e-3")


@dataclass
class ActualRecord:
    """A record read back from a sink topic, key and value decoded by ``specserde``."""

    partition: int
    offset: int
    key: Any
    value: Any
    timestamp: int
    window: Window | None = None
    headers: list[Header] | None = None
    key_bytes: bytes | None = None  # the serialized (inner, for a windowed record) key: its partition


@dataclass
class Mismatch:
    """Why a topic's records do not match; ``field`` groups failures (key/value/count/...)."""

    field: str
    message: str


# --------------------------------------------------------------------------- values


def value_diff(expected: Any, actual: Any, path: str = "", record: bool = False) -> str | None:
    """None if ``actual`` matches ``expected``, else where and how they first differ; ``record``: the
    rules of an expected record (see the module docstring)."""
    where = path or "<root>"
    if isinstance(expected, float):  # specs built in Python rather than read from a file
        expected = JsonNumber(repr(expected))
    if isinstance(actual, Undecodable):
        return f"{where}: expected {show(expected)}, got {actual!r}"
    if isinstance(expected, ApproxDouble):
        return None if doubles_close(expected, actual) else f"{where}: expected {show(expected)} (a DOUBLE, within " \
            f"{DOUBLE_TOLERANCE}), got {show(actual)}"
    if expected is None or isinstance(expected, bool):
        if actual is expected:
            return None
        return f"{where}: expected {show(expected)}, got {show(actual)}"
    if isinstance(expected, int | Decimal):
        same = record_numbers_equal(expected, actual) if record else numbers_equal(expected, actual)
        return None if same else f"{where}: expected {show(expected)}, got {show(actual)}"
    if isinstance(expected, str):
        if isinstance(actual, bytes | bytearray):
            actual = base64.b64encode(actual).decode("ascii")
        if isinstance(actual, str) and actual == expected:
            return None
        if isinstance(actual, Decimal) and _decimal_text_equal(expected, actual):
            return None
        return f"{where}: expected {show(expected)}, got {show(actual)}"
    if isinstance(expected, list):
        if not isinstance(actual, list | tuple):
            return f"{where}: expected array {show(expected)}, got {show(actual)}"
        if len(actual) != len(expected):
            return f"{where}: expected {len(expected)} elements {show(expected)}, got {len(actual)} {show(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            d = value_diff(e, a, f"{path}[{i}]", record)
            if d:
                return d
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where}: expected object {show(expected)}, got {show(actual)}"
        differ = len(expected) != len(actual) if record else set(expected) != set(actual)
        if differ:
            missing = sorted(set(expected) - set(actual))
            extra = sorted(set(actual) - set(expected))
            return f"{where}: fields differ (missing {missing}, unexpected {extra}): expected {show(expected)}, got {show(actual)}"
        for k, e in expected.items():
            d = value_diff(e, actual.get(k), f"{path}.{k}" if path else k, record)
            if d:
                return d
        return None
    return f"{where}: cannot compare expected {show(expected)}"


def numbers_equal(expected: int | Decimal, actual: Any) -> bool:
    """The number rules of the module docstring."""
    if isinstance(actual, bool) or not isinstance(actual, int | float | Decimal):
        return False
    if isinstance(actual, float):
        return float(expected) == actual
    if _scientific(expected) or _scientific(actual):
        return float(expected) == float(actual)  # doubles; Java may print non-shortest digits
    if Decimal(expected) != Decimal(actual):
        return False
    if isinstance(actual, int) or _scale(expected) == _scale(actual):
        return True  # an actual JSON integer: value equality (see docstring)
    return _java_prints_scientific(actual)


def record_numbers_equal(expected: int | Decimal, actual: Any) -> bool:
    """An expected number against a record's actual value as ExpectedRecordComparator.compareNumber."""
    if isinstance(actual, bool) or not isinstance(actual, int):
        return numbers_equal(expected, actual)
    bits = _LONG_BITS if isinstance(actual, JavaLong) else _INT_BITS if _fits(actual, _INT_BITS) else \
        _LONG_BITS if _fits(actual, _LONG_BITS) else None
    if bits is None:
        return numbers_equal(expected, actual)  # a BigInteger (see the module docstring)
    if isinstance(expected, Decimal) and not expected.is_finite():
        return False
    return _wrap(int(expected), bits) == actual  # int() truncates toward zero, as BigDecimal.intValue


def _fits(n: int, bits: int) -> bool:
    return -(1 << (bits - 1)) <= n < 1 << (bits - 1)


def _wrap(n: int, bits: int) -> int:
    """The low ``bits`` bits of ``n`` as a two's complement number: Java's narrowing to int/long."""
    n &= (1 << bits) - 1
    return n - (1 << bits) if n >> (bits - 1) else n


def _decimal_text_equal(expected: str, actual: Decimal) -> bool:
    """ksqlDB accepts a DECIMAL expected as a string: ``new BigDecimal(text).equals(actual)``; text
    BigDecimal cannot read (blanks, ``_``, NaN) throws there, a failed case."""
    if not _BIGDECIMAL_TEXT.fullmatch(expected):
        return False
    want = Decimal(expected)
    return want == actual and _scale(want) == _scale(actual)


def _scientific(n: int | Decimal) -> bool:
    return isinstance(n, JsonNumber) and n.scientific


def _java_prints_scientific(n: Decimal) -> bool:
    magnitude = abs(n)
    return magnitude >= _JAVA_SCI_HIGH or (magnitude != 0 and magnitude < _JAVA_SCI_LOW)


def _scale(n: int | Decimal) -> int:
    if isinstance(n, int):
        return 0
    exponent = n.as_tuple().exponent
    return -exponent if isinstance(exponent, int) else 0


def show(value: Any, limit: int = 300) -> str:
    """A compact rendering of a spec or decoded value for failure messages."""
    try:
        text = exactjson.dumps(value)
    except TypeError:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------- records


def record_diff(expected: TestRecord, actual: ActualRecord, windowed: bool) -> Mismatch | None:
    """The first field of ``actual`` that does not match ``expected``."""
    d = value_diff(expected.key, actual.key, "key", record=True)
    if d:
        return Mismatch("key", d)
    if windowed or expected.window is not None:
        if not windowed:
            return Mismatch("window", f"window: expected {expected.window}, but the sink is not windowed")
        if expected.window is None:
            return Mismatch("window", f"window: sink is windowed ({actual.window}), expected record has none")
        if actual.window != expected.window:
            return Mismatch("window", f"window: expected {expected.window}, got {actual.window}")
    d = value_diff(expected.value, actual.value, "value", record=True)
    if d:
        return Mismatch("value", d)
    if expected.timestamp is not None and expected.timestamp != actual.timestamp:
        return Mismatch("timestamp", f"timestamp: expected {expected.timestamp}, got {actual.timestamp}")
    if expected.headers is not None:
        want = [header_to_spec(h) for h in expected.headers]
        got = [header_to_spec(h) for h in actual.headers or []]
        if want != got:
            return Mismatch("headers", f"headers: expected {show(want)}, got {show(got)}")
    return None


def show_expected(r: TestRecord) -> str:
    parts = [f"key={show(r.key)}", f"value={show(r.value)}"]
    if r.timestamp is not None:
        parts.append(f"ts={r.timestamp}")
    if r.window is not None:
        parts.append(f"window={r.window}")
    return "{" + ", ".join(parts) + "}"


def show_actual(r: ActualRecord) -> str:
    parts = [f"key={show(r.key)}", f"value={show(r.value)}", f"ts={r.timestamp}"]
    if r.window is not None:
        parts.append(f"window={r.window}")
    return "{" + ", ".join(parts) + "}"


# --------------------------------------------------------------------------- topics


def topic_diff(topic: str, expected: list[TestRecord], partitions: list[list[ActualRecord]],
               windowed: bool) -> Mismatch | None:
    """Compare all records of one sink topic against the expected records for it."""
    nonempty = [p for p in partitions if p]
    if len(nonempty) <= 1:
        return _sequence_diff(topic, expected, nonempty[0] if nonempty else [], windowed)
    total = sum(len(p) for p in nonempty)
    if total != len(expected):
        why = _explain(topic, expected, nonempty, windowed)
        return Mismatch("count", f"{topic}: expected {len(expected)} records, got {total} "
                        f"across {len(nonempty)} partitions" + (f"; {why.message}" if why else ""))
    if _interleaves(expected, [list(p) for p in nonempty], windowed):
        return None
    why = _explain(topic, expected, nonempty, windowed)
    detail = f": {why.message}" if why else ""
    return Mismatch("order", f"{topic}: records do not match the expected ones in per-partition order "
                    f"(partitions: {[len(p) for p in nonempty]}){detail}")


def _explain(topic: str, expected: list[TestRecord], parts: list[list[ActualRecord]],
             windowed: bool) -> Mismatch | None:
    """Where a comparison across partitions fails, for the message: each expected record is given to the
    partition holding a record of its key, then each partition is compared in order."""
    mine: list[list[TestRecord]] = [[] for _ in parts]
    for e in expected:
        p = next((i for i, part in enumerate(parts) if any(value_diff(e.key, a.key, record=True) is None for a in part)), None)
        if p is None:
            return Mismatch("key", f"no record has the key of {show_expected(e)}")
        mine[p].append(e)
    for i, part in enumerate(parts):
        m = _sequence_diff(f"{topic} (partition of key {show(part[0].key)})", mine[i], part, windowed)
        if m:
            return m
    return None


def _sequence_diff(topic: str, expected: list[TestRecord], actual: list[ActualRecord],
                   windowed: bool) -> Mismatch | None:
    for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
        m = record_diff(e, a, windowed)
        if m:
            return Mismatch(m.field, f"{topic} record {i + 1}/{len(expected)}: {m.message}"
                            f" (expected {show_expected(e)}, got {show_actual(a)})")
    if len(actual) < len(expected):
        e = expected[len(actual)]
        return Mismatch("count", f"{topic}: expected {len(expected)} records, got {len(actual)};"
                        f" first missing: {show_expected(e)}")
    if len(actual) > len(expected):
        a = actual[len(expected)]
        return Mismatch("count", f"{topic}: expected {len(expected)} records, got {len(actual)};"
                        f" first extra: {show_actual(a)}")
    return None


def _interleaves(expected: list[TestRecord], parts: list[list[ActualRecord]], windowed: bool) -> bool:
    """Is ``expected`` some interleaving of the partitions' sequences? (DFS with memo on positions)."""
    failed: set[tuple[int, ...]] = set()

    def search(pos: tuple[int, ...], done: int) -> bool:
        if done == len(expected):
            return True
        if pos in failed:
            return False
        for p, i in enumerate(pos):
            if i < len(parts[p]) and record_diff(expected[done], parts[p][i], windowed) is None:
                nxt = pos[:p] + (i + 1,) + pos[p + 1 :]
                if search(nxt, done + 1):
                    return True
        failed.add(pos)
        return False

    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, len(expected) + 100))
    try:
        return search(tuple(0 for _ in parts), 0)
    finally:
        sys.setrecursionlimit(limit)
