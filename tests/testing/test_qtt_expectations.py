"""What of an expected output the QTT runner checks, as ksqlDB's TestExecutor.validateCreatedMessage
(``executor.as_checked``): absent headers expect none; an absent timestamp is never compared; in a case
without inputs an expected timestamp of 0 is not compared either."""

from __future__ import annotations

from ksqlpy.testing.compare import ActualRecord, topic_diff
from ksqlpy.testing.executor import as_checked
from ksqlpy.testing.model import TestRecord


def _actual(ts: int, headers: list[tuple[str, bytes | None]] | None = None) -> ActualRecord:
    return ActualRecord(0, 0, 1, {"V": 1}, ts, headers=headers)


def _diff(expected: TestRecord, actual: ActualRecord, *, ran_with_inserts: bool = False) -> str | None:
    m = topic_diff("O", [as_checked(expected, ran_with_inserts)], [[actual]], False)
    return None if m is None else m.field


def test_absent_headers_expect_a_record_without_headers() -> None:
    expected = TestRecord("O", 1, {"V": 1})
    assert _diff(expected, _actual(5)) is None
    assert _diff(expected, _actual(5, [])) is None
    assert _diff(expected, _actual(5, [("h", b"!")])) == "headers"
    given = TestRecord("O", 1, {"V": 1}, headers=[("h", b"!")])
    assert _diff(given, _actual(5, [("h", b"!")])) is None
    assert _diff(given, _actual(5)) == "headers"


def test_an_absent_timestamp_is_not_compared() -> None:
    assert _diff(TestRecord("O", 1, {"V": 1}), _actual(123456)) is None


def test_an_expected_timestamp_of_zero_is_compared_when_the_case_has_inputs() -> None:
    expected = TestRecord("O", 1, {"V": 1}, timestamp=0)
    assert _diff(expected, _actual(0)) is None
    assert _diff(expected, _actual(1_700_000_000_000)) == "timestamp"


def test_without_inputs_only_a_non_zero_expected_timestamp_is_compared() -> None:
    zero = TestRecord("O", 1, {"V": 1}, timestamp=0)
    assert _diff(zero, _actual(1_700_000_000_000), ran_with_inserts=True) is None
    five = TestRecord("O", 1, {"V": 1}, timestamp=5)
    assert _diff(five, _actual(5), ran_with_inserts=True) is None
    assert _diff(five, _actual(1_700_000_000_000), ran_with_inserts=True) == "timestamp"
