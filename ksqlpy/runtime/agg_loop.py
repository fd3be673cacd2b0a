"""One generated function per aggregation for a batch of EMIT CHANGES updates without HAVING.

``build_batch_loop(spec)`` writes the per-batch loop of a non-windowed, TUMBLING or HOPPING aggregation as
Python source specialised to the query: window starts computed with arithmetic once per record (a single
window for TUMBLING, no inner loop), accumulator updates written out where the UDAF has an inline form
(COUNT, SUM, MIN, MAX; others are called), and - when every update goes out - the output projection
written out too (its generated slow path, which logs and NULLs a failing column, on any exception).

The semantics are those of the generic loops (``Aggregator.stream``/``TimeWindowAggregator.stream``):

* a (group, window) state record is read from the store on its first update in the batch and put back
  once; later updates change the same list in place, which the store's pending write already holds;
* a window accepts a record while ``end > stream time - grace``, else the record is late for it;
* a UDAF raising on a record drops that record for that group/window (processing log), as before;
* with the record cache (``runtime.record_cache``) an update only marks its (group, window) in the cache
  with the record's position; outputs are built when the cache goes out, in the order of the last updates.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any

from ksqlpy.codegen_cache import compiled
from ksqlpy.runtime.accumulate import untrack
from ksqlpy.runtime.aggregator import AggregateSpec, encode_key
from ksqlpy.runtime.emit import InlineProjection
from ksqlpy.state.windowed import t8

BatchLoop = Callable[[Any, list[tuple], list[tuple]], None]


def build_batch_loop(spec: AggregateSpec, parts: InlineProjection | None) -> BatchLoop | None:
    """``loop(aggregator, items, out)``, or None for what it does not cover (HAVING, sessions, EMIT FINAL
    without a window, a projection that cannot be pasted in: ``parts``)."""
    if spec.having or spec.window_type == "SESSION" or (spec.emit_final and spec.window_type is None):
        return None
    if parts is None:
        return None
    windowed = spec.window_type is not None
    ns: dict[str, Any] = {"encode_key": encode_key, "t8": t8, "q_project": spec.project, "q_untrack": untrack}
    cached = spec.cache_entries > 0 and not spec.emit_final
    src = _source(spec, windowed, cached, parts, ns)
    exec(compiled(src, "<ksqlpy-aggregate-batch>"), ns)  # noqa: S102 - generated from the plan
    loop: BatchLoop = ns["q_loop"]
    return loop


def _source(spec: AggregateSpec, windowed: bool, cached: bool, parts: Any, ns: dict[str, Any]) -> str:
    accs = spec.accs
    size, adv, grace = spec.size, spec.advance or spec.size, spec.grace
    hopping = windowed and adv != size
    per = size // adv + 1 if windowed else 1  # more than the windows of one record
    L: list[str] = [
        "def q_loop(q_agg, q_items, q_out):",
        "    q_get, q_put = q_agg.kv.get, q_agg.kv.put",
        "    q_touched = {}",
        "    q_kbs = {}",
        "    q_cache = {}",
        "    q_append = q_out.append",
        "    q_st = q_agg.stream_time",
        "    q_late = 0",
        "    q_i = -1",
        f"    q_check = len(q_items) * {per if windowed else 1} > {spec.cache_entries}",
        f"    q_agg.cached = {cached}",
    ]
    # slices of ``advance`` ms lie wholly inside or outside each window only if the size is a multiple
    sliced = cached and hopping and size % adv == 0 and all(
        getattr(r, "order_free", False) and r.merge is not None for r in accs.resolved)
    if sliced:
        # no record late for any of its windows and no overflow possible: pre-aggregate per slice
        ns["q_ts_of"] = _ts_of
        L += ["    if q_items and not q_check:",
              "        q_lo = min(map(q_ts_of, q_items))",
              "        q_hi = max(q_st, max(map(q_ts_of, q_items)))",
              f"        q_lo = q_lo - {size - adv}",
              f"        if (q_lo // {adv} * {adv} if q_lo > 0 else 0) + {size} > q_hi - {grace}:",
              "            q_agg.stream_time = q_hi",
              "            q_sliced(q_agg, q_items, q_out)",
              "            return"]
    L += [
        "    try:",
        "        for q_key, q_a, q_ts, q_hd in q_items:",
        "            q_i += 1",
        "            if q_ts > q_st:",
        "                q_st = q_ts",
    ]
    ind = " " * 12
    if windowed:
        L.append(f"{ind}q_close = q_st - {grace}")
        if hopping:
            L += [f"{ind}q_first = q_ts - {size - adv}",
                  f"{ind}q_first = q_first // {adv} * {adv} if q_first > 0 else 0",
                  f"{ind}for q_ws in range(q_first, q_ts + 1, {adv}):"]
        elif spec.emit_final:  # a loop of one window: ``continue`` must still reach the emission below
            L += [f"{ind}for q_ws in ((q_ts // {size} * {size},) if q_ts >= 0 else ()):"]
        else:
            L += [f"{ind}if q_ts < 0:", f"{ind}    continue", f"{ind}q_ws = q_ts // {size} * {size}", f"{ind}if True:"]
        ind += "    "
        L += [f"{ind}q_we = q_ws + {size}",
              f"{ind}if q_we <= q_close:",
              f"{ind}    q_late += 1",
              f"{ind}    continue",
              f"{ind}q_tk = (q_key, q_ws)"]
    else:
        L.append(f"{ind}q_tk = q_key")
    L += [f"{ind}try:",
          f"{ind}    q_rec = q_touched.get(q_tk)",
          f"{ind}except TypeError:  # an unhashable key value (STRUCT, ARRAY, MAP): its bytes stand in",
          f"{ind}    q_tk = " + ("(encode_key(q_key), q_ws)" if windowed else "encode_key(q_key)"),
          f"{ind}    q_rec = q_touched.get(q_tk)",
          f"{ind}if q_rec is None:"]
    i2 = ind + "    "
    if windowed:
        L += [f"{i2}if q_tk[0] is q_key:",
              f"{i2}    q_kb = q_kbs.get(q_key)",
              f"{i2}    if q_kb is None:",
              f"{i2}        q_kb = q_kbs[q_key] = encode_key(q_key)",
              f"{i2}else:",
              f"{i2}    q_kb = q_tk[0]",
              f"{i2}q_sk = b'W' + q_kb + t8(q_ws)"]
    else:
        L.append(f"{i2}q_sk = b'K' + (encode_key(q_key) if q_tk is q_key else q_tk)")
    L += [f"{i2}q_rec = q_get(q_sk)",
          f"{i2}q_created = q_rec is None",
          f"{i2}if q_created:",
          f"{i2}    q_rec = q_untrack([q_ts, q_key, {', '.join(f'q_init{i}()' for i in range(len(accs.resolved)))}])"]
    for i, r in enumerate(accs.resolved):
        ns[f"q_init{i}"] = r.init
    # a failing aggregate function is not caught: it stops the task, as in ksqlDB (errors.StreamsError)
    add_lines = accs.inline_add("q_rec", "q_a", ns, "")
    L += [i2 + ln for ln in add_lines]
    L += [f"{i2}if q_ts > q_rec[0]:",
          f"{i2}    q_rec[0] = q_ts",
          f"{i2}q_put(q_sk, q_rec)"]
    if windowed:
        L += [f"{i2}if q_created:", f"{i2}    q_put(b'I' + t8(q_ws) + q_kb, 1)"]
    L += [f"{i2}q_touched[q_tk] = q_rec",
          f"{ind}else:"]
    L += [i2 + ln for ln in add_lines]
    L += [f"{i2}if q_ts > q_rec[0]:",
          f"{i2}    q_rec[0] = q_ts"]
    if spec.emit_final:
        # after each record, once the close time passed the last emission: the windows that closed go out
        # (Aggregator.emit_closed reads the window store, whose pending writes hold these very lists).
        # Window starts are multiples of the advance: if none lies between the last emission's and this
        # close time's latest closed start, nothing closed and only the emission mark moves, as
        # emit_closed would move it (not while no window can have closed yet).
        # With a throttle, a record looks only when Aggregator.emit_slot lets it (every record asks: a look
        # uses up the interval even when nothing closed).
        i1 = ind[:-4]
        look = ["q_le = q_agg.last_emit",
                "if q_le is None or q_close > q_le:",
                f"    if q_le is not None and (q_close - {size}) // {adv} == (q_le - {size}) // {adv}:",
                f"        if q_close >= {size}:",
                "            q_agg.last_emit = q_close",
                "    else:",
                "        q_agg.stream_time = q_st",
                "        q_agg.emit_closed(q_out, hd=q_hd)"]
        if spec.emit_interval_ms > 0:
            look = ["if q_agg.emit_slot():"] + ["    " + ln for ln in look]
        L += [i1 + ln for ln in look]
    elif cached:
        L += [f"{ind}q_cache[q_tk] = q_i" + (f" * {per} + (q_ws - q_first) // {adv}" if hopping else ""),
              f"{ind}if q_check and len(q_cache) > {spec.cache_entries}:",
              f"{ind}    q_flush(q_agg, q_cache, q_touched, q_items, q_out)"]
    else:
        L += _emit_lines(ind, windowed, "q_hd", accs, parts, ns)
    L += ["    finally:",
          "        q_agg.stream_time = q_st",
          "        if q_late:",
          "            q_agg.late += q_late",
          "        if q_cache:",
          "            q_flush(q_agg, q_cache, q_touched, q_items, q_out)",
          ""]
    # the cache going out: entries in the order of their last update (record position; for hopping windows
    # the window's place among the record's windows, which ascend), each window's current value
    L += ["def q_flush(q_agg, q_cache, q_touched, q_items, q_out):",
          "    q_append = q_out.append",
          "    for q_tk, q_pos in sorted(q_cache.items(), key=q_second):",
          "        q_rec = q_touched[q_tk]",
          f"        q_hd = q_items[q_pos{f' // {per}' if hopping else ''}][3]"]
    if windowed:
        L += ["        q_ws = q_tk[1]", f"        q_we = q_ws + {size}"]
    L += _emit_lines("        ", windowed, "q_hd", accs, parts, ns)
    L += ["    q_cache.clear()", ""]
    if sliced:
        L += _sliced_source(spec, accs, parts, ns)
    ns["q_second"] = _second
    return "\n".join(L)


def _sliced_source(spec: AggregateSpec, accs: Any, parts: Any, ns: dict[str, Any]) -> list[str]:
    """HOPPING windows whose size is a multiple of the advance, cached, order-free aggregates, no late
    record: each record updates one partial accumulator per (group, slice of ``advance`` ms); then each
    touched window merges the partials of its slices - one update per record instead of one per window. A window's place in the output is its last
    contributing record's (then its start, as windows of one record ascend)."""
    size, adv = spec.size, spec.advance
    n = len(accs.resolved)
    for i, r in enumerate(accs.resolved):
        ns[f"q_merge{i}"] = r.merge
    inits = ", ".join(f"q_init{i}()" for i in range(n))
    add_lines = accs.inline_add("q_p", "q_a", ns, "")
    L = ["def q_sliced(q_agg, q_items, q_out):",
         "    q_get, q_put = q_agg.kv.get, q_agg.kv.put",
         "    q_parts = {}",
         "    q_i = -1",
         "    for q_key, q_a, q_ts, q_hd in q_items:",
         "        q_i += 1",
         "        if q_ts < 0:",
         "            continue",
         f"        q_tk = (q_key, q_ts // {adv} * {adv})",
         "        try:",
         "            q_p = q_parts.get(q_tk)",
         "        except TypeError:  # an unhashable key value (STRUCT, ARRAY, MAP): its bytes stand in",
         "            q_tk = (encode_key(q_key), q_tk[1])",
         "            q_p = q_parts.get(q_tk)",
         "        if q_p is None:",
         f"            q_p = q_parts[q_tk] = [q_ts, q_key, {inits}, q_i]"]
    L += ["        " + ln for ln in add_lines]
    L += ["        if q_ts > q_p[0]:",
          "            q_p[0] = q_ts",
          f"        q_p[{n + 2}] = q_i",
          "    q_wins = {}",
          "    q_kbs = {}",
          "    for (q_k0, q_sl), q_p in q_parts.items():",
          "        q_key = q_p[1]",
          "        q_pos = q_p[" + str(n + 2) + "]",
          f"        q_first = q_sl - {size - adv}",
          "        if q_first < 0:",
          "            q_first = 0",
          f"        for q_ws in range(q_first, q_sl + 1, {adv}):",
          "            q_tk = (q_k0, q_ws)",
          "            q_w = q_wins.get(q_tk)",
          "            if q_w is None:",
          "                q_kb = q_kbs.get(q_k0)",
          "                if q_kb is None:",
          "                    q_kb = q_kbs[q_k0] = q_k0 if q_k0.__class__ is bytes else encode_key(q_k0)",
          "                q_sk = b'W' + q_kb + t8(q_ws)",
          "                q_rec = q_get(q_sk)",
          "                if q_rec is None:",
          f"                    q_rec = q_untrack([q_p[0], q_key, {inits}])",
          "                    q_put(b'I' + t8(q_ws) + q_kb, 1)",
          "                q_put(q_sk, q_rec)",
          "                q_wins[q_tk] = q_w = [q_rec, q_pos, q_ws]",
          "            else:",
          "                q_rec = q_w[0]",
          "                if q_pos > q_w[1]:",
          "                    q_w[1] = q_pos"]
    for i in range(n):
        L.append(f"            q_rec[{2 + i}] = q_merge{i}(q_rec[{2 + i}], q_p[{2 + i}])")
    L += ["            if q_p[0] > q_rec[0]:",
          "                q_rec[0] = q_p[0]",
          "    q_append = q_out.append",
          "    for q_rec, q_pos, q_ws in sorted(q_wins.values(), key=q_order):",
          "        q_hd = q_items[q_pos][3]",
          f"        q_we = q_ws + {size}"]
    L += _emit_lines("        ", True, "q_hd", accs, parts, ns)
    L.append("")
    ns["q_order"] = _order
    return L


# the batch loops' sort keys and column reads as C-level getters (a Python function per record was
# 2-3 % of q5's CPU)
_ts_of = itemgetter(2)  # an item's timestamp
_order = itemgetter(1, 2)  # a window ``[rec, position of its last update, start]``: cache order, then start
_second = itemgetter(1)


def _emit_lines(ind: str, windowed: bool, hd: str, accs: Any, parts: Any, ns: dict[str, Any]) -> list[str]:
    """Build the output of ``q_rec`` (window ``q_ws``/``q_we``) inline, the projector's slow path on error."""
    n_cols, exprs_k, exprs_v, consts = parts
    ns.update(consts)
    results = accs.inline_results("q_rec", ns)
    n_keys = n_cols - len(results) - (3 if windowed else 1)
    names = [f"c{i}" for i in range(n_keys)]
    cols = names + [f"c{n_keys + i}" for i in range(len(results))]
    L = [f"{ind}try:"]
    if n_keys:
        L.append(f"{ind}    {', '.join(names)}{',' if n_keys == 1 else ''} = q_rec[1]")
    for name, code in zip(cols[n_keys:], results, strict=True):
        L.append(f"{ind}    {name} = {code}")
    nxt = len(cols)
    if windowed:
        L += [f"{ind}    c{nxt} = q_ws", f"{ind}    c{nxt + 1} = q_we"]
        nxt += 2
    L += [f"{ind}    c{nxt} = q_rec[0]",
          f"{ind}    q_k = ({exprs_k})",
          f"{ind}    q_v = ({exprs_v})",
          f"{ind}except Exception:  # noqa: BLE001 - the projector's slow path logs and NULLs",
          f"{ind}    q_row = q_rec[1] + ({', '.join(results)}{',' if len(results) == 1 else ''})"
          + (" + (q_ws, q_we, q_rec[0])" if windowed else " + (q_rec[0],)"),
          f"{ind}    q_k, q_v, _ = q_project(q_row)"]
    okey = "(q_k, q_ws, q_we)" if windowed else "q_k"
    L.append(f"{ind}q_append(({okey}, q_v, q_rec[0], {hd}))")
    return L
