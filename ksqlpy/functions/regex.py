"""REGULAR EXPRESSION functions. Patterns use Java's syntax, translated once per distinct pattern to Python's
``re`` (named groups, ``\\Q..\\E``, ``\\z``/``\\Z``, ``\\p{..}`` classes, mid-pattern flags, nested class
unions) and compiled with ASCII semantics for ``\\w \\d \\s \\b`` and case folding, as Java's defaults are.
Replacement strings use Java's ``$1`` / ``${name}`` / ``\\$`` syntax."""

from __future__ import annotations

import re
import warnings
from functools import lru_cache
from typing import Any

from ksqlpy import utf16
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import FunctionError, registrar

CATEGORY = "REGULAR EXPRESSION"

_POSIX = {
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
    "L": "^\\W\\d_",  # handled specially (negated inner form)
    "IsAlphabetic": "^\\W\\d_",
    "IsLetter": "^\\W\\d_",
    "javaLowerCase": "a-z",
    "javaUpperCase": "A-Z",
    "IsDigit": "0-9",
    "N": "0-9",
    "Nd": "0-9",
    "Lu": "A-Z",
    "IsUppercase": "A-Z",
    "Ll": "a-z",
    "IsLowercase": "a-z",
    "IsWhite_Space": " \\t\\n\\x0b\\f\\r",
    "javaWhitespace": " \\t\\n\\x0b\\f\\r\\x1c-\\x1f",
    "P": "!-/:-@\\[-`{-~",
    "IsPunctuation": "!-/:-@\\[-`{-~",
}

_HSPACE = " \\t\\xa0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000"


def _prop_class(name: str, negated: bool, in_class: bool) -> str:
    body = _POSIX.get(name)
    if body is None and name.startswith("Is"):
        body = _POSIX.get(name[2:])
    if body is None:
        raise FunctionError(f"Unsupported regular expression property \\p{{{name}}}")
    if body.startswith("^"):  # a class defined by exclusion, e.g. letters = [^\W\d_]
        inner = body[1:]
        if negated:
            return inner if in_class else f"[{inner}]"
        if in_class:
            raise FunctionError(f"Unsupported regular expression: \\p{{{name}}} inside a character class")
        return f"[{body}]"
    if in_class:
        if negated:
            raise FunctionError(f"Unsupported regular expression: \\P{{{name}}} inside a character class")
        return body
    return f"[{'^' if negated else ''}{body}]"


_FLAG_GROUP = re.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?\)")


def translate_java_regex(pattern: str) -> tuple[str, int]:
    """Java regex -> (Python regex, extra flags)."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    in_class = 0
    ascii_mode = True
    # Open groups; for each, how many extra ')' to emit when it closes (scoped mid-pattern flags).
    groups: list[int] = []
    top_extra = 0
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
                out.append("(?=\\n?\\Z)")
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
                if name.startswith("Is") and name[2:] in _POSIX:
                    name = name[2:]
                out.append(_prop_class(name, d == "P", in_class > 0))
                continue
            elif d == "h":
                out.append(_HSPACE if in_class else f"[{_HSPACE}]")
            elif d == "H":
                out.append(f"[^{_HSPACE}]")
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
            out.append(c)
            i += 1
            continue
        if c == "[":
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
                on = "".join(f for f in on if f in "imsx")
                off = "".join(f for f in off if f in "imsx")
                if on or off:
                    if not out and not groups and not off:
                        out.append(f"(?{on})")
                    else:
                        out.append(f"(?{on}{'-' + off if off else ''}:")
                        if groups:
                            groups[-1] += 1
                        else:
                            top_extra += 1
                i = m.end()
                continue
            if pattern.startswith("(?<", i) and i + 3 < n and pattern[i + 3] not in "=!":
                out.append("(?P<")
                groups.append(0)
                i += 3
                continue
            groups.append(0)
            out.append("(")
            i += 1
            continue
        if c == ")":
            extra = groups.pop() if groups else 0
            out.append(")" * (extra + 1))
            i += 1
            continue
        out.append(c)
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
            return re.compile(py, flags)
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
    m = compile_java_regex(pattern).search(s)
    if m is None:
        return None
    try:
        return m.group(group)
    except IndexError:
        raise FunctionError(f"No group {group}") from None


def _extract_all(pattern: str, s: str, group: int = 0) -> list[Any]:
    p = compile_java_regex(pattern)
    if group > p.groups or group < 0:
        if p.search(s) is None:
            return []
        raise FunctionError(f"No group {group}")
    return [m.group(group) for m in p.finditer(s)]


def _replace(s: str, pattern: str, replacement: str) -> str:
    p = compile_java_regex(pattern)
    if pattern == "" and utf16.has_astral(s):
        # the empty pattern matches at every UTF-16 index, between a character's surrogates too
        return utf16.joined(p.sub(java_replacement(replacement, p.groups), utf16.as_units(s)))
    return utf16.joined(p.sub(java_replacement(replacement, p.groups), s))


def _split(s: str, pattern: str) -> list[str]:
    p = compile_java_regex(pattern)
    if pattern == "":
        # the empty pattern matches at every UTF-16 index: a character outside the BMP comes apart
        return _java_pattern_split(p, utf16.as_units(s))
    if p.fullmatch("") is not None:
        return _java_pattern_split(p, s)
    out = []
    index = 0
    for m in p.finditer(s):
        out.append(s[index : m.start()])
        index = m.end()
    out.append(s[index:])
    return out


def _java_pattern_split(p: re.Pattern[str], s: str) -> list[str]:
    """Pattern.split(s): no leading empty part for a zero-width match at 0, trailing empty parts dropped."""
    out: list[str] = []
    index = 0
    for m in p.finditer(s):
        if index == 0 and m.start() == 0 and m.end() == 0:
            continue
        out.append(s[index : m.start()])
        index = m.end()
    if index == 0:
        return [s]
    out.append(s[index:])
    while out and out[-1] == "":
        out.pop()
    return out


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
