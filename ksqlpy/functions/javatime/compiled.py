"""A Java pattern compiled once into a generated formatter and a regex parser (``compile_pattern``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta, timezone, tzinfo
from functools import lru_cache
from typing import Any

from .base import _EPOCH_NAIVE, _EPOCH_UTC, MS_PER_DAY, DateTimeError
from .civil import SAFE_DAYS, SAFE_MS, into_safe_years
from .formatting import _HELPERS, _format_expr, padded
from .parsing import ParsedDateTime, _parse_spec, _resolve, _to_epoch_ms
from .pattern import (
    _JAVA_FIELD_NAMES,
    DATE_FIELDS,
    TIME_FIELDS,
    ZONE_FIELDS,
    _category,
    _Field,
    _lex,
    _Literal,
    _Optional,
)
from .zones import UTC_ZONE, zone_of


class JavaPattern:
    """A Java pattern compiled once: ``format_*`` print values, ``parse_*`` read strings (ksqlDB rules)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.items = _lex(pattern)
        self.categories = self._required_categories(self.items)
        self._formatters: dict[frozenset[str], Callable[..., str]] = {}
        self._parser: tuple[re.Pattern[str], list[tuple[str, str, Callable[[str], Any]]]] | None = None
        # Validate letters/counts eagerly so a bad pattern fails when the query starts, not per record.
        self.formatter(frozenset((DATE_FIELDS, TIME_FIELDS, ZONE_FIELDS)))

    @staticmethod
    def _required_categories(items: list[Any]) -> frozenset[str]:
        """Categories of fields outside optional sections (those must be printable)."""
        return frozenset(_category(it.letter) for it in items if isinstance(it, _Field))

    def _all_fields(self, items: list[Any] | None = None) -> list[_Field]:
        out: list[_Field] = []
        for it in self.items if items is None else items:
            if isinstance(it, _Field):
                out.append(it)
            elif isinstance(it, _Optional):
                out.extend(self._all_fields(it.items))
        return out

    @property
    def has_date_fields(self) -> bool:
        return any(_category(f.letter) == DATE_FIELDS for f in self._all_fields())

    @property
    def has_time_fields(self) -> bool:
        return any(_category(f.letter) == TIME_FIELDS for f in self._all_fields())

    # -- formatting ------------------------------------------------------------------------------------

    def formatter(self, available: frozenset[str]) -> Callable[..., str]:
        """A generated function printing a datetime whose ``available`` field categories are meaningful."""
        fn = self._formatters.get(available)
        if fn is not None:
            return fn
        missing = [f for f in self.items if isinstance(f, _Field) and _category(f.letter) not in available]
        if missing:
            name = _JAVA_FIELD_NAMES.get(missing[0].letter, missing[0].letter)
            raise DateTimeError(f"Unsupported field: {name}")
        ns = dict(_HELPERS)
        template: list[str] = []  # f-string source: escaped literal text and {field} replacements

        def emit(items: list[Any]) -> None:
            for it in items:
                if isinstance(it, _Literal):
                    template.append(it.text.replace("{", "{{").replace("}", "}}"))
                elif isinstance(it, _Field):
                    body = _format_expr(it, ns)
                    template.append("{" + (padded(body, it.pad, ns) if it.pad else body) + "}")
                else:  # optional section: printed when all its fields are available
                    fields = self._all_fields(it.items)
                    if all(_category(f.letter) in available for f in fields):
                        emit(it.items)
                    else:
                        for f in fields:  # still validate the letters
                            _format_expr(f, {})

        emit(self.items)
        src = f"def _fmt(d, ys=0):\n    return f{''.join(template)!r}\n"
        exec(compile(src, f"<java pattern {self.pattern!r}>", "exec"), ns)
        fn = ns["_fmt"]
        self._formatters[available] = fn
        return fn

    def format_timestamp(self, ms: int, zone: tzinfo = UTC_ZONE) -> str:
        if not SAFE_MS[0] <= ms < SAFE_MS[1]:  # outside what a Python datetime holds: no memo
            ms, ys = into_safe_years(ms, MS_PER_DAY)
            if isinstance(zone, timezone):
                d = (_EPOCH_NAIVE + timedelta(milliseconds=ms) + zone.utcoffset(None)).replace(tzinfo=zone)
            else:
                d = (_EPOCH_UTC + timedelta(milliseconds=ms)).astimezone(zone)
            return self.formatter(_ALL)(d, ys)
        if isinstance(zone, timezone):  # fixed offset: no zone rules to consult
            off = zone.utcoffset(None)
            unit = self._unit
            if unit:  # every instant of one local day (hour, minute...) prints the same: memoised by it
                memo = self._memo.get((off, zone.tzname(None)))
                if memo is None:
                    memo = self._memo[(off, zone.tzname(None))] = {}
                k = (ms + off // _ONE_MS) // unit
                text = memo.get(k)
                if text is None:
                    if len(memo) >= _MEMO_MAX:
                        memo.clear()
                    d = (_EPOCH_NAIVE + timedelta(milliseconds=ms) + off).replace(tzinfo=zone)
                    text = memo[k] = self.formatter(_ALL)(d)
                return text
            d = (_EPOCH_NAIVE + timedelta(milliseconds=ms) + off).replace(tzinfo=zone)
        else:
            d = (_EPOCH_UTC + timedelta(milliseconds=ms)).astimezone(zone)
        return self.formatter(_ALL)(d)

    def timestamp_formatter(self, zone: tzinfo) -> Callable[[int], str]:
        """``format_timestamp`` with the zone bound: a memo lookup per call where one applies (a fixed
        offset, nothing finer than a second printed) - what a query calls per record."""
        if not isinstance(zone, timezone) or not self._unit:
            return lambda ms: self.format_timestamp(ms, zone)
        off = zone.utcoffset(None)
        off_ms, unit = off // _ONE_MS, self._unit
        # the one format_timestamp fills (cleared in place); by offset and name, as zones of one offset
        # print different names (UTC+05:00, GMT+05:00, +05:00) - timezone objects compare by offset alone
        memo = self._memo.setdefault((off, zone.tzname(None)), {})
        slow = self.format_timestamp

        def fmt(ms: int) -> str:
            text = memo.get((ms + off_ms) // unit)
            return text if text is not None else slow(ms, zone)

        return fmt

    @property
    def _unit(self) -> int:
        """The pattern's finest field as a span of local time in ms (a day for ``yyyy-MM-dd``), 0 when it
        prints sub-second fields or a letter not known here (no memo then)."""
        unit = self.__dict__.get("_unit_ms")
        if unit is None:
            spans = [_FIELD_SPAN_MS.get(f.letter, 0) for f in self._all_fields()]
            unit = self.__dict__["_unit_ms"] = min(spans, default=0) if all(spans) else 0
            self._memo: dict[tuple[timedelta, str | None], dict[int, str]] = {}
        return unit

    def format_date(self, days: int) -> str:
        ys = 0
        if not SAFE_DAYS[0] <= days < SAFE_DAYS[1]:
            days, ys = into_safe_years(days, 1)
        return self.formatter(_DATE_ONLY)(_EPOCH_NAIVE + timedelta(days=days), ys)

    def format_time(self, ms: int) -> str:
        return self.formatter(_TIME_ONLY)(_EPOCH_NAIVE + timedelta(milliseconds=ms % MS_PER_DAY))

    # -- parsing ---------------------------------------------------------------------------------------

    def _compile_parser(self) -> tuple[re.Pattern[str], list[tuple[str, str, Callable[[str], Any]]]]:
        if self._parser is not None:
            return self._parser
        specs: list[tuple[str, str, Callable[[str], Any]]] = []

        def build(items: list[Any]) -> str:
            out = []
            for it in items:
                if isinstance(it, _Literal):
                    out.append(re.escape(it.text))
                elif isinstance(it, _Field):
                    regex, key, conv = _parse_spec(it)
                    group = f"g{len(specs)}"
                    specs.append((group, key, conv))
                    out.append(f"(?P<{group}>{regex})")
                else:
                    out.append(f"(?:{build(it.items)})?")
            return "".join(out)

        regex = re.compile(build(self.items), re.IGNORECASE | re.ASCII)  # Java reads ASCII digits only
        self._parser = (regex, specs)
        return self._parser

    def parse_fields(self, text: str, *, prefix: bool = False) -> dict[str, Any]:
        """The raw field values in ``text``; DateTimeError if it does not match the whole pattern.

        ``prefix``: the pattern need only match the start of ``text`` (Java's ``parse(text, ParsePosition)``,
        which stops where the pattern ends and ignores what follows)."""
        regex, specs = self._compile_parser()
        m = regex.match(text) if prefix else regex.fullmatch(text)
        if m is None:
            raise DateTimeError(f"Text '{text}' could not be parsed with pattern '{self.pattern}'")
        out: dict[str, Any] = {}
        for group, key, conv in specs:
            raw = m.group(group)
            if raw is None:
                continue
            try:
                value = conv(raw)
            except (KeyError, ValueError) as e:
                raise DateTimeError(f"Text '{text}' could not be parsed: {e}") from e
            if key in out and out[key] != value:
                raise DateTimeError(f"Text '{text}' could not be parsed: conflicting values for {key}")
            out[key] = value
        return out

    def parse(self, text: str, *, prefix: bool = False) -> ParsedDateTime:
        """Parse and resolve ``text`` (defaults 1970-01-01T00:00, SMART resolution)."""
        return _resolve(self.parse_fields(text, prefix=prefix), text)

    def parse_timestamp(self, text: str, zone: tzinfo = UTC_ZONE) -> int:
        """Epoch millis of ``text``; ``zone`` applies when the text carries no offset or zone."""
        p = self.parse(text)
        return _to_epoch_ms(p, zone)

    def parse_date(self, text: str) -> int:
        """Epoch days of ``text`` (PARSE_DATE: a pattern with time fields is rejected). As ksqlDB's
        PARSE_DATE, text after what the pattern reads is ignored (``2003-12-24-01-01`` with ``yyyy-MM-dd``)."""
        if self.has_time_fields:
            raise DateTimeError("Date format contains time field.")
        return self.parse(text, prefix=True).days

    def parse_time(self, text: str) -> int:
        """Milliseconds since midnight of ``text`` (PARSE_TIME: a pattern with date fields is rejected)."""
        if self.has_date_fields:
            raise DateTimeError("Time format contains date field.")
        return self.parse(text).nanos // 1_000_000


_ALL = frozenset((DATE_FIELDS, TIME_FIELDS, ZONE_FIELDS))
_ONE_MS = timedelta(milliseconds=1)
_MEMO_MAX = 4096
# the local-time span over which a field's printed value cannot change (zone letters: constant for a fixed
# offset). Fields finer than a second, and letters not listed, turn the memo off.
_DAY, _HOUR = 86_400_000, 3_600_000
_FIELD_SPAN_MS = {**dict.fromkeys("GuyYDMLdQqwWEecFg", _DAY), **dict.fromkeys("ahKkH", _HOUR), "m": 60_000,
                  "B": 60_000,  # midnight and noon are one minute each
                  "s": 1000, **dict.fromkeys("VzOXxZv", _DAY)}
_DATE_ONLY = frozenset((DATE_FIELDS,))
_TIME_ONLY = frozenset((TIME_FIELDS,))


@lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> JavaPattern:
    """The compiled form of a Java DateTimeFormatter pattern (cached: patterns are usually literals)."""
    return JavaPattern(pattern)


def timestamp_parser(pattern: str, zone: str = "UTC") -> Callable[[str], int]:
    """A ``str -> epoch ms`` function for a source's ``TIMESTAMP_FORMAT`` (ksqlDB's StringToTimestampParser).

    Raises DateTimeError for text that does not match; the timestamp extractor decides what to do with it.
    """
    p = compile_pattern(pattern)
    tz = zone_of(zone)
    return lambda text: p.parse_timestamp(text, tz)


def timestamp_formatter(pattern: str, zone: str = "UTC") -> Callable[[int], str]:
    """An ``epoch ms -> str`` function for a pattern and zone."""
    p = compile_pattern(pattern)
    tz = zone_of(zone)
    return lambda ms: p.format_timestamp(ms, tz)
