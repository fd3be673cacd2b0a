"""Foreign-key table-table joins over several partitions lose no row, whatever the path.

Random runs of left and right upserts and deletes - foreign keys that change, become NULL and come back, right
rows deleted and re-created - over partition counts that differ between the tables, with the foreign key taken
from a value column, from one column of a multi-column left key, or computed by an expression, and the
criteria written either way round. Each record is processed before the next is written, or records are processed in
batches of random sizes. The join's final table (the last record per key of the sink topic) must be the one
Kafka Streams' foreign-key join gives processing the records one at a time (``_reference``).
"""

from __future__ import annotations

import random
import zlib
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # the fixture's type only
    from conftest import Harness

FK_FROM = {
    # name: (left table DDL, criteria, foreign key of a left (key, value) pair, left key of a record)
    "value column": (
        "CREATE TABLE L (ID INT PRIMARY KEY, FK INT, V STRING) WITH (kafka_topic='l', value_format='JSON', "
        "key_format='{kf}', PARTITIONS={lp});",
        "L.FK = R.ID", lambda k, v: v["FK"]),
    "value column, criteria flipped": (
        "CREATE TABLE L (ID INT PRIMARY KEY, FK INT, V STRING) WITH (kafka_topic='l', value_format='JSON', "
        "key_format='{kf}', PARTITIONS={lp});",
        "R.ID = L.FK", lambda k, v: v["FK"]),
    "expression": (
        "CREATE TABLE L (ID INT PRIMARY KEY, FK INT, V STRING) WITH (kafka_topic='l', value_format='JSON', "
        "key_format='{kf}', PARTITIONS={lp});",
        "L.FK + 1 = R.ID", lambda k, v: None if v["FK"] is None else v["FK"] + 1),
    "left key column": (
        "CREATE TABLE L (ID INT PRIMARY KEY, FK INT PRIMARY KEY, V STRING) WITH (kafka_topic='l', "
        "value_format='JSON', key_format='JSON', PARTITIONS={lp});",
        "L.FK = R.ID", lambda k, v: k[1]),
}


def _reference(ops: list[tuple[str, Any, dict | None]], fk_of: Any, *,
               inner: bool) -> tuple[dict[Any, tuple], set[Any]]:
    """The join's final table, computed record at a time as Kafka Streams' foreign-key join does it: the left
    side's subscription instructions (an INNER join skips a change from or to a NULL foreign key and keeps
    the row's earlier subscription; a LEFT join subscribes a NULL foreign key to nothing - KIP-962), the right
    side's subscription store, and responses dropped when the left row changed since they were asked for.
    Also returns the left keys whose last change an INNER join skipped: their result is the one an earlier
    change got, which depends on what the right table held when that change was answered - with several
    partitions and records processed in batches that is a matter of timing (in Kafka Streams too)."""
    left: dict[Any, dict] = {}
    right: dict[Any, dict] = {}
    subs: dict[Any, dict[Any, int]] = {}  # foreign key -> left key -> version of the left row subscribed
    version: dict[Any, int] = {}
    out: dict[Any, tuple] = {}
    skipped: set[Any] = set()

    def respond(lkey: Any, seen: int, r: dict | None) -> None:
        if version.get(lkey) != seen:
            return  # the left row changed since: a stale response
        row = left.get(lkey)
        if row is None or (r is None and inner):
            out.pop(lkey, None)
        else:
            out[lkey] = (row["V"], r["W"] if r is not None else None)

    def send(fk: Any, lkey: Any, instruction: str) -> None:
        seen = version[lkey]
        if fk is None:  # LEFT joins only: nothing to subscribe to, answered with no right row
            respond(lkey, seen, None)
            return
        if instruction.startswith("DELETE"):
            subs.get(fk, {}).pop(lkey, None)
        else:
            subs.setdefault(fk, {})[lkey] = seen
        r = right.get(fk)
        if instruction == "DELETE_KEY_AND_PROPAGATE" or instruction == "PROPAGATE_NULL_IF_NO_FK_VAL":
            respond(lkey, seen, r if instruction != "DELETE_KEY_AND_PROPAGATE" else None)
        elif instruction == "PROPAGATE_ONLY_IF_FK_VAL" and r is not None:
            respond(lkey, seen, r)

    for n, (side, key, value) in enumerate(ops):
        if side == "R":
            if value is None:
                right.pop(key, None)
            else:
                right[key] = value
            for lkey, seen in list(subs.get(key, {}).items()):
                respond(lkey, seen, value)
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
                    send(old_fk, key, "DELETE_KEY_NO_PROPAGATE")  # KAFKA-16394
                send(new_fk, key, "PROPAGATE_NULL_IF_NO_FK_VAL")
            elif value is not None:
                send(new_fk, key, "PROPAGATE_NULL_IF_NO_FK_VAL")
        elif old is not None:
            if old_fk is None or (value is not None and new_fk is None):
                skipped.add(key)
                continue  # skipped: the row keeps its earlier subscription, whose answers are now stale
            if value is None:
                send(old_fk, key, "DELETE_KEY_AND_PROPAGATE")
            else:
                if new_fk != old_fk:
                    send(old_fk, key, "DELETE_KEY_NO_PROPAGATE")
                send(new_fk, key, "PROPAGATE_NULL_IF_NO_FK_VAL")
        elif value is not None and new_fk is not None:
            send(new_fk, key, "PROPAGATE_ONLY_IF_FK_VAL")
    return out, skipped


def _right_ddl(kf: str, rp: int) -> str:
    return (f"CREATE TABLE R (ID INT PRIMARY KEY, W STRING) WITH (kafka_topic='r', value_format='JSON', "
            f"key_format='{kf}', PARTITIONS={rp});")


def _params() -> list[Any]:
    out = []
    shapes = [("KAFKA", 4, 4), ("KAFKA", 4, 1), ("JSON", 1, 4), ("KAFKA", 3, 2)]
    for fk_from in FK_FROM:
        for kind in ("JOIN", "LEFT JOIN"):
            for i, (kf, lp, rp) in enumerate(shapes):
                for batched in (False, True) if i % 2 == 0 else (True,):
                    mode = "batches" if batched else "one at a time"
                    out.append(pytest.param(fk_from, kind, kf, lp, rp, batched,
                                            id=f"{fk_from}-{kind}-{kf}-{lp}x{rp}-{mode}"))
    return out


@pytest.mark.parametrize(("fk_from", "kind", "kf", "lp", "rp", "batched"), _params())
def test_foreign_key_join_final_table(h: Harness, fk_from: str, kind: str, kf: str, lp: int, rp: int,
                                      batched: bool) -> None:
    ddl, criteria, fk_of = FK_FROM[fk_from]
    multi_key = fk_from == "left key column"
    h.sql(ddl.format(kf=kf, lp=lp))
    h.sql(_right_ddl(kf, rp))
    key_cols = "L.ID, L.FK" if multi_key else "L.ID"
    h.sql(f"CREATE TABLE OUT AS SELECT {key_cols}, V, W FROM L {kind} R ON {criteria};")
    rnd = random.Random(zlib.crc32(f"{fk_from}/{kind}/{kf}/{lp}/{rp}".encode()))
    left: dict[Any, dict] = {}
    right: dict[int, dict] = {}
    ops: list[tuple[str, Any, dict | None]] = []
    for n in range(120):
        ts = 1000 + n
        roll = rnd.random()
        if roll < 0.45:
            lid = rnd.randrange(12)
            fk = None if rnd.random() < 0.1 else rnd.randrange(8)
            if multi_key:
                key: Any = (lid, rnd.randrange(8))
                value = {"V": f"v{n}"}
                left[key] = value
            else:
                key = lid
                value = {"FK": fk, "V": f"v{n}"}
                left[key] = value
            h.send("L", key, value, ts)
            ops.append(("L", key, value))
        elif roll < 0.55 and left:
            key = rnd.choice(sorted(left))
            del left[key]
            h.send("L", key, None, ts)
            ops.append(("L", key, None))
        elif roll < 0.9:
            rid = rnd.randrange(9)
            right[rid] = {"W": f"w{n}"}
            h.send("R", rid, right[rid], ts)
            ops.append(("R", rid, right[rid]))
        elif right:
            rid = rnd.choice(sorted(right))
            del right[rid]
            h.send("R", rid, None, ts)
            ops.append(("R", rid, None))
        if not batched or rnd.random() < 0.15:
            h.run()
    h.run()

    want, skipped = _reference(ops, fk_of, inner=kind == "JOIN")
    final: dict[Any, Any] = {}
    for key, value, _ in h.read("OUT"):
        final[key] = value
    got = {k: tuple(v) for k, v in final.items() if v is not None}
    if batched:
        got = {k: v for k, v in got.items() if k not in skipped}
        want = {k: v for k, v in want.items() if k not in skipped}
    assert got == want
