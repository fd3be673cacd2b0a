"""Durations written as text, like the WITH property ``WINDOW_SIZE='20 SECONDS'``.

ksqlDB validates these while building its AST (so a bad one is a parse failure) with the message
``Invalid duration: '30 bobs'. Unknown time unit: 'BOBS'`` and the list of units; the engine also needs the
value in ms. ksqlDB's ``DurationParser`` splits on each single whitespace character (Java's
``text.split("\\s")``: two spaces make an empty token, trailing empty tokens are dropped) and reads the amount
with ``Long.parseLong`` (an optional sign, decimal digits).
"""

from __future__ import annotations

import re

# java.util.concurrent.TimeUnit names (singular forms are accepted too) in nanoseconds, so that a duration
# below a millisecond keeps its sign (``'10 NANOSECONDS'`` is a positive duration of 0 ms).
_UNITS_NS: dict[str, int] = {
    "NANOSECONDS": 1,
    "MICROSECONDS": 1_000,
    "MILLISECONDS": 1_000_000,
    "SECONDS": 1_000_000_000,
    "MINUTES": 60_000_000_000,
    "HOURS": 3_600_000_000_000,
    "DAYS": 86_400_000_000_000,
}
_NANOS_PER_MS = 1_000_000


class DurationError(ValueError):
    """A duration string that ksqlDB would not accept; the message is ksqlDB's."""


_LONG = re.compile(r"[+-]?[0-9]+")
_SUPPORTED = ", ".join(_UNITS_NS)


def _java_split(text: str) -> list[str]:
    """Java's ``String.split("\\s")``: one token per whitespace character, trailing empty tokens dropped."""
    parts = re.split(r"[ \t\n\x0b\f\r]", text)
    while len(parts) > 1 and parts[-1] == "":
        parts.pop()
    return parts


def parse_duration_text(text: str) -> int:
    """``'<n> <unit>'`` in milliseconds, e.g. ``'20 SECONDS'`` -> 20000 (Java's ``Duration.toMillis``: whole
    milliseconds, truncated toward zero)."""
    nanos = parse_duration_nanos(text)
    millis = abs(nanos) // _NANOS_PER_MS
    return millis if nanos >= 0 else -millis


def parse_duration_nanos(text: str) -> int:
    """``'<n> <unit>'`` in nanoseconds: the exact duration, whose sign ``WindowInfo`` checks."""
    parts = _java_split(text)
    try:
        if len(parts) != 2:
            raise DurationError(f"Expected 2 tokens, got: {len(parts)}")
        amount_text, unit_text = parts
        if not _LONG.fullmatch(amount_text) or not -2**63 <= int(amount_text) < 2**63:
            raise DurationError(f"Not numeric: '{amount_text}'")
        unit = unit_text.upper()
        factor = _UNITS_NS.get(unit) if unit.endswith("S") else _UNITS_NS.get(unit + "S")
        if factor is None:
            raise DurationError(f"Unknown time unit: '{unit}'\nSupported time units are: {_SUPPORTED}")
    except DurationError as e:
        raise DurationError(f"Invalid duration: '{text}'. {e}") from None
    return int(amount_text) * factor
