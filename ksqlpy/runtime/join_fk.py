"""Foreign-key table-table join (INNER, LEFT): subscription/response, as Kafka Streams does it.

The left table's rows name a right key through an expression over their columns (the foreign key). The
two tables need not be co-partitioned; two sub-topologies talk through internal topics:

- ``FkLeft`` (one task per left partition) materializes the left table. On each left change it sends
  *subscriptions* to the right key's partition (subscription topic, keyed by the foreign key in the
  right table's key format): unsubscribe from the old foreign key when it changed, subscribe to the new
  one with an instruction saying when to answer. It also receives the *responses* and emits the joined
  rows, keyed by the left key.
- ``FkRight`` (one task per right partition) materializes the right table and a subscription store
  (foreign key, left key) -> version. A subscription is answered with the right row (per instruction); a
  right change answers every subscriber of that key (in left-key byte order).

Routing: a subscription goes to the partition the right table holds the foreign key in - where the right
topic's own key bytes for it hash (``fk_partition``, the right source's key serde: for a schema-registry
format the bytes carry the registered schema id, which an encoding of our own would not) - and a response
goes back to the partition of the left task that subscribed (it travels with the subscription), so no
row is lost whatever the key formats and partition counts.

Kafka Streams checks a response against a hash of the current left row and drops stale ones. Here
every left change gets a version number instead: a response to a subscription carries back the left row
it was sent for and is applied unless a newer version's response was already applied, which gives the
results of processing records one at a time (ksqlDB's semantics) even when a batch holds several
updates of a key; a response caused by a right change applies only to the current left version. The
applied results and the version counter are kept in the left table's store, beside its rows (other key
prefixes): Kafka Streams' join has no store of its own for them, so neither has the query a topic for one.
Instructions and output timestamps (a left change's result: the later of the left and right rows' times;
a right change's: its own) follow Kafka Streams 3.8+; a row whose foreign key is NULL is joined with no
right row by a LEFT join (KIP-962) and has no result in an INNER join: a change to a NULL foreign key
deletes the row's result, a change from one subscribes as a new foreign key does (KAFKA-16407), and a new
row with a NULL foreign key is skipped.
"""

from __future__ import annotations

import pickle
import struct
from collections.abc import Callable
from typing import Any

from ksqlpy.log.base import ProducerRecord
from ksqlpy.runtime.join_store import TableStore
from ksqlpy.runtime.processor import BaseOperator
from ksqlpy.state.store import KeyValueStore

Emit = Callable[[Any, Any, Any, int, Any], None]
Produce = Callable[[ProducerRecord], None]
Route = Callable[[tuple], int | None]  # foreign key -> partition of the right table holding it

DELETE_KEY_NO_PROPAGATE, DELETE_KEY_AND_PROPAGATE, PROPAGATE_NULL_IF_NO_FK_VAL, PROPAGATE_ONLY_IF_FK_VAL = range(4)
_SEQ = b"\x00fk-seq"
_RESULT = b"\x04"
_SUB = b"\x05"
_dumps = pickle.dumps
_HIGHEST = pickle.HIGHEST_PROTOCOL


class FkLeft(BaseOperator):
    def __init__(self, left: TableStore, results: KeyValueStore, emit: Emit, produce: Produce, *, inner: bool,
                 fk_of: Callable[[tuple], tuple | None], fk_bytes: Callable[[tuple], bytes],
                 left_key_bytes: Callable[[tuple], bytes], subscription_topic: str, right_width: int,
                 partition: int = 0, fk_partition: Route | None = None) -> None:
        self.left = left
        self.results = results
        self.emit = emit
        self.produce = produce
        self.inner = inner
        self.fk_of = fk_of
        self.fk_bytes = fk_bytes
        self.left_key_bytes = left_key_bytes
        self.topic = subscription_topic
        self.rnull = (None,) * right_width
        self.seq = 0
        self.partition = partition  # this task's: responses come back here
        self.fk_partition = fk_partition

    def init(self) -> None:
        self.seq = self.results.get(_SEQ) or 0

    # -------------------------------------------------------------------- left table changes
    def on_left(self, key: Any, new: Any, old: Any, ts: int, hdrs: Any) -> None:
        if key is None:
            return
        kb = self.left_key_bytes(key)
        prev = self.left.get(kb)
        old = prev[0][0] if prev is not None else None
        self.seq += 1
        seq = self.seq
        self.left.put(kb, (new, seq), ts)  # a delete keeps its version (its response must match it)
        new_fk = self.fk_of(new) if new is not None else None
        if not self.inner and (new_fk is None or (old is not None and self.fk_of(old) is None)):
            self._left_join_null_fk(key, kb, seq, new, old, new_fk, ts, hdrs)
            return
        if old is not None:
            # an INNER join's change (defaultJoinInstructions since KAFKA-16407): from a NULL foreign key the
            # row subscribes to its new one; to a NULL one (or a delete) it leaves the old one, answered by a
            # delete; from NULL to NULL is skipped
            old_fk = self.fk_of(old)
            if old_fk is None:
                if new_fk is not None:
                    self._send(new_fk, key, PROPAGATE_NULL_IF_NO_FK_VAL, seq, new, ts, hdrs)
            elif new_fk is None:
                self._send(old_fk, key, DELETE_KEY_AND_PROPAGATE, seq, None, ts, hdrs)
            else:
                if self.fk_bytes(new_fk) != self.fk_bytes(old_fk):
                    self._send(old_fk, key, DELETE_KEY_NO_PROPAGATE, seq, None, ts, hdrs)
                self._send(new_fk, key, PROPAGATE_NULL_IF_NO_FK_VAL, seq, new, ts, hdrs)
        elif new is not None and new_fk is not None:
            instruction = PROPAGATE_ONLY_IF_FK_VAL if self.inner else PROPAGATE_NULL_IF_NO_FK_VAL
            self._send(new_fk, key, instruction, seq, new, ts, hdrs)

    def _left_join_null_fk(self, key: tuple, kb: bytes, seq: int, new: Any, old: Any, new_fk: tuple | None,
                           ts: int, hdrs: Any) -> None:
        """A LEFT join change where the old or new foreign key is NULL - a delete's new foreign key is. Since
        KIP-962 Kafka Streams joins such a row with no right row instead of skipping it: the row leaves its
        old foreign key's subscription without an answer (DELETE_KEY_NO_PROPAGATE since KAFKA-16394), and a
        NULL foreign key is subscribed to nothing - the right side answers with no row, so the result is the
        row padded with NULLs, or a delete at the delete's own time once the row is gone (an INNER join's
        DELETE_KEY_AND_PROPAGATE answer takes the later of its time and the right row's). The answer takes
        the round trip like any other, keeping the results in the order of the changes. From memory of
        Kafka Streams' SubscriptionSendProcessorSupplier.leftJoinInstructions."""
        old_fk = self.fk_of(old) if old is not None else None
        if old_fk is not None:
            self._send(old_fk, key, DELETE_KEY_NO_PROPAGATE, seq, None, ts, hdrs)
        if new is None and old is None:
            return
        self._send(new_fk, key, PROPAGATE_NULL_IF_NO_FK_VAL, seq, new, ts, hdrs, route=old_fk)

    def _send(self, fk: tuple | None, key: tuple, instruction: int, seq: int, row: Any, ts: int, hdrs: Any,
              route: tuple | None = None) -> None:
        """A subscription to ``fk``'s right partition. A NULL ``fk`` (LEFT joins) goes where ``route`` (the
        foreign key it replaces) went, else to partition 0, so it follows the row's earlier subscription."""
        value = _dumps((fk, (key, instruction, seq, row, self.partition)), _HIGHEST)
        at = fk if fk is not None else route
        target = self.fk_partition(at) if self.fk_partition is not None and at is not None else None
        if fk is None and target is None:
            target = 0
        self.produce(ProducerRecord(self.topic, None if fk is None else self.fk_bytes(fk), value, ts, hdrs, target))

    # -------------------------------------------------------------------- responses
    def on_response(self, key: Any, payload: Any, old: Any, ts: int, hdrs: Any) -> None:
        seq, right_row, echoed, row = payload
        kb = self.left_key_bytes(key)
        applied = self.results.get(_RESULT + kb)
        if echoed:
            if applied is not None and seq <= applied[1]:
                return
            base = row
        else:
            cur = self.left.get(kb)
            if cur is None or cur[0][1] != seq:
                return
            base = cur[0][0]
        if right_row is None and (self.inner or base is None):
            result = None
        else:
            result = base + (right_row if right_row is not None else self.rnull)
        self.results.put(_RESULT + kb, (result, seq))
        self.emit(key, result, applied[0] if applied is not None else None, ts, hdrs)

    def flush(self, tx: Any) -> None:
        self.results.put(_SEQ, self.seq)

    def abort(self) -> None:
        self.init()


class FkRight(BaseOperator):
    def __init__(self, right: TableStore, subs: KeyValueStore, produce: Produce, *,
                 right_key_bytes: Callable[[tuple], bytes], left_key_bytes: Callable[[tuple], bytes],
                 response_topic: str, response_key_bytes: Callable[[tuple], bytes] | None = None) -> None:
        """``right_key_bytes``/``left_key_bytes``: the stores' keys; ``response_key_bytes``: a response
        record's key (the left key in its format; the stores' keys if not given)."""
        self.right = right
        self.subs = subs
        self.produce = produce
        self.right_key_bytes = right_key_bytes
        self.left_key_bytes = left_key_bytes
        self.response_key_bytes = response_key_bytes or left_key_bytes
        self.topic = response_topic

    @staticmethod
    def _prefix(fkb: bytes) -> bytes:
        return _SUB + struct.pack(">I", len(fkb)) + fkb

    def on_right(self, key: Any, new: Any, old: Any, ts: int, hdrs: Any) -> None:
        if key is None:
            return
        kb = self.right_key_bytes(key)
        if new is None:
            # a tombstone of an absent key answers the subscribers too: the table source forwards (NULL, NULL)
            # for it as for any record (Kafka Streams' KTableSource), and ForeignTableJoinProcessorSupplier
            # answers every subscriber of the key with the new (NULL) value - an INNER join's result is
            # deleted again, a LEFT join's row NULL-padded again
            if self.right.get(kb) is not None:
                self.right.delete(kb)
        else:
            self.right.put(kb, new, ts)
        # a right change's responses carry its own time: Kafka Streams forwards them with the right record's
        # timestamp (only a subscription's answer takes the later of the left and right times)
        for _, (lkey, seq, _sub_ts, lpart) in list(self.subs.items(self._prefix(kb))):
            self._respond(lkey, seq, new, False, None, ts, hdrs, lpart)

    def on_subscription(self, fk: Any, payload: Any, old: Any, ts: int, hdrs: Any) -> None:
        lkey, instruction, seq, row, lpart = payload
        if fk is None:  # a LEFT join's row with a NULL foreign key: no right row, nothing to remember
            self._respond(lkey, seq, None, True, row, ts, hdrs, lpart)
            return
        fkb = self.right_key_bytes(fk)
        sk = self._prefix(fkb) + self.left_key_bytes(lkey)
        if instruction in (DELETE_KEY_NO_PROPAGATE, DELETE_KEY_AND_PROPAGATE):
            self.subs.delete(sk)
        else:
            self.subs.put(sk, (lkey, seq, ts, lpart))
        if instruction == DELETE_KEY_NO_PROPAGATE:
            return
        found = self.right.get(fkb)
        out_ts = max(ts, found[1]) if found is not None else ts
        if instruction == DELETE_KEY_AND_PROPAGATE:
            self._respond(lkey, seq, None, True, None, out_ts, hdrs, lpart)
        elif instruction == PROPAGATE_NULL_IF_NO_FK_VAL:
            self._respond(lkey, seq, found[0] if found is not None else None, True, row, out_ts, hdrs, lpart)
        elif found is not None:
            self._respond(lkey, seq, found[0], True, row, out_ts, hdrs, lpart)

    def _respond(self, lkey: tuple, seq: int, right_row: Any, echoed: bool, row: Any, ts: int, hdrs: Any,
                 partition: int) -> None:
        """To the left task that subscribed (``partition``), whatever its key bytes hash to."""
        value = _dumps((lkey, (seq, right_row, echoed, row)), _HIGHEST)
        self.produce(ProducerRecord(self.topic, self.response_key_bytes(lkey), value, ts, hdrs, partition))
