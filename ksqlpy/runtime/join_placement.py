"""Join store entries moved to the partition their key is placed in now, before a query's tasks restore.

With several partitions, a join key's task is the partition its repartition record hashes to: the key's
bytes in the join's internal key format (``serde.placed``). In a schema-registry format those bytes carry
the registry's framing, and earlier releases framed them with the process-local registry's id (whatever
schema came first) and wrote an unwrapped AVRO key as a ``["null", T]`` union. After the upgrade the same key
is placed by the current bytes (schema id 1, the bare type) - often in another partition, while its stored
rows (table rows, window records, outer-join records waiting for their window to close) stay in the task of
the old one, where no record of that key comes any more: a restart after the upgrade would miss them.

ksqlDB never changes the bytes of a running query's internal topics (the plan fixes their formats), so a
key never changes task there; the guarantee kept here is the same one: every row stored before the restart
is found by the key's records after it. So before any task of the query restores, each join store's
changelog is read over every partition, and an entry whose key is placed elsewhere now is moved there - a
delete in its old partition, the entry (under its current store key, ``join_keys``) in the new one - all
in one log transaction; the tasks' restores replay the moves from their checkpoints into the local files.
An entry the new partition already holds under the same key stays as it is there (it was written after
the upgrade, by the key's own records). A query whose stores hold only placed keys moves nothing.

The move into a partition is made by the task that holds it (the worker process owning the partition, at
its start, before the task restores), and once: it takes from every partition what is placed in its own -
the entry into its partition, the delete in the old one - and marks its partition of the changelog done
(an offset in the query's consumer group). No other process writes into that partition: with ``--workers N``
every worker ran the whole move at start, so one starting late, having read the changelogs before another
worker's task began to run, wrote the old entry over the newer one that task had written since. The
deletes it writes in other partitions are of keys placed in its own, which their tasks never write.

A table join's materialized result (the rows pull queries read) is in the join's task too, keyed by the join
key: its entries move the same way (a pull query found the row from before the upgrade beside the new one).
So does an aggregation grouped by the join key, which runs in the join's task without a repartition: its
rows (per group, window or session) and a table aggregation's last row per source key (what its undo
reads) are keyed by the join key's value; the restart after the upgrade continues each group's aggregate
from its rows (it started the moved keys' groups anew, and a pull query found two rows). An aggregation
reading a GROUP BY's repartition topic is placed by the group key's bytes there (``runtime.aggregate``'s
``key_bytes``, in the input's key format): its rows move the same way.
Stores whose task is not chosen by the join key's placed bytes are left alone: foreign-key joins (their
tasks are the source topics' own partitions and the right table's key serde's routing), and formats
without a registry (their bytes never changed).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Collection
from typing import Any

from ksqlpy.log.partitioner import partition_for_key
from ksqlpy.runtime.accumulate import KEY
from ksqlpy.runtime.group_by import SOURCE_PREFIX
from ksqlpy.runtime.join_keys import SR_FORMATS, TAG, Rekey, entry_rekey
from ksqlpy.serde import LOCAL_ID
from ksqlpy.state.codec import decode

_I = struct.Struct(">I")
_WINDOW, _OUTER, _TABLE, _RESULT = b"\x01", b"\x02", b"\x03", b"\x04"
_FETCH = 50_000
DONE = 1  # the offset marking a changelog whose entries are placed (``relocate``)


def framing(fmt: str) -> bytes:
    """What ``serde.placed`` puts before a key's payload in ``fmt``: magic byte, schema id 1, and for
    PROTOBUF the message indexes of the key's (first, only) message."""
    return b"\x00" + LOCAL_ID + (b"\x00" if fmt == "PROTOBUF" else b"")


def join_key(entry: bytes) -> bytes | None:
    """The join key's store bytes inside a join store entry's key (None: bookkeeping, or not an entry
    kind keyed by the join key)."""
    tag = entry[:1]
    if tag == _WINDOW:  # tag, segment (8), length (4), key, timestamp + sequence
        n = _I.unpack_from(entry, 9)[0]
        return entry[13:13 + n]
    if tag == _OUTER:  # tag, timestamp (8), side (1), key
        return entry[10:]
    if tag in (_TABLE, _RESULT):
        return entry[1:]
    return None


def placement(fmt: str, partitions: int) -> Callable[[bytes], int | None]:
    """Join key store bytes -> the partition its records are placed in now (None: a key kept in private
    bytes, placed by those bytes as ever)."""
    head = framing(fmt)

    def place(kb: bytes) -> int | None:
        if kb[:1] != TAG:
            return None
        return partition_for_key(head + kb[1:], partitions)

    return place


def _live(log: Any, topic: str, partition: int) -> dict[bytes, bytes]:
    """A changelog partition's entries as a compacted read gives them: the last value per key, deletes
    dropped."""
    entries: dict[bytes, bytes | None] = {}
    offset = log.start_offset(topic, partition)
    end = log.end_offset(topic, partition)
    while offset < end:
        batch = log.fetch(topic, partition, offset, _FETCH)
        if not batch.offsets:
            break
        for k, v in zip(batch.keys, batch.values, strict=True):
            if k is not None:
                entries[k] = v
        offset = batch.next_offset
    return {k: v for k, v in entries.items() if v is not None}


def materialized(encode: Callable[[tuple], bytes], n_keys: int, partitions: int) -> Callable[[bytes, bytes], int | None]:
    """(entry key, value) of a table join's materialized result store (``materialize.TableStore``: the row
    with its key columns first, and its time) -> the partition its key is placed in now: the result's key is
    the join key, placed by its bytes in the join's key format (``encode``)."""

    def place(k: bytes, v: bytes) -> int | None:
        if k[:1] != b"R":
            return None
        try:
            row = decode(v)[0]
            return partition_for_key(encode(tuple(row[:n_keys])), partitions)
        except Exception:  # noqa: BLE001 - an entry it cannot read stays where it is
            return None

    return place


def aggregated(encode: Callable[[tuple], bytes], partitions: int) -> Callable[[bytes, bytes], int | None]:
    """(entry key, value) of the store of an aggregation grouped by the join key in the join's task, or
    reading a GROUP BY's repartition topic (``runtime.aggregator``, ``state.windowed``, ``runtime.group_by``)
    -> the partition its group is placed in now by ``encode`` (the key's placed bytes). A group's record
    (``K``, window ``W``, session ``S`` entries) holds its key; a table aggregation's source row
    (``group_by.SOURCE_PREFIX``, beside the aggregate only when no repartition came between) its group key
    and arguments - the source key is the group key there. The task's bookkeeping (``\\x00``) stays."""

    def place(k: bytes, v: bytes) -> int | None:
        tag = k[:1]
        try:
            if tag in (b"K", b"W", b"S"):
                key = decode(v)[KEY]
            elif tag == SOURCE_PREFIX:
                key = decode(v)[0]
            else:
                return None
            return partition_for_key(encode(tuple(key)), partitions)
        except Exception:  # noqa: BLE001 - an entry it cannot read stays where it is
            return None

    return place


def relocate(log: Any, group: str, topics: list[str], fmt: str, partitions: int, rekey: Rekey | None,
             results: dict[str, Callable[[bytes, bytes], int | None]] | None = None,
             owned: Collection[int] | None = None) -> int:
    """Move into the partitions ``owned`` (None: all) of the join stores on changelogs ``topics``
    (``partitions`` each) the entries whose join key is placed there now; returns how many moved.
    ``rekey``: the store key codec's mapping of older store keys to current ones (``join_keys.rekey``).
    ``results``: the changelogs of stores after the join in its task keyed by the join key (a table join's
    materialized result, which pull queries read; an aggregation grouped by the join key), with the
    partition of each entry (``materialized``, ``aggregated``).

    Done once per partition of a store: the pass commits, with its moves, an offset for each owned partition
    of each changelog in the query's consumer group ``group`` (which never reads a changelog), and a
    partition with that offset is not moved into again - stores written since the placement is fixed hold
    nothing to move, and reading every changelog at every start would cost a restart as much as a rebuild."""
    if fmt not in SR_FORMATS or partitions < 2:
        return 0
    results = results or {}
    mine = set(range(partitions) if owned is None else owned) & set(range(partitions))
    todo = {t: {p for p in mine if log.committed(group, t, p) is None}
            for t in [*topics, *results] if log.topic_exists(t)}
    todo = {t: ps for t, ps in todo.items() if ps}
    if not todo:
        return 0
    place = placement(fmt, partitions)
    moves: list[tuple[str, int, bytes, bytes | None]] = []
    for topic, targets in todo.items():
        live = [_live(log, topic, p) for p in range(partitions)]
        result = results.get(topic)
        for p, entries in enumerate(live):
            for k, v in entries.items():
                if k[:1] == b"\x00":
                    continue  # the store's own bookkeeping (per partition)
                if result is not None:
                    current, target = k, result(k, v)
                else:
                    current = entry_rekey(k, rekey, None) or k
                    kb = join_key(current)
                    target = None if kb is None else place(kb)
                if target is None or target == p or target not in targets:
                    continue
                moves.append((topic, p, k, None))
                if current not in live[target]:
                    live[target][current] = v
                    moves.append((topic, target, current, v))
    with log.transaction() as tx:
        for topic, p, k, v in moves:
            tx.produce_batch(topic, p, [k], [v])
        tx.commit_offsets(group, {(t, p): DONE for t, ps in todo.items() for p in ps})
    return sum(1 for m in moves if m[3] is None)
