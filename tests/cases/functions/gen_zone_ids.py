"""Zone ids as java.time's ZoneId.of reads them (from memory of ZoneId.of / ZoneRegion.ofId and the JDK's
tzdb.dat, expected values printed by JDK 17): a region id is looked up case-sensitively among the zones the
JDK knows - the tz database's, less the files that are no zone there (Factory, localtime, posixrules, posix/...,
right/...) and ROC, plus the JDK's own SystemV zones (SystemV/AST4, AST4ADT, EST5, EST5EDT, CST6, CST6CDT, MST7,
MST7MDT, PST8, PST8PDT, YST9, YST9YDT, HST10: a fixed standard offset, the ...DT ones with daylight time from
the last Sunday of April to the last Sunday of October, January 6 to November 24 in 1974, from February 23 in
1975; their names are the US zones' ones). An unknown id is 'Unknown time-zone ID' (CONVERT_TZ: 'Invalid time
zone: ...'): the processing log, and NULL. Scope: FORMAT_TIMESTAMP (z, zzzz, v, VV, O), PARSE_TIMESTAMP (the zone
argument and a VV text), CONVERT_TZ, TIMESTAMPTOSTRING, STRINGTOTIMESTAMP; and which of a zone's two offsets a
local time in its overlap is parsed with.

Writes tests/cases/functions/zone-ids.json: ``python tests/cases/functions/gen_zone_ids.py``.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

# TS is 2024-07-01T00:00Z (summer: the ...DT zones in daylight time); OLD is 1975-04-03T11:04:44.493Z (daylight
# time since February 23 in the SystemV zones of 1975), EMERGENCY 1974-03-19T07:52:44.095Z (since January 6)
COLUMNS = "TS TIMESTAMP, OLD TIMESTAMP, EMERGENCY TIMESTAMP, Z STRING"
ROW = {"TS": 1719792000000, "OLD": 165755084493, "EMERGENCY": 132911564095, "Z": "SystemV/PST8PDT"}

SYSTEM_V = [
    ("FORMAT_TIMESTAMP(TS, 'yyyy-MM-dd HH:mm z VV', 'SystemV/PST8PDT')", "2024-06-30 17:00 PDT SystemV/PST8PDT"),
    ("FORMAT_TIMESTAMP(TS, 'yyyy-MM-dd HH:mm z VV', Z)", "2024-06-30 17:00 PDT SystemV/PST8PDT"),
    ("FORMAT_TIMESTAMP(TS, 'yyyy-MM-dd HH:mm zzzz', 'SystemV/YST9YDT')", "2024-06-30 16:00 Alaska Daylight Time"),
    ("FORMAT_TIMESTAMP(TS, 'yyyy-MM-dd HH:mm z O', 'SystemV/HST10')", "2024-06-30 14:00 HST GMT-10"),
    ("FORMAT_TIMESTAMP(TS, 'yyyy-MM-dd HH:mm v', 'SystemV/AST4ADT')", "2024-06-30 21:00 AT"),
    ("FORMAT_TIMESTAMP(OLD, 'yyyy-MM-dd HH:mm z', 'SystemV/CST6CDT')", "1975-04-03 06:04 CDT"),
    ("FORMAT_TIMESTAMP(EMERGENCY, 'yyyy-MM-dd HH:mm z', 'SystemV/EST5EDT')", "1974-03-19 03:52 EDT"),
    ("TIMESTAMPTOSTRING(1719792000000, 'HH:mm', 'SystemV/PST8')", "16:00"),
    ("UNIX_TIMESTAMP(PARSE_TIMESTAMP('2024-07-01 12:00', 'yyyy-MM-dd HH:mm', 'SystemV/MST7MDT'))", 1719856800000),
    ("UNIX_TIMESTAMP(PARSE_TIMESTAMP('2024-07-01 12:00', 'yyyy-MM-dd HH:mm', 'SystemV/MST7'))", 1719860400000),
    ("UNIX_TIMESTAMP(PARSE_TIMESTAMP('2024-07-01 12:00 SystemV/PST8PDT', 'yyyy-MM-dd HH:mm VV'))", 1719860400000),
    ("STRINGTOTIMESTAMP('2024-04-28 02:30', 'yyyy-MM-dd HH:mm', 'SystemV/CST6CDT')", 1714293000000),  # the gap
    ("UNIX_TIMESTAMP(CONVERT_TZ(TS, 'UTC', 'SystemV/PST8PDT'))", 1719766800000),
    ("UNIX_TIMESTAMP(CONVERT_TZ(TS, 'UTC', 'SystemV/PST8'))", 1719763200000),
    ("UNIX_TIMESTAMP(CONVERT_TZ(TS, 'SystemV/EST5EDT', 'UTC'))", 1719806400000),
]

NOT_JAVA = [
    (f"FORMAT_TIMESTAMP(TS, 'yyyy HH', '{z}')", None)
    for z in ("Factory", "localtime", "posixrules", "posix/UTC", "right/UTC", "ROC", "systemv/PST8", "SystemV",
              "SYSTEMV/PST8PDT", "utc", "america/new_york")
] + [
    ("FORMAT_TIMESTAMP(TS, 'yyyy HH', 'Asia/Taipei')", "2024 08"),
    ("UNIX_TIMESTAMP(CONVERT_TZ(TS, 'UTC', 'Factory'))", None),
    ("UNIX_TIMESTAMP(CONVERT_TZ(TS, 'ROC', 'UTC'))", None),
    ("UNIX_TIMESTAMP(PARSE_TIMESTAMP('2024-07-01 12:00', 'yyyy-MM-dd HH:mm', 'posixrules'))", None),
    ("UNIX_TIMESTAMP(PARSE_TIMESTAMP('2024-07-01 12:00 posixrules', 'yyyy-MM-dd HH:mm VV'))", None),
    ("UNIX_TIMESTAMP(PARSE_TIMESTAMP('2024-07-01 12:00 right/UTC', 'yyyy-MM-dd HH:mm VV'))", None),
]

# A local time a zone passes twice (clocks go back): ksqlDB's StringToTimestampParser sets each parsed field on
# 1970-01-01T00:00 in the zone with ZonedDateTime.with, which keeps the offset the date-time had before where it
# is one of the two - so the offset of the date's day of year in 1970 decides (New York's November 1970 was
# standard time: the later instant; London kept +01:00 all 1970: the earlier). A zone parsed with the date and
# time makes the instant directly (LocalDateTime.atZone): the earlier one. A gap moves the time later.
OVERLAPS = [
    ("STRINGTOTIMESTAMP('2024-11-03 01:30', 'yyyy-MM-dd HH:mm', 'America/New_York')", 1730615400000),
    ("STRINGTOTIMESTAMP('2024-11-03 00:59', 'yyyy-MM-dd HH:mm', 'America/New_York')", 1730609940000),
    ("STRINGTOTIMESTAMP('2024-11-03 02:00', 'yyyy-MM-dd HH:mm', 'America/New_York')", 1730617200000),
    ("STRINGTOTIMESTAMP('2024-03-10 02:30', 'yyyy-MM-dd HH:mm', 'America/New_York')", 1710055800000),
    ("STRINGTOTIMESTAMP('2024-308 01:30', 'yyyy-DDD HH:mm', 'America/New_York')", 1730615400000),
    ("STRINGTOTIMESTAMP('Sun 1961-10-29 01:30', 'EEE yyyy-MM-dd HH:mm', 'America/New_York')", -257967000000),
    ("STRINGTOTIMESTAMP('10-25 01:30', 'MM-dd HH:mm', 'America/New_York')", 25684200000),
    ("STRINGTOTIMESTAMP('2024-10-27 01:30', 'yyyy-MM-dd HH:mm', 'Europe/London')", 1729989000000),
    ("STRINGTOTIMESTAMP('2024-10-27 01:30', 'yyyy-MM-dd HH:mm', 'Europe/Dublin')", 1729989000000),
    ("STRINGTOTIMESTAMP('2024-04-07 02:30', 'yyyy-MM-dd HH:mm', 'Australia/Sydney')", 1712421000000),
    ("UNIX_TIMESTAMP(PARSE_TIMESTAMP('2024-11-03 01:30:15.250', 'yyyy-MM-dd HH:mm:ss.SSS', 'America/Los_Angeles'))",
     1730626215250),
    ("STRINGTOTIMESTAMP('2024-10-27 01:30', 'yyyy-MM-dd HH:mm', 'SystemV/EST5EDT')", 1730010600000),
    ("STRINGTOTIMESTAMP('2024-11-03 01:30 America/Chicago', 'yyyy-MM-dd HH:mm VV')", 1730615400000),
    ("STRINGTOTIMESTAMP('2024-11-03 01:30 PST', 'yyyy-MM-dd HH:mm z')", 1730622600000),
    ("STRINGTOTIMESTAMP('2024-11-03 01:30 PDT', 'yyyy-MM-dd HH:mm z')", 1730622600000),
]

# EST, MST and HST: region ids of a fixed standard offset in the tz data of the JDKs ksqlDB ran on (before tzdata
# 2024b; JDK 17.0.13+ no longer has them), named by the JDK's locale data for those ids (standard and generic
# names alike: TimeZoneNameUtility, printed by JDK 17 for the ids); fixed also before 1908 (America/Panama's
# LMT is not theirs). OLD1900 is 1900-01-01T00:00Z.
FIXED_REGIONS = [
    ("FORMAT_TIMESTAMP(TS, 'yyyy-MM-dd HH:mm z|zzzz|v|vvvv|VV|O', 'EST')",
     "2024-06-30 19:00 EST|Eastern Standard Time|EST|Eastern Standard Time|EST|GMT-5"),
    ("FORMAT_TIMESTAMP(TS, 'HH:mm z|zzzz|v|vvvv|VV|O', 'MST')",
     "17:00 MST|Mountain Standard Time|MST|Mountain Standard Time|MST|GMT-7"),
    ("FORMAT_TIMESTAMP(TS, 'HH:mm z|zzzz|v|vvvv|VV|O', 'HST')",
     "14:00 HST|Hawaii Standard Time|HST|Hawaii Standard Time|HST|GMT-10"),
    ("FORMAT_TIMESTAMP(FROM_UNIXTIME(-2208988800000), 'yyyy-MM-dd HH:mm O', 'EST')", "1899-12-31 19:00 GMT-5"),
    ("TIMESTAMPTOSTRING(0, 'HH:mm zzzz', 'HST')", "14:00 Hawaii Standard Time"),
    ("UNIX_TIMESTAMP(PARSE_TIMESTAMP('2024-07-01 12:00', 'yyyy-MM-dd HH:mm', 'HST'))", 1719871200000),
    ("UNIX_TIMESTAMP(PARSE_TIMESTAMP('2024-07-01 12:00 MST', 'yyyy-MM-dd HH:mm VV'))", 1719856800000),
    ("UNIX_TIMESTAMP(CONVERT_TZ(TS, 'EST', 'UTC'))", 1719810000000),
    ("FORMAT_TIMESTAMP(TS, 'HH:mm', 'est')", None),
]

# ksqlDB's parsers are case-insensitive, so a VV text names a zone id in any case (the zone argument does not)
ID_TEXTS = [
    ("STRINGTOTIMESTAMP('2024-01-01 00:00 america/new_york', 'yyyy-MM-dd HH:mm VV')", 1704085200000),
    ("STRINGTOTIMESTAMP('2024-01-01 00:00 ASIA/KOLKATA', 'yyyy-MM-dd HH:mm VV')", 1704047400000),
    ("STRINGTOTIMESTAMP('2024-01-01 00:00 etc/gmt+5', 'yyyy-MM-dd HH:mm VV')", 1704085200000),
    ("STRINGTOTIMESTAMP('2024-01-01 00:00 systemv/pst8', 'yyyy-MM-dd HH:mm VV')", 1704096000000),
    ("STRINGTOTIMESTAMP('2024-01-01 00:00 factory', 'yyyy-MM-dd HH:mm VV')", None),
    ("STRINGTOTIMESTAMP('2024-01-01 00:00 roc', 'yyyy-MM-dd HH:mm VV')", None),
    ("STRINGTOTIMESTAMP('2024-01-01 00:00', 'yyyy-MM-dd HH:mm', 'asia/kolkata')", None),
]


def main() -> None:
    tests = [
        probe_case("the JDK's SystemV zones, with their daylight time and names", SYSTEM_V, COLUMNS, ROW),
        probe_case("tz database files that are no Java zone, and ids in the wrong case, are unknown", NOT_JAVA,
                   COLUMNS, ROW),
        probe_case("a local time a zone passes twice takes the offset ksqlDB's resolver carries to it", OVERLAPS,
                   COLUMNS, ROW),
        probe_case("a zone id in a VV text is read in any case", ID_TEXTS, COLUMNS, ROW),
        probe_case("EST, MST and HST are regions of a fixed offset, named as the JDK names those ids",
                   FIXED_REGIONS, COLUMNS, ROW),
    ]
    write_cases(str(pathlib.Path(__file__).with_name("zone-ids.json")), __doc__ or "", tests)


if __name__ == "__main__":
    main()
