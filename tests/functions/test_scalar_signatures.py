"""Overload declaration and resolution (ksqlpy.functions.signatures)."""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions import builtin_registry
from ksqlpy.functions.patterns import Exact
from ksqlpy.functions.registry import TableFunction
from ksqlpy.functions.signatures import (
    Overload,
    Params,
    no_match,
    parse_params,
    parse_pattern,
    select_overload,
    type_of,
    udf,
    udtf,
)
from ksqlpy.types import (
    BIGINT,
    BOOLEAN,
    DATE,
    DOUBLE,
    INTEGER,
    NULL,
    STRING,
    Array,
    Decimal,
    LambdaType,
    Map,
    Struct,
)


def _numeric_fn():
    return udf(
        "TWICE",
        overloads=[
            ("INT", "INT", lambda x: 2 * x),
            ("BIGINT", "BIGINT", lambda x: 2 * x),
            Overload("DECIMAL", lambda ts: ts[0], lambda x: 2 * x, returns_doc="DECIMAL"),
            ("DOUBLE", "DOUBLE", lambda x: 2.0 * x),
        ],
        null_on_null=True,
    )


def test_pattern_language_round_trips():
    assert type_of("ARRAY<MAP<STRING, INT>>") == Array(Map(STRING, INTEGER))
    assert type_of("DECIMAL(4,2)") == Decimal(4, 2)
    assert str(parse_pattern("LAMBDA(K, V)->V1")) == "LAMBDA(K, V)->V1"
    params, variadic = parse_params("INT, T...")
    assert variadic and len(params) == 2
    assert parse_params("") == ((), False)
    with pytest.raises(ValueError):
        parse_pattern("ARRAY<INT")
    with pytest.raises(ValueError):
        parse_params("INT..., STRING")
    with pytest.raises(ValueError):
        parse_pattern("NOT_A_TYPE")


def test_exact_match_wins_and_returns_the_declared_type():
    r = _numeric_fn().resolve([INTEGER])
    assert r.return_type == INTEGER and r.param_types is None and r.null_on_null
    assert r.impl(4) == 8


def test_decimal_parameter_accepts_any_precision_and_computes_the_return():
    r = _numeric_fn().resolve([Decimal(7, 3)])
    assert r.return_type == Decimal(7, 3)
    assert r.param_types is None


def test_implicit_cast_when_no_exact_overload():
    f = udf("HALF", overloads=[("DOUBLE", "DOUBLE", lambda x: x / 2)])
    r = f.resolve([INTEGER])
    assert r.param_types == [DOUBLE]
    r = f.resolve([Decimal(5, 2)])
    assert r.param_types == [DOUBLE]


def test_integer_widens_to_decimal_of_its_width():
    f = udf("D", overloads=[Overload("DECIMAL", lambda ts: ts[0], abs)])
    assert f.resolve([INTEGER]).param_types == [Decimal(10, 0)]
    assert f.resolve([BIGINT]).param_types == [Decimal(19, 0)]


def test_several_fitting_casts_are_ambiguous_like_ksqldb():
    f = udf("PICK", overloads=[("BIGINT, BIGINT...", "BIGINT", max), ("DOUBLE, DOUBLE...", "DOUBLE", max)])
    with pytest.raises(
        KsqlTypeError,
        match=r"Function 'pick' cannot be resolved due to ambiguous method parameters \(INTEGER, BIGINT\)\.",
    ):
        f.resolve([INTEGER, BIGINT])


def test_null_literal_fits_every_overload_exactly():
    f = _numeric_fn()
    with pytest.raises(KsqlTypeError, match=r"ambiguous method parameters \(null\)"):
        f.resolve([NULL])
    r = udf("ONE", overloads=[("STRING", "STRING", str)]).resolve([NULL])
    assert r.return_type == STRING


def test_no_match_message_lists_alternatives():
    with pytest.raises(KsqlTypeError) as e:
        _numeric_fn().resolve([STRING])
    msg = str(e.value)
    # ksqlDB's UdfIndex: every overload in its parameter-type names, then the DESCRIBE FUNCTION hint
    assert msg == ("Function 'twice' does not accept parameters (STRING).\nValid alternatives are:\n"
                   "twice(INT)\ntwice(BIGINT)\ntwice(DECIMAL)\ntwice(DOUBLE)\n"
                   "For detailed information on a function run: DESCRIBE FUNCTION <Function-Name>;")


def test_alternatives_name_parameters_and_mark_the_variadic_one():
    ov = Overload(Params((parse_pattern("INT"), parse_pattern("ARRAY<STRING>"), parse_pattern("BIGINT")), True,
                         ("n", "words", "rest")), "STRING", impl=str)
    plain = Overload("STRUCT", "STRING", impl=str)
    plain.patterns = (Exact(Struct((("A", INTEGER), ("B", STRING)))),)
    text = str(no_match("F", [ov, plain], [STRING]))
    assert "F(INT n, ARRAY<STRING> words, BIGINT... rest)\nF(STRUCT<A INT, B STRING>)\n" in text


def test_non_variadic_beats_variadic():
    f = udf(
        "V",
        overloads=[
            ("STRING...", "STRING", lambda *a: "var"),
            ("STRING, STRING", "STRING", lambda a, b: "two"),
        ],
    )
    assert f.resolve([STRING, STRING]).impl("a", "b") == "two"
    assert f.resolve([STRING]).impl("a") == "var"
    assert f.resolve([]).impl() == "var"


def test_generics_bind_without_widening():
    f = udf("FIRST", overloads=[("T, T...", "T", lambda *a: a[0])])
    assert f.resolve([STRING, STRING]).return_type == STRING
    r = f.resolve([BIGINT, NULL, BIGINT])
    assert r.return_type == BIGINT and r.param_types == [BIGINT, BIGINT, BIGINT]
    with pytest.raises(KsqlTypeError, match=r"does not accept parameters \(INTEGER, BIGINT, null\)"):
        f.resolve([INTEGER, BIGINT, NULL])  # a variable is bound by equality, even in the implicit-cast pass
    with pytest.raises(KsqlTypeError, match="does not accept parameters"):
        f.resolve([STRING, INTEGER])


def test_generics_inside_containers():
    f = udf("HEAD", overloads=[("ARRAY<T>", "T", lambda a: a[0])])
    assert f.resolve([Array(Map(STRING, DOUBLE))]).return_type == Map(STRING, DOUBLE)
    assert f.resolve([NULL]).return_type == NULL
    g = udf("PUT", overloads=[("MAP<K, V>, K, V", "MAP<K, V>", lambda m, k, v: {**m, k: v})])
    assert g.resolve([Map(STRING, BIGINT), STRING, BIGINT]).return_type == Map(STRING, BIGINT)
    with pytest.raises(KsqlTypeError, match="does not accept parameters"):
        g.resolve([Map(STRING, INTEGER), STRING, BIGINT])
    # a concrete parameter next to a generic one still widens in the second pass
    h = udf("AT", overloads=[("ARRAY<T>, BIGINT", "T", lambda a, i: a[i])])
    assert h.resolve([Array(STRING), INTEGER]).param_types == [Array(STRING), BIGINT]


def test_string_argument_casts_to_temporal_parameter():
    f = udf("DAYS", overloads=[("DATE", "INT", int)])
    assert f.resolve([STRING]).param_types == [DATE]


def test_a_struct_parameter_takes_the_same_fields_without_casts():
    # ksqlDB's isStructCompatible: same field names, field types fitting exactly even in the cast pass;
    # an empty struct on either side fits any struct
    f = udf("GET_A", overloads=[Overload(Params((Exact(Struct((("A", BIGINT), ("B", STRING)))),)), "BIGINT",
                                         lambda s: s["A"])])
    assert f.resolve([Struct((("A", BIGINT), ("B", STRING)))]).return_type == BIGINT
    assert f.resolve([Struct((("B", STRING), ("A", BIGINT)))]).return_type == BIGINT
    assert f.resolve([Struct(())]).return_type == BIGINT
    for t in (Struct((("A", INTEGER), ("B", STRING))),  # no widening inside a struct
              Struct((("A", BIGINT),)),  # a field missing
              Struct((("A", BIGINT), ("B", STRING), ("C", STRING))),  # a field too many
              Struct((("A", BIGINT), ("X", STRING)))):
        with pytest.raises(KsqlTypeError, match="'get_a' does not accept parameters"):
            f.resolve([t])
    g = udf("ANY_A", overloads=[Overload(Params((Exact(Struct(())),)), "BOOLEAN", lambda s: True)])
    assert g.resolve([Struct((("Z", DOUBLE),))]).return_type == BOOLEAN


def test_any_and_struct_patterns():
    f = udf(
        "TYPE_NAME",
        overloads=[("ANY", "STRING", lambda v: "x"), ("STRUCT, INT", "BOOLEAN", lambda s, i: True)],
    )
    s = Struct((("A", INTEGER),))
    assert f.resolve([Array(BOOLEAN)]).return_type == STRING
    assert f.resolve([s, INTEGER]).return_type == BOOLEAN


def test_make_impl_sees_concrete_types():
    seen = []

    def make(params, ret):
        seen.append((params, ret))
        return lambda v: v

    f = udf("ID", overloads=[Overload("T", "T", make_impl=make)])
    f.resolve([Array(STRING)])
    assert seen == [([Array(STRING)], Array(STRING))]


def test_lambda_parameters_come_from_earlier_arguments():
    f = udf(
        "APPLY",
        overloads=[
            ("ARRAY<T>, LAMBDA(T)->U", "ARRAY<U>", lambda a, fn: [fn(x) for x in a]),
            ("MAP<K, V>, LAMBDA(K, V)->U", "ARRAY<U>", lambda m, fn: [fn(k, v) for k, v in m.items()]),
            ("ARRAY<T>, S, LAMBDA(S, T)->S", "S", lambda a, s, fn: s),
        ],
    )
    assert f.lambda_params(1, [Array(DOUBLE)]) == (DOUBLE,)
    assert f.lambda_params(1, [Map(STRING, BOOLEAN)]) == (STRING, BOOLEAN)
    assert f.lambda_params(2, [Array(INTEGER), BIGINT]) == (BIGINT, INTEGER)
    r = f.resolve([Array(DOUBLE), LambdaType((DOUBLE,), STRING)])
    assert r.return_type == Array(STRING)
    assert r.impl([1.0, 2.0], lambda x: str(x)) == ["1.0", "2.0"]
    with pytest.raises(KsqlTypeError, match="does not accept parameters"):
        f.resolve([Array(INTEGER), INTEGER, LambdaType((INTEGER, INTEGER), BIGINT)])
    assert f.resolve([Array(INTEGER), BIGINT, LambdaType((BIGINT, INTEGER), BIGINT)]).return_type == BIGINT
    with pytest.raises(KsqlTypeError, match="lambda"):
        f.lambda_params(1, [STRING])


def test_per_overload_flags_and_signatures_text():
    f = udf(
        "F",
        overloads=[
            Overload("", "DOUBLE", lambda: 1.0, deterministic=False),
            Overload("INT", "INT", abs, null_on_null=False),
        ],
        null_on_null=True,
    )
    assert f.resolve([]).deterministic is False
    assert f.resolve([INTEGER]).null_on_null is False
    assert f.signatures() == ["F() -> DOUBLE", "F(INTEGER) -> INTEGER"]


def test_display_name_and_select_overload():
    f = udf("COALESCE_LIKE", overloads=[("T, T...", "T", lambda *a: a[0])], display_name="COALESCE_LIKE")
    with pytest.raises(KsqlTypeError, match=r"Function 'COALESCE_LIKE' does not accept parameters \(\)"):
        f.resolve([])
    m = select_overload("x", f.overloads, [INTEGER])
    assert m.binding == {"T": INTEGER} and m.return_type == INTEGER


def test_udtf_registers_as_table_function():
    t = udtf("SPREAD", overloads=[("ARRAY<T>", "T", lambda a: list(a or []))])
    assert isinstance(t, TableFunction)
    assert t.resolve([Array(STRING)]).return_type == STRING


def test_builtin_registry_has_every_family():
    reg = builtin_registry()
    for name in (
        "ABS",
        "CONCAT",
        "REGEXP_REPLACE",
        "EXTRACTJSONFIELD",
        "ARRAY_SORT",
        "MAP_KEYS",
        "TRANSFORM",
        "COALESCE",
        "INT_FROM_BYTES",
        "URL_EXTRACT_HOST",
        "GEO_DISTANCE",
        "AS_VALUE",
    ):
        assert reg.kind_of(name) == "scalar", name
    assert reg.kind_of("EXPLODE") == "table" and reg.kind_of("CUBE_EXPLODE") == "table"
    for fn in reg.scalars.values():
        assert fn.category and fn.description, fn.name


def test_of_two_variadic_overloads_more_declared_parameters_win():
    """ksqlDB's UdfIndex.Node order: variadic-ness, then the number of declared parameters (more wins)."""
    f = udf("V2", overloads=[
        ("STRING...", "STRING", lambda *a: "all"),
        ("STRING, STRING...", "STRING", lambda *a: "first+rest"),
    ])
    assert f.resolve([STRING]).impl("a") == "first+rest"
    assert f.resolve([STRING, STRING, STRING]).impl("a", "b", "c") == "first+rest"
    assert f.resolve([]).impl() == "all"  # only the first fits no argument
    g = udf("V3", overloads=[
        ("T, T...", "T", lambda *a: "generic"),
        ("STRING, INT, STRING...", "STRING", lambda *a: "typed"),
    ])
    assert g.resolve([STRING, NULL]).impl("a", None) == "typed"
    assert g.resolve([STRING, NULL, NULL]).impl("a", None, None) == "typed"


@pytest.mark.parametrize("args", [
    [INTEGER, BIGINT],  # BIGINT, DECIMAL and DOUBLE overloads fit after casts
    [INTEGER, Decimal(2, 1)],  # DECIMAL and DOUBLE
    [BIGINT, Decimal(2, 1), NULL],
    [NULL, NULL],  # every overload fits without a cast
])
def test_equal_candidates_are_ambiguous_whatever_the_casts(args: list) -> None:
    """Neither fewer implicit casts nor the declaration order breaks a tie between equally ranked overloads."""
    f = udf("G", overloads=[
        ("INT, INT...", "INT", max), ("BIGINT, BIGINT...", "BIGINT", max), ("DOUBLE, DOUBLE...", "DOUBLE", max),
        ("STRING, STRING...", "STRING", max), ("DECIMAL, DECIMAL...", lambda ts: ts[0], max),
    ], display_name="g")
    with pytest.raises(KsqlTypeError) as e:
        f.resolve(args)
    types = ", ".join("null" if t == NULL else str(t) for t in args)
    assert str(e.value) == (
        f"Function 'g' cannot be resolved due to ambiguous method parameters ({types}).\n"
        "Use CAST() to explicitly cast your parameters to one of the supported function calls.\n"
        "Valid function calls are:\ng(INT, INT...)\ng(BIGINT, BIGINT...)\ng(DOUBLE, DOUBLE...)\n"
        "g(STRING, STRING...)\ng(DECIMAL, DECIMAL...)\n"
        "For detailed information on a function run: DESCRIBE FUNCTION <Function-Name>;")
