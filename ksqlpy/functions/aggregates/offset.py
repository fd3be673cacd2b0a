"""EARLIEST_BY_OFFSET and LATEST_BY_OFFSET: values by arrival order."""

from __future__ import annotations

import itertools
import operator
import time
from typing import Any

from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions.aggregates.base import (
    ResolvedUdaf,
    Resolver,
    literal_type,
    reject,
)
from ksqlpy.types import (
    BIGINT,
    INTEGER,
    Array,
    NullType,
    SqlType,
    Struct,
)

# ---------------------------------------------------------------------------------------------------------
# EARLIEST_BY_OFFSET / LATEST_BY_OFFSET

# Arrival order across session merges: a process-wide counter started at the wall clock in ns, so sequence
# numbers stay increasing across restarts (state from an earlier run has smaller ones). Held in a list so
# that ``resync`` can move it on under functions resolved already.
_SEQUENCE = [itertools.count(time.time_ns())]


def resync() -> None:
    """Move this process's sequence past every number another process has taken so far: a process that
    continues state built elsewhere (the streaming query after a Spark backfill, whose workers started their
    counters at their own, later, start) must number the values arriving next above the state's. A counter
    started at the wall clock and taking one number per value never passes the clock, so the clock now
    is past all of them (on one machine, or on clocks kept in step)."""
    _SEQUENCE[0] = itertools.count(max(next(_SEQUENCE[0]), time.time_ns()))


def _offset_literals(name: str, types: list[SqlType], literals: list[Any]) -> tuple[int | None, bool]:
    """(n or None, ignore_nulls) from ``[n] [, ignoreNulls]``."""
    n: int | None = None
    ignore = True
    rest = list(literals)
    if rest and literal_type(rest[0]) == INTEGER:  # n is an INT parameter: a BIGINT literal fits no overload
        n = rest.pop(0)
        if n <= 0:
            # the text of ksqlDB's factory check (latestN / earliestN), after the function it comes from
            which = "latestN" if name.upper() == "LATEST_BY_OFFSET" else "earliestN"
            raise KsqlTypeError(f"Function '{name}': {which} must be 1 or greater")
    if rest and isinstance(rest[0], bool):
        ignore = rest.pop(0)
    if rest:
        raise reject(name, types, literals)
    return n, ignore


def _resolve_by_offset(latest: bool) -> Resolver:
    def resolve(name: str, types: list[SqlType], literals: list[Any], config: dict[str, Any]) -> ResolvedUdaf:
        if len(types) != 1 or isinstance(types[0], NullType):
            raise reject(name, types, literals)
        t = types[0]
        n, ignore = _offset_literals(name, types, literals)
        state = Struct((("SEQ", BIGINT), ("VAL", t)))
        sequence = _SEQUENCE
        if n is None:
            if latest:

                def init() -> Any:
                    return (next(sequence[0]), None)

                def add(acc: Any, v: Any) -> Any:
                    if v is None and ignore:
                        return acc
                    return (next(sequence[0]), v)

                def merge(a: Any, b: Any) -> Any:
                    newer, older = (a, b) if a[0] > b[0] else (b, a)
                    return older if ignore and newer[1] is None else newer

                def result(acc: Any) -> Any:
                    return acc[1]

            else:

                def init() -> Any:
                    return None  # not set yet

                def add(acc: Any, v: Any) -> Any:
                    if acc is not None or (v is None and ignore):
                        return acc
                    return (next(sequence[0]), v)

                def merge(a: Any, b: Any) -> Any:
                    if a is None or b is None:
                        return b if a is None else a
                    return a if a[0] < b[0] else b

                def result(acc: Any) -> Any:
                    return None if acc is None else acc[1]

            return ResolvedUdaf(t, init, add, result, None, merge, state)

        limit = n
        if latest:

            def add_n(acc: list[Any], v: Any) -> list[Any]:
                if v is None and ignore:
                    return acc
                acc.append((next(sequence[0]), v))
                if len(acc) > limit:
                    del acc[0]
                return acc

            def merge_n(a: list[Any], b: list[Any]) -> list[Any]:
                return sorted(a + b)[-limit:] if a or b else []

        else:

            def add_n(acc: list[Any], v: Any) -> list[Any]:
                if len(acc) >= limit or (v is None and ignore):
                    return acc
                acc.append((next(sequence[0]), v))
                return acc

            def merge_n(a: list[Any], b: list[Any]) -> list[Any]:
                return sorted(a + b, key=operator.itemgetter(0))[:limit]

        def result_n(acc: list[Any]) -> list[Any]:
            return [v for _, v in acc]

        return ResolvedUdaf(Array(t), list, add_n, result_n, None, merge_n, Array(state))

    return resolve


def _by_offset_literals(n_args: int) -> int:
    return max(0, n_args - 1)


