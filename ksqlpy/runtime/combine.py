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

from ksqlpy.plan.topology import AggregateStage, GroupStage
from ksqlpy.runtime.accumulate import TS, Accumulators
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
    order of each key's last item (the order the record cache lets the updates out)."""

    def __init__(self, accs: Accumulators, key_columns: list[tuple[str, SqlType]]) -> None:
        self.new, self.add = accs.new, accs.add
        # keys that may be equal in Python but distinct groups in the store are told apart by their bytes
        self.by_bytes = not all(_plain(t) for _, t in key_columns)

    def __call__(self, items: list[tuple]) -> list[tuple]:
        new, add, by_bytes = self.new, self.add, self.by_bytes
        parts: dict[Any, list[Any]] = {}
        last: dict[Any, tuple[int, Any]] = {}
        for i, (key, args, ts, hd) in enumerate(items):
            k = encode_key(key) if by_bytes else key
            try:
                rec = parts.get(k)
            except TypeError:  # an unhashable key value (STRUCT, ARRAY, MAP): this batch goes as it is
                return items
            if rec is None:
                rec = parts[k] = new(key, ts)
            add(rec, args, ts)  # a failing aggregate function stops the task, as on the other side
            last[k] = (i, hd)
        order = sorted(parts, key=lambda k: last[k][0])
        return [(parts[k][1], None, parts[k], parts[k][TS], last[k][1]) for k in order]
