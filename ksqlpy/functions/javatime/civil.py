"""Proleptic Gregorian calendar arithmetic on day counts: any year, no datetime range limits."""

from __future__ import annotations

from .base import MS_PER_DAY


def days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a (valid) proleptic Gregorian date."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z: int) -> tuple[int, int, int]:
    """(year, month, day) of a day count since 1970-01-01."""
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return y + (m <= 2), m, d


def _is_leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def _month_length(y: int, m: int) -> int:
    if m == 2:
        return 29 if _is_leap(y) else 28
    return 30 if m in (4, 6, 9, 11) else 31


# java.time prints any year of a Java long's instants (+/-292 million years); Python datetimes hold 1..9999.
# Values outside years 1000..8999 are moved by whole 400-year Gregorian cycles (146097 days, whole weeks: the
# same month, day, weekday and day of year) into 2400..2799 (later ones: zones follow their last rules, as
# java.time's ZoneRules do past the last transition) or 400..799 (earlier ones: before any transition, local
# mean time in both); the formatter adds the moved years back to the fields that print the year.
_CYCLE_DAYS, _CYCLE_YEARS = 146_097, 400
SAFE_DAYS = (days_from_civil(1000, 1, 1), days_from_civil(9000, 1, 1))
SAFE_MS = (SAFE_DAYS[0] * MS_PER_DAY, SAFE_DAYS[1] * MS_PER_DAY)
_LATE_BASE, _EARLY_BASE = days_from_civil(2400, 1, 1), days_from_civil(400, 1, 1)


def into_safe_years(value: int, unit: int) -> tuple[int, int]:
    """``value`` (days when ``unit`` is 1, ms when it is MS_PER_DAY) moved by whole cycles into years
    2400..2799 or 400..799, and the years it was moved by."""
    base = (_LATE_BASE if value >= SAFE_DAYS[1] * unit else _EARLY_BASE) * unit
    cycles = (value - base) // (_CYCLE_DAYS * unit)
    return value - cycles * _CYCLE_DAYS * unit, cycles * _CYCLE_YEARS
