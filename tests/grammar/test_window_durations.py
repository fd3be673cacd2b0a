"""Durations in the grammar (``number windowUnit``) and the fixed order of a window's clauses.

ksqlDB's grammar takes any ``number`` for a window size, ADVANCE BY, a session gap, RETENTION, GRACE PERIOD,
WITHIN and an ASSERT's TIMEOUT - integer, decimal or exponent form, with a sign - and its AST builder reads the
text with ``Long.parseLong``. So a non-integer (or one beyond BIGINT) is no syntax error: the statement fails
while it is prepared, ``Failed to prepare statement: For input string: "<text>"``, and only once the whole text
parsed (a syntax error anywhere comes first). The window's optional clauses come in one order: RETENTION, then
GRACE PERIOD, then ``)``.
"""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import parse, parse_one

# every place a duration is written; {d} is the duration under test
PLACES = {
    "tumbling size": "SELECT k, COUNT(*) FROM s WINDOW TUMBLING (SIZE {d}) GROUP BY k EMIT CHANGES;",
    "hopping size": "SELECT k, COUNT(*) FROM s WINDOW HOPPING (SIZE {d}, ADVANCE BY 1 SECOND) GROUP BY k;",
    "advance by": "SELECT k, COUNT(*) FROM s WINDOW HOPPING (SIZE 10 SECONDS, ADVANCE BY {d}) GROUP BY k;",
    "session gap": "SELECT k, COUNT(*) FROM s WINDOW SESSION ({d}) GROUP BY k;",
    "retention": "SELECT k, COUNT(*) FROM s WINDOW TUMBLING (SIZE 1 SECOND, RETENTION {d}) GROUP BY k;",
    "grace": "SELECT k, COUNT(*) FROM s WINDOW SESSION (1 SECOND, GRACE PERIOD {d}) GROUP BY k;",
    "named window": "SELECT k, COUNT(*) FROM s WINDOW w TUMBLING (SIZE {d}) GROUP BY k;",
    "within": "SELECT * FROM a JOIN b WITHIN {d} ON a.k = b.k EMIT CHANGES;",
    "within before": "SELECT * FROM a JOIN b WITHIN ({d}, 1 SECOND) ON a.k = b.k;",
    "within after": "SELECT * FROM a JOIN b WITHIN (1 SECOND, {d}) ON a.k = b.k;",
    "within grace": "SELECT * FROM a JOIN b WITHIN 1 SECOND GRACE PERIOD {d} ON a.k = b.k;",
    "create as": "CREATE TABLE t AS SELECT k, COUNT(*) FROM s WINDOW TUMBLING (SIZE {d}) GROUP BY k;",
    "insert into": "INSERT INTO o SELECT * FROM a JOIN b WITHIN {d} ON a.k = b.k;",
    "explain": "EXPLAIN SELECT k, COUNT(*) FROM s WINDOW TUMBLING (SIZE {d}) GROUP BY k EMIT CHANGES;",
    "assert timeout": "ASSERT TOPIC x TIMEOUT {d};",
    "assert schema": "ASSERT NOT EXISTS SCHEMA ID 4 TIMEOUT {d};",
}

NOT_LONGS = ["1.5", "1.", ".5", "1.0", "1e3", "2E-1", "1.5e2", "-1.5", "-.5", "-1e3", "9223372036854775808",
             "99999999999999999999"]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("number", NOT_LONGS)
def test_a_number_that_is_no_long_fails_to_prepare(place: str, number: str) -> None:
    sql = PLACES[place].format(d=f"{number} SECONDS")
    with pytest.raises(KsqlParseError) as info:
        parse(sql)
    assert str(info.value) == f'Failed to prepare statement: For input string: "{number}"'
    # the position stays on the error (ksqlDB's text has none): the number's first character
    start = sql.index(number.lstrip("-"))
    assert (info.value.line, info.value.column) == (1, start + 1 - number.startswith("-"))


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize(("number", "unit", "ms"), [
    ("7", "MILLISECONDS", 7), ("1", "SECOND", 1000), ("2", "MINUTES", 120_000), ("3", "HOUR", 10_800_000),
    ("1", "DAYS", 86_400_000), ("9223372036854775807", "MILLISECOND", 2**63 - 1),
])
def test_integers_parse_in_every_place(place: str, number: str, unit: str, ms: int) -> None:
    assert parse_one(PLACES[place].format(d=f"{number} {unit}")) is not None


def test_a_negative_integer_parses_and_is_refused_later_by_its_own_rule() -> None:
    window = parse_one("SELECT k, COUNT(*) FROM s WINDOW TUMBLING (SIZE -1 SECONDS) GROUP BY k;").query.window
    assert window is not None and window.size_ms == -1000


@pytest.mark.parametrize("sql", [
    "SELECT k, COUNT(*) FROM s WINDOW TUMBLING (SIZE 1.5 SECONDS) GROUP BY k HAVING EMIT CHANGES;",
    "SELECT k, COUNT(*) FROM s WINDOW TUMBLING (SIZE 1.5 SECONDS, GRACE PERIOD 1 SECOND, RETENTION 1 DAY) "
    "GROUP BY k;",
    "SELECT k, COUNT(*) FROM s WINDOW TUMBLING (SIZE 1.5 FORTNIGHTS) GROUP BY k;",
])
def test_a_syntax_error_comes_before_the_number_rule(sql: str) -> None:
    with pytest.raises(KsqlParseError) as info:
        parse(sql)
    assert str(info.value).startswith("line 1:") and "Syntax Error" in str(info.value)


def test_the_first_bad_number_is_the_one_reported() -> None:
    with pytest.raises(KsqlParseError, match='For input string: "2.5"'):
        parse("SELECT k, COUNT(*) FROM s WINDOW HOPPING (SIZE 2.5 SECONDS, ADVANCE BY 0.5 SECONDS) GROUP BY k;")


def test_the_rule_holds_per_statement_of_a_script() -> None:
    with pytest.raises(KsqlParseError, match='For input string: "0.5"'):
        parse("SELECT k, COUNT(*) FROM s WINDOW SESSION (5 SECONDS) GROUP BY k;\n"
              "SELECT k, COUNT(*) FROM s WINDOW SESSION (0.5 SECONDS) GROUP BY k;")


# --------------------------------------------------------------------------- clause order

WINDOWS = {
    "TUMBLING": "TUMBLING (SIZE 1 SECOND, {c})",
    "HOPPING": "HOPPING (SIZE 2 SECONDS, ADVANCE BY 1 SECOND, {c})",
    "SESSION": "SESSION (1 SECOND, {c})",
}


@pytest.mark.parametrize("kind", WINDOWS)
def test_retention_then_grace_is_the_order(kind: str) -> None:
    window = WINDOWS[kind].format(c="RETENTION 2 DAYS, GRACE PERIOD 3 SECONDS")
    spec = parse_one(f"SELECT k, COUNT(*) FROM s WINDOW {window} GROUP BY k;").query.window
    assert spec is not None and (spec.retention_ms, spec.grace_ms) == (172_800_000, 3_000)


@pytest.mark.parametrize("kind", WINDOWS)
def test_retention_after_grace_is_a_syntax_error_at_its_comma(kind: str) -> None:
    """After GRACE PERIOD the grammar wants the window's ``)``: the ',' before RETENTION is the mismatch."""
    head = f"SELECT k, COUNT(*) FROM s\nWINDOW {WINDOWS[kind].format(c='GRACE PERIOD 3 SECONDS')}"[:-1]
    line2 = head.split("\n")[1] + ", RETENTION 2 DAYS) GROUP BY k;"
    sql = head.split("\n")[0] + "\n" + line2
    with pytest.raises(KsqlParseError) as info:
        parse(sql)
    column = line2.index(", RETENTION") + 1
    assert str(info.value) == f"line 2:{column}: Syntax Error\nExpecting ')'\nStatement: {line2}"


@pytest.mark.parametrize("kind", WINDOWS)
def test_a_clause_given_twice_is_a_syntax_error(kind: str) -> None:
    sql = f"SELECT k, COUNT(*) FROM s WINDOW {WINDOWS[kind].format(c='RETENTION 2 DAYS, RETENTION 3 DAYS')} GROUP BY k;"
    with pytest.raises(KsqlParseError) as info:
        parse(sql)
    column = sql.index("RETENTION 3") + 1
    assert str(info.value) == f"line 1:{column}: Syntax Error\nExpecting 'GRACE'\nStatement: {sql}"
