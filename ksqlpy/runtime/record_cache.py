"""The record cache of aggregations (Kafka Streams' ``cache.max.bytes.buffering``), as ksqlDB has it.

ksqlDB puts a cache in front of every aggregation's state store: updates of one key (and window) within
a commit overwrite each other there, and at the commit - or when the cache is full - the dirty entries go
downstream, each key's last value once, in the order of their last update. ``cache.max.bytes.buffering``
sizes it (ksqlDB's default 10,000,000 bytes); 0 turns it off and every update goes out, which is how
ksqlDB's own query translation tests run.

In ksqlpy a task's batch is its commit (state, outputs and input position in one transaction), so the
cache lives for one batch. Its size becomes a number of entries at ``ENTRY_BYTES`` each (Kafka Streams
counts the serialized key and value plus a record context of about this much); when a batch touches more
keys than fit, everything in the cache (the update that overflowed it included) goes out and it starts
empty again, as Kafka Streams flushes a named cache when it evicts a dirty entry. EMIT FINAL has its own suppression and never uses the cache.
"""

from __future__ import annotations

from typing import Any

from ksqlpy.plan.lowering import CACHE_ENTRY_BYTES as ENTRY_BYTES
from ksqlpy.plan.lowering import CACHE_PROPERTY, DEFAULT_CACHE_BYTES, cache_entries

__all__ = ["CACHE_PROPERTY", "DEFAULT_CACHE_BYTES", "ENTRY_BYTES", "cache_entries", "cache_key", "collapse"]


def cache_key(key: Any) -> Any:
    """An output key as a dict key (its ``repr`` if it holds unhashable values)."""
    try:
        hash(key)
    except TypeError:
        return repr(key)
    return key


def collapse(rows: list[tuple], entries: int, unseen: set[Any] | None = None) -> list[tuple]:
    """The generic form of the cache over a batch's updates ``(key, value, ts, headers)``: each key's last
    update, in the order of those last updates, the whole cache going out whenever it would overflow.
    A delete (``value`` None) of a key downstream has no row of - in ``unseen`` (a HAVING that did not
    pass before the batch), or deleted by an earlier flush of this batch - does not go out, as Kafka
    Streams skips a flush when neither the old nor the new value exists; a row that went out in an earlier
    flush makes its later delete go out.
    (The common aggregation loops fold updates in place instead and never build the superseded rows.)"""
    if entries <= 0 or (len(rows) <= 1 and not unseen):
        return rows
    out: list[tuple] = []
    hidden = set(unseen) if unseen else set()
    cache: dict[Any, tuple] = {}

    def flush() -> None:
        for k, r in cache.items():
            if r[1] is not None:
                hidden.discard(k)
            elif k in hidden:
                continue
            else:
                hidden.add(k)
            out.append(r)
        cache.clear()

    for r in rows:
        k = cache_key(r[0])
        if k in cache:
            del cache[k]
        cache[k] = r
        if len(cache) > entries:
            flush()
    flush()
    return out
