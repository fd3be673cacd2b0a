"""CREATE OR REPLACE: which changes upgrade a running query in place, which are refused, and with what.

An upgrade keeps the query id, its state and its input positions: the new logic applies to new records
only. Each refused change class is checked with the message its rule gives (data-source compatibility
first, then the plan's steps), each allowed one with the records and state it leaves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine.upgrades import UpgradeError
from ksqlpy.errors import KsqlStatementError


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute("CREATE STREAM s (id INT KEY, v INT, w STRING, a ARRAY<INT>) "
              "WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    e.execute("CREATE STREAM s_other (id INT KEY, v INT, w STRING, a ARRAY<INT>) "
              "WITH (kafka_topic='s_other', value_format='JSON', partitions=1);")
    e.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT, w STRING) "
              "WITH (kafka_topic='t', value_format='JSON', partitions=1);")
    yield e
    e.close()


def insert(engine: Engine, *rows: tuple[int, int]) -> None:
    engine.execute(" ".join(f"INSERT INTO s (id, v, w) VALUES ({i}, {v}, 'x');" for i, v in rows))
    engine.drain()


def pull(engine: Engine, table: str) -> dict[Any, tuple]:
    [res] = engine.execute(f"SELECT * FROM {table};")
    return {r[0]: tuple(r[1:]) for r in res.data["rows"]}


def sink_values(engine: Engine, topic: str) -> list[dict]:
    batch = engine.log.fetch(topic, 0, 0, 1000)
    return [orjson.loads(v) for v in batch.values]


# --------------------------------------------------------------------------- allowed: state and positions kept


def test_a_filter_added_to_a_ctas_counts_only_new_records(engine: Engine) -> None:
    [created] = engine.execute("CREATE TABLE counts AS SELECT id, COUNT(*) AS n FROM s GROUP BY id;")
    insert(engine, (1, 1), (1, -1), (2, 5))
    assert pull(engine, "counts") == {1: (2,), 2: (1,)}
    [upgraded] = engine.execute("CREATE OR REPLACE TABLE counts AS SELECT id, COUNT(*) AS n FROM s WHERE v > 0 "
                                "GROUP BY id;")
    assert upgraded.query_id == created.query_id
    assert upgraded.message == f"Created query with ID {created.query_id}"
    assert list(engine.queries) == [created.query_id]
    # old counts stay, nothing is read twice, and the new filter applies from here on
    insert(engine, (1, 1), (1, -1), (2, -3))
    assert pull(engine, "counts") == {1: (3,), 2: (1,)}
    assert "WHERE v > 0" in engine.catalog.query(created.query_id).sql


def test_a_projection_change_and_an_appended_column_write_only_new_records_in_the_new_form(engine: Engine) -> None:
    engine.execute("CREATE STREAM out AS SELECT id, v FROM s;")
    insert(engine, (1, 1))
    engine.execute("CREATE OR REPLACE STREAM out AS SELECT id, v * 10 AS v, w FROM s;")
    insert(engine, (2, 2))
    assert sink_values(engine, "OUT") == [{"V": 1}, {"V": 20, "W": "x"}]
    assert [c.name for c in engine.catalog.source("OUT").columns] == ["ID", "V", "W"]


def test_a_removed_filter_is_an_upgrade_too(engine: Engine) -> None:
    engine.execute("CREATE STREAM out AS SELECT * FROM s WHERE v > 100;")
    insert(engine, (1, 1))
    engine.execute("CREATE OR REPLACE STREAM out AS SELECT * FROM s;")
    insert(engine, (2, 2))
    assert [r["V"] for r in sink_values(engine, "OUT")] == [2]


def test_an_appended_column_of_a_materialized_table_is_computed_from_the_stored_source_rows(engine: Engine) -> None:
    """The store of a CTAS over a table holds the source's rows (ksqlDB's KsqlTopic-Reduce): a pull query
    after the upgrade reads the rows stored before it through the new projection."""
    engine.execute("CREATE TABLE copy AS SELECT id, v FROM t;")
    engine.execute("INSERT INTO t (id, v, w) VALUES (1, 1, 'a');")
    engine.drain()
    engine.execute("CREATE OR REPLACE TABLE copy AS SELECT id, v, w FROM t;")
    engine.execute("INSERT INTO t (id, v, w) VALUES (2, 2, 'b');")
    engine.drain()
    assert pull(engine, "copy") == {1: (1, "a"), 2: (2, "b")}


def test_a_partition_by_query_upgrades_when_its_key_expression_stays(engine: Engine) -> None:
    [created] = engine.execute("CREATE STREAM by_v AS SELECT v, id FROM s PARTITION BY v;")
    [upgraded] = engine.execute("CREATE OR REPLACE STREAM by_v AS SELECT v, id FROM s WHERE v > 0 PARTITION BY v;")
    assert upgraded.query_id == created.query_id


@pytest.mark.parametrize(("first", "second"), [
    ("CREATE STREAM out AS SELECT * FROM s;", "CREATE OR REPLACE STREAM out AS SELECT * FROM s PARTITION BY id;"),
    ("CREATE STREAM out AS SELECT * FROM s PARTITION BY id;", "CREATE OR REPLACE STREAM out AS SELECT * FROM s WHERE v > 0;"),
])
def test_partition_by_the_input_key_is_no_step_to_match(engine: Engine, first: str, second: str) -> None:
    """ksqlDB's repartitionNeeded: PARTITION BY the key columns keeps the stream as it is, so the plans match."""
    [created] = engine.execute(first)
    insert(engine, (1, 1))
    [upgraded] = engine.execute(second)
    assert upgraded.query_id == created.query_id
    insert(engine, (2, 2))
    assert [r["V"] for r in sink_values(engine, "OUT")] == [1, 2]


def test_having_and_non_aggregate_projections_of_an_aggregation_may_change(engine: Engine) -> None:
    [created] = engine.execute("CREATE TABLE counts AS SELECT id, COUNT(*) AS n FROM s GROUP BY id;")
    insert(engine, (1, 1), (1, 1))
    [upgraded] = engine.execute("CREATE OR REPLACE TABLE counts AS SELECT id, COUNT(*) AS n, id * 2 AS twice "
                                "FROM s GROUP BY id HAVING COUNT(*) > 0;")
    assert upgraded.query_id == created.query_id
    insert(engine, (1, 1))
    assert pull(engine, "counts") == {1: (3, 2)}


def test_a_grouping_by_a_value_column_keeps_its_sums_when_a_column_of_its_aggregate_is_appended(
        engine: Engine) -> None:
    """GROUP BY a value column re-partitions; the upgrade keeps the aggregate's store behind the repartition: a
    column computed from an existing aggregate and a WHERE are passive steps (the aggregate calls are unchanged)."""
    [created] = engine.execute("CREATE TABLE sums AS SELECT w, SUM(v) AS total FROM s GROUP BY w;")
    insert(engine, (1, 4), (2, 6))  # both rows have w = 'x'
    assert pull(engine, "sums") == {"x": (10,)}
    [upgraded] = engine.execute("CREATE OR REPLACE TABLE sums AS SELECT w, SUM(v) AS total, SUM(v) * 10 AS tens "
                                "FROM s WHERE v > 0 GROUP BY w;")
    assert upgraded.query_id == created.query_id
    insert(engine, (3, 5), (4, -100))
    assert pull(engine, "sums") == {"x": (15, 150)}


def test_a_paused_query_stays_paused_after_an_upgrade(engine: Engine) -> None:
    [created] = engine.execute("CREATE STREAM out AS SELECT * FROM s;")
    engine.execute(f"PAUSE {created.query_id};")
    engine.execute("CREATE OR REPLACE STREAM out AS SELECT * FROM s WHERE v > 0;")
    assert engine.queries[created.query_id].state == "PAUSED"


def test_a_sink_no_query_writes_gets_a_new_query(engine: Engine) -> None:
    engine.execute("CREATE STREAM out (id INT KEY, v INT, w STRING, a ARRAY<INT>) "
                   "WITH (kafka_topic='out', value_format='JSON', partitions=1);")
    [res] = engine.execute("CREATE OR REPLACE STREAM out WITH (kafka_topic='out') AS SELECT * FROM s;")
    assert res.query_id.startswith("CSAS_OUT_")


# --------------------------------------------------------------------------- refused: the data source

SCHEMA = "Cannot upgrade data source: DataSource '`{name}`' has schema = "


@pytest.mark.parametrize(("first", "second", "expected"), [
    pytest.param("CREATE STREAM o AS SELECT id, v, w FROM s;", "CREATE OR REPLACE STREAM o AS SELECT id, w FROM s;",
                 SCHEMA.format(name="O") + "`ID` INTEGER KEY, `V` INTEGER, `W` STRING which is not upgradeable to "
                 "`ID` INTEGER KEY, `W` STRING. (The following columns are changed, missing or reordered: "
                 "[`V` INTEGER, `W` STRING])", id="removed column"),
    pytest.param("CREATE STREAM o AS SELECT id, v, w FROM s;",
                 "CREATE OR REPLACE STREAM o AS SELECT id, w, v FROM s;",
                 "(The following columns are changed, missing or reordered: [`V` INTEGER, `W` STRING])",
                 id="reordered columns"),
    pytest.param("CREATE STREAM o AS SELECT id, v FROM s;",
                 "CREATE OR REPLACE STREAM o AS SELECT id, CAST(v AS STRING) AS v FROM s;",
                 "(The following columns are changed, missing or reordered: [`V` INTEGER])", id="changed type"),
    pytest.param("CREATE STREAM o AS SELECT id, v FROM s;", "CREATE OR REPLACE STREAM o AS SELECT * FROM s "
                 "PARTITION BY v;", "(Key columns must be identical. The following key columns are changed, missing "
                 "or reordered: [`ID` INTEGER KEY])", id="key change"),
    pytest.param("CREATE TABLE o AS SELECT id, COUNT(*) AS n FROM s GROUP BY id;",
                 "CREATE OR REPLACE TABLE o AS SELECT w, COUNT(*) AS n FROM s GROUP BY w;",
                 "(Key columns must be identical. The following key columns are changed, missing or reordered: "
                 "[`ID` INTEGER KEY])", id="group by change"),
    pytest.param("CREATE TABLE o AS SELECT id, COUNT(*) AS n FROM s GROUP BY id;",
                 "CREATE OR REPLACE TABLE o AS SELECT id, COUNT(*) AS n FROM s WINDOW TUMBLING (SIZE 1 MINUTE) "
                 "GROUP BY id;",
                 "Cannot upgrade data source: DataSource '`O`' has topic = KsqlTopic{kafkaTopicName='O', "
                 "keyFormat=KeyFormat{format=FormatInfo{format=KAFKA, properties={}}, features=SerdeFeatures{"
                 "features=[]}, window=Optional.empty}", id="window added"),
    pytest.param("CREATE STREAM o WITH (value_format='AVRO') AS SELECT * FROM s;",
                 "CREATE OR REPLACE STREAM o WITH (value_format='AVRO', value_schema_full_name='x.Y') AS SELECT * FROM s;",
                 "valueFormat=ValueFormat{format=FormatInfo{format=AVRO, properties={}}, features=SerdeFeatures{"
                 "features=[]}}} which is not upgradeable to KsqlTopic{kafkaTopicName='O', keyFormat=KeyFormat{format="
                 "FormatInfo{format=KAFKA, properties={}}, features=SerdeFeatures{features=[]}, window=Optional.empty},"
                 " valueFormat=ValueFormat{format=FormatInfo{format=AVRO, properties={fullSchemaName=x.Y}}",
                 id="value schema full name"),
    pytest.param("CREATE STREAM o WITH (format='AVRO') AS SELECT * FROM s;",
                 "CREATE OR REPLACE STREAM o WITH (format='AVRO', key_schema_full_name='a.B') AS SELECT * FROM s;",
                 "keyFormat=KeyFormat{format=FormatInfo{format=AVRO, properties={fullSchemaName=io.confluent.ksql."
                 "avro_schemas.OKey}}, features=SerdeFeatures{features=[UNWRAP_SINGLES]}", id="key schema full name"),
    pytest.param("CREATE STREAM o AS SELECT * FROM s;", "CREATE OR REPLACE STREAM o WITH (value_format='DELIMITED') "
                 "AS SELECT id, v, w FROM s;", "has topic = KsqlTopic{kafkaTopicName='O'", id="format change"),
    pytest.param("CREATE STREAM o AS SELECT id, v FROM s;", "CREATE OR REPLACE TABLE o AS SELECT id, COUNT(*) AS v "
                 "FROM s GROUP BY id;", "DataSource '`O`' has type = KSTREAM which is not upgradeable to KTABLE",
                 id="stream to table"),
    pytest.param("CREATE STREAM o AS SELECT id, v FROM s;", "CREATE OR REPLACE STREAM o WITH (timestamp='v') AS "
                 "SELECT id, CAST(v AS BIGINT) AS v FROM s;",
                 "has timestampColumn = Optional.empty which is not upgradeable to Optional[TimestampColumn{"
                 "column=`V`, format=Optional.empty}]\n\tAND DataSource '`O`' has schema", id="timestamp column"),
])
def test_a_change_to_the_sink_is_refused(engine: Engine, first: str, second: str, expected: str) -> None:
    [created] = engine.execute(first)
    with pytest.raises(UpgradeError) as err:
        engine.execute(second)
    assert expected in str(err.value)
    assert str(err.value).startswith("Cannot upgrade data source: ")
    # the old query runs on, untouched
    assert list(engine.queries) == [created.query_id]
    assert engine.queries[created.query_id].state == "RUNNING"


def test_a_plain_create_or_replace_obeys_the_same_rule(engine: Engine) -> None:
    engine.execute("CREATE OR REPLACE STREAM s (id INT KEY, v INT, w STRING, a ARRAY<INT>, extra BIGINT) "
                   "WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    assert engine.catalog.source("S").column("EXTRA") is not None
    with pytest.raises(UpgradeError, match=r"The following columns are changed, missing or reordered: "
                                           r"\[`V` INTEGER, `W` STRING, `A` ARRAY<INTEGER>, `EXTRA` BIGINT\]"):
        engine.execute("CREATE OR REPLACE STREAM s (id INT KEY, w STRING) "
                       "WITH (kafka_topic='s', value_format='JSON', partitions=1);")


# --------------------------------------------------------------------------- refused: the plan


@pytest.mark.parametrize(("first", "second", "expected"), [
    pytest.param("CREATE STREAM o AS SELECT * FROM s;", "CREATE OR REPLACE STREAM o AS SELECT * FROM s_other;",
                 "Query is not upgradeable. Plan step of type StreamSource must have matching topicName. "
                 "Values differ: s vs. s_other", id="source change"),
    pytest.param("CREATE TABLE o AS SELECT id, COUNT(*) AS n FROM s GROUP BY id;",
                 "CREATE OR REPLACE TABLE o AS SELECT id, MAX(ROWTIME) AS n FROM s GROUP BY id;",
                 "Query is not upgradeable. Plan step of type StreamAggregate must have matching aggregationFunctions."
                 " Values differ: [COUNT(KSQL_INTERNAL_COL_1)] vs. [MAX(KSQL_INTERNAL_COL_1)]", id="aggregate change"),
    pytest.param("CREATE TABLE o AS SELECT id, COUNT(*) AS n FROM s GROUP BY id;",
                 "CREATE OR REPLACE TABLE o AS SELECT id, COUNT(*) AS n, SUM(v) AS total FROM s GROUP BY id;",
                 "must have matching nonAggregateColumns. Values differ: [`KSQL_INTERNAL_COL_0`, `KSQL_INTERNAL_COL_1`] "
                 "vs. [`KSQL_INTERNAL_COL_0`, `KSQL_INTERNAL_COL_1`, `KSQL_INTERNAL_COL_2`]", id="aggregate added"),
    pytest.param("CREATE STREAM o AS SELECT v, id FROM s PARTITION BY v;",
                 "CREATE OR REPLACE STREAM o AS SELECT v + 0 AS v, id FROM s PARTITION BY v + 0;",
                 "Query is not upgradeable. Plan step of type StreamSelectKey must have matching keyExpression. "
                 "Values differ: [V] vs. [(V + 0)]", id="partition by expression"),
    pytest.param("CREATE TABLE o AS SELECT w, COUNT(*) AS n FROM s GROUP BY w;",
                 "CREATE OR REPLACE TABLE o AS SELECT UCASE(w) AS w, COUNT(*) AS n FROM s GROUP BY UCASE(w);",
                 "Query is not upgradeable. Plan step of type StreamGroupByV2 must have matching groupByExpressions. "
                 "Values differ: [KSQL_INTERNAL_COL_0] vs. [UCASE(KSQL_INTERNAL_COL_0)]", id="group by expression"),
    pytest.param("CREATE STREAM o AS SELECT s.id, s.v FROM s;",
                 "CREATE OR REPLACE STREAM o AS SELECT s.id AS id, t.v AS v FROM s JOIN t ON s.id = t.id;",
                 "Query is not upgradeable. Cannot change a non-join source into a join source.",
                 id="join added"),
    pytest.param("CREATE STREAM o AS SELECT s.id, t.v FROM s JOIN t ON s.id = t.id;",
                 "CREATE OR REPLACE STREAM o AS SELECT s.id, t.v FROM s JOIN t ON s.id = t.id WHERE s.v > 0;",
                 "Upgrades not yet supported for StreamTableJoin", id="join"),
    pytest.param("CREATE TABLE o AS SELECT id, COUNT(*) AS n FROM s WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY id;",
                 "CREATE OR REPLACE TABLE o AS SELECT id, COUNT(*) AS n FROM s WINDOW TUMBLING (SIZE 1 MINUTE) "
                 "WHERE v > 0 GROUP BY id;", "Upgrades not yet supported for StreamWindowedAggregate",
                 id="windowed aggregate"),
    pytest.param("CREATE TABLE o AS SELECT v, COUNT(*) AS n FROM t GROUP BY v;",
                 "CREATE OR REPLACE TABLE o AS SELECT v, COUNT(*) AS n FROM t WHERE id > 0 GROUP BY v;",
                 "Upgrades not yet supported for TableAggregate", id="table aggregate"),
    pytest.param("CREATE STREAM o AS SELECT id, EXPLODE(a) AS e FROM s;",
                 "CREATE OR REPLACE STREAM o AS SELECT id, EXPLODE(a) AS e FROM s WHERE v > 0;",
                 "Upgrades not yet supported for StreamFlatMap", id="flat-map"),
    pytest.param("CREATE STREAM o AS SELECT id, v AS e FROM s;",
                 "CREATE OR REPLACE STREAM o AS SELECT id, EXPLODE(a) AS e FROM s;",
                 "Query is not upgradeable. Cannot add a StreamFlatMap step that is not in the original query plan.",
                 id="flat-map added"),
    pytest.param("CREATE TABLE o AS SELECT id, COUNT(*) AS n FROM s WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY id "
                 "EMIT FINAL;", "CREATE OR REPLACE TABLE o AS SELECT id, COUNT(*) AS n FROM s WINDOW TUMBLING "
                 "(SIZE 1 MINUTE) WHERE v > 0 GROUP BY id EMIT FINAL;",
                 "Upgrades not yet supported for TableSuppress", id="suppress"),
])
def test_a_change_to_the_plan_is_refused(engine: Engine, first: str, second: str, expected: str) -> None:
    [created] = engine.execute(first)
    with pytest.raises(KsqlStatementError) as err:
        engine.execute(second)
    assert expected in str(err.value)
    assert list(engine.queries) == [created.query_id]


# --------------------------------------------------------------------------- refused: the statement


def test_several_writers_refuse_a_replace(engine: Engine) -> None:
    [created] = engine.execute("CREATE STREAM o AS SELECT * FROM s;")
    [inserting] = engine.execute("INSERT INTO o SELECT * FROM s_other;")
    with pytest.raises(KsqlStatementError) as err:
        engine.execute("CREATE OR REPLACE STREAM o AS SELECT * FROM s WHERE v > 0;")
    assert str(err.value) == (f"REPLACE for sink `O` is not supported because there are multiple queries writing "
                              f"into it: [{created.query_id}, {inserting.query_id}]")


def test_create_or_replace_can_be_switched_off(engine: Engine) -> None:
    engine.execute("CREATE STREAM o AS SELECT * FROM s;")
    engine.execute("SET 'ksql.create.or.replace.enabled'='false';")
    with pytest.raises(KsqlStatementError, match="^Cannot add stream 'O': A stream with the same name already "
                                                 "exists$"):
        engine.execute("CREATE OR REPLACE STREAM o AS SELECT * FROM s WHERE v > 0;")
    with pytest.raises(KsqlStatementError, match="^Cannot add stream 'S': A stream with the same name already "):
        engine.execute("CREATE OR REPLACE STREAM s (id INT KEY, v INT, w STRING, a ARRAY<INT>) "
                       "WITH (kafka_topic='s', value_format='JSON');")


def test_source_streams_and_tables_cannot_be_replaced(engine: Engine) -> None:
    engine.execute("CREATE SOURCE STREAM ro (id INT KEY, v INT) WITH (kafka_topic='s', value_format='JSON');")
    with pytest.raises(KsqlStatementError, match="CREATE OR REPLACE is not supported on source streams."):
        engine.execute("CREATE OR REPLACE STREAM ro AS SELECT id, v FROM s;")
    with pytest.raises(KsqlStatementError, match="CREATE OR REPLACE is not supported on source streams."):
        engine.execute("CREATE OR REPLACE STREAM ro (id INT KEY, v INT) WITH (kafka_topic='s', value_format='JSON');")


def test_if_not_exists_on_an_existing_sink_starts_nothing(engine: Engine) -> None:
    [created] = engine.execute("CREATE STREAM o AS SELECT * FROM s;")
    [res] = engine.execute("CREATE STREAM IF NOT EXISTS o AS SELECT * FROM s WHERE v > 0;")
    assert res.message == "Cannot add stream `O`: A stream with the same name already exists."
    assert list(engine.queries) == [created.query_id]
    assert "WHERE" not in engine.catalog.query(created.query_id).sql


@pytest.mark.parametrize("kind", ["CREATE", "CSAS"])
def test_a_wrap_config_set_between_changes_the_value_features(engine: Engine, kind: str) -> None:
    """ksql.persistence.wrap.single.values set (it has no default) gives the single value WRAP_SINGLES, which
    is part of the topic's value format: a replacement created after the SET differs from the original."""
    sql = ("CREATE {} STREAM o (id INT KEY, v INT) WITH (kafka_topic='o', value_format='JSON', partitions=1);"
           if kind == "CREATE" else "CREATE {} STREAM o AS SELECT id, v FROM s;")
    engine.execute(sql.format(""))
    engine.execute(sql.format("OR REPLACE"))  # unset both times: the same source
    engine.execute("SET 'ksql.persistence.wrap.single.values'='true';")
    with pytest.raises(UpgradeError) as err:
        engine.execute(sql.format("OR REPLACE"))
    assert ("valueFormat=ValueFormat{format=FormatInfo{format=JSON, properties={}}, features=SerdeFeatures{"
            "features=[]}}} which is not upgradeable to ") in str(err.value)
    assert str(err.value).endswith("valueFormat=ValueFormat{format=FormatInfo{format=JSON, properties={}}, "
                                   "features=SerdeFeatures{features=[WRAP_SINGLES]}}}")
