"""Combining a batch's grouped items per key before the repartition topic (local-global aggregation).

A GROUP BY on something other than the source key writes every record to the repartition topic and
aggregates it on the other side (``runtime.repartition``). When the record cache is on, only each key's
last update of a batch goes out anyway (``runtime.record_cache``), so the first sub-topology may fold a
batch's items per group key into one partial state record (``Accumulators.new`` + ``add``, in record
order) and send that; the aggregating side merges it into the stored state (``Accumulators.merge``). The
final state and the updates the cache lets out are those of the records one by one - the topic carries
one record per key and batch instead of one per input record (Flink's local-global aggregation).

Only where that holds exactly: a stream (not a table's retractions), no window (windows are assigned from
each record's time on the other side), the record cache on, and every aggregate ``order_free`` with a
``merge`` (COUNT, integer SUM and AVG, MIN/MAX of non-floating types - their result does not depend on how
the records are grouped into partials).

A partial travels as the item ``(key, None, partial state, max timestamp, last headers)``; a plain item is
``(key, args, timestamp, headers)`` (the repartition value is private to the query: both are pickled).
"""

from __future__ import annotations

from typing import Any

from ksqlpy.codegen_cache import compiled
from ksqlpy.plan.topology import AggregateStage, GroupStage
from ksqlpy.runtime.accumulate import KEY, TS, Accumulators
from ksqlpy.runtime.aggregator import AggregateSpec, encode_key
from ksqlpy.types import DOUBLE, Primitive, SqlType

PARTIAL_ITEM = 5  # the length of a partial item, as read back (a plain one has 4)


def combinable(group: GroupStage, agg: AggregateStage, spec: AggregateSpec) -> bool:
    """Whether the repartitioned items of ``agg`` may be combined per key and batch (see the module)."""
    return (not group.table and not agg.table and agg.window is None and spec.cache_entries > 0
            and all(getattr(r, "order_free", False) and r.merge is not None for r in spec.accs.resolved))


def _plain(t: SqlType) -> bool:
    """A key column whose Python values are equal exactly when its store bytes are (not DOUBLE: 0.0 and
    -0.0; not DECIMAL or a nested type)."""
    return isinstance(t, Primitive) and t != DOUBLE


class Combiner:
    """``(items) -> items``: a batch's plain items folded into one partial item per group key, in the
    order of each key's last item (the order the record cache lets the updates out). The fold is one
    generated loop with the aggregates' ``add`` written out where they have an inline form (as the
    aggregating side's loop, ``runtime.agg_loop``)."""

    def __init__(self, accs: Accumulators, key_columns: list[tuple[str, SqlType]]) -> None:
        # keys that may be equal in Python but distinct groups in the store are told apart by their bytes
        by_bytes = not all(_plain(t) for _, t in key_columns)
        ns: dict[str, Any] = {"q_new": accs.new, "q_encode": encode_key}
        lines = [
            "def q_fold(q_items, q_parts, q_last):",
            "    for q_i, (q_key, q_a, q_ts, q_hd) in enumerate(q_items):",
            f"        q_k = {'q_encode(q_key)' if by_bytes else 'q_key'}",
            "        q_rec = q_parts.get(q_k)",
            "        if q_rec is None:",
            "            q_rec = q_parts[q_k] = q_new(q_key, q_ts)",
            # a failing aggregate function is not caught: it stops the task, as on the other side
            *accs.inline_add("q_rec", "q_a", ns, "        "),
            "        if q_ts > q_rec[0]:",
            "            q_rec[0] = q_ts",
            "        q_last[q_k] = (q_i, q_hd)",
        ]
        exec(compiled("\n".join(lines), "<ksqlpy-combine>"), ns)  # noqa: S102 - from resolved UDAFs
        self._fold = ns["q_fold"]

    def __call__(self, items: list[tuple]) -> list[tuple]:
        parts: dict[Any, list[Any]] = {}
        last: dict[Any, tuple[int, Any]] = {}
        try:
            self._fold(items, parts, last)
        except TypeError:
            # an unhashable key value (only with plain key types, so never expected): the batch goes as it
            # is - unless the TypeError came from an aggregate function, which the plain path raises again
            if all(_hashable(item[0]) for item in items):
                raise
            return items
        order = sorted(parts, key=lambda k: last[k][0])
        return [(parts[k][KEY], None, parts[k], parts[k][TS], last[k][1]) for k in order]


def _hashable(key: tuple) -> bool:
    try:
        hash(key)
    except TypeError:
        return False
    return True
