"""Java's bounded variable-width look-behinds on Python's ``re``, which takes fixed widths only.

Java accepts a look-behind whose length has an obvious maximum (``(?<=ab|c)``, ``(?<=a{1,3})``, ``(?<!x?y)``);
Python refuses any whose alternatives differ in width. Such a look-behind is rewritten into fixed-width ones:
each alternative and each count of a bounded quantifier (``?``, ``{m,n}``) becomes its own look-behind, joined
by ``|`` for ``(?<=..)`` (one must hold) and side by side for ``(?<!..)`` (none may). Unbounded ones (``+``,
``*``, ``{m,}``) stay as written and fail, as Java's do. Works on the translated (Python) pattern.
"""

from __future__ import annotations

import itertools
import re

_MAX_ALTERNATIVES = 256
_BOUND = re.compile(r"\{(\d+)(,(\d*))?\}")


def expand_lookbehinds(py: str) -> str:
    """``py`` with each look-behind that is not fixed-width split into fixed-width ones (where bounded)."""
    out: list[str] = []
    i, n = 0, len(py)
    while i < n:
        c = py[i]
        if c == "\\":
            out.append(py[i : i + 2])
            i += 2
            continue
        if c == "[":
            end = _class_end(py, i)
            out.append(py[i:end])
            i = end
            continue
        if py.startswith("(?<=", i) or py.startswith("(?<!", i):
            end = _group_end(py, i)
            body = expand_lookbehinds(py[i + 4 : end - 1])
            out.append(_split(body, negative=py[i + 3] == "!"))
            i = end
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _split(body: str, negative: bool) -> str:
    opener = "(?<!" if negative else "(?<="
    variants: list[str] = []
    for alt in _top_level(body, "|"):
        expanded = _expand(alt)
        if expanded is None or len(variants) + len(expanded) > _MAX_ALTERNATIVES:
            return f"{opener}{body})"  # unbounded or too many: as written
        variants.extend(expanded)
    if len(variants) == 1:
        return f"{opener}{variants[0]})"
    if negative:
        return "".join(f"(?<!{v})" for v in variants)
    return "(?:" + "|".join(f"(?<={v})" for v in variants) + ")"


def _expand(alt: str) -> list[str] | None:
    """Every fixed-width spelling of one alternative; None when a quantifier is unbounded."""
    choices: list[list[str]] = []
    for atom, low, high in _atoms(alt):
        if high is None:
            return None
        spellings = [atom]
        if atom.startswith("(?:"):  # a plain group: each of its own spellings
            inner = [_expand(a) for a in _top_level(atom[3:-1], "|")]
            if any(x is None for x in inner):
                return None
            spellings = [x for xs in inner for x in xs or ()]
        if len(spellings) ** high > _MAX_ALTERNATIVES:
            return None
        choices.append(["".join(p) for k in range(low, high + 1) for p in itertools.product(spellings, repeat=k)])
    total = 1
    for c in choices:
        total *= len(c)
        if total > _MAX_ALTERNATIVES:
            return None
    return ["".join(p) for p in itertools.product(*choices)] if choices else [""]


def _atoms(alt: str) -> list[tuple[str, int, int | None]]:
    """(atom, min, max) for each atom of ``alt``: max None when unbounded."""
    out: list[tuple[str, int, int | None]] = []
    i, n = 0, len(alt)
    while i < n:
        c = alt[i]
        if c == "\\":
            j = i + 2
            if alt[i + 1] == "U":
                j = i + 10
            elif alt[i + 1] == "u":
                j = i + 6
            elif alt[i + 1] == "x":
                j = i + 4
            end = j
        elif c == "[":
            end = _class_end(alt, i)
        elif c == "(":
            end = _group_end(alt, i)
        else:
            end = i + 1
        atom = alt[i:end]
        low, high, end = _quantifier(alt, end)
        out.append((atom, low, high))
        i = end
    return out


def _quantifier(s: str, i: int) -> tuple[int, int | None, int]:
    low: int
    high: int | None
    if i < len(s) and s[i] in "?*+":
        low, high = (0, 1) if s[i] == "?" else (0 if s[i] == "*" else 1, None)
        i += 1
    elif i < len(s) and (m := _BOUND.match(s, i)):
        low = int(m.group(1))
        high = low if m.group(2) is None else (int(m.group(3)) if m.group(3) else None)
        i = m.end()
    else:
        return 1, 1, i
    if i < len(s) and s[i] in "?+":  # lazy or possessive: the same widths
        i += 1
    return low, high, i


def _top_level(s: str, sep: str) -> list[str]:
    parts, depth, start, i = [], 0, 0, 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = _class_end(s, i)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(s[start:i])
            start = i + 1
        i += 1
    parts.append(s[start:])
    return parts


def _class_end(s: str, i: int) -> int:
    """The index after the Python class starting at ``s[i] == '['``."""
    j = i + 1
    if j < len(s) and s[j] == "^":
        j += 1
    if j < len(s) and s[j] == "]":
        j += 1
    while j < len(s):
        if s[j] == "\\":
            j += 2
            continue
        if s[j] == "]":
            return j + 1
        j += 1
    return len(s)


def _group_end(s: str, i: int) -> int:
    """The index after the group starting at ``s[i] == '('``."""
    depth, j = 0, i
    while j < len(s):
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            j = _class_end(s, j)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(s)
