"""A searched CASE whose WHEN condition is NULL when it is reached fails the record's expression, as ksqlDB's
generated code does (from memory of SearchedCaseFunction: the WHEN suppliers are filtered lazily in order and each
Boolean is unboxed, so a NULL one throws): the projection's column is NULL (logged) and WHERE drops the record.
Conditions after the first true one are never evaluated, so a NULL there changes nothing; a NULL condition
tested with IS NULL is an ordinary BOOLEAN. Scope: a NULL BOOLEAN column, a NULL comparison result is never
NULL (a comparison is FALSE with a NULL operand), AND/OR with a NULL operand that is reached, nested CASE,
with and without ELSE, every result type of the branches.

Writes tests/cases/functions/case-null-conditions.json: ``python tests/cases/functions/gen_case_null_conditions.py``.
"""
from __future__ import annotations

import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

COLUMNS = "NB BOOLEAN, T BOOLEAN, F BOOLEAN, I INT, S STRING, D DECIMAL(4, 2), A ARRAY<INT>"
ROW = {"NB": None, "T": True, "F": False, "I": 5, "S": "s", "D": 1.25, "A": [1]}

PROBES: list[tuple[str, object]] = [
    ("CASE WHEN NB THEN 1 ELSE 2 END", None),                    # reached: fails
    ("CASE WHEN NB THEN 1 END", None),
    ("CASE WHEN T THEN 1 WHEN NB THEN 2 END", 1),                # after the first true one: never evaluated
    ("CASE WHEN F THEN 1 WHEN NB THEN 2 ELSE 3 END", None),      # reached after a false one: fails
    ("CASE WHEN NB IS NULL THEN 'null' ELSE 'set' END", "null"),
    ("CASE WHEN NB IS NOT NULL THEN 'set' ELSE 'null' END", "null"),
    ("CASE WHEN CAST(NULL AS INT) = I THEN 1 ELSE 2 END", 2),
    ("CASE WHEN F AND NB THEN 1 ELSE 2 END", 2),                 # AND stops at FALSE: NB is not reached
    ("CASE WHEN T OR NB THEN 1 ELSE 2 END", 1),                  # OR stops at TRUE
    ("CASE WHEN T AND NB THEN 1 ELSE 2 END", None),              # NB reached: fails
    ("CASE WHEN NB THEN 'a' ELSE S END", None),
    ("CASE WHEN NB THEN D ELSE D END", None),
    ("CASE WHEN NB THEN A ELSE A END", None),
    ("CASE WHEN T THEN CASE WHEN NB THEN 1 ELSE 2 END ELSE 3 END", None),   # the inner CASE fails the whole
    ("CASE WHEN F THEN CASE WHEN NB THEN 1 ELSE 2 END ELSE 3 END", 3),      # the inner CASE is not reached
    # a failing argument fails the call it is evaluated in (ksqlDB's nested-error guard wraps the call with its
    # arguments): COALESCE is NULL, not 9; a failing function call inside is contained to that call instead
    ("COALESCE(CASE WHEN NB THEN 1 END, 9)", None),
    ("COALESCE(ABS(CASE WHEN NB THEN 1 END), 9)", 9),
]


def where_case() -> dict[str, Any]:
    """WHERE: a NULL condition reached drops the record, like any failing predicate."""
    rows = [(1, True, None), (2, False, None), (3, None, True), (4, None, False)]
    return {
        "name": "searched CASE in WHERE: a NULL WHEN that is reached drops the record; one after a true WHEN "
                "is not evaluated",
        "statements": [
            "CREATE STREAM S (ID INT KEY, X BOOLEAN, Y BOOLEAN) WITH (kafka_topic='s', value_format='JSON');",
            "CREATE STREAM O AS SELECT ID, X FROM S WHERE CASE WHEN X THEN TRUE WHEN Y THEN TRUE ELSE FALSE END;",
        ],
        "inputs": [{"topic": "s", "key": k, "value": {"X": x, "Y": y}} for k, x, y in rows],
        # 1: X true; 2: X false, Y NULL reached -> dropped; 3 and 4: X NULL reached first -> dropped
        "outputs": [{"topic": "O", "key": 1, "value": {"X": True}}],
    }


def main() -> None:
    tests = [probe_case("searched CASE over a NULL condition, reached or not", PROBES, COLUMNS, ROW),
             where_case()]
    write_cases(str(pathlib.Path(__file__).with_name("case-null-conditions.json")), __doc__ or "", tests)


if __name__ == "__main__":
    main()
