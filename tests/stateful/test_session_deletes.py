"""SESSION windows: every path (the key-by-key fold, the record-by-record loop, the generic loop that
HAVING and EMIT FINAL take, record cache on and off) gives what ksqlDB gives, batch after batch.

The reference below is Kafka Streams' ``KStreamSessionWindowAggregate`` one record at a time: the sessions
a record reaches are removed and each forwarded as ``Change(null, old)`` (unless the merged session is the
record's own ``[ts, ts]``), then the merged one as ``Change(new, null)``. With the record cache off every
change goes through HAVING's ``KTableFilter`` (old values on: a delete only for an old value that passed,
nothing when neither passes) to the sink. With it on (``CachingSessionStore``) a change only overwrites
the session's cache entry; at the commit - one batch here - each entry goes out in the order of the last
updates as ``Change(last value, value in the store before the batch)``, skipped when both are null, then
through the filter: so a stored session that a batch updates in place and then merges away is deleted
downstream whatever happened to it in between, and a session made and merged away in one batch leaves
nothing.
"""

from __future__ import annotations

import copy
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.runtime import session_windows
from tests.stateful.conftest import Harness

Agg = tuple[int, int]  # COUNT(*), SUM(V)
Rec = tuple[str, int, int]  # key, V, timestamp
Out = tuple[str, int, int, Agg | None]  # key, session start, session end, value (None: a delete)
CACHED = 10_000_000
HAVINGS: dict[str, Callable[[Agg], bool] | None] = {
    "": None,
    " HAVING COUNT(*) > 0": lambda a: a[0] > 0,  # always true: the generic loop, the fast loops' outputs
    " HAVING SUM(V) % 3 <> 0": lambda a: a[1] % 3 != 0,  # comes and goes as a session grows
}


@dataclass
class Shape:
    gap: int
    grace: int | None = None
    retention: int | None = None

    @property
    def sql(self) -> str:
        retention = "" if self.retention is None else f", RETENTION {self.retention} MILLISECONDS"
        grace = "" if self.grace is None else f", GRACE PERIOD {self.grace} MILLISECONDS"
        return f"WINDOW SESSION ({self.gap} MILLISECONDS{retention}{grace})"

    @property
    def kept(self) -> int:
        """The store's retention: RETENTION, else gap + grace."""
        return self.close_lag if self.retention is None else self.retention

    @property
    def close_lag(self) -> int:
        """Stream time - this is the close time (ksqlDB's default grace for SESSION is 24 h)."""
        return self.gap + (86_400_000 if self.grace is None else self.grace)


def reference(batches: list[list[Rec]], shape: Shape, having: Callable[[Agg], bool] | None,
              cached: bool) -> tuple[list[Out], dict[tuple[str, int, int], Agg]]:
    """What ksqlDB writes to the sink (see the module docstring), and the sessions it stores."""
    store: dict[str, dict[tuple[int, int], Agg]] = {}
    st = -1
    out: list[Out] = []

    def passes(v: Agg | None) -> bool:
        return v is not None and (having is None or having(v))

    def to_sink(key: str, s: int, e: int, new: Agg | None, old: Agg | None) -> None:
        if having is None:
            out.append((key, s, e, new))
            return
        new_f, old_f = (new if passes(new) else None), (old if passes(old) else None)
        if new_f is not None or old_f is not None:  # KTableFilter with old values: nothing for null -> null
            out.append((key, s, e, new_f))

    cache: dict[tuple[str, int, int], Agg | None] = {}  # the record cache of one batch (a commit)

    def forward(key: str, s: int, e: int, new: Agg | None, old: Agg | None) -> None:
        if not cached:
            to_sink(key, s, e, new, old)
            return
        cache.pop((key, s, e), None)
        cache[(key, s, e)] = new

    for batch in batches:
        before = copy.deepcopy(store)
        for key, v, ts in batch:
            # the session store finds no session that ended at or before its observed time (the stream
            # time before this record) - retention, whether purged yet or not
            expired = st - shape.kept
            st = max(st, ts)
            ses = store.setdefault(key, {})
            found = sorted(((s, e) for s, e in ses if e >= ts - shape.gap and s <= ts + shape.gap and e > expired),
                           key=lambda b: (b[1], b[0]))
            start = min([ts, *(s for s, _ in found)])
            end = max([ts, *(e for _, e in found)])
            if end < st - shape.close_lag:
                continue  # late: dropped
            agg = (1, v)
            for b in found:
                agg = (agg[0] + ses[b][0], agg[1] + ses[b][1])
            if (start, end) != (ts, ts):
                for s, e in found:
                    forward(key, s, e, None, ses.pop((s, e)))
            ses[(start, end)] = agg
            forward(key, start, end, agg, None)
        for (key, s, e), new in cache.items():
            old = before.get(key, {}).get((s, e))
            if new is not None or old is not None:  # CachingSessionStore: nothing for a session never stored
                to_sink(key, s, e, new, old)
        cache.clear()
        # retention: a session that ended at or before stream time - retention is out of reach for records
        # and for pull queries alike (the store reads from stream time - retention + 1: store_retention)
        for ses in store.values():
            for b in [b for b in ses if b[1] <= st - shape.kept]:
                del ses[b]
    sessions = {(k, s, e): v for k, ses in store.items() for (s, e), v in ses.items()}
    return out, sessions


def _engine(tmp: Any, cache: int) -> Engine:
    return Engine(str(tmp), {"auto.offset.reset": "earliest", "cache.max.bytes.buffering": cache,
                             "ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0})


STREAM = "CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"


def _sql(shape: Shape, having: str, key_format: str = "KAFKA", final: bool = False) -> str:
    with_ = "" if key_format == "KAFKA" else f" WITH (key_format='{key_format}')"
    emit = " EMIT FINAL" if final else ""
    return (f"CREATE TABLE T{with_} AS SELECT K, COUNT(*) AS C, SUM(V) AS S FROM S {shape.sql} "
            f"GROUP BY K{having}{emit};")


def _sink(h: Harness) -> list[Out]:
    got = []
    for (key, s, e), value, ts in h.read("T"):
        k = key[0] if isinstance(key, tuple) else key
        got.append((k, s, e, None if value is None else tuple(value)))
        assert ts == e  # every update and delete carries its session's end
    return got


def _run(tmp: Any, sql: str, batches: list[list[Rec]], cache: int, restart: bool = False,
         record_by_record: pytest.MonkeyPatch | None = None) -> tuple[list[Out], list[tuple]]:
    """The sink's records and every row of ``T`` read back by a pull query - a key lookup of every key the
    batches wrote, a session table allowing no scan - (after a restart on the changelog alone with
    ``restart``); ``record_by_record`` keeps the fold out (``session_batch`` runs instead)."""
    if record_by_record is not None:
        record_by_record.setattr(session_windows, "fold_sessions", lambda *a: False)
    engine = _engine(tmp, cache)
    try:
        h = Harness(engine)
        h.sql(STREAM)
        h.sql(sql)
        for batch in batches:
            for k, v, ts in batch:
                h.send("s", k, {"V": v}, ts)
            h.run()
        got = _sink(h)
        keys = {k for batch in batches for k, _, _ in batch}
        scan = sorted(h.pull_keys("T", "K", keys), key=repr)
        if restart:
            engine.close()
            states = [d for d in Path(tmp).rglob("state") if d.is_dir()]
            assert states
            for d in states:
                shutil.rmtree(d)
            engine = _engine(tmp, cache)
            h = Harness(engine)
            h.sql(STREAM)
            h.sql(sql)
            h.run()
            again = sorted(h.pull_keys("T", "K", keys), key=repr)
            assert again == scan
            assert _sink(h) == got  # restoring the state wrote nothing
        return got, scan
    finally:
        engine.close()
        if record_by_record is not None:
            record_by_record.undo()


def _scan_of(sessions: dict[tuple[str, int, int], Agg], having: Callable[[Agg], bool] | None) -> list[tuple]:
    rows = [(k, s, e, *v) for (k, s, e), v in sessions.items() if having is None or having(v)]
    return sorted(rows, key=repr)


def _pulled(scan: list[tuple]) -> list[tuple]:
    """Pulled rows as (key, start, end, COUNT, SUM) whatever the column order."""
    return sorted(((r[0], r[1], r[2], r[3], r[4]) for r in scan), key=repr)


# ------------------------------------------------------------------------------------------- scenarios
GAP10 = Shape(10)
# a stored session (the first batch) that the next batch updates without changing its bounds, then
# merges into a bigger session; across batches the same in two steps; merges of two and of three sessions
UPDATE_THEN_MERGE = [[("a", 1, 0), ("a", 1, 5)], [("a", 1, 3), ("a", 1, 12)]]
UPDATE_THEN_MERGE_ACROSS = [[("a", 1, 0), ("a", 1, 5)], [("a", 1, 3)], [("a", 1, 12)]]
# a record merged with one stored session ([0, 0], then [0, 5]); with two ([0, 0] and [20, 20]: three parts)
MERGE_TWO = [[("a", 1, 0), ("a", 1, 30)], [("a", 1, 5), ("a", 2, 15)]]
MERGE_THREE = [[("a", 1, 0), ("a", 2, 20), ("a", 1, 40)], [("a", 1, 10), ("a", 1, 30)]]
MERGE_THREE_AT_ONCE = [[("a", 1, 0), ("a", 1, 20), ("a", 1, 40)], [("a", 1, 10), ("a", 1, 20), ("a", 4, 30)]]
# a session made in the batch that merges it away (nothing to delete downstream), next to a stored one
MADE_AND_MERGED = [[("b", 1, 100)], [("a", 1, 0), ("a", 1, 15), ("b", 2, 100), ("a", 1, 8), ("b", 1, 111)]]
SCENARIOS = {"update then merge": UPDATE_THEN_MERGE, "update then merge across batches": UPDATE_THEN_MERGE_ACROSS,
             "merge of two": MERGE_TWO, "merge of three": MERGE_THREE, "three at once": MERGE_THREE_AT_ONCE,
             "made and merged": MADE_AND_MERGED}


def test_a_stored_session_updated_in_place_then_merged_away_is_deleted(tmp_path: Any) -> None:
    """The defect: with HAVING and the record cache, the delete of [0, 5] did not go out (the generic loop
    took a session it had updated in the batch for one downstream never saw)."""
    h = Harness(_engine(tmp_path, CACHED))
    try:
        h.sql(STREAM)
        h.sql(_sql(GAP10, " HAVING COUNT(*) > 0"))
        for batch in UPDATE_THEN_MERGE:
            for k, v, ts in batch:
                h.send("s", k, {"V": v}, ts)
            h.run()
        assert _sink(h) == [("a", 0, 5, (2, 2)), ("a", 0, 5, None), ("a", 0, 12, (4, 4))]
    finally:
        h.engine.close()


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize("having", sorted(HAVINGS))
@pytest.mark.parametrize("cache", [0, CACHED])
def test_scenarios_on_every_path(tmp_path: Any, name: str, having: str, cache: int) -> None:
    batches = SCENARIOS[name]
    want, sessions = reference(batches, GAP10, HAVINGS[having], cache > 0)
    got, scan = _run(tmp_path, _sql(GAP10, having), batches, cache)
    assert got == want
    assert _pulled(scan) == _scan_of(sessions, HAVINGS[having])


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenarios_record_by_record_with_the_cache(tmp_path: Any, name: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop that runs when the cache could fill during a batch, on the same scenarios."""
    batches = SCENARIOS[name]
    want, _ = reference(batches, GAP10, None, True)
    got, _ = _run(tmp_path, _sql(GAP10, ""), batches, CACHED, record_by_record=monkeypatch)
    assert got == want


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenarios_one_record_a_batch(tmp_path: Any, name: str) -> None:
    """One record a batch: the cache holds one update, so cached output is every update - but the deletes
    of sessions made and merged away before they were ever sent."""
    batches = [[r] for b in SCENARIOS[name] for r in b]
    for i, having in enumerate(sorted(HAVINGS)):
        want, _ = reference(batches, GAP10, HAVINGS[having], True)
        got, _ = _run(tmp_path / str(i), _sql(GAP10, having), batches, CACHED)
        assert got == want, having


def test_late_records_inside_and_outside_grace(tmp_path: Any) -> None:
    """Within grace a late record still makes and merges sessions (the stored one's delete goes out); past
    it (its merged session would end before stream time - grace - gap), dropped."""
    shape = Shape(5, 10)
    batches = [[("a", 1, 0), ("a", 1, 12), ("b", 1, 20)],  # close time 5
               [("a", 1, 6), ("a", 2, 9), ("b", 1, 30), ("a", 1, 3)],  # [6, 12] on time; then a at 3 is late
               [("b", 2, 26), ("a", 1, 11)]]  # 26 merges [30, 30] within grace; 11 is late (close time 15)
    for i, having in enumerate(sorted(HAVINGS)):
        for cache in (0, CACHED):
            want, sessions = reference(batches, shape, HAVINGS[having], cache > 0)
            got, scan = _run(tmp_path / f"{i}_{cache}", _sql(shape, having), batches, cache)
            assert got == want, (having, cache)
            assert _pulled(scan) == _scan_of(sessions, HAVINGS[having])
    assert sessions[("b", 26, 30)] == (2, 3)
    assert ("a", 6, 12, (3, 4)) in want  # a at 3 and a at 11 were dropped


@pytest.mark.parametrize("key_format", ["KAFKA", "JSON", "AVRO", "DELIMITED"])
def test_key_formats(tmp_path: Any, key_format: str) -> None:
    for i, having in enumerate(sorted(HAVINGS)):
        for cache in (0, CACHED):
            want, _ = reference(UPDATE_THEN_MERGE + MADE_AND_MERGED, GAP10, HAVINGS[having], cache > 0)
            got, _ = _run(tmp_path / f"{i}_{cache}", _sql(GAP10, having, key_format),
                          UPDATE_THEN_MERGE + MADE_AND_MERGED, cache)
            assert got == want, (having, cache)


def test_state_after_a_restart_on_the_changelog(tmp_path: Any) -> None:
    """The stores rebuilt from their changelogs hold what the batches left (the sessions merged away in
    place included), and restoring writes nothing to the sink."""
    batches = UPDATE_THEN_MERGE + MERGE_THREE_AT_ONCE
    for i, having in enumerate(sorted(HAVINGS)):
        for cache in (0, CACHED):
            want, sessions = reference(batches, GAP10, HAVINGS[having], cache > 0)
            got, scan = _run(tmp_path / f"{i}_{cache}", _sql(GAP10, having), batches, cache, restart=True)
            assert got == want, (having, cache)
            assert _pulled(scan) == _scan_of(sessions, HAVINGS[having])


def test_emit_final_sends_each_closed_session_once_and_no_delete(tmp_path: Any) -> None:
    shape = Shape(10, 0)
    batches = [*UPDATE_THEN_MERGE, [("a", 1, 40)], *MERGE_THREE_AT_ONCE[1:], [("a", 1, 200), ("b", 1, 300)]]
    changes, _ = reference(batches, shape, None, False)
    last: dict[tuple[str, int, int], Agg | None] = {}
    for k, s, e, v in changes:  # every session's last value (the store purges closed ones)
        last[(k, s, e)] = v
    st = max(ts for b in batches for _, _, ts in b)
    closed = sorted((k, s, e, v) for (k, s, e), v in last.items() if v is not None and e < st - shape.close_lag)
    assert len(closed) >= 3
    for cache in (0, CACHED):
        got, _ = _run(tmp_path / str(cache), _sql(shape, "", final=True), batches, cache)
        assert all(v is not None for *_, v in got)
        assert sorted(got) == closed


def _random_batches(seed: int, n: int = 400) -> list[list[Rec]]:
    rnd = random.Random(seed)
    t, recs = 0, []
    for _ in range(n):
        t += rnd.randrange(0, 6)
        recs.append((rnd.choice("abcd"), rnd.randrange(0, 9), max(0, t - rnd.randrange(0, 25))))
    out, i = [], 0
    while i < len(recs):
        size = rnd.choice([1, 2, 5, 17, 60])
        out.append(recs[i:i + size])
        i += size
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_random_batches_on_every_path(tmp_path: Any, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions growing, merging and being bridged within and across batches of 1-60 records, out of order
    within the grace period (so no record is late and none reaches a session past retention)."""
    batches = _random_batches(seed)
    shape = Shape(7, 25)
    for i, having in enumerate(sorted(HAVINGS)):
        for cache in (0, CACHED):
            want, sessions = reference(batches, shape, HAVINGS[having], cache > 0)
            got, scan = _run(tmp_path / f"{i}_{cache}", _sql(shape, having), batches, cache)
            assert got == want, (having, cache)
            assert _pulled(scan) == _scan_of(sessions, HAVINGS[having])
    want, _ = reference(batches, shape, None, True)
    got, _ = _run(tmp_path / "each", _sql(shape, ""), batches, CACHED, record_by_record=monkeypatch)
    assert got == want


# ------------------------------------------------------------------------------ sessions past retention
# gap 5, grace 10 (retention 15): [6, 12] is made, b at 30 moves stream time to 30, then a at 16 is on
# time (close time 15) and within a gap of [6, 12] - but that session ended before 30 - 15 and the store
# no longer finds it: a at 16 starts [16, 16]. In one batch, record by record, and across batches.
PAST = Shape(5, 10)
EXPIRED_IN_BATCH = [[("a", 1, 6), ("a", 1, 9), ("a", 1, 12), ("b", 1, 30), ("a", 1, 16), ("a", 1, 19)]]
# [6, 15] ends exactly at stream time - retention: kept by the purge, found by no record
EXPIRED_AT_THE_EDGE = [[("a", 1, 6), ("a", 1, 10), ("a", 1, 15)], [("b", 1, 30)], [("a", 1, 16)], [("a", 1, 18), ("b", 1, 31)]]
# the same session one millisecond later is still found and grows
RETAINED_AT_THE_EDGE = [[("a", 1, 6), ("a", 1, 11), ("a", 1, 16)], [("b", 1, 30)], [("a", 1, 17)]]
# a made session expires while the batch goes on, its key's later records start new sessions
EXPIRED_MID_KEY = [[("a", 1, 1), ("a", 1, 4), ("c", 2, 3), ("b", 1, 22), ("a", 2, 9), ("c", 1, 8), ("b", 1, 40),
                    ("a", 1, 28), ("a", 1, 30), ("c", 1, 26), ("a", 1, 33)]]
RETENTION_SCENARIOS = {"in batch": EXPIRED_IN_BATCH, "at the edge": EXPIRED_AT_THE_EDGE,
                       "retained at the edge": RETAINED_AT_THE_EDGE, "mid key": EXPIRED_MID_KEY}


def test_a_record_does_not_merge_into_a_session_past_retention(tmp_path: Any) -> None:
    """The defect: the batch loops found [6, 12] in their in-memory sessions and made [6, 16]."""
    h = Harness(_engine(tmp_path, 0))
    try:
        h.sql(STREAM)
        h.sql(_sql(PAST, ""))
        for k, v, ts in EXPIRED_IN_BATCH[0][:5]:
            h.send("s", k, {"V": v}, ts)
        h.run()
        assert _sink(h)[-3:] == [("a", 6, 12, (3, 3)), ("b", 30, 30, (1, 1)), ("a", 16, 16, (1, 1))]
    finally:
        h.engine.close()


@pytest.mark.parametrize("name", sorted(RETENTION_SCENARIOS))
@pytest.mark.parametrize("having", sorted(HAVINGS))
@pytest.mark.parametrize("cache", [0, CACHED])
def test_sessions_past_retention_on_every_path(tmp_path: Any, name: str, having: str, cache: int) -> None:
    batches = RETENTION_SCENARIOS[name]
    want, sessions = reference(batches, PAST, HAVINGS[having], cache > 0)
    got, scan = _run(tmp_path, _sql(PAST, having), batches, cache)
    assert got == want
    assert _pulled(scan) == _scan_of(sessions, HAVINGS[having])


@pytest.mark.parametrize("name", sorted(RETENTION_SCENARIOS))
def test_sessions_past_retention_record_by_record_and_one_a_batch(tmp_path: Any, name: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    batches = RETENTION_SCENARIOS[name]
    want, _ = reference(batches, PAST, None, True)
    got, _ = _run(tmp_path / "each", _sql(PAST, ""), batches, CACHED, record_by_record=monkeypatch)
    assert got == want
    singles = [[r] for b in batches for r in b]
    for cache in (0, CACHED):
        want, _ = reference(singles, PAST, None, cache > 0)
        got, _ = _run(tmp_path / f"one{cache}", _sql(PAST, ""), singles, cache)
        assert got == want, cache


def test_a_longer_retention_keeps_the_session_reachable(tmp_path: Any) -> None:
    """RETENTION 40 ms: at stream time 30, [6, 12] is still in the store and a at 16 grows it."""
    shape = Shape(5, 10, 40)
    for cache in (0, CACHED):
        want, sessions = reference(EXPIRED_IN_BATCH, shape, None, cache > 0)
        got, _ = _run(tmp_path / str(cache), _sql(shape, ""), EXPIRED_IN_BATCH, cache)
        assert got == want
        assert ("a", 6, 19, (5, 5)) in got, cache


def test_sessions_past_retention_after_a_restart(tmp_path: Any) -> None:
    """The store rebuilt from its changelog (stream time included) still does not find [6, 15]."""
    first, then = EXPIRED_AT_THE_EDGE[:2], EXPIRED_AT_THE_EDGE[2:]
    for cache in (0, CACHED):
        tmp = tmp_path / str(cache)
        _run(tmp, _sql(PAST, ""), first, cache, restart=True)
        engine = _engine(tmp, cache)
        try:
            h = Harness(engine)
            h.sql(STREAM)
            h.sql(_sql(PAST, ""))
            for batch in then:
                for k, v, ts in batch:
                    h.send("s", k, {"V": v}, ts)
                h.run()
            want, _ = reference(EXPIRED_AT_THE_EDGE, PAST, None, cache > 0)
            assert _sink(h) == want
        finally:
            engine.close()


def _disordered_batches(seed: int, n: int = 300) -> list[list[Rec]]:
    """Records out of order by up to 15 ms against gap 5 and grace 3: some late, some within a gap of a
    session past retention."""
    rnd = random.Random(seed)
    t, recs = 0, []
    for _ in range(n):
        t += rnd.randrange(0, 4)
        recs.append((rnd.choice("abc"), rnd.randrange(0, 9), max(0, t - rnd.randrange(0, 15))))
    out, i = [], 0
    while i < len(recs):
        size = rnd.choice([1, 4, 30, 80])
        out.append(recs[i:i + size])
        i += size
    return out


@pytest.mark.parametrize("seed", [3, 4])
def test_random_batches_reaching_past_retention(tmp_path: Any, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    batches = _disordered_batches(seed)
    shape = Shape(5, 3)
    for i, having in enumerate(sorted(HAVINGS)):
        for cache in (0, CACHED):
            want, sessions = reference(batches, shape, HAVINGS[having], cache > 0)
            got, scan = _run(tmp_path / f"{i}_{cache}", _sql(shape, having), batches, cache)
            assert got == want, (having, cache)
            assert _pulled(scan) == _scan_of(sessions, HAVINGS[having])
    want, _ = reference(batches, shape, None, True)
    got, _ = _run(tmp_path / "each", _sql(shape, ""), batches, CACHED, record_by_record=monkeypatch)
    assert got == want
