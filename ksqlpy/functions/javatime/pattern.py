"""A Java DateTimeFormatter pattern lexed into fields, literals and optional sections, and what each
pattern letter means: its field category (date, time, zone), its Java field name and the Locale.US texts
and offset styles that formatting and parsing share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .base import DateTimeError


@dataclass
class _Field:
    letter: str
    count: int
    pad: int = 0  # 'p' letters before it: printed right-aligned in that many characters (padNext)


@dataclass
class _Literal:
    text: str


@dataclass
class _Optional:
    items: list[Any] = field(default_factory=list)


_KNOWN_LETTERS = set("GuyDMLdQqYwWEecFgaBhKkHmsSAnNVvzOXxZ")
_RESERVED = set("#{}")


def _lex(pattern: str) -> list[Any]:
    """Split a Java pattern into fields, literals and optional sections (DateTimeFormatterBuilder rules)."""
    root: list[Any] = []
    stack: list[list[Any]] = [root]
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if ("A" <= c <= "Z") or ("a" <= c <= "z"):
            j = i
            while j < n and pattern[j] == c:
                j += 1
            pad = 0
            if c == "p":  # padNext(count of p) for the letter run that follows (DateTimeFormatterBuilder)
                if j < n and (("A" <= pattern[j] <= "Z") or ("a" <= pattern[j] <= "z")):
                    pad, i, c = j - i, j, pattern[j]
                    while j < n and pattern[j] == c:
                        j += 1
                else:
                    raise DateTimeError(f"Pad letter 'p' must be followed by valid pad pattern: {pattern}")
            if c not in _KNOWN_LETTERS:
                raise DateTimeError(f"Unknown pattern letter: {c}")
            stack[-1].append(_Field(c, j - i, pad))
            i = j
        elif c == "'":
            j = i + 1
            buf = []
            while True:
                if j >= n:
                    raise DateTimeError(f"Pattern ends with an incomplete string literal: {pattern}")
                if pattern[j] == "'":
                    if j + 1 < n and pattern[j + 1] == "'":
                        buf.append("'")
                        j += 2
                        continue
                    break
                buf.append(pattern[j])
                j += 1
            stack[-1].append(_Literal("".join(buf) if buf else "'"))
            i = j + 1
        elif c == "[":
            opt = _Optional()
            stack[-1].append(opt)
            stack.append(opt.items)
            i += 1
        elif c == "]":
            if len(stack) == 1:
                raise DateTimeError("Pattern invalid as it contains ] without previous [")
            stack.pop()
            i += 1
        elif c in _RESERVED:
            raise DateTimeError(f"Pattern includes reserved character: '{c}'")
        else:
            stack[-1].append(_Literal(c))
            i += 1
    return root


_MONTHS_FULL = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]  # fmt: skip
_MONTHS_SHORT = [m[:3] for m in _MONTHS_FULL]
_MONTHS_NARROW = [m[0] for m in _MONTHS_FULL]
_DAYS_FULL = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_DAYS_SHORT = [d[:3] for d in _DAYS_FULL]
_DAYS_NARROW = [d[0] for d in _DAYS_FULL]
_QUARTERS_FULL = ["1st quarter", "2nd quarter", "3rd quarter", "4th quarter"]
_QUARTERS_SHORT = ["Q1", "Q2", "Q3", "Q4"]
_AMPM = ("AM", "PM")


@dataclass(frozen=True)
class DayPeriod:
    """One of Locale.US's day periods (CLDR's English dayPeriodRules, as java.time's ``B`` letter reads them):
    minutes of the day from ``start`` to ``end`` (exclusive, wrapping past midnight; midnight and noon are
    their one minute), its text (SHORT and FULL alike in English) and NARROW text."""

    start: int
    end: int
    text: str
    narrow: str

    def includes(self, minute_of_day: int) -> bool:
        if self.start < self.end:
            return self.start <= minute_of_day < self.end
        return minute_of_day >= self.start or minute_of_day < self.end

    def mid(self) -> int:
        """DayPeriod.mid(): the time a period alone parses to."""
        length = (self.end - self.start) % 1440
        return (self.start + length // 2) % 1440

    def __str__(self) -> str:
        """DayPeriod.toString as Java's conflict message prints it: ``DayPeriod(12:00-18:00)``, or one time."""
        def hm(m: int) -> str:
            return f"{m // 60:02d}:{m % 60:02d}"
        if self.end - self.start == 1:
            return f"DayPeriod({hm(self.start)})"
        return f"DayPeriod({hm(self.start)}-{hm(self.end)})"


# In the order DayPeriodPrinterParser tries them: midnight and noon before the periods that contain them.
DAY_PERIODS = (
    DayPeriod(0, 1, "midnight", "mi"), DayPeriod(720, 721, "noon", "n"),
    DayPeriod(360, 720, "in the morning", "in the morning"),
    DayPeriod(720, 1080, "in the afternoon", "in the afternoon"),
    DayPeriod(1080, 1260, "in the evening", "in the evening"),
    DayPeriod(1260, 360, "at night", "at night"),
)  # fmt: skip


def day_period_of(minute_of_day: int) -> DayPeriod:
    return next(p for p in DAY_PERIODS if p.includes(minute_of_day))

DATE_FIELDS = "date"
TIME_FIELDS = "time"
ZONE_FIELDS = "zone"

_JAVA_FIELD_NAMES = {
    "G": "Era", "u": "Year", "y": "YearOfEra", "D": "DayOfYear", "M": "MonthOfYear", "L": "MonthOfYear",
    "d": "DayOfMonth", "Q": "QuarterOfYear", "q": "QuarterOfYear", "Y": "WeekBasedYear",
    "w": "WeekOfWeekBasedYear", "W": "WeekOfMonth", "E": "DayOfWeek", "e": "DayOfWeek", "c": "DayOfWeek",
    "F": "AlignedDayOfWeekInMonth", "g": "ModifiedJulianDay", "a": "AmPmOfDay", "B": "HourOfDay", "h": "ClockHourOfAmPm", "K": "HourOfAmPm",
    "k": "ClockHourOfDay", "H": "HourOfDay", "m": "MinuteOfHour", "s": "SecondOfMinute", "S": "NanoOfSecond",
    "A": "MilliOfDay", "n": "NanoOfSecond", "N": "NanoOfDay", "V": "ZoneId", "v": "ZoneId", "z": "ZoneId",
    "O": "OffsetSeconds", "X": "OffsetSeconds", "x": "OffsetSeconds", "Z": "OffsetSeconds",
}  # fmt: skip


def _category(letter: str) -> str:
    if letter in "GuyDMLdQqYwWEecFg":
        return DATE_FIELDS
    if letter in "aBhKkHmsSAnN":
        return TIME_FIELDS
    return ZONE_FIELDS


def day_period_letters(n: int) -> bool:
    """``B`` (SHORT), ``BBBB`` (FULL) or ``BBBBB`` (NARROW), else Java's pattern error; True for NARROW."""
    if n not in (1, 4, 5):
        raise DateTimeError("Wrong number of pattern letters: B")
    return n == 5


def _too_many(letter: str) -> DateTimeError:
    return DateTimeError(f"Too many pattern letters: {letter}")


# Offset styles (DateTimeFormatterBuilder.appendOffset patterns) for X/x/Z.
_OFFSET_STYLES = {
    ("X", 1): ("+HHmm", "Z"), ("X", 2): ("+HHMM", "Z"), ("X", 3): ("+HH:MM", "Z"),
    ("X", 4): ("+HHMMss", "Z"), ("X", 5): ("+HH:MM:ss", "Z"),
    ("x", 1): ("+HHmm", "+00"), ("x", 2): ("+HHMM", "+0000"), ("x", 3): ("+HH:MM", "+00:00"),
    ("x", 4): ("+HHMMss", "+0000"), ("x", 5): ("+HH:MM:ss", "+00:00"),
    ("Z", 1): ("+HHMM", "+0000"), ("Z", 2): ("+HHMM", "+0000"), ("Z", 3): ("+HHMM", "+0000"),
    ("Z", 5): ("+HH:MM:ss", "Z"),
}  # fmt: skip
