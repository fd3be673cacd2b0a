"""User functions on the Spark backfill: the executors load the engine's extension directory themselves (the
registry travels as its recipe, user code by its importable module name), and the result equals the
streaming runtime's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.backfill import collapse as collapsed
from bench.backfill import sink as sink_records
from ksqlpy.backfill import backfill
from ksqlpy.engine import Engine
from tests.backfill.conftest import produce, spark  # noqa: F401 - the fixture
from tests.udf.acceptance import write_extension

pytestmark = pytest.mark.slow

DDL = ("CREATE STREAM ORDERS (ID STRING KEY, ITEM STRING, PRICE DOUBLE) "
       "WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=2);")
VECTOR = '''
from ksqlpy.udf import udf


@udf("DOUBLED", vectorized=True)
def doubled(x: float) -> float:
    return [None if v is None else v * 2 for v in x]
'''


def _records() -> list[tuple[int, bytes, bytes, int]]:
    items = ["apple", "red pear", "fig", "green apple", "kiwi"]
    return [(i % 2, f"k{i % 4}".encode(), json.dumps({"ITEM": items[i % 5], "PRICE": i * 1.5}).encode(), 1000 + i)
            for i in range(40)]


def _engine(path: Path, ext: Path) -> Engine:
    e = Engine(str(path), {"ksql.extension.dir": str(ext), "cache.max.bytes.buffering": 0})
    e.execute(DDL)
    produce(e, "orders", _records())
    return e


@pytest.mark.parametrize("sql", [
    "CREATE STREAM PRICED AS SELECT ID, TAXED(PRICE) AS T, DOUBLED(PRICE) AS D, WORDS(ITEM) AS W FROM ORDERS;",
    "CREATE TABLE LONGEST_ITEM AS SELECT ID, LONGEST(ITEM) AS L, COUNT(*) AS N FROM ORDERS GROUP BY ID;",
])  # fmt: skip
def test_user_functions_on_the_backfill_equal_streaming(tmp_path: Path, spark: Any, sql: str) -> None:  # noqa: F811
    ext = tmp_path / "ext"
    write_extension(ext)
    (ext / "vector.py").write_text(VECTOR)
    name = sql.split()[2].upper()
    ref = _engine(tmp_path / "streaming", ext)
    ref.execute(sql, {"auto.offset.reset": "earliest"})
    ref.drain()
    eng = _engine(tmp_path / "backfill", ext)
    try:
        backfill(eng, sql, spark=spark)
        want, got = sink_records(ref, name), sink_records(eng, name)
        assert len(want) >= 8
        if sql.startswith("CREATE TABLE"):
            assert collapsed(got) == collapsed(want)
        else:
            assert sorted(got, key=repr) == sorted(want, key=repr)
    finally:
        ref.close()
        eng.close()
