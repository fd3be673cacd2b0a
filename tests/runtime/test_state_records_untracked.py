"""A GROUP BY's state records (``[ts, key, acc...]``, runtime/accumulate.py) are out of the cyclic GC - made by the
generated ``new``, by the batch loops (runtime/agg_loop.py, the sliced hopping path included) and read back from
the store's files after a restart - so the young collection after each batch does not walk them (issue 20). No
cycle can pass through a record: only stores and a batch's dicts refer to it, and its UDAFs never see it. The
results stay what they were (QTT and tests/cases cover them); here, that no stored record is tracked."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.runtime.join_native import NATIVE
from ksqlpy.state.store import KeyValueStore

pytestmark = pytest.mark.skipif(NATIVE is None, reason="the C extension (runtime/_ssjoin.c) is not built")

QUERIES = [
    "SELECT G, COUNT(*) AS C, SUM(X) AS S FROM S GROUP BY G EMIT CHANGES",
    "SELECT G, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 SECONDS) GROUP BY G EMIT CHANGES",
    "SELECT G, MAX(X) AS M FROM S WINDOW HOPPING (SIZE 10 SECONDS, ADVANCE BY 2 SECONDS) GROUP BY G EMIT CHANGES",
    "SELECT G, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 SECONDS, GRACE PERIOD 0 SECONDS) GROUP BY G EMIT FINAL",
    "SELECT G, COUNT(*) AS C FROM S GROUP BY G HAVING COUNT(*) > 1 EMIT CHANGES",  # the per-record path
    "SELECT G, COLLECT_LIST(X) AS L, AVG(X) AS A FROM S GROUP BY G EMIT CHANGES",  # container states
    "SELECT X % 3 AS R, COUNT(*) AS C FROM S GROUP BY X % 3 EMIT CHANGES",  # repartitioned, combined partials
]


def _records(puts: list[Any]) -> list[list]:
    return [v for k, v in puts if k[:1] in (b"K", b"W") and type(v) is list and len(v) >= 3 and type(v[1]) is tuple]


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("cache", [0, 10_000_000])
def test_stored_state_records_are_untracked(tmp_path: Path, query: str, cache: int,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    puts: list[Any] = []
    stores: set[KeyValueStore] = set()
    put = KeyValueStore.put

    def spy(self: KeyValueStore, key: bytes, value: Any) -> None:
        puts.append((key, value))
        stores.add(self)
        put(self, key, value)

    monkeypatch.setattr(KeyValueStore, "put", spy)
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest", "cache.max.bytes.buffering": cache})
    try:
        engine.execute("CREATE STREAM S (K STRING KEY, G STRING, X INT) WITH (kafka_topic='s', "
                       "value_format='JSON', partitions=2);")
        engine.execute(f"CREATE TABLE O AS {query};")
        for run in range(2):  # the second run reads the first run's records back from the store's files
            puts.clear()
            for p in range(2):
                with engine.log.transaction() as tx:
                    vals = [orjson.dumps({"G": f"g{i % 4}", "X": i}) for i in range(40)]
                    tss = [run * 3000 + 250 * i for i in range(40)]
                    tx.produce_batch("s", p, [b"k%d" % i for i in range(40)], vals, tss)
            engine.drain()
            records = _records(puts)
            assert records, "no state record was stored"
            assert [r for r in records if gc.is_tracked(r)] == []
            # a key of atoms leaves with its record (the collector would untrack it on its first walk)
            assert [r[1] for r in records if gc.is_tracked(r[1])] == []
            if run == 0:
                read = [s for s in stores if s.loaded is not None]
                assert read, "no aggregation store"
                for s in read:
                    assert not s.dirty  # committed: what get reads next comes from LMDB
                    s.cache.clear()
    finally:
        engine.close()
