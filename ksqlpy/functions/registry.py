"""Function registry: scalar functions (UDFs), aggregates (UDAFs) and table functions (UDTFs).

The expression compiler resolves a call once per query: ``resolve(arg_types)`` picks the overload and
returns a ``Resolved`` whose ``impl`` the generated code calls per record with plain Python values
(see ``ksqlpy.types`` for the value representation). Functions are registered from tables of typed
signatures, so adding one is a table row plus an implementation, never a change to the compiler.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ksqlpy.types import SqlType


@dataclass
class Resolved:
    """One overload of a scalar or table function, chosen for concrete argument types."""

    return_type: SqlType
    impl: Callable[..., Any]
    # Types the compiler must implicitly cast each argument to before calling (None: pass as is).
    param_types: list[SqlType] | None = None
    # True: the compiler returns NULL without calling ``impl`` when any argument is NULL.
    null_on_null: bool = False
    deterministic: bool = True


class ScalarFunction:
    """A named scalar function with one or more typed overloads."""

    name: str = ""
    category: str = "OTHER"
    description: str = ""

    def resolve(self, arg_types: list[SqlType]) -> Resolved:
        """The overload for ``arg_types``; raises KsqlTypeError naming the function and types if none fits.

        A lambda argument appears in ``arg_types`` as ``LambdaType(params, result)`` once typed.
        """
        raise NotImplementedError

    def lambda_params(self, index: int, arg_types: list[SqlType]) -> tuple[SqlType, ...]:
        """Parameter types of the lambda at argument ``index`` given the types of the arguments before it."""
        raise NotImplementedError(f"{self.name} takes no lambda")

    def signatures(self) -> list[str]:
        """Human-readable overloads, e.g. ``ABS(INT) -> INT`` (DESCRIBE FUNCTION)."""
        return []


@dataclass
class ResolvedAggregate:
    """An aggregate resolved for concrete argument types.

    Accumulators are plain picklable Python values (they live in state stores).
    ``add``/``undo`` get the accumulator and the non-literal argument values of one record and return the
    new accumulator. ``undo`` is None where the aggregate cannot retract (then it is rejected over tables).
    ``merge`` combines two accumulators (session window merges); None where unsupported.
    """

    return_type: SqlType
    init: Callable[[], Any]
    add: Callable[..., Any]
    result: Callable[[Any], Any]
    undo: Callable[..., Any] | None = None
    merge: Callable[[Any, Any], Any] | None = None


class AggregateFunction:
    name: str = ""
    description: str = ""

    def resolve(self, arg_types: list[SqlType], literals: list[Any], config: dict[str, Any]) -> ResolvedAggregate:
        """``arg_types``: types of the column arguments; ``literals``: values of trailing literal arguments
        (e.g. TOPK's k); ``config``: engine properties (e.g. ksql.functions.collect_list.limit)."""
        raise NotImplementedError

    def literal_arg_count(self, n_args: int) -> int:
        """How many trailing arguments are literal initial arguments (e.g. 1 for TOPK(col, k))."""
        return 0

    def signatures(self) -> list[str]:
        return []


class TableFunction(ScalarFunction):
    """A UDTF: ``impl`` returns a list; each element becomes one output row (None/[] gives no rows)."""


@dataclass
class FunctionRegistry:
    scalars: dict[str, ScalarFunction] = field(default_factory=dict)
    aggregates: dict[str, AggregateFunction] = field(default_factory=dict)
    tables: dict[str, TableFunction] = field(default_factory=dict)

    def register(self, fn: ScalarFunction | AggregateFunction) -> None:
        if isinstance(fn, TableFunction):
            self.tables[fn.name] = fn
        elif isinstance(fn, AggregateFunction):
            self.aggregates[fn.name] = fn
        else:
            self.scalars[fn.name] = fn

    def kind_of(self, name: str) -> str | None:
        """'scalar', 'aggregate', 'table' or None for an unknown name."""
        if name in self.scalars:
            return "scalar"
        if name in self.aggregates:
            return "aggregate"
        if name in self.tables:
            return "table"
        return None
