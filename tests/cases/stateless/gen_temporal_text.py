"""Text read as DATE, TIME and TIMESTAMP, by CAST and by comparisons of temporal columns with strings, as ksqlDB's
SqlTimeTypes reads it (from memory; the shared date.json case reads '1970-01' as a DATE): DATE and TIMESTAMP
text goes through PartialStringToTimestampParser - a year or a year-month is completed with the first
month and day, a time after 'T' with zeros ('10' is 10:00:00.000), a zone after the time ('Z', +hhmm, +hh:mm,
+hh, -...) is honoured, UTC otherwise; the completed text is read with the pattern yyyy-MM-dd'T'HH:mm:ss.SSS
(SMART: a day past its month's end is the month's last day; a fraction of more than three digits, a space for
the 'T' or unpadded fields are refused). TIME text is Java's LocalTime.parse (ISO_LOCAL_TIME: HH:mm, then
:ss and a fraction of up to nine digits, truncated to the millisecond; no zone, no 24:00). A comparison reads
its string side by the rule of the other side's type (DATE vs TIMESTAMP compares as timestamps); text either
rule refuses is NULL (CAST: 'Error processing <TYPE>'; a comparison: the expression's error). Expected values
are Java's, worked out with Python's datetime, never by the engine.

Writes tests/cases/stateless/temporal-text.json: ``python tests/cases/stateless/gen_temporal_text.py
tests/cases/stateless/temporal-text.json`` after changing this file.
"""
import pathlib
import sys
from datetime import UTC, date, datetime, timedelta, timezone

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "functions"))
from probe_case import probe_case, write_cases  # noqa: E402


def day(y: int, m: int, d: int) -> int:
    return (date(y, m, d) - date(1970, 1, 1)).days


def ms(y: int, mo: int, d: int, h: int = 0, mi: int = 0, s: int = 0, milli: int = 0, offset_h: float = 0) -> int:
    at = datetime(y, mo, d, h, mi, s, milli * 1000, tzinfo=timezone(timedelta(hours=offset_h)))
    return (at - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(milliseconds=1)


def tod(h: int, mi: int, s: int = 0, milli: int = 0) -> int:
    return ((h * 60 + mi) * 60 + s) * 1000 + milli


# the row the comparison probes read: 2020-01-01T10:00Z, 2020-01-01, 10:00
COLUMNS = "TS TIMESTAMP, DT DATE, T TIME"
ROW: dict[str, object] = {"TS": ms(2020, 1, 1, 10), "DT": day(2020, 1, 1), "T": tod(10, 0)}

FAMILIES: dict[str, list[tuple[str, object]]] = {
    "CAST to DATE completes a year or a year-month, takes a day past the month's end as its last day, and "
    "refuses other shapes": [
        ("CAST('2020' AS DATE)", day(2020, 1, 1)),
        ("CAST('2020-02' AS DATE)", day(2020, 2, 1)),
        ("CAST('1969-12' AS DATE)", day(1969, 12, 1)),
        ("CAST('2020-02-30' AS DATE)", day(2020, 2, 29)),
        ("CAST('2021-02-29' AS DATE)", day(2021, 2, 28)),
        ("CAST('2020-04-31' AS DATE)", day(2020, 4, 30)),
        ("CAST('2020-02-32' AS DATE)", None),
        ("CAST('2020-13' AS DATE)", None),
        ("CAST('2020-1-1' AS DATE)", None),
        ("CAST('2020/01/01' AS DATE)", None),
        ("CAST('20' AS DATE)", None),
        ("CAST('' AS DATE)", None),
    ],
    "CAST to TIME is ISO_LOCAL_TIME: minutes required, seconds and up to nine fraction digits optional and "
    "truncated to the millisecond; no zone, no hour 24": [
        ("CAST('10:00' AS TIME)", tod(10, 0)),
        ("CAST('10:00:01' AS TIME)", tod(10, 0, 1)),
        ("CAST('10:00:00.5' AS TIME)", tod(10, 0, 0, 500)),
        ("CAST('10:00:00.123456789' AS TIME)", tod(10, 0, 0, 123)),
        ("CAST('23:59:59.999' AS TIME)", tod(23, 59, 59, 999)),
        ("CAST('00:00' AS TIME)", 0),
        ("CAST('10' AS TIME)", None),
        ("CAST('1:00' AS TIME)", None),
        ("CAST('24:00' AS TIME)", None),
        ("CAST('10:60' AS TIME)", None),
        ("CAST('10:00:' AS TIME)", None),
        ("CAST('10:00Z' AS TIME)", None),
        ("CAST('10:00:00+01:00' AS TIME)", None),
        ("CAST('10:00:00.1234567891' AS TIME)", None),
    ],
    "CAST to TIMESTAMP completes the date and the time, honours a zone after the time, and refuses a space for "
    "the 'T' or more than three fraction digits": [
        ("CAST('2020' AS TIMESTAMP)", ms(2020, 1, 1)),
        ("CAST('2020-03' AS TIMESTAMP)", ms(2020, 3, 1)),
        ("CAST('2020-01-01' AS TIMESTAMP)", ms(2020, 1, 1)),
        ("CAST('2020-01-01T' AS TIMESTAMP)", ms(2020, 1, 1)),
        ("CAST('2020-01-01T10' AS TIMESTAMP)", ms(2020, 1, 1, 10)),
        ("CAST('2020-01-01T10:30' AS TIMESTAMP)", ms(2020, 1, 1, 10, 30)),
        ("CAST('2020-01-01T10:30:15' AS TIMESTAMP)", ms(2020, 1, 1, 10, 30, 15)),
        ("CAST('2020-01-01T10:30:15.5' AS TIMESTAMP)", ms(2020, 1, 1, 10, 30, 15, 500)),
        ("CAST('2020-01-01T10:30:15.123' AS TIMESTAMP)", ms(2020, 1, 1, 10, 30, 15, 123)),
        ("CAST('2020-01-01T10:00Z' AS TIMESTAMP)", ms(2020, 1, 1, 10)),
        ("CAST('2020-01-01T10:00+0100' AS TIMESTAMP)", ms(2020, 1, 1, 10, offset_h=1)),
        ("CAST('2020-01-01T10:00-05:00' AS TIMESTAMP)", ms(2020, 1, 1, 10, offset_h=-5)),
        ("CAST('2020-01-01T10:00:00.000+01' AS TIMESTAMP)", ms(2020, 1, 1, 10, offset_h=1)),
        ("CAST('2020-02-30T10:00' AS TIMESTAMP)", ms(2020, 2, 29, 10)),
        ("CAST('2020-01-01 10:00' AS TIMESTAMP)", None),
        ("CAST('2020-01-01T10:30:15.1234' AS TIMESTAMP)", None),
        ("CAST('2020-01-01T25:00' AS TIMESTAMP)", None),
        ("CAST('x' AS TIMESTAMP)", None),
    ],
    "a temporal column compared with a string reads the string by its own type's rule; DATE and TIMESTAMP "
    "compare as timestamps; unreadable text makes the comparison NULL": [
        ("TS > '2020-01'", True),
        ("TS = '2020-01-01T10'", True),
        ("TS = '2020-01-01T11:00+01:00'", True),
        ("TS = '2020-01-01T05:00-05:00'", True),
        ("TS < '2020-01-01T10:00:00.001'", True),
        ("TS BETWEEN '2020' AND '2021'", True),
        ("TS IN ('2020-01-01T10:00', '2021')", True),
        ("'2020-01-01T10' = TS", True),
        ("DT = '2020'", True),
        ("DT = '2020-01'", True),
        ("DT < '2020-02-30'", True),
        ("DT BETWEEN '2019-12' AND '2020-01-01'", True),
        ("DT < TS", True),
        ("DT = CAST('2020-01-01T00:00' AS TIMESTAMP)", True),
        ("T = '10:00:00.000'", True),
        ("T > '10:00:00.0009'", False),
        ("T BETWEEN '09:59:59.999' AND '10:00'", True),
        ("T IN ('10:00')", True),
        ("TS = 'x'", None),
        ("T < '10'", None),
        ("DT = '2020-1-1'", None),
    ],
}


def case(title: str, probes: list[tuple[str, object]]) -> dict:  # type: ignore[type-arg]
    return probe_case(title, probes, COLUMNS, ROW)


tests = [case(title, probes) for title, probes in FAMILIES.items()]

if __name__ == "__main__":
    write_cases(sys.argv[1], __doc__, tests)
