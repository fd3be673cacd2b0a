"""Java pattern translation, zones and ISO casts: the behaviours ksqlDB users rely on."""

from __future__ import annotations

import pytest

from ksqlpy.functions.isotime import (
    date_to_timestamp,
    format_date_iso,
    format_time_cast,
    format_time_iso,
    format_timestamp_iso,
    parse_date_iso,
    parse_time_iso,
    parse_timestamp_iso,
    timestamp_to_date,
    timestamp_to_time,
)
from ksqlpy.functions.javatime import (
    DateTimeError,
    civil_from_days,
    compile_pattern,
    days_from_civil,
    timestamp_formatter,
    timestamp_parser,
    zone_of,
)

MAY_11_2018_UTC = 1526075913000  # 2018-05-11T21:58:33Z


def fmt_ts(pattern: str, ms: int, zone: str = "UTC") -> str:
    return compile_pattern(pattern).format_timestamp(ms, zone_of(zone))


def parse_ts(pattern: str, text: str, zone: str = "UTC") -> int:
    return compile_pattern(pattern).parse_timestamp(text, zone_of(zone))


class TestCalendar:
    @pytest.mark.parametrize("days", [-719468, -1, 0, 59, 17662, 2932896])
    def test_civil_round_trip(self, days: int) -> None:
        assert days_from_civil(*civil_from_days(days)) == days

    def test_known_dates(self) -> None:
        assert days_from_civil(1970, 1, 1) == 0
        assert days_from_civil(2018, 5, 11) == 17662
        assert civil_from_days(-1) == (1969, 12, 31)


class TestFormatting:
    def test_numeric_fields_and_literals(self) -> None:
        p = compile_pattern("dd-MM-yyyy'Sophia'")
        assert p.format_date(-1) == "31-12-1969Sophia"
        assert compile_pattern("HHmmss'AAAAA'").format_time(1234567) == "002034AAAAA"
        assert compile_pattern("HH_mm_ss_SSS").format_time(65000) == "00_01_05_000"

    def test_text_fields_use_english_names(self) -> None:
        assert compile_pattern("dd-MMM-yyyy").format_date(18993) == "01-Jan-2022"
        assert fmt_ts("EEEE, MMMM d, yyyy h:mm a", MAY_11_2018_UTC) == "Friday, May 11, 2018 9:58 PM"
        assert fmt_ts("EEE MMMMM QQQ G", MAY_11_2018_UTC) == "Fri M Q2 AD"

    def test_zone_names_follow_daylight_saving(self) -> None:
        pattern = "yyyy-MM-dd HH:mm:ss zzz"
        assert fmt_ts(pattern, MAY_11_2018_UTC, "America/Los_Angeles") == "2018-05-11 14:58:33 PDT"
        assert fmt_ts(pattern, MAY_11_2018_UTC, "Europe/London") == "2018-05-11 22:58:33 BST"
        assert fmt_ts(pattern, 0, "America/Los_Angeles") == "1969-12-31 16:00:00 PST"

    @pytest.mark.parametrize(
        "letters, expected",
        [("X", "+0530"), ("XX", "+0530"), ("XXX", "+05:30"), ("x", "+0530"), ("Z", "+0530"),
         ("ZZZZ", "GMT+05:30"), ("O", "GMT+5:30"), ("VV", "+05:30")],
    )  # fmt: skip
    def test_offset_letters(self, letters: str, expected: str) -> None:
        assert fmt_ts(letters, 0, "+05:30") == expected

    def test_zero_offset_letters(self) -> None:
        assert fmt_ts("X", 0) == "Z"
        assert fmt_ts("xxx", 0) == "+00:00"
        assert fmt_ts("Z", 0) == "+0000"
        assert fmt_ts("z", 0) == "UTC"

    def test_fractions_and_counters(self) -> None:
        assert fmt_ts("ss.S|ss.SSS|ss.SSSSSS", 1234) == "01.2|01.234|01.234000"
        assert fmt_ts("A D", 86_400_000 + 1234) == "1234 2"
        assert fmt_ts("yy y yyyy", 0) == "70 1970 1970"

    def test_us_week_fields(self) -> None:
        # Java's Locale.US week: starts Sunday, the week holding Jan 1 is week 1 of the next year.
        assert compile_pattern("YYYY-ww e").format_date(days_from_civil(2018, 12, 31)) == "2019-01 2"

    def test_optional_section_printed_only_when_fields_exist(self) -> None:
        p = compile_pattern("yyyy-MM-dd[ HH:mm]")
        assert p.format_date(0) == "1970-01-01"
        assert p.format_timestamp(3_600_000) == "1970-01-01 01:00"

    def test_quote_escapes(self) -> None:
        assert compile_pattern("''yyyy''").format_date(0) == "'1970'"
        assert compile_pattern("'o''clock' h a").format_time(13 * 3_600_000) == "o'clock 1 PM"

    def test_unsupported_fields_for_value_type(self) -> None:
        with pytest.raises(DateTimeError, match="Unsupported field: HourOfDay"):
            compile_pattern("yyyy HH").format_date(0)
        with pytest.raises(DateTimeError, match="Unsupported field"):
            compile_pattern("yyyy").format_time(0)
        with pytest.raises(DateTimeError, match="Unsupported field"):
            compile_pattern("HH X").format_time(0)

    @pytest.mark.parametrize(
        "pattern, message",
        [("yyyy-MM-ddTHH", "Unknown pattern letter: T"), ("ddd", "Too many pattern letters: d"),
         ("'abc", "incomplete string literal"), ("yyyy]", "without previous"), ("#", "reserved")],
    )  # fmt: skip
    def test_bad_patterns(self, pattern: str, message: str) -> None:
        with pytest.raises(DateTimeError, match=message):
            compile_pattern(pattern)


class TestParsing:
    def test_offsets_and_utc_default(self) -> None:
        iso = "yyyy-MM-dd'T'HH:mm:ssX"
        assert parse_ts(iso, "2018-05-11T21:58:33Z") == MAY_11_2018_UTC
        assert parse_ts(iso, "2018-05-11T21:58:33z") == MAY_11_2018_UTC  # case-insensitive, as ksqlDB
        assert parse_ts(iso, "2018-05-11T23:58:33+02") == MAY_11_2018_UTC
        assert parse_ts("yyyy-MM-dd'T'HH:mm:ss", "2018-05-11T21:58:33") == MAY_11_2018_UTC

    def test_single_fraction_digit(self) -> None:
        assert parse_ts("yyyy-MM-dd'T'HH:mm:ss.SX", "2019-08-27T13:31:09.2+0000") == 1566912669200

    def test_two_digit_years_are_2000_based(self) -> None:
        assert parse_ts("yy-MM-dd HH:mm:ssX", "10-04-19 12:00:17Z") == 1271678417000

    def test_zone_abbreviation_uses_region_rules(self) -> None:
        # 'PST' names the Los Angeles region; in May its offset is -7 (PDT).
        assert (
            parse_ts("yyyy-MM-dd'T'HH:mm:ss zzz", "2018-05-11T21:58:33 PST")
            == MAY_11_2018_UTC + 7 * 3_600_000
        )

    def test_zone_argument_used_without_zone_in_text(self) -> None:
        p = "yyyy-MM-dd HH:mm"
        assert parse_ts(p, "2018-01-01 00:00", "America/New_York") == parse_ts(p, "2018-01-01 05:00")
        # an offset in the text wins over the argument
        assert parse_ts(p + " X", "2018-01-01 05:00 Z", "America/New_York") == parse_ts(p, "2018-01-01 05:00")

    def test_dst_gap_moves_forward(self) -> None:
        # 2018-03-11 02:30 does not exist in Los Angeles; Java shifts it to 03:30 PDT (10:30 UTC).
        got = parse_ts("yyyy-MM-dd HH:mm", "2018-03-11 02:30", "America/Los_Angeles")
        assert got == parse_ts("yyyy-MM-dd HH:mm", "2018-03-11 10:30")

    def test_missing_fields_default_to_epoch_start(self) -> None:
        assert compile_pattern("MMM-yyyy").parse_date("JAN-2022") == 18993
        assert parse_ts("HH:mm", "01:00") == 3_600_000
        assert compile_pattern("dd-MMM-yyyy").parse_date("01-jan-2022") == 18993

    def test_day_of_month_clamped_to_month_length(self) -> None:
        assert compile_pattern("yyyy-MM-dd").parse_date("2021-02-30") == days_from_civil(2021, 2, 28)
        with pytest.raises(DateTimeError):
            compile_pattern("yyyy-MM-dd").parse_date("2021-02-32")

    def test_twelve_hour_clock(self) -> None:
        assert compile_pattern("hh:mm a").parse_time("12:15 AM") == 15 * 60_000
        assert compile_pattern("hh:mm a").parse_time("01:15 pm") == (13 * 60 + 15) * 60_000

    def test_adjacent_numbers(self) -> None:
        assert parse_ts("yyyyMMddHHmmss", "20180511215833") == MAY_11_2018_UTC

    def test_day_of_week_must_agree(self) -> None:
        p = compile_pattern("EEE yyyy-MM-dd")
        assert p.parse_date("Fri 2018-05-11") == 17662
        with pytest.raises(DateTimeError):
            p.parse_date("Mon 2018-05-11")

    def test_whole_text_must_match(self) -> None:
        with pytest.raises(DateTimeError):
            parse_ts("yyyy-MM-dd", "2018-05-11 extra")
        with pytest.raises(DateTimeError):
            compile_pattern("HH:mm").parse_time("10:15 extra")

    def test_parse_date_ignores_text_after_the_pattern(self) -> None:
        # ksqlDB's PARSE_DATE stops where the pattern ends (Java's parse with a ParsePosition)
        p = compile_pattern("yyyy-MM-dd")
        assert p.parse_date("2003-12-24-01-01") == p.parse_date("2003-12-24") == 12410
        assert compile_pattern("yyyyMMdd").parse_date("20031224T10") == 12410
        with pytest.raises(DateTimeError):
            p.parse_date("x2003-12-24")

    def test_date_and_time_parsers_reject_foreign_fields(self) -> None:
        with pytest.raises(DateTimeError, match="Date format contains time field"):
            compile_pattern("yyyy-MM-dd HH").parse_date("2018-05-11 10")
        with pytest.raises(DateTimeError, match="Time format contains date field"):
            compile_pattern("yyyy HH").parse_time("2018 10")

    def test_optional_section(self) -> None:
        p = compile_pattern("yyyy-MM-dd['T'HH:mm]")
        assert p.parse_timestamp("2020-01-01") == 1577836800000
        assert p.parse_timestamp("2020-01-01T10:00") == 1577872800000

    def test_source_timestamp_helpers(self) -> None:
        parse = timestamp_parser("yyyy-MM-dd HH:mm:ss", "Europe/London")
        fmt = timestamp_formatter("yyyy-MM-dd HH:mm:ss", "Europe/London")
        assert fmt(parse("2018-05-11 22:58:33")) == "2018-05-11 22:58:33"
        assert parse("2018-05-11 22:58:33") == MAY_11_2018_UTC


class TestZones:
    @pytest.mark.parametrize("zone_id", ["+0100", "+01:00", "+01", "+1", "UTC+01:00", "GMT+1"])
    def test_offset_ids(self, zone_id: str) -> None:
        assert fmt_ts("HH:mm", 0, zone_id) == "01:00"

    def test_region_and_fixed_ids(self) -> None:
        assert fmt_ts("HH", 0, "Asia/Kolkata") == "05"
        assert fmt_ts("HH z", 0, "GMT") == "00 GMT"

    @pytest.mark.parametrize("zone_id", ["PST", "Mars/Olympus", "+25:00", "", "UTC+x"])
    def test_unknown_ids(self, zone_id: str) -> None:
        with pytest.raises(DateTimeError):
            zone_of(zone_id)


class TestIsoCasts:
    def test_timestamp_to_string(self) -> None:
        assert format_timestamp_iso(10) == "1970-01-01T00:00:00.010"
        assert format_timestamp_iso(-1) == "1969-12-31T23:59:59.999"

    def test_date_and_time_to_string(self) -> None:
        assert format_date_iso(10) == "1970-01-11"
        assert format_date_iso(-1) == "1969-12-31"
        assert format_time_iso(5000) == "00:00:05"
        assert format_time_iso(0) == "00:00"
        assert format_time_iso(60_000) == "00:01"
        assert format_time_iso(10) == "00:00:00.010"
        assert format_time_cast(10) == "00:00"  # CAST keeps whole seconds only
        assert format_time_cast(49_510_500) == "13:45:10"

    @pytest.mark.parametrize(
        "text, expected",
        [("1970-01-01T00:00:00.010", 10), ("1970-01-01T00:00:01", 1000), ("2020-01-01T00", 1577836800000),
         ("2020-01", 1577836800000), ("2020", 1577836800000), ("2020-05-26T23:59:58.000+0100", 1590533998000),
         ("2020-05-26T23:59:58.000Z", 1590537598000), ("2020-05-26T22:59:58-01:00", 1590537598000)],
    )  # fmt: skip
    def test_partial_timestamps(self, text: str, expected: int) -> None:
        assert parse_timestamp_iso(text) == expected

    def test_bad_timestamp_explains_format(self) -> None:
        with pytest.raises(DateTimeError, match="Required format is"):
            parse_timestamp_iso("foo")

    def test_string_to_date(self) -> None:
        assert parse_date_iso("1970-01-10") == 9
        assert parse_date_iso("1970-01") == 0
        assert parse_date_iso("1969-12-31") == -1
        with pytest.raises(DateTimeError):
            parse_date_iso("foo")

    def test_string_to_time(self) -> None:
        assert parse_time_iso("00:00:00.010") == 10
        assert parse_time_iso("00:00:01") == 1000
        assert parse_time_iso("00:01") == 60_000
        for bad in ("foo", "24:00", "1:00"):
            with pytest.raises(DateTimeError):
                parse_time_iso(bad)

    def test_timestamp_to_date_and_time_floor(self) -> None:
        assert [timestamp_to_date(x) for x in (5000, -2000, 86_400_100)] == [0, -1, 1]
        assert [timestamp_to_time(x) for x in (5000, -2000, 86_400_100)] == [5000, 86_398_000, 100]
        assert date_to_timestamp(10) == 864_000_000


@pytest.mark.parametrize("pattern", ["yyyy-MM-dd", "yyyy-MM-dd HH:mm", "EEE, d MMM yyyy hh a z",
                                     "YYYY-'W'ww-e xxx", "HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss.SSS"])
@pytest.mark.parametrize("offset_min", [0, 330, -480])
def test_a_memoised_timestamp_format_prints_what_the_formatter_prints(pattern: str, offset_min: int) -> None:
    """Fixed-offset formatting is memoised per local day/hour/minute/second (the pattern's finest field):
    every instant across the boundaries - midnight, the hour, both signs of the epoch - prints as unmemoised."""
    from datetime import timedelta, timezone

    from ksqlpy.functions.javatime.compiled import _ALL, _EPOCH_NAIVE, JavaPattern

    zone = timezone(timedelta(minutes=offset_min))
    memoised, plain = JavaPattern(pattern), JavaPattern(pattern).formatter(_ALL)
    bound = memoised.timestamp_formatter(zone)  # the per-record form: the same memo, looked up first
    for start in (-86_400_000 - 5_000, 1_700_000_000_000 - 3_600_000):
        for ms in range(start, start + 2 * 86_400_000, 599_999):  # steps that cross every boundary kind
            for t in (ms, ms + 1, ms - 1):
                want = plain((_EPOCH_NAIVE + timedelta(milliseconds=t) + zone.utcoffset(None)).replace(tzinfo=zone))
                assert bound(t) == want, (t, want)
                assert memoised.format_timestamp(t, zone) == want, (t, want)
                assert bound(t) == want, (t, want)


def test_the_bound_timestamp_format_follows_zone_rules() -> None:
    """A zone with daylight saving has no fixed offset: the bound form formats each instant as it is."""
    from ksqlpy.functions.datetime import format_timestamp

    # 2021-03-14 06:59:59.999Z is 01:59 EST; a millisecond later it is 03:00 EDT
    before, after = 1615705199999, 1615705200000
    for _ in range(2):  # the second round through the cached formatter
        assert format_timestamp(before, "yyyy-MM-dd HH:mm z", "America/New_York") == "2021-03-14 01:59 EST"
        assert format_timestamp(after, "yyyy-MM-dd HH:mm z", "America/New_York") == "2021-03-14 03:00 EDT"
        assert format_timestamp(after, "yyyy-MM-dd", "UTC") == "2021-03-14"
        assert format_timestamp(after - 25_200_001, "yyyy-MM-dd", "UTC") == "2021-03-13"
    with pytest.raises(DateTimeError, match="Failed to format timestamp 1 with formatter 'yyyy'"):
        format_timestamp(1, "yyyy", "Not/AZone")


def test_week_based_dates_resolve_only_when_complete_and_fields_override_in_chronofield_order():
    day = 86_400_000
    assert compile_pattern("YYYY-ww-e").parse_timestamp("2021-01-6") == 18628 * day  # 2021-01-01
    assert compile_pattern("YYYY-MM-dd").parse_timestamp("2021-01-01") == 0  # week-based year alone: ignored
    assert compile_pattern("EEE").parse_timestamp("Mon") == -3 * day  # ISO week of 1970-01-01
    assert compile_pattern("a").parse_timestamp("PM") == 12 * 3_600_000
    with pytest.raises(DateTimeError):
        compile_pattern("yyyy-MM-dd YYYY").parse_timestamp("2020-12-31 2020")  # cross-checked: 2021


def test_years_are_read_with_javas_strict_sign_styles():
    assert compile_pattern("yyyyMMdd").parse_timestamp("20210101") == 18628 * 86_400_000
    for text, pattern in (("20210101", "yyyy"), ("+2021", "yyyy"), ("-2021", "yyyy"), ("+2021", "u")):
        with pytest.raises(DateTimeError):
            compile_pattern(pattern).parse_timestamp(text)


def test_zone_names_of_one_offset_are_not_shared_by_the_memo():
    from ksqlpy.functions import datetime as fdt

    for zone, name in [("UTC", "UTC"), ("GMT", "GMT"), ("Z", "Z"), ("UTC+5", "UTC+05:00"), ("GMT+5", "GMT+05:00"),
                       ("+5", "+05:00")]:
        assert fdt.format_timestamp(1_600_000_000_000, "HH:mm z", zone).endswith(" " + name)


@pytest.mark.parametrize(("pattern", "message"), [
    ("ppMMM", "Cannot print as output of 3 characters exceeds pad width of 2"),
    ("pEEEE", "Cannot print as output of 6 characters exceeds pad width of 1"),
    ("p:H", "Pad letter 'p' must be followed by valid pad pattern: p:H"),
    ("HHp", "Pad letter 'p' must be followed by valid pad pattern: HHp"),
    ("g" * 20, "The minimum width must be from 1 to 19 inclusive but was 20"),
])
def test_pad_and_modified_julian_day_errors(pattern: str, message: str) -> None:
    """Java's texts (PadPrinterParserDecorator.format, DateTimeFormatterBuilder.parsePattern / appendValue)."""
    with pytest.raises(DateTimeError) as info:
        compile_pattern(pattern).format_timestamp(MAY_11_2018_UTC)
    assert str(info.value) == message


def test_pad_and_modified_julian_day_round_trip() -> None:
    p = compile_pattern("pppppppg ppH")
    assert p.format_timestamp(MAY_11_2018_UTC) == "  58249 21"
    assert p.parse_timestamp("  58249 21") == MAY_11_2018_UTC - (58 * 60 + 33) * 1000
    with pytest.raises(DateTimeError):
        p.parse_timestamp("58249 21")          # fewer characters than the pad
