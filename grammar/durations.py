"""Durations written as text, like the WITH property ``WINDOW_SIZE='20 SECONDS'``.

ksqlDB validates these while building its AST (so a bad one is a parse failure) with the message
``Invalid duration: '30 bobs'. Unknown time unit: 'BOBS'``; the engine also needs the value in ms.
"""

from __future__ import annotations

# java.util.concurrent.TimeUnit names (singular forms are accepted too) in milliseconds.
_UNITS_MS: dict[str, float] = {
    "NANOSECONDS": 1e-6,
    "MICROSECONDS": 1e-3,
    "MILLISECONDS": 1,
    "SECONDS": 1_000,
    "MINUTES": 60_000,
    "HOURS": 3_600_000,
    "DAYS": 86_400_000,
}


class DurationError(ValueError):
    """A duration string that ksqlDB would not accept; the message is ksqlDB's."""


def parse_duration_text(text: str) -> int:
    """``'<n> <unit>'`` in milliseconds, e.g. ``'20 SECONDS'`` -> 20000."""
    parts = text.split()
    try:
        if len(parts) != 2:
            raise DurationError(f"Expected 2 tokens, got: {len(parts)}")
        amount_text, unit_text = parts
        if not amount_text.lstrip("-").isdigit():
            raise DurationError(f"Not numeric: '{amount_text}'")
        unit = unit_text.upper()
        factor = _UNITS_MS.get(unit, _UNITS_MS.get(unit + "S"))
        if factor is None:
            raise DurationError(f"Unknown time unit: '{unit}'")
    except DurationError as e:
        raise DurationError(f"Invalid duration: '{text}'. {e}") from None
    return int(int(amount_text) * factor)
