"""Java zone ids (``java.time.ZoneId.of``) as tzinfo, and the zone names Java's text parser reads."""

from __future__ import annotations

import re
from datetime import timedelta, timezone, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .base import DateTimeError


def _offset_name(seconds: int) -> str:
    """Java's ZoneOffset id: ``Z`` or ``+01:00`` / ``-05:30`` / ``+01:00:30``."""
    if seconds == 0:
        return "Z"
    sign = "-" if seconds < 0 else "+"
    s = abs(seconds)
    text = f"{sign}{s // 3600:02d}:{s // 60 % 60:02d}"
    return text + (f":{s % 60:02d}" if s % 60 else "")


_OFFSET_ID = re.compile(
    r"([+-])(?:(\d)|(\d{2})|(\d{2}):(\d{2})|(\d{2})(\d{2})|(\d{2}):(\d{2}):(\d{2})|(\d{2})(\d{2})(\d{2}))"
)


def _parse_offset_id(text: str) -> int | None:
    """Seconds of a ``ZoneOffset.of`` id (``+h``, ``+hh``, ``+hh:mm``, ``+hhmm``, ``+hh:mm:ss``, ``+hhmmss``)."""
    m = _OFFSET_ID.fullmatch(text)
    if not m:
        return None
    nums = [int(g) for g in m.groups()[1:] if g is not None]
    hours, minutes, secs = (nums + [0, 0])[:3]
    if hours > 18 or minutes > 59 or secs > 59:
        return None
    total = hours * 3600 + minutes * 60 + secs
    if total > 18 * 3600:
        return None
    return -total if m.group(1) == "-" else total


@lru_cache(maxsize=512)
def zone_of(zone_id: str) -> tzinfo:
    """The tzinfo for a Java zone id: region ids (``America/Los_Angeles``), ``UTC``/``GMT``/``UT``, ``Z``,
    offsets (``+01:00``, ``+0100``, ``-5``) and prefixed offsets (``UTC+01:00``, ``GMT-8``).

    Fixed-offset zones carry Java's id as their name so that the ``z`` pattern letter prints what Java prints.
    """
    if zone_id == "Z":
        return timezone(timedelta(0), "Z")
    if zone_id[:1] in ("+", "-"):
        secs = _parse_offset_id(zone_id)
        if secs is None:
            raise DateTimeError(f"Invalid ID for ZoneOffset, invalid format: {zone_id}")
        return timezone(timedelta(seconds=secs), _offset_name(secs))
    for prefix in ("UTC", "GMT", "UT"):
        if zone_id == prefix:
            return timezone(timedelta(0), prefix)
        if zone_id.startswith(prefix) and zone_id[len(prefix)] in "+-":
            secs = _parse_offset_id(zone_id[len(prefix) :])
            if secs is None:
                raise DateTimeError(f"Invalid ID for offset-based ZoneId: {zone_id}")
            name = prefix if secs == 0 else prefix + _offset_name(secs)
            return timezone(timedelta(seconds=secs), name)
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9~/._+-]+", zone_id):
        raise DateTimeError(f"Invalid ID for region-based ZoneId, invalid format: {zone_id}")
    try:
        return ZoneInfo(zone_id)
    except (ZoneInfoNotFoundError, ValueError, OSError) as e:
        raise DateTimeError(f"Unknown time-zone ID: {zone_id}") from e


UTC_ZONE = zone_of("UTC")

# Zone names Java's text parser maps to a region (``z`` / ``zzzz``); the region's rules then give the offset
# for the parsed local time (so '... PST' in May is UTC-7, as in ksqlDB).
_ZONE_ABBREVIATIONS: dict[str, str] = {
    "PST": "America/Los_Angeles", "PDT": "America/Los_Angeles", "PT": "America/Los_Angeles",
    "MST": "America/Denver", "MDT": "America/Denver", "MT": "America/Denver",
    "CST": "America/Chicago", "CDT": "America/Chicago", "CT": "America/Chicago",
    "EST": "America/New_York", "EDT": "America/New_York", "ET": "America/New_York",
    "AKST": "America/Anchorage", "AKDT": "America/Anchorage", "HST": "Pacific/Honolulu",
    "AST": "America/Halifax", "ADT": "America/Halifax", "NST": "America/St_Johns", "NDT": "America/St_Johns",
    "BST": "Europe/London", "IST": "Asia/Kolkata", "WET": "Europe/Lisbon", "WEST": "Europe/Lisbon",
    "CET": "Europe/Paris", "CEST": "Europe/Paris", "EET": "Europe/Athens", "EEST": "Europe/Athens",
    "MSK": "Europe/Moscow", "JST": "Asia/Tokyo", "KST": "Asia/Seoul", "HKT": "Asia/Hong_Kong",
    "SGT": "Asia/Singapore", "AEST": "Australia/Sydney", "AEDT": "Australia/Sydney",
    "ACST": "Australia/Adelaide", "ACDT": "Australia/Adelaide", "AWST": "Australia/Perth",
    "NZST": "Pacific/Auckland", "NZDT": "Pacific/Auckland", "SAST": "Africa/Johannesburg",
}  # fmt: skip

_ZONE_FULL_NAMES: dict[str, str] = {
    "PST": "Pacific Standard Time", "PDT": "Pacific Daylight Time",
    "MST": "Mountain Standard Time", "MDT": "Mountain Daylight Time",
    "CST": "Central Standard Time", "CDT": "Central Daylight Time",
    "EST": "Eastern Standard Time", "EDT": "Eastern Daylight Time",
    "AKST": "Alaska Standard Time", "AKDT": "Alaska Daylight Time", "HST": "Hawaii-Aleutian Standard Time",
    "GMT": "Greenwich Mean Time", "UTC": "Coordinated Universal Time", "BST": "British Summer Time",
    "IST": "India Standard Time", "WET": "Western European Standard Time", "WEST": "Western European Summer Time",
    "CET": "Central European Standard Time", "CEST": "Central European Summer Time",
    "EET": "Eastern European Standard Time", "EEST": "Eastern European Summer Time",
    "MSK": "Moscow Standard Time", "JST": "Japan Standard Time", "KST": "Korean Standard Time",
    "AEST": "Australian Eastern Standard Time", "AEDT": "Australian Eastern Daylight Time",
}  # fmt: skip

_GENERIC_NAMES: dict[str, tuple[str, str]] = {
    "America/Los_Angeles": ("PT", "Pacific Time"),
    "America/Denver": ("MT", "Mountain Time"),
    "America/Chicago": ("CT", "Central Time"),
    "America/New_York": ("ET", "Eastern Time"),
}


def _zone_from_text(text: str) -> tzinfo:
    """A zone parsed by the ``z``/``zzzz``/``VV``/``v`` letters: an abbreviation, full name, id or offset."""
    upper = text.upper()
    if upper in _ZONE_ABBREVIATIONS:
        return zone_of(_ZONE_ABBREVIATIONS[upper])
    for abbr, full in _ZONE_FULL_NAMES.items():
        if full.upper() == upper:
            return zone_of(_ZONE_ABBREVIATIONS.get(abbr, abbr))
    if upper in ("UTC", "GMT", "UT", "Z"):
        return zone_of(upper)
    for prefix in ("UTC", "GMT", "UT"):
        if upper.startswith(prefix) and upper[len(prefix) : len(prefix) + 1] in ("+", "-"):
            return zone_of(prefix + text[len(prefix) :])
    return zone_of(text)
