"""Function registry: scalar functions (UDFs), aggregates (UDAFs) and table functions (UDTFs).

The expression compiler resolves a call once per query: ``resolve(arg_types)`` picks the overload and
returns a ``Resolved`` whose ``impl`` the generated code calls per record with plain Python values
(see ``ksqlpy.types`` for the value representation). Functions are registered from tables of typed
signatures, so adding one is a table row plus an implementation, never a change to the compiler.
"""

from __future__ import annotations

import pickle
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
    # a vectorized function's batch form: one list per argument for a whole batch -> one list of results
    # (``impl`` is then its one-record form); the generated batch code calls it once per batch. A result
    # that is ``RETRY_RECORD`` sends that record to ``impl`` (e.g. a NULL a NumPy argument cannot hold)
    batch_impl: Callable[..., Any] | None = None


class _RetryRecord:
    """The batch result of a record the batch form did not compute: the record calls the one-record form."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "RETRY_RECORD"

    def __reduce__(self) -> str:
        return "RETRY_RECORD"  # one instance, also after pickling


RETRY_RECORD = _RetryRecord()


class PartialBatch(list):  # type: ignore[type-arg]
    """Batch results of which some are ``RETRY_RECORD`` (a batch form returns a plain list when none is):
    the generated code checks each record's result only in such a batch."""

    __slots__ = ()


@dataclass(frozen=True)
class Variation:
    """One overload as DESCRIBE FUNCTION lists it."""

    arguments: list[dict[str, Any]]  # name, type, description, isVariadic
    return_type: str
    description: str = ""


class FunctionInfo:
    """What SHOW FUNCTIONS and DESCRIBE FUNCTION say about a function besides its overloads. ``path`` is
    ksqlDB's: where it was loaded from ("internal" for built-ins, else a file or a package)."""

    name: str = ""
    category: str = "OTHER"
    description: str = ""
    author: str = ""
    version: str = ""
    path: str = "internal"

    def variations(self) -> list[Variation]:
        """The overloads for DESCRIBE FUNCTION (default: read from the signature texts)."""
        return [variation_from_signature(s, self.description) for s in self.signatures()]

    def signatures(self) -> list[str]:
        return []


def variation_from_signature(text: str, description: str = "") -> Variation:
    """A DESCRIBE FUNCTION variation from a signature text ``NAME(TYPE [name], TYPE...) -> RETURN``: one
    argument per parameter (``...`` marks the variadic one; ``[...]`` optional ones are listed too)."""
    head, _, returns = text.partition(") -> ")
    if not returns:
        return Variation([], "", text)
    params = head[head.find("(") + 1:].replace("[", "").replace("]", "")
    arguments = []
    for part in top_level_split(params):
        variadic = "..." in part
        part = part.replace("...", "").strip()
        type_text, _, name = part.rpartition(" ")
        if not (type_text and name.isidentifier() and not type_text.endswith(("<", ","))):
            type_text, name = part, ""  # no parameter name: the part is the type (``MAP<K, V>``)
        arguments.append({"name": name, "type": type_text, "description": "", "isVariadic": variadic})
    return Variation(arguments, returns.strip(), description)


def top_level_split(text: str) -> list[str]:
    """``text`` split at the commas outside ``<...>`` and ``(...)`` (a lambda's ``->`` or ``=>`` is no bracket)."""
    parts, depth, cur = [], 0, ""
    for i, ch in enumerate(text):
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        if ch in "<(":
            depth += 1
        elif ch in ">)" and not (ch == ">" and i > 0 and text[i - 1] in "-="):
            depth -= 1
        cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


class ScalarFunction(FunctionInfo):
    """A named scalar function with one or more typed overloads."""

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


class AggregateFunction(FunctionInfo):
    category = "AGGREGATE"

    def resolve(self, arg_types: list[SqlType], literals: list[Any], config: dict[str, Any]) -> ResolvedAggregate:
        """``arg_types``: types of the column arguments; ``literals``: values of trailing literal arguments
        (e.g. TOPK's k); ``config``: engine properties (e.g. ksql.functions.collect_list.limit)."""
        raise NotImplementedError

    def literal_arg_count(self, n_args: int) -> int:
        """How many trailing arguments are literal initial arguments (e.g. 1 for TOPK(col, k))."""
        return 0

    def init_arg_count(self, arg_types: list[SqlType]) -> int:
        """How many trailing arguments of a call with ``arg_types`` (every argument, literal or not) are
        literal initial arguments. An aggregate with typed signatures resolves its overload here, so a call
        no overload accepts is reported before any literal-argument check, as ksqlDB does."""
        return self.literal_arg_count(len(arg_types))


class TableFunction(ScalarFunction):
    """A UDTF: ``impl`` returns a list; each element becomes one output row (None/[] gives no rows)."""

    category = "TABLE"


# How a registry is rebuilt in another process: ``(callable, args)`` as ``__reduce__`` returns it.
Origin = tuple[Callable[..., "FunctionRegistry"], tuple[Any, ...]]


@dataclass
class FunctionRegistry:
    """One engine's functions by name and kind.

    ``origin`` names how the registry was built (the built-ins, or the built-ins plus the extension functions
    of some properties); a registry pickles as that recipe, so a worker process or a Spark executor loads the
    same functions in its own process instead of receiving function objects. Registering a function by hand
    clears it: such a registry cannot be sent to another process (put the function in an extension module).
    """

    scalars: dict[str, ScalarFunction] = field(default_factory=dict)
    aggregates: dict[str, AggregateFunction] = field(default_factory=dict)
    tables: dict[str, TableFunction] = field(default_factory=dict)
    origin: Origin | None = field(default=None, compare=False, repr=False)

    def register(self, fn: ScalarFunction | AggregateFunction) -> None:
        self.origin = None
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

    def get(self, name: str) -> ScalarFunction | AggregateFunction | None:
        """The function of any kind called ``name`` (upper case), or None."""
        return self.scalars.get(name) or self.aggregates.get(name) or self.tables.get(name)

    def copy(self) -> FunctionRegistry:
        """A registry with the same functions and origin; registering into it leaves this one alone."""
        return FunctionRegistry(dict(self.scalars), dict(self.aggregates), dict(self.tables), self.origin)

    def __reduce__(self) -> Origin:
        if self.origin is None:
            raise pickle.PicklingError(
                "this function registry had functions registered by hand and cannot be rebuilt in another "
                "process; load them from ksql.extension.dir or a 'ksqlpy.functions' entry point instead")
        return self.origin
