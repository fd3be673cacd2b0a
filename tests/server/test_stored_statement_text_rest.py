"""/ksql shows the statement text ksqlDB stores (its injectors' output printed by SqlFormatter) wherever a
query's or a source's statement is shown: SHOW QUERIES ``queryString``, SHOW QUERIES EXTENDED and EXPLAIN
``statementText``, DESCRIBE EXTENDED ``statement`` and ``readQueries``/``writeQueries``. The statement's own
response (``currentStatus.statementText``) is that text too: ksqlDB's DistributingExecutor answers with
``injected.getMaskedStatementText()`` - the text as sent only where no injector reprinted it (INSERT INTO)."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")

from server_helpers import ksql  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

CREATE = ("CREATE STREAM ST_IN (ID INT KEY, NAME STRING, AMOUNT DOUBLE) "
          "WITH (kafka_topic='st_in', value_format='JSON', partitions=3);")
STORED_CREATE = ("CREATE STREAM ST_IN (ID INTEGER KEY, NAME STRING, AMOUNT DOUBLE) "
                 "WITH (KAFKA_TOPIC='st_in', KEY_FORMAT='KAFKA', PARTITIONS=3, VALUE_FORMAT='JSON');")
CSAS = "CREATE STREAM ST_BIG AS SELECT ID, UCASE(NAME) AS UPPER_NAME, AMOUNT * 2 FROM ST_IN WHERE AMOUNT >= 10.5;"
STORED_CSAS = ("CREATE STREAM ST_BIG WITH (CLEANUP_POLICY='delete', KAFKA_TOPIC='ST_BIG', PARTITIONS=3, REPLICAS=1, "
               "RETENTION_MS=604800000) AS SELECT\n  ST_IN.ID ID,\n  UCASE(ST_IN.NAME) UPPER_NAME,\n"
               "  (ST_IN.AMOUNT * 2) KSQL_COL_0\nFROM ST_IN ST_IN\nWHERE (ST_IN.AMOUNT >= 10.5)\nEMIT CHANGES;")
CTAS = ("CREATE TABLE ST_COUNTS WITH (kafka_topic='st_counts_out') AS SELECT ID, COUNT(*) AS C FROM ST_IN i "
        "WINDOW TUMBLING (SIZE 1 MINUTE, GRACE PERIOD 10 SECONDS) GROUP BY ID;")
STORED_CTAS = ("CREATE TABLE ST_COUNTS WITH (CLEANUP_POLICY='compact,delete', KAFKA_TOPIC='st_counts_out', PARTITIONS=3, "
               "REPLICAS=1, RETENTION_MS=604800000) AS SELECT\n  I.ID ID,\n  COUNT(*) C\nFROM ST_IN I\n"
               "WINDOW TUMBLING ( SIZE 1 MINUTES , GRACE PERIOD 10 SECONDS ) \nGROUP BY I.ID\nEMIT CHANGES;")
INSERT = "INSERT INTO ST_BIG SELECT ID, NAME AS UPPER_NAME, AMOUNT AS KSQL_COL_0 FROM ST_IN;"


@pytest.fixture(scope="module")
def ids(quiet_app: TestClient) -> dict[str, str]:
    out = {}
    injected = {CREATE: STORED_CREATE, CSAS: STORED_CSAS, CTAS: STORED_CTAS, INSERT: INSERT}
    for sql in (CREATE, CSAS, CTAS, INSERT):
        (status,) = ksql(quiet_app, sql)
        assert status["@type"] == "currentStatus" and status["statementText"] == injected[sql]
        out[sql] = status["commandStatus"]["queryId"]
    return out


def test_show_queries_and_explain_show_the_stored_text(quiet_app: TestClient, ids: dict[str, str]) -> None:
    (listing,) = ksql(quiet_app, "SHOW QUERIES;")
    shown = {q["id"]: q["queryString"] for q in listing["queries"]}
    assert shown[ids[CSAS]] == STORED_CSAS
    assert shown[ids[CTAS]] == STORED_CTAS
    assert shown[ids[INSERT]] == INSERT  # no injector reprints an INSERT INTO
    (extended,) = ksql(quiet_app, "SHOW QUERIES EXTENDED;")
    described = {d["id"]: d["statementText"] for d in extended["queryDescriptions"]}
    assert described[ids[CSAS]] == STORED_CSAS and described[ids[CTAS]] == STORED_CTAS
    (explained,) = ksql(quiet_app, f"EXPLAIN {ids[CTAS]};")
    assert explained["queryDescription"]["statementText"] == STORED_CTAS


def test_describe_extended_shows_the_stored_statements(quiet_app: TestClient, ids: dict[str, str]) -> None:
    (source,) = ksql(quiet_app, "DESCRIBE ST_IN EXTENDED;")
    d = source["sourceDescription"]
    assert d["statement"] == STORED_CREATE
    assert {q["id"]: q["queryString"] for q in d["readQueries"]} == {
        ids[CSAS]: STORED_CSAS, ids[CTAS]: STORED_CTAS, ids[INSERT]: INSERT}
    (sink,) = ksql(quiet_app, "DESCRIBE ST_BIG EXTENDED;")
    assert sink["sourceDescription"]["statement"] == STORED_CSAS
    assert {q["queryString"] for q in sink["sourceDescription"]["writeQueries"]} == {STORED_CSAS, INSERT}
    (listed,) = ksql(quiet_app, "LIST STREAMS EXTENDED;")
    statements = {s["name"]: s["statement"] for s in listed["sourceDescriptions"]}
    assert statements["ST_IN"] == STORED_CREATE and statements["ST_BIG"] == STORED_CSAS
