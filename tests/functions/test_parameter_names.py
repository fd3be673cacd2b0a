"""Every built-in scalar and table overload carries ksqlDB's parameter names (its loader refuses an unnamed
parameter), so "Valid alternatives" and DESCRIBE FUNCTION read ``NAME(TYPE name, ...)`` for all of them."""

from __future__ import annotations

import re

import pytest

from ksqlpy.engine.describe import describe_function
from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions import builtin_registry
from ksqlpy.functions.parameter_names import DESCRIPTIONS, SIGNATURES, VARIATIONS, name_parameters
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import SignatureFunction
from ksqlpy.types import BOOLEAN, INTEGER, STRING

REGISTRY = builtin_registry()
OVERLOADS = [(fn.name, ov) for fn in [*REGISTRY.scalars.values(), *REGISTRY.tables.values()]
             if isinstance(fn, SignatureFunction) for ov in fn.overloads]


def test_every_builtin_overload_names_each_parameter() -> None:
    unnamed = [ov.alternative(name) for name, ov in OVERLOADS
               if len(ov.param_names) != len(ov.patterns) or not all(n.isidentifier() for n in ov.param_names)]
    assert unnamed == []
    assert len(OVERLOADS) > 240


def test_parameter_names_are_distinct_within_an_overload() -> None:
    assert [ov.alternative(n) for n, ov in OVERLOADS if len(set(ov.param_names)) != len(ov.param_names)] == []


def test_every_table_line_names_an_overload() -> None:
    """A line with a type the registry does not declare (a typo, a removed overload) names nothing."""
    fresh = FunctionRegistry()
    for fn in [*REGISTRY.scalars.values(), *REGISTRY.tables.values()]:
        fresh.register(fn)
    assert name_parameters(fresh) == []
    assert len(SIGNATURES.strip().splitlines()) == len(OVERLOADS)


def test_descriptions_name_existing_parameters() -> None:
    names = {name: set() for name, _ in OVERLOADS}
    for name, ov in OVERLOADS:
        names[name].update(ov.param_names)
    stray = {(fn, p) for fn, docs in DESCRIPTIONS.items() for p in docs if p not in names.get(fn, set())}
    assert stray == set()


def test_alternatives_name_the_parameters() -> None:
    with pytest.raises(KsqlTypeError) as e:
        REGISTRY.scalars["SUBSTRING"].resolve([BOOLEAN, INTEGER])
    assert e.value.message.splitlines()[1:6] == [
        "Valid alternatives are:", "substring(STRING str, INT pos)", "substring(STRING str, INT pos, INT length)",
        "substring(BYTES bytes, INT pos)", "substring(BYTES bytes, INT pos, INT length)"]


def test_variadic_parameter_is_named_after_its_dots() -> None:
    with pytest.raises(KsqlTypeError) as e:
        REGISTRY.scalars["ELT"].resolve([STRING, STRING])
    assert "elt(INT n, STRING... args)" in e.value.message.splitlines()


def test_describe_function_lists_names_and_descriptions() -> None:
    d = describe_function(REGISTRY, "substring")
    assert d["functions"][1]["arguments"] == [
        {"name": "str", "type": "STRING", "description": "The source string.", "isVariadic": False},
        {"name": "pos", "type": "INT", "description": "The base-one position to start from.", "isVariadic": False},
        {"name": "length", "type": "INT", "description": "The length to extract.", "isVariadic": False}]
    table = describe_function(REGISTRY, "EXPLODE")
    assert table["type"] == "TABLE" and table["functions"][0]["arguments"][0]["name"] == "list"


def test_describe_function_names_lambda_and_variadic_arguments() -> None:
    transform = describe_function(REGISTRY, "TRANSFORM")["functions"][1]["arguments"]
    assert [a["name"] for a in transform] == ["map", "biFunction1", "biFunction2"]
    concat = describe_function(REGISTRY, "CONCAT")["functions"][0]["arguments"]
    assert concat == [{"name": "inputs", "type": "STRING", "description": "The varchar fields to concatenate",
                       "isVariadic": True}]


def test_describe_function_sends_a_variadic_parameter_as_its_element_type() -> None:
    """Every variadic overload of every kind (scalar, aggregate, table): ``type`` is the repeated element's,
    never ``T[]``/``ARRAY<T>``/``T...``; ``isVariadic`` alone says it repeats, and only for one argument."""
    seen = 0
    for kind in ("scalars", "aggregates", "tables"):
        for name in getattr(REGISTRY, kind):
            for variation in describe_function(REGISTRY, name)["functions"]:
                repeating = [a for a in variation["arguments"] if a["isVariadic"]]
                assert len(repeating) <= 1, (name, variation)
                for a in repeating:
                    seen += 1
                    assert not a["type"].endswith(("[]", "...")) and not a["type"].startswith("ARRAY<"), (name, a)
    assert seen >= 25
    greatest = describe_function(REGISTRY, "GREATEST")["functions"]
    assert [(a["type"], a["isVariadic"]) for a in greatest[0]["arguments"]] == [("INT", False), ("INT", True)]
    coalesce = describe_function(REGISTRY, "COALESCE")["functions"][0]["arguments"]
    assert [(a["name"], a["type"], a["isVariadic"]) for a in coalesce] == [("first", "T", False),
                                                                           ("others", "T", True)]


def test_variations_carry_their_own_description() -> None:
    substring = describe_function(REGISTRY, "SUBSTRING")["functions"]
    assert substring[1]["description"] == "Returns a substring of str that starts at pos and is of length length"
    assert all(text in {ov.alternative(n) for n, ov in OVERLOADS} for text in VARIATIONS)


def test_describe_function_return_type_is_the_declared_type() -> None:
    """DESCRIBE FUNCTION's ``returnType`` is the overload's declared type as a type text (ksqlDB's
    ``declaredReturnType().toString()``): a return type computed per call by a schema provider shows its
    declared DECIMAL, not the computed DECIMAL(p-s, 0) - for every built-in overload of every kind."""
    allowed = re.compile(r"[A-Z][A-Z0-9_]*(<.*>)?|[A-Z][A-Z0-9]?|ARRAY<STRUCT<sort_col T, col0 \.\.\.>>")
    for kind in ("scalars", "aggregates", "tables"):
        for name in getattr(REGISTRY, kind):
            for variation in describe_function(REGISTRY, name)["functions"]:
                assert allowed.fullmatch(variation["returnType"]), (name, variation["returnType"])
    for name in ("ROUND", "TRUNC"):
        described = describe_function(REGISTRY, name)["functions"]
        decimal = [v["returnType"] for v in described if [a["type"] for a in v["arguments"]][:1] == ["DECIMAL"]]
        assert decimal == ["DECIMAL", "DECIMAL"], name
