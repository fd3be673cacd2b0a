"""Java zone ids (``java.time.ZoneId.of``) as tzinfo, and the zone names Java's text parser reads."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone, tzinfo
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


# Files of the tz database that are no zone java.time knows: ids are looked up case-sensitively in the JDK's
# tzdb.dat, which has no Factory, localtime, posixrules or posix/ and right/ copies, and leaves out ROC.
# EST, MST and HST: region ids of a fixed standard offset in the tz data of the JDKs ksqlDB ran on (tzdata before
# 2024b made them links to America/Panama, America/Phoenix and Pacific/Honolulu, and JDK 17.0.13+ dropped them),
# named by the JDK's locale data for those ids (TimeZoneNameUtility: 'EST' / 'Eastern Standard Time' for the
# standard and the generic name alike; HST is 'Hawaii Standard Time'). Kept fixed whatever the system's tz data.
FIXED_REGIONS: dict[str, tzinfo] = {
    zone_id: timezone(timedelta(hours=hours), zone_id) for zone_id, hours in (("EST", -5), ("MST", -7), ("HST", -10))
}
FIXED_REGION_NAMES: dict[str, tuple[str | None, ...]] = {
    zone_id: (zone_id, full, None, None, zone_id, full)
    for zone_id, full in (("EST", "Eastern Standard Time"), ("MST", "Mountain Standard Time"),
                          ("HST", "Hawaii Standard Time"))
}

_NOT_JAVA_IDS = frozenset(("Factory", "localtime", "posixrules", "ROC"))

_HOUR = timedelta(hours=1)


def _last_sunday(year: int, month: int, last_day: int) -> datetime:
    """02:00 on the Sunday on or after ``last_day - 6`` (the month's last Sunday)."""
    first = datetime(year, month, last_day - 6, 2)
    return first + timedelta(days=(6 - first.weekday()) % 7)


class SystemVZone(tzinfo):
    """One of the JDK's SystemV zones (its own 'systemv' tz file, which the tz database dropped): a fixed
    standard offset and, for the ``...DT`` ones, daylight time (+1h) every year from 1900 from the last Sunday of
    April 02:00 to the last Sunday of October 02:00 wall time (ZoneRules: SUNDAY on or after APRIL 24 / OCTOBER
    25), but from January 6 to November 24 in 1974 and from February 23 in 1975. ``tzname`` is the id, as for
    the other zones whose names come from ``zone_names``."""

    def __init__(self, zone_id: str, standard_hours: int, daylight: bool) -> None:
        self.zone_id = zone_id
        self.standard = timedelta(hours=standard_hours)
        self.daylight = daylight

    def __repr__(self) -> str:
        return f"SystemVZone({self.zone_id!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return _system_v, (self.zone_id,)

    def _bounds(self, year: int) -> tuple[datetime, datetime] | None:
        """Wall-clock start and end of daylight time in ``year`` (standard time before the start, daylight
        time before the end)."""
        if not self.daylight or year < 1900:
            return None
        if year == 1974:  # the US's emergency daylight time, as the JDK's systemv file has it
            return datetime(1974, 1, 6, 2), _last_sunday(1974, 11, 30)
        if year == 1975:
            return datetime(1975, 2, 23, 2), _last_sunday(1975, 10, 31)
        return _last_sunday(year, 4, 30), _last_sunday(year, 10, 31)

    def dst(self, dt: datetime | None) -> timedelta:
        if dt is None:
            return timedelta(0)
        bounds = self._bounds(dt.year)
        if bounds is None:
            return timedelta(0)
        start, end = bounds
        wall = dt.replace(tzinfo=None)
        # a wall time in the gap after the start is read with the offset before it (fold 0), one in the
        # overlap before the end with the earlier, daylight, offset (fold 0), as zoneinfo reads them
        if start + (_HOUR if dt.fold == 0 else timedelta(0)) <= wall < end - (timedelta(0) if dt.fold == 0 else _HOUR):
            return _HOUR
        return timedelta(0)

    def utcoffset(self, dt: datetime | None) -> timedelta:
        return self.standard + self.dst(dt)

    def tzname(self, dt: datetime | None) -> str:
        return self.zone_id

    def fromutc(self, dt: datetime) -> datetime:
        standard = dt.replace(tzinfo=None) + self.standard
        bounds = self._bounds(standard.year)
        if bounds is not None:
            start, end = bounds  # in standard time: the start as written, the end one hour before its wall time
            if start <= standard < end - _HOUR:
                return (standard + _HOUR).replace(tzinfo=self)
            if end - _HOUR <= standard < end:
                return standard.replace(tzinfo=self, fold=1)
        return standard.replace(tzinfo=self)


_SYSTEM_V = {
    f"SystemV/{name}": SystemVZone(f"SystemV/{name}", -hours, name.endswith("DT"))
    for name, hours in (("AST4", 4), ("AST4ADT", 4), ("EST5", 5), ("EST5EDT", 5), ("CST6", 6), ("CST6CDT", 6),
                        ("MST7", 7), ("MST7MDT", 7), ("PST8", 8), ("PST8PDT", 8), ("YST9", 9), ("YST9YDT", 9),
                        ("HST10", 10))
}


def _system_v(zone_id: str) -> SystemVZone:
    return _SYSTEM_V[zone_id]


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
    system_v = _SYSTEM_V.get(zone_id)
    if system_v is not None:
        return system_v
    fixed = FIXED_REGIONS.get(zone_id)
    if fixed is not None:
        return fixed
    if zone_id in _NOT_JAVA_IDS or zone_id.startswith(("posix/", "right/")):
        raise DateTimeError(f"Unknown time-zone ID: {zone_id}")
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
    try:
        return zone_of(text)
    except DateTimeError:
        # ksqlDB's parsers are case-insensitive (parseCaseInsensitive), so ZoneIdPrinterParser reads an id in
        # any case and yields the id as java.time writes it ('america/new_york' is America/New_York)
        canonical = _region_ids_by_upper().get(upper)
        if canonical is None:
            raise
        return zone_of(canonical)


@lru_cache(maxsize=1)
def _region_ids_by_upper() -> dict[str, str]:
    """Java's region ids (the tz database's less what is no Java zone, plus SystemV) by their upper case."""
    from zoneinfo import available_timezones

    ids = {z for z in available_timezones() if z not in _NOT_JAVA_IDS and not z.startswith(("posix/", "right/"))}
    return {z.upper(): z for z in (*ids, *_SYSTEM_V)}
