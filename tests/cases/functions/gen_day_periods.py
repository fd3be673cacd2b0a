"""The day-period pattern letter ``B`` (JDK 16+, so the JDK 17 that ksqlDB runs on; from memory of
DateTimeFormatterBuilder.DayPeriodPrinterParser and Parsed.resolveTimeFields/resolveTimeLenient, expected values
printed by JDK 17). ``B`` and ``BBBB`` print Locale.US's period of the minute of the day - midnight (00:00, the
whole minute), noon (12:00), 'in the morning' (06:00-12:00), 'in the afternoon' (12:00-18:00), 'in the evening'
(18:00-21:00), 'at night' (21:00-06:00) - and ``BBBBB`` the narrow texts ('mi', 'n'); other counts are 'Wrong
number of pattern letters: B'. Parsing reads the texts of its count's style (case-insensitive, as ksqlDB's
parsers): a period alone is its mid-point (at night: 01:30), with ``h``/``K`` it says whether the hour is after
noon, beside ``H`` (or ``h`` with ``a``) it must contain the hour and minute ('Conflict found: Resolved time 06:00
conflicts with DayPeriod(21:00-06:00)'), unless the time has all of hour, minute, second and fraction. A time
field: FORMAT_DATE refuses it ('Unsupported field: HourOfDay'). Errors go to the processing log, the value is NULL.
Scope: FORMAT_TIMESTAMP (zones, pads), FORMAT_TIME, FORMAT_DATE, PARSE_TIMESTAMP, PARSE_TIME.

Writes tests/cases/functions/day-periods.json: ``python tests/cases/functions/gen_day_periods.py``.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

# 2024-03-10T01:02:03.456Z is 2024-03-09T17:02:03.456-08:00 in Los Angeles; TM is 17:02:03.456
COLUMNS = "TS TIMESTAMP, DT DATE, TM TIME"
ROW = {"TS": 1710032523456, "DT": 19791, "TM": 61323456}
LA = "America/Los_Angeles"

FORMATS = [  # (epoch ms, pattern, zone, JDK 17's text)
    (0, "B", "UTC", "midnight"), (30000, "B", "UTC", "midnight"), (21540000, "B", "UTC", "at night"),
    (21600000, "B", "UTC", "in the morning"), (43199000, "B", "UTC", "in the morning"),
    (43200000, "B", "UTC", "noon"), (43259999, "B", "UTC", "noon"), (43260000, "B", "UTC", "in the afternoon"),
    (64799999, "B", "UTC", "in the afternoon"), (64800000, "B", "UTC", "in the evening"),
    (75599999, "B", "UTC", "in the evening"), (75600000, "B", "UTC", "at night"), (86399999, "B", "UTC", "at night"),
    (0, "BBBB", "UTC", "midnight"), (0, "BBBBB", "UTC", "mi"), (43200000, "BBBBB", "UTC", "n"),
    (50400000, "BBBBB", "UTC", "in the afternoon"),
    (1710032523456, "h B", "Asia/Kolkata", "6 in the morning"),
    (1710032523456, "HH:mm B", "+05:30", "06:32 in the morning"),
    (1710032523456, "ppppppppppppppppB", "UTC", "        at night"),
    (0, "BB", "UTC", None), (0, "BBB", "UTC", None), (0, "BBBBBB", "UTC", None),
]  # fmt: skip

PARSES = [  # (pattern, text, JDK 17's epoch ms as ksqlDB's StringToTimestampParser makes it)
    ("B", "noon", 43200000), ("BBBB", "midnight", 0), ("BBBBB", "mi", 0), ("BBBBB", "n", 43200000),
    ("B", "in the morning", 32400000), ("B", "IN THE AFTERNOON", 54000000), ("B", "in the evening", 70200000),
    ("B", "at night", 5400000), ("h B", "3 in the afternoon", 54000000), ("h B", "3 in the morning", 10800000),
    ("h B", "12 noon", 43200000), ("h B", "12 midnight", 0), ("h B", "9 at night", 75600000),
    ("h B", "1 at night", 3600000), ("h:mm B", "12:30 midnight", 1800000), ("H:mm B", "5:59 at night", 21540000),
    ("H:mm B", "15:00 in the afternoon", 54000000), ("h a B", "3 PM in the afternoon", 54000000),
    ("a B", "PM in the afternoon", 54000000),
    ("yyyy-MM-dd h:mm B", "2024-03-01 3:15 in the afternoon", 1709306100000),
    ("yyyy-MM-dd B", "2024-03-01 at night", 1709256600000),
    ("H:mm:ss.SSS B", "6:00:00.123 at night", 21600123), ("mm B", "30 in the afternoon", 1800000),
    ("H:mm B", "12:30 noon", None), ("H B", "6 at night", None), ("h a B", "3 AM in the afternoon", None),
    ("a B", "AM in the afternoon", None), ("H:mm:ss B", "21:00:05 in the evening", None), ("B", "mi", None),
    ("BBBBB", "midnight", None), ("BB", "noon", None),
]  # fmt: skip


def main() -> None:
    fmt = [(f"FORMAT_TIMESTAMP(FROM_UNIXTIME({ms}), '{p}', '{z}')", v) for ms, p, z, v in FORMATS]
    fmt += [
        (f"FORMAT_TIMESTAMP(TS, 'yyyy-MM-dd h:mm B', '{LA}')", "2024-03-09 5:02 in the afternoon"),
        ("FORMAT_TIMESTAMP(TS, 'BBBBB')", "at night"),
        ("FORMAT_TIME(TM, 'h:mm:ss B')", "5:02:03 in the afternoon"),
        ("FORMAT_TIME(TM, 'BBBB')", "in the afternoon"),
        ("FORMAT_DATE(DT, 'yyyy B')", None),  # a time field: Unsupported field: HourOfDay
    ]
    parse = [(f"UNIX_TIMESTAMP(PARSE_TIMESTAMP('{t}', '{p}', 'UTC'))", v) for p, t, v in PARSES]
    parse += [
        (f"UNIX_TIMESTAMP(PARSE_TIMESTAMP('2024-03-09 5:02 in the afternoon', 'yyyy-MM-dd h:mm B', '{LA}'))",
         1710032520000),
        ("PARSE_TIME('3:15 in the afternoon', 'h:mm B')", 54900000),
        ("PARSE_TIME('at night', 'B')", 5400000),
        ("PARSE_TIME('7:00 at night', 'H:mm B')", None),
    ]
    tests = [
        probe_case("B prints the day period of the minute of the day", fmt, COLUMNS, ROW),
        probe_case("B parses a day period: its mid-point alone, the half of the day of an h, a check of an H",
                   parse, COLUMNS, ROW),
    ]
    write_cases(str(pathlib.Path(__file__).with_name("day-periods.json")), __doc__ or "", tests)


if __name__ == "__main__":
    main()
