"""The inline forms of the built-in aggregates' ``add`` (``functions.aggregates.base.inline``) against the
functions themselves: the generated aggregation loops (``runtime.agg_loop``, ``runtime.combine``,
``runtime.session_fold``) write the template in place of the call, so over any values - NULLs included -
the accumulator must end up equal, for every built-in aggregate that has one and every argument type."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest

from ksqlpy.functions.aggregates import register
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.runtime.accumulate import Accumulators
from ksqlpy.types import BIGINT, DOUBLE, INTEGER, STRING, SqlType

_VALUES: dict[SqlType, Callable[[random.Random], Any]] = {
    INTEGER: lambda r: r.randint(-2**31, 2**31 - 1),
    BIGINT: lambda r: r.randint(-2**63, 2**63 - 1),
    DOUBLE: lambda r: r.choice([r.uniform(-1e6, 1e6), 0.0, -0.0, 1e300]),
    STRING: lambda r: r.choice(["", "a", "b", "ab", "z" * r.randint(0, 5)]),
}


def _inlined() -> list[tuple[str, tuple[SqlType, ...], Any]]:
    registry = FunctionRegistry()
    register(registry)
    found = []
    for name in sorted(registry.aggregates):
        for types in [(), *((t,) for t in _VALUES)]:
            try:
                r = registry.aggregates[name].resolve(list(types), [], {})
            except Exception:  # noqa: BLE001 - not a signature of this aggregate
                continue
            if getattr(r.add, "inline", None) is not None:
                found.append((name, types, r))
    return found


_CASES = _inlined()


def test_the_common_aggregates_are_inlined() -> None:
    """What the loops rely on for their speed: COUNT, SUM, MIN, MAX and AVG written out."""
    names = {name for name, _, _ in _CASES}
    assert {"COUNT", "SUM", "MIN", "MAX", "AVG"} <= names


@pytest.mark.parametrize(("name", "types", "resolved"), _CASES,
                         ids=[f"{n}({','.join(map(str, t))})" for n, t, _ in _CASES])
def test_inline_add_equals_the_call(name: str, types: tuple[SqlType, ...], resolved: Any) -> None:
    accs = Accumulators([resolved], [len(types)])
    ns: dict[str, Any] = {}
    body = accs.inline_add("q_rec", "q_a", ns, "    ")
    exec(compile("\n".join(["def q_add(q_rec, q_a):", *body]), "<test-inline>", "exec"), ns)  # noqa: S102
    rng = random.Random(f"{name}{types}")
    for _ in range(50):
        inline_rec = accs.new((), 0)
        called_rec = copy.deepcopy(inline_rec)
        for _ in range(rng.randint(0, 12)):
            args = tuple(None if rng.random() < 0.2 else _VALUES[t](rng) for t in types)
            ns["q_add"](inline_rec, args)
            called_rec[2] = resolved.add(called_rec[2], *args)
            assert inline_rec[2] == called_rec[2]
        assert accs.results(inline_rec) == accs.results(called_rec)
