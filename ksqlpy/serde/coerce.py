"""Coercion of parsed JSON values into SQL values, as ksqlDB's JSON deserializer does it.

ksqlDB reads JSON with Jackson in exact-decimal mode and then coerces each node to the column type:

=========== ==================================================================================
target      accepted JSON (anything else is an error naming the field)
=========== ==================================================================================
BOOLEAN     true / false only
INT, BIGINT numbers (fractions truncated toward zero, out-of-range wraps like Java's intValue /
            longValue), strings holding a plain integer
DOUBLE      numbers (their BigDecimal's double: no negative zero, ``-0.0`` is ``0.0``), strings
            parseable as a double (``"-0.0"`` stays negative)
STRING      strings; numbers as their BigDecimal text (no negative zero: -0.0 is ``0.0``); booleans as
            ``true``/``false``; objects as compact JSON text; arrays as ``[e1, e2]`` of their elements'
            string forms
DECIMAL     numbers (exact literal), numeric strings; must fit without rounding (an error when a digit
            past the scale is not zero, or the integer part does not fit the precision)
TIMESTAMP,  numbers (epoch ms, ms of day), strings holding an integer
TIME
DATE        numbers (days since epoch), strings holding an integer
BYTES       base64 strings
ARRAY, MAP  arrays / objects, elements coerced recursively (MAP keys are strings in JSON)
STRUCT      objects; fields matched case-insensitively the way ksqlDB does (below); missing -> null
=========== ==================================================================================

Struct field matching (ksqlDB's ``KsqlJsonDeserializer``, reference 4.2): a field is looked up by its exact
name among the object's keys, and if absent among the keys upper-cased (the last key wins when several
upper-case to the same name). Unquoted column names are upper-case, so ``{"id": 1}`` fills column ``ID``
(and ``{"ID": 1, "id": 2}`` reads 1); a quoted ``"id"`` column only matches the exact key ``id``.

orjson parses numbers to float, losing literal digits. Converters that need the literal (DECIMAL from a
float with more than 15 significant digits, STRING from a float) raise ``NeedExact``; the caller then
re-parses that one record with exact decimals (stdlib json, ``parse_float=Decimal``) and converts again.
"""

from __future__ import annotations

import base64
import binascii
import decimal
import re
from collections.abc import Callable
from typing import Any

import orjson

from ksqlpy import javatext
from ksqlpy.serde.base import FormatRuleError, SerdeError
from ksqlpy.serde.formats import type_text
from ksqlpy.types import Array, Decimal, Map, SqlType, Struct

Converter = Callable[[Any], Any]
_D = decimal.Decimal
_CTX = decimal.Context(prec=1000, rounding=decimal.ROUND_HALF_UP)


class NeedExact(Exception):
    """A value's literal text is needed: re-parse the record with exact decimals."""


class MissingNode:
    """What Jackson's ``readTree`` gives for a record with no JSON in it (zero bytes or only blanks) since
    2.10: not null, so ksqlDB coerces it like any node - a STRING is its text ``""``, anything else fails
    (``Can't convert type. sourceType: MissingNode, ...``)."""

    __slots__ = ()


MISSING = MissingNode()


# -- messages

def node_name(v: Any) -> str:
    """The Jackson node type ksqlDB's messages name for a parsed JSON value."""
    c = v.__class__
    if c is bool:
        return "BooleanNode"
    if c is int:
        return "IntNode" if -(2**31) <= v < 2**31 else "LongNode" if -(2**63) <= v < 2**63 else "BigIntegerNode"
    if c is float:  # Jackson reads a fraction or exponent as a BigDecimal (USE_BIG_DECIMAL_FOR_FLOATS)
        return "DecimalNode"
    if c is _D:
        return "DecimalNode"
    if c is str:
        return "TextNode"
    if c is list:
        return "ArrayNode"
    if c is dict:
        return "ObjectNode"
    return c.__name__


def json_text(v: Any) -> str:
    """A parsed JSON value written back as compact JSON (decimals keep their literal digits)."""
    try:
        return orjson.dumps(v, default=_dump_default).decode()
    except TypeError:
        return repr(v)


def _dump_default(o: Any) -> Any:
    if isinstance(o, _D):  # Jackson writes the BigDecimal's toString: no negative zero
        return orjson.Fragment(javatext.decimal_to_string(o))
    if isinstance(o, bytes | bytearray | memoryview):
        return base64.b64encode(o).decode("ascii")
    raise TypeError(f"Type is not JSON serializable: {type(o).__name__}")


_PATH_PART = re.compile(r"\.[^.\[]*|\[\d+\]")


class CoercionError(SerdeError):
    """A JSON value that does not coerce to its column's type, with where it is, as ksqlDB's
    ``CoercionException`` says it: ``<reason>, path: $.FIELD[i].KEY.value`` (``$`` the record, ``.F`` a
    field, ``[i]`` an array element, ``.k.key`` / ``.k.value`` a map entry). The value itself is not in
    the message (ksqlDB keeps data out of it)."""

    def __init__(self, reason: str, path: str) -> None:
        super().__init__(f"{reason}, path: ${path}")
        self.reason = reason
        self.path = path

    def causes(self) -> list[str]:
        """The messages of the exception chain ksqlDB's reader builds under its top message: one
        ``CoercionException`` per level of the path (``$.S.X``, ``.S.X``, ``.X``), then the reason."""
        parts = _PATH_PART.findall(self.path)
        levels = ["$" + "".join(parts)] + ["".join(parts[i:]) for i in range(len(parts))]
        return [f"{self.reason}, path: {p}" for p in levels] + [self.reason]

    def at(self, static: str, actual: str) -> CoercionError:
        """This error with the path's ``static`` prefix (as compiled, ``A[]``) replaced by ``actual``
        (``A[3]``): an array or map fills in the element it was converting."""
        return CoercionError(self.reason, actual + self.path[len(static):])


def cannot_convert(v: Any, t: SqlType, path: str) -> CoercionError:
    if v.__class__ is float:  # orjson's float: a DecimalNode, or a BigIntegerNode past 64 bits - the literal says
        raise NeedExact
    return CoercionError(f"Can't convert type. sourceType: {node_name(v)}, requiredType: {type_text(t)}", path)


def _bad_string(v: str, t: SqlType, path: str) -> CoercionError:
    return CoercionError(f"Can't coerce string to type. targetType: {type_text(t)}", path)


# -- numbers

def wrap32(n: int) -> int:
    """Java's int overflow: keep the low 32 bits, signed."""
    n &= 0xFFFFFFFF
    return n - 0x100000000 if n & 0x80000000 else n


def wrap64(n: int) -> int:
    n &= 0xFFFFFFFFFFFFFFFF
    return n - 0x10000000000000000 if n & 0x8000000000000000 else n


def parse_java_int(s: str, lo: int, hi: int) -> int | None:
    """``Integer.parseInt`` / ``Long.parseLong``: optional sign then digits, in range; else None."""
    body = s[1:] if s[:1] in ("+", "-") else s
    if not body.isdecimal():
        return None
    try:
        n = int(s)
    except ValueError:
        return None
    return n if lo <= n <= hi else None


def parse_java_double(s: str) -> float | None:
    """``Double.parseDouble`` (``javatext.parse_double``, the one rule CAST follows too); None if it fails."""
    try:
        return javatext.parse_double(s)
    except ValueError:
        return None


def significant_digits(f: float) -> int:
    m = repr(f).lstrip("-").split("e")[0].replace(".", "")
    return len(m.lstrip("0")) or 1


def fit_decimal(d: decimal.Decimal, t: Decimal, path: str | None = None) -> decimal.Decimal:
    """ksqlDB's ``DecimalUtil.ensureFit``: an error if the integer part overflows, or if the value has more
    decimal places than the type other than trailing zeros (it is never rounded)."""
    if not d.is_finite():
        raise _failure(f"Invalid DECIMAL value {d}", path)
    digits = t.precision - t.scale
    if d.copy_abs() >= _D(10) ** digits:  # (abs() would round to the default context's 28 digits)
        raise _failure(
            f"Numeric field overflow: A field with precision {t.precision} and scale {t.scale} must round "
            f"to an absolute value less than 10^{digits}. Got {format(d, 'f')}", path)
    q = d.quantize(_D(1).scaleb(-t.scale), context=_CTX)
    if q != d:
        sign, digits, exponent = d.as_tuple()
        scale = -int(exponent)
        raise _failure(
            f"Cannot fit decimal '{format(d, 'f')}' into DECIMAL({t.precision}, {t.scale}) without rounding. "
            f"(Requires {len(digits)},{scale})", path)
    return q.copy_abs() if q.is_zero() else q  # BigDecimal has no negative zero: -0.00 reads as 0.00


def _failure(reason: str, path: str | None) -> SerdeError:
    """A JSON coercion failure at ``path`` (a ``CoercionError``); without a path (another format's reader,
    e.g. DELIMITED) just the reason."""
    return SerdeError(reason) if path is None else CoercionError(reason, path)


def decimal_from_text(s: str) -> decimal.Decimal | None:
    """``new BigDecimal(s)`` (``javatext.parse_big_decimal``): finite numbers only, no blanks or underscores."""
    try:
        return javatext.parse_big_decimal(s)
    except ValueError:
        return None


# -- converters

def json_converter(t: SqlType, path: str = "") -> Converter:
    """A function coercing one parsed JSON value (orjson or exact-decimal stdlib) to type ``t``."""
    name = t.name
    if isinstance(t, Decimal):
        return _decimal_conv(t, path)
    if isinstance(t, Array):
        return _array_conv(t, path)
    if isinstance(t, Map):
        return _map_conv(t, path)
    if isinstance(t, Struct):
        return _struct_conv(t, path)
    factory = _PRIMITIVES.get(name)
    if factory is None:
        raise ValueError(f"JSON cannot carry type {t}")
    return factory(t, path)


def _bool_conv(t: SqlType, path: str) -> Converter:
    def conv(v: Any) -> Any:
        if v is None or v.__class__ is bool:
            return v
        raise cannot_convert(v, t, path)
    return conv


def _integral_conv(bits: int) -> Callable[[SqlType, str], Converter]:
    lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    wrap = wrap32 if bits == 32 else wrap64

    def factory(t: SqlType, path: str) -> Converter:
        def conv(v: Any) -> Any:
            c = v.__class__
            if c is int:
                return v if lo <= v <= hi else wrap(v)
            if v is None:
                return None
            if c is float or c is _D:
                if v != v or v in (float("inf"), float("-inf")):
                    raise cannot_convert(v, t, path)
                if c is float and v.is_integer():
                    # orjson's double of an integer past 64 bits, or of 1.99999999999999999: Jackson truncates
                    # the literal itself (BigInteger/BigDecimal intValue / longValue)
                    raise NeedExact
                return wrap(int(v))
            if c is str:
                n = parse_java_int(v, lo, hi)
                if n is None:
                    raise _bad_string(v, t, path)
                return n
            raise cannot_convert(v, t, path)
        return conv
    return factory


MS_PER_DAY = 86_400_000


def _time_conv(t: SqlType, path: str) -> Converter:
    """A TIME is milliseconds of the day: ksqlDB's JSON reader refuses a number outside [0, 86400000]."""
    ms = _integral_conv(64)(t, path)

    def conv(v: Any) -> Any:
        n = ms(v)
        if n is not None and not 0 <= n <= MS_PER_DAY:
            raise CoercionError("Time values must use number of milliseconds greater than 0 and less than "
                                "86400000.", path)
        return n
    return conv


def _double_conv(t: SqlType, path: str) -> Converter:
    """A JSON number is a BigDecimal to ksqlDB (``doubleValue()`` of it): a zero literal has no sign, so
    ``-0.0`` reads as ``0.0``; a negative number too small for a double still reads as ``-0.0``
    (``-1e-400``); a string goes through ``Double.parseDouble`` and keeps its sign (``"-0.0"``)."""
    def conv(v: Any) -> Any:
        c = v.__class__
        if c is float:
            if v == 0.0 and str(v)[0] == "-":
                raise NeedExact  # orjson's -0.0: the literal -0.0 (0.0) or an underflow (-0.0)
            return v
        if v is None:
            return None
        if c is int:
            return float(v)
        if c is _D:
            return 0.0 if v.is_zero() else float(v)
        if c is str:
            f = parse_java_double(v)
            if f is None:
                raise _bad_string(v, t, path)
            return f
        raise cannot_convert(v, t, path)
    return conv


def _has_float(v: Any) -> bool:
    c = v.__class__
    if c is float:
        return True
    if c is dict:
        return any(_has_float(x) for x in v.values())
    if c is list:
        return any(_has_float(x) for x in v)
    return False


def _string_conv(t: SqlType, path: str) -> Converter:
    def conv(v: Any) -> Any:
        c = v.__class__
        if c is str or v is None:
            return v
        if c is bool:
            return "true" if v else "false"
        if c is int:
            return str(v)
        if c is _D:  # the number's BigDecimal text: -0.0 reads as 0.0 (a BigDecimal has no negative zero)
            return javatext.decimal_to_string(v)
        if c is float:
            raise NeedExact
        if c is dict:
            if _has_float(v):
                raise NeedExact
            return json_text(v)
        if c is list:
            return "[" + ", ".join("null" if e is None else conv(e) for e in v) + "]"
        if c is MissingNode:
            return ""
        raise cannot_convert(v, t, path)
    return conv


def _decimal_conv(t: Decimal, path: str) -> Converter:
    def conv(v: Any) -> Any:
        c = v.__class__
        if v is None:
            return None
        if c is float:
            # the exact text when the float may have lost digits: more than 15 significant ones, 0.0 (maybe
            # orjson's underflow of 1e-400), or a magnitude from 2^63 up (orjson reads an integer outside
            # the 64-bit range as a float: 99999999999999999999999999999999999999 as 1e38)
            if significant_digits(v) > 15 or not v or not -9.2e18 < v < 9.2e18:
                raise NeedExact
            try:
                return fit_decimal(_D(repr(v)), t, path)
            except SerdeError:  # the message shows the literal (toPlainString, its precision and scale):
                raise NeedExact from None  # 12.3450 and 1e3, not the double's 12.345 and 1000.0
        if c is int or c is _D:
            return fit_decimal(_D(v), t, path)
        if c is str:
            d = decimal_from_text(v)
            if d is None:
                raise _bad_string(v, t, path)
            return fit_decimal(d, t, path)
        raise cannot_convert(v, t, path)
    return conv


def _bytes_conv(t: SqlType, path: str) -> Converter:
    def conv(v: Any) -> Any:
        if v is None:
            return None
        if v.__class__ is str:
            try:
                return base64.b64decode(v, validate=True)
            except (binascii.Error, ValueError):
                raise CoercionError(f"Value is not a valid Base64 encoded string: {v}", path) from None
        raise cannot_convert(v, t, path)
    return conv


def _array_conv(t: Array, path: str) -> Converter:
    static = f"{path}[]"
    ce = json_converter(t.element, static)

    def conv(v: Any) -> Any:
        if v.__class__ is list:
            try:
                return [ce(e) for e in v]
            except CoercionError as e:
                i = next(i for i, x in enumerate(v) if _fails(ce, x))
                raise e.at(static, f"{path}[{i}]") from None
        if v is None:
            return None
        raise cannot_convert(v, t, path)
    return conv


def _map_conv(t: Map, path: str) -> Converter:
    if t.key.name != "STRING":
        raise FormatRuleError("JSON only supports MAP types with STRING keys")
    static = f"{path}{{}}"
    cv = json_converter(t.value, static)

    def conv(v: Any) -> Any:
        if v.__class__ is dict:
            try:
                return {k: cv(x) for k, x in v.items()}
            except CoercionError as e:
                k = next(k for k, x in v.items() if _fails(cv, x))
                raise e.at(static, f"{path}.{k}.value") from None
        if v is None:
            return None
        raise cannot_convert(v, t, path)
    return conv


def _fails(conv: Converter, v: Any) -> bool:
    """Whether converting ``v`` fails (finds the element an array or map failed at; errors are rare)."""
    try:
        conv(v)
    except CoercionError:
        return True
    return False


def fast_names(names: list[str]) -> frozenset[str] | None:
    """The field-name set for the exact-keys fast path, or None if the path would be wrong.

    When every key of an object is exactly a field name, a plain ``get`` per field gives ksqlDB's
    result - unless two field names upper-case alike (then the upper-casing rule can pick another key).
    """
    uppers = [n.upper() for n in names]
    return frozenset(names) if len(set(uppers)) == len(uppers) else None


def upper_keys(obj: dict) -> dict:
    """The object with upper-cased keys (later keys win), ksqlDB's case-insensitive lookup table."""
    return {k.upper(): x for k, x in obj.items()}


def _struct_conv(t: Struct, path: str) -> Converter:
    names = [n for n, _ in t.fields]
    convs = [json_converter(ft, f"{path}.{n}") for n, ft in t.fields]
    pairs = list(zip(names, convs, strict=True))
    fast = fast_names(names)

    def conv(v: Any) -> Any:
        if v.__class__ is dict:
            if fast is not None and v.keys() <= fast:
                g = v.get
                return {n: c(g(n)) for n, c in pairs}
            u = upper_keys(v)
            return {n: c(v[n] if n in v else u.get(n)) for n, c in pairs}
        if v is None:
            return None
        raise cannot_convert(v, t, path)
    return conv


_PRIMITIVES: dict[str, Callable[[SqlType, str], Converter]] = {
    "BOOLEAN": _bool_conv,
    "INTEGER": _integral_conv(32),
    "BIGINT": _integral_conv(64),
    "DOUBLE": _double_conv,
    "STRING": _string_conv,
    "BYTES": _bytes_conv,
    "DATE": _integral_conv(32),
    "TIME": _time_conv,
    "TIMESTAMP": _integral_conv(64),
}


def json_default(o: Any) -> Any:
    """orjson ``default`` for writing SQL values: DECIMAL as a number with its scale, BYTES as base64."""
    return _dump_default(o)


# -- writing doubles as Jackson does

def nonfinite_text(x: float) -> str:
    """How ksqlDB's JSON writer (Jackson, QUOTE_NON_NUMERIC_NUMBERS) writes NaN and infinities."""
    return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")


# Double.toString writes a magnitude in [1e-3, 1e7) as orjson does (shortest digits, a point); outside it
# with an exponent where orjson writes none or another form: 1.0E10 / 10000000000.0, 1.0E-5 / 0.00001, 1.0E20 / 1e+20
PLAIN_LOW, PLAIN_HIGH = 1e-3, 1e7


def java_double(x: Any) -> Any:
    """A DOUBLE as ksqlDB's JSON writer writes it (Connect's JsonConverter, a Jackson ``DoubleNode``):
    ``Double.toString`` - ``1.0E10``, ``1.0E-5`` - and NaN/Infinity as strings; what orjson writes the same
    way (zero, [1e-3, 1e7)) is returned unchanged."""
    if not x or PLAIN_LOW <= abs(x) < PLAIN_HIGH:
        return x
    if x - x != 0:
        return nonfinite_text(x)
    return orjson.Fragment(javatext.double_to_string(float(x)))


def _plain(x: Any) -> bool:
    return x is None or not x or PLAIN_LOW <= abs(x) < PLAIN_HIGH  # (NaN and infinities are not)


def nonfinite_fixer(t: SqlType) -> Converter | None:
    """A function writing the DOUBLEs inside a value of type ``t`` as ksqlDB does (``java_double``: NaN and
    infinities as strings, ``Double.toString``'s exponent forms), or None if ``t`` holds no DOUBLE. Values
    with nothing to change pass unchanged."""
    if t.name == "DOUBLE":
        return lambda x: x if _plain(x) else java_double(x)
    if isinstance(t, Array):
        fe = nonfinite_fixer(t.element)
        if fe is None:
            return None
        if t.element.name == "DOUBLE":
            def fix_doubles(v: Any) -> Any:
                if v is None or all(map(_plain, v)):
                    return v
                return [fe(x) for x in v]
            return fix_doubles
        return lambda v: None if v is None else [fe(x) for x in v]
    if isinstance(t, Map):
        fv = nonfinite_fixer(t.value)
        if fv is None:
            return None
        return lambda v: None if v is None else {k: fv(x) for k, x in v.items()}
    if isinstance(t, Struct):
        fixers = [(n, nonfinite_fixer(ft)) for n, ft in t.fields]
        todo = [(n, f) for n, f in fixers if f is not None]
        if not todo:
            return None

        def fix_struct(v: Any) -> Any:
            if v is None:
                return v
            out = dict(v)
            for n, f in todo:
                if n in out:
                    out[n] = f(out[n])
            return out
        return fix_struct
    return None
