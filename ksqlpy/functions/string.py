"""STRING scalar functions with ksqlDB's edge behaviour: 1-based positions with negative positions counted
from the end, NULL-skipping CONCAT, Java's TRIM (every char <= U+0020), Guava-style SPLIT, LPAD/RPAD that return
NULL for empty padding, Oracle-style INSTR, and ENCODE/TO_BYTES/FROM_BYTES over hex, utf8, ascii and base64.
Lengths, positions, SPLIT by '' and the masks work by UTF-16 unit, as Java's String does (see ``ksqlpy.utf16``):
a character outside the BMP is two units and can be cut in half."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import unicodedata
import uuid
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ksqlpy import javatext, utf16
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import FunctionError, Overload, java_primitives, registrar

CATEGORY = "STRING"

# ------------------------------------------------------------------------------------------ simple


def _lcase(s: str) -> str:
    return s.lower()


def _ucase(s: str) -> str:
    return s.upper()


_trim = javatext.java_trim  # String.trim(): every character <= U+0020 from both ends (not Unicode spaces)


_INITCAP_WORD = re.compile(r"[^ \t\n\x0b\f\r]+[ \t\n\x0b\f\r]*")


def _initcap(s: str) -> str:
    """Capitalises each word and lower-cases the rest; leading whitespace is dropped, as in ksqlDB. ksqlDB
    upper-cases ``part.substring(0, 1)``, one UTF-16 unit: a word starting outside the BMP keeps its case."""
    return "".join((w[0].upper() if ord(w[0]) <= 0xFFFF else w[0]) + w[1:]
                   for w in _INITCAP_WORD.findall(s.lower()))


def _len_str(s: str) -> int:
    """String.length(): UTF-16 code units, so a character outside the BMP counts twice."""
    if s.isascii():
        return len(s)
    return len(s) + sum(1 for c in s if ord(c) > 0xFFFF)


def _concat(*args: Any) -> Any:
    return utf16.joined("".join(a for a in args if a is not None))


def _concat_bytes(*args: Any) -> bytes:
    return b"".join(a for a in args if a is not None)


def _concat_ws(*args: Any) -> Any:
    """ksqlDB's CONCAT_WS is one variadic parameter: a call with a separator alone resolves, and fails for
    that record (NULL plus a processing-log entry)."""
    if len(args) < 2:
        raise FunctionError("Function Concat_WS expects at least two input arguments.")
    sep = args[0]
    if sep is None:
        return None
    out = sep.join(a for a in args[1:] if a is not None)
    return utf16.joined(out) if isinstance(out, str) else out


def _elt(n: int, *args: Any) -> Any:
    """ksqlDB's ``elt(int n, String... args)``: n is a Java ``int`` (``java_primitives``)."""
    if n < 1 or n > len(args):
        return None
    return args[n - 1]


def _field(s: Any, *args: Any) -> int:
    if s is None:
        return 0
    for i, a in enumerate(args):
        if a == s:
            return i + 1
    return 0


def _chr_int(code: int) -> Any:
    """Character.toChars of a valid code point (0 to 0x10FFFF), else NULL."""
    if code < 0 or code > 0x10FFFF:
        return None
    return chr(code)


def _chr_str(code: str) -> Any:
    """CHR('\\u004b'): text of at least 6 characters starting with a UTF-16 escape, unescaped as Java
    source (commons-text ``unescapeJava``: every escape of the text, surrogate pairs joined)."""
    if len(code) < 6 or not code.startswith("\\u"):
        return None
    return unescape_java(code)


_JAVA_CTRL = {"b": 0x08, "t": 0x09, "n": 0x0A, "f": 0x0C, "r": 0x0D, "\\": 0x5C, '"': 0x22, "'": 0x27}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def unescape_java(s: str) -> str:
    """commons-text ``StringEscapeUtils.unescapeJava``: ``\\uXXXX`` (any number of ``u``, an optional
    ``+``), octal ``\\0`` to ``\\377``, ``\\b \\t \\n \\f \\r \\\\ \\" \\'``; any other backslash is dropped.
    The result is a Java string of UTF-16 units: escaped surrogate pairs make one character."""
    units: list[int] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c != "\\":
            units.extend(_utf16(c))
            i += 1
            continue
        nxt = s[i + 1] if i + 1 < n else ""
        if nxt == "u":
            j = i + 1
            while j < n and s[j] == "u":
                j += 1
            if j < n and s[j] == "+":
                j += 1
            digits = s[j:j + 4]
            if len(digits) < 4:
                raise FunctionError(f"Less than 4 hex digits in unicode value: '{s[i:]}' due to end of CharSequence")
            if not set(digits) <= _HEX_DIGITS:
                raise FunctionError(f"Unable to parse unicode value: {digits}")
            units.append(int(digits, 16))
            i = j + 4
        elif nxt and "0" <= nxt <= "7":
            end = i + 2
            limit = i + (4 if nxt <= "3" else 3)
            while end < min(limit, n) and "0" <= s[end] <= "7":
                end += 1
            units.append(int(s[i + 1:end], 8))
            i = end
        elif nxt and nxt in _JAVA_CTRL:
            units.append(_JAVA_CTRL[nxt])
            i += 2
        else:
            i += 1  # a lone backslash: dropped
    return utf16.joined("".join(map(chr, units)))


def _utf16(c: str) -> list[int]:
    o = ord(c)
    if o < 0x10000:
        return [o]
    o -= 0x10000
    return [0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)]


def _java_indexed(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` indexing strings as Java does, by UTF-16 unit: a character outside the BMP is two positions
    (String.length, substring, indexOf). Strings of BMP characters only (the usual case) pass unchanged."""

    def wrapped(*args: Any) -> Any:
        if not any(isinstance(a, str) and (utf16.has_astral(a) or utf16.has_surrogate(a)) for a in args):
            return fn(*args)
        out = fn(*(utf16.as_units(a) if isinstance(a, str) else a for a in args))
        return utf16.joined(out) if isinstance(out, str) else out

    return wrapped


def _md5(s: str) -> str:
    return hashlib.md5(utf16.utf8(s)).hexdigest()  # getBytes(UTF_8): a lone surrogate is "?"


_replace = _java_indexed(str.replace)  # String.replace works by unit: a half character can be replaced


# --------------------------------------------------------------------------------- positions


def _start_index(length: int, pos: int) -> int:
    return max(length + pos, 0) if pos < 0 else max(min(pos - 1, length), 0)


def _substring2(s: Any, pos: Any) -> Any:
    if s is None or pos is None:
        return None
    return s[_start_index(len(s), pos) :]


def _substring3(s: Any, pos: Any, length: Any) -> Any:
    if s is None or pos is None or length is None:
        return None
    n = len(s)
    start = _start_index(n, pos)
    # Substring.getEndIndex: max(start, min(length of s, start + len)) in Java ints - a length near
    # Integer.MAX_VALUE overflows start + len to a negative, and the result is empty
    end = max(min(_int32(start + length), n), start)
    return s[start:end]


def _int32(v: int) -> int:
    return ((v + 2**31) % 2**32) - 2**31


def _instr_nulls(s: str | None, sub: str | None, position: int = 1, occurrence: int = 1) -> int:
    """ksqlDB's INSTR returns a Java ``int``: a NULL string or substring is 0 (not NULL); its position and
    occurrence are ``int`` parameters (``java_primitives``)."""
    if s is None or sub is None:
        return 0
    return _instr_java(s, sub, position, occurrence)


def _instr(s: str, sub: str, position: int = 1, occurrence: int = 1) -> int:
    """Oracle-style INSTR: 1-based; a negative position searches backwards from that many chars from the end."""
    if position > 0:
        start = position - 1
        if start > len(s):
            return 0
        idx = s.find(sub, start)
        for _ in range(1, occurrence):
            if idx < 0:
                break
            idx = s.find(sub, idx + 1)
        return idx + 1
    if position < 0:
        start = len(s) + position
        idx = _last_index(s, sub, start)
        for _ in range(1, occurrence):
            if idx < 0:
                break
            idx = _last_index(s, sub, idx - 1)
        return idx + 1
    return 0


_instr_java = _java_indexed(_instr)


def _last_index(s: str, sub: str, from_index: int) -> int:
    """String.lastIndexOf(sub, fromIndex)."""
    if from_index < 0:
        return -1
    return s.rfind(sub, 0, from_index + len(sub))


# ------------------------------------------------------------------------------------ padding


def _pad(left: bool):
    def impl(s: Any, length: Any, padding: Any) -> Any:
        if s is None or padding is None or length is None or len(padding) == 0 or length < 0:
            return None
        pad_len = max(length - len(s), 0)
        reps = -(-pad_len // len(padding))
        pad = (padding * reps)[:pad_len]
        return (pad + s)[:length] if left else (s + pad)[:length]

    return impl


# -------------------------------------------------------------------------------------- split


def _split(s: Any, delim: Any) -> Any:
    if s is None or delim is None:
        return None
    if len(delim) == 0:
        if len(s) == 0:
            return [s]
        if isinstance(s, bytes):
            return [s[i : i + 1] for i in range(len(s))]
        # ksqlDB splits by Pattern.compile(""), which matches between any two UTF-16 units: a character
        # outside the BMP comes apart into its two surrogates
        return list(utf16.as_units(s))
    if isinstance(s, str) and (utf16.has_surrogate(s) or utf16.has_surrogate(delim)):
        return [utf16.joined(p) for p in utf16.as_units(s).split(utf16.as_units(delim))]
    return s.split(delim)


def _split_to_map(s: Any, entry_delim: Any, kv_delim: Any) -> Any:
    if s is None or entry_delim is None or kv_delim is None:
        return None
    if not entry_delim or not kv_delim or entry_delim == kv_delim:
        return None
    out: dict[str, str] = {}
    for entry in s.split(entry_delim):
        if entry and kv_delim in entry:
            parts = entry.split(kv_delim)
            out[parts[0]] = parts[1]
    return out


# -------------------------------------------------------------------------------------- masks

_NO_MASK = None


def _mask_char(c: Any, default: str | None = None) -> str | None:
    if c is None:
        return None
    if not c:
        raise FunctionError("Invalid mask character '': a mask character cannot be empty")
    return c[0]  # Masker takes the string's first code point


@lru_cache(maxsize=64)
def _masker(upper: str | None, lower: str | None, digit: str | None, other: str | None):
    """The masking of one set of mask characters (NULL keeps that class of characters). ksqlDB's Masker
    (from memory) appends ``mask(s.codePointAt(i))`` for every UTF-16 index i: a character outside the BMP
    is classified twice - as itself at its high unit and as a surrogate ('other') at its low unit - so it
    is masked as two characters, and when kept is written whole and then followed by its low unit."""

    class Table(dict):
        def __missing__(self, code: int) -> str:
            c = chr(code)
            # Java's Character.isUpperCase / isLowerCase: the letter category or the contributory
            # Other_Uppercase / Other_Lowercase property (Roman numerals, circled letters, modifier letters) -
            # Unicode's Uppercase / Lowercase, which str.isupper / islower test on one character
            if c.isupper():
                r = upper
            elif c.islower():
                r = lower
            elif unicodedata.category(c) == "Nd":
                r = digit
            else:
                r = other
            v = c if r is None else r
            self[code] = v
            return v

    table = Table()

    def mask(s: str) -> str:
        if not (utf16.has_astral(s) or utf16.has_surrogate(s)):
            return s.translate(table)
        units = utf16.as_units(s)
        return utf16.joined("".join(table[utf16.code_point_at(units, i)] for i in range(len(units))))

    return mask


_DEFAULT_MASKS = ("X", "x", "n", "-")


def _masks(args: tuple) -> tuple:
    if not args:
        return _DEFAULT_MASKS
    return tuple(_mask_char(a) for a in args)


def _mask(s: Any, *masks: Any) -> Any:
    if s is None:
        return None
    return _masker(*_masks(masks))(s)


def _check_n(n: Any) -> int:
    if n is None:
        raise FunctionError("function input must be >= 0")
    if n < 0:
        raise FunctionError("function input must be >= 0")
    return n


def _masked_cut(s: Any, n: Any, masks: tuple, from_right: bool, mask_cut: bool) -> Any:
    """``s`` cut n UTF-16 units from its left or right end, the part before the cut masked (``mask_cut``)
    or the part after it; the cut may fall inside a character outside the BMP, as in Java."""
    if s is None:
        return None
    n = _check_n(n)
    units = utf16.as_units(s)
    cut = max(len(units) - n, 0) if from_right else min(n, len(units))
    head, tail = units[:cut], units[cut:]
    masker = _masker(*_masks(masks))
    return utf16.joined(masker(head) + tail if mask_cut else head + masker(tail))


def _mask_keep_left(s: Any, n: Any, *masks: Any) -> Any:
    return _masked_cut(s, n, masks, from_right=False, mask_cut=False)


def _mask_keep_right(s: Any, n: Any, *masks: Any) -> Any:
    return _masked_cut(s, n, masks, from_right=True, mask_cut=True)


def _mask_left(s: Any, n: Any, *masks: Any) -> Any:
    return _masked_cut(s, n, masks, from_right=False, mask_cut=True)


def _mask_right(s: Any, n: Any, *masks: Any) -> Any:
    return _masked_cut(s, n, masks, from_right=True, mask_cut=False)


# ------------------------------------------------------------------------------------ encodings

_HEX = re.compile(r"[0-9a-fA-F]*")
_X_LITERAL = re.compile(r"[xX]'(.*)'", re.S)


def _hex_to_bytes(s: str) -> bytes:
    """Hex text, optionally as ``0x...`` (odd length allowed) or ``X'...'`` (even length)."""
    if s.startswith("0x") or s.startswith("0X"):
        body = s[2:]
        if len(body) % 2:
            body = "0" + body
    else:
        m = _X_LITERAL.fullmatch(s)
        body = m.group(1) if m else s
        if len(body) % 2:
            raise FunctionError(f"Invalid hex string: odd number of digits in '{s}'")
    if not _HEX.fullmatch(body):
        raise FunctionError(f"Invalid hex string '{s}'")
    return bytes.fromhex(body)


def _base64_to_bytes(s: str) -> bytes:
    try:
        return javatext.base64_decode(s)
    except (binascii.Error, ValueError):
        raise FunctionError(f"Invalid base64 string '{s}'") from None


def _utf8_to_bytes(s: str) -> bytes:
    return s.encode("utf-8", "replace")


def _ascii_to_bytes(s: str) -> bytes:
    return s.encode("ascii", "replace")


_TO_BYTES = {
    "hex": _hex_to_bytes,
    "utf8": _utf8_to_bytes,
    "ascii": _ascii_to_bytes,
    "base64": _base64_to_bytes,
}
_FROM_BYTES = {
    # FROM_BYTES writes hex upper-case (Guava's base16); ENCODE's hex is commons-codec's lower-case one
    "hex": lambda b: b.hex().upper(),
    "utf8": utf16.from_utf8,
    "ascii": lambda b: b.decode("ascii", "replace"),
    "base64": lambda b: base64.b64encode(b).decode("ascii"),
}


_ENCODE_TO = {**_FROM_BYTES, "hex": lambda b: b.hex()}


def _encoder(table: dict, encoding: str):
    fn = table.get(encoding.lower())
    if fn is None:
        raise FunctionError(
            f"Supported encoding types are: hex, utf8, ascii and base64. Unknown encoding '{encoding}'."
        )
    return fn


def _encode(s: str, in_enc: str, out_enc: str) -> str:
    decode = _encoder(_TO_BYTES, in_enc)
    encode = _encoder(_ENCODE_TO, out_enc)
    return encode(decode(s))


def _to_bytes(s: str, enc: str) -> bytes:
    return _encoder(_TO_BYTES, enc)(s)


def _from_bytes(b: bytes, enc: str) -> str:
    return _encoder(_FROM_BYTES, enc)(b)


def _uuid() -> str:
    return str(uuid.uuid4())


def _uuid_from_bytes(b: bytes) -> Any:
    """ksqlDB's ``uuid(ByteBuffer)`` (from memory): NULL unless the buffer holds exactly 16 bytes."""
    if len(b) != 16:
        return None
    return str(uuid.UUID(bytes=bytes(b)))


# ------------------------------------------------------------------------------------- register


def register(registry: FunctionRegistry) -> None:
    add = registrar(registry, CATEGORY)

    add(
        "CHR",
        "The character of a decimal code point, or a text of Java escapes starting with a UTF-16 escape such as '\\u004b' (surrogate pairs join).",
        [("INT", "STRING", _chr_int), ("STRING", "STRING", _chr_str)],
    )
    add(
        "CONCAT",
        "Concatenates strings or bytes; NULL arguments are skipped.",
        [("STRING...", "STRING", _concat), ("BYTES...", "BYTES", _concat_bytes)],
        null_on_null=False,
    )
    add(
        "CONCAT_WS",
        "Concatenates values with a separator (first argument); NULL values are skipped, a NULL separator gives NULL.",
        [
            ("STRING...", "STRING", _concat_ws),
            ("BYTES...", "BYTES", _concat_ws),
        ],
        null_on_null=False,
    )
    add(
        "ELT",
        "The n-th (1-based) of the following strings; NULL when n is out of range; a NULL n fails the call.",
        [("INT, STRING...", "STRING", java_primitives("ELT", _elt, {0: "int"}))],
        null_on_null=False,
    )
    add(
        "ENCODE",
        "Re-encodes a string from one encoding to another (hex, utf8, ascii, base64).",
        [("STRING, STRING, STRING", "STRING", _encode)],
    )
    add(
        "FIELD",
        "The 1-based position of the first argument among the following ones; 0 if absent or NULL.",
        [("STRING, STRING...", "INT", _field)],
        null_on_null=False,
    )
    add(
        "FROM_BYTES",
        "Converts BYTES to a string in the given encoding (hex is written upper-case).",
        [("BYTES, STRING", "STRING", _from_bytes)],
    )
    add(
        "INITCAP",
        "Capitalizes the first letter of each word and lower-cases the rest.",
        [("STRING", "STRING", _initcap)],
    )
    add(
        "INSTR",
        "The 1-based position of a substring, optionally from a position (negative: from the end) and for the "
        "n-th occurrence; 0 if not found.",
        [
            ("STRING, STRING", "INT", _instr_nulls),
            ("STRING, STRING, INT", "INT", java_primitives("INSTR", _instr_nulls, {2: "int"})),
            ("STRING, STRING, INT, INT", "INT", java_primitives("INSTR", _instr_nulls, {2: "int", 3: "int"})),
        ],
        null_on_null=False,
    )
    add("LCASE", "Converts a string to lower case.", [("STRING", "STRING", _lcase)])
    add(
        "LEN",
        "The length of a string (UTF-16 units) or of BYTES.",
        [("STRING", "INT", _len_str), ("BYTES", "INT", len)],
    )
    add(
        "LPAD",
        "Pads a string or bytes on the left to a length (truncating longer input); NULL for empty padding or a "
        "negative length.",
        [("STRING, INT, STRING", "STRING", _java_indexed(_pad(True))), ("BYTES, INT, BYTES", "BYTES", _pad(True))],
        null_on_null=False,
    )
    masks = ", STRING, STRING, STRING, STRING"
    add(
        "MASK",
        "Masks upper-case letters with 'X', lower-case with 'x', digits with 'n' and others with '-', or with the "
        "given characters (NULL keeps that class).",
        [Overload("STRING", "STRING", _mask), Overload("STRING" + masks, "STRING", _mask)],
        null_on_null=False,
    )
    for name, fn, what in (
        ("MASK_KEEP_LEFT", _mask_keep_left, "Masks all but the first n characters."),
        ("MASK_KEEP_RIGHT", _mask_keep_right, "Masks all but the last n characters."),
        ("MASK_LEFT", _mask_left, "Masks the first n characters."),
        ("MASK_RIGHT", _mask_right, "Masks the last n characters."),
    ):
        add(
            name,
            what + " Mask characters as for MASK.",
            [Overload("STRING, INT", "STRING", fn), Overload("STRING, INT" + masks, "STRING", fn)],
            null_on_null=False,
        )
    add("MD5", "The hex MD5 digest of the UTF-8 bytes of a string.", [("STRING", "STRING", _md5)])
    add(
        "REPLACE",
        "Replaces every occurrence of a substring.",
        [("STRING, STRING, STRING", "STRING", _replace)],
    )
    add(
        "RPAD",
        "Pads a string or bytes on the right to a length (truncating longer input); NULL for empty padding or a "
        "negative length.",
        [("STRING, INT, STRING", "STRING", _java_indexed(_pad(False))), ("BYTES, INT, BYTES", "BYTES", _pad(False))],
        null_on_null=False,
    )
    add(
        "SPLIT",
        "Splits a string or bytes on a literal delimiter, keeping empty parts; an empty delimiter splits into "
        "UTF-16 units (a character outside the BMP into its two halves) or single bytes.",
        [("STRING, STRING", "ARRAY<STRING>", _split), ("BYTES, BYTES", "ARRAY<BYTES>", _split)],
    )
    add(
        "SPLIT_TO_MAP",
        "Splits a string into a map with an entry delimiter and a key/value delimiter.",
        [("STRING, STRING, STRING", "MAP<STRING, STRING>", _split_to_map)],
    )
    add(
        "SUBSTRING",
        "The substring from a 1-based position (negative: from the end), optionally of a length.",
        [
            ("STRING, INT", "STRING", _java_indexed(_substring2)),
            ("STRING, INT, INT", "STRING", _java_indexed(_substring3)),
            ("BYTES, INT", "BYTES", _substring2),
            ("BYTES, INT, INT", "BYTES", _substring3),
        ],
    )
    add(
        "TO_BYTES",
        "Converts a string to BYTES from the given encoding.",
        [("STRING, STRING", "BYTES", _to_bytes)],
    )
    add(
        "TRIM",
        "Removes leading and trailing whitespace (characters <= U+0020).",
        [("STRING", "STRING", _trim)],
    )
    add("UCASE", "Converts a string to upper case.", [("STRING", "STRING", _ucase)])
    add(
        "UUID",
        "A random type-4 UUID, or the UUID spelled by 16 bytes (NULL for any other length).",
        [
            Overload("", "STRING", _uuid, deterministic=False),
            Overload("BYTES", "STRING", _uuid_from_bytes),
        ],
    )
