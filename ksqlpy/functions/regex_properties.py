"""Java's ``\\p{..}`` character properties as Python character-class bodies.

Why: Python's ``re`` has no ``\\p``. Java's POSIX names (``Lower``, ``Alpha``, ``Punct``...) are ASCII unless
UNICODE_CHARACTER_CLASS is set, but its general categories (``L``, ``Lu``, ``Nd``, ``IsL``, ``gc=Lu``), its
binary properties (``IsAlphabetic``, ``IsLetter``, ``IsDigit``...) and the ``java*`` names
(``Character.isX``) are always Unicode. Unicode tables are built once, on first use, from ``unicodedata``;
scripts (``IsLatin``, ``script=Latn``) and blocks (``InGreek``, ``block=Greek and Coptic``), which Python does
not know, from ``unicode_scripts`` (Unicode's own ranges).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import cache

from ksqlpy.functions.signatures import FunctionError
from ksqlpy.functions.unicode_scripts import BLOCKS, SCRIPTS

# ASCII unless (?U): java.util.regex.Pattern's POSIX classes
POSIX = {
    "Lower": "a-z",
    "Upper": "A-Z",
    "ASCII": "\\x00-\\x7f",
    "Alpha": "a-zA-Z",
    "Digit": "0-9",
    "Alnum": "a-zA-Z0-9",
    "Punct": "!-/:-@\\[-`{-~",
    "Graph": "!-~",
    "Print": " -~",
    "Blank": " \\t",
    "Cntrl": "\\x00-\\x1f\\x7f",
    "XDigit": "0-9a-fA-F",
    "Space": " \\t\\n\\x0b\\f\\r",
}

_GROUPS = {
    "L": ("Lu", "Ll", "Lt", "Lm", "Lo"),
    "LC": ("Lu", "Ll", "Lt"),
    "M": ("Mn", "Mc", "Me"),
    "N": ("Nd", "Nl", "No"),
    "P": ("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"),
    "S": ("Sm", "Sc", "Sk", "So"),
    "Z": ("Zs", "Zl", "Zp"),
    "C": ("Cc", "Cf", "Co", "Cs", "Cn"),
}
_CATEGORIES = frozenset(c for cats in _GROUPS.values() for c in cats)
_WHITE_SPACE = frozenset(
    chr(c) for c in [*range(0x09, 0x0E), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029,
                     0x202F, 0x205F, 0x3000]
)

# A property is a mask over every code point (one byte each, 1 = in), built once per property from one
# table of general categories. Masks are built with C-level map/translate, never a Python call per code point:
# a per-code-point lambda took ~0.3 s per property (seconds for a pattern naming several, on the first
# record) - the "character classes" case of tests/cases/functions/java-regex.json timed out under load.
_LIMIT = 0x110000
Mask = bytes


@cache
def _category_table() -> tuple[bytes, dict[str, int]]:
    """Each code point's general category as one byte (an index into the returned names)."""
    names = sorted(_CATEGORIES)
    index = {name: i for i, name in enumerate(names)}
    return bytes(map(index.__getitem__, map(unicodedata.category, map(chr, range(_LIMIT))))), index


def _cats(*cats: str) -> Mask:
    table, index = _category_table()
    wanted = {index[c] for c in cats}
    return table.translate(bytes(1 if i in wanted else 0 for i in range(256)))


def _chars(pred: Callable[[str], object]) -> Mask:
    """A C-level predicate (``str.isupper``, ``set.__contains__``) over every code point."""
    return bytes(map(bool, map(pred, map(chr, range(_LIMIT)))))


def _union(*masks: Mask) -> Mask:
    out = int.from_bytes(masks[0], "big")
    for m in masks[1:]:
        out |= int.from_bytes(m, "big")
    return out.to_bytes(_LIMIT, "big")


def _code_points(*ranges: tuple[int, int]) -> Mask:
    out = bytearray(_LIMIT)
    for a, b in ranges:
        out[a : b + 1] = b"\x01" * (b - a + 1)
    return bytes(out)


def _without(mask: Mask, chars: str) -> Mask:
    out = bytearray(mask)
    for c in chars:
        out[ord(c)] = 0
    return bytes(out)


def _java_whitespace() -> Mask:
    """``Character.isWhitespace``: space separators but the non-breaking ones, and the ASCII controls."""
    return _union(_without(_cats("Zs", "Zl", "Zp"), "\xa0\u2007\u202f"),
                  _code_points((0x09, 0x0D), (0x1C, 0x1F)))


def _letter() -> Mask:
    return _cats(*_GROUPS["L"])


def _alphabetic() -> Mask:
    return _cats(*_GROUPS["L"], "Nl")


# \p{IsX}: Unicode binary properties, names compared upper-case (CharPredicates.forUnicodeProperty)
_BINARY: dict[str, Callable[[], Mask]] = {
    "ALPHABETIC": _alphabetic,
    "LETTER": _letter,
    "DIGIT": lambda: _cats("Nd"),
    "UPPERCASE": lambda: _chars(str.isupper),
    "LOWERCASE": lambda: _chars(str.islower),
    "TITLECASE": lambda: _cats("Lt"),
    "PUNCTUATION": lambda: _cats(*_GROUPS["P"]),
    "CONTROL": lambda: _cats("Cc"),
    "WHITE_SPACE": lambda: _chars(_WHITE_SPACE.__contains__),
    "WHITESPACE": lambda: _chars(_WHITE_SPACE.__contains__),
    "ALNUM": lambda: _cats(*_GROUPS["L"], "Nl", "Nd"),
    "ASSIGNED": lambda: _cats(*(_CATEGORIES - {"Cn"})),
}
# \p{javaX}: Character.isX
_JAVA: dict[str, Callable[[], Mask]] = {
    "javaLowerCase": lambda: _chars(str.islower),
    "javaUpperCase": lambda: _chars(str.isupper),
    "javaTitleCase": lambda: _cats("Lt"),
    "javaDigit": lambda: _cats("Nd"),
    "javaLetter": _letter,
    "javaLetterOrDigit": lambda: _cats(*_GROUPS["L"], "Nd"),
    "javaAlphabetic": _alphabetic,
    "javaWhitespace": _java_whitespace,
    "javaSpaceChar": lambda: _cats("Zs", "Zl", "Zp"),
    "javaISOControl": lambda: _code_points((0x00, 0x1F), (0x7F, 0x9F)),
    "javaDefined": lambda: _cats(*(_CATEGORIES - {"Cn"})),
}


def _ranges_body(ranges: list[tuple[int, int]]) -> str:
    return "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


def _ranges_of(mask: Mask) -> list[tuple[int, int]]:
    """The runs of 1s in a mask as inclusive code point ranges."""
    return [(m.start(), m.end() - 1) for m in re.finditer(b"\x01+", mask)]


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    nxt = 0
    for a, b in ranges:
        if a > nxt:
            out.append((nxt, a - 1))
        nxt = b + 1
    if nxt <= 0x10FFFF:
        out.append((nxt, 0x10FFFF))
    return out


@cache
def _unicode_ranges(kind: str, name: str) -> list[tuple[int, int]]:
    if kind == "category":
        return _ranges_of(_cats(*_GROUPS.get(name, (name,))))
    if kind == "block":
        return _hex_ranges(BLOCKS[name])
    if kind == "script":
        if name == "Unknown":
            known = sorted(r for _, ranges in SCRIPTS.values() for r in _hex_ranges(ranges))
            return _complement(known)
        return _hex_ranges(SCRIPTS[name][1])
    return _ranges_of((_BINARY[name] if kind == "binary" else _JAVA[name])())


def _resolve(name: str) -> tuple[str, str] | None:
    """(kind, key) as Pattern reads ``\\p{name}``: 'posix' (ASCII), 'category', 'binary', 'java', 'script' or
    'block'. ``key=value`` names a script (sc, script), block (blk, block) or category (gc, general_category);
    ``In..`` a block; ``Is..`` a binary property, else a category or POSIX name, else a script."""
    if "=" in name:
        key, value = name.split("=", 1)
        key = key.lower()
        if key in ("sc", "script"):
            return _script(value)
        if key in ("blk", "block"):
            return _block(value)
        if key in ("gc", "general_category"):
            return _property(value)
        return None
    if name.startswith("In"):
        return _block(name[2:])
    if name.startswith("Is"):
        short = name[2:]
        if short.upper() in _BINARY:
            return "binary", short.upper()
        return _property(short) or _script(short)
    return _property(name)


def _property(name: str) -> tuple[str, str] | None:
    """CharPredicates.forProperty: a general category or group, a POSIX name, a ``java..`` name."""
    if name in _CATEGORIES or name in _GROUPS:
        return "category", name
    if name in POSIX:
        return "posix", name
    if name in _JAVA:
        return "java", name
    return None


def _script(name: str) -> tuple[str, str] | None:
    """Character.UnicodeScript.forName: the enum name or ISO 15924 code, any case."""
    key = _SCRIPT_NAMES.get(name.upper())
    return None if key is None else ("script", key)


def _block(name: str) -> tuple[str, str] | None:
    """Character.UnicodeBlock.forName: the Unicode name, without spaces, or the Java constant, any case."""
    key = _BLOCK_NAMES.get(name.upper())
    return None if key is None else ("block", key)


_SCRIPT_NAMES = {k: name for name, (code, _) in SCRIPTS.items() for k in (name.upper(), code.upper())}
_SCRIPT_NAMES["UNKNOWN"] = _SCRIPT_NAMES["ZZZZ"] = "Unknown"  # UnicodeScript.of a code point no script has
_BLOCK_NAMES = {k: name for name in BLOCKS
                for k in (name.upper(), name.replace(" ", "").upper(), re.sub("[ -]", "_", name).upper())}
# the Java constants named after a block's earlier Unicode name
_BLOCK_NAMES.update({"GREEK": "Greek and Coptic", "CYRILLIC_SUPPLEMENTARY": "Cyrillic Supplement",
                     "COMBINING_MARKS_FOR_SYMBOLS": "Combining Diacritical Marks for Symbols"})


def _hex_ranges(text: str) -> list[tuple[int, int]]:
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.append((int(a, 16), int(b or a, 16)))
    return out


def property_class(name: str, negated: bool, in_class: bool) -> str:
    """A class (``[..]``) or, inside a class, a class body for ``\\p{name}`` / ``\\P{name}``."""
    resolved = _resolve(name)
    if resolved is None:
        raise FunctionError(f"Unknown character property name {{{name}}}")
    kind, key = resolved
    if kind == "posix":
        body = POSIX[key]
        if not in_class:
            return f"[{'^' if negated else ''}{body}]"
        if not negated:
            return body
        ranges = _complement(_ascii_ranges(body))
    else:
        ranges = _unicode_ranges(kind, key)
        if negated:
            ranges = _complement(ranges)
    body = _ranges_body(ranges)
    return body if in_class else f"[{body}]"


def _ascii_ranges(body: str) -> list[tuple[int, int]]:
    p = re.compile(f"[{body}]+")
    return [(m.start(), m.end() - 1) for m in p.finditer("".join(map(chr, range(0x80))))]


@cache
def grapheme_cluster() -> str:
    """Java's ``\\X`` (JDK 9+): one extended grapheme cluster (UAX #29) - CR LF, a control alone, a pair of
    regional indicators, a Hangul syllable sequence, an emoji ZWJ sequence, or any character - each followed by
    its extending marks (Grapheme_Extend ~ Mn, Me, ZWNJ, emoji modifiers, tags), spacing marks (Mc) and ZWJs.
    Approximates Unicode's Grapheme_Cluster_Break and Extended_Pictographic from general categories and
    their main ranges (Prepend characters are not joined to what follows)."""
    extend = _ranges_body(_unicode_ranges("category", "Mn") + _unicode_ranges("category", "Me")) + (
        "\\u200c\\U0001f3fb-\\U0001f3ff\\U000e0020-\\U000e007f\\uff9e\\uff9f")
    spacing = _ranges_body(_unicode_ranges("category", "Mc"))
    trail = f"[{extend}{spacing}\\u200d]*"
    control = "\\x00-\\x09\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u2060\\ufeff"
    pict = ("\\u00a9\\u00ae\\u203c\\u2049\\u2122\\u2139\\u2194-\\u2199\\u21a9\\u21aa\\u231a\\u231b\\u2328\\u23cf"
            "\\u23e9-\\u23f3\\u23f8-\\u23fa\\u24c2\\u25aa\\u25ab\\u25b6\\u25c0\\u25fb-\\u25fe\\u2600-\\u27bf"
            "\\u2934\\u2935\\u2b05-\\u2b07\\u2b1b\\u2b1c\\u2b50\\u2b55\\u3030\\u303d\\u3297\\u3299"
            "\\U0001f000-\\U0001f1e5\\U0001f200-\\U0001f3fa\\U0001f400-\\U0001faff")
    lead, vowel, tail = "\\u1100-\\u115f\\ua960-\\ua97c", "\\u1160-\\u11a7\\ud7b0-\\ud7c6", "\\u11a8-\\u11ff\\ud7cb-\\ud7fb"
    hangul = f"[{lead}]*(?:[{vowel}]+|[\\uac00-\\ud7a3][{vowel}]*)[{tail}]*|[{lead}]+|[{tail}]+"
    return (f"(?:\\r\\n|[{control}\\r\\n]|[\\U0001f1e6-\\U0001f1ff]{{2}}{trail}|(?:{hangul}){trail}"
            f"|[{pict}](?:[{extend}]*\\u200d[{pict}])*{trail}|(?s:.){trail})")
