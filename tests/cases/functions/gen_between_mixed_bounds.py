"""BETWEEN with bounds of different numeric types is two comparisons, each with its own operand rule (from memory
of ksqlDB's SqlToJavaVisitor.visitBetweenPredicate, which generates ``value >= min && value <= max``): a BIGINT or
INT operand against a DOUBLE bound is compared as a double, against a DECIMAL bound exactly (``new
BigDecimal(long)``), so past 2^53 a BIGINT between a DOUBLE and a DECIMAL bound is judged exactly on the DECIMAL
side; a DOUBLE operand against a DECIMAL bound is ``BigDecimal.valueOf(double)``. A NULL operand or bound makes it
FALSE, as each comparison is.

Writes tests/cases/functions/between-mixed-bounds.json: ``python tests/cases/functions/gen_between_mixed_bounds.py
tests/cases/functions/between-mixed-bounds.json`` after changing this file.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

TWO_53 = 2**53
COLUMNS = "B BIGINT, I INT, D DOUBLE, DC DECIMAL(20, 1), N BIGINT"
ROW = {"B": TWO_53 + 1, "I": 7, "D": 9007199254740992.0, "DC": 9007199254740992.0, "N": None}

PROBES: list[tuple[str, object]] = [
    # the DECIMAL side is exact: 2^53+1 is above 2^53.0 (as a double it would equal it)
    (f"B BETWEEN 0.5E0 AND {TWO_53}.0", False),
    (f"B BETWEEN {TWO_53 + 1}.0 AND 1.0E300", True),
    (f"B BETWEEN {TWO_53 + 2}.0 AND 1.0E300", False),
    ("B BETWEEN 0.5E0 AND DC", False),
    ("B BETWEEN DC AND 1.0E300", True),
    # the DOUBLE side is a double: 2^53+1 as a double is 2^53, within [.., 2^53]
    (f"B BETWEEN {TWO_53 + 1}.0 AND D", True),
    (f"B BETWEEN D AND {TWO_53 + 1}.0", True),
    (f"B BETWEEN D AND {TWO_53}.0", False),
    # both bounds DECIMAL, or both DOUBLE: one rule for both sides
    (f"B BETWEEN {TWO_53}.0 AND {TWO_53 + 1}.0", True),
    (f"B BETWEEN {TWO_53 + 2}.0 AND {TWO_53 + 3}.0", False),
    ("B BETWEEN D AND D", True),
    # INT operand: small numbers agree either way
    ("I BETWEEN 6.5E0 AND 7.0", True),
    ("I BETWEEN 7.0 AND 7.5E0", True),
    ("I BETWEEN 7.01 AND 8E0", False),
    ("N BETWEEN 0.5E0 AND 1.5", False),
    ("B BETWEEN CAST(NULL AS DOUBLE) AND 1.5", False),
    ("B BETWEEN 0.5E0 AND CAST(NULL AS DECIMAL(3, 1))", False),
]

tests = [probe_case("BETWEEN a DOUBLE and a DECIMAL bound compares each side by its own rule", PROBES, COLUMNS,
                    ROW)]

if __name__ == "__main__":
    write_cases(sys.argv[1], __doc__, tests)
