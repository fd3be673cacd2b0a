"""Aggregate functions (UDAFs) with ksqlDB's results, behind ``AggregateFunction`` of ``registry.py``.

Accumulator conventions (they live in LMDB state stores and are touched once per record):

* An accumulator is a plain picklable value: a number, ``None``, a tuple, a list or a dict (of such values).
* ``init()`` returns a fresh accumulator. ``add(acc, *values)`` / ``undo(acc, *values)`` get the values of the
  column arguments (never the literal ones) and **may update a list/dict accumulator in place** and return it:
  callers must use the returned value and must not keep using the old one. ``merge(a, b)`` may reuse either.
* ``result(acc)`` never returns an object aliasing the accumulator (lists/dicts are copied), so emitted rows
  are safe from later in-place updates.
* ``undo`` is None for aggregates ksqlDB refuses over a TABLE source (MIN, MAX, TOPK, TOPKDISTINCT, COLLECT_SET,
  COUNT_DISTINCT, EARLIEST/LATEST_BY_OFFSET); ``merge`` is given for every aggregate (session windows).

NULL handling is per aggregate, as in ksqlDB: most skip NULL inputs; COLLECT_LIST/COLLECT_SET keep them;
``LATEST_BY_OFFSET(col, false)`` keeps them; ATTR treats NULL as a value. COUNT() (no argument) counts rows;
COUNT(col) counts non-NULL values. The compiler may pass ``COUNT(*)`` either as no argument or as a non-NULL
constant.

``ResolvedUdaf.intermediate_type`` is ksqlDB's aggregate (state) type. A value format that only holds
primitives (DELIMITED) must reject a query whose aggregates have a non-primitive intermediate type ("One of the
functions used in the statement has an intermediate type that the value format can not handle...").

The families live in modules of this package - ``base`` (the framework and shared helpers), ``basic``
(COUNT, SUM, SUM_LIST, AVG, MIN, MAX), ``collect`` (COLLECT_LIST, COLLECT_SET, HISTOGRAM), ``topk``,
``offset`` (EARLIEST/LATEST_BY_OFFSET), ``stats`` (STDDEV_SAMP, STDDEV_SAMPLE, CORRELATION) and ``distinct``
(ATTR, COUNT_DISTINCT; its sketch in ``ksqlpy.functions.aggregates_sketch``); this module registers them.
"""

from __future__ import annotations

from collections.abc import Sequence

from ksqlpy.functions.aggregates.base import (
    COLLECT_LIST_LIMIT,
    COLLECT_SET_LIMIT,
    ResolvedUdaf,
    Udaf,
    inline,
    literal_type,
    reject,
)
from ksqlpy.functions.aggregates.basic import (
    _resolve_avg,
    _resolve_count,
    _resolve_min_max,
    _resolve_sum,
    _resolve_sum_list,
)
from ksqlpy.functions.aggregates.collect import (
    _resolve_collect_list,
    _resolve_collect_set,
    _resolve_histogram,
)
from ksqlpy.functions.aggregates.distinct import _resolve_attr, _resolve_count_distinct, freeze
from ksqlpy.functions.aggregates.offset import _by_offset_literals, _resolve_by_offset
from ksqlpy.functions.aggregates.stats import _resolve_correlation, _resolve_stddev
from ksqlpy.functions.aggregates.topk import _resolve_topk, _resolve_topk_distinct
from ksqlpy.functions.registry import FunctionRegistry

# ---------------------------------------------------------------------------------------------------------
# Registration

_NUMERIC = ("INT", "BIGINT", "DOUBLE", "DECIMAL")
# the overloads of ksqlDB's annotation-declared numeric UDAFs (from memory of AverageUdaf and
# StandardDeviationSamp(le)Udaf: one @UdafFactory per Integer, Long and Double, none for DECIMAL, whose precision
# an aggregateSchema string cannot name); a DECIMAL argument reaches the DOUBLE one by implicit cast, so it is
# accepted but never listed (DESCRIBE FUNCTION, "Valid alternatives", SHOW FUNCTIONS' docs)
_JAVA_NUMERIC = ("INT", "BIGINT", "DOUBLE")
_ORDERED = ("INT", "BIGINT", "DOUBLE", "DECIMAL", "STRING", "BYTES", "DATE", "TIME", "TIMESTAMP")


def _sigs(name: str, rows: Sequence[tuple[str, str]]) -> list[str]:
    return [f"{name}({params}) -> {ret}" for params, ret in rows]


def _topk_literals(n_args: int) -> int:
    return 1 if n_args >= 2 else 0


BUILTINS: list[Udaf] = [
    Udaf("AVG", _resolve_avg, description="Average of the non-NULL values (0.0 when there are none).",
         signatures=_sigs("AVG", [(f"{t} val", "DOUBLE") for t in _JAVA_NUMERIC])),
    Udaf("COUNT", _resolve_count, description="COUNT(col): non-NULL values; COUNT() / COUNT(*): rows.",
         signatures=["COUNT() -> BIGINT", "COUNT(ANY val) -> BIGINT"]),
    Udaf("COUNT_DISTINCT", _resolve_count_distinct,
         description="Distinct non-NULL values: exact for small sets, HyperLogLog estimate for large ones. "
                     "Values are told apart as ksqlDB hashes them: numbers and strings by value, other "
                     "types by their Java text, so BYTES of one length count once, TIME values in one second "
                     "count once, and an ARRAY, MAP or STRUCT counts by its printed form.",
         signatures=["COUNT_DISTINCT(ANY val) -> BIGINT"]),
    Udaf("SUM", _resolve_sum, description="Sum of the non-NULL values (0 when there are none).",
         signatures=_sigs("SUM", [(f"{t} val", t) for t in _NUMERIC])),
    Udaf("SUM_LIST", _resolve_sum_list, description="Sum of the non-NULL elements of the arrays.",
         signatures=_sigs("SUM_LIST", [(f"ARRAY<{t}> val", t) for t in _JAVA_NUMERIC])),
    Udaf("MIN", _resolve_min_max(False), description="Smallest non-NULL value.",
         signatures=_sigs("MIN", [(f"{t} val", t) for t in _ORDERED])),
    Udaf("MAX", _resolve_min_max(True), description="Largest non-NULL value.",
         signatures=_sigs("MAX", [(f"{t} val", t) for t in _ORDERED])),
    Udaf("COLLECT_LIST", _resolve_collect_list,
         description=f"All values (NULLs too) in arrival order, up to {COLLECT_LIST_LIMIT} if set (negative: no limit).",
         signatures=["COLLECT_LIST(T val) -> ARRAY<T>"]),
    Udaf("COLLECT_SET", _resolve_collect_set,
         description=f"Distinct values (NULL too) in arrival order, up to {COLLECT_SET_LIMIT} if set (negative: no limit).",
         signatures=["COLLECT_SET(T val) -> ARRAY<T>"]),
    Udaf("HISTOGRAM", _resolve_histogram,
         description="Count of each distinct non-NULL string (at most 1000 distinct values are counted).",
         signatures=["HISTOGRAM(STRING val) -> MAP<STRING, BIGINT>"]),
    Udaf("TOPK", _resolve_topk, literals=_topk_literals,
         description="The k largest values, largest first; with other columns, structs of the sort value "
         "(sort_col) and the other columns (col0, col1, ...).",
         signatures=["TOPK(T val, INT k) -> ARRAY<T>",
                     "TOPK(T val1, ANY... val2, INT k) -> ARRAY<STRUCT<sort_col T, col0 ...>>"]),
    Udaf("TOPKDISTINCT", _resolve_topk_distinct, literals=_topk_literals,
         description="The k largest distinct values, largest first.",
         signatures=["TOPKDISTINCT(T val, INT k) -> ARRAY<T>"]),
    Udaf("EARLIEST_BY_OFFSET", _resolve_by_offset(False), literals=_by_offset_literals,
         description="The first value received (or the first n as an array); NULLs ignored unless "
         "ignoreNulls is false.",
         signatures=["EARLIEST_BY_OFFSET(T val [, BOOLEAN ignoreNulls]) -> T",
                     "EARLIEST_BY_OFFSET(T val, INT earliestN [, BOOLEAN ignoreNulls]) -> ARRAY<T>"]),
    Udaf("LATEST_BY_OFFSET", _resolve_by_offset(True), literals=_by_offset_literals,
         description="The last value received (or the last n as an array); NULLs ignored unless "
         "ignoreNulls is false.",
         signatures=["LATEST_BY_OFFSET(T val [, BOOLEAN ignoreNulls]) -> T",
                     "LATEST_BY_OFFSET(T val, INT latestN [, BOOLEAN ignoreNulls]) -> ARRAY<T>"]),
    Udaf("STDDEV_SAMP", _resolve_stddev(False),
         description="Sample variance of the non-NULL values (ksqlDB's STDDEV_SAMP returns the variance). "
                     "Over INT or BIGINT the running sum is kept in that type and wraps on overflow, as ksqlDB's.",
         signatures=_sigs("STDDEV_SAMP", [(f"{t} val", "DOUBLE") for t in _JAVA_NUMERIC])),
    Udaf("STDDEV_SAMPLE", _resolve_stddev(True),
         description="Sample standard deviation of the non-NULL values. Over INT or BIGINT the running sum is kept "
                     "in that type and wraps on overflow, as ksqlDB's; the square root of a variance that undoing table rows "
                     "left below zero (floating-point cancellation) is NaN, as Java's Math.sqrt.",
         signatures=_sigs("STDDEV_SAMPLE", [(f"{t} val", "DOUBLE") for t in _JAVA_NUMERIC])),
    Udaf("CORRELATION", _resolve_correlation,
         description="Pearson correlation of the pairs where both values are non-NULL.",
         signatures=["CORRELATION(DOUBLE val1, DOUBLE val2) -> DOUBLE"]),
    Udaf("ATTR", _resolve_attr, description="The value if every row has the same one (NULL included), else NULL.",
         signatures=["ATTR(T val) -> T"]),
]  # fmt: skip


def register(registry: FunctionRegistry) -> None:
    """Add the built-in aggregate functions to ``registry``."""
    for fn in BUILTINS:
        registry.register(fn)


__all__ = [
    "BUILTINS",
    "COLLECT_LIST_LIMIT",
    "COLLECT_SET_LIMIT",
    "ResolvedUdaf",
    "Udaf",
    "freeze",
    "inline",
    "literal_type",
    "register",
    "reject",
]
