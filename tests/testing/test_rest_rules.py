"""The REST runner's rules that need no server: error classes, rows as a multiset, the admin/query split."""

from __future__ import annotations

from ksqlpy.testing.rest_responses import error_type_matches, unmatched_rows


def test_an_expected_error_class_matches_its_subclasses() -> None:
    assert error_type_matches("KsqlErrorMessage", "generic_error")
    assert error_type_matches("KsqlErrorMessage", "statement_error")  # KsqlStatementErrorMessage extends it
    assert error_type_matches("KsqlStatementErrorMessage", "statement_error")
    assert not error_type_matches("KsqlStatementErrorMessage", "generic_error")
    assert not error_type_matches("KsqlErrorMessage", None)


def test_rows_match_as_a_multiset() -> None:
    def equal(e: object, a: object) -> bool:
        return e == a

    assert unmatched_rows([1, 2, 2], [2, 1, 2], equal) == []
    assert unmatched_rows([1, 2, 2], [2, 1, 1], equal) == [2]  # each actual row matches once
    assert unmatched_rows([1], [1, 1], equal) == []  # the caller compares the counts


def test_a_row_pattern_matching_several_rows_does_not_steal_the_only_match_of_another() -> None:
    # "any" matches both rows; greedy matching would give it row "b" and leave "b" unmatched
    def matches(e: str, a: str) -> bool:
        return e == "any" or e == a

    assert unmatched_rows(["any", "b"], ["b", "c"], matches) == []


def test_a_case_is_split_at_its_first_select() -> None:
    from ksqlpy.testing.rest import split_statements

    create, insert = "CREATE STREAM S (ID INT KEY) WITH (kafka_topic='s', value_format='JSON');", "INSERT INTO S (ID) VALUES (1);"
    pull, push = "SELECT * FROM S;", "select * from S emit changes;"
    assert split_statements([create, insert, pull, push]) == ([create, insert], [pull, push])
    # whatever follows the first query goes to /query too (which refuses a non-query)
    assert split_statements([create, pull, insert, pull]) == ([create], [pull, insert, pull])
    assert split_statements([create, insert]) == ([create, insert], [])
    assert split_statements([pull]) == ([], [pull])
    # a statement merely containing SELECT is no query
    csas = "CREATE STREAM S2 AS SELECT * FROM S;"
    assert split_statements([create, csas]) == ([create, csas], [])
