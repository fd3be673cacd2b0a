"""Locale.US ``WeekFields`` (weeks start on Sunday, week 1 holds January 1st) on day counts, as Java's
``WeekFields.ComputedDayOfField`` resolves and reads them: the pattern letters Y (week-based year), w (week
of week-based year), W (week of month) and e/c (localized day of week).

Why: PARSE_TIMESTAMP resolves a week-based date only when the year, the week and the day of week are all
there (Java's SMART ``resolveWBY`` / ``resolveWoM``); a parsed date is then cross-checked against the week
fields it carries.
"""

from __future__ import annotations

from .civil import _is_leap, civil_from_days, days_from_civil

_SUNDAY_ISO = 7
_MINIMAL_DAYS = 1


def iso_dow(days: int) -> int:
    """ISO day of week (Monday 1 .. Sunday 7) of a day count."""
    return (days + 3) % 7 + 1


def local_dow(days: int) -> int:
    """Locale.US day of week: Sunday 1 .. Saturday 7."""
    return (iso_dow(days) - _SUNDAY_ISO) % 7 + 1


def iso_from_local(ldow: int) -> int:
    return (_SUNDAY_ISO - 1 + ldow - 1) % 7 + 1


def _start_of_week_offset(day: int, dow: int) -> int:
    week_start = (day - dow) % 7
    offset = -week_start
    if week_start + 1 > _MINIMAL_DAYS:
        offset = 7 - week_start
    return offset


def _compute_week(offset: int, day: int) -> int:
    return (7 + offset + (day - 1)) // 7


def _year_length(year: int) -> int:
    return 366 if _is_leap(year) else 365


def of_week_based_year(year: int, week: int, ldow: int) -> int:
    """``ofWeekBasedYear``: the day count of (week-based year, week, localized day of week), the week
    clamped to the year's last."""
    jan1 = days_from_civil(year, 1, 1)
    offset = _start_of_week_offset(1, local_dow(jan1))
    new_year_week = _compute_week(offset, _year_length(year) + _MINIMAL_DAYS)
    week = min(week, new_year_week - 1)
    return jan1 + (-offset + (ldow - 1) + (week - 1) * 7)


def of_week_of_month(year: int, month: int, week: int, ldow: int) -> int:
    """``resolveWoM`` (SMART): the day count of (year, month, week of month, localized day of week)."""
    first = days_from_civil(year, month, 1)
    return first + (week - week_of_month(first)) * 7 + (ldow - local_dow(first))


def week_of_month(days: int) -> int:
    dom = civil_from_days(days)[2]
    return _compute_week(_start_of_week_offset(dom, local_dow(days)), dom)


def week_based(days: int) -> tuple[int, int]:
    """(week-based year, week of week-based year) of a day count."""
    y, _, _ = civil_from_days(days)
    doy = days - days_from_civil(y, 1, 1) + 1
    offset = _start_of_week_offset(doy, local_dow(days))
    week = _compute_week(offset, doy)
    if week == 0:
        return week_based(days - doy)  # the last week of the previous year
    year_len = _year_length(y)
    new_year_week = _compute_week(offset, year_len + _MINIMAL_DAYS)
    if week >= new_year_week:
        return y + 1, week - new_year_week + 1
    return y, week
