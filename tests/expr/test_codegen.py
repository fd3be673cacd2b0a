"""Code generation from bound expressions: SQL semantics of the generated Python (NULLs, Java arithmetic,
casts, list coercion, lambdas)."""

from __future__ import annotations

import warnings
from decimal import Decimal
from typing import Any

import pytest

from ksqlpy import types as T
from ksqlpy.errors import KsqlExpressionError, KsqlStatementError, KsqlTypeError
from ksqlpy.expr.binder import bind
from ksqlpy.expr.codegen import Codegen
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext
from ksqlpy.functions import builtin_registry
from ksqlpy.grammar import parse_expression

REGISTRY = builtin_registry()

COLUMNS: dict[str, tuple[T.SqlType, Any]] = {
    "I": (T.INTEGER, 7),
    "J": (T.INTEGER, -7),
    "Z": (T.INTEGER, 0),
    "N": (T.INTEGER, None),
    "B": (T.BIGINT, 2**40),
    "D": (T.DOUBLE, 2.5),
    "DEC": (T.Decimal(4, 2), Decimal("10.25")),
    "S": (T.STRING, "hello"),
    "FLAG": (T.BOOLEAN, True),
    "NB": (T.BOOLEAN, None),
    "BYT": (T.BYTES, b"\x80"),
    "ARR": (T.Array(T.INTEGER), [10, 20, 30]),
    "M": (T.Map(T.STRING, T.INTEGER), {"a": 1}),
    "ST": (T.Struct((("F", T.STRING), ("G", T.INTEGER))), {"F": "x", "G": None}),
    "TS": (T.TIMESTAMP, 86_400_000),
}


def compile_expr(text: str) -> tuple[str, T.SqlType, Any]:
    registry = REGISTRY
    scope = Scope.of([(name, t) for name, (t, _) in COLUMNS.items()])
    bound = bind(parse_expression(text), scope, BindContext(registry))
    consts: dict[str, Any] = {}
    code = Codegen([f"v_{n}" for n in COLUMNS], consts, registry).text(bound)
    args = ", ".join(f"v_{n}" for n in COLUMNS)
    fn = eval(f"lambda {args}: {code}", consts)  # noqa: S307 - generator output under test
    return code, bound.type, fn(*(v for _, v in COLUMNS.values()))


def value(text: str) -> Any:
    return compile_expr(text)[2]


def typ(text: str) -> T.SqlType:
    return compile_expr(text)[1]


@pytest.mark.parametrize("text, expected", [
    ("I + 1", 8),
    ("J / 2", -3),            # Java truncates toward zero
    ("J % 2", -1),            # the remainder takes the dividend's sign
    ("D * 2", 5.0),
    ("DEC + 1", Decimal("11.25")),
    ("DEC / 4", Decimal("2.562500")),
    ("2147483647 + 1", -2147483648),  # INT overflow wraps like Java
    ("-2147483648 - I", 2147483641),
    ("CAST(9223372036854775807 AS BIGINT) * 2", -2),  # BIGINT too
    ("CAST(9223372036854775807 AS BIGINT) + I - I", 9223372036854775807),
    ("S || ' world'", "hello world"),
    ("-I", -7),
])
def test_arithmetic(text: str, expected: Any) -> None:
    assert value(text) == expected


def test_decimal_result_types_follow_ksqldb() -> None:
    assert typ("DEC + DEC") == T.Decimal(5, 2)
    assert typ("DEC * I") == T.Decimal(15, 2)
    assert typ("DEC / DEC") == T.Decimal(11, 7)
    assert typ("1.5") == T.Decimal(2, 1)
    assert typ("1.5E0") == T.DOUBLE


def test_division_by_zero_raises_for_the_slow_path_to_null() -> None:
    with pytest.raises(ArithmeticError):
        value("I / Z")
    assert value("D / 0.0E0") == float("inf")


@pytest.mark.parametrize("text, expected", [
    ("N = 1", False),          # ksqlDB comparisons are FALSE, not NULL, with a NULL operand
    ("NOT (N = 1)", True),
    ("N IS NULL", True),
    ("FLAG AND N > 0", False),
    ("FLAG OR N > 0", True),
    ("I BETWEEN 1 AND 10", True),
    ("I IN (1, 7)", True),
    ("I IN ('7', '8')", True),             # string literals in a list coerce to the list's type
    ("FLAG IN ('yes')", True),
    ("S LIKE 'he%o'", True),
    ("S LIKE 'h_llo'", True),
    ("S LIKE 'H%'", False),
    ("I IS DISTINCT FROM N", True),
    ("TS > '1970-01-01T12:00:00'", True),  # ISO strings compare with TIMESTAMPs
])
def test_predicates(text: str, expected: Any) -> None:
    assert value(text) is expected


def test_comparing_null_with_null_is_an_error() -> None:
    with pytest.raises(KsqlTypeError, match="Comparison with NULL not supported"):
        compile_expr("NULL = NULL")


def test_non_literal_of_another_type_in_in_list_is_rejected() -> None:
    with pytest.raises(KsqlTypeError, match="operator does not exist: INTEGER = STRING"):
        compile_expr("I IN (1, S)")


@pytest.mark.parametrize("text, expected", [
    ("CAST(I AS STRING)", "7"),
    ("CAST(D AS STRING)", "2.5"),
    ("CAST(1.0E7 AS STRING)", "1.0E7"),
    ("CAST(FLAG AS STRING)", "true"),
    ("CAST('12' AS INT)", 12),
    ("CAST(D AS INT)", 2),
    ("CAST(I AS DECIMAL(5, 2))", Decimal("7.00")),
    ("CAST(TS AS STRING)", "1970-01-02T00:00:00.000"),
    ("CAST(ARR AS ARRAY<STRING>)", ["10", "20", "30"]),
])
def test_casts(text: str, expected: Any) -> None:
    assert value(text) == expected


def test_unsupported_cast_names_both_types() -> None:
    with pytest.raises(KsqlTypeError, match="Cast of BOOLEAN to ARRAY<INTEGER> is not supported"):
        compile_expr("CAST(FLAG AS ARRAY<INT>)")


@pytest.mark.parametrize("text, expected", [
    ("ARR[1]", 10),
    ("ARR[-1]", 30),
    ("ARR[9]", None),
    ("M['a']", 1),
    ("M['z']", None),
    ("ST->F", "x"),
    ("ST->G", None),
    ("CASE WHEN I > 5 THEN 'big' WHEN I > 0 THEN 'small' END", "big"),
    ("CASE WHEN N > 5 THEN 'big' ELSE 'other' END", "other"),
    ("ARRAY[1, '2', I]", [1, 2, 7]),
    ("MAP('k' := I, 'l' := '3')", {"k": 7, "l": 3}),
    ("STRUCT(A := I, B := S)", {"A": 7, "B": "hello"}),
    ("TRANSFORM(ARR, x => x + 1)", [11, 21, 31]),
    ("FILTER(ARR, x => x > 15)", [20, 30]),
    ("REDUCE(ARR, 0, (acc, x) => acc + x)", 60),
    ("COALESCE(N, I)", 7),
    ("UCASE(S)", "HELLO"),
])
def test_structures_functions_and_lambdas(text: str, expected: Any) -> None:
    assert value(text) == expected


def test_unknown_column_and_function_are_named() -> None:
    with pytest.raises(KsqlStatementError, match="'NOPE' cannot be resolved"):
        compile_expr("NOPE + 1")
    with pytest.raises(KsqlStatementError, match="WONT_FIND_ME"):
        compile_expr("WONT_FIND_ME(I)")


def test_operands_are_evaluated_once() -> None:
    code, _, _ = compile_expr("LEN(S) + LEN(S)")
    # each operand appears once in the generated code, bound through a walrus temporary (a third one
    # holds the sum for the inlined 32-bit range check)
    assert code.count("_f0_1(v_S)") == 2
    assert code.count(":=") == 3


def test_arithmetic_on_a_bare_null_is_rejected_like_ksqldb() -> None:
    with pytest.raises(KsqlExpressionError, match=r"Arithmetic on types INTEGER and null are not supported"):
        compile_expr("1 + NULL")
    with pytest.raises(KsqlExpressionError, match=r"Arithmetic on types null and null are not supported"):
        compile_expr("NULL * NULL")
    from ksqlpy.expr.runtime import NullOperandError

    with pytest.raises(NullOperandError):  # a typed NULL binds, and fails when evaluated as Java's unboxing
        value("CAST(NULL AS INT) + 1")


@pytest.mark.parametrize("text, expected", [
    ("DEC + 0.76 IN (1, 11.01e0)", True),    # a DOUBLE item meets the DECIMAL operand as a DOUBLE
    ("DEC IN (10.250, I)", True),            # exact DECIMAL comparison with other scales
    ("DEC IN (I, 10.26e0)", False),
    ("S IN (true, 10, 10.30)", False),       # literals read as their text for a STRING operand
    ("'10.30' IN (true, 10, 10.30)", True),
    ("'10.3' IN (10.30)", False),
    ("'true' IN (true)", True),
    ("ST IN (STRUCT(F := 'x'))", True),      # a missing field is NULL
    ("ST IN (STRUCT(G := CAST(NULL AS INT), F := 'x'))", True),  # fields by name, any order
    ("ST IN (STRUCT(F := 'x', G := '5'))", False),
    ("ST IN (STRUCT(F := 'x', H := 1))", False),  # a field the operand lacks never matches
])
def test_in_list_items_are_made_comparable_one_by_one(text: str, expected: Any) -> None:
    assert value(text) is expected


def test_numeric_arithmetic_on_null_fails_the_expression_everywhere() -> None:
    # ksqlDB's generated Java unboxes numeric operands: a NULL one fails the whole expression (NULL for the
    # record, with a processing-log entry), in a lambda body as outside it
    from ksqlpy.expr.runtime import NullOperandError

    assert value("TRANSFORM(ARR, x => x + 5)") == [15, 25, 35]
    for text in ("TRANSFORM(ARRAY[1, N], x => x + 5)", "TRANSFORM(ARRAY[1], x => x * N)", "N + 1", "1 - N",
                 "COALESCE(N * 2, 0)", "(N / 2) IS NULL", "-N", "DEC + N", "D % N", "CAST(N AS DOUBLE) + 1.5"):
        with pytest.raises(NullOperandError):
            value(text)


def test_string_plus_is_java_concatenation() -> None:
    # STRING + compiles to Java's String concatenation: a NULL side is the text null, never an error
    assert value("TRANSFORM(ARRAY['a', NULL], x => x + '!')") == ["a!", "null!"]
    assert value("S + CAST(NULL AS STRING)") == "hellonull"
    assert value("CAST(NULL AS STRING) + CAST(NULL AS STRING)") == "nullnull"
    assert value("S || CAST(NULL AS STRING)") == "hello"  # || is CONCAT, which skips NULL


@pytest.mark.parametrize("text, expected", [
    ("FALSE AND NB", False),   # Java's && short-circuits before it unboxes the NULL
    ("TRUE OR NB", True),
    ("NB IS NULL", True),
    ("CASE WHEN FLAG THEN 1 WHEN NB THEN 2 END", 1),  # never reached
])
def test_a_null_boolean_not_evaluated_is_harmless(text: str, expected: Any) -> None:
    assert value(text) == expected


@pytest.mark.parametrize("text", [
    "NB AND FLAG", "FLAG AND NB", "NB OR TRUE", "FALSE OR NB", "NOT NB", "CASE WHEN NB THEN 1 ELSE 0 END",
    "S LIKE CAST(NULL AS STRING)", "CAST(NULL AS STRING) LIKE 'a%'",
])
def test_a_null_boolean_that_is_unboxed_fails_the_expression(text: str) -> None:
    # ksqlDB has no three-valued logic: the generated Java unboxes the Boolean and fails; the expression is
    # then NULL for the record (logged), and a filter drops the record
    from ksqlpy.expr.runtime import NullBooleanError

    with pytest.raises(NullBooleanError):
        value(text)


def test_bytes_order_as_signed_values_like_java() -> None:
    assert value("BYT < TO_BYTES('AQ==', 'base64')") is True      # 0x80 is -128 in Java, below 0x01
    assert value("BYT BETWEEN TO_BYTES('gA==', 'base64') AND TO_BYTES('AQ==', 'base64')") is True
    assert value("BYT = TO_BYTES('gA==', 'base64')") is True


@pytest.mark.parametrize("text, expected", [
    ("1 IS NULL", False), ("'a' IS NOT NULL", True), ("NOT (1.5 IS NULL)", True), ("TRUE IS NULL", False),
    ("CAST(NULL AS INT) IS NULL", True), ("CAST(NULL AS STRING) IS NOT NULL", False),
])
def test_is_null_of_a_constant_is_known_without_python_warning_of_it(text: str, expected: bool) -> None:
    """`1 is None` compiles with a SyntaxWarning (found by the fuzzer: one per generated pipeline)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyntaxWarning)
        assert value(text) is expected


@pytest.mark.parametrize(("text", "expected"), [
    ("S LIKE 'hel!%o' ESCAPE '!'", False),   # the escaped % is a literal percent sign
    ("'50%' LIKE '50!%' ESCAPE '!'", True),
    ("'a_c' LIKE 'a!_c' ESCAPE '!'", True),
    ("'abc' LIKE 'a!_c' ESCAPE '!'", False),
    ("'a!c' LIKE 'a!!c' ESCAPE '!'", True),  # the escape character escapes itself
    ("S LIKE 'h!ello' ESCAPE '!'", True),    # an escaped ordinary character is that character
    ("'10%' LIKE '10%%' ESCAPE '%'", True),  # '%' as the escape: '%%' is one literal percent sign
])
def test_like_with_an_escape_character(text: str, expected: Any) -> None:
    assert value(text) is expected


@pytest.mark.parametrize(("text", "expected"), [
    ("S LIKE 'hello!' ESCAPE '!'", True),      # a trailing escape adds nothing: the pattern ends there
    ("'hello!' LIKE 'hello!' ESCAPE '!'", False),
    ("'hello!' LIKE 'hello!!' ESCAPE '!'", True),
    ("'hello!' LIKE 'hello!!!' ESCAPE '!'", True),
    ("S LIKE 'h%' ESCAPE '%'", False),          # '%' as the escape: a lone trailing '%' is dropped, 'h' stays
    ("'h' LIKE 'h%' ESCAPE '%'", True),
    ("S LIKE CONCAT(S, '!') ESCAPE '!'", True),  # a pattern from data alike
    ("'ab' LIKE 'a_!' ESCAPE '!'", True),
    ("'' LIKE '!' ESCAPE '!'", True),
])
def test_a_like_pattern_ending_in_its_escape_ends_there(text: str, expected: bool) -> None:
    # ksqlDB's LikeEvaluator sets its 'escaped' flag on the escape character and appends nothing for it, so a
    # trailing one is dropped without an error (from memory of LikeEvaluator.likeToRegex)
    assert value(text) is expected


@pytest.mark.parametrize(("text", "expected"), [
    ("CAST('AQI=' AS BYTES)", b"\x01\x02"),
    ("CAST(' AQI= ' AS BYTES)", b"\x01\x02"),  # the text is trimmed first
    ("CAST('AQI' AS BYTES)", b"\x01\x02"),     # Java's decoder: padding is optional
    ("CAST('abc' AS BYTES)", b"\x69\xb7"),
    ("CAST('' AS BYTES)", b""),
    ("TO_BYTES('AQI', 'base64')", b"\x01\x02"),
])
def test_base64_text_reads_as_javas_decoder(text: str, expected: bytes) -> None:
    assert value(text) == expected


@pytest.mark.parametrize("text", ["A", "AQ=", "AQI==", "AQ==AQ==", "AQ I=", "AQI=\\n", "=", "AQ\u00e9="])
def test_base64_text_javas_decoder_refuses(text: str) -> None:
    from ksqlpy import javatext

    with pytest.raises(ValueError):
        javatext.base64_decode(text.replace("\\n", "\n"))


@pytest.mark.parametrize(("text", "expected"), [
    ("CAST(' 1970-01-02 ' AS DATE)", 1),
    ("CAST('\t00:00:01 ' AS TIME)", 1000),
    ("CAST(' 1970-01-01T00:00:00.005 ' AS TIMESTAMP)", 5),
    ("CAST(ARRAY[' 1970-01-03'] AS ARRAY<DATE>)", [2]),          # element-wise casts trim too
    ("CAST(STRUCT(T := '00:00:02 ') AS STRUCT<T TIME>)", {"T": 2000}),
])
def test_cast_reads_time_types_from_trimmed_text(text: str, expected: Any) -> None:
    # ksqlDB's CAST trims the text before it parses any type from it, DATE/TIME/TIMESTAMP included
    assert value(text) == expected


def test_a_comparison_parses_the_text_untrimmed() -> None:
    # the comparison's parse (SqlTimeTypes.parseTimestamp of the text) does not trim: the record fails
    from ksqlpy.functions.isotime import DateTimeError

    assert value("TS = '1970-01-02T00:00:00'") is True
    with pytest.raises(DateTimeError):
        value("TS = ' 1970-01-02T00:00:00'")


@pytest.mark.parametrize(("text", "expected"), [
    ("STRUCT(`a{0}` := I)->`a{0}`", 7),     # was the operand slot {0}: the wrong field, NULL
    ("STRUCT(`a{b}` := S)->`a{b}`", "hello"),  # was a KeyError: the statement failed unexpectedly
    ("STRUCT(`}` := I, `{` := J)->`{`", -7),
    ("S LIKE CONCAT(S, '{') ESCAPE '{'", True),  # an escape character from the text is put in the same way
    ("CONCAT(S, '}') LIKE CONCAT(S, '}}') ESCAPE '}'", True),
])
def test_names_and_characters_with_braces_in_generated_code(text: str, expected: Any) -> None:
    assert value(text) == expected
