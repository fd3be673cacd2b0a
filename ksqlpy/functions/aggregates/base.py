"""The UDAF framework: resolved aggregates, the ``Udaf`` resolver wrapper, argument checks and helpers
shared by every aggregate family (see the package docstring for the accumulator conventions).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal as PyDecimal
from typing import Any

from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions.aggregates.declared import declared_overloads, overloads, split_params, type_and_name
from ksqlpy.functions.registry import (
    AggregateFunction,
    ResolvedAggregate,
    Variation,
    variation_from_signature,
)
from ksqlpy.functions.signatures import alternative_text, args_str, no_match_message, select_overload
from ksqlpy.types import (
    BIGINT,
    BOOLEAN,
    BYTES,
    DATE,
    DOUBLE,
    INTEGER,
    NULL,
    STRING,
    TIME,
    TIMESTAMP,
    Array,
    Decimal,
    Map,
    NullType,
    SqlType,
    Struct,
)

COLLECT_LIST_LIMIT = "ksql.functions.collect_list.limit"
COLLECT_SET_LIMIT = "ksql.functions.collect_set.limit"
JAVA_INT_MAX = 2**31 - 1
DEFAULT_COLLECT_LIMIT = JAVA_INT_MAX  # unlimited unless the property is set (ksqlDB's Collect.limit)
HISTOGRAM_LIMIT = 1000
# an expression whose type nothing determines (reference rules: SelectionUtil's words for a projected NULL)
CANNOT_INFER_NULL = "Can't infer a type of null. Please explicitly cast it to a required type, e.g. CAST(null AS VARCHAR)."


def inline(template: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark an ``add``/``result`` function with the source a generated aggregation loop writes in its
    place (``runtime.accumulate``): ``{acc}`` is the accumulator (an assignable expression), ``{v0}``,
    ``{v1}``.. the argument values, ``{t}`` a free temporary name; lines separated by newlines. It must do
    exactly what the function does."""

    def mark(f: Callable[..., Any]) -> Callable[..., Any]:
        f.inline = template  # type: ignore[attr-defined]
        return f

    return mark


@dataclass
class ResolvedUdaf(ResolvedAggregate):
    """A resolved aggregate plus ksqlDB's intermediate (state) type, for value-format checks."""

    intermediate_type: SqlType | None = None
    # the result does not depend on the order of the values nor on how they are grouped into partial
    # accumulators combined by ``merge`` (COUNT, integer SUM, MIN/MAX of non-floating types): a generated
    # loop may pre-aggregate a batch's records per window slice (``runtime.agg_loop``)
    order_free: bool = False


Resolver = Callable[[str, list[SqlType], list[Any], dict[str, Any]], ResolvedUdaf]


class Udaf(AggregateFunction):
    """An aggregate defined by a resolver function (types, literal values, config -> ResolvedUdaf)."""

    def __init__(
        self,
        name: str,
        resolver: Resolver,
        *,
        description: str = "",
        literals: int | Callable[[int], int] = 0,
        signatures: Sequence[str] = (),
    ) -> None:
        self.name = name.upper()
        self.description = description
        self._resolver = resolver
        self._literals = literals
        self._signatures = list(signatures)

    def resolve(
        self, arg_types: list[SqlType], literals: list[Any], config: dict[str, Any]
    ) -> ResolvedAggregate:
        try:
            return self._call(list(arg_types), list(literals), config or {})
        except Rejected as e:
            raise self._no_match(e) from None

    def _call(self, cols: list[SqlType], literals: list[Any], config: dict[str, Any]) -> ResolvedUdaf:
        """The family's resolver; a call with a NULL argument (a column one or a literal one: ksqlDB's index
        holds both) is first decided by the declared overloads as ksqlDB's UdfIndex decides it
        (``declared``): a NULL fits any parameter, so several overloads fitting alike is ambiguous
        (``LATEST_BY_OFFSET(V, NULL)``: ignoreNulls or latestN), one fitting gives the NULL its parameter's
        type (a parameter of any type keeps it NULL), and a type variable nothing binds leaves the result
        without a type - refused as a projected NULL is. A NULL literal that resolution let through is then
        the family's own refusal (no initial value can be NULL)."""
        if not self._signatures or not (any(isinstance(t, NullType) for t in cols)
                                        or any(v is None for v in literals)):
            return self._resolver(self.name, cols, literals, config)
        match = select_overload(self.name, declared_overloads(self.name, self._signatures),
                                cols + [literal_type(v) for v in literals])
        if isinstance(match.return_type, NullType):
            raise KsqlTypeError(CANNOT_INFER_NULL)
        typed = [p if isinstance(t, NullType) and not isinstance(p, NullType) else t
                 for t, p in zip(cols, match.param_types, strict=False)]
        resolved = self._resolver(self.name, typed, literals, config)
        if has_null_part(resolved.return_type):  # TOPK(V, NULL, k): a struct field only the NULL types
            raise KsqlTypeError(CANNOT_INFER_NULL)
        return resolved

    def _no_match(self, e: Rejected) -> KsqlTypeError:
        return KsqlTypeError(no_match_message(e.name, e.arg_types, alternatives(self._signatures)))

    def literal_arg_count(self, n_args: int) -> int:
        if callable(self._literals):
            return self._literals(n_args)
        return min(self._literals, n_args)

    def init_arg_count(self, arg_types: list[SqlType]) -> int:
        """The literal count, after checking the call's types fit (ksqlDB resolves the signature before it
        checks that literal arguments are literals): the resolver sees a value of each literal's type."""
        n = self.literal_arg_count(len(arg_types))
        cols, lits = list(arg_types[: len(arg_types) - n]), arg_types[len(arg_types) - n:]
        try:
            self._call(cols, [sample_value(t) for t in lits], {})
        except Rejected as e:
            raise self._no_match(e) from None
        return n

    def signatures(self) -> list[str]:
        return list(self._signatures)

    def variations(self) -> list[Variation]:
        """DESCRIBE FUNCTION's variations: one per overload (an optional parameter's two forms are two)."""
        return [variation_from_signature(s, self.description) for s in overloads(self._signatures)]


# ---------------------------------------------------------------------------------------------------------
# Helpers


def literal_type(value: Any) -> SqlType:
    """The SQL type of a literal argument value (for error messages)."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return INTEGER if -(2**31) <= value < 2**31 else BIGINT
    if isinstance(value, float):
        return DOUBLE
    if isinstance(value, PyDecimal):
        t = value.as_tuple()
        scale = max(0, -int(t.exponent))  # type: ignore[arg-type]
        return Decimal(max(len(t.digits), scale), scale)
    if isinstance(value, bytes):
        return BYTES
    return STRING


def has_null_part(t: SqlType | None) -> bool:
    """A result type with no type somewhere inside: a NULL argument taken by a parameter of any type
    (TOPK's other columns) and copied into the result's struct. No sink schema can hold it, so it is refused
    as a projected NULL is (the NULL must be cast)."""
    if isinstance(t, NullType):
        return True
    if isinstance(t, Array):
        return has_null_part(t.element)
    if isinstance(t, Map):
        return has_null_part(t.key) or has_null_part(t.value)
    if isinstance(t, Struct):
        return any(has_null_part(f) for _n, f in t.fields)
    return False


def sample_value(t: SqlType) -> Any:
    """A value of type ``t`` (whose ``literal_type`` is ``t``), standing in for a literal argument that is
    not a literal while the signature is checked."""
    if isinstance(t, Decimal):
        return PyDecimal((0, (1,) * max(t.precision, 1), -t.scale))
    return {BOOLEAN: True, INTEGER: 1, BIGINT: 2**40, DOUBLE: 1.0, STRING: "", BYTES: b""}.get(t)


class Rejected(KsqlTypeError):
    """No signature of a built-in aggregate fits the call; ``Udaf`` words it with every alternative."""

    def __init__(self, name: str, arg_types: Sequence[SqlType]) -> None:
        super().__init__(f"Function '{name}' does not accept parameters {args_str(arg_types)}.")
        self.name, self.arg_types = name, list(arg_types)


def reject(name: str, types: Sequence[SqlType], literals: Sequence[Any] = ()) -> KsqlTypeError:
    """ksqlDB's resolution error, listing column and literal argument types."""
    return Rejected(name, list(types) + [literal_type(v) for v in literals])


def alternatives(signatures: Sequence[str]) -> list[str]:
    """The "Valid alternatives" lines of documented signatures: each overload's call form without its return
    type, by the one formatter of scalar and table functions (``alternative_text``)."""
    out: list[str] = []
    for sig in overloads(signatures):
        call = sig.split(" -> ", 1)[0].strip()
        name, params = call[:-1].split("(", 1)
        out.append(alternative_text(name, [type_and_name(p) for p in split_params(params)]))
    return out


def _is(t: SqlType, *options: SqlType) -> bool:
    return any(t == o for o in options)


_ORDERABLE = (INTEGER, BIGINT, DOUBLE, STRING, BYTES, DATE, TIME, TIMESTAMP)


def _orderable(t: SqlType) -> bool:
    return isinstance(t, Decimal) or _is(t, *_ORDERABLE)


_SIGNED = bytes((i ^ 0x80) for i in range(256))


def _bytes_key(b: bytes) -> bytes:
    """Java's ByteBuffer order compares signed bytes; flipping the top bit gives that order unsigned."""
    return b.translate(_SIGNED)


def _wrapper(t: SqlType) -> Callable[[Any], Any]:
    """Java integer overflow for INT/BIGINT sums (wrapping once at the end equals wrapping every step)."""
    if t == INTEGER:
        return _wrap32
    if t == BIGINT:
        return _wrap64
    return _identity


def _wrap32(v: int) -> int:
    return v if -(2**31) <= v < 2**31 else (v + 2**31) % 2**32 - 2**31


def _wrap64(v: int) -> int:
    return v if -(2**63) <= v < 2**63 else (v + 2**63) % 2**64 - 2**63


@inline("{acc}")
def _identity(v: Any) -> Any:
    return v


def _copy_list(acc: list[Any]) -> list[Any]:
    return list(acc)


def _limit(config: dict[str, Any], key: str) -> int:
    """A collect limit as ksqlDB's COLLECT_LIST/COLLECT_SET ``configure`` reads it (from memory of their
    source): a number is taken as Java's ``intValue()`` (wrapping to 32 bits), text by ``Integer.parseInt``;
    unset or negative means no limit (Integer.MAX_VALUE); 0 keeps the array empty."""
    value = config.get(key)
    if value is None:
        return DEFAULT_COLLECT_LIMIT
    if isinstance(value, bool):
        raise KsqlTypeError(f"Invalid value for {key}: {value!r}")
    try:
        if isinstance(value, float):  # Double.intValue saturates
            n = max(-(2**31), min(JAVA_INT_MAX, int(value)))
        else:
            n = _wrap32(value) if isinstance(value, int) else int(str(value).strip())
    except (TypeError, ValueError):
        raise KsqlTypeError(f"Invalid value for {key}: {value!r}") from None
    if not isinstance(value, int | float) and not -(2**31) <= n < 2**31:
        raise KsqlTypeError(f"Invalid value for {key}: {value!r}")
    return DEFAULT_COLLECT_LIMIT if n < 0 else n


def _no_literals(name: str, types: list[SqlType], literals: list[Any]) -> None:
    if literals:
        raise reject(name, types, literals)


def _single(name: str, types: list[SqlType], literals: list[Any]) -> SqlType:
    if len(types) != 1 or literals:
        raise reject(name, types, literals)
    return types[0]


