"""Stream-table join (INNER, LEFT), with Kafka Streams' KStreamKTableJoin semantics.

Table records only update the materialized table (they never produce output); a stream record looks
its key up in the table as of its processing and, if found (or for LEFT joins, always), produces one
joined row carrying the stream record's timestamp. Stream records with a NULL value are skipped; one with a
NULL key (a null Kafka key, or a NULL join expression) is skipped by an INNER join and, in a LEFT join,
joined with no table row under a null key (Kafka Streams' KIP-962).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ksqlpy.runtime.join_rows import kept
from ksqlpy.runtime.join_store import TableStore
from ksqlpy.runtime.processor import BaseOperator

Emit = Callable[[Any, Any, Any, int, Any], None]
_UNSEEN = object()


# key types whose values are equal exactly when their encoded bytes are (not DOUBLE: 0.0 == -0.0; not
# DECIMAL: 1.0 == 1.00; nothing structured: unhashable)
EXACT_KEY_TYPES = frozenset({"INTEGER", "BIGINT", "STRING", "BOOLEAN"})


def exact_key_types(types: list[Any]) -> bool:
    """Whether keys of ``types`` are equal exactly when their bytes are (``StreamTableJoin``'s memo)."""
    return bool(types) and all(getattr(t, "name", None) in EXACT_KEY_TYPES for t in types)


class StreamTableJoin(BaseOperator):
    def __init__(self, kind: str, table: TableStore, emit: Emit, right_width: int,
                 key_bytes: Callable[[tuple], bytes], keep_right: Callable[[tuple], bool] | None = None,
                 exact_keys: bool = False) -> None:
        """``keep_right`` (INNER joins): a found table row failing it is not joined - the WHERE after the join
        would drop the row (``plan.join_prefilter.table_prefilter``). ``exact_keys``: two keys are equal
        exactly when their bytes are (``exact_key_types``), so the rows a batch's stream records join are
        remembered by key rather than by key bytes - a repeated key is not encoded again."""
        assert keep_right is None or kind == "INNER"
        self.keep_right = keep_right
        self.left_join = kind == "LEFT"
        self.table = table
        self.emit = emit
        self.rnull = (None,) * right_width
        self.key_bytes = key_bytes
        # key bytes -> the table row a stream record with that key joins (None: none), as looked up in this
        # batch: stream records repeat keys (bids of one auction), and the table changes only through
        # ``on_right``, which forgets its key; forgotten at each commit and abort
        self._joins: dict[Any, tuple | None] = {}
        self.exact_keys = exact_keys  # ``_joins`` keyed by the key tuple (else by its bytes)
        # ``fn(key, value, ts, offset) -> block`` when the stream channel hands over records whose block is
        # not built yet (``JoinWiring.channel``: the reader's struct in place of the tuple); built on emit
        self.block: Callable[[Any, Any, int, int], tuple] | None = None

    def on_left(self, key: Any, row: Any, old: Any, ts: int, hdrs: Any) -> None:
        if key is None or row is None:
            if key is None and row is not None and self.left_join:
                self.emit(None, row + self.rnull, None, ts, hdrs)
            return
        found = self.table.get(self.key_bytes(key))
        if found is not None and (self.keep_right is None or kept(self.keep_right, found[0])):
            self.emit(key, row + found[0], None, ts, hdrs)
        elif self.left_join:
            self.emit(key, row + self.rnull, None, ts, hdrs)

    def on_left_run(self, events: list[tuple], i: int, j: int) -> None:
        """``on_left`` over the run ``events[i:j]`` of (ts, offset, (key, row, headers)) in one loop."""
        get, key_bytes, emit, rnull, left_join = self.table.get, self.key_bytes, self.emit, self.rnull, self.left_join
        keep = self.keep_right
        joins = self._joins
        seen = joins.get
        exact = self.exact_keys
        block = self.block
        for ts, off, (key, row, hdrs) in events[i:j]:
            if key is None or row is None:
                if key is None and row is not None and left_join:
                    if row.__class__ is not tuple and block is not None:
                        row = block(key, row, ts, off)
                    emit(None, row + rnull, None, ts, hdrs)
                continue
            if exact:
                right = seen(key, _UNSEEN)
                if right is _UNSEEN:
                    found = get(key_bytes(key))
                    right = joins[key] = None if found is None or (keep is not None and not kept(keep, found[0])) \
                        else found[0]
            else:
                kb = key_bytes(key)
                right = seen(kb, _UNSEEN)
                if right is _UNSEEN:
                    found = get(kb)
                    # (a row failing ``keep``, INNER joins only, joins nothing as a missing one)
                    right = joins[kb] = None if found is None or (keep is not None and not kept(keep, found[0])) \
                        else found[0]
            if right is not None:
                if row.__class__ is not tuple and block is not None:
                    row = block(key, row, ts, off)
                emit(key, row + right, None, ts, hdrs)
            elif left_join:
                if row.__class__ is not tuple and block is not None:
                    row = block(key, row, ts, off)
                emit(key, row + rnull, None, ts, hdrs)

    def on_right(self, key: Any, row: Any, old: Any, ts: int, hdrs: Any) -> None:
        if key is None:
            return
        kb = self.key_bytes(key)
        self._joins.pop(key if self.exact_keys else kb, None)
        if row is None:
            self.table.delete(kb)
        else:
            self.table.put(kb, row, ts)

    def after_commit(self) -> None:
        self._joins.clear()

    def abort(self) -> None:
        self._joins.clear()
