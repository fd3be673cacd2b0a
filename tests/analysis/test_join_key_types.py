"""Both sides of a join criteria must have the same SQL type - no implicit widening (ksqlDB's
LogicalPlanner.verifyJoin): ``Invalid join condition: types don't match. Got <L>{<T>} = <R>{<T>}.``

The scope: stream-stream, stream-table, table-table and foreign-key joins; INT against BIGINT and DOUBLE,
DECIMALs of different precision, STRING against INT; an explicit CAST makes the types equal.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from statement_errors import error as _refused

from ksqlpy.engine import Engine

PAIRS = [("I", "L", "INTEGER", "BIGINT"), ("I", "D", "INTEGER", "DOUBLE"),
         ("DC", "DC2", "DECIMAL(4, 2)", "DECIMAL(5, 2)"), ("S", "I", "STRING", "INTEGER")]
COLS = "I INT, L BIGINT, D DOUBLE, S STRING, DC DECIMAL(4,2), DC2 DECIMAL(5,2)"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    e = Engine(str(tmp_path_factory.mktemp("keytypes")), {})
    e.execute(f"CREATE STREAM A (ID INT KEY, {COLS}) WITH (kafka_topic='a', value_format='JSON', partitions=1);")
    e.execute(f"CREATE STREAM B (ID INT KEY, {COLS}) WITH (kafka_topic='b', value_format='JSON', partitions=1);")
    for name, key in (("L0", "INT"), ("TI", "INT"), ("TL", "BIGINT"), ("TD", "DOUBLE"), ("TS", "STRING"), ("TDC", "DECIMAL(5,2)")):
        e.execute(f"CREATE TABLE {name} (ID {key} PRIMARY KEY, {COLS}) "
                  f"WITH (kafka_topic='{name.lower()}', key_format='JSON', value_format='JSON', partitions=1);")
    yield e
    e.close()


@pytest.mark.parametrize(("left", "right", "lt", "rt"), PAIRS)
def test_stream_stream(engine: Engine, left: str, right: str, lt: str, rt: str) -> None:
    msg = _refused(engine, f"SELECT * FROM A JOIN B WITHIN 1 SECOND ON A.{left} = B.{right} EMIT CHANGES;")
    assert msg.endswith(f"Invalid join condition: types don't match. Got A.{left}{{{lt}}} = B.{right}{{{rt}}}.")


TABLE_OF = {"BIGINT": "TL", "DOUBLE": "TD", "DECIMAL(5, 2)": "TDC", "INTEGER": "TI"}


@pytest.mark.parametrize(("left", "right", "lt", "rt"), PAIRS)
@pytest.mark.parametrize("source", ["A", "L0"])
def test_against_a_table_primary_key(engine: Engine, source: str, left: str, right: str, lt: str, rt: str) -> None:
    # stream-table, or - a table's value column against another table's key - a foreign-key join
    table = TABLE_OF[rt]
    msg = _refused(engine, f"SELECT * FROM {source} JOIN {table} ON {source}.{left} = {table}.ID EMIT CHANGES;")
    assert msg.endswith(f"Invalid join condition: types don't match. Got {source}.{left}{{{lt}}} = "
                        f"{table}.ID{{{rt}}}.")


def test_table_table_on_both_keys(engine: Engine) -> None:
    msg = _refused(engine, "SELECT * FROM TI JOIN TL ON TI.ID = TL.ID EMIT CHANGES;")
    assert msg.endswith("Invalid join condition: types don't match. Got TI.ID{INTEGER} = TL.ID{BIGINT}.")


@pytest.mark.parametrize("sql", [
    "SELECT * FROM A JOIN B WITHIN 1 SECOND ON CAST(A.I AS BIGINT) = B.L EMIT CHANGES LIMIT 1;",
    "SELECT * FROM A JOIN TL ON CAST(A.ID AS BIGINT) = TL.ID EMIT CHANGES LIMIT 1;",
    "SELECT * FROM TI JOIN TS ON CAST(TI.I AS STRING) = TS.ID EMIT CHANGES LIMIT 1;",
    "SELECT * FROM A JOIN TDC ON CAST(A.DC AS DECIMAL(5, 2)) = TDC.ID EMIT CHANGES LIMIT 1;",
])
def test_a_cast_makes_the_types_equal(engine: Engine, sql: str) -> None:
    engine.execute(sql)
