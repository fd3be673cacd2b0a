"""The binder's typing rules, each over its whole scope: every type pair and operator class for comparisons,
numeric widening and DECIMAL precision/scale for arithmetic, list coercion (IN, ARRAY, MAP), CASE, the CAST
matrix, NULL handling, structs and subscripts - with ksqlDB's messages.

The expected tables here are written out from ksqlDB's rules (ksqldb-rules.md section 2), not computed by
the functions under test.
"""

from __future__ import annotations

import itertools

import pytest

from ksqlpy import types as T
from ksqlpy.errors import KsqlError
from ksqlpy.expr import bound as B
from ksqlpy.expr.binder import bind
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext, Clause
from ksqlpy.functions import builtin_registry
from ksqlpy.grammar import parse_expression

REGISTRY = builtin_registry()

# one column per type, named after it
TYPES: dict[str, T.SqlType] = {
    "I": T.INTEGER,
    "BI": T.BIGINT,
    "DEC": T.Decimal(4, 2),
    "DBL": T.DOUBLE,
    "S": T.STRING,
    "FLAG": T.BOOLEAN,
    "DT": T.DATE,
    "TM": T.TIME,
    "TS": T.TIMESTAMP,
    "BYT": T.BYTES,
    "ARR": T.Array(T.INTEGER),
    "M": T.Map(T.STRING, T.INTEGER),
    "ST": T.Struct((("F", T.STRING), ("G", T.INTEGER))),
}
SCOPE = Scope.of(list(TYPES.items()))


def bound(text: str) -> B.Expr:
    return bind(parse_expression(text), SCOPE, BindContext(REGISTRY))


def typ(text: str) -> T.SqlType:
    return bound(text).type


def error(text: str) -> str:
    with pytest.raises(KsqlError) as info:
        bound(text)
    return info.value.message


# --------------------------------------------------------------------------- comparisons

NUMBERS = {"I", "BI", "DEC", "DBL"}
ORDERING = ["=", "<>", "<", "<=", ">", ">="]
OP_NAMES = {"=": "EQUAL", "<>": "NOT_EQUAL", "<": "LESS_THAN", "<=": "LESS_THAN_OR_EQUAL", ">": "GREATER_THAN",
            ">=": "GREATER_THAN_OR_EQUAL", "IS DISTINCT FROM": "IS_DISTINCT_FROM"}
EQUALITY = {"=", "<>", "IS DISTINCT FROM"}


def allowed(left: str, op: str, right: str) -> bool:
    """ksqlDB's ComparisonUtil table, by the left operand's type."""
    if left in NUMBERS:
        return right in NUMBERS
    if left == "S":
        return right in ("S", "DT", "TM", "TS")
    if left == "FLAG":
        return right == "FLAG" and op in EQUALITY
    if left in ("ARR", "M", "ST"):
        return right == left and op in EQUALITY
    if left in ("DT", "TS"):
        return right in ("DT", "TS", "S")
    if left == "TM":
        return right in ("TM", "S")
    if left == "BYT":
        return right == "BYT"
    raise AssertionError(left)


@pytest.mark.parametrize("left, right", list(itertools.product(TYPES, TYPES)))
def test_comparison_table(left: str, right: str) -> None:
    for op in [*ORDERING, "IS DISTINCT FROM"]:
        text = f"{left} {op} {right}"
        if allowed(left, op, right):
            assert typ(text) == T.BOOLEAN, text
        else:
            assert error(text) == (f"Cannot compare {left} ({TYPES[left]}) to {right} ({TYPES[right]}) with "
                                   f"{OP_NAMES[op]}."), text


@pytest.mark.parametrize("text, shown", [
    ("I = '10'", "'10'"),        # no literal coercion in comparisons, whatever the operator
    ("I < '10'", "'10'"),
    ("DBL >= '1.5'", "'1.5'"),
    ("FLAG = 'true'", "'true'"),
])
def test_a_string_literal_is_not_coerced_in_a_comparison(text: str, shown: str) -> None:
    assert error(text).startswith(f"Cannot compare {text.split()[0]} (")
    assert f"to {shown} (STRING)" in error(text)


def test_numbers_and_strings_compare_with_their_kind_only() -> None:
    assert error("S = 10") == "Cannot compare S (STRING) to 10 (INTEGER) with EQUAL."
    assert error("10 = S") == "Cannot compare 10 (INTEGER) to S (STRING) with EQUAL."
    assert typ("TS > '2020-01-01T00:00:00'") == T.BOOLEAN  # a time type with a STRING: parsed, not coerced
    assert typ("'10:00' < TM") == T.BOOLEAN


@pytest.mark.parametrize("text, message", [
    ("NULL = NULL", "NULL = NULL"),
    ("I = NULL", "INTEGER = NULL"),
    ("NULL <> S", "NULL <> STRING"),
    ("DEC > NULL", "DECIMAL > NULL"),            # the base type's name
    ("ARR = NULL", "ARRAY = NULL"),
    ("NULL IS DISTINCT FROM I", "NULL IS DISTINCT FROM INTEGER"),
])
def test_comparison_with_null(text: str, message: str) -> None:
    assert error(text) == f"Comparison with NULL not supported: {message}\nUse 'IS NULL' or 'IS NOT NULL' instead."


def test_mixed_comparisons_are_made_comparable() -> None:
    e = bound("I < DBL")
    assert isinstance(e, B.Comparison) and e.left.type == T.DOUBLE and e.right.type == T.DOUBLE
    e = bound("DT = TS")
    assert isinstance(e, B.Comparison) and e.left.type == T.TIMESTAMP
    e = bound("S = DT")
    assert isinstance(e, B.Comparison) and e.left == B.Cast(SCOPE_REF("S"), type=T.DATE, implicit=True)


def SCOPE_REF(name: str) -> B.ColumnRef:  # noqa: N802 - reads like a constructor
    slot = SCOPE.columns[name]
    return B.ColumnRef(slot.index, slot.name, type=slot.type)


# --------------------------------------------------------------------------- arithmetic


@pytest.mark.parametrize("left, right, expected", [
    ("I", "I", T.INTEGER),
    ("I", "BI", T.BIGINT),
    ("BI", "I", T.BIGINT),
    ("I", "DBL", T.DOUBLE),
    ("DEC", "DBL", T.DOUBLE),
    ("DBL", "BI", T.DOUBLE),
    ("I", "DEC", T.Decimal(13, 2)),    # INT is DECIMAL(10, 0): max(10, 2) + 2 + 1
    ("BI", "DEC", T.Decimal(22, 2)),   # BIGINT is DECIMAL(19, 0)
])
def test_numeric_widening(left: str, right: str, expected: T.SqlType) -> None:
    assert typ(f"{left} + {right}") == expected


@pytest.mark.parametrize("op, expected", [
    ("+", T.Decimal(11, 3)),   # max(s1, s2) + max(p1 - s1, p2 - s2) + 1
    ("-", T.Decimal(11, 3)),
    ("*", T.Decimal(15, 5)),   # p1 + p2 + 1, s1 + s2
    ("/", T.Decimal(18, 13)),  # s = max(6, s1 + p2 + 1) = 13; p = p1 - s1 + s2 + s = 4 - 2 + 3 + 13
    ("%", T.Decimal(5, 3)),    # min(p1 - s1, p2 - s2) + max(s1, s2), max(s1, s2)
])
def test_decimal_precision_and_scale(op: str, expected: T.SqlType) -> None:
    assert typ(f"DEC {op} CAST(1 AS DECIMAL(10, 3))") == expected


def test_decimal_results_are_not_capped() -> None:
    assert typ("CAST(1 AS DECIMAL(30, 10)) * CAST(1 AS DECIMAL(30, 10))") == T.Decimal(61, 20)


@pytest.mark.parametrize("text, detail", [
    ("S - S", "Unsupported arithmetic types. STRING STRING"),
    ("FLAG + I", "Unsupported arithmetic types. BOOLEAN INTEGER"),
    ("DT + 1", "Unsupported arithmetic types. DATE INTEGER"),
    ("ARR * 2", "Unsupported arithmetic types. ARRAY INTEGER"),
    ("DEC + S", "Unsupported arithmetic types. DECIMAL STRING"),
    ("1 + NULL", "Arithmetic on types INTEGER and null are not supported."),
    ("NULL * NULL", "Arithmetic on types null and null are not supported."),
    ("M + NULL", "Arithmetic on types MAP<STRING, INTEGER> and null are not supported."),
])
def test_arithmetic_errors(text: str, detail: str) -> None:
    shown = "(" + text.replace("NULL", "null") + ")"
    assert error(text) == f"Error processing expression: {shown}. {detail}"


def test_string_addition_concatenates() -> None:
    assert typ("S + S") == T.STRING


# --------------------------------------------------------------------------- lists


@pytest.mark.parametrize("text, expected", [
    ("ARRAY['a', 1]", T.Array(T.STRING)),              # the first element fixes the type: 1 reads as text
    ("ARRAY[1, '2']", T.Array(T.INTEGER)),             # a numeric string widens an integer list
    ("ARRAY[1, '2147483648']", T.Array(T.BIGINT)),
    ("ARRAY[1, '1.50']", T.Array(T.Decimal(12, 2))),   # DECIMAL(3, 2) widened with INT's DECIMAL(10, 0)
    ("ARRAY[NULL, 10, '2e1', I, BI]", T.Array(T.Decimal(19, 0))),
    ("ARRAY[1, 2.5]", T.Array(T.Decimal(11, 1))),
    ("ARRAY[1, 2.5e0]", T.Array(T.DOUBLE)),
    ("ARRAY[true, 'yes']", T.Array(T.BOOLEAN)),
    ("ARRAY[NULL, S]", T.Array(T.STRING)),
    ("ARRAY[ARR, ARRAY[1, 2]]", T.Array(T.Array(T.INTEGER))),
    ("ARRAY[STRUCT(A := 1), STRUCT(B := 'x')]", T.Array(T.Struct((("A", T.INTEGER), ("B", T.STRING))))),
    ("MAP('a' := 1, 'b' := '2')", T.Map(T.STRING, T.INTEGER)),
    ("MAP(1 := 'x', '2' := 'y')", T.Map(T.INTEGER, T.STRING)),
])
def test_common_type_of_lists(text: str, expected: T.SqlType) -> None:
    assert typ(text) == expected


def test_list_elements_take_the_common_type() -> None:
    e = bound("ARRAY['a', 1, true]")
    assert isinstance(e, B.ArrayCtor)
    assert [i.value for i in e.items if isinstance(i, B.Literal)] == ["a", "1", "true"]
    e = bound("ARRAY[I, BI]")
    assert isinstance(e, B.ArrayCtor) and e.items[0] == B.Cast(SCOPE_REF("I"), type=T.BIGINT, implicit=True)


@pytest.mark.parametrize("text, message", [
    ("ARRAY[1, 'a']", 'invalid input syntax for type INTEGER: "a".'),   # the asymmetry with ARRAY['a', 1]
    ("ARRAY[1.5, 'x']", 'invalid input syntax for type DECIMAL: "x".'),
    ("ARRAY[true, 'maybe']", 'invalid input syntax for type BOOLEAN: "maybe".'),
    ("ARRAY[1, true]", "operator does not exist: INTEGER = BOOLEAN (true)\n"
                       "Hint: You might need to add explicit type casts."),
    ("ARRAY[I, S]", "operator does not exist: INTEGER = STRING (S)\nHint: You might need to add explicit type casts."),
    ("ARRAY[S, I]", "operator does not exist: STRING = INTEGER (I)\nHint: You might need to add explicit type casts."),
    ("ARRAY[ARR, ARRAY[FLAG]]", "operator does not exist: ARRAY<INTEGER> = ARRAY<BOOLEAN> (ARRAY[FLAG])\n"
                                "Hint: You might need to add explicit type casts."),
    ("ARRAY[]", "Array constructor cannot be empty. Please supply at least one element (see "
                "https://github.com/confluentinc/ksql/issues/4239)."),
    ("ARRAY[NULL, NULL]", "Cannot construct an array with all NULL elements (see "
                          "https://github.com/confluentinc/ksql/issues/4239). As a workaround, you may cast a NULL "
                          "value to the desired type."),
    ("MAP(NULL := 1)", "Cannot construct a map with all NULL keys (see https://github.com/confluentinc/ksql/issues/"
                       "4239). As a workaround, you may cast a NULL key to the desired type."),
    ("MAP('a' := NULL)", "Cannot construct a map with all NULL values (see https://github.com/confluentinc/ksql/"
                         "issues/4239). As a workaround, you may cast a NULL value to the desired type."),
    ("MAP('a' := 1, 'b' := 'x')", 'invalid input syntax for type INTEGER: "x".'),
])
def test_list_errors(text: str, message: str) -> None:
    assert error(text) == message


@pytest.mark.parametrize("text", [
    "I IN (1, '2')", "S IN (1, true, 2.5)", "FLAG IN ('yes', 'no', 'T')", "DEC IN (1, '2.5', DBL)",
    "ARR IN (ARRAY['1', '2'])", "ST IN (STRUCT(F := 'x'), STRUCT(G := '5'))", "I IN (NULL)", "TS IN ('2020-01-01')",
])
def test_in_lists_coerce_literals(text: str) -> None:
    assert typ(text) == T.BOOLEAN


@pytest.mark.parametrize("text, message", [
    ("I IN ('x')", 'invalid input syntax for type INTEGER: "x".'),
    ("FLAG IN ('maybe')", 'invalid input syntax for type BOOLEAN: "maybe".'),
    ("I IN (S)", "operator does not exist: INTEGER = STRING (S)\nHint: You might need to add explicit type casts."),
    ("S IN (I)", "operator does not exist: STRING = INTEGER (I)\nHint: You might need to add explicit type casts."),
    ("I IN (1, true)", "operator does not exist: INTEGER = BOOLEAN (true)\n"
                       "Hint: You might need to add explicit type casts."),
    ("ARR IN (ARRAY['1', 'x'])", 'invalid input syntax for type INTEGER: "x".'),
    ("M IN (MAP('a' := FLAG))", "operator does not exist: MAP<STRING, INTEGER> = MAP<STRING, BOOLEAN> "
                                "(MAP('a':=FLAG))\nHint: You might need to add explicit type casts."),
])
def test_in_list_errors(text: str, message: str) -> None:
    assert error(text) == message


# --------------------------------------------------------------------------- CASE


def test_case_types() -> None:
    assert typ("CASE WHEN FLAG THEN 1 ELSE 2 END") == T.INTEGER
    assert typ("CASE WHEN FLAG THEN NULL ELSE 'x' END") == T.STRING
    assert typ("CASE WHEN FLAG THEN DEC END") == T.Decimal(4, 2)


@pytest.mark.parametrize("text, message", [
    ("CASE WHEN FLAG THEN 1 WHEN FLAG THEN 'a' END",
     "Invalid Case expression. Type for all 'THEN' clauses should be the same.\n"
     "THEN expression 'WHEN FLAG THEN 'a'' has type: STRING.\nPrevious THEN expression(s) type: INTEGER."),
    ("CASE WHEN FLAG THEN 1 WHEN FLAG THEN BI END",   # identical types: no widening
     "Invalid Case expression. Type for all 'THEN' clauses should be the same.\n"
     "THEN expression 'WHEN FLAG THEN BI' has type: BIGINT.\nPrevious THEN expression(s) type: INTEGER."),
    ("CASE WHEN FLAG THEN 1 ELSE 2.5 END",
     "Invalid Case expression. Type for the default clause should be the same as for 'THEN' clauses.\n"
     "THEN type: INTEGER.\nDEFAULT type: DECIMAL(2, 1)."),
    ("CASE WHEN FLAG THEN NULL END", "Invalid Case expression. All case branches have NULL type"),
    ("CASE WHEN FLAG THEN NULL ELSE NULL END", "Invalid Case expression. All case branches have NULL type"),
    ("CASE WHEN I THEN 1 END", "WHEN operand type should be boolean.\nType for 'I' is INTEGER"),
])
def test_case_errors(text: str, message: str) -> None:
    assert error(text) == message


# --------------------------------------------------------------------------- CAST

CASTABLE: dict[str, set[str]] = {  # ksqlDB's CastEvaluator matrix, by source column
    "I": {"I", "BI", "DEC", "DBL", "S"},
    "BI": {"I", "BI", "DEC", "DBL", "S"},
    "DEC": {"I", "BI", "DEC", "DBL", "S"},
    "DBL": {"I", "BI", "DEC", "DBL", "S"},
    "S": {"I", "BI", "DEC", "DBL", "S", "FLAG", "DT", "TM", "TS", "BYT"},
    "FLAG": {"FLAG", "S"},
    "DT": {"DT", "TS", "S"},
    "TM": {"TM", "S"},
    "TS": {"TS", "DT", "TM", "S"},
    "BYT": {"BYT"},
    "ARR": {"ARR", "S"},
    "M": {"M", "S"},
    "ST": {"ST", "S"},
}


@pytest.mark.parametrize("src, dst", list(itertools.product(TYPES, TYPES)))
def test_cast_matrix(src: str, dst: str) -> None:
    text = f"CAST({src} AS {TYPES[dst]})"
    if dst in CASTABLE[src]:
        assert typ(text) == TYPES[dst]
    else:
        assert error(text) == f"Cast of {TYPES[src]} to {TYPES[dst]} is not supported"


def test_containers_cast_element_wise() -> None:
    assert typ("CAST(ARR AS ARRAY<STRING>)") == T.Array(T.STRING)
    assert typ("CAST(M AS MAP<STRING, DOUBLE>)") == T.Map(T.STRING, T.DOUBLE)
    assert typ("CAST(ST AS STRUCT<G BIGINT, H STRING>)") == T.Struct((("G", T.BIGINT), ("H", T.STRING)))
    assert error("CAST(ARR AS ARRAY<BOOLEAN>)") == "Cast of ARRAY<INTEGER> to ARRAY<BOOLEAN> is not supported"
    assert typ("CAST(NULL AS MAP<STRING, INT>)") == T.Map(T.STRING, T.INTEGER)


# --------------------------------------------------------------------------- structures, logic, functions


@pytest.mark.parametrize("text, message", [
    ("I->F", "Expected STRUCT type, got: INTEGER"),
    ("ST->NOPE", "Could not find field 'NOPE' in 'ST'."),
    ("ST->`f`", "Could not find field 'f' in 'ST'."),  # field names are case-sensitive
    ("I[1]", "Subscript expression (I[1]) do not apply to INTEGER."),
    ("ST['F']", "Subscript expression (ST['F']) do not apply to STRUCT<`F` STRING, `G` INTEGER>. Use the "
                "dereference operator for STRUCTS: ST->'F'"),
    # the second name met is refused naming both fields with their types, as SqlStruct.Field prints them
    ("STRUCT(A := 1, A := 2)", "Duplicate field names found in STRUCT: '`A` INTEGER' and '`A` INTEGER'"),
    ("STRUCT(A := I, B := 1, A := S)", "Duplicate field names found in STRUCT: '`A` INTEGER' and '`A` STRING'"),
    ("STRUCT(a := ARR, `a` := 1, A := M)",
     "Duplicate field names found in STRUCT: '`A` ARRAY<INTEGER>' and '`A` MAP<STRING, INTEGER>'"),
    ("STRUCT(`b` := ST, `b` := 1.5)",
     "Duplicate field names found in STRUCT: '`b` STRUCT<`F` STRING, `G` INTEGER>' and '`b` DECIMAL(2, 1)'"),
    ("STRUCT(A := NULL, A := 1)", "Duplicate field names found in STRUCT: '`A` STRING' and '`A` INTEGER'"),
    # fields are typed in order: an error in a field before the second name fires first, one after it not
    ("STRUCT(A := 1, B := I->F, A := 2)", "Expected STRUCT type, got: INTEGER"),
    ("STRUCT(A := 1, A := 2, B := I->F)", "Duplicate field names found in STRUCT: '`A` INTEGER' and '`A` INTEGER'"),
])
def test_structure_errors(text: str, message: str) -> None:
    assert error(text) == message


def test_structure_types() -> None:
    assert typ("ST->G") == T.INTEGER
    assert typ("ARR[1]") == T.INTEGER
    assert typ("M['a']") == T.INTEGER
    assert typ("STRUCT(A := I, B := S)") == T.Struct((("A", T.INTEGER), ("B", T.STRING)))


def test_logic_and_null_predicates() -> None:
    assert typ("FLAG AND I > 1") == T.BOOLEAN
    assert typ("NOT FLAG") == T.BOOLEAN
    assert isinstance(bound("I IS NOT NULL"), B.IsNull)
    assert error("FLAG AND I") == "Logical operand must be BOOLEAN: I is INTEGER"
    assert error("NOT S") == "Logical operand must be BOOLEAN: S is STRING"


@pytest.mark.parametrize("op", ["AND", "OR"])
@pytest.mark.parametrize(("left", "right", "expected"), [
    ("FLAG", "FLAG", T.BOOLEAN),
    ("NULL", "FLAG", T.BOOLEAN),
    ("FLAG", "NULL", T.NULL),                       # the right operand's type: a NULL has none
    ("FLAG", "(FLAG AND NULL)", T.NULL),
    ("FLAG", "CAST(NULL AS BOOLEAN)", T.BOOLEAN),
    ("(FLAG AND NULL)", "FLAG", T.BOOLEAN),
])
def test_and_or_are_typed_as_their_right_operand(op: str, left: str, right: str, expected: T.SqlType) -> None:
    """ksqlDB's ExpressionTypeManager visits both operands and keeps the last type it saw; the operands are
    checked only by the code generator (or the interpreter), which refuses a bare NULL one too."""
    for text, want in ((f"{left} {op} {right}", expected), (f"NOT ({left} {op} {right})", T.BOOLEAN)):
        ctx = BindContext(REGISTRY)
        assert bind(parse_expression(text), SCOPE, ctx, Clause.SELECT).type == want
        refused = [e.message for e in ctx.deferred[:1]]   # the first is reported
        bare_null = "NULL" in text.replace("CAST(NULL", "")
        assert refused == (["Invalid Select: Logical operand must be BOOLEAN: null is NULL."] if bare_null else [])


@pytest.mark.parametrize("text", ["NULL AND FLAG", "FLAG OR NULL", "NOT NULL", "NOT (NULL)", "FLAG OR (NOT NULL)"])
def test_a_null_literal_operand_of_and_or_not_is_a_code_generation_error(text: str) -> None:
    """Java's &&, || and ! over the literal null: Janino refuses it ('Not a boolean expression')."""
    assert error(text) == "Logical operand must be BOOLEAN: null is NULL"


def test_between_and_like_operands() -> None:
    assert typ("I BETWEEN 1 AND DBL") == T.BOOLEAN
    assert error("S BETWEEN 1 AND 2") == "Cannot compare S (STRING) to 1 (INTEGER) with GREATER_THAN_OR_EQUAL."
    assert error("I BETWEEN 1 AND 'x'") == "Cannot compare I (INTEGER) to 'x' (STRING) with LESS_THAN_OR_EQUAL."


@pytest.mark.parametrize(("operand", "low", "high", "message"), [
    ("FLAG", "TRUE", "FALSE", "Unexpected boolean comparison: >="),
    ("FLAG", "1", "2", "Unexpected boolean comparison: >="),     # the operand's kind decides first
    ("FLAG", "FLAG", "NULL", "Unexpected boolean comparison: >="),
    ("ARR", "ARR", "ARR", "Unexpected array comparison: >="),
    ("M", "M", "M", "Unexpected map comparison: >="),
    ("ST", "ST", "ST", "Unexpected struct comparison: >="),
    ("FLAG", "DEC", "DEC", "Cannot compare FLAG (BOOLEAN) to DEC (DECIMAL(4, 2)) with GREATER_THAN_OR_EQUAL."),
    ("FLAG", "TS", "TS", "Cannot compare FLAG (BOOLEAN) to TS (TIMESTAMP) with GREATER_THAN_OR_EQUAL."),
])
def test_between_over_types_without_an_order(operand: str, low: str, high: str, message: str) -> None:
    """ksqlDB generates BETWEEN as two comparisons without its typing check: BOOLEAN, ARRAY, MAP and STRUCT
    operands meet the generated comparison's own refusal (unless a DECIMAL or time type takes another path)."""
    assert error(f"{operand} BETWEEN {low} AND {high}") == message
    assert error(f"{operand} NOT BETWEEN {low} AND {high}") == message


@pytest.mark.parametrize(("operand", "low", "high"), [
    ("I", "BI", "DBL"), ("DEC", "I", "DBL"), ("S", "'a'", "'b'"), ("DT", "TS", "'2020-01-01'"),
    ("TS", "DT", "DT"), ("TM", "'00:00'", "TM"), ("BYT", "BYT", "BYT"), ("S", "DT", "TS"),
])
def test_between_over_ordered_types(operand: str, low: str, high: str) -> None:
    assert typ(f"{operand} BETWEEN {low} AND {high}") == T.BOOLEAN
    assert error("I LIKE 'a%'") == "The column type for Like condition must be VARCHAR. The column type is INTEGER"
    assert error("S LIKE 5") == "The pattern type for Like condition must be VARCHAR. The pattern type is INTEGER"


def test_functions_resolve_and_cast_their_arguments() -> None:
    e = bound("ROUND(I)")
    assert isinstance(e, B.Call) and e.fn == B.FunctionRef(B.FunctionKind.SCALAR, "ROUND", (T.INTEGER,))
    assert error("NOPE(I)") == "Can't find any functions with the name 'NOPE'"
    assert error("UCASE(I)").startswith("Function 'ucase' does not accept parameters (INTEGER).")
    lam = bound("TRANSFORM(ARR, x => x * 2)")
    assert isinstance(lam, B.Call) and isinstance(lam.args[1], B.Lambda)
    assert lam.args[1].type == T.LambdaType((T.INTEGER,), T.INTEGER)
    assert error("TRANSFORM(ARR, x => TRANSFORM(ARR, x => x))") == (
        "Exception while preparing statement: Reusing lambda arguments in nested lambda is not allowed")
    assert error("TRANSFORM(ARR, i => i + 1)") == (
        "Exception while preparing statement: Lambda function argument can't be a column name: I")


def test_literal_types() -> None:
    assert typ("1") == T.INTEGER
    assert typ("2147483648") == T.BIGINT
    assert typ("1.50") == T.Decimal(3, 2)
    assert typ("0.5") == T.Decimal(2, 1)     # a value under 1 counts its leading zero
    assert typ("0.005") == T.Decimal(4, 3)
    assert typ("1.5E3") == T.DOUBLE
    assert typ("-1.5") == T.Decimal(2, 1)
    assert typ("NULL") == T.NULL


# --------------------------------------------------------------------------- lambdas


@pytest.mark.parametrize("text, shown", [
    ("TRANSFORM(ARR, (x, y) => x + 1)", "'transform' does not accept parameters (ARRAY<INTEGER>, LAMBDA<NULL, NULL>)"),
    ("TRANSFORM(M, k => k)", "'transform' does not accept parameters (MAP<STRING, INTEGER>, LAMBDA<NULL>)"),
    ("REDUCE(ARR, 0, x => x)", "'reduce' does not accept parameters (ARRAY<INTEGER>, INTEGER, LAMBDA<NULL>)"),
    ("FILTER(M, (k, v, w) => true)", "'filter' does not accept parameters (MAP<STRING, INTEGER>, LAMBDA<NULL, NULL, NULL>)"),
])  # fmt: skip
def test_a_lambda_of_another_arity_fits_no_signature(text: str, shown: str) -> None:
    assert error(text).startswith(f"Function {shown}.\nValid alternatives are:")


def test_lambda_arities_that_fit_bind() -> None:
    assert typ("TRANSFORM(M, (k, v) => v, (k, v) => k)") == T.Map(T.INTEGER, T.STRING)
    assert typ("REDUCE(ARR, 0, (acc, x) => acc + x)") == T.INTEGER
