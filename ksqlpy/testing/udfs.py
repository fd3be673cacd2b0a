"""The example functions ksqlDB's conformance cases load from its test jar (BAD_UDF, TEST_UDF, TOSTRUCT and
the example UDAFs). They are not built-ins: ``ksqlpy test`` registers them, as ksqlDB's test runner puts its
test jar on the classpath."""

from __future__ import annotations

from typing import Any

from ksqlpy.functions import aggregates_testing
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import udf
from ksqlpy.types import STRING, Struct

STRUCT_A = Struct((("A", STRING),))


def _bad_string(s: str | None) -> str | None:
    return None if s == "d1" else s


def _bad_int(i: int | None) -> int:
    raise RuntimeError("boom")


def _might_throw(should_throw: bool | None) -> int:
    if should_throw:
        raise RuntimeError("You asked me to throw...")
    return 0


def _first_field(s: dict | None) -> Any:
    return None if s is None else s.get("A")


TEST_FUNCTIONS = [
    udf("BAD_UDF", description="Returns NULL for 'd1'; throws for numbers; 0 for false, throws for true.",
        overloads=[
            ("STRING", "STRING", _bad_string),
            ("INT", "INT", _bad_int),
            ("BIGINT", "BIGINT", _bad_int),
            ("BOOLEAN", "INT", _might_throw),
        ]),
    udf("TEST_UDF", description="Overload resolution probes.", overloads=[
        ("BIGINT, STRING", "STRING", lambda a, b: "doStuffLongString"),
        ("BIGINT, BIGINT, STRING", "STRING", lambda a, b, c: "doStuffLongLongString"),
        ("BIGINT...", "STRING", lambda *a: "doStuffLongVarargs"),
        ("STRUCT", "STRING", _first_field),
        ("", lambda _: STRUCT_A, lambda: {"A": "foo"}),
    ]),
    udf("TOSTRUCT", description="Wraps a string in STRUCT<A STRING>.", overloads=[
        ("STRING", lambda _: STRUCT_A, lambda s: {"A": s}),
    ]),
]


def register_test_functions(registry: FunctionRegistry) -> None:
    """Add the test-jar functions to one engine's registry."""
    for fn in TEST_FUNCTIONS:
        registry.register(fn)
    aggregates_testing.register(registry)
