"""SESSION windows, EMIT CHANGES without HAVING, record cache on: a batch folded key by key.

With the record cache on, what leaves a batch is each session's last state, in the order of the last
updates: the row of every session the batch changed that still exists, the delete of every session
downstream has seen (stored before the batch) that the batch merged away. Neither depends on how the
updates of different keys interleave, only on where each key's last update lies. So the batch's records
are grouped by key first (a key has tens of records in a batch of a busy stream), and each key's records
run through its sessions on their own - one store read per key, its sessions in a small list, and the
common step (a record extending the key's last session, which this batch made) an in-place update.

The rules are ``SessionAggregator``'s record by record (``session_batch`` has the same loop over the whole
batch): a record's stream time is the running maximum of the batch's timestamps up to it; the close time
and the late drop, the sessions a record reaches, their merge from a fresh accumulator in end order before
the record is added. The in-place step adds the record to the session's accumulators directly, which is
the merge from a fresh accumulator only when a fresh accumulator is merge's identity - so only when every
aggregate is ``order_free`` (COUNT, integer SUM, MIN/MAX of non-floating types), and only for a session
made in this batch (a stored one is never changed in place).

A session that falls past retention as the batch's stream time grows (``session_retention``) leaves the
key's list at the first record it is out of reach for; if the batch made or changed it, it is still stored
and its row goes out at its last update's place.

It applies when the cache cannot fill during the batch: it holds at most one entry per session the batch
touches - the stored ones it reads plus at most one new one per record. Otherwise (or with the cache off)
``session_batch.stream_sessions`` runs, which flushes a full cache as it goes.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from itertools import accumulate
from operator import itemgetter
from typing import Any

from ksqlpy.runtime.accumulate import Accumulators
from ksqlpy.runtime.aggregator import encode_key
from ksqlpy.runtime.session_retention import expired_up_to

# a session: [start, end, accumulators, made in this batch, position of its last update,
#             its (start, end) is that of a stored session]
_S, _E, _REC, _OWN, _POS, _STORED = range(6)

_first = itemgetter(0)
_ts = itemgetter(2)


# ``run(pos, k, tss, rows, rec, cs, ce, pe, safe, aged) -> (k, cs, ce)``: the in-place steps from ``pos[k]`` on
Run = Callable[..., tuple[int, int, int]]


def build_run(accs: Accumulators, gap: int) -> Run | None:
    """The in-place step over a run of one key's records, generated with the aggregates' inline updates;
    None unless every aggregate is ``order_free``. It stops before the first record that reaches more or
    less than the session ``[cs, ce]`` (the last of its key; ``pe``: the end of the one before) or could
    be late (its session would end before ``safe``, the batch's last close time), and does not start while
    the session may be past retention at some record of the batch (it ends at or before ``aged``): the
    caller's exact step takes that one."""
    if not all(getattr(r, "order_free", False) for r in accs.resolved):
        return None
    ns: dict[str, Any] = {}
    adds = accs.inline_add("q_rec", "q_a", ns, " " * 8)
    uses_args = any("q_a" in ln for ln in adds)
    src = "\n".join([
        "def q_run(q_pos, q_k, q_tss, q_rows, q_rec, q_cs, q_ce, q_pe, q_safe, q_aged):",
        "    q_n = len(q_pos)",
        "    q_mts = q_rec[0]",
        f"    q_lo, q_hi = q_cs - {gap}, q_ce + {gap}",
        "    if q_ce <= q_aged:",
        "        return q_k, q_cs, q_ce",
        "    while q_k < q_n:",
        "        q_i = q_pos[q_k]",
        "        q_ts = q_tss[q_i]",
        f"        if q_ts < q_lo or q_ts > q_hi or q_ts - {gap} <= q_pe:",
        "            break",
        "        if q_ts > q_ce:",
        "            if q_ts < q_safe:",
        "                break",
        "            q_ce = q_ts",
        f"            q_hi = q_ts + {gap}",
        "        elif q_ce < q_safe:",
        "            break",
        "        elif q_ts < q_cs:",
        "            q_cs = q_ts",
        f"            q_lo = q_ts - {gap}",
        *(["        q_a = q_rows[q_i][1]"] if uses_args else []),
        *adds,
        "        if q_ts > q_mts:",
        "            q_mts = q_ts",
        "        q_k += 1",
        "    q_rec[0] = q_mts",
        "    return q_k, q_cs, q_ce",
    ])
    exec(compile(src, "<ksqlpy-session-run>", "exec"), ns)  # noqa: S102 - generated from resolved UDAFs
    run: Run = ns["q_run"]
    return run


def fold_sessions(agg: Any, items: list[tuple], out: list[tuple], run: Run | None) -> bool:
    """The batch's outputs into ``out`` and its sessions into the store (see the module docstring); False
    (nothing done) when the record cache is off or could fill during the batch. ``run``: ``build_run``'s."""
    spec = agg.spec
    cap = spec.cache_entries
    if cap <= 0 or len(items) > cap or not items:
        return False
    groups = _groups(items)
    gap = spec.size
    store = agg.sessions
    tss = list(map(_ts, items))
    found: dict[bytes, list[tuple[int, int, Any]]] = {}
    touched = 0
    for kb, pos in groups.items():
        if len(pos) == 1:
            t = tss[pos[0]]
            f = found[kb] = store.find(kb, t - gap, t + gap)
        else:
            ts_k = [tss[i] for i in pos]
            f = found[kb] = store.find(kb, min(ts_k) - gap, max(ts_k) + gap)
        touched += len(f)
    if touched + len(items) > cap:
        return False
    gl = spec.grace + gap
    st_end = max(agg.stream_time, max(tss))
    safe = st_end - gl  # a session ending here or later is on time for every record of the batch
    retention = spec.retention
    aged_by_end = expired_up_to(st_end, retention)  # a session ending later is in reach for every record
    sts: list[int] = []  # the stream time at each record (sts[i + 1]), computed when a record may be late
    accs = spec.accs
    new, merge, add = accs.new, accs.merge, accs.add
    events: list[tuple[int, int, int, int, int, Any]] = []  # (position, 0 delete | 1 row, order, start, end, rec)
    late = 0
    for kb, pos in groups.items():
        f = found[kb]
        stored = {(s, e) for s, e, _ in f}
        ses: list[list[Any]] = [[s, e, rec, False, -1, True] for s, e, rec in f]
        gone: dict[tuple[int, int], tuple[int, int, Any]] = {}  # stored sessions merged away
        aged: list[list[Any]] = []  # sessions past retention, in end order
        # ``hot``: the key's last session when it was made in this batch and ``run`` applies
        hot: list[Any] | None = None
        pe: float = -math.inf  # the end of the session before ``hot``
        k, n = 0, len(pos)
        while k < n:
            if hot is not None:
                k2, hot[_S], hot[_E] = run(pos, k, tss, items, hot[_REC], hot[_S], hot[_E], pe, safe,  # type: ignore[misc]
                                           aged_by_end)
                if k2 > k:
                    hot[_POS] = i = pos[k2 - 1]
                    hot[_REC][1] = items[i][0]  # as ``new(key, ts)`` would have it
                    k = k2
                    if k == n:
                        break
                hot = None
            i = pos[k]
            k += 1
            if ses and ses[0][_E] <= aged_by_end:  # may be past retention at this record (session_retention)
                if not sts:
                    sts = list(accumulate(tss, max, initial=agg.stream_time))
                cut = expired_up_to(sts[i], retention)
                while ses and ses[0][_E] <= cut:  # out of reach; still written and sent if the batch made it
                    aged.append(ses.pop(0))
            key, args, ts, _ = items[i]
            end = ts
            lo, hi = ts - gap, ts + gap
            if not ses or ses[-1][_E] < lo:
                hits, tail = [], True
            elif ses[-1][_S] <= hi and (len(ses) == 1 or ses[-2][_E] < lo):
                hits, tail = [ses[-1]], True
            else:
                hits, tail = [x for x in ses if x[_E] >= lo and x[_S] <= hi], False
            start = end = ts
            for x in hits:
                if x[_S] < start:
                    start = x[_S]
                if x[_E] > end:
                    end = x[_E]
            if end < safe:
                if not sts:
                    sts = list(accumulate(tss, max, initial=agg.stream_time))
                if end < sts[i + 1] - gl:
                    late += 1
                    continue
            rec = new(key, ts)
            for x in hits:
                rec = merge(rec, x[_REC])
            rec = add(rec, args, ts)
            for j, x in enumerate(hits):
                if tail:
                    ses.pop()
                else:
                    ses.remove(x)
                if x[_STORED]:  # downstream has its row: its delete goes out unless it comes back
                    gone[(x[_S], x[_E])] = (i, j, x[_REC])
            made = [start, end, rec, True, i, (start, end) in stored]
            if tail:
                ses.append(made)
                if run is not None and not made[_STORED]:
                    hot = made
                    pe = ses[-2][_E] if len(ses) > 1 else -math.inf
            else:
                m = 0
                while m < len(ses) and ses[m][_E] < end:
                    m += 1
                ses.insert(m, made)
        live = {(x[_S], x[_E]) for x in ses}
        # the ones the batch made or changed are stored and go out as any other; of two with the same
        # bounds (one made where the other had aged) the later one is the session
        for x in reversed(aged):
            s, e = x[_S], x[_E]
            if x[_OWN] and (s, e) not in live:
                live.add((s, e))
                store.put(kb, s, e, x[_REC])
                events.append((x[_POS], 1, 0, s, e, x[_REC]))
            elif not x[_OWN]:
                live.add((s, e))  # stored and untouched: left to the purge
        for x in ses:
            if x[_OWN]:
                s, e = x[_S], x[_E]
                store.put(kb, s, e, x[_REC])
                events.append((x[_POS], 1, 0, s, e, x[_REC]))
        for s, e in stored - live:
            store.remove(kb, s, e)
        for (s, e), (i, j, rec) in gone.items():
            if (s, e) not in live:
                events.append((i, 0, j, s, e, rec))
    agg.stream_time = st_end
    agg.late += late
    agg.cached = True
    events.sort(key=_order)
    emit, tombstone = agg.emit, agg.tombstone
    for i, row, _, s, e, rec in events:
        if row:
            emit(out, rec, False, s, e, e, items[i][3])
        else:
            tombstone(out, rec, s, e, e, items[i][3])
    return True


# cache order: the position of the last update; within one record its deletes (in end order), then its row
_order = itemgetter(0, 1, 2)


def _groups(items: list[tuple]) -> dict[bytes, list[int]]:
    """Key bytes -> positions of the key's records, in batch order (keys as the store has them)."""
    by_key: defaultdict[Any, list[int]] = defaultdict(list)
    try:
        for i, key in enumerate(map(_first, items)):
            by_key[key].append(i)
    except TypeError:  # an unhashable key value (STRUCT, ARRAY, MAP): the key's bytes stand in
        by_key.clear()
        for i, key in enumerate(map(_first, items)):
            by_key[encode_key(key)].append(i)
        return by_key
    out: dict[bytes, list[int]] = {}
    for key, pos in by_key.items():
        kb = encode_key(key)
        had = out.get(kb)
        # equal bytes from unequal keys (NaN): one key to the store
        out[kb] = pos if had is None else sorted(had + pos)
    return out
