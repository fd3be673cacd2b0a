"""Text forms of values exactly as Java (and so ksqlDB) writes them: one place for the serdes, CAST and the
functions.

DELIMITED values and number-to-string coercions are compared as text by the conformance tests, so
``1e10`` must read ``1.0E10`` and ``-4.9E-324`` must survive, as with ``Double.toString``;
DECIMALs are written like ``BigDecimal.toPlainString``.
"""

from __future__ import annotations

import decimal
import math
import re
from typing import Any


def double_to_string(x: float) -> str:
    """Java's ``Double.toString``: shortest round-trip digits, plain for 1e-3 <= |x| < 1e7, else
    computerized scientific notation (``1.0E10``, ``4.9E-324``)."""
    if 1e-3 <= x < 1e7 or -1e7 < x <= -1e-3:
        r = repr(x)  # plain notation with a fraction digit, as Java, in this range
        if "e" not in r:
            return r
    if x != x:
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign = "-" if x < 0 else ""
    ax = -x if x < 0 else x
    r = repr(ax)  # shortest digits that round-trip
    if 1e-3 <= ax < 1e7:
        if "e" in r:  # repr uses exponents below 1e-4; Java does not down to 1e-3
            r = format(decimal.Decimal(r), "f")
        if "." not in r:
            r += ".0"
        return sign + r
    digits, exp = _digits_exponent(r)
    if len(digits) == 1 and digits != "0":
        # Java prints at least two digits and picks the two-digit decimal closest to the exact value
        # (so the smallest subnormal is 4.9E-324, not 5.0E-324).
        m, e = format(decimal.Decimal(ax), ".1e").split("e")
        digits, exp = m.replace(".", ""), int(e)
    frac = digits[1:].rstrip("0") or "0"
    return f"{sign}{digits[0]}.{frac}E{exp}"


def _digits_exponent(r: str) -> tuple[str, int]:
    """Significant digits and decimal exponent (of the first digit) of a positive repr string."""
    t = decimal.Decimal(r).as_tuple()
    digits = "".join(map(str, t.digits)).lstrip("0") or "0"
    exp = len(t.digits) + int(t.exponent) - 1  # type: ignore[arg-type]
    return digits, exp


def decimal_to_plain(d: decimal.Decimal) -> str:
    """``BigDecimal.toPlainString``: never an exponent, trailing zeros of the scale kept, no negative zero."""
    if d.is_zero() and d.is_signed():
        d = d.copy_abs()
    return format(d, "f")


def decimal_to_string(d: decimal.Decimal) -> str:
    """``BigDecimal.toString`` (Python's ``str`` follows the same specification, minus negative zero)."""
    if d.is_zero() and d.is_signed():
        d = d.copy_abs()
    return str(d)


def java_str(v: Any) -> str:
    """String.valueOf for a SQL value: ``null``, ``true``, Java number formats, lists and maps Java-style."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, float):
        return double_to_string(v)
    if isinstance(v, decimal.Decimal):
        return decimal_to_string(v)
    if isinstance(v, list):
        return "[" + ", ".join(java_str(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{java_str(k)}={java_str(x)}" for k, x in v.items()) + "}"
    if isinstance(v, bytes):
        return f"java.nio.HeapByteBuffer[pos=0 lim={len(v)} cap={len(v)}]"
    return str(v)


def struct_str(v: dict) -> str:
    """Kafka Connect ``Struct.toString``, which ksqlDB shows for CAST(struct AS STRING)."""
    return "Struct{" + ",".join(f"{k}={java_str(x)}" for k, x in v.items() if x is not None) + "}"


# ``Double.parseDouble``'s grammar (FloatingDecimal.readJavaFormatString): an optional sign, then NaN, Infinity,
# a decimal number (digits with an optional point - ``5.``, ``.5`` - and exponent) or a hexadecimal one (which
# needs its binary exponent ``p``), the last two with an optional ``f``/``d`` type suffix. ASCII digits only.
_JAVA_DOUBLE = re.compile(
    r"(?P<sign>[+-]?)(?:(?P<nan>NaN)|(?P<inf>Infinity)"
    r"|(?P<hex>0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)[fFdD]?"
    r"|(?P<dec>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?)",
    re.ASCII,
)
_JAVA_BLANKS = "".join(chr(i) for i in range(33))  # what String.trim removes: every char up to ' '


def java_trim(text: str) -> str:
    """``String.trim()``: strips every character <= U+0020 from both ends - not Unicode spaces such as
    U+00A0, which Python's ``str.strip()`` would take too. ksqlDB trims text so before reading a value."""
    return text.strip(_JAVA_BLANKS)


def parse_double(text: str) -> float:
    """``Double.parseDouble(text)``, the rule wherever ksqlDB reads a DOUBLE from text (CAST, the value formats
    that coerce strings): ``NaN``, ``Infinity``, ``-Infinity``, ``1e5``, ``.5``, ``5.``, ``0x1.8p1``, ``2d``,
    surrounding blanks. Raises ValueError with Java's NumberFormatException message otherwise."""
    t = text.strip(_JAVA_BLANKS)
    m = _JAVA_DOUBLE.fullmatch(t)
    if m is None:
        raise ValueError("empty String" if not t else f'For input string: "{t}"')
    negative = m["sign"] == "-"
    if m["nan"]:
        return math.nan
    if m["inf"]:
        return -math.inf if negative else math.inf
    if m["hex"]:
        try:
            return float.fromhex(m["sign"] + m["hex"])
        except OverflowError:  # Java rounds a too-large hexadecimal value to infinity, as a decimal one
            return -math.inf if negative else math.inf
    return float(m["sign"] + m["dec"])


# digits are any Unicode decimal digits: BigDecimal reads them with Character.digit (Double.parseDouble does not)
_BIG_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def parse_big_decimal(text: str) -> decimal.Decimal:
    """``new BigDecimal(text)``: an optional sign, digits with an optional point, an optional exponent (``1e3``,
    ``+5``, ``.5``, ``5.``); no blanks, underscores, NaN or Infinity. Raises ValueError otherwise."""
    if _BIG_DECIMAL.fullmatch(text) is None:
        raise ValueError(f"Cannot parse '{text}' as a BigDecimal")
    return decimal.Decimal(text)


_B64_ALPHABET = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def base64_decode(text: str) -> bytes:
    """Java's ``Base64.getDecoder().decode``: padding is optional, but a final unit of one character, padding
    of the wrong length, anything after the padding or a character outside the alphabet (whitespace included)
    raises ``ValueError``."""
    import base64

    raw = text.encode("latin-1", "replace") if text.isascii() else None
    if raw is None:
        raise ValueError(f"Illegal base64 character in '{text}'")
    body = raw.rstrip(b"=")
    pad = len(raw) - len(body)
    if any(c not in _B64_ALPHABET for c in body):
        raise ValueError(f"Illegal base64 character in '{text}'")
    tail = len(body) % 4
    if tail == 1 or (pad and (tail == 0 or pad != 4 - tail)):
        raise ValueError(f"Input byte array has wrong 4-byte ending unit: '{text}'")
    return base64.b64decode(body + b"=" * (-len(body) % 4), validate=True)
