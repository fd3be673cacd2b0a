"""A model of Kafka Streams' foreign-key table-table join processing records one at a time - the expected
results of the foreign-key case generators here and of ``tests/joins/test_fk_partitions_random.py`` (one
model for both). From memory of SubscriptionSendProcessorSupplier, SubscriptionReceiveProcessorSupplier,
SubscriptionJoinProcessorSupplier, ForeignTableJoinProcessorSupplier and ResponseJoinProcessorSupplier,
Kafka 3.8+ (KIP-962, KAFKA-16394, KAFKA-16407):

- INNER (defaultJoinInstructions): a new row subscribes with PROPAGATE_ONLY_IF_FK_VAL; a change sends
  DELETE_KEY_NO_PROPAGATE to a different old foreign key and PROPAGATE_NULL_IF_NO_FK_VAL to the new one; a
  delete sends DELETE_KEY_AND_PROPAGATE to the old one (a delete written at the later of the delete's time
  and the right row's) - and so does a change to a NULL foreign key; a change from a NULL foreign key
  subscribes the new one with PROPAGATE_NULL_IF_NO_FK_VAL (KAFKA-16407); a new row with a NULL foreign key,
  and a change from NULL to NULL, are skipped.
- LEFT (leftJoinInstructions): a change leaves a different old foreign key with DELETE_KEY_NO_PROPAGATE and
  subscribes the new one (NULL for a delete) with PROPAGATE_NULL_IF_NO_FK_VAL; a NULL foreign key subscribes
  to nothing and is answered with no right row at the change's own time.
- A right change answers every subscriber of its key (in left-key order) at its own time - a delete of an
  absent key too (the table source forwards (NULL, NULL) for it: an INNER result deleted again, a LEFT row
  NULL-padded again); an answer is applied only if the left row is still the version that subscribed (the
  response resolver's hash check).

Generators run as scripts and import it as ``fk_model``; the pytest module puts this directory on its path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Op = tuple[str, Any, Any, int]  # (side "l" | "r", key, value or None for a delete, timestamp)
Record = tuple[Any, Any, int]  # (left key, (left value, right value or None) or None for a delete, timestamp)


def fk_join(ops: list[Op], fk_of: Callable[[Any, Any], Any], *, inner: bool) -> tuple[list[Record], set[Any]]:
    """The join's records for ``ops`` in order (``fk_of(left key, left value)``: the foreign key, None when
    NULL), and the left keys whose last change an INNER join skipped (NULL to NULL: the row has no result,
    its change to NULL deleted it)."""
    left: dict[Any, Any] = {}
    version: dict[Any, int] = {}
    right: dict[Any, tuple[Any, int]] = {}
    subs: dict[Any, dict[Any, int]] = {}  # foreign key -> left key -> version of the left row subscribed
    out: list[Record] = []
    skipped: set[Any] = set()

    def answer(lkey: Any, right_row: Any, ts: int, seen: int) -> None:
        if version.get(lkey) != seen:
            return  # the left row changed since it subscribed: a stale answer
        cur = left.get(lkey)
        if cur is None or (right_row is None and inner):
            out.append((lkey, None, ts))
        else:
            out.append((lkey, (cur, right_row), ts))

    def send(fk: Any, lkey: Any, instruction: str, ts: int) -> None:
        seen = version[lkey]
        if fk is None:  # LEFT only (KIP-962): no right row to look up, answered with none at the change's time
            answer(lkey, None, ts, seen)
            return
        if instruction.startswith("DELETE"):
            subs.get(fk, {}).pop(lkey, None)
        else:
            subs.setdefault(fk, {})[lkey] = seen
        found = right.get(fk)
        at = max(ts, found[1]) if found else ts
        if instruction == "DELETE_KEY_AND_PROPAGATE":
            answer(lkey, None, at, seen)
        elif instruction == "PROPAGATE_NULL_IF_NO_FK_VAL":
            answer(lkey, found[0] if found else None, at, seen)
        elif instruction == "PROPAGATE_ONLY_IF_FK_VAL" and found:
            answer(lkey, found[0], at, seen)

    for n, (side, key, value, ts) in enumerate(ops):
        if side == "r":
            if value is None:
                right.pop(key, None)  # a delete of an absent key is answered too: the source forwards it
            else:
                right[key] = (value, ts)
            for lkey, seen in sorted(subs.get(key, {}).items(), key=lambda kv: kv[0]):
                answer(lkey, value, ts, seen)
            continue
        old = left.get(key)
        if value is None:
            left.pop(key, None)
        else:
            left[key] = value
        version[key] = n
        skipped.discard(key)
        old_fk = fk_of(key, old) if old is not None else None
        new_fk = fk_of(key, value) if value is not None else None
        if not inner:
            if old is not None:
                if old_fk is not None and old_fk != new_fk:
                    send(old_fk, key, "DELETE_KEY_NO_PROPAGATE", ts)
                send(new_fk, key, "PROPAGATE_NULL_IF_NO_FK_VAL", ts)
            elif value is not None:
                send(new_fk, key, "PROPAGATE_NULL_IF_NO_FK_VAL", ts)
        elif old is not None:
            if old_fk is None:
                if new_fk is None:
                    skipped.add(key)
                else:
                    send(new_fk, key, "PROPAGATE_NULL_IF_NO_FK_VAL", ts)
                continue
            if new_fk is None:  # a delete, or a change to a NULL foreign key
                send(old_fk, key, "DELETE_KEY_AND_PROPAGATE", ts)
            else:
                if new_fk != old_fk:
                    send(old_fk, key, "DELETE_KEY_NO_PROPAGATE", ts)
                send(new_fk, key, "PROPAGATE_NULL_IF_NO_FK_VAL", ts)
        elif value is not None and new_fk is not None:
            send(new_fk, key, "PROPAGATE_ONLY_IF_FK_VAL", ts)
    return out, skipped
