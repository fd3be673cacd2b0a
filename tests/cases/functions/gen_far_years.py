"""Dates and timestamps outside years 1..9999, as java.time prints and reads them (from memory of
DateTimeFormatterBuilder.parseField and NumberPrinterParser): 'y' is the year of era (year 0 is 1 BC), 'u' the
proleptic year; 2 letters print the last two digits of the value's magnitude; 1 and 3 letters a '-' before a
negative value; 4 or more letters are zero padded, '-' before a negative value and '+' before one wider than
the letters (SignStyle.EXCEEDS_PAD: 'yyyy' of year 10000 is '+10000'); more than 19 letters is no pattern.
Every instant of a Java long prints (Long.MAX_VALUE is +292278994-08-17T07:12:55.807Z); a region's offset
beyond its last transition follows its last rules and before its first is local mean time, whose 'z' name is
the region's standard name. CONVERT_TZ and PARSE_TIMESTAMP use the same zone rules at any year. Expected
values are written out from Java's rules, never computed by ours.

Writes tests/cases/functions/far-years.json: ``python tests/cases/functions/gen_far_years.py
tests/cases/functions/far-years.json`` after changing this file.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

COLUMNS = "Y10K TIMESTAMP, Y0 TIMESTAMP, YM1 TIMESTAMP, Y1 TIMESTAMP, TMAX TIMESTAMP, D10K DATE, DM1 DATE"
ROW: dict[str, object] = {
    "Y10K": 253402300800000,  # 10000-01-01T00:00:00.000Z
    "Y0": -62135596800001,  # 0000-12-31T23:59:59.999Z
    "YM1": -62198755200000,  # -0001-01-01T00:00:00.000Z
    "Y1": -62135596800000,  # 0001-01-01T00:00:00.000Z
    "TMAX": 9223372036854775807,
    "D10K": 2932897,  # 10000-01-01
    "DM1": -719529,  # -0001-12-31
}

FAMILIES: dict[str, list[tuple[str, object]]] = {
    "year 10000: 4 letters or fewer than the digits take a '+' only with 4+ letters": [
        ("FORMAT_TIMESTAMP(Y10K, 'yyyy-MM-dd')", "+10000-01-01"),
        ("FORMAT_TIMESTAMP(Y10K, 'uuuu-MM-dd')", "+10000-01-01"),
        ("FORMAT_TIMESTAMP(Y10K, 'yyyyy-MM-dd')", "10000-01-01"),
        ("FORMAT_TIMESTAMP(Y10K, 'yyyyyy')", "010000"),
        ("FORMAT_TIMESTAMP(Y10K, 'y')", "10000"),
        ("FORMAT_TIMESTAMP(Y10K, 'yyy')", "10000"),
        ("FORMAT_TIMESTAMP(Y10K, 'yy')", "00"),
        ("FORMAT_TIMESTAMP(Y10K, 'uuuu G GGGG')", "+10000 AD Anno Domini"),
        ("FORMAT_TIMESTAMP(Y10K, 'EEEE D MMM')", "Saturday 1 Jan"),
        ("FORMAT_TIMESTAMP(Y10K, 'YYYY ww')", "+10000 01"),
        ("FORMAT_TIMESTAMP(Y10K, 'yyyy-MM-dd HH:mm z', 'America/Los_Angeles')", "9999-12-31 16:00 PST"),
        ("FORMAT_TIMESTAMP(TIMESTAMPADD(DAYS, 180, Y10K), 'yyyy-MM-dd HH:mm z', 'America/New_York')",
         "+10000-06-28 20:00 EDT"),
        ("FORMAT_TIMESTAMP(Y10K, 'yyyy-MM-dd HH:mm', '+14:00')", "+10000-01-01 14:00"),
        ("FORMAT_DATE(D10K, 'yyyy-MM-dd')", "+10000-01-01"),
        ("FORMAT_DATE(D10K, 'y/M/d E')", "10000/1/1 Sat"),
        ("FORMAT_DATE(DATESUB(DAYS, 1, D10K), 'yyyy-MM-dd')", "9999-12-31"),
    ],
    "years 0 and below: the year of era counts back from 1 BC, the proleptic year signs": [
        ("FORMAT_TIMESTAMP(Y0, 'yyyy-MM-dd HH:mm:ss.SSS G')", "0001-12-31 23:59:59.999 BC"),
        ("FORMAT_TIMESTAMP(Y0, 'uuuu-MM-dd')", "0000-12-31"),
        ("FORMAT_TIMESTAMP(Y0, 'y u yy uu GGGG')", "1 0 01 00 Before Christ"),
        ("FORMAT_TIMESTAMP(YM1, 'uuuu-MM-dd')", "-0001-01-01"),
        ("FORMAT_TIMESTAMP(YM1, 'yyyy G')", "0002 BC"),
        ("FORMAT_TIMESTAMP(YM1, 'u uu uuu uuuuu')", "-1 01 -001 -00001"),
        ("FORMAT_TIMESTAMP(YM1, 'y yy yyy GGGGG')", "2 02 002 B"),
        ("FORMAT_TIMESTAMP(Y1, 'yyyy-MM-dd HH:mm:ss z', 'America/New_York')", "0001-12-31 19:03:58 EST"),
        ("FORMAT_TIMESTAMP(Y1, 'uuuu-MM-dd HH:mm:ss zzzz', 'America/New_York')",
         "0000-12-31 19:03:58 Eastern Standard Time"),
        ("FORMAT_DATE(DM1, 'yyyy-MM-dd G')", "0002-12-31 BC"),
        ("FORMAT_DATE(DM1, 'uuuu-MM-dd')", "-0001-12-31"),
        ("FORMAT_DATE(DATEADD(DAYS, 1, DM1), 'uuuu-MM-dd D')", "0000-01-01 1"),
    ],
    "the bounds of a Java long (TIMESTAMPADD wraps as a long sum does) and more than 19 year letters": [
        ("FORMAT_TIMESTAMP(TMAX, 'uuuu-MM-dd HH:mm:ss.SSS')", "+292278994-08-17 07:12:55.807"),
        ("FORMAT_TIMESTAMP(TMAX, 'y EEE')", "292278994 Sun"),
        ("FORMAT_TIMESTAMP(TMAX, 'yyyyyyyyyyyyyyyyyyy')", "0000000000292278994"),
        ("FORMAT_TIMESTAMP(TMAX, 'yyyyyyyyyyyyyyyyyyyy')", None),
        ("FORMAT_TIMESTAMP(FROM_UNIXTIME(-9223372036854775807), 'uuuu-MM-dd HH:mm:ss.SSS')",
         "-292275055-05-16 16:47:04.193"),
        ("TIMESTAMPADD(MILLISECONDS, 1, TMAX)", -9223372036854775808),
        ("TIMESTAMPSUB(MILLISECONDS, -1, TMAX)", -9223372036854775808),
        ("TIMESTAMPADD(DAYS, 2147483647, FROM_UNIXTIME(0))", 185542587100800000),
        ("UNIX_TIMESTAMP(TIMESTAMPADD(SECONDS, -1, TMAX))", 9223372036854774807),
    ],
    "casts to STRING: a TIMESTAMP as the pattern yyyy-MM-dd'T'HH:mm:ss.SSS (the year of era), a DATE as "
    "LocalDate.toString (the signed year)": [
        ("CAST(Y10K AS STRING)", "+10000-01-01T00:00:00.000"),
        ("CAST(Y0 AS STRING)", "0001-12-31T23:59:59.999"),
        ("CAST(YM1 AS STRING)", "0002-01-01T00:00:00.000"),
        ("CAST(TMAX AS STRING)", "+292278994-08-17T07:12:55.807"),
        ("CAST(D10K AS STRING)", "+10000-01-01"),
        ("CAST(DM1 AS STRING)", "-0001-12-31"),
    ],
    "zone rules at any year: CONVERT_TZ and PARSE_TIMESTAMP in a region": [
        ("CONVERT_TZ(Y10K, 'UTC', 'America/New_York')", 253402282800000),
        ("CONVERT_TZ(Y1, 'UTC', 'America/New_York')", -62135614562000),
        ("PARSE_TIMESTAMP('+10000-07-01 00:00', 'uuuu-MM-dd HH:mm', 'America/New_York')", 253418040000000),
        ("PARSE_TIMESTAMP('12021-07-01', 'u-MM-dd')", 317194617600000),
        ("FORMAT_TIMESTAMP(PARSE_TIMESTAMP('-1-01-01', 'u-MM-dd'), 'uuuu-MM-dd G')", "-0001-01-01 BC"),
    ],
}


def case(title: str, probes: list[tuple[str, object]]) -> dict:  # type: ignore[type-arg]
    return probe_case(title, probes, COLUMNS, ROW)


tests = [case(title, probes) for title, probes in FAMILIES.items()]

if __name__ == "__main__":
    write_cases(sys.argv[1], __doc__, tests)
