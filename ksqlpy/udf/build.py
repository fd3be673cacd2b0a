"""Declarations -> the registry's function objects.

Scalar and table functions become ``SignatureFunction`` overload rows (resolution, widening and the error
texts are the built-ins' own, ``ksqlpy.functions.signatures``); an aggregate becomes a ``UserAggregate``
whose overloads are resolved over the column *and* literal arguments together, as ksqlDB's UdfIndex does
for UDAFs. Each resolved call gets an adapter converting values for the concrete types
(``ksqlpy.udf.values``); where nothing needs converting, the user's function is called directly.
"""

from __future__ import annotations

import copy
import decimal
import inspect
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ksqlpy import types as T
from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions.aggregates.base import CANNOT_INFER_NULL, ResolvedUdaf, literal_type
from ksqlpy.functions.patterns import Pattern, substitute
from ksqlpy.functions.registry import AggregateFunction, FunctionInfo, ResolvedAggregate, Variation
from ksqlpy.functions.signatures import (
    Overload,
    Params,
    SignatureFunction,
    SignatureTableFunction,
    select_overload,
)
from ksqlpy.grammar import parse_type
from ksqlpy.udf.batch import batch_adapter
from ksqlpy.udf.declare import Declaration, Kind, TypeSpec
from ksqlpy.udf.type_mapping import AnnotationError, concrete, pattern_of, sql_pattern, unwrap, variables
from ksqlpy.udf.values import Convert, from_python, to_python


class DeclarationError(ValueError):
    """A declaration that cannot become a function; the loader adds the file or package."""


@dataclass(frozen=True)
class Param:
    name: str
    pattern: Pattern
    annotation: Any
    doc: str = ""


@dataclass(frozen=True)
class Signature:
    """The SQL side of a Python signature: parameters (the variadic one last when ``variadic``)."""

    params: tuple[Param, ...]
    variadic: bool = False

    def as_params(self) -> Params:
        return Params(tuple(p.pattern for p in self.params), self.variadic, tuple(p.name for p in self.params),
                      tuple(p.doc for p in self.params))

    def annotation_at(self, i: int) -> Any:
        if self.variadic and i >= len(self.params) - 1:
            return self.params[-1].annotation
        return self.params[i].annotation


def build(decls: Sequence[Declaration], path: str) -> list[FunctionInfo]:
    """The functions declared by ``decls`` (one per name; several declarations of a name are overloads)."""
    by_name: dict[str, list[Declaration]] = {}
    for d in decls:
        by_name.setdefault(d.name.upper(), []).append(d)
    out: list[FunctionInfo] = []
    for name, group in by_name.items():
        kinds = {d.kind for d in group}
        if len(kinds) > 1:
            raise DeclarationError(f"function {name} is declared as more than one kind "
                                   f"({', '.join(sorted(k.value for k in kinds))})")
        kind = group[0].kind
        if kind is Kind.AGGREGATE:
            out.append(UserAggregate(group, path))
        else:
            overloads = [_scalar_overload(d) for d in group]
            _check_distinct(name, overloads)
            cls = SignatureTableFunction if kind is Kind.TABLE else SignatureFunction
            first = group[0]
            out.append(cls(first.name, overloads, category=first.category,
                           description=next((d.description for d in group if d.description), ""),
                           display_name=first.name, author=first.author, version=first.version, path=path,
                           deterministic=all(d.deterministic for d in group)))
    return out


# ------------------------------------------------------------------------------------------------ scalar
def _scalar_overload(d: Declaration) -> Overload:
    fn = d.target
    where = f"{'UDTF' if d.kind is Kind.TABLE else 'UDF'} {d.name} ({_qualname(fn)})"
    ns = getattr(fn, "__globals__", {})
    sig = _signature(fn, where)
    params = _params(list(sig.parameters.values()), ns, d, where, allow_after_variadic=False)
    ret_ann = sig.return_annotation
    if d.kind is Kind.TABLE:
        ret_ann = _row_annotation(ret_ann, ns, d, where)
    returns, returns_doc = _returns(d.returns, ret_ann, ns, params, where)

    def convert_args(types: list[T.SqlType]) -> list[Convert | None]:
        return [to_python(t, params.annotation_at(i), ns) for i, t in enumerate(types)]

    if d.vectorized:
        if params.variadic:
            raise DeclarationError(f"{where}: a vectorized function cannot take *args")
        names = [p.name for p in params.params]

        def forms(types: list[T.SqlType], rt: T.SqlType) -> tuple[Callable[..., list[Any]], Callable[..., Any]]:
            target = _exact_decimals(fn) if any(map(_has_decimal, [*types, rt])) else fn
            return batch_adapter(target, d.name, d.vectorized, types, names, convert_args(types),
                                 from_python(rt, ret_ann, ns))

        return Overload(params.as_params(), returns, make_impl=lambda ts, rt: forms(ts, rt)[1],
                        make_batch=lambda ts, rt: forms(ts, rt)[0],
                        deterministic=d.deterministic, returns_doc=returns_doc, description=d.description)

    def make_impl(types: list[T.SqlType], rt: T.SqlType) -> Callable[..., Any]:
        args = convert_args(types)
        result = from_python(rt, ret_ann, ns)
        target = _exact_decimals(fn) if any(map(_has_decimal, [*types, rt])) else fn
        if d.kind is Kind.TABLE:
            return _rows_adapter(target, args, result)
        return _adapter(target, args, result)

    return Overload(params.as_params(), returns, make_impl=make_impl, deterministic=d.deterministic,
                    returns_doc=returns_doc, description=d.description)


# Java's BigDecimal adds, subtracts and multiplies exactly at any precision; Python's default decimal
# context keeps 28 digits. A function that takes or returns a DECIMAL runs in this one.
_WIDE_DECIMALS = decimal.Context(prec=1000, rounding=decimal.ROUND_HALF_UP)


def _has_decimal(t: T.SqlType) -> bool:
    return T.holds(t, lambda x: isinstance(x, T.Decimal))


def _exact_decimals(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` run in a decimal context wide enough for any DECIMAL (a DECIMAL(38, s) sum stays exact)."""

    def call(*a: Any) -> Any:
        with decimal.localcontext(_WIDE_DECIMALS):
            return fn(*a)

    return call


def _adapter(fn: Callable[..., Any], args: list[Convert | None], result: Convert | None) -> Callable[..., Any]:
    """``fn`` with its arguments and result converted, as one generated function of the call's arity (a
    generic ``*args`` wrapper costs several times the call itself); ``fn`` itself when nothing converts."""
    if not any(args) and result is None:
        return fn
    ns: dict[str, Any] = {"fn": fn, "out": result, "float": float}
    params = [f"a{i}" for i in range(len(args))]
    for i, c in enumerate(args):
        ns[f"c{i}"] = c
    call = f"fn({', '.join(f'c{i}({p})' if c else p for i, (p, c) in enumerate(zip(params, args, strict=True)))})"
    if result is None:
        body = call
    elif getattr(result, "to_double", False):  # the common DOUBLE result, inline: no call when it is a float
        body = f"(r if (r := {call}).__class__ is float or r is None else float(r))"
    else:
        body = f"out({call})"
    exec(f"def call({', '.join(params)}):\n    return {body}\n", ns)  # noqa: S102 - from our template
    return ns["call"]  # type: ignore[no-any-return]


def _rows_adapter(fn: Callable[..., Any], args: list[Convert | None], result: Convert | None) -> Callable[..., Any]:
    call = _adapter(fn, args, None)

    def rows(*a: Any) -> list[Any]:
        got = call(*a)
        if got is None:
            return []
        return [result(x) for x in got] if result is not None else list(got)

    return rows


def _row_annotation(ann: Any, ns: Mapping[str, Any], d: Declaration, where: str) -> Any:
    """A UDTF's result annotation ``list[X]`` -> ``X`` (what one output row holds)."""
    if ann is inspect.Signature.empty:
        return ann
    base, _ = unwrap(ann, ns)
    origin, args = typing.get_origin(base), typing.get_args(base)
    if origin in (list, tuple) or (origin is not None and getattr(origin, "__name__", "") in (
            "Sequence", "Iterable", "Iterator", "Generator")):
        if args:
            return args[0]
    if d.returns is not None:
        return None
    raise DeclarationError(f"{where}: a table function returns a list: annotate the result as list[T] "
                           f"(got {base!r})")


def _returns(spec: TypeSpec, ann: Any, ns: Mapping[str, Any], params: Signature,
             where: str) -> tuple[Pattern | Callable[[list[T.SqlType]], T.SqlType], str | None]:
    """The overload's return: a pattern (from ``returns`` or the annotation) or a provider."""
    if _is_provider(spec):
        return _provider(spec, where), "provided by the function"  # type: ignore[arg-type]
    try:
        if isinstance(spec, str):
            pattern = sql_pattern(spec)
        elif spec is not None:  # an annotation given as the type: sql.INT, list[int], a dataclass...
            pattern = pattern_of(spec, ns, result=True)
        elif ann is inspect.Signature.empty or ann is None:
            raise DeclarationError(f"{where}: the result has no type annotation (or give returns=...)")
        else:
            pattern = pattern_of(ann, ns, result=True)
    except AnnotationError as e:
        raise DeclarationError(f"{where}: result: {e}") from None
    unbound = variables(pattern) - set().union(*(variables(p.pattern) for p in params.params))
    if unbound:
        raise DeclarationError(f"{where}: the result's type variable(s) {', '.join(sorted(unbound))} do not "
                               "appear in the parameters (give a return-type provider instead)")
    if not concrete(pattern) and not variables(pattern):
        raise DeclarationError(f"{where}: the result type {pattern} is not one SQL type")
    return pattern, None


def _is_provider(spec: Any) -> bool:
    """A return-type provider is a plain function; a type, a generic alias or ``Annotated`` is a type."""
    return (callable(spec) and not isinstance(spec, type | typing.TypeVar)
            and typing.get_origin(spec) is None)


def _provider(spec: Callable[..., Any], where: str) -> Callable[[list[T.SqlType]], T.SqlType]:
    """ksqlDB's schema provider: called with the argument types of a call, returns its result type."""

    def provide(types: list[T.SqlType]) -> T.SqlType:
        try:
            got = spec(list(types))
            t = parse_type(got) if isinstance(got, str) else got
        except Exception as e:  # noqa: BLE001 - the user's provider: its failure is the statement's error
            raise KsqlTypeError(f"{where}: the return-type provider failed for {_types(types)}: {e}") from None
        if not isinstance(t, T.SqlType) or isinstance(t, T.NullType | T.LambdaType):
            raise KsqlTypeError(f"{where}: the return-type provider returned {got!r} for {_types(types)}, "
                                "not a SQL type")
        return t

    return provide


# ------------------------------------------------------------------------------------------------ params
def _signature(fn: Any, where: str) -> inspect.Signature:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError) as e:
        raise DeclarationError(f"{where}: cannot read its signature: {e}") from None


def _params(ps: list[inspect.Parameter], ns: Mapping[str, Any], d: Declaration, where: str, *,
            allow_after_variadic: bool) -> Signature:
    out: list[Param] = []
    variadic = False
    for p in ps:
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            raise DeclarationError(f"{where}: **{p.name} is not allowed (SQL arguments are positional)")
        if p.kind is inspect.Parameter.KEYWORD_ONLY:
            if allow_after_variadic:
                continue
            raise DeclarationError(f"{where}: parameter {p.name!r} follows *args; a function's variadic "
                                   "parameter must be its last")
        if p.annotation is inspect.Parameter.empty:
            raise DeclarationError(f"{where}: parameter {p.name!r} has no type annotation")
        try:
            pattern = pattern_of(p.annotation, ns)
            doc = d.params.get(p.name) or unwrap(p.annotation, ns)[1]
        except AnnotationError as e:
            raise DeclarationError(f"{where}: parameter {p.name!r}: {e}") from None
        out.append(Param(p.name, pattern, p.annotation, doc))
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            variadic = True
    return Signature(tuple(out), variadic)


def _check_distinct(name: str, overloads: list[Overload]) -> None:
    seen: dict[tuple[str, ...], int] = {}
    for i, ov in enumerate(overloads):
        key = tuple(str(p) for p in ov.patterns) + (("...",) if ov.variadic else ())
        if key in seen:
            raise DeclarationError(f"function {name} declares the parameters ({', '.join(key)}) twice")
        seen[key] = i


# ------------------------------------------------------------------------------------------------ aggregate
@dataclass(frozen=True)
class _UdafShape:
    """One aggregate overload: its class, column and literal parameters, and how to call it."""

    decl: Declaration
    columns: Signature
    literals: Signature
    acc_keyword: str | None  # the aggregate parameter's name when it is keyword-only (after *args)
    aggregate_type: Pattern | Callable[[list[T.SqlType]], T.SqlType]
    returns: Pattern | Callable[[list[T.SqlType]], T.SqlType]
    acc_annotation: Any
    result_annotation: Any
    namespace: Mapping[str, Any]


class UserAggregate(AggregateFunction):
    """A ``@udaf`` function: overloads resolved over (column arguments + literal arguments) together."""

    def __init__(self, decls: Sequence[Declaration], path: str) -> None:
        first = decls[0]
        self.name = first.name.upper()
        self.display_name = first.name
        self.description = next((d.description for d in decls if d.description), "")
        self.author, self.version, self.path = first.author, first.version, path
        self.shapes = [_udaf_shape(d) for d in decls]
        self.overloads = [_combined_overload(s) for s in self.shapes]
        _check_distinct(self.name, self.overloads)

    def _match(self, arg_types: list[T.SqlType]) -> tuple[_UdafShape, Any]:
        m = select_overload(self.display_name, self.overloads, arg_types)
        return self.shapes[self.overloads.index(m.overload)], m

    def init_arg_count(self, arg_types: list[T.SqlType]) -> int:
        shape, _ = self._match(list(arg_types))
        if shape.literals.variadic:
            return len(arg_types) - len(shape.columns.params)
        return len(shape.literals.params)

    def literal_arg_count(self, n_args: int) -> int:
        """Without argument types: the literal count all overloads agree on for ``n_args`` arguments."""
        counts = {n_args - len(s.columns.params) if s.literals.variadic else len(s.literals.params)
                  for s in self.shapes}
        return counts.pop() if len(counts) == 1 else 0

    def resolve(self, arg_types: list[T.SqlType], literals: list[Any], config: dict[str, Any]) -> ResolvedAggregate:
        all_types = list(arg_types) + [literal_type(v) for v in literals]
        shape, m = self._match(all_types)
        n_cols = len(arg_types)
        col_types, lit_types = m.param_types[:n_cols], m.param_types[n_cols:]
        ns = shape.namespace
        lit_values = [(c(v) if (c := to_python(t, shape.literals.annotation_at(i), ns)) else v)
                      for i, (t, v) in enumerate(zip(lit_types, literals, strict=True))]
        cls = shape.decl.target
        try:
            instance = cls(*lit_values)
            if hasattr(instance, "configure"):
                instance.configure(_function_config(self.name, config))
        except Exception as e:  # noqa: BLE001 - the user's constructor: the statement's error
            raise KsqlTypeError(f"Failed to create aggregate function {self.display_name}: "
                                f"{type(e).__name__}: {e}") from None
        agg_type = _concrete(shape.aggregate_type, m.binding, all_types, self.display_name, "aggregate")
        ret_type = _concrete(shape.returns, m.binding, all_types, self.display_name, "result")
        return _resolved(instance, shape, col_types, agg_type, ret_type)

    def signatures(self) -> list[str]:
        return [ov.describe(self.name) for ov in self.overloads]

    def variations(self) -> list[Variation]:
        return [Variation(ov.arguments(), ov.return_text(), ov.description) for ov in self.overloads]


def _combined_overload(s: _UdafShape) -> Overload:
    """The overload a call is resolved against: the column parameters, then the literal ones."""
    params = s.columns.params + s.literals.params
    at = (len(s.columns.params) - 1 if s.columns.variadic
          else len(params) - 1 if s.literals.variadic else None)
    return Overload(Params(tuple(p.pattern for p in params), at is not None, tuple(p.name for p in params),
                           tuple(p.doc for p in params), at),
                    s.returns, impl=_unused, description=s.decl.description,
                    returns_doc=None if isinstance(s.returns, Pattern) else "provided by the function")


def _unused(*_: Any) -> Any:  # pragma: no cover - aggregates are called through ResolvedUdaf
    raise RuntimeError("an aggregate overload is not called as a scalar function")


def _udaf_shape(d: Declaration) -> _UdafShape:
    cls = d.target
    where = f"UDAF {d.name} ({_qualname(cls)})"
    for method in ("initialize", "aggregate", "merge", "map"):
        if not callable(getattr(cls, method, None)):
            raise DeclarationError(f"{where}: the class has no {method}() method (a UDAF has initialize, "
                                   "aggregate, merge, map and optionally undo)")
    agg = cls.aggregate
    ns = getattr(agg, "__globals__", {})
    agg_params = list(_signature(agg, where).parameters.values())[1:]  # self
    positional = [p for p in agg_params if p.kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                        inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                        inspect.Parameter.VAR_POSITIONAL)]
    keyword = [p for p in agg_params if p.kind is inspect.Parameter.KEYWORD_ONLY]
    if len(keyword) > 1 or (keyword and keyword[0] is not agg_params[-1]):
        raise DeclarationError(f"{where}: aggregate() takes the column values, then the aggregate")
    if keyword:
        acc, columns, acc_keyword = keyword[0], positional, keyword[0].name
    else:
        if not positional or positional[-1].kind is inspect.Parameter.VAR_POSITIONAL:
            raise DeclarationError(f"{where}: aggregate() takes the column values, then the aggregate "
                                   "(after *args, as a keyword-only parameter)")
        acc, columns, acc_keyword = positional[-1], positional[:-1], None
    cols = _params(columns, ns, d, where, allow_after_variadic=False)
    init = cls.__init__
    lits = Signature(())
    if init is not object.__init__:
        init_params = list(_signature(init, where).parameters.values())[1:]
        lits = _params(init_params, getattr(init, "__globals__", ns), d, f"{where} literal parameters",
                       allow_after_variadic=False)
    if cols.variadic and lits.variadic:
        raise DeclarationError(f"{where}: the column and the literal parameters cannot both be variadic")
    init_ann = _return_annotation(cls.initialize, where)
    map_ann = _return_annotation(cls.map, where)
    both = Signature(cols.params + lits.params)
    agg_type, _ = _returns(d.aggregate, init_ann if init_ann is not None else acc.annotation, ns, both,
                           f"{where} aggregate type")
    returns, _ = _returns(d.returns, map_ann, ns, both, where)
    return _UdafShape(d, cols, lits, acc_keyword, agg_type, returns,
                      init_ann if init_ann is not None else acc.annotation, map_ann, ns)


def _return_annotation(method: Any, where: str) -> Any:
    ann = _signature(method, where).return_annotation
    return None if ann is inspect.Signature.empty else ann


def _concrete(spec: Pattern | Callable[[list[T.SqlType]], T.SqlType], binding: dict[str, T.SqlType],
              types: list[T.SqlType], name: str, what: str) -> T.SqlType:
    if not isinstance(spec, Pattern):
        return spec(types)
    t = substitute(spec, binding)
    if t is None:
        if any(isinstance(x, T.NullType) for x in types):  # only a NULL could have bound it: as the built-ins say
            raise KsqlTypeError(CANNOT_INFER_NULL)
        raise KsqlTypeError(f"Function '{name}': cannot infer its {what} type from the arguments {_types(types)}")
    return t


def _resolved(instance: Any, shape: _UdafShape, col_types: list[T.SqlType], agg_type: T.SqlType,
              ret_type: T.SqlType) -> ResolvedUdaf:
    ns = shape.namespace
    values = [to_python(t, shape.columns.annotation_at(i), ns) for i, t in enumerate(col_types)]
    to_acc = to_python(agg_type, shape.acc_annotation, ns) or _same
    from_acc = from_python(agg_type, shape.acc_annotation, ns) or _same
    result = from_python(ret_type, shape.result_annotation, ns) or _same
    convs = [c or _same for c in values]
    plain = not any(values)
    keyword = shape.acc_keyword
    container = isinstance(ret_type, T.Array | T.Map | T.Struct)

    def call(method: Callable[..., Any]) -> Callable[..., Any]:
        if keyword is None:
            if plain and to_acc is _same and from_acc is _same:
                return lambda acc, *vals: method(*vals, acc)
            return lambda acc, *vals: from_acc(method(*[c(v) for c, v in zip(convs, vals, strict=True)],
                                                      to_acc(acc)))
        return lambda acc, *vals: from_acc(method(*[c(v) for c, v in zip(convs, vals, strict=True)],
                                                  **{keyword: to_acc(acc)}))

    def init() -> Any:
        return from_acc(instance.initialize())

    def merge(a: Any, b: Any) -> Any:
        return from_acc(instance.merge(to_acc(a), to_acc(b)))

    def final(acc: Any) -> Any:
        out = result(instance.map(to_acc(acc)))
        return copy.deepcopy(out) if (container and out is acc) else out  # an emitted row must not alias state

    undo = call(instance.undo) if callable(getattr(instance, "undo", None)) else None
    return ResolvedUdaf(ret_type, init, call(instance.aggregate), final, undo, merge, agg_type)


def _function_config(name: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """What ksqlDB gives a Configurable function: ``ksql.functions.<name>.*`` and ``ksql.functions._global_.*``."""
    own, common = f"ksql.functions.{name.lower()}.", "ksql.functions._global_."
    return {k: v for k, v in config.items() if k.lower().startswith(own) or k.startswith(common)}


def _types(types: Sequence[T.SqlType]) -> str:
    return "(" + ", ".join(str(t) for t in types) + ")"


def _qualname(obj: Any) -> str:
    """The Python name of the decorated object (the loader's message names its file or package)."""
    return str(getattr(obj, "__qualname__", repr(obj)))


def _same(v: Any) -> Any:
    return v


__all__ = ["DeclarationError", "UserAggregate", "build"]
