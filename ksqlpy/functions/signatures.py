"""Table-driven function signatures: declare overloads as rows, resolve them the way ksqlDB does.

A function is a list of ``Overload`` rows written in a tiny signature language::

    udf("ABS", category="MATHEMATICAL", description="Absolute value.", null_on_null=True, overloads=[
        ("INT", "INT", abs),
        ("BIGINT", "BIGINT", abs),
        ("DECIMAL", lambda ts: ts[0], abs),          # computed return type from the parameter types
        ("DOUBLE", "DOUBLE", abs),
    ])

Signature language (parameters are comma separated; ``""`` means no parameters):

- primitive names: ``BOOLEAN INT INTEGER BIGINT DOUBLE STRING VARCHAR BYTES DATE TIME TIMESTAMP``
- ``DECIMAL`` matches a DECIMAL of any precision and scale (``DECIMAL(p,s)`` matches exactly that one)
- ``ARRAY<T>``, ``MAP<K,V>``, ``STRUCT`` (any struct), ``ANY`` (anything, no binding)
- generic type variables: one capital letter, optionally followed by digits (``T``, ``U``, ``K``, ``V``, ``S``,
  ``T1``); every occurrence must be the same type, in both passes: generics never widen (NULL fits any)
- ``LAMBDA(T)->U``, ``LAMBDA(K,V)->V2``: a lambda argument; its parameters come from bindings made by earlier
  arguments (``lambda_params``) and its result type binds the variable on the right
- ``X...`` on the last parameter: zero or more arguments of X (``"T, T..."`` is one or more)

Resolution follows ksqlDB's UdfIndex: first every overload is tried without implicit casts (a NULL literal
fits any parameter); only if none fits are implicit casts allowed (INT -> BIGINT -> DECIMAL -> DOUBLE, element
wise in containers, and a STRING to DATE/TIME/TIMESTAMP) - for concrete parameter types, never for a type
variable. Among the fitting overloads of the pass a non-variadic one beats a variadic one, then more declared
parameters win (of two variadic ones, the one with more fixed parameters: ``F(STRING, STRING...)`` over
``F(STRING...)``); a remaining tie is an "ambiguous method parameters" error, exactly as ksqlDB reports it -
neither the number of implicit casts nor the declaration order decides (GREATEST(INT, BIGINT) and
GREATEST(INT, DECIMAL) fit BIGINT/DECIMAL/DOUBLE and DECIMAL/DOUBLE overloads alike, ROUND(INT, INT) the
DOUBLE and DECIMAL ones, a NULL argument every overload of its arity). From memory of ksqlDB's UdfIndex:
``getFunction`` runs the pass without casts and then the one with them, each sorting its candidates by
``Node::compare`` (variadic-ness, then ``parameters().size()``) and refusing when the best two compare equal.

What ``resolve`` returns (``registry.Resolved``):

- ``return_type``: the row's return pattern with variables substituted, or ``returns(param_types)`` when the row
  gives a callable (asked only of the chosen row, so it may assume its own parameter kinds, e.g. DECIMALs).
- ``param_types``: the type each argument must be implicitly cast to before the call, or None when every
  argument is already passed as is. NULL arguments keep the NULL type where nothing better is known.
- ``impl``: the row's plain function, or ``make_impl(param_types, return_type)`` for type-dependent behaviour.
- ``null_on_null`` / ``deterministic``: the function's flags, overridable per row.

Error messages use ``display_name`` (default: the lower-case name, as ksqlDB's built-ins report themselves).
An implementation raises ``FunctionError`` where ksqlDB's UDF throws for one record; the evaluator turns that into
NULL for the call plus a processing-log entry.

This module does per-query work only; the resolved ``impl`` is the plain function from the row (or what the
row's ``make_impl`` built for the concrete types), so no per-record indirection is added.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ksqlpy.errors import KsqlRuntimeError, KsqlTypeError
from ksqlpy.functions.patterns import (  # noqa: F401 - re-exported: the signature language's public names
    AnyDecimal,
    AnyStruct,
    AnyType,
    ArrayOf,
    Exact,
    LambdaOf,
    MapOf,
    Pattern,
    Var,
    parse_params,
    parse_pattern,
    substitute,
    type_of,
)
from ksqlpy.functions.registry import Resolved, ScalarFunction, TableFunction, Variation
from ksqlpy.types import (
    BYTES,
    DATE,
    NULL,
    STRING,
    TIME,
    TIMESTAMP,
    Array,
    Decimal,
    LambdaType,
    Map,
    NullType,
    SqlType,
    Struct,
    as_decimal,
    can_implicitly_cast,
)


class FunctionError(KsqlRuntimeError):
    """Raised by an implementation where ksqlDB's UDF throws for one record (bad encoding name, invalid JSON,
    duplicate map key...). The expression evaluator turns it into NULL for that expression plus a processing log
    entry, as ksqlDB does; it never stops the query."""


def java_primitives(name: str, fn: Callable[..., Any], params: dict[int, str]) -> Callable[..., Any]:
    """``fn`` as ksqlDB invokes a UDF whose parameters at these positions are Java primitives (``int``,
    ``long``, ``double``): a NULL argument there cannot be unboxed, so the invocation fails (the call is NULL
    and logged) before the function runs; NULL arguments elsewhere reach ``fn``. Declare the function with
    ``null_on_null=False``."""
    def invoke(*args: Any) -> Any:
        for i, java_type in params.items():
            if i < len(args) and args[i] is None:
                article = "an" if java_type[0] in "aeiou" else "a"
                raise FunctionError(f"Failed to invoke function {name}: a NULL argument for {article} {java_type} "
                                    "parameter")
        return fn(*args)

    return invoke


# ---------------------------------------------------------------------------------------------------------
# Overloads

ReturnSpec = str | Pattern | Callable[[list[SqlType]], SqlType]


@dataclass(frozen=True)
class Params:
    """A parameter list given as patterns (user functions derive it from annotations), with parameter names
    and descriptions for DESCRIBE FUNCTION and resolution messages. ``variadic``: one parameter repeats -
    the last, or the one at ``variadic_at`` (an aggregate's variadic column before its literal parameters)."""

    patterns: tuple[Pattern, ...]
    variadic: bool = False
    names: tuple[str, ...] = ()
    docs: tuple[str, ...] = ()
    variadic_at: int | None = None


@dataclass
class Overload:
    """One row: parameter patterns, return type (pattern text or ``fn(param_types) -> SqlType``), impl.

    ``make_impl(param_types, return_type)`` builds the impl from the concrete types instead of ``impl``
    (for behaviour that depends on types: output formatting, decimal scale...). ``null_on_null`` and
    ``deterministic`` override the function's defaults for this row when not None.
    """

    params: str | Sequence[str] | Params
    returns: ReturnSpec
    impl: Callable[..., Any] | None = None
    make_impl: Callable[[list[SqlType], SqlType], Callable[..., Any]] | None = None
    null_on_null: bool | None = None
    deterministic: bool | None = None
    returns_doc: str | None = None
    description: str = ""  # this overload's own (DESCRIBE FUNCTION lists it per variation)
    # ``make_batch(param_types, return_type)``: the vectorized form, called once per batch with one list per
    # argument (``Resolved.batch_impl``); ``impl``/``make_impl`` stays the one-record form
    make_batch: Callable[[list[SqlType], SqlType], Callable[..., Any]] | None = None
    patterns: tuple[Pattern, ...] = field(init=False, default=())
    variadic: bool = field(init=False, default=False)
    return_pattern: Pattern | None = field(init=False, default=None)
    param_names: tuple[str, ...] = field(init=False, default=())
    param_docs: tuple[str, ...] = field(init=False, default=())
    variadic_index: int = field(init=False, default=-1)  # which parameter repeats (when ``variadic``)

    def __post_init__(self) -> None:
        if isinstance(self.params, Params):
            self.patterns, self.variadic = self.params.patterns, self.params.variadic
            self.param_names, self.param_docs = self.params.names, self.params.docs
            if self.params.variadic_at is not None:
                self.variadic_index = self.params.variadic_at
        else:
            self.patterns, self.variadic = parse_params(self.params)
        if self.variadic and self.variadic_index < 0:
            self.variadic_index = len(self.patterns) - 1
        if isinstance(self.returns, str):
            self.return_pattern = parse_pattern(self.returns)
        elif isinstance(self.returns, Pattern):
            self.return_pattern = self.returns
        if self.impl is None and self.make_impl is None:
            raise ValueError(f"overload {self.params!r} has neither impl nor make_impl")

    def arity_ok(self, n: int) -> bool:
        fixed = len(self.patterns) - (1 if self.variadic else 0)
        return n >= fixed if self.variadic else n == fixed

    def pattern_at(self, i: int, n: int | None = None) -> Pattern:
        """The pattern of argument ``i`` of ``n`` (``n`` matters when the variadic parameter is not last)."""
        v = self.variadic_index
        if not self.variadic or i < v:
            return self.patterns[i]
        after = len(self.patterns) - 1 - v  # fixed parameters after the variadic one
        if n is not None and i >= n - after:
            return self.patterns[i - (n - len(self.patterns))]
        return self.patterns[v]

    def describe(self, name: str) -> str:
        params = [str(p) for p in self.patterns]
        if self.variadic:
            params[self.variadic_index] += "..."
        params = [f"{p} {self.param_names[i]}" if i < len(self.param_names) and self.param_names[i] else p
                  for i, p in enumerate(params)]
        ret = self.returns_doc or (str(self.return_pattern) if self.return_pattern is not None else "?")
        return f"{name}({', '.join(params)}) -> {ret}"

    def alternative(self, name: str) -> str:
        """The overload as ksqlDB's UdfIndex lists it under "Valid alternatives": ``NAME(TYPE name, ...)``,
        types in its parameter-type names (INT, DECIMAL, STRUCT<A INT>), ``TYPE...`` for the variadic one."""
        return alternative_text(name, [
            (t, self.param_names[i] if i < len(self.param_names) else "")
            for i, t in enumerate(self.parameter_types())])

    def parameter_types(self) -> list[str]:
        """Each parameter's type as "Valid alternatives" writes it (``TYPE...`` for the variadic one)."""
        return [param_type_text(p) + ("..." if self.variadic and i == self.variadic_index else "")
                for i, p in enumerate(self.patterns)]

    def arguments(self) -> list[dict[str, Any]]:
        """DESCRIBE FUNCTION's ``arguments`` of this overload (name, type, description, isVariadic). The
        variadic parameter's ``type`` is its element type - ``isVariadic`` says it repeats, and the CLI writes
        ``TYPE[]`` for it (from memory of ksqlDB's DescribeFunctionExecutor, which unwraps the varargs
        ArrayType, and Console.argToString, which appends ``[]``)."""
        out = []
        for i, p in enumerate(self.patterns):
            repeats = self.variadic and i == self.variadic_index
            out.append({"name": self.param_names[i] if i < len(self.param_names) else "",
                        "type": param_type_text(p),
                        "description": self.param_docs[i] if i < len(self.param_docs) else "",
                        "isVariadic": repeats})
        return out

    def return_text(self) -> str:
        """The return type as DESCRIBE FUNCTION shows it (a provider's is computed per call)."""
        if self.returns_doc:
            return self.returns_doc
        return param_type_text(self.return_pattern) if self.return_pattern is not None else "ANY"


def alternative_text(name: str, params: Sequence[tuple[str, str]]) -> str:
    """One signature line of ksqlDB's resolution errors (``UdfIndex``), the same for scalar, table and
    aggregate functions: ``NAME(TYPE name, TYPE...)`` - a parameter's name after its type when it has one."""
    return f"{name}({', '.join(f'{t} {n}' if n else t for t, n in params)})"


def named(params: str, *names: str) -> Params:
    """A parameter list in the signature language with a name for each parameter (as ksqlDB's UDFs have)."""
    patterns, variadic = parse_params(params)
    if len(names) != len(patterns):
        raise ValueError(f"{len(names)} names for {len(patterns)} parameters in {params!r}")
    return Params(patterns, variadic, names)


_PARAM_NAMES = {"INTEGER": "INT"}


def param_type_text(p: Pattern) -> str:
    """A parameter pattern in ksqlDB's parameter-type names (``ParamType.toString``)."""
    if isinstance(p, Exact):
        return sql_param_text(p.type)
    if isinstance(p, ArrayOf):
        return f"ARRAY<{param_type_text(p.element)}>"
    if isinstance(p, MapOf):
        return f"MAP<{param_type_text(p.key)}, {param_type_text(p.value)}>"
    if isinstance(p, LambdaOf):
        return f"LAMBDA<{', '.join(param_type_text(x) for x in p.params)}> => {param_type_text(p.result)}"
    return str(p)  # T, ANY, DECIMAL, STRUCT


def sql_param_text(t: SqlType) -> str:
    if isinstance(t, Decimal):
        return "DECIMAL"
    if isinstance(t, Array):
        return f"ARRAY<{sql_param_text(t.element)}>"
    if isinstance(t, Map):
        return f"MAP<{sql_param_text(t.key)}, {sql_param_text(t.value)}>"
    if isinstance(t, Struct):
        return "STRUCT<" + ", ".join(f"{n} {sql_param_text(ft)}" for n, ft in t.fields) + ">"
    return _PARAM_NAMES.get(str(t), str(t))


OverloadSpec = Overload | tuple


def as_overload(spec: OverloadSpec) -> Overload:
    """A row given as ``Overload`` or as a tuple ``(params, returns, impl)``."""
    if isinstance(spec, Overload):
        return spec
    return Overload(*spec)


@dataclass
class Match:
    """The outcome of resolution: the overload, what each argument is cast to, the return type."""

    overload: Overload
    param_types: list[SqlType]
    return_type: SqlType
    binding: dict[str, SqlType]


# ---------------------------------------------------------------------------------------------------------
# Matching

# STRING's implicit casts besides numeric widening (ksqlDB's SqlBaseType.canImplicitlyCast, reference 2.4): to the
# time types (ISO text) and to BYTES (base64), taken in the second pass as CAST would
_FROM_STRING = (DATE, TIME, TIMESTAMP, BYTES)


def _collect(p: Pattern, t: SqlType, acc: dict[str, list[SqlType]]) -> bool:
    """Structural match of ``t`` against ``p``, gathering candidate types for variables."""
    if isinstance(t, NullType):
        return True
    if isinstance(p, Var):
        acc.setdefault(p.name, []).append(t)
        return True
    if isinstance(p, ArrayOf):
        return isinstance(t, Array) and _collect(p.element, t.element, acc)
    if isinstance(p, MapOf):
        return isinstance(t, Map) and _collect(p.key, t.key, acc) and _collect(p.value, t.value, acc)
    if isinstance(p, AnyStruct):
        return isinstance(t, Struct)
    if isinstance(p, LambdaOf):
        if not isinstance(t, LambdaType) or len(t.params) != len(p.params):
            return False
        for pp, tp in zip(p.params, t.params, strict=True):
            if not _collect(pp, tp, acc):
                return False
        return t.result is None or _collect(p.result, t.result, acc)
    return True


def _param(p: Pattern, t: SqlType, binding: dict[str, SqlType], cast: bool) -> SqlType | None:
    """The concrete parameter type an argument of type ``t`` is passed as; None if it does not fit."""
    if isinstance(p, Exact):
        target = p.type
    elif isinstance(p, Var):
        target = binding.get(p.name, NULL)
    elif isinstance(p, LambdaOf):
        if (
            isinstance(t, LambdaType)
            and t.result is not None
            and _param(p.result, t.result, binding, cast) is None
        ):
            return None  # e.g. FILTER's lambda must return BOOLEAN
        return t
    elif isinstance(p, AnyType) or isinstance(p, AnyStruct):
        return t
    elif isinstance(p, AnyDecimal):
        if isinstance(t, Decimal | NullType):
            return t
        if cast and t.name in ("INTEGER", "BIGINT"):
            return as_decimal(t)
        return None
    elif isinstance(p, ArrayOf):
        if isinstance(t, NullType):
            target = substitute(p, binding) or NULL
        elif not isinstance(t, Array):
            return None
        else:
            el = _param(p.element, t.element, binding, cast)
            if el is None:
                return None
            target = Array(el)
    elif isinstance(p, MapOf):
        if isinstance(t, NullType):
            target = substitute(p, binding) or NULL
        elif not isinstance(t, Map):
            return None
        else:
            k, v = _param(p.key, t.key, binding, cast), _param(p.value, t.value, binding, cast)
            if k is None or v is None:
                return None
            target = Map(k, v)
    else:  # pragma: no cover
        return None
    if _fits(t, target, cast):
        return target
    return None


def _fits(t: SqlType, target: SqlType, cast: bool) -> bool:
    if t == target or isinstance(t, NullType) or isinstance(target, NullType):
        return True
    if isinstance(t, Array) and isinstance(target, Array):
        return _fits(t.element, target.element, cast)
    if isinstance(t, Map) and isinstance(target, Map):
        return _fits(t.key, target.key, cast) and _fits(t.value, target.value, cast)
    if isinstance(t, Struct) and isinstance(target, Struct):
        return _struct_fits(t, target)
    if not cast:
        return False
    if t == STRING and target in _FROM_STRING:
        return True  # ksqlDB casts string arguments to temporal ('2022-06-14' for a DATE) and BYTES parameters
    return can_implicitly_cast(t, target)


def _struct_fits(t: Struct, target: Struct) -> bool:
    """ksqlDB's ParamTypes.isStructCompatible: the same field names, each field's type fitting without any
    implicit cast (not even in the second pass); an empty struct on either side fits any struct."""
    if not t.fields or not target.fields:
        return True
    if len(t.fields) != len(target.fields):
        return False
    for name, ft in target.fields:
        at = t.field(name)
        if at is None or not _fits(at, ft, False):
            return False
    return True


def _bind(acc: dict[str, list[SqlType]]) -> dict[str, SqlType] | None:
    """One type per variable: every non-NULL candidate must be that very type. Generics never widen, not
    even in the implicit-cast pass (ksqlDB's GenericsUtil reserves a variable by equality), so
    ``COALESCE(INT, BIGINT)`` or ``ARRAY_CONCAT(ARRAY<INT>, ARRAY<BIGINT>)`` fit no overload."""
    binding: dict[str, SqlType] = {}
    for name, types in acc.items():
        first = types[0]
        if any(t != first and not _contains_null(t) and not _contains_null(first) for t in types[1:]):
            return None
        # Prefer the most concrete candidate (an ARRAY<NULL> literal next to an ARRAY<INT>).
        binding[name] = next((t for t in types if not _contains_null(t)), first)
    return binding


def _contains_null(t: SqlType) -> bool:
    if isinstance(t, NullType):
        return True
    if isinstance(t, Array):
        return _contains_null(t.element)
    if isinstance(t, Map):
        return _contains_null(t.key) or _contains_null(t.value)
    return False


def try_overload(
    ov: Overload, arg_types: Sequence[SqlType], cast: bool, with_return: bool = True
) -> Match | None:
    """Match one overload against argument types; None if it does not fit.

    ``with_return=False`` skips computing the return type (a computed return type is only asked of the
    overload finally chosen, so it never sees argument types it was not chosen for, e.g. all NULLs)."""
    n = len(arg_types)
    if not ov.arity_ok(n):
        return None
    acc: dict[str, list[SqlType]] = {}
    for i, t in enumerate(arg_types):
        if not _collect(ov.pattern_at(i, n), t, acc):
            return None
    binding = _bind(acc)
    if binding is None:
        return None
    params: list[SqlType] = []
    for i, t in enumerate(arg_types):
        pt = _param(ov.pattern_at(i, n), t, binding, cast)
        if pt is None:
            return None
        params.append(pt)
    m = Match(ov, params, NULL, binding)
    if with_return:
        m.return_type = _return_type(m)
    return m


def _return_type(m: Match) -> SqlType:
    ov = m.overload
    if ov.return_pattern is not None:
        rt = substitute(ov.return_pattern, m.binding)
        return NULL if rt is None else rt  # e.g. ARRAY_MAX(NULL): nothing to infer T from
    return ov.returns(m.param_types)  # type: ignore[operator,no-any-return]


def _arg_str(t: SqlType) -> str:
    return "null" if isinstance(t, NullType) else str(t)


def args_str(arg_types: Sequence[SqlType]) -> str:
    """Argument types as ksqlDB prints them in resolution errors: ``(INTEGER, null, DECIMAL(5, 1))``."""
    return "(" + ", ".join(_arg_str(t) for t in arg_types) + ")"


def select_overload(name: str, overloads: Sequence[Overload], arg_types: Sequence[SqlType]) -> Match:
    """ksqlDB's overload choice (see module doc). ``name`` is used in error messages as given."""
    for cast in (False, True):
        matches = [m for ov in overloads if (m := try_overload(ov, arg_types, cast, False)) is not None]
        if not matches:
            continue
        matches.sort(key=_rank, reverse=True)
        if len(matches) == 1 or _rank(matches[0]) > _rank(matches[1]):
            best = matches[0]
            best.return_type = _return_type(best)
            return best
        calls = "\n".join(ov.alternative(name) for ov in overloads)
        raise KsqlTypeError(
            f"Function '{name}' cannot be resolved due to ambiguous method parameters {args_str(arg_types)}.\n"
            "Use CAST() to explicitly cast your parameters to one of the supported function calls.\n"
            f"Valid function calls are:\n{calls}\n"
            "For detailed information on a function run: DESCRIBE FUNCTION <Function-Name>;"
        )
    raise no_match(name, overloads, arg_types)


def no_match(name: str, overloads: Sequence[Overload], arg_types: Sequence[SqlType]) -> KsqlTypeError:
    """ksqlDB's UdfIndex error when no overload accepts the arguments, listing every overload."""
    return KsqlTypeError(no_match_message(name, arg_types, [ov.alternative(name) for ov in overloads]))


def no_match_message(name: str, arg_types: Sequence[SqlType], alternatives: Sequence[str]) -> str:
    """The one wording of "no overload fits" for scalar, table and aggregate functions (ksqlDB's UdfIndex
    serves all three): the argument types, then every alternative on its own line."""
    return (f"Function '{name}' does not accept parameters {args_str(arg_types)}.\n"
            "Valid alternatives are:\n" + "\n".join(alternatives) + "\n"
            "For detailed information on a function run: DESCRIBE FUNCTION <Function-Name>;")


def _rank(m: Match) -> tuple[int, int]:
    """ksqlDB's UdfIndex.Node comparator: non-variadic over variadic, then more declared parameters."""
    ov = m.overload
    return (0 if ov.variadic else 1, len(ov.patterns))


# ---------------------------------------------------------------------------------------------------------
# Functions


class SignatureFunction(ScalarFunction):
    """A scalar function defined by overload rows."""

    def __init__(
        self,
        name: str,
        overloads: Sequence[OverloadSpec],
        *,
        category: str = "OTHER",
        description: str = "",
        null_on_null: bool = False,
        deterministic: bool = True,
        display_name: str | None = None,
        author: str = "",
        version: str = "",
        path: str = "internal",
    ) -> None:
        self.name = name.upper()
        self.display_name = display_name if display_name is not None else name.lower()
        self.category = category
        self.description = description
        self.null_on_null = null_on_null
        self.deterministic = deterministic
        self.author, self.version, self.path = author, version, path
        self.overloads = [as_overload(o) for o in overloads]

    def match(self, arg_types: list[SqlType]) -> Match:
        return select_overload(self.display_name, self.overloads, arg_types)

    def resolve(self, arg_types: list[SqlType]) -> Resolved:
        m = self.match(list(arg_types))
        ov = m.overload
        impl = ov.make_impl(m.param_types, m.return_type) if ov.make_impl is not None else ov.impl
        casts = None if list(arg_types) == m.param_types else m.param_types
        return Resolved(
            return_type=m.return_type,
            impl=impl,  # type: ignore[arg-type]
            param_types=casts,
            null_on_null=self.null_on_null if ov.null_on_null is None else ov.null_on_null,
            deterministic=self.deterministic if ov.deterministic is None else ov.deterministic,
            batch_impl=ov.make_batch(m.param_types, m.return_type) if ov.make_batch is not None else None,
        )

    def lambda_params(self, index: int, arg_types: list[SqlType]) -> tuple[SqlType, ...]:
        """Bind variables from the arguments before the lambda, then read the lambda's parameter types."""
        before = list(arg_types[:index])
        for ov in self.overloads:
            if index >= len(ov.patterns) and not ov.variadic:
                continue
            lam = ov.pattern_at(index)
            if not isinstance(lam, LambdaOf):
                continue
            acc: dict[str, list[SqlType]] = {}
            if not all(_collect(ov.pattern_at(i), t, acc) for i, t in enumerate(before)):
                continue
            binding = _bind(acc)
            if binding is None:
                continue
            params = [substitute(p, binding) for p in lam.params]
            return tuple(NULL if p is None else p for p in params)
        raise KsqlTypeError(
            f"Function '{self.display_name}' does not accept a lambda at position {index + 1} "
            f"after parameters {args_str(before)}."
        )

    def signatures(self) -> list[str]:
        return [ov.describe(self.name) for ov in self.overloads]

    def variations(self) -> list[Variation]:
        return [Variation(ov.arguments(), ov.return_text(), ov.description or self.description)
                for ov in self.overloads]


class SignatureTableFunction(SignatureFunction, TableFunction):
    """A table function (UDTF) defined by overload rows; the return type is that of one output row value."""


def udf(
    name: str,
    *,
    overloads: Sequence[OverloadSpec],
    category: str = "OTHER",
    description: str = "",
    null_on_null: bool = False,
    deterministic: bool = True,
    display_name: str | None = None,
) -> SignatureFunction:
    """Declare a scalar function from overload rows (see module doc)."""
    return SignatureFunction(
        name,
        overloads,
        category=category,
        description=description,
        null_on_null=null_on_null,
        deterministic=deterministic,
        display_name=display_name,
    )


def registrar(registry: Any, category: str, *, null_on_null: bool = True) -> Callable[..., None]:
    """The ``add(name, description, overloads, **options)`` a function family's ``register`` uses to
    declare its functions (``null_on_null`` is the family's default)."""

    def add(name: str, description: str, overloads: Sequence[OverloadSpec], **options: Any) -> None:
        options.setdefault("null_on_null", null_on_null)
        registry.register(udf(name, category=category, description=description, overloads=overloads, **options))

    return add


def udtf(
    name: str,
    *,
    overloads: Sequence[OverloadSpec],
    category: str = "TABLE",
    **options: Any,
) -> SignatureTableFunction:
    """Declare a table function: each overload's impl returns a list of output values (options as ``udf``)."""
    return SignatureTableFunction(name, overloads, category=category, **options)


