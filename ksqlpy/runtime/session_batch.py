"""SESSION windows, EMIT CHANGES without HAVING: a batch's sessions worked on in memory.

The generic loop (``SessionAggregator.stream``) goes to the store for every record: a range read to
find the key's sessions, then removes and puts of the session and its time index, each updating the
store's sorted view of pending keys. Here each key's sessions near the batch's records are read once per
batch (every session a record of the batch can touch ends at or after its first record - gap and
starts at or before its last record + gap), merged and grown in a small per-key list, and written back
once at the end of the batch: the final sessions that changed are put, the stored ones that were merged
away are removed. A session that falls past retention as the batch's stream time grows leaves the key's
list (no later record reaches it: ``session_retention``); one the batch made or changed is still written.

The rules are ``SessionAggregator``'s (module ``session``), record by record; outputs are the same:
every update (the merged-away sessions' deletes, then the new session) when the record cache is off;
with it, each session's last state in the order of the last updates - its row if it still exists, its
delete if downstream had seen it (it was stored before the batch or went out in an earlier flush).
"""

from __future__ import annotations

from typing import Any

from ksqlpy.runtime.aggregator import encode_key
from ksqlpy.runtime.session_retention import expired_up_to


def stream_sessions(agg: Any, items: list[tuple], out: list[tuple]) -> None:
    """``SessionAggregator.stream`` for EMIT CHANGES without HAVING (see the module docstring)."""
    spec = agg.spec
    gap, grace, cap, retention = spec.size, spec.grace, spec.cache_entries, spec.retention
    accs, store = spec.accs, agg.sessions
    new, merge, add = accs.new, accs.merge, accs.add
    kbs: dict[Any, bytes] = {}
    span: dict[bytes, list[int]] = {}  # key bytes -> [first ts, last ts] of the batch's records
    keyed = []
    for item in items:
        key, ts = item[0], item[2]
        try:
            kb = kbs.get(key)
            if kb is None:
                kb = kbs[key] = encode_key(key)
        except TypeError:  # an unhashable key value (STRUCT, ARRAY, MAP)
            kb = encode_key(key)
        keyed.append(kb)
        sp = span.get(kb)
        if sp is None:
            span[kb] = [ts, ts]
        elif ts < sp[0]:
            sp[0] = ts
        elif ts > sp[1]:
            sp[1] = ts
    # per key: its sessions as [start, end, rec, changed], ordered by end (they never overlap)
    live: dict[bytes, list[list[Any]]] = {}
    stored: dict[bytes, set[tuple[int, int]]] = {}
    for kb, (lo, hi) in span.items():
        found = store.find(kb, lo - gap, hi + gap)
        live[kb] = [[s, e, rec, False] for s, e, rec in found]
        stored[kb] = {(s, e) for s, e, _ in found}
    aged: dict[bytes, list[list[Any]]] = {}  # key bytes -> its sessions gone past retention in the batch
    cache: dict[tuple, list[Any]] = {}  # (kb, start, end) -> [rec, exists, headers], in update order
    seen: set[tuple] = {(kb, s, e) for kb, ses in stored.items() for s, e in ses}  # downstream has a row
    st = agg.stream_time
    late = 0
    agg.cached = cap > 0
    try:
        for (key, args, ts, hd), kb in zip(items, keyed, strict=True):
            ses = live[kb]
            if ses and ses[0][1] <= st - retention:  # past retention (session_retention): out of reach
                gone = expired_up_to(st, retention)
                old = aged.setdefault(kb, [])
                while ses and ses[0][1] <= gone:
                    old.append(ses.pop(0))
            if ts > st:
                st = ts
            close = st - grace - gap  # SessionAggregator.close_time
            lo, hi = ts - gap, ts + gap
            # sessions are ordered by end and never overlap: when the record reaches at most the last one
            # (records mostly come in time order), that is all there is to find, and the merged session
            # goes last again
            if not ses or ses[-1][1] < lo:
                hits, tail = [], True
            elif ses[-1][0] <= hi and (len(ses) == 1 or ses[-2][1] < lo):
                hits, tail = [ses[-1]], True
            else:
                hits, tail = [x for x in ses if x[1] >= lo and x[0] <= hi], False
            start = end = ts
            for x in hits:
                if x[0] < start:
                    start = x[0]
                if x[1] > end:
                    end = x[1]
            if end < close:
                late += 1
                continue
            merging = (start, end) != (ts, ts)  # else the one hit is [ts, ts] itself: replaced, not deleted
            deletes: list[tuple] = []
            if merging and not cap:  # decided before ``merge`` may reuse the old accumulators
                for x in hits:
                    agg.tombstone(deletes, x[2], x[0], x[1], x[1], hd)
            rec = new(key, ts)
            for x in hits:
                rec = merge(rec, x[2])
            rec = add(rec, args, ts)
            for x in hits:
                if tail:
                    ses.pop()
                else:
                    ses.remove(x)
                if merging and cap:  # the record cache: an update goes last; all goes out when it is full
                    sk = (kb, x[0], x[1])
                    if sk in cache:
                        del cache[sk]
                    cache[sk] = [x[2], False, hd]
                    if len(cache) > cap:
                        _flush(cache, agg, out, seen)
            if deletes:
                out.extend(deletes)
            if tail:
                ses.append([start, end, rec, True])
            else:
                i = 0
                while i < len(ses) and ses[i][1] < end:
                    i += 1
                ses.insert(i, [start, end, rec, True])
            if cap:
                sk = (kb, start, end)
                if sk in cache:
                    del cache[sk]
                cache[sk] = [rec, True, hd]
                if len(cache) > cap:
                    _flush(cache, agg, out, seen)
            else:
                agg.emit(out, rec, False, start, end, end, hd)
    finally:
        agg.stream_time = st
        agg.late += late
        if cache:
            _flush(cache, agg, out, seen)
    for kb, ses in live.items():
        bounds = {(s, e) for s, e, _, _ in ses}
        # past retention: the batch's own still stored (of equal bounds the later, as aged last)
        for s, e, rec, changed in reversed(aged.get(kb, ())):
            if (s, e) not in bounds:
                bounds.add((s, e))
                if changed:
                    store.put(kb, s, e, rec)
        for s, e, rec, changed in ses:
            if changed:
                store.put(kb, s, e, rec)
        for s, e in stored[kb] - bounds:
            store.remove(kb, s, e)


def _flush(cache: dict[tuple, list[Any]], agg: Any, out: list[tuple], seen: set[tuple]) -> None:
    """The cache goes out: each session's row, or its delete if downstream has seen it."""
    for sk, (rec, exists, hd) in cache.items():
        s, e = sk[1], sk[2]
        if exists:
            agg.emit(out, rec, False, s, e, e, hd)
            seen.add(sk)
        elif sk in seen:
            agg.tombstone(out, rec, s, e, e, hd)
            seen.discard(sk)
    cache.clear()
