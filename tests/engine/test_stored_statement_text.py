"""The statement text ksqlDB stores and shows: the statement as its injectors left it, printed by SqlFormatter.

SHOW QUERIES (and EXTENDED), EXPLAIN of a running query, DESCRIBE EXTENDED's ``statement`` and its read/write
queries show it; a CREATE ... AS SELECT is always reprinted (TopicCreateInjector adds the sink topic's
properties), a CREATE STREAM/TABLE only when a format was filled in, INSERT INTO never.
"""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy.engine.command_log import DurableStatements
from ksqlpy.engine.engine import Engine

SOURCE = ("CREATE STREAM S (ID INT KEY, V STRING, N INT, A ARRAY<INT>, ST STRUCT<X INT, `y` STRING>) "
          "WITH (kafka_topic='s', value_format='JSON', partitions=2);")
STREAM_TOPIC = "CLEANUP_POLICY='delete', KAFKA_TOPIC='{}', PARTITIONS=2, REPLICAS=1, RETENTION_MS=604800000"


@pytest.fixture
def engine(tmp_path: Any) -> Any:
    e = Engine(str(tmp_path))
    e.execute(SOURCE)
    e.execute("CREATE STREAM S3 (ID INT KEY, V STRING) WITH (kafka_topic='s3', format='JSON', partitions=2);")
    e.execute("CREATE STREAM NK (V STRING) WITH (kafka_topic='nk', value_format='JSON', partitions=1);")
    yield e
    e.close()


def query_texts(engine: Any) -> dict[str, str]:
    (result,) = engine.execute("SHOW QUERIES;")
    return {q["queryString"].split(" WITH ")[0].split(" SELECT ")[0]: q["queryString"] for q in result.data}


def shown(engine: Any, sql: str) -> str:
    """The text SHOW QUERIES shows for the query ``sql`` creates, checked against EXPLAIN and DESCRIBE."""
    (created,) = engine.execute(sql)
    qid = created.query_id
    (listing,) = engine.execute("SHOW QUERIES;")
    (text,) = [q["queryString"] for q in listing.data if q["id"] == qid]
    (explained,) = engine.execute(f"EXPLAIN {qid};")
    assert explained.data["queryString"] == text  # the REST entity's statementText
    (extended,) = engine.execute("SHOW QUERIES EXTENDED;")
    assert [d["queryString"] for d in extended.data if d["id"] == qid] == [text]
    sink = engine.queries[qid].sink_name
    (described,) = engine.execute(f"DESCRIBE {sink} EXTENDED;")
    assert text in [q["queryString"] for q in described.data["writeQueries"]]
    return text


@pytest.mark.parametrize(("sql", "expected"), [
    ("CREATE STREAM S2 AS SELECT * FROM S WHERE ID > 0;",
     f"CREATE STREAM S2 WITH ({STREAM_TOPIC.format('S2')}) AS SELECT *\nFROM S S\nWHERE (S.ID > 0)\nEMIT CHANGES;"),
    ("create stream s2 with (kafka_topic='out', value_format='avro') as select v, n from s x partition by v;",
     "CREATE STREAM S2 WITH (CLEANUP_POLICY='delete', KAFKA_TOPIC='out', PARTITIONS=2, REPLICAS=1, "
     "RETENTION_MS=604800000, VALUE_FORMAT='avro') AS SELECT\n  X.V V,\n  X.N N\nFROM S X\nPARTITION BY X.V\n"
     "EMIT CHANGES;"),
    ("CREATE STREAM S9 AS SELECT UCASE(V) FROM NK;",  # a single item: on the SELECT line
     "CREATE STREAM S9 WITH (CLEANUP_POLICY='delete', KAFKA_TOPIC='S9', PARTITIONS=1, REPLICAS=1, "
     "RETENTION_MS=604800000) AS SELECT UCASE(NK.V) KSQL_COL_0\nFROM NK NK\nEMIT CHANGES;"),
    ("CREATE STREAM S2 AS SELECT ID, V AS `name`, N + 1, UCASE(V) u, ST->X, CASE WHEN N > 1 THEN 'a' ELSE 'b' END "
     "AS C, CAST(N AS BIGINT) B, TRANSFORM(A, x => x * 2) T, 1.50 DEC, 1e3 DBL, true BO, 'it''s' STR, "
     "ARRAY[1, 2] AR, MAP('a' := 1) MP, STRUCT(F := 1) SR FROM S "
     "WHERE V LIKE 'a%' AND N BETWEEN 1 AND 3 OR V IS NULL EMIT CHANGES;",
     f"CREATE STREAM S2 WITH ({STREAM_TOPIC.format('S2')}) AS SELECT\n  S.ID ID,\n  S.V `name`,\n"
     "  (S.N + 1) KSQL_COL_0,\n  UCASE(S.V) U,\n  S.ST->X X,\n  (CASE WHEN (S.N > 1) THEN 'a' ELSE 'b' END) C,\n"
     "  CAST(S.N AS BIGINT) B,\n  TRANSFORM(S.A, (X) => (X * 2)) T,\n  1.50 DEC,\n  1000.0 DBL,\n  true BO,\n"
     "  'it''s' STR,\n  ARRAY[1, 2] AR,\n  MAP('a':=1) MP,\n  STRUCT(F:=1) SR\nFROM S S\n"
     "WHERE (((S.V LIKE 'a%') AND (S.N BETWEEN 1 AND 3)) OR (S.V IS NULL))\nEMIT CHANGES;"),
    ("CREATE TABLE T AS SELECT V, COUNT(*) FROM S GROUP BY V HAVING COUNT(*) > 1;",
     "CREATE TABLE T WITH (CLEANUP_POLICY='compact', KAFKA_TOPIC='T', PARTITIONS=2, REPLICAS=1, "
     "RETENTION_MS=604800000) AS SELECT\n  S.V V,\n  COUNT(*) KSQL_COL_0\nFROM S S\nGROUP BY S.V\n"
     "HAVING (COUNT(*) > 1)\nEMIT CHANGES;"),
    ("CREATE TABLE T AS SELECT ID, COUNT(*) C FROM S WINDOW TUMBLING (SIZE 30 SECOND) GROUP BY ID;",
     "CREATE TABLE T WITH (CLEANUP_POLICY='compact,delete', KAFKA_TOPIC='T', PARTITIONS=2, REPLICAS=1, "
     "RETENTION_MS=604800000) AS SELECT\n  S.ID ID,\n  COUNT(*) C\nFROM S S\nWINDOW TUMBLING ( SIZE 30 SECONDS ) \n"
     "GROUP BY S.ID\nEMIT CHANGES;"),
    ("CREATE TABLE T AS SELECT ID, COUNT(*) C FROM S WINDOW HOPPING (SIZE 2 MINUTES, ADVANCE BY 30 SECONDS, "
     "RETENTION 1 DAY, GRACE PERIOD 500 MILLISECONDS) GROUP BY ID EMIT FINAL;",
     "CREATE TABLE T WITH (CLEANUP_POLICY='compact,delete', KAFKA_TOPIC='T', PARTITIONS=2, REPLICAS=1, "
     "RETENTION_MS=86400000) AS SELECT\n  S.ID ID,\n  COUNT(*) C\nFROM S S\n"
     "WINDOW HOPPING ( SIZE 2 MINUTES , ADVANCE BY 30 SECONDS , RETENTION 1 DAYS , GRACE PERIOD 500 MILLISECONDS ) \n"
     "GROUP BY S.ID\nEMIT FINAL;"),
    ("CREATE TABLE T AS SELECT ID, COUNT(*) C FROM S WINDOW SESSION (5 MINUTES, GRACE PERIOD 1 MINUTE) GROUP BY ID;",
     "CREATE TABLE T WITH (CLEANUP_POLICY='compact,delete', KAFKA_TOPIC='T', PARTITIONS=2, REPLICAS=1, "
     "RETENTION_MS=604800000) AS SELECT\n  S.ID ID,\n  COUNT(*) C\nFROM S S\n"
     "WINDOW SESSION ( 5 MINUTES , GRACE PERIOD 1 MINUTES ) \nGROUP BY S.ID\nEMIT CHANGES;"),
    ("CREATE STREAM J AS SELECT L.ID, R.V FROM S L JOIN S3 R WITHIN 10 SECONDS ON L.ID = R.ID;",
     f"CREATE STREAM J WITH ({STREAM_TOPIC.format('J')}) AS SELECT\n  L.ID L_ID,\n  R.V R_V\nFROM S L\n"
     "INNER JOIN S3 R WITHIN 10 SECONDS ON ((L.ID = R.ID))\nEMIT CHANGES;"),
])
def test_create_as_select_is_stored_as_topic_create_injector_prints_it(engine: Any, sql: str, expected: str) -> None:
    assert shown(engine, sql) == expected
    name = expected.split(" WITH ")[0].split()[-1]
    (described,) = engine.execute(f"DESCRIBE {name} EXTENDED;")
    assert described.data["statement"] == expected


def test_create_or_replace_shows_the_new_statement(engine: Any) -> None:
    shown(engine, "CREATE STREAM S2 AS SELECT ID, V FROM S;")
    text = shown(engine, "CREATE OR REPLACE STREAM S2 AS SELECT ID, V FROM S WHERE N > 0;")
    assert text == (f"CREATE OR REPLACE STREAM S2 WITH ({STREAM_TOPIC.format('S2')}) AS SELECT\n  S.ID ID,\n  S.V V\n"
                    "FROM S S\nWHERE (S.N > 0)\nEMIT CHANGES;")


def test_insert_into_keeps_the_text_sent(engine: Any) -> None:
    engine.execute("CREATE STREAM S2 AS SELECT ID, V FROM S;")
    sql = "INSERT INTO S2 SELECT ID, V FROM S  WHERE n > 1;"
    (created,) = engine.execute(sql)
    (listing,) = engine.execute("SHOW QUERIES;")
    assert [q["queryString"] for q in listing.data if q["id"] == created.query_id] == [sql]


def test_the_statement_result_keeps_the_text_sent(engine: Any) -> None:
    sql = "CREATE STREAM S2 AS SELECT * FROM S;"
    (created,) = engine.execute(sql)
    assert created.statement == sql


@pytest.mark.parametrize(("sql", "expected"), [
    # a format filled in from ksql.persistence.default.format.key: reprinted
    ("CREATE STREAM C (ID INT KEY, V VARCHAR, M MAP<STRING, DECIMAL(4, 2)>, H BYTES HEADER('h')) "
     "WITH (kafka_topic='s', value_format='json', timestamp_format='yyyy');",
     "CREATE STREAM C (ID INTEGER KEY, V STRING, M MAP<STRING, DECIMAL(4, 2)>, H BYTES HEADER('h')) "
     "WITH (KAFKA_TOPIC='s', KEY_FORMAT='KAFKA', TIMESTAMP_FORMAT='yyyy', VALUE_FORMAT='json');"),
    ("CREATE OR REPLACE TABLE C (ID INT PRIMARY KEY, `v` STRING) WITH (kafka_topic='s', format='JSON');",
     "CREATE OR REPLACE TABLE C (ID INTEGER PRIMARY KEY, `v` STRING) "
     "WITH (KAFKA_TOPIC='s', KEY_FORMAT='JSON', VALUE_FORMAT='JSON');"),
    ("CREATE SOURCE STREAM C (ID INT KEY, HS ARRAY<STRUCT<KEY STRING, VALUE BYTES>> HEADERS) "
     "WITH (kafka_topic='s', value_format='DELIMITED');",
     "CREATE SOURCE STREAM C (ID INTEGER KEY, HS ARRAY<STRUCT<KEY STRING, VALUE BYTES>> HEADERS) "
     "WITH (KAFKA_TOPIC='s', KEY_FORMAT='KAFKA', VALUE_FORMAT='DELIMITED');"),
    # both formats given: nothing injected, the text as sent
    ("CREATE STREAM C (ID INT KEY) WITH (kafka_topic='s', key_format='JSON', value_format='JSON');",
     "CREATE STREAM C (ID INT KEY) WITH (kafka_topic='s', key_format='JSON', value_format='JSON');"),
])
def test_create_source_is_stored_as_default_format_injector_leaves_it(engine: Any, sql: str, expected: str) -> None:
    engine.execute(sql)
    (described,) = engine.execute("DESCRIBE C EXTENDED;")
    assert described.data["statement"] == expected


def test_a_source_table_query_shows_its_stored_create(engine: Any) -> None:
    (created,) = engine.execute("CREATE SOURCE TABLE C (ID INT PRIMARY KEY, V STRING) "
                                "WITH (kafka_topic='s', value_format='JSON');")
    (listing,) = engine.execute("SHOW QUERIES;")
    assert [q["queryString"] for q in listing.data if q["id"] == created.query_id] == [
        "CREATE SOURCE TABLE C (ID INTEGER PRIMARY KEY, V STRING) "
        "WITH (KAFKA_TOPIC='s', KEY_FORMAT='KAFKA', VALUE_FORMAT='JSON');"]


def test_the_text_is_derived_again_on_replay(tmp_path: Any) -> None:
    """The command log keeps the stored (injected) text; replaying it derives the same text again."""
    first = Engine(str(tmp_path))
    shell = DurableStatements(first)
    shell.execute(SOURCE)
    (created,) = shell.execute("CREATE STREAM S2 AS SELECT ID, V FROM S;")
    before = first.queries[created.query_id].statement_text
    assert [c.statement for c in shell.commands.read_all()][-1] == before
    first.close()
    again = Engine(str(tmp_path))
    assert DurableStatements(again).replay_errors == []
    try:
        assert again.queries[created.query_id].statement_text == before == (
            f"CREATE STREAM S2 WITH ({STREAM_TOPIC.format('S2')}) AS SELECT\n  S.ID ID,\n  S.V V\nFROM S S\n"
            "EMIT CHANGES;")
        (described,) = again.execute("DESCRIBE S EXTENDED;")
        assert described.data["statement"].startswith("CREATE STREAM S (ID INTEGER KEY, V STRING")
    finally:
        again.close()


def test_columns_read_from_the_registry_are_in_the_stored_create(engine: Any) -> None:
    """DefaultSchemaInjector adds the registry's columns to the statement, which is then reprinted."""
    import json

    engine.schema_registry.register("st_avro-value", json.dumps({"type": "record", "name": "R", "fields": [
        {"name": "NAME", "type": ["null", "string"]}, {"name": "AMOUNT", "type": "double"}]}))
    engine.execute("CREATE STREAM C WITH (kafka_topic='st_avro', value_format='AVRO', partitions=1);")
    engine.execute("CREATE STREAM C2 (ID INT KEY) WITH (kafka_topic='st_avro', key_format='KAFKA', "
                   "value_format='AVRO');")
    (c,) = engine.execute("DESCRIBE C EXTENDED;")
    (c2,) = engine.execute("DESCRIBE C2 EXTENDED;")
    assert c.data["statement"] == ("CREATE STREAM C (NAME STRING, AMOUNT DOUBLE) WITH (KAFKA_TOPIC='st_avro', "
                                   "KEY_FORMAT='KAFKA', PARTITIONS=1, VALUE_FORMAT='AVRO');")
    assert c2.data["statement"] == ("CREATE STREAM C2 (ID INTEGER KEY, NAME STRING, AMOUNT DOUBLE) "
                                    "WITH (KAFKA_TOPIC='st_avro', KEY_FORMAT='KAFKA', VALUE_FORMAT='AVRO');")
