"""Generates session-topk-merges.json: TOPK and TOPKDISTINCT in SESSION windows, where records grow and
bridge sessions, so every update goes through the aggregate's merger.

Kafka Streams' session aggregation (KStreamSessionWindowAggregate, from memory) starts each record from a fresh
aggregate, merges into it every session of the key within the gap of the record, in the store's order (by
session end), ``agg = merger(agg, session)``, then adds the record; each merged session is deleted downstream
(a tombstone at its end) before the merged session is written at its end. The aggregate functions are
modelled here as ksqlDB's TopkKudaf / TopkDistinctKudaf are written (from memory), on descending lists:

* ``aggregate``: a NULL leaves the list; a full list (size == k) drops a value not above its last element,
  else its last element is replaced; a list not full appends; then a stable descending sort (ties keep their
  order: the older first). TOPKDISTINCT also skips a value the list holds.
* ``merge(aggOne, aggTwo)``: the k largest taken head by head, ``aggOne`` (the running aggregate) first on a
  tie; a list shorter than k keeps all its values (TOPKDISTINCT takes an equal pair once).

With k = 2 a merge of one session into a fresh aggregate never drops a value (the case the other files
cover); here k is 3 or 5, the sessions hold fewer than k values, and with TOPK(V, W, k) ties of the sort
column show which session's rows come first.

Run ``python tests/cases/aggregations/gen_session_topk_merges.py`` after changing it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
GAP = 10
Entry = Any  # a value, or (sort value, other column) for TOPK with another column


def _sort_key(e: Entry) -> Any:
    return e[0] if isinstance(e, tuple) else e


def java_add(acc: list[Entry], v: Entry, k: int, distinct: bool) -> list[Entry]:
    if _sort_key(v) is None:
        return acc
    acc = list(acc)
    if acc and len(acc) == k and _sort_key(v) <= _sort_key(acc[-1]):
        return acc
    if distinct and v in acc:
        return acc
    if len(acc) == k:
        acc[-1] = v
    else:
        acc.append(v)
    acc.sort(key=_sort_key, reverse=True)  # stable, as List.sort
    return acc


def java_merge(one: list[Entry], two: list[Entry], k: int, distinct: bool) -> list[Entry]:
    out: list[Entry] = []
    i = j = 0
    for _ in range(k):
        v1 = one[i] if i < len(one) else None
        v2 = two[j] if j < len(two) else None
        if v1 is None and v2 is None:
            break
        if v1 is not None and (v2 is None or _sort_key(v1) > _sort_key(v2)
                               or (not distinct and _sort_key(v1) == _sort_key(v2))):
            out.append(v1)
            i += 1
        elif v2 is not None and (v1 is None or _sort_key(v1) < _sort_key(v2)):
            out.append(v2)
            j += 1
        else:  # TOPKDISTINCT: equal heads are one value
            out.append(v1)
            i += 1
            j += 1
    return out


def sessions_outputs(records: list[tuple[Entry, int]], add: Callable[[list[Entry], Entry], list[Entry]],
                     merge: Callable[[list[Entry], list[Entry]], list[Entry]],
                     render: Callable[[list[Entry]], Any]) -> list[dict[str, Any]]:
    """Key 1's records (value, timestamp), none late (the default grace is a day): the sink's records."""
    store: list[tuple[int, int, list[Entry]]] = []  # (start, end, aggregate)
    out: list[dict[str, Any]] = []
    for v, ts in records:
        hits = sorted((s for s in store if s[1] >= ts - GAP and s[0] <= ts + GAP), key=lambda s: (s[1], s[0]))
        agg: list[Entry] = []
        start = end = ts
        for s in hits:
            agg = merge(agg, s[2])
            start, end = min(start, s[0]), max(end, s[1])
        agg = add(agg, v)
        for s in hits:
            store.remove(s)
            out.append(_row(None, s[0], s[1]))
        store.append((start, end, agg))
        out.append(_row({"R": render(agg)}, start, end))
    return out


def _row(value: Any, start: int, end: int) -> dict[str, Any]:
    return {"topic": "OUTPUT", "key": 1, "value": value, "timestamp": end,
            "window": {"start": start, "end": end, "type": "session"}}


# (value, timestamp): a session grows record by record ([0, 4]); a second one starts at 20; a record at 12
# bridges them ([0, 24]); later ones extend the bridged session
VALUES: dict[str, list[Any]] = {
    "INT": [5, 3, None, 7, 30, 9, 1, 0, 8, 3],
    "STRING": ["m", "c", None, "x", "zz", "z", "a", "0", "y", "c"],
}
TIMES = [0, 2, 3, 4, 20, 22, 24, 12, 30, 5]
TIES = [(3, "a"), (1, "x"), (3, "b"), (3, "c"), (2, "d"), (3, "e")]  # TOPK(V, W, k): sort column ties
TIE_TIMES = [0, 2, 20, 12, 25, 1]


def _stream(t: str) -> str:
    return (f"CREATE STREAM INPUT (ID INT KEY, V {t}, W STRING) WITH (kafka_topic='input', value_format='JSON', "
            "partitions=1);")


def _cases() -> list[dict[str, Any]]:
    cases = []
    for t, values in VALUES.items():
        for fn, distinct in (("TOPK", False), ("TOPKDISTINCT", True)):
            for k in (3, 5):
                records = list(zip(values, TIMES, strict=True))
                cases.append({
                    "name": f"{fn}(V, {k}) of {t} in session windows: growing and bridged sessions keep every "
                            f"value up to k",
                    "statements": [_stream(t), f"CREATE TABLE OUTPUT AS SELECT ID, {fn}(V, {k}) AS R FROM INPUT "
                                               f"WINDOW SESSION ({GAP} MILLISECONDS) GROUP BY ID;"],
                    "inputs": [{"topic": "input", "key": 1, "value": {"V": v, "W": "w"}, "timestamp": ts}
                               for v, ts in records],
                    "outputs": sessions_outputs(
                        records,
                        lambda acc, v, k=k, d=distinct: java_add(acc, v, k, d),
                        lambda a, b, k=k, d=distinct: java_merge(a, b, k, d),
                        list),
                })
    for k in (2, 3):
        cases.append({
            "name": f"TOPK(V, W, {k}) in session windows: on a tie of the sort column the earlier session's rows "
                    f"come first",
            "statements": [_stream("INT"), f"CREATE TABLE OUTPUT AS SELECT ID, TOPK(V, W, {k}) AS R FROM INPUT "
                                           f"WINDOW SESSION ({GAP} MILLISECONDS) GROUP BY ID;"],
            "inputs": [{"topic": "input", "key": 1, "value": {"V": v, "W": w}, "timestamp": ts}
                       for (v, w), ts in zip(TIES, TIE_TIMES, strict=True)],
            "outputs": sessions_outputs(
                list(zip(TIES, TIE_TIMES, strict=True)),
                lambda acc, v, k=k: java_add(acc, v, k, False),
                lambda a, b, k=k: java_merge(a, b, k, False),
                lambda acc: [{"SORT_COL": s, "COL0": w} for s, w in acc]),
        })
    return cases


def main() -> None:
    doc = {"comments": ["Generated by gen_session_topk_merges.py - see its docstring for the model."],
           "tests": _cases()}
    (HERE / "session-topk-merges.json").write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
