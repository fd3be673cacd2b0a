"""Two DateTimeFormatter pattern letters ksqlDB's date/time functions take from Java (JDK 11 patterns, from
memory of DateTimeFormatterBuilder.parsePattern / PadPrinterParserDecorator / JulianFields): ``p`` pads the
field that follows it (``ppH``: the hour right-aligned in two characters; printing more characters than the pad
is an error, 'Cannot print as output of 2 characters exceeds pad width of 1'; parsing reads exactly that many
characters, leading spaces skipped, and the field must fill the rest; a ``p`` not followed by a letter is 'Pad
letter 'p' must be followed by valid pad pattern'), and ``g``, the modified Julian day (day 0 is 1858-11-17;
zero padded to the letter count, '-' before a negative day; a date field: FORMAT_TIME refuses it; parsed, it
makes the date before any other field, which must agree). Errors go to the processing log and the value is NULL.
Scope: FORMAT_TIMESTAMP (with a zone), FORMAT_DATE, FORMAT_TIME, PARSE_TIMESTAMP, PARSE_DATE, PARSE_TIME,
optional sections.

Writes tests/cases/functions/pattern-pads.json: ``python tests/cases/functions/gen_pattern_pads.py``.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

# 2024-03-10T01:02:03.456Z is 2024-03-09T17:02:03.456-08:00 in Los Angeles; epoch day 19791 is 2024-03-09
COLUMNS = "TS TIMESTAMP, DT DATE, TM TIME, OLD DATE"
ROW = {"TS": 1710032523456, "DT": 19791, "TM": 61323456, "OLD": -50000}
LA = "'America/Los_Angeles'"

FORMAT = [
    (f"FORMAT_TIMESTAMP(TS, 'ppph:mm', {LA})", "  5:02"),
    (f"FORMAT_TIMESTAMP(TS, 'ppH/pppMMM/ppppppMMMM', {LA})", "17/Mar/ March"),
    (f"FORMAT_TIMESTAMP(TS, 'ppppMMMM', {LA})", None),       # March exceeds a pad of 4
    (f"FORMAT_TIMESTAMP(TS, 'pH', {LA})", None),            # 17 exceeds a pad of 1
    (f"FORMAT_TIMESTAMP(TS, 'ppMMM', {LA})", None),         # Mar exceeds a pad of 2
    (f"FORMAT_TIMESTAMP(TS, 'p:H', {LA})", None),           # p not followed by a letter
    (f"FORMAT_TIMESTAMP(TS, 'HHp', {LA})", None),           # p at the end
    (f"FORMAT_TIMESTAMP(TS, 'yyyy[ pppd]', {LA})", "2024   9"),
    (f"FORMAT_TIMESTAMP(TS, 'g', {LA})", "60378"),
    ("FORMAT_TIMESTAMP(TS, 'g')", "60379"),                 # UTC: already 2024-03-10
    (f"FORMAT_TIMESTAMP(TS, 'ggggggg', {LA})", "0060378"),
    (f"FORMAT_TIMESTAMP(TS, 'pppppppg', {LA})", "  60378"),
    ("FORMAT_DATE(DT, 'g yyyy-MM-dd')", "60378 2024-03-09"),
    ("FORMAT_DATE(OLD, 'g')", "-9413"),
    ("FORMAT_DATE(OLD, 'ggggggg')", "-0009413"),
    ("FORMAT_DATE(DT, 'pppd.ppM')", "  9. 3"),
    ("FORMAT_TIME(TM, 'ppH:pppm')", "17:  2"),
    ("FORMAT_TIME(TM, 'g')", None),                          # not a time field
]
PARSE = [
    ("PARSE_TIMESTAMP('2024-03-09  5', 'yyyy-MM-dd ppH')", 1709960400000),
    ("PARSE_TIMESTAMP('2024-03-09 17', 'yyyy-MM-dd ppH')", 1710003600000),
    ("PARSE_TIMESTAMP('2024-03-09 5', 'yyyy-MM-dd ppH')", None),     # fewer characters than the pad
    ("PARSE_TIMESTAMP('2024-03-09   ', 'yyyy-MM-dd ppH')", None),    # only padding
    ("PARSE_TIMESTAMP('2024-03-09 1705', 'yyyy-MM-dd ppHmm')", 1710003900000),
    ("PARSE_TIMESTAMP(' Mar 2024', 'ppppMMM yyyy')", 1709251200000),
    ("PARSE_TIMESTAMP('60378 10', 'g HH', 'America/Los_Angeles')", 1710007200000),
    ("PARSE_DATE('60378', 'g')", 19791),
    ("PARSE_DATE('0060378', 'ggggggg')", 19791),
    ("PARSE_DATE('-9413', 'g')", -50000),
    ("PARSE_DATE('60378 2024-03-09', 'g yyyy-MM-dd')", 19791),
    ("PARSE_DATE('60378 2023', 'g yyyy')", None),                     # the year disagrees
    ("PARSE_DATE('+60378', 'g')", None),                               # no '+' for NORMAL, strict
    ("PARSE_DATE('  60378', 'pppppppg')", 19791),
    ("PARSE_TIME(' 7:05', 'ppH:mm')", 25500000),
    ("PARSE_TIME('7:05', 'ppH:mm')", None),
]


def cases() -> list[dict]:
    # JSON prints a DATE as its epoch day, a TIME as its milliseconds of the day
    return [
        probe_case("p pads and g prints the modified Julian day - FORMAT_TIMESTAMP, FORMAT_DATE, FORMAT_TIME",
                   FORMAT, COLUMNS, ROW),
        probe_case("p pads and g reads the modified Julian day - PARSE_TIMESTAMP, PARSE_DATE, PARSE_TIME",
                   PARSE, COLUMNS, ROW),
    ]


if __name__ == "__main__":
    write_cases(str(pathlib.Path(__file__).parent / "pattern-pads.json"), __doc__, cases())
