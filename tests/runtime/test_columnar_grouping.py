"""A stream aggregation's grouping stage without a per-record loop (its keys and arguments are columns) reads
its source batches as columns (``SourceReader.columnar``, ``ColumnRows``): its sink and processing log are
what the row path gives - over windows (none, TUMBLING, HOPPING, SESSION), with and without a repartition,
a NULL group key, bad records, JSON and DELIMITED values. A grouping that loops (WHERE, an expression key)
reads only the columns it uses (``codegen._column_loop``), failing expressions included; one reading every
column, and a table's aggregation, keep reading rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.log.base import RecordBatch
from ksqlpy.runtime.reader import DecodedBatch, SourceReader

VALUES: list[Any] = [{"G": "a", "X": 1, "Y": 2.5}, {"G": "b", "X": 2}, {"G": None, "X": 3}, {"G": "a", "X": None},
                     b"{bad", {"g": "c", "x": 4}, {"G": "b", "X": 5, "Y": -1.0}]
CLEAN: list[Any] = [{"G": "a", "X": 1}, {"G": None, "X": 2}, {"X": 3, "Y": 0.5}, {"G": "c", "X": 4}]  # as columns


def _encode(fmt: str, v: Any) -> bytes:
    if isinstance(v, bytes):
        return v
    if fmt == "JSON":
        return orjson.dumps(v)
    g, x, y = (next((w for k, w in v.items() if k.upper() == n), None) for n in ("G", "X", "Y"))
    return ",".join("" if w is None else str(w) for w in (g, x, y)).encode()


@pytest.mark.parametrize(("query", "by_columns"), [
    ("SELECT G, COUNT(*) AS C, SUM(X) AS S FROM S GROUP BY G EMIT CHANGES", True),
    ("SELECT G, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 SECONDS) GROUP BY G EMIT CHANGES", True),
    ("SELECT G, MAX(X) AS M FROM S WINDOW HOPPING (SIZE 10 SECONDS, ADVANCE BY 5 SECONDS) GROUP BY G "
     "EMIT CHANGES", True),
    ("SELECT G, COUNT(*) AS C, MAX(Y) AS L FROM S WINDOW SESSION (3 SECONDS) GROUP BY G EMIT CHANGES",
     True),
    ("SELECT K, COUNT(*) AS C FROM S GROUP BY K EMIT CHANGES", True),  # by the source key
    ("SELECT G, X, COUNT(*) AS C FROM S GROUP BY G, X EMIT CHANGES", True),
    # a loop over the columns it reads (``codegen._column_loop``)
    ("SELECT G, COUNT(*) AS C FROM S WHERE X > 1 GROUP BY G EMIT CHANGES", True),
    ("SELECT UCASE(G) AS U, COUNT(*) AS C FROM S GROUP BY UCASE(G) EMIT CHANGES", True),
    ("SELECT G, COUNT(*) AS C, SUM(X + 1) AS S FROM S WHERE ROWTIME >= 0 GROUP BY G EMIT CHANGES", True),
    # failing expressions: the record's slow path reads the batch's row tuples
    ("SELECT G, COUNT(*) AS C FROM S WHERE CAST(G AS INT) > 0 OR X > 2 GROUP BY G EMIT CHANGES", True),
    ("SELECT G, COUNT(*) AS C, SUM(CAST(G AS INT)) AS S FROM S GROUP BY G EMIT CHANGES", True),
    # a loop reading every column: rows
    ("SELECT G, COUNT(*) AS C FROM S WHERE K <> 'z' AND X + Y > 0 GROUP BY G EMIT CHANGES", False),
])
@pytest.mark.parametrize("partitions", [1, 2])
@pytest.mark.parametrize("fmt", ["JSON", "DELIMITED"])
def test_a_grouping_reads_columns_as_it_reads_rows(tmp_path: Path, query: str, by_columns: bool, partitions: int,
                                                    fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    read_as: list[tuple[bool, bool]] = []
    decode_columns = SourceReader._decode_columns

    def spy(self: SourceReader, batch: RecordBatch, keys: list) -> DecodedBatch | None:
        d = decode_columns(self, batch, keys) if columnar else None
        read_as.append((columnar, d is not None))
        return d

    monkeypatch.setattr(SourceReader, "_decode_columns", spy)
    outs = []
    for columnar in (True, False):
        engine = Engine(str(tmp_path / f"d{columnar}"), {"auto.offset.reset": "earliest"})
        try:
            engine.execute("CREATE STREAM S (K STRING KEY, G STRING, X INT, Y DOUBLE) WITH (kafka_topic='s', "
                           f"key_format='KAFKA', value_format='{fmt}', partitions={partitions});")
            engine.execute(f"CREATE TABLE O WITH (key_format='JSON', value_format='JSON') AS {query};")
            for n, batch in enumerate((VALUES, VALUES[:2], CLEAN, VALUES[::-1], CLEAN)):
                for p in range(partitions):
                    with engine.log.transaction() as tx:
                        data = [_encode(fmt, v) for v in batch]
                        tss = [n * 4000 + 700 * i + 300 * p for i in range(len(data))]
                        tx.produce_batch("s", p, [b"k%d" % (i % 3) for i in range(len(data))], data, tss)
                engine.drain()
            sink = engine.catalog.source("O")
            assert sink is not None
            out = [engine.log.fetch(sink.topic, p, 0, 1000) for p in range(engine.log.describe_topic(sink.topic).partitions)]
            outs.append(([list(zip(b.keys, b.values, b.timestamps, strict=True)) for b in out],
                         sorted(orjson.dumps({**e, "time": 0}, option=orjson.OPT_SORT_KEYS) for e in engine.plog.entries)))
        finally:
            engine.close()
    assert outs[0] == outs[1]
    assert any(outs[0][0]) and outs[0][1]  # rows out; the bad record and the NULL key logged
    assert ((True, True) in read_as) is by_columns
    assert (False, True) not in read_as


def test_a_table_aggregation_reads_rows(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        engine.execute("CREATE TABLE T (K STRING PRIMARY KEY, G STRING, X INT) WITH (kafka_topic='t', "
                       "value_format='JSON', partitions=1);")
        engine.execute("CREATE TABLE O AS SELECT G, COUNT(*) AS C FROM T GROUP BY G EMIT CHANGES;")
        q = list(engine.queries.values())[-1]
        readers = [t.reader for t in q.tasks]
        assert readers and not any(getattr(r, "columnar", False) for r in readers)  # it reads each key's previous row
    finally:
        engine.close()
