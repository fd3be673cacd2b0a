"""Every built-in scalar function called with a NULL in each position of each overload.

ksqlDB's rule (ksqldb-rules.md section 3, "Functions"): a built-in returns NULL for a NULL argument unless its
documentation says otherwise, and a NULL passed to a parameter the UDF declares as a Java primitive (``int``,
``double``) cannot be unboxed, so the invocation fails (the call is NULL and the failure logged). The table
below lists every documented exception; every other (function, overload, position) must answer NULL. A new
function or overload is checked by the same loop.
"""

from __future__ import annotations

import decimal
from typing import Any

import pytest

from ksqlpy import types as T
from ksqlpy.functions import builtin_registry
from ksqlpy.functions import patterns as P
from ksqlpy.functions.signatures import FunctionError

REGISTRY = builtin_registry()
FAILS = "fails"
OTHER = "the other argument"  # the non-NULL argument's value (COALESCE, GREATEST...)
INPUT = "the input"  # the first argument's value, unchanged
SAMPLES: dict[T.SqlType, Any] = {T.INTEGER: 1, T.BIGINT: 2, T.DOUBLE: 1.5, T.STRING: "a", T.BOOLEAN: True,
                                 T.DATE: 1, T.TIME: 1, T.TIMESTAMP: 1, T.BYTES: b"a"}

# (function, position of the NULL) -> what ksqlDB answers instead of NULL; None as position: any position
EXCEPTIONS: dict[tuple[str, int | None], Any] = {
    # collections: a NULL collection is empty for the combining functions, no match for a lookup
    ("ARRAY_CONCAT", None): OTHER, ("MAP_UNION", None): OTHER,
    ("ARRAY_CONTAINS", None): False,
    ("ARRAY_JOIN", 1): "1",  # NULL delimiter: the default ','
    ("ARRAY_REMOVE", 1): [1],  # removing NULL elements only
    ("SLICE", 1): [1], ("SLICE", 2): [1],  # a NULL bound is the array's end
    ("ENTRIES", 1): FAILS,  # boolean sorted
    # conditionals and comparisons skip NULLs
    ("COALESCE", None): OTHER, ("IFNULL", None): OTHER, ("GREATEST", None): OTHER, ("LEAST", None): OTHER,
    ("NULLIF", 1): INPUT,
    # strings: CONCAT skips NULLs, FIELD and INSTR answer 0, masks keep their default characters
    ("CONCAT", 0): "", ("FIELD", None): 0, ("INSTR", 0): 0, ("INSTR", 1): 0,
    ("MASK", 1): INPUT, ("MASK", 2): INPUT, ("MASK", 3): INPUT, ("MASK", 4): INPUT,
    # Java primitives: int n of ELT, int position and occurrence of INSTR, the masks' int count
    ("ELT", 0): FAILS, ("INSTR", 2): FAILS, ("INSTR", 3): FAILS,
    # JSON: NULL is not JSON text; JSON_ARRAY_CONTAINS hands NULL to Jackson's parser, which dereferences it
    ("IS_JSON_STRING", 0): False, ("JSON_ARRAY_CONTAINS", 0): FAILS, ("JSON_ARRAY_CONTAINS", 1): False,
    ("TO_JSON_STRING", 0): "null",
    ("GEO_DISTANCE", 4): 0.0,  # a NULL unit is kilometres (both points are the same sample)
    # GEO_DISTANCE's coordinates are Java doubles
    ("GEO_DISTANCE", 0): FAILS, ("GEO_DISTANCE", 1): FAILS, ("GEO_DISTANCE", 2): FAILS, ("GEO_DISTANCE", 3): FAILS,
}
for _mask in ("MASK_KEEP_LEFT", "MASK_KEEP_RIGHT", "MASK_LEFT", "MASK_RIGHT"):
    EXCEPTIONS.update({(_mask, 1): FAILS, (_mask, 2): INPUT, (_mask, 3): INPUT, (_mask, 4): INPUT,
                       (_mask, 5): INPUT})


def _concrete(p: P.Pattern) -> T.SqlType | None:
    """A concrete type for a parameter pattern (type variables as INT); None for lambdas."""
    if isinstance(p, P.Exact):
        return p.type
    if isinstance(p, P.Var | P.AnyType):
        return T.INTEGER
    if isinstance(p, P.AnyDecimal):
        return T.Decimal(4, 2)
    if isinstance(p, P.ArrayOf):
        e = _concrete(p.element)
        return None if e is None else T.Array(e)
    if isinstance(p, P.MapOf):
        k, v = _concrete(p.key), _concrete(p.value)
        return None if k is None or v is None else T.Map(k, v)
    return None


def _sample(t: T.SqlType) -> Any:
    if isinstance(t, T.Array):
        return [_sample(t.element)]
    if isinstance(t, T.Map):
        return {_sample(t.key): _sample(t.value)}
    if isinstance(t, T.Decimal):
        return decimal.Decimal("1.25")
    return SAMPLES.get(t)


def _calls() -> list[tuple[str, list[T.SqlType], int]]:
    out = []
    for name, fn in sorted(REGISTRY.scalars.items()):
        for ov in getattr(fn, "overloads", []):
            types = [_concrete(p) for p in ov.patterns]
            if len(types) < (2 if ov.variadic else 1) or any(t is None or _sample(t) is None for t in types):
                continue  # no arguments, a lambda, or a variadic call that would be a single NULL
            out.extend((name, types, i) for i in range(len(types)))  # type: ignore[misc]
    return out


CALLS = _calls()


def test_the_loop_covers_the_built_ins() -> None:
    names = {name for name, _, _ in CALLS}
    assert len(names) > 100 and {"ELT", "JSON_ARRAY_CONTAINS", "SUBSTRING", "ABS", "ARRAY_MAX"} <= names


@pytest.mark.parametrize(("name", "types", "position"), CALLS,
                         ids=[f"{n}({', '.join(map(str, ts))})@{i}" for n, ts, i in CALLS])
def test_a_null_argument(name: str, types: list[T.SqlType], position: int) -> None:
    resolved = REGISTRY.scalars[name].resolve(list(types))
    args = [_sample(t) for t in types]
    args[position] = None
    expected = EXCEPTIONS.get((name, position), EXCEPTIONS.get((name, None)))
    if resolved.null_on_null:  # the generated call answers NULL without calling the function
        assert expected is None, f"{name} answers NULL for a NULL argument {position}, documented: {expected!r}"
        return
    if expected == FAILS:
        with pytest.raises(FunctionError):
            resolved.impl(*args)
        return
    got = resolved.impl(*args)
    if expected == OTHER:
        expected = next(a for a in args if a is not None)
    elif expected == INPUT:
        expected = args[0]
    assert got == expected


def test_a_failing_call_is_null_and_logged_in_a_query(tmp_path: Any) -> None:
    from ksqlpy.engine import Engine

    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        e.execute("CREATE STREAM s (k INT KEY, n INT, j STRING) WITH (kafka_topic='s', value_format='JSON', "
                  "partitions=1);")
        e.execute("CREATE STREAM o AS SELECT k, ELT(n, 'a', 'b') AS x, JSON_ARRAY_CONTAINS(j, 1) AS y, "
                  "ELT(2, 'a', j) AS z FROM s;")
        e.execute("INSERT INTO s (k, n, j) VALUES (1, NULL, NULL);")
        e.execute("INSERT INTO s (k, n, j) VALUES (2, 2, '[1]');")
        e.drain()
        import orjson

        assert [orjson.loads(v) for v in e.log.fetch("O", 0, 0, 10).values] == [
            {"X": None, "Y": None, "Z": None}, {"X": "b", "Y": True, "Z": "[1]"}]
        assert sorted(x["message"]["recordProcessingError"]["errorMessage"] for x in e.plog.entries) == [
            "Error processing ELT", "Error processing JSON_ARRAY_CONTAINS"]
    finally:
        e.close()
