"""Java's character classes with nested classes and ``&&`` as the set algebra java.util.regex builds (from
memory of Pattern.clazz, JDK 9 and later - ksqlDB's runtimes): items and nested classes form a union,
``A&&B`` intersects the union so far with what follows up to the ``]``, and a ``^`` right after ``[`` negates
the whole class (``[^a[b]]`` is neither a nor b, ``[a[^b]]`` anything but b, ``[^a-z&&[aeiou]]`` anything but a
vowel). A ``^`` after ``&&`` is a literal character.

Python's ``re`` has flat classes only, so such a class becomes one regex matching one character: a union an
alternation, an intersection lookaheads, a negation a negative lookahead before any character. The flat runs
of items between nested classes and operators are translated by the caller's class translation.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ksqlpy.functions.signatures import FunctionError

ANY = "(?s:.)"


def is_compound(pattern: str, start: int) -> bool:
    """Whether the class starting at ``pattern[start] == '['`` nests a class or uses ``&&``."""
    i = _after_class_start(pattern, start + 1, negatable=True)
    depth = 1
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i = _after_escape(pattern, i)
            continue
        if c == "[":
            return True
        if c == "&" and pattern.startswith("&&", i):
            return True
        if c == "]":
            depth -= 1
            if depth == 0:
                return False
        i += 1
    return False


def _after_class_start(pattern: str, i: int, negatable: bool) -> int:
    if negatable and pattern.startswith("^", i):
        i += 1
    return i


def _after_escape(pattern: str, i: int) -> int:
    """The index after the escape at ``pattern[i] == '\\\\'`` (``\\Q..\\E``, ``\\p{..}``, ``\\x{..}``, ``\\cX``)."""
    n = len(pattern)
    if i + 1 >= n:
        return n
    d = pattern[i + 1]
    if d == "Q":
        end = pattern.find("\\E", i + 2)
        return n if end < 0 else end + 2
    if d in "pPx" and pattern.startswith("{", i + 2):
        end = pattern.find("}", i + 3)
        return n if end < 0 else end + 1
    if d in "pP" or d == "c":
        return i + 3
    return i + 2


_FLAT = re.compile(r"\[(?!\^)(?:\\.|[^\]\\])*\]", re.DOTALL)  # one Python class, not negated


def _union(a: str | None, b: str) -> str:
    """``a`` or ``b``: one class when both are plain classes, else an alternation."""
    if a is None:
        return b
    if _FLAT.fullmatch(a) and _FLAT.fullmatch(b):
        return a[:-1] + b[1:]
    return f"(?:{a}|{b})"


def _negated(a: str) -> str:
    return "[^" + a[1:] if _FLAT.fullmatch(a) else f"(?:(?!{a}){ANY})"


def translate_class(pattern: str, start: int, leaf: Callable[[str], str]) -> tuple[str, int]:
    """The class at ``pattern[start] == '['`` as one Python regex matching one character, and the index after
    its ``]``. ``leaf(body)`` translates a flat Java class body (no nested class, no ``&&``) to a Python class."""
    regex, end = _clazz(pattern, start + 1, leaf, negatable=True)
    return regex, end + 1


def _clazz(pattern: str, i: int, leaf: Callable[[str], str], negatable: bool) -> tuple[str, int]:
    """Pattern.clazz from just after a ``[`` (or ``&&``): (regex, index of the closing ``]``)."""
    n = len(pattern)
    negated = negatable and pattern.startswith("^", i)
    if negated:
        i += 1
    prev: str | None = None
    bits: list[str] = []  # the flat run of items (Java's BitClass and ranges)

    def flush() -> None:
        nonlocal prev
        if bits:
            body = "".join(bits)
            if body.startswith("^"):  # not the class's negation: a literal here
                body = "\\" + body
            prev = _union(leaf(body), prev) if prev is not None else leaf(body)
            bits.clear()

    while True:
        if i >= n:
            raise FunctionError(f"Unclosed character class near index {n - 1}")
        c = pattern[i]
        if c == "\\":
            end = _after_escape(pattern, i)
            bits.append(pattern[i:end])
            i = end
        elif c == "[":
            sub, i = _clazz(pattern, i + 1, leaf, negatable=True)
            i += 1
            prev = _union(prev, sub)
        elif c == "&" and pattern.startswith("&&", i):
            i += 2
            right: str | None = None
            while i < n and pattern[i] not in "]&":
                if pattern[i] == "[":
                    sub, i = _clazz(pattern, i + 1, leaf, negatable=True)
                    i += 1
                    right = _union(right, sub)
                else:  # abc&&def: the rest up to the ']' is one class, itself maybe an intersection
                    right, i = _clazz(pattern, i, leaf, negatable=False)
            flush()
            if prev is None:
                if right is None:
                    raise FunctionError(f"Bad class syntax near index {i}")
                prev = right
            elif right is not None:
                prev = f"(?:(?={prev}){right})"
        elif c == "]" and (prev is not None or bits):
            flush()
            assert prev is not None
            return (_negated(prev) if negated else prev), i
        else:  # a ']' with nothing before it is a literal
            bits.append("\\]" if c == "]" else c)
            i += 1
