"""Java's ``Matcher.find`` loop over a Python pattern, by UTF-16 index.

Why: Python's ``finditer`` differs from Java's loop in two ways the regex functions show. After an empty match
at i Java searches again from i + 1, Python from i, where it may still take a non-empty match (``'|a'`` on
``'a'``: Java finds '' at 0 and '' at 1, Python also 'a' at 0). And Java walks UTF-16 units: after an empty
match before a character outside the BMP, or (for a pattern without such characters, Java's ``Start`` node)
after a failed attempt there, it tries the position between the character's two surrogates, so ``x*`` splits
an emoji. A match attempted there runs on the string with only that character cut in two; its text may start
with a lone low surrogate, as the Java string would.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ksqlpy import utf16


@dataclass(frozen=True)
class Found:
    """One match: its bounds in UTF-16 units and the Python match (groups, ``expand``)."""

    start: int
    end: int
    match: re.Match[str]


class _Units:
    """The UTF-16 offsets of a string's code points, and the string cut in two at one of them."""

    def __init__(self, s: str) -> None:
        self.s = s
        self.astral = utf16.has_astral(s)
        offsets = [0]
        if self.astral:
            for c in s:
                offsets.append(offsets[-1] + (2 if ord(c) > 0xFFFF else 1))
        self.offsets = offsets
        self.length = offsets[-1] if self.astral else len(s)

    def unit(self, cp: int) -> int:
        return self.offsets[cp] if self.astral else cp

    def locate(self, unit: int) -> tuple[int, bool]:
        """(code point index, whether the unit is the low surrogate of that code point)."""
        if not self.astral:
            return unit, False
        i = bisect_left(self.offsets, unit)
        if i < len(self.offsets) and self.offsets[i] == unit:
            return i, False
        return i - 1, True

    def cut(self, k: int) -> str:
        return self.s[:k] + utf16.as_units(self.s[k]) + self.s[k + 1 :]

    def cut_unit(self, k: int, p: int) -> int:
        """The UTF-16 offset of index ``p`` of ``cut(k)``."""
        if p <= k:
            return self.offsets[p]
        if p == k + 1:
            return self.offsets[k] + 1
        return self.offsets[p - 1]


def _at_low(p: re.Pattern[str], u: _Units, k: int) -> Found | None:
    """An attempt at the low surrogate of the character at code point ``k``."""
    m = p.match(u.cut(k), k + 1)
    if m is None:
        return None
    return Found(u.cut_unit(k, m.start()), u.cut_unit(k, m.end()), m)


def _find_from(p: re.Pattern[str], u: _Units, unit: int, start_node: bool) -> Found | None:
    """``Matcher.find(unit)``: the first match starting at or after ``unit``."""
    if unit > u.length:
        return None
    cp, low = u.locate(unit)
    if low:
        found = _at_low(p, u, cp)
        if found is not None:
            return found
        cp += 1
    m = p.search(u.s, cp)
    if u.astral and start_node:
        stop = len(u.s) if m is None else m.start()
        for k in range(cp, stop):
            if ord(u.s[k]) > 0xFFFF:
                found = _at_low(p, u, k)
                if found is not None:
                    return found
    if m is None:
        return None
    return Found(u.unit(m.start()), u.unit(m.end()), m)


def _start_node(p: re.Pattern[str]) -> bool:
    """Java scans a pattern holding a character outside the BMP by code point (``StartS``), others by unit."""
    return not utf16.has_astral(p.pattern)


def find_all(p: re.Pattern[str], s: str) -> Iterator[Found]:
    """Every match, as ``while (m.find())`` sees them."""
    u = _Units(s)
    start_node = _start_node(p)
    unit = 0
    while True:
        found = _find_from(p, u, unit, start_node)
        if found is None:
            return
        yield found
        unit = found.end + 1 if found.end == found.start else found.end


def find_first(p: re.Pattern[str], s: str) -> Found | None:
    return next(find_all(p, s), None)


def units_of(s: str) -> str:
    """The string to cut by ``Found`` bounds."""
    return utf16.as_units(s)


def replace_all(p: re.Pattern[str], s: str, template: Callable[[], str]) -> str:
    """``Matcher.replaceAll``: ``template`` gives the Python ``expand`` template; Java reads the replacement
    only when there is a match, so a bad one is no error without."""
    units = units_of(s)
    out: list[str] = []
    index = 0
    for f in find_all(p, s):
        out.append(units[index : f.start])
        out.append(f.match.expand(template()))
        index = f.end
    out.append(units[index:])
    return utf16.joined("".join(out))


def pattern_split(p: re.Pattern[str], s: str) -> list[str]:
    """``Pattern.split(s)``: no leading empty part for a zero-width match at 0, trailing empty parts dropped."""
    units = units_of(s)
    out: list[str] = []
    index = 0
    for f in find_all(p, s):
        if index == 0 and f.start == 0 and f.end == 0:
            continue
        out.append(units[index : f.start])
        index = f.end
    if index == 0:
        return [s]
    out.append(units[index:])
    while out and out[-1] == "":
        out.pop()
    return [utf16.joined(x) for x in out]


def guava_split(p: re.Pattern[str], s: str) -> list[str]:
    """Guava's ``Splitter.on(pattern).splitToList(s)`` (a pattern that cannot match ''): every part kept;
    an empty separator where the last part began moves the search one unit on."""
    u = _Units(s)
    units = units_of(s)
    start_node = _start_node(p)
    out: list[str] = []
    offset = 0
    while offset != -1:
        next_start = offset
        while offset != -1:
            start = next_start
            sep = _find_from(p, u, offset, start_node)
            if sep is None:
                end = u.length
                offset = -1
            else:
                end = sep.start
                offset = sep.end
            if offset == next_start:
                offset += 1
                if offset > u.length:
                    offset = -1
                continue
            out.append(utf16.joined(units[start:end]))
            break
    return out
