"""Java strings are sequences of UTF-16 units; Python strings are sequences of code points. ksqlDB's string
functions index, split and mask by unit, so a character outside the BMP (an emoji) is two positions and can be
cut in half. A value here is the Python string of the same units: valid surrogate pairs joined into one code
point, a unit left alone by a cut kept as a lone surrogate (Python allows them), so that re-joining the halves
(CONCAT, padding) gives the character back, as in Java. Sinks decide what a lone surrogate becomes: Jackson's
JSON writer escapes it (``\\ud83d``), every other writer (``String.getBytes(UTF_8)``) writes '?'.
"""

from __future__ import annotations

import codecs
import re

SURROGATE = re.compile("[\ud800-\udfff]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def has_astral(s: str) -> bool:
    """True when ``s`` holds a character outside the BMP (two UTF-16 units in Java)."""
    return not s.isascii() and _ASTRAL.search(s) is not None


def has_surrogate(s: str) -> bool:
    """True when ``s`` holds a lone surrogate (half of a character cut by a unit-indexed function)."""
    return not s.isascii() and SURROGATE.search(s) is not None


def as_units(s: str) -> str:
    """``s`` with each character outside the BMP as its two surrogates: one Python index per UTF-16 unit."""
    if not has_astral(s):
        return s
    return "".join(c if ord(c) <= 0xFFFF else _pair(ord(c)) for c in s)


def _pair(code: int) -> str:
    code -= 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def joined(s: str) -> str:
    """The canonical value of a unit sequence: each high surrogate followed by a low one joined into its
    character; lone surrogates stay. Concatenating the halves of a cut character gives it back."""
    if not has_surrogate(s):
        return s
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def code_point_at(units: str, i: int) -> int:
    """``String.codePointAt(i)`` over a unit string: a high surrogate followed by a low one is their
    character, any other unit itself."""
    c = ord(units[i])
    if 0xD800 <= c <= 0xDBFF and i + 1 < len(units):
        d = ord(units[i + 1])
        if 0xDC00 <= d <= 0xDFFF:
            return 0x10000 + ((c - 0xD800) << 10) + (d - 0xDC00)
    return c


def utf8(s: str) -> bytes:
    """``String.getBytes(UTF_8)``: a lone surrogate has no UTF-8 form and is written as '?'."""
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        return s.encode("utf-8", "replace")



def _java_utf8_replace(e: UnicodeError) -> tuple[str, int]:
    """Java's decoder reads a 3-byte sequence encoding a surrogate (ED A0..BF 80..BF, CESU-8) as one
    malformed character; Python, by maximal subparts, as three. Everything else is replaced alike."""
    assert isinstance(e, UnicodeDecodeError)
    b, i = e.object, e.start
    if b[i] == 0xED and i + 2 < len(b) and 0xA0 <= b[i + 1] <= 0xBF and 0x80 <= b[i + 2] <= 0xBF:
        return "\ufffd", i + 3
    return "\ufffd", e.end


JAVA_UTF8 = "ksqlpy.java_utf8"  # the error handler's name: ``bytes.decode("utf-8", JAVA_UTF8)`` (C speed on valid input)
codecs.register_error(JAVA_UTF8, _java_utf8_replace)


def from_utf8(b: bytes) -> str:
    """``new String(bytes, UTF_8)``: malformed input becomes U+FFFD as Java's decoder replaces it."""
    return b.decode("utf-8", JAVA_UTF8)


def order_key(s: str) -> bytes:
    """A key ordering strings as ``String.compareTo`` does: by UTF-16 unit, so a character outside the BMP
    (its high unit from U+D800) sorts below U+E000-U+FFFF, where Python's code point order puts it above."""
    return s.encode("utf-16-be", "surrogatepass")


def compare(a: str, b: str) -> int:
    """``a.compareTo(b)``'s sign. When either side is ASCII the code point order is the unit order (the two
    only differ between a character outside the BMP and one from U+E000), so Python compares directly."""
    if a.isascii() or b.isascii():
        return (a > b) - (a < b)
    ka, kb = order_key(a), order_key(b)
    return (ka > kb) - (ka < kb)
