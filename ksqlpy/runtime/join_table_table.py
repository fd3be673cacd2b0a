"""Table-table join on the primary key (INNER, LEFT, RIGHT, FULL), with Kafka Streams' KTable-KTable
join semantics: an update on either side looks the other side up and forwards a change (new joined
row, previous joined row); a NULL new row is a delete (tombstone) of the key. The output timestamp is
the larger of the two sides' current timestamps.

Per side, ``this`` being the updated side and ``other`` the one looked up:

- INNER: nothing if ``other`` is absent;
- preserved side of LEFT/RIGHT (KTableKTableLeftJoin): joined with NULLs if ``other`` is absent, nothing
  only if the update is a delete of an absent row;
- other side of LEFT/RIGHT (KTableKTableRightJoin): nothing if ``other`` is absent, else ``other`` joined
  with the update (a delete gives ``other`` with NULLs);
- FULL: either side's presence is enough.

RIGHT is the mirror image of LEFT. Previous joined rows travel with each change so that a WHERE after
the join turns a row that stops matching into a delete, and never deletes a key it never emitted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ksqlpy.runtime.join_store import TableStore
from ksqlpy.runtime.processor import BaseOperator

Emit = Callable[[Any, Any, Any, int, Any], None]

_INNER, _PRESERVED, _OTHER, _OUTER = range(4)


class TableTableJoin(BaseOperator):
    def __init__(self, kind: str, left: TableStore, right: TableStore, emit: Emit, left_width: int,
                 right_width: int, key_bytes: Callable[[tuple], bytes]) -> None:
        self.left_mode = {"INNER": _INNER, "LEFT": _PRESERVED, "RIGHT": _OTHER, "FULL": _OUTER}[kind]
        self.right_mode = {"INNER": _INNER, "LEFT": _OTHER, "RIGHT": _PRESERVED, "FULL": _OUTER}[kind]
        self.left = left
        self.right = right
        self.emit = emit
        self.lnull = (None,) * left_width
        self.rnull = (None,) * right_width
        self.key_bytes = key_bytes

    def on_left(self, key: Any, row: Any, old: Any, ts: int, hdrs: Any) -> None:
        self._update(key, row, ts, hdrs, left=True)

    def on_right(self, key: Any, row: Any, old: Any, ts: int, hdrs: Any) -> None:
        self._update(key, row, ts, hdrs, left=False)

    def _update(self, key: Any, new: Any, ts: int, hdrs: Any, left: bool) -> None:
        if key is None:
            return
        kb = self.key_bytes(key)
        mine, theirs = (self.left, self.right) if left else (self.right, self.left)
        prev = mine.get(kb)
        old = prev[0] if prev is not None else None
        if new is None:
            mine.delete(kb)
        else:
            mine.put(kb, new, ts)
        found = theirs.get(kb)
        other, other_ts = (found[0], found[1]) if found is not None else (None, None)
        mode = self.left_mode if left else self.right_mode

        def joined(this: Any) -> Any:
            a = this if this is not None else (self.lnull if left else self.rnull)
            b = other if other is not None else (self.rnull if left else self.lnull)
            return a + b if left else b + a

        if mode == _INNER or mode == _OTHER:
            if other is None:
                return
            out_ts = max(ts, other_ts)  # type: ignore[type-var]
            if mode == _INNER:
                new_row = joined(new) if new is not None else None
                old_row = joined(old) if old is not None else None
            else:
                new_row = joined(new)
                old_row = joined(old)
        else:
            if other is None and new is None and old is None:
                return
            out_ts = max(ts, other_ts) if other_ts is not None else ts
            if mode == _PRESERVED:
                new_row = joined(new) if new is not None else None
                old_row = joined(old) if old is not None else None
            else:
                new_row = joined(new) if (other is not None or new is not None) else None
                old_row = joined(old) if (other is not None or old is not None) else None
        self.emit(key, new_row, old_row, out_ts, hdrs)
