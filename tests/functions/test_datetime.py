"""DATE/TIME scalar functions resolved through the registry, as the expression compiler will use them."""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions.datetime import INTERVAL_UNIT, register
from ksqlpy.functions.javatime import DateTimeError
from ksqlpy.functions.registry import FunctionRegistry, Resolved
from ksqlpy.types import BIGINT, DATE, INTEGER, STRING, TIME, TIMESTAMP, SqlType

UNIT = INTERVAL_UNIT


@pytest.fixture(scope="module")
def registry() -> FunctionRegistry:
    r = FunctionRegistry()
    register(r)
    return r


def resolve(registry: FunctionRegistry, name: str, *types: SqlType) -> Resolved:
    return registry.scalars[name].resolve(list(types))


def call(registry: FunctionRegistry, name: str, types: list[SqlType], *args: Any) -> Any:
    return resolve(registry, name, *types).impl(*args)


def test_every_documented_function_is_registered(registry: FunctionRegistry) -> None:
    names = (
        "CONVERT_TZ DATEADD DATESUB FORMAT_DATE FORMAT_TIME FORMAT_TIMESTAMP FROM_DAYS FROM_UNIXTIME PARSE_DATE "
        "PARSE_TIME PARSE_TIMESTAMP TIMEADD TIMESUB TIMESTAMPADD TIMESTAMPSUB UNIX_DATE UNIX_TIMESTAMP "
        "DATETOSTRING STRINGTODATE STRINGTOTIMESTAMP TIMESTAMPTOSTRING"
    ).split()
    assert all(registry.kind_of(n) == "scalar" for n in names)
    assert all(getattr(registry.scalars[n], "null_on_null", False) for n in names)


class TestIntervals:
    def test_date_arithmetic(self, registry: FunctionRegistry) -> None:
        add = resolve(registry, "DATEADD", UNIT, INTEGER, DATE)
        assert add.return_type == DATE
        assert [add.impl("DAYS", -5, d) for d in (5, 10, 2)] == [0, 5, -3]
        assert add.impl("DAYS", 10, 10) == 20
        assert add.impl("HOURS", 47, 0) == 1  # whole days only
        assert call(registry, "DATESUB", [UNIT, INTEGER, DATE], "DAY", 3, 1) == -2

    def test_time_wraps_around_midnight(self, registry: FunctionRegistry) -> None:
        assert call(registry, "TIMEADD", [UNIT, INTEGER, TIME], "MILLISECONDS", 10, 86_399_995) == 5
        assert call(registry, "TIMEADD", [UNIT, INTEGER, TIME], "MILLISECONDS", -5, 2) == 86_399_997
        assert call(registry, "TIMESUB", [UNIT, INTEGER, TIME], "MILLISECONDS", 10, 5) == 86_399_995
        assert call(registry, "TIMESUB", [UNIT, INTEGER, TIME], "MILLISECONDS", -5, 86_399_997) == 2

    def test_timestamp_arithmetic_widens_interval(self, registry: FunctionRegistry) -> None:
        add = resolve(registry, "TIMESTAMPADD", UNIT, INTEGER, TIMESTAMP)
        assert add.param_types == [UNIT, BIGINT, TIMESTAMP]
        assert add.impl("MILLISECONDS", -5, 2) == -3
        assert add.impl("SECONDS", 1, 10) == 1010
        assert call(registry, "TIMESTAMPSUB", [UNIT, BIGINT, TIMESTAMP], "MINUTES", 1, 0) == -60_000
        assert add.impl("MICROSECONDS", 1999, 0) == 1  # finer units truncate to whole ms

    def test_timestamp_arithmetic_overflows_as_java_longs(self, registry: FunctionRegistry) -> None:
        add = resolve(registry, "TIMESTAMPADD", UNIT, BIGINT, TIMESTAMP)
        sub = resolve(registry, "TIMESTAMPSUB", UNIT, BIGINT, TIMESTAMP)
        # TimeUnit.toMillis saturates at Long.MAX_VALUE, the sum then wraps: never a value outside BIGINT
        assert add.impl("DAYS", 2**40, 1) == -(2**63)
        assert add.impl("MILLISECONDS", 2**63 - 1, 2) == -(2**63) + 1
        assert sub.impl("DAYS", 2**40, -2) == 2**63 - 1

    @pytest.mark.parametrize(
        "name, value_type", [("DATEADD", DATE), ("TIMEADD", TIME), ("TIMESTAMPADD", TIMESTAMP)]
    )
    def test_unit_must_be_an_interval_keyword(
        self, registry: FunctionRegistry, name: str, value_type: SqlType
    ) -> None:
        msg = f"Function '{name.lower()}' does not accept parameters ({value_type}, INTEGER, {value_type})."
        with pytest.raises(KsqlTypeError) as e:
            resolve(registry, name, value_type, INTEGER, value_type)
        assert str(e.value).startswith(msg)
        with pytest.raises(KsqlTypeError):
            resolve(registry, name, STRING, INTEGER, value_type)


class TestFormatAndParse:
    def test_format_date_and_deprecated_form(self, registry: FunctionRegistry) -> None:
        assert call(registry, "FORMAT_DATE", [DATE, STRING], 17662, "yyyy-MM-dd") == "2018-05-11"
        assert call(registry, "DATETOSTRING", [INTEGER, STRING], 18027, "dd/MM/yyyy") == "11/05/2019"

    def test_format_time(self, registry: FunctionRegistry) -> None:
        assert call(registry, "FORMAT_TIME", [TIME, STRING], 0, "HH:mm:ss") == "00:00:00"

    def test_format_timestamp_with_and_without_zone(self, registry: FunctionRegistry) -> None:
        pattern = "yyyy-MM-dd HH:mm:ss zzz"
        la = call(
            registry,
            "FORMAT_TIMESTAMP",
            [TIMESTAMP, STRING, STRING],
            1526075913000,
            pattern,
            "America/Los_Angeles",
        )
        assert la == "2018-05-11 14:58:33 PDT"
        utc = call(registry, "FORMAT_TIMESTAMP", [TIMESTAMP, STRING], 1526075913000, "yyyy-MM-dd HH:mm:ss")
        assert utc == "2018-05-11 21:58:33"
        old = call(
            registry, "TIMESTAMPTOSTRING", [BIGINT, STRING, STRING], 1526075913000, pattern, "Europe/London"
        )
        assert old == "2018-05-11 22:58:33 BST"

    def test_parse_functions(self, registry: FunctionRegistry) -> None:
        assert call(registry, "PARSE_DATE", [STRING, STRING], "2018-05-11Lit", "yyyy-MM-dd'Lit'") == 17662
        assert call(registry, "STRINGTODATE", [STRING, STRING], "01-Jan-2022", "dd-MMM-yyyy") == 18993
        assert call(registry, "PARSE_TIME", [STRING, STRING], "00:01:05", "HH:mm:ss") == 65_000
        iso = "yyyy-MM-dd'T'HH:mm:ssX"
        assert (
            call(registry, "STRINGTOTIMESTAMP", [STRING, STRING], "2019-05-11T21:58:33Z", iso)
            == 1557611913000
        )
        ts = call(
            registry,
            "PARSE_TIMESTAMP",
            [STRING, STRING, STRING],
            "2019-05-11 14:58",
            "yyyy-MM-dd HH:mm",
            "-07:00",
        )
        assert ts == 1557611880000

    def test_failures_name_the_input(self, registry: FunctionRegistry) -> None:
        with pytest.raises(DateTimeError, match="Failed to parse date 'nope' with formatter 'yyyy'"):
            call(registry, "PARSE_DATE", [STRING, STRING], "nope", "yyyy")
        with pytest.raises(DateTimeError, match="Unknown time-zone ID"):
            call(registry, "FORMAT_TIMESTAMP", [TIMESTAMP, STRING, STRING], 0, "yyyy", "Nowhere/City")

    def test_string_arguments_cast_to_temporal_parameters(self, registry: FunctionRegistry) -> None:
        r = resolve(registry, "FORMAT_DATE", STRING, STRING)
        assert r.param_types == [DATE, STRING]


class TestConversions:
    def test_identities(self, registry: FunctionRegistry) -> None:
        assert resolve(registry, "FROM_DAYS", INTEGER).return_type == DATE
        assert call(registry, "FROM_UNIXTIME", [BIGINT], 1589234313000) == 1589234313000
        assert call(registry, "UNIX_DATE", [DATE], 100) == 100
        assert resolve(registry, "UNIX_TIMESTAMP", TIMESTAMP).return_type == BIGINT

    def test_now_functions_are_not_deterministic(self, registry: FunctionRegistry) -> None:
        now = resolve(registry, "UNIX_TIMESTAMP")
        today = resolve(registry, "UNIX_DATE")
        assert not now.deterministic and not today.deterministic
        assert now.impl() > 1_600_000_000_000
        assert today.impl() > 18_000

    def test_convert_tz(self, registry: FunctionRegistry) -> None:
        conv = resolve(registry, "CONVERT_TZ", TIMESTAMP, STRING, STRING)
        assert conv.impl(1526075913000, "UTC", "America/Los_Angeles") == 1526075913000 - 7 * 3_600_000
        assert conv.impl(0, "+05:00", "UTC") == -5 * 3_600_000
        with pytest.raises(DateTimeError, match="Invalid time zone"):
            conv.impl(0, "UTC", "Not/AZone")
