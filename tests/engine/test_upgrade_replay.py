"""An accepted CREATE OR REPLACE keeps the query's state and positions, and so does the restart that replays it.

Each shape the upgrade rule accepts (a re-keying PARTITION BY, PARTITION BY the input's own key, a GROUP BY
through a repartition, a GROUP BY on the key with a HAVING, a table copied from a table) runs three batches:
one under the old query, one under the upgraded query, one after the engine restarts from its command topic.
The sink must hold the old logic's records for the first batch and the new logic's for the others - nothing
read twice, nothing lost - and the aggregates must count on from where they were.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine.command_log import DurableStatements

SETUP = ("CREATE STREAM S (ID INT KEY, V INT, W STRING) WITH (kafka_topic='s', value_format='JSON', partitions=2);"
         "CREATE TABLE T (ID INT PRIMARY KEY, V INT, W STRING) WITH (kafka_topic='t', value_format='JSON', "
         "partitions=2);")
Rows = list[tuple[int, int, str]]


class Session:
    """An engine whose statements go through the command topic, as a server's do (a restart replays them)."""

    def __init__(self, data_dir: Path) -> None:
        self.engine = Engine(str(data_dir), {"auto.offset.reset": "earliest", "cache.max.bytes.buffering": 0})
        self.shell = DurableStatements(self.engine)
        assert self.shell.replay_errors == []

    def run(self, sql: str) -> Any:
        return self.shell.execute(sql)

    def insert(self, source: str, rows: Rows) -> None:
        self.run(" ".join(f"INSERT INTO {source} (ID, V, W) VALUES ({i}, {v}, '{w}');" for i, v, w in rows))
        self.engine.drain()

    def sink(self) -> list[tuple[Any, Any]]:
        """The sink's records (key and value decoded), partition by partition, in offset order."""
        src = self.engine.catalog.source("O")
        assert src is not None
        keys = self.engine.key_serde(src)
        out = []
        for p in range(self.engine.log.partition_count("O") or 0):
            batch = self.engine.log.fetch("O", p, 0, 1000)
            for k, v in zip(batch.keys, batch.values, strict=True):
                out.append((None if k is None else keys.deserialize(k)[0], None if v is None else orjson.loads(v)))
        return out

    def pull(self) -> dict[Any, tuple]:
        [res] = self.engine.execute("SELECT * FROM O;")
        return {r[0]: tuple(r[1:]) for r in res.data["rows"]}

    def close(self) -> None:
        self.engine.close()


def _three_batches(tmp_path: Path, first: str, second: str, source: str, batches: tuple[Rows, Rows, Rows],
                   table: bool) -> tuple[list, dict | None]:
    s = Session(tmp_path)
    try:
        s.run(SETUP)
        [created] = s.run(first)
        s.insert(source, batches[0])
        [upgraded] = s.run(second)
        assert upgraded.query_id == created.query_id
        s.insert(source, batches[1])
    finally:
        s.close()
    s = Session(tmp_path)
    try:
        assert list(s.engine.queries) == [created.query_id]
        s.insert(source, batches[2])
        return sorted(s.sink(), key=repr), (s.pull() if table else None)
    finally:
        s.close()


def _sorted(records: list) -> list:
    return sorted(records, key=repr)


@pytest.mark.parametrize("own_key", [False, True], ids=["re-keyed", "own key"])
def test_a_partition_by_query(tmp_path: Path, own_key: bool) -> None:
    by = "ID" if own_key else "V"
    rest = "V, W" if own_key else "ID, W"
    sink, _ = _three_batches(
        tmp_path, f"CREATE STREAM O AS SELECT {by}, {rest} FROM S PARTITION BY {by};",
        f"CREATE OR REPLACE STREAM O AS SELECT {by}, {rest}, ID * 10 AS X FROM S WHERE V > 0 PARTITION BY {by};",
        "S", ([(1, 1, "a"), (2, -1, "b")], [(1, 2, "c"), (3, -3, "d")], [(2, 4, "e"), (4, -4, "f")]), table=False)
    if own_key:
        expected = [(1, {"V": 1, "W": "a"}), (2, {"V": -1, "W": "b"}),  # the old query: every record
                    (1, {"V": 2, "W": "c", "X": 10}), (2, {"V": 4, "W": "e", "X": 20})]  # then V > 0 only
    else:
        expected = [(1, {"ID": 1, "W": "a"}), (-1, {"ID": 2, "W": "b"}),
                    (2, {"ID": 1, "W": "c", "X": 10}), (4, {"ID": 2, "W": "e", "X": 20})]
    assert sink == _sorted(expected)


def test_a_group_by_through_a_repartition(tmp_path: Path) -> None:
    sink, rows = _three_batches(
        tmp_path, "CREATE TABLE O AS SELECT W, COUNT(*) AS N, SUM(V) AS SV FROM S GROUP BY W;",
        "CREATE OR REPLACE TABLE O AS SELECT W, COUNT(*) AS N, SUM(V) AS SV FROM S WHERE V > 0 GROUP BY W;", "S",
        ([(1, 1, "a"), (2, -1, "a")], [(1, 2, "a"), (3, -3, "a")], [(2, 4, "a"), (4, -4, "b")]), table=True)
    # two counted before the upgrade, then only V > 0: 3 after the upgrade, 4 after the restart
    assert sink == _sorted([("a", {"N": 1, "SV": 1}), ("a", {"N": 2, "SV": 0}), ("a", {"N": 3, "SV": 2}),
                            ("a", {"N": 4, "SV": 6})])
    assert rows == {"a": (4, 6)}


def test_a_group_by_on_the_key_with_a_having(tmp_path: Path) -> None:
    sink, rows = _three_batches(
        tmp_path, "CREATE TABLE O AS SELECT ID, COUNT(*) AS N FROM S GROUP BY ID;",
        "CREATE OR REPLACE TABLE O AS SELECT ID, COUNT(*) AS N FROM S GROUP BY ID HAVING COUNT(*) > 1;", "S",
        ([(1, 1, "a"), (2, -1, "b")], [(1, 2, "c"), (3, -3, "d")], [(1, 4, "e"), (2, -4, "f")]), table=True)
    # key 3's first count fails the new HAVING (nothing to delete); keys 1 and 2 count on
    assert sink == _sorted([(1, {"N": 1}), (2, {"N": 1}), (1, {"N": 2}), (1, {"N": 3}), (2, {"N": 2})])
    assert rows == {1: (3,), 2: (2,)}


def test_a_table_copied_from_a_table(tmp_path: Path) -> None:
    sink, rows = _three_batches(
        tmp_path, "CREATE TABLE O AS SELECT * FROM T;",
        "CREATE OR REPLACE TABLE O AS SELECT ID, V, W, V * 2 AS D FROM T WHERE V > 0;", "T",
        ([(1, 1, "a"), (2, -1, "b")], [(1, -2, "c"), (3, 3, "d")], [(2, 4, "e"), (3, -4, "f")]), table=True)
    # key 1 stops passing (deleted), key 2's old row stays until its update passes, key 3 passes then is deleted
    assert sink == _sorted([(1, {"V": 1, "W": "a"}), (2, {"V": -1, "W": "b"}), (1, None),
                            (3, {"V": 3, "W": "d", "D": 6}), (2, {"V": 4, "W": "e", "D": 8}), (3, None)])
    assert rows == {2: (4, "e", 8)}
