"""A built-in aggregate's documented signatures as the overload rows scalar functions are resolved over, so a
call ksqlDB's UdfIndex decides by its overloads alone - one with a NULL argument - is decided by the one
implementation of those rules (``functions.signatures.select_overload``).

ksqlDB serves aggregate functions from the same UdfIndex as scalar and table functions (from memory of
UdafAggregateFunctionFactory, which holds a ``UdfIndex<UdafFactoryInvoker>``); reference rules 2.8: a NULL
argument fits any parameter, the best candidate wins and a tie is "ambiguous method parameters". So
``SUM(NULL)`` fits SUM's INT, BIGINT, DOUBLE and DECIMAL overloads alike and is ambiguous; ``HISTOGRAM(NULL)``
fits its one STRING overload; ``COLLECT_LIST(NULL)`` fits ``COLLECT_LIST(T)`` with nothing to infer ``T``
from, so its result has no type.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from ksqlpy.functions.patterns import Pattern, Var, parse_pattern
from ksqlpy.functions.signatures import Overload, Params
from ksqlpy.types import NULL, STRING, NullType, SqlType


def _unused(*args: Any) -> Any:  # pragma: no cover - the rows only choose; the family resolver builds the aggregate
    raise NotImplementedError


def _undeclared_return(patterns: Sequence[Pattern], text: str) -> Callable[[list[SqlType]], SqlType]:
    """A documented return type the signature language cannot spell (TOPK's struct of the sort column and the
    other columns): typeless when a type variable it names was bound by nothing (its argument's type is NULL,
    as a NULL literal leaves it), else taken as known - the family resolver builds it."""
    named = set(re.findall(r"\b[A-Z]\d*\b", text))
    at = [i for i, p in enumerate(patterns) if isinstance(p, Var) and p.name in named]

    def returns(param_types: list[SqlType]) -> SqlType:
        return NULL if any(isinstance(param_types[i], NullType) for i in at if i < len(param_types)) else STRING

    return returns


def declared_overloads(name: str, signatures: Sequence[str]) -> list[Overload]:
    """One row per overload of ``signatures`` (``NAME(T val [, BOOLEAN b]) -> R``, the optional part both
    ways), parameter names kept for the resolution messages."""
    rows = []
    for sig in overloads(signatures):
        call, _, returns = sig.partition(" -> ")
        params = [type_and_name(p) for p in split_params(call.strip()[len(name) + 1:-1])]
        variadic_at = next((i for i, (t, _n) in enumerate(params) if t.endswith("...")), None)
        patterns = tuple(parse_pattern(t.removesuffix("...")) for t, _n in params)
        names = tuple(n for _t, n in params)
        try:
            ret: Any = parse_pattern(returns.strip())
        except ValueError:
            ret = _undeclared_return(patterns, returns)
        rows.append(Overload(Params(patterns, variadic_at is not None, names, variadic_at=variadic_at), ret,
                             _unused))
    return rows


def overloads(signatures: Sequence[str]) -> list[str]:
    """The overloads of documented signatures (``NAME(T val [, BOOLEAN b]) -> R``), an optional trailing
    part written out both ways: ksqlDB declares one ``@UdafFactory`` per form, and lists each."""
    out: list[str] = []
    for sig in signatures:
        call, arrow, returns = sig.partition(" -> ")
        call = call.strip()
        name, params = call[:-1].split("(", 1)
        forms = [params]
        if params.endswith("]") and " [" in params:
            required, optional = params[:-1].split(" [", 1)
            forms = [required, required + optional]
        out += [f"{name}({f}){arrow}{returns}" for f in forms]
    return out


def split_params(text: str) -> list[str]:
    """Parameters at the top level of a documented list (``MAP<K, V>`` and ``STRUCT<...>`` kept whole)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def type_and_name(param: str) -> tuple[str, str]:
    """``BOOLEAN ignoreNulls`` -> (type, name); a bare type has no name."""
    head, _, last = param.rpartition(" ")
    if head and ">" not in last and last[:1].islower():
        return head, last
    return param, ""
