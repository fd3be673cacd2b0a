"""A table aggregation evaluates WHERE, the group key and the arguments on each key's previous source row when
the key changes (ksqlDB's KTableFilter / KTableRepartitionMap over the materialized source, sending old
values): the grouping store keeps the source rows it read, so the rule holds across a restart that rebuilds
the store from its changelog."""

from __future__ import annotations

import shutil
from typing import Any

from ksqlpy.engine import Engine
from ksqlpy.runtime.aggregator import encode_key
from ksqlpy.runtime.group_by import SOURCE_PREFIX
from tests.stateful.conftest import Harness

TABLE = ("CREATE TABLE T (ID STRING PRIMARY KEY, G STRING, X INT) WITH (kafka_topic='t', value_format='JSON', "
         "partitions=2);")
CTAS = "CREATE TABLE A AS SELECT G, SUM(X) AS S, COUNT(*) AS C FROM T WHERE ROWTIME < 100 OR X > 10 GROUP BY G;"
PROPS = {"auto.offset.reset": "earliest", "ksql.service.id": "test_", "cache.max.bytes.buffering": 0}


def _source_entries(engine: Engine) -> dict[bytes, Any]:
    (query,) = [q for q in engine.queries.values() if q.sink_name == "A"]
    return {k: v for kv in query.built.stores for k, v in kv.items(SOURCE_PREFIX)}


def test_the_store_keeps_each_keys_source_row_passing_or_not(h: Harness) -> None:
    h.sql(TABLE)
    h.sql(CTAS)
    h.send("t", "k1", {"G": "a", "X": 20}, 50)
    h.send("t", "k2", {"G": "b", "X": 2}, 150)  # fails the WHERE: kept all the same, contributing nothing
    h.send("t", "k3", {"G": "c", "X": 1}, 10)
    h.send("t", "k3", None, 20)  # a delete: gone
    h.run()
    entries = _source_entries(h.engine)
    assert entries.keys() == {SOURCE_PREFIX + encode_key(("k1",)), SOURCE_PREFIX + encode_key(("k2",))}
    k1, k2 = entries[SOURCE_PREFIX + encode_key(("k1",))], entries[SOURCE_PREFIX + encode_key(("k2",))]
    assert (tuple(k1[0]), tuple(k1[2])) == (("a",), ("k1", "a", 20))
    assert (k2[0], k2[1], tuple(k2[2])) == (None, None, ("k2", "b", 2))
    assert h.pull("SELECT * FROM A WHERE G = 'a';") == [("a", 20, 1)]
    assert h.pull("SELECT * FROM A WHERE G = 'b';") == []


def test_previous_rows_restored_from_the_changelog_are_filtered_again(tmp_path: Any) -> None:
    engine = Engine(str(tmp_path), PROPS)
    h = Harness(engine)
    h.sql(TABLE)
    h.sql(CTAS)
    h.send("t", "k1", {"G": "a", "X": 20}, 50)
    h.send("t", "k2", {"G": "a", "X": 1}, 60)
    h.run()
    written = h.read("A")
    engine.close()
    for d in [d for d in tmp_path.rglob("state") if d.is_dir()]:
        shutil.rmtree(d)
    engine = Engine(str(tmp_path), PROPS)
    try:
        h = Harness(engine)
        h.sql(TABLE)
        h.sql(CTAS)
        h.run()
        assert h.read("A") == written  # nothing read twice
        h.send("t", "k1", {"G": "a", "X": 3}, 250)  # fails; its previous row (restored) passes: 20 back
        h.send("t", "k2", {"G": "a", "X": 2}, 300)  # fails; its previous row fails at 300: nothing
        h.send("t", "k2", {"G": "a", "X": 40}, 310)  # passes; its previous row fails: 40 added only
        h.run()
        assert sorted(h.read("A")[len(written):], key=lambda r: r[2]) == [
            (("a",), (1, 1), 250), (("a",), (41, 2), 310)]
        assert h.pull("SELECT * FROM A;") == [("a", 41, 2)]
    finally:
        engine.close()


def test_an_entry_stored_before_rows_were_kept_is_taken_back_as_stored(h: Harness) -> None:
    """``(group key, arguments)``, what the store held per source key before: taken back as it is."""
    h.sql(TABLE)
    h.sql(CTAS)
    h.send("t", "k1", {"G": "a", "X": 20}, 50)
    h.run()
    (query,) = [q for q in h.engine.queries.values() if q.sink_name == "A"]
    key = SOURCE_PREFIX + encode_key(("k1",))
    replaced = 0
    for kv in query.built.stores:
        got = kv.get(key)
        if got is not None:
            kv.put(key, (got[0], got[1]))
            replaced += 1
    assert replaced == 1
    h.send("t", "k1", {"G": "a", "X": 3}, 250)
    h.run()
    assert h.read("A")[-1] == (("a",), (0, 0), 250)
