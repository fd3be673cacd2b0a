"""A join channel builds its blocks straight from the JSON reader's structs (``join_rows.struct_block_builder``,
the reader in columnar mode): the same blocks as from the row tuples, whatever the order of key and value
columns in the schema and whichever columns the query reads; sources whose blocks take more (header
columns, windowed keys) have no struct builder; and a join's results are those of the row path, bad and
null records included."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

import ksqlpy.runtime.join_build as join_build
from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord, RecordBatch
from ksqlpy.plan.column_rows import ColumnRows
from ksqlpy.runtime.join_rows import block_builder, is_source_key, struct_block_builder
from ksqlpy.runtime.join_stream_table import StreamTableJoin
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.reader import SourceReader
from tests.joins.conftest import PROPS, Harness


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    e = Engine(str(tmp_path_factory.mktemp("blocks")), {"auto.offset.reset": "earliest"})
    # the key between value columns, two key columns, a timestamp column
    e.execute("CREATE STREAM mid (A INT, K BIGINT KEY, B STRING, C DOUBLE) WITH (kafka_topic='mid', "
              "key_format='KAFKA', value_format='JSON', partitions=1);")
    e.execute("CREATE STREAM two (K1 INT KEY, V STRING, K2 STRING KEY, T BIGINT) WITH (kafka_topic='two', "
              "key_format='JSON', value_format='JSON', partitions=1, timestamp='T');")
    e.execute("CREATE STREAM hdr (K INT KEY, V STRING, H BYTES HEADER('h')) WITH (kafka_topic='hdr', "
              "key_format='KAFKA', value_format='JSON', partitions=1);")
    yield e
    e.close()


VALUES = {
    "MID": [{"A": 1, "B": "x", "C": 1.5}, {"A": None, "B": "y", "C": -2.0}, {"B": "z"}],
    "TWO": [{"V": "p", "T": 10}, {"V": None, "T": 11}, {"V": "r", "T": 12}],
}
KEYS: dict[str, list[Any]] = {"MID": [(7,), (8,), (9,)], "TWO": [(1, "a"), (2, "b"), (3, None)]}


def _decoded(engine: Engine, name: str, columnar: bool) -> Any:
    source = engine.catalog.source(name)
    assert source is not None
    ks, vs = engine.key_serde(source), engine.value_serde(source)
    keys = [ks.serialize(k) for k in KEYS[name]]
    values = [orjson.dumps(v) for v in VALUES[name]]
    n = len(values)
    reader = SourceReader(source, ks, vs, ProcessingLog(sink=lambda e: None), "Q", keep_tombstones=False)
    reader.columnar = columnar
    return source, reader.decode(RecordBatch(name.lower(), 0, list(range(n)), keys, values,
                                             [100 + i for i in range(n)], [None] * n))


@pytest.mark.parametrize("name", ["MID", "TWO"])
@pytest.mark.parametrize("read", [None, frozenset(), frozenset({"B"}), frozenset({"V", "T", "C", "A"})])
def test_struct_blocks_equal_row_blocks(engine: Engine, name: str, read: frozenset[str] | None) -> None:
    source, d = _decoded(engine, name, columnar=True)
    assert isinstance(d.rows, ColumnRows) and d.rows.values is not None  # the struct path was taken
    _, rows = _decoded(engine, name, columnar=False)
    want = list(map(block_builder(source, read), rows.rows, rows.timestamps, rows.partitions, rows.offsets))
    sblock = struct_block_builder(source, read)
    assert sblock is not None
    got = list(map(sblock, d.rows.keys, d.rows.values, d.timestamps, d.partitions, d.offsets))
    assert got == want
    assert len(want[0]) == len(source.columns) + 3  # every column's place, the pseudo columns


def test_no_struct_builder_for_headers(engine: Engine) -> None:
    source = engine.catalog.source("HDR")
    assert source is not None
    assert struct_block_builder(source) is None


STATEMENTS = [
    "CREATE STREAM L (ID BIGINT KEY, NAME STRING, T BIGINT, PAD STRING) WITH (kafka_topic='l', "
    "key_format='KAFKA', value_format='JSON', partitions=1, timestamp='T');",
    "CREATE STREAM R (ID BIGINT KEY, REF BIGINT, T BIGINT) WITH (kafka_topic='r', key_format='KAFKA', "
    "value_format='JSON', partitions=1, timestamp='T');",
    "CREATE TABLE RT (ID BIGINT PRIMARY KEY, REF BIGINT, T BIGINT) WITH (kafka_topic='r', key_format='KAFKA', "
    "value_format='JSON', partitions=1);",
    "CREATE STREAM SS AS SELECT L.ID, L.NAME, R.ID AS RID FROM L JOIN R WITHIN 5 SECONDS ON L.ID = R.REF;",
    "CREATE STREAM ST AS SELECT L.ID, L.NAME, RT.REF FROM L LEFT JOIN RT ON L.ID = RT.ID;",
    # INNER with a table-side WHERE: the stream's blocks built only for the records that find a row
    "CREATE STREAM STI AS SELECT L.ID, L.NAME, L.T, RT.REF FROM L JOIN RT ON L.ID = RT.ID WHERE RT.REF > 2;",
    # a join key over the key column that is not the key as read
    "CREATE STREAM SX AS SELECT R.REF, L.NAME, R.ID AS RID FROM L JOIN R WITHIN 5 SECONDS ON L.ID + 1 = R.REF;",
]


def _results(tmp: Path, struct_blocks: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list, list, list, list, list]:
    if not struct_blocks:  # the row path: blocks from rows, every key by the key function
        monkeypatch.setattr(join_build, "struct_block_builder", lambda source, read=None: None)
        monkeypatch.setattr(join_build, "is_source_key", lambda *a: False)
    h = Harness(str(tmp), {**PROPS, "ksql.logging.processing.rows.include": "false"})
    try:
        for s in STATEMENTS:
            h.sql(s)
        for i in range(40):
            h.send("R", i, {"REF": i % 7, "T": 1000 * i + 5}, 1000 * i + 5)
            h.send("L", i % 7, {"NAME": f"n{i}", "T": 1000 * i, "PAD": "p" * i}, 1000 * i)
        # a bad value, a missing timestamp, a null key, a tombstone: the row path's handling
        src = h.engine.catalog.source("L")
        assert src is not None
        h.engine.log.produce(ProducerRecord("l", h.engine.key_serde(src).serialize((3,)), b"{bad", 50_000))
        h.send("L", 3, {"NAME": "no-time"}, 50_001)
        h.send("L", None, {"NAME": "null-key", "T": 50_002}, 50_002)
        h.send("L", 4, None, 50_003)
        h.send("L", 5, {"NAME": "late", "T": 50_004}, 50_004)
        h.run()
        logged = sorted(str(e.get("message")) for e in h.engine.plog.entries)
        lazy = [op.block is not None for q in h.engine.queries.values() for t in q.tasks
                for op in getattr(getattr(t, "ctx", None), "operators", []) if isinstance(op, StreamTableJoin)]
        assert lazy and all(lazy) is struct_blocks
        return (sorted(map(repr, h.read("SS"))), sorted(map(repr, h.read("ST"))), logged,
                sorted(map(repr, h.read("SX"))), sorted(map(repr, h.read("STI"))))
    finally:
        h.engine.close()


def test_join_results_equal_row_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _results(tmp_path / "fast", True, monkeypatch)
    rows = _results(tmp_path / "rows", False, monkeypatch)
    assert fast == rows
    assert len(fast[0]) > 20 and len(fast[1]) > 40 and len(fast[2]) >= 2  # the bad value, the missing time
    assert len(fast[3]) > 20 and 0 < len(fast[4]) < 40


@pytest.mark.parametrize(("criteria", "own"), [
    ("L.ID = RT.ID", {"l": True, "r": True}),
    ("L.ID + 1 = RT.ID", {"r": True}),  # the left side is re-keyed by an expression
    ("ABS(L.ID) = RT.ID", {"r": True}),
    ("L.T = RT.ID", {"r": True}),  # a value column
])
def test_own_key_detected(tmp_path: Path, criteria: str, own: dict[str, bool]) -> None:
    """``is_source_key``: only a join key that is the source's key column as read."""
    h = Harness(str(tmp_path))
    try:
        for s in STATEMENTS[:3]:
            h.sql(s)
        h.sql(f"CREATE STREAM O AS SELECT * FROM L JOIN RT ON {criteria};")
        q = list(h.engine.queries.values())[-1]
        got = {}
        for sub in q.topology.sub_topologies:
            for st in sub.operators:
                for c in getattr(st, "wiring", []):
                    if getattr(c, "source", None) is not None and c.key is not None:
                        got[c.topic] = is_source_key(list(c.key.exprs), c.key.columns, h.engine.functions,
                                                     len(c.source.key_columns), c.key.window_at)
        assert {t: v for t, v in got.items() if v} == own
    finally:
        h.engine.close()
