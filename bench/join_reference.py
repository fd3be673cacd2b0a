"""What a stream-table join workload's result may be, computed from the generated events themselves.

q3 and q20 join a stream to a table built from another topic (ksqlDB: ``auction JOIN person_t``, ``bid
JOIN auction_t``). In ksqlDB a stream record meets the table as it is when the record is processed, and
Kafka Streams processes its inputs' records lowest timestamp first. So for a stream record at ``t``:

* a table row written before ``t`` is always there (``before``): every engine must produce these rows;
* a table row written *at* ``t`` (the same millisecond, ``same_ms``) may or may not be: Kafka Streams
  orders only by timestamp, and which of two equal timestamps goes first depends on what each input has
  buffered (in ksqlpy: what one fetch of each input holds - a repartitioned stream, as q3's auctions,
  lags its table's topic);
* a table row written after ``t`` (``after``) is never there - only a regular join (Flink's and
  Pathway's q3, Nexmark's own) matches it, whenever it comes.

Each id is written once, so there is nothing else to it. The harness compares every engine's final
result with these parts (``explain``): by digest (``final_results`` digests add up row by row), and for
ksqlpy, whose rows it dumps, row by row - which of the ``same_ms`` rows it produced.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from bench.final_results import _hash, normalize
from bench.workloads import WORKLOADS

Row = dict[str, Any]


@dataclass(frozen=True)
class _Join:
    stream: str  # topic of the stream side
    table: str  # topic of the table side
    stream_key: Callable[[int, Row], int]  # (record key, value) -> the table id it joins on
    stream_filter: Callable[[Row], bool]
    table_filter: Callable[[Row], bool]
    row: Callable[[int, Row, int, Row], Row]  # (stream key, stream value, table key, table value) -> output
    regular: tuple[str, ...] = ()  # peers whose program for the workload is a regular (not temporal) join


JOINS: dict[str, _Join] = {
    "q3": _Join("auction", "person", lambda k, v: v["seller"], lambda v: v["category"] == 10,
                lambda v: v["state"] in ("OR", "ID", "CA"),
                lambda ak, a, pk, p: {"seller": a["seller"], "name": p["name"], "city": p["city"],
                                      "state": p["state"], "id": ak},
                regular=("flink", "pathway")),
    "q20": _Join("bid", "auction", lambda k, v: k, lambda v: True, lambda v: v["category"] == 10,
                 lambda bk, b, ak, a: {"auction": bk, **{c: b[c] for c in ("bidder", "price", "channel", "url",
                                                                             "date_time", "extra")},
                                       **{c: a[c] for c in ("item_name", "description", "initial_bid", "reserve",
                                                            "expires", "seller", "category")},
                                       "a_date_time": a["date_time"], "a_extra": a["extra"]}),
}


@dataclass
class JoinReference:
    """The rows of one join workload by when the table row came: counts and digests of ``before``, the
    rows of ``same_ms`` and ``after`` (canonical, as ``final_results`` writes them)."""

    workload: str
    before: dict[str, Any]  # {"rows": n, "digest": hex}
    same_ms: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)

    def outcome(self, *, same_ms: Iterable[str] = (), after: Iterable[str] = ()) -> dict[str, Any]:
        """The final result (``Result.summary`` form) of ``before`` plus the given rows."""
        extra = [*same_ms, *after]
        total = int(self.before["digest"], 16)
        for r in extra:
            total = (total + _hash(json.loads(r))) % 2 ** 64
        return {"rows": self.before["rows"] + len(extra), "digest": f"{total:016x}"}

    def classify(self, engine: str, final: dict[str, Any], rows: list[str] | None = None) -> tuple[bool, str]:
        """Whether a final result is one the engine's join may give, and what it is: a regular join's for
        the peers whose program is one (``_Join.regular``), else one as of the stream row's time. ``rows``:
        the engine's canonical rows when it dumped them (then the ``same_ms`` rows it matched are named)."""
        n_same, n_after = len(self.same_ms), len(self.after)
        final = {k: final[k] for k in ("rows", "digest")}
        full = self.outcome(same_ms=self.same_ms, after=self.after)
        as_regular = (f"a regular join's: also the {n_same:,} rows whose table row has the stream row's timestamp "
                      f"and the {n_after:,} whose table row came later")
        if engine.split("-")[0] in JOINS[self.workload].regular:
            return (True, as_regular) if final == full else (False, f"not the regular join's {full['rows']:,} rows")
        if final == self.outcome(same_ms=self.same_ms):
            return True, f"as of the stream row's time, every one of the {n_same:,} equal timestamps table first"
        if final == self.outcome():
            return True, f"as of the stream row's time, every one of the {n_same:,} equal timestamps stream first"
        if final == full:
            return False, as_regular + " (a stream-table join never meets a later table row)"
        if rows is None:
            return False, "none of the join's outcomes (its rows were not dumped to tell which differ)"
        have = set(rows)
        got_same = [r for r in self.same_ms if r in have]
        got_after = [r for r in self.after if r in have]
        if final != self.outcome(same_ms=got_same, after=got_after):
            return False, "rows beyond the join's (or some table row earlier than the stream row missed)"
        if got_after:
            return False, f"{len(got_after):,} rows whose table row came after the stream row: {got_after[:3]}"
        missed = [r for r in self.same_ms if r not in have]
        return (True, f"as of the stream row's time; of the {n_same:,} rows whose table row has the stream row's "
                      f"timestamp, {len(got_same):,} matched (table row processed first) and {len(missed):,} "
                      f"did not: {', '.join(missed[:10])}{' ...' if len(missed) > 10 else ''}")

    def to_json(self) -> dict[str, Any]:
        return {"workload": self.workload, "before": self.before, "same_ms": self.same_ms, "after": self.after}


def compute(events: Iterable[tuple[str, bytes, bytes, int]], workloads: Iterable[str]) -> dict[str, JoinReference]:
    """One pass over the events (``(topic, key, value, timestamp)`` in event order) for every join workload."""
    joins = {w: JOINS[w] for w in workloads if w in JOINS}
    tables: dict[str, dict[int, tuple[int, Row]]] = {j.table: {} for j in joins.values()}
    pending: dict[str, list[tuple[int, Row, int]]] = {w: [] for w in joins}  # stream records: (key, value, ts)
    for topic, kb, vb, ts in events:
        key = int.from_bytes(kb, "big", signed=True)
        if topic in tables:
            tables[topic][key] = (ts, json.loads(vb))
        for w, j in joins.items():
            if topic == j.stream:
                v = json.loads(vb)
                if j.stream_filter(v):
                    pending[w].append((key, v, ts))
    out = {}
    for w, j in joins.items():
        cols = WORKLOADS[w].result.columns
        table = tables[j.table]
        before_rows, total = 0, 0
        ref = JoinReference(w, {})
        for key, v, ts in pending[w]:
            tk = j.stream_key(key, v)
            hit = table.get(tk)
            if hit is None or not j.table_filter(hit[1]):
                continue
            canon = [normalize(j.row(key, v, tk, hit[1])[c]) for c in cols]
            if hit[0] < ts:
                before_rows += 1
                total = (total + _hash(canon)) % 2 ** 64
            else:
                (ref.same_ms if hit[0] == ts else ref.after).append(json.dumps(canon, separators=(",", ":")))
        ref.before = {"rows": before_rows, "digest": f"{total:016x}"}
        out[w] = ref
    return out


def references(events: int, seed: int, workloads: Iterable[str], data_dir: str) -> dict[str, JoinReference]:
    """The join workloads' references for the generated events, cached as JSON in ``data_dir`` (the
    generated log's directory)."""
    want = [w for w in workloads if w in JOINS]
    path = os.path.join(data_dir, "join-references.json")
    cached: dict[str, Any] = {}
    if os.path.exists(path):
        with open(path) as f:
            cached = json.load(f)
    missing = [w for w in want if w not in cached]
    if missing:
        from bench.nexmark import NexmarkGenerator

        for w, ref in compute(NexmarkGenerator(events, seed), missing).items():
            cached[w] = ref.to_json()
        with open(path, "w") as f:
            json.dump(cached, f)
    return {w: JoinReference(w, cached[w]["before"], cached[w]["same_ms"], cached[w]["after"]) for w in want}


def explain(agreement: list[dict[str, Any]], results: list[dict[str, Any]],
            refs: dict[str, JoinReference]) -> None:
    """Annotate each disagreeing join workload of ``final_results.compare``'s output with what every
    engine's result is (``explanations``) and whether each is one the engine's join may give
    (``explained``)."""
    for a in agreement:
        ref = refs.get(a["workload"])
        if a["agree"] or ref is None:
            continue
        notes, ok = [], True
        for r in results:
            if r.get("workload") != a["workload"] or not r.get("final"):
                continue
            rows = None
            if r.get("rows_dump") and os.path.exists(r["rows_dump"]):
                with open(r["rows_dump"]) as f:
                    rows = f.read().splitlines()
            fine, what = ref.classify(r["engine"], r["final"], rows)
            ok = ok and fine
            notes.append(f"{r['engine']} ({r['log']}): {r['final']['rows']:,} rows - {what}")
        a["explained"] = ok
        a["explanations"] = notes
