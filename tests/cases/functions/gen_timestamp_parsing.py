"""PARSE_TIMESTAMP as ksqlDB's StringToTimestampParser (from memory): the text is parsed by a
DateTimeFormatter (Locale.US, SMART resolution), then every ChronoField the parse supports is set with
ZonedDateTime.with on 1970-01-01T00:00, in the enum's order. So a full date (year-month-day, year-day of
year, year-month-week of month-day of week, week-based year-week-day of week) is resolved and cross-checked
against the other fields; without one, a day of week moves 1970-01-01 inside its ISO week (Monday first),
aligned day of week in month (F) counts from the 1st, then day, month, year overwrite; week-based fields and
the quarter without a full date are ignored; AM/PM alone moves midnight to noon; a 366th day without a year is
refused. Results are shown through FORMAT_TIMESTAMP to read as dates; expected values are written out from
Java's rules, never computed by ours.

Writes tests/cases/functions/timestamp-parsing.json: ``python tests/cases/functions/gen_timestamp_parsing.py
tests/cases/functions/timestamp-parsing.json`` after changing this file.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

COLUMNS = "NS STRING"
ROW: dict[str, object] = {}


def shown(text: str, pattern: str) -> str:
    return f"FORMAT_TIMESTAMP(PARSE_TIMESTAMP('{text}', '{pattern}'), 'yyyy-MM-dd HH:mm EEE')"


# family -> [(expression, expected JSON value)]
FAMILIES: dict[str, list[tuple[str, object]]] = {
    "week-based dates resolve from year, week and day of week together (US weeks: Sunday first, week 1 holds "
    "January 1st); the week is clamped to the year's last": [
        (shown("2021-01-6", "YYYY-ww-e"), "2021-01-01 00:00 Fri"),
        (shown("2021-01-1", "YYYY-ww-e"), "2020-12-27 00:00 Sun"),
        (shown("2021-01-Fri", "YYYY-ww-EEE"), "2021-01-01 00:00 Fri"),
        (shown("2021-02-Monday", "YYYY-w-EEEE"), "2021-01-04 00:00 Mon"),
        (shown("2021-53-1", "YYYY-ww-e"), "2021-12-19 00:00 Sun"),
        (shown("21-10-2", "YY-ww-e"), "2021-03-01 00:00 Mon"),
        (shown("2021-03 2 Fri", "yyyy-MM W EEE"), "2021-03-12 00:00 Fri"),
        (shown("2021-03 1 Mon", "yyyy-MM W EEE"), "2021-03-01 00:00 Mon"),
    ],
    "a resolved date is cross-checked against the fields it does not come from": [
        (shown("2020-12-31 2021", "yyyy-MM-dd YYYY"), "2020-12-31 00:00 Thu"),
        (shown("2020-12-31 2020", "yyyy-MM-dd YYYY"), None),
        (shown("2021-01-01 Fri", "yyyy-MM-dd EEE"), "2021-01-01 00:00 Fri"),
        (shown("2021-01-01 Sat", "yyyy-MM-dd EEE"), None),
        (shown("2021-01-01 6", "yyyy-MM-dd e"), "2021-01-01 00:00 Fri"),
        (shown("2021-01-01 7", "yyyy-MM-dd e"), None),
        (shown("2021-01-01 1", "yyyy-MM-dd w"), "2021-01-01 00:00 Fri"),
        (shown("2021-01-01 2", "yyyy-MM-dd w"), None),
        (shown("2021-01-01 Q1", "yyyy-MM-dd QQQ"), "2021-01-01 00:00 Fri"),
        (shown("2021-01-01 Q2", "yyyy-MM-dd QQQ"), None),
        (shown("2021-2021-01-6", "yyyy-YYYY-ww-e"), "2021-01-01 00:00 Fri"),
        (shown("2020-2021-01-6", "yyyy-YYYY-ww-e"), None),
    ],
    "without a full date each field is set on 1970-01-01 in ChronoField order; week-based fields and the "
    "quarter are ignored": [
        (shown("2021-01-01", "YYYY-MM-dd"), "1970-01-01 00:00 Thu"),
        (shown("2021", "YYYY"), "1970-01-01 00:00 Thu"),
        (shown("12", "ww"), "1970-01-01 00:00 Thu"),
        (shown("2021 Q3", "yyyy QQQ"), "2021-01-01 00:00 Fri"),
        (shown("Fri", "EEE"), "1970-01-02 00:00 Fri"),
        (shown("Mon", "EEE"), "1969-12-29 00:00 Mon"),
        (shown("Sunday", "EEEE"), "1970-01-04 00:00 Sun"),
        (shown("2", "e"), "1969-12-29 00:00 Mon"),
        (shown("Mon 15", "EEE dd"), "1969-12-15 00:00 Mon"),
        (shown("Mon 03", "EEE MM"), "1969-03-29 00:00 Sat"),
        (shown("2021-03 Fri", "yyyy-MM EEE"), "2021-03-02 00:00 Tue"),
        (shown("3", "F"), "1970-01-03 00:00 Sat"),
        (shown("02-29", "MM-dd"), "1970-02-28 00:00 Sat"),
        (shown("2021-31", "yyyy-dd"), "2021-01-31 00:00 Sun"),
    ],
    "time fields alone: AM/PM moves midnight to noon, a 12-hour clock without it is the morning": [
        (shown("PM", "a"), "1970-01-01 12:00 Thu"),
        (shown("AM", "a"), "1970-01-01 00:00 Thu"),
        (shown("10:30", "hh:mm"), "1970-01-01 10:30 Thu"),
        (shown("12:30", "hh:mm"), "1970-01-01 00:30 Thu"),
        (shown("12:30 PM", "hh:mm a"), "1970-01-01 12:30 Thu"),
        (shown("2021-01-01 24:00", "yyyy-MM-dd HH:mm"), "2021-01-02 00:00 Sat"),
    ],
    "years read as DateTimeFormatterBuilder reads them strictly: 4+ letters exactly that many digits unsigned, "
    "'+' only before more; fewer letters no '+'; a year of era is positive; ISO casts read 'yyyy' too": [
        (shown("20210101", "yyyyMMdd"), "2021-01-01 00:00 Fri"),
        (shown("202103", "yyyyMM"), "2021-03-01 00:00 Mon"),
        (shown("20210101", "yyyy"), None),
        (shown("12021-01-01", "yyyy-MM-dd"), None),
        (shown("+2021-01-01", "yyyy-MM-dd"), None),
        (shown("-2021-01-01", "yyyy-MM-dd"), None),
        (shown("2021-01-01", "y-MM-dd"), "2021-01-01 00:00 Fri"),
        (shown("+2021-01-01", "u-MM-dd"), None),
        (shown("2021-01-01", "u-MM-dd"), "2021-01-01 00:00 Fri"),
        ("CAST('20210101' AS DATE)", None),
        ("CAST('+2021-01-01' AS TIMESTAMP)", None),
        ("CAST('-2021-01-01' AS DATE)", None),
        ("CAST('2021' AS DATE)", 18628),
        ("CAST('2021-03' AS DATE)", 18687),
    ],
    "day of year: a 366th day needs a leap year, and without a year it is refused": [
        (shown("2020-366", "yyyy-DDD"), "2020-12-31 00:00 Thu"),
        (shown("2021-366", "yyyy-DDD"), None),
        (shown("366", "DDD"), None),
        (shown("032", "DDD"), "1970-02-01 00:00 Sun"),
    ],
}


def case(title: str, probes: list[tuple[str, object]]) -> dict:  # type: ignore[type-arg]
    return probe_case(title, probes, COLUMNS, ROW)


tests = [case(title, probes) for title, probes in FAMILIES.items()]

if __name__ == "__main__":
    write_cases(sys.argv[1], __doc__, tests)
