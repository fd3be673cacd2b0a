"""REGULAR EXPRESSION functions. Patterns use Java's syntax, translated once per distinct pattern to Python's
``re`` (named groups, ``\\Q..\\E``, ``\\z``/``\\Z``, ``\\p{..}`` classes, mid-pattern flags, nested class
unions, Java's line terminators for ``.``, ``^``, ``$``, back references to groups not matched, ``{`` only as
a bound) and compiled with ASCII semantics for ``\\w \\d \\s`` and case folding, as Java's defaults are;
``\\b`` sees Unicode letters as Java's before 19. Matches are found by Java's ``Matcher.find`` loop
(``regex_find``). Replacement strings use Java's ``$1`` / ``${name}`` / ``\\$`` syntax."""

from __future__ import annotations

import re
import warnings
from functools import lru_cache
from typing import Any

from ksqlpy.functions import regex_find
from ksqlpy.functions.regex_classes import is_compound, translate_class
from ksqlpy.functions.regex_lookbehind import expand_lookbehinds
from ksqlpy.functions.regex_properties import grapheme_cluster, property_class
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import FunctionError, registrar

CATEGORY = "REGULAR EXPRESSION"

_HSPACE = " \\t\\xa0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000"
_VSPACE = "\\n\\x0b\\f\\r\\x85\\u2028\\u2029"
# Java's line terminators (all of them unless UNIX_LINES, (?d)): what '.', '^' and '$' look at
_TERMINATORS = "\\n\\r\\x85\\u2028\\u2029"
# \b before Java 19 (JDK-8264160): a word character is Character.isLetterOrDigit or '_', Unicode-wide,
# whatever \w is; Python's Unicode \w differs from it only on other numerics (Nl, No)
_WORD = "(?u:\\w)"
_FLAG_GROUP = re.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])")
_BOUND = re.compile(r"\{(\d+)(?:,(\d*))?\}")
_PY_FLAGS = "ix"  # handed to Python; s, m, d are read by the translation of '.', '^', '$'


def _dot(flags: frozenset[str]) -> str:
    if "s" in flags:
        return "(?s:.)"
    return "[^\\n]" if "d" in flags else f"[^{_TERMINATORS}]"


def _caret(flags: frozenset[str]) -> str:
    """Java's ^: input start; with (?m) also after a line terminator, never at the input's end and never
    between \\r and \\n."""
    if "m" not in flags:
        return "\\A"
    if "d" in flags:
        return "(?:(?<![^\\n])(?!\\Z))"
    return f"(?:(?<![^{_TERMINATORS}])(?!\\Z)(?!(?<=\\r)\\n))"


def _dollar(flags: frozenset[str], multiline: bool) -> str:
    """Java's $ (and \\Z): the input's end or before a final line terminator (\\r\\n one terminator); with
    (?m) before any line terminator; never between \\r and \\n."""
    if "d" in flags:
        return "(?=\\n|\\Z)" if multiline else "(?=\\n?\\Z)"
    if multiline:
        return "(?=(?<!\\r)\\n|[\\r\\x85\\u2028\\u2029]|\\Z)"
    return "(?=\\r\\n\\Z|(?<!\\r)\\n\\Z|[\\r\\x85\\u2028\\u2029]\\Z|\\Z)"


def _unicode_case(c: str, flags: frozenset[str], in_class: bool) -> str:
    """A literal character under (?iu): Java's UNICODE_CASE matches a non-ASCII letter's upper and lower
    case too (Python's re.ASCII folds ASCII only, as Java does without u)."""
    if "i" not in flags or "u" not in flags or c.isascii() or not c.isalpha():
        return c
    variants = sorted({v for v in (c, c.lower(), c.upper(), c.lower().upper()) if len(v) == 1})
    if len(variants) == 1:
        return c
    return "".join(variants) if in_class else f"[{''.join(variants)}]"


def _flag_change(flags: frozenset[str], on: str, off: str) -> frozenset[str]:
    return frozenset((set(flags) | set(on)) - set(off))


def _py_flags(on: str, off: str) -> str:
    on = "".join(f for f in on if f in _PY_FLAGS)
    off = "".join(f for f in off if f in _PY_FLAGS)
    return on + ("-" + off if off else "")


def translate_java_regex(pattern: str, initial_flags: frozenset[str] = frozenset()) -> tuple[str, int]:
    """Java regex -> (Python regex, extra flags). ``initial_flags``: the Java flags in force where ``pattern``
    is a part of a larger one (a flat run of a compound class)."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    in_class = 0
    ascii_mode = True
    flags = initial_flags
    # Open groups: the flags outside each, how many extra ')' to emit when it closes (mid-pattern flags),
    # its capturing group number (0: not capturing).
    groups: list[tuple[frozenset[str], int, int]] = []
    top_extra = 0
    opened = 0  # capturing groups opened so far
    closed: set[int] = set()
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            if d == "Q":
                end = pattern.find("\\E", i + 2)
                lit = pattern[i + 2 :] if end < 0 else pattern[i + 2 : end]
                out.append(
                    re.escape(lit)
                    if not in_class
                    else "".join("\\" + ch if not ch.isalnum() else ch for ch in lit)
                )
                i = n if end < 0 else end + 2
                continue
            if d == "z":
                out.append("\\Z")
            elif d == "Z":
                out.append(_dollar(flags, multiline=False))
            elif d == "k" and i + 2 < n and pattern[i + 2] == "<":
                end = pattern.index(">", i + 3)
                out.append(f"(?P={pattern[i + 3 : end]})")
                i = end + 1
                continue
            elif d in "pP":
                if i + 2 < n and pattern[i + 2] == "{":
                    end = pattern.index("}", i + 3)
                    name = pattern[i + 3 : end]
                    i = end + 1
                else:
                    name = pattern[i + 2]
                    i += 3
                out.append(property_class(name, d == "P", in_class > 0))
                continue
            elif d == "h":
                out.append(_HSPACE if in_class else f"[{_HSPACE}]")
            elif d == "H":
                out.append(f"[^{_HSPACE}]")
            elif d == "v":
                out.append(_VSPACE if in_class else f"[{_VSPACE}]")
            elif d == "V":
                out.append(f"[^{_VSPACE}]")
            elif d in "123456789" and not in_class:
                # Java's back reference: one digit, more while they name a group opened so far; a group not
                # closed yet (or never defined) has not matched, so the reference fails - no compile error
                ref = int(d)
                i += 2
                while i < n and pattern[i].isdigit() and ref * 10 + int(pattern[i]) <= opened:
                    ref = ref * 10 + int(pattern[i])
                    i += 1
                out.append(f"(?:\\{ref})" if ref in closed else "(?!)")
                continue
            elif d in "bB" and not in_class and ascii_mode:
                inside = f"(?<={_WORD})(?={_WORD})|(?<!{_WORD})(?!{_WORD})"
                across = f"(?<={_WORD})(?!{_WORD})|(?<!{_WORD})(?={_WORD})"
                out.append(f"(?:{across if d == 'b' else inside})")
            elif d == "X" and not in_class:
                out.append(grapheme_cluster())
            elif d == "R":
                out.append("(?:\\r\\n|[\\n\\x0b\\f\\r\\x85\\u2028\\u2029])")
            elif d == "e":
                out.append("\\x1b")
            elif d == "c" and i + 2 < n:
                out.append(f"\\x{ord(pattern[i + 2]) ^ 64:02x}")
                i += 3
                continue
            elif d == "x" and i + 2 < n and pattern[i + 2] == "{":
                end = pattern.index("}", i + 3)
                out.append(re.escape(chr(int(pattern[i + 3 : end], 16))))
                i = end + 1
                continue
            elif d == "0":
                j = i + 2
                while j < n and j < i + 5 and pattern[j] in "01234567":
                    j += 1
                out.append(re.escape(chr(int(pattern[i + 2 : j] or "0", 8))))
                i = j
                continue
            else:
                out.append(c + d)
            i += 2
            continue
        if in_class:
            if c == "[":
                in_class += 1  # nested union: [a-z[0-9]] -> [a-z0-9]
                i += 1
                continue
            if c == "]":
                in_class -= 1
                if in_class == 0:
                    out.append("]")
                i += 1
                continue
            if c == "&" and pattern.startswith("&&", i):
                raise FunctionError("Unsupported regular expression: character class intersection (&&)")
            if "x" in flags and c in " \t\n\x0b\f\r#":
                # (?x) drops blanks and comments inside classes too (Python's verbose mode keeps them there)
                if c == "#":
                    end = pattern.find("\n", i)
                    i = n if end < 0 else end
                i += 1
                continue
            in_range = pattern[i - 1] == "-" or pattern.startswith("-", i + 1)
            out.append(c if in_range else _unicode_case(c, flags, in_class=True))
            i += 1
            continue
        if c == "[":
            if is_compound(pattern, i):
                def flat(body: str, scoped: frozenset[str] = flags) -> str:
                    return translate_java_regex(f"[{body}]", scoped)[0]

                regex, i = translate_class(pattern, i, flat)
                out.append(regex)
                continue
            in_class = 1
            out.append("[")
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":  # a leading ']' is literal
                out.append("\\]")
                i += 1
            continue
        if c == "(":
            m = _FLAG_GROUP.match(pattern, i)
            if m:
                on, off = m.group(1), m.group(2) or ""
                if "U" in on:
                    ascii_mode = False
                py = _py_flags(on, off)
                if m.group(3) == ":":  # (?flags:X) - a group with its own flags
                    groups.append((flags, 0, 0))
                    flags = _flag_change(flags, on, off)
                    out.append(f"(?{py}:" if py else "(?:")
                    i = m.end()
                    continue
                flags = _flag_change(flags, on, off)
                if py:
                    if not out and not groups and not off:
                        out.append(f"(?{py})")
                    else:
                        out.append(f"(?{py}:")
                        if groups:
                            outer, extra, number = groups[-1]
                            groups[-1] = (outer, extra + 1, number)
                        else:
                            top_extra += 1
                i = m.end()
                continue
            named = pattern.startswith("(?<", i) and i + 3 < n and pattern[i + 3] not in "=!"
            if named or not pattern.startswith("(?", i):
                opened += 1
                groups.append((flags, 0, opened))
            else:
                groups.append((flags, 0, 0))
            if named:
                out.append("(?P<")
                i += 3
                continue
            out.append("(")
            i += 1
            continue
        if c == ")":
            if groups:
                flags, extra, number = groups.pop()
                closed.add(number)
            else:
                extra = 0
            out.append(")" * (extra + 1))
            i += 1
            continue
        if c == "{":
            # Java reads '{' only as a bound {n}, {n,} or {n,m}; anything else is an illegal repetition
            # (Python would take it literally)
            m = _BOUND.match(pattern, i)
            if m is None:
                raise FunctionError(f"Illegal repetition near index {i}")
            out.append(m.group(0))
            i = m.end()
            continue
        if c == ".":
            out.append(_dot(flags))
        elif c == "^":
            out.append(_caret(flags))
        elif c == "$":
            out.append(_dollar(flags, multiline="m" in flags))
        else:
            out.append(_unicode_case(c, flags, in_class=False))
        i += 1
    out.append(")" * top_extra)
    return "".join(out), (re.ASCII if ascii_mode else 0)


@lru_cache(maxsize=512)
def compile_java_regex(pattern: str) -> re.Pattern[str]:
    """Compile a Java regex once; an invalid one is a per-record function error, as in ksqlDB."""
    try:
        py, flags = translate_java_regex(pattern)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return re.compile(py, flags)
            except re.error as e:
                if "look-behind requires fixed-width" not in str(e):
                    raise
                return re.compile(expand_lookbehinds(py), flags)  # Java's bounded variable widths
    except FunctionError:
        raise
    except (re.error, ValueError, IndexError) as e:
        raise FunctionError(f"Invalid regular expression pattern: {pattern} ({e})") from None


@lru_cache(maxsize=512)
def java_replacement(replacement: str, group_count: int) -> str:
    """Java Matcher replacement syntax -> a Python ``re.sub`` template."""
    out: list[str] = []
    i = 0
    n = len(replacement)
    while i < n:
        c = replacement[i]
        if c == "\\":
            i += 1
            if i >= n:
                raise FunctionError("character to be escaped is missing")
            lit = replacement[i]
            out.append("\\\\" if lit == "\\" else lit)
            i += 1
        elif c == "$":
            i += 1
            if i >= n:
                raise FunctionError("Illegal group reference: group index is missing")
            if replacement[i] == "{":
                end = replacement.find("}", i)
                if end < 0:
                    raise FunctionError("named capturing group is missing trailing '}'")
                out.append(f"\\g<{replacement[i + 1 : end]}>")
                i = end + 1
            elif replacement[i].isdigit():
                num = int(replacement[i])
                i += 1
                while i < n and replacement[i].isdigit() and num * 10 + int(replacement[i]) <= group_count:
                    num = num * 10 + int(replacement[i])
                    i += 1
                if num > group_count:
                    raise FunctionError(f"No group {num}")
                out.append(f"\\g<{num}>")
            else:
                raise FunctionError("Illegal group reference")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _extract(pattern: str, s: str, group: int = 0) -> Any:
    p = compile_java_regex(pattern)
    found = regex_find.find_first(p, s)
    if found is None:
        return None
    try:
        return found.match.group(group)
    except IndexError:
        raise FunctionError(f"No group {group}") from None


def _extract_all(pattern: str, s: str, group: int = 0) -> list[Any]:
    p = compile_java_regex(pattern)
    matches = list(regex_find.find_all(p, s))
    if (group > p.groups or group < 0) and matches:
        raise FunctionError(f"No group {group}")
    return [f.match.group(group) for f in matches]


def _replace(s: str, pattern: str, replacement: str) -> str:
    p = compile_java_regex(pattern)
    return regex_find.replace_all(p, s, lambda: java_replacement(replacement, p.groups))


def _split(s: str, pattern: str) -> list[str]:
    """ksqlDB's RegexpSplitToArray: ``Pattern.split`` when the pattern is '' or matches '', else Guava's
    ``Splitter.on(pattern)``, which keeps every part."""
    p = compile_java_regex(pattern)
    if pattern == "" or p.fullmatch("") is not None:
        return regex_find.pattern_split(p, s)
    return regex_find.guava_split(p, s)


def register(registry: FunctionRegistry) -> None:
    add = registrar(registry, CATEGORY)

    add(
        "REGEXP_EXTRACT",
        "The first substring matching a Java regex (pattern first), or its n-th capturing group; NULL if none.",
        [("STRING, STRING", "STRING", _extract), ("STRING, STRING, INT", "STRING", _extract)],
    )
    add(
        "REGEXP_EXTRACT_ALL",
        "All substrings matching a Java regex (pattern first), or their n-th capturing group.",
        [
            ("STRING, STRING", "ARRAY<STRING>", _extract_all),
            ("STRING, STRING, INT", "ARRAY<STRING>", _extract_all),
        ],
    )
    add(
        "REGEXP_REPLACE",
        "Replaces every match of a Java regex; the replacement may refer to groups as $1 or ${name}.",
        [("STRING, STRING, STRING", "STRING", _replace)],
    )
    add(
        "REGEXP_SPLIT_TO_ARRAY",
        "Splits a string around matches of a Java regex, keeping empty parts.",
        [("STRING, STRING", "ARRAY<STRING>", _split)],
    )
