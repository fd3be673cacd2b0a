"""Every /ksql entity kind, whole: what each statement kind answers, field by field, as ksqlDB's entity
classes serialize them (``@type``, every field, nesting, nulls, list order), through the server app.

Values that differ from run to run (command sequence numbers, the host's port, a transient query's random
id) are checked for their form and then fixed, so the rest compares exactly."""

from __future__ import annotations

import re
import time
import warnings
from typing import Any

import pytest

pytest.importorskip("fastapi")
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
from server_helpers import ksql  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402


def schema(t: str, **extra: Any) -> dict[str, Any]:
    return {"type": t, "fields": None, "memberSchema": None, **extra}


INT, STRING, BIGINT = schema("INTEGER"), schema("STRING"), schema("BIGINT")


def status_entity(statement: str, command_id: str, message: str, query_id: str | None = None) -> dict[str, Any]:
    return {"@type": "currentStatus", "statementText": statement, "commandId": command_id,
            "commandStatus": {"status": "SUCCESS", "message": message, "queryId": query_id},
            "commandSequenceNumber": "<seq>", "warnings": []}


def fixed(entities: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Sequence numbers checked to be command offsets, then replaced by a marker."""
    for e in entities:
        if "commandSequenceNumber" in e:
            assert isinstance(e["commandSequenceNumber"], int) and e["commandSequenceNumber"] >= 0
            e["commandSequenceNumber"] = "<seq>"
    return entities


def query_number(entity: dict[str, Any]) -> str:
    qid = entity["commandStatus"]["queryId"]
    assert re.fullmatch(r"C[ST]AS_\w+_\d+|INSERTQUERY_\d+", qid)
    return qid


def test_ddl_statements_answer_command_statuses(quiet_app: TestClient) -> None:
    sql = ("CREATE STREAM EN_S (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='en_s', VALUE_FORMAT='JSON', "
           "PARTITIONS=2);\nCREATE TABLE EN_T (ID INT PRIMARY KEY, V STRING) WITH (KAFKA_TOPIC='en_t', "
           "VALUE_FORMAT='JSON', PARTITIONS=1);\nCREATE TYPE EN_ADDR AS STRUCT<CITY STRING, ZIP INT>;\n"
           "ALTER STREAM EN_S ADD COLUMN W BIGINT;")
    body = fixed(ksql(quiet_app, sql))
    statements = sql.split("\n")
    # a CREATE whose KEY_FORMAT DefaultFormatInjector filled in answers with the statement reprinted
    injected = ["CREATE STREAM EN_S (ID INTEGER KEY, V STRING) WITH (KAFKA_TOPIC='en_s', KEY_FORMAT='KAFKA', "
                "PARTITIONS=2, VALUE_FORMAT='JSON');",
                "CREATE TABLE EN_T (ID INTEGER PRIMARY KEY, V STRING) WITH (KAFKA_TOPIC='en_t', KEY_FORMAT='KAFKA', "
                "PARTITIONS=1, VALUE_FORMAT='JSON');"]
    assert body == [
        status_entity(injected[0], "stream/EN_S/create", "Stream created"),
        status_entity(injected[1], "table/EN_T/create", "Table created"),
        status_entity(statements[2], "type/EN_ADDR/create",
                      "Registered custom type with name 'EN_ADDR' and SQL type STRUCT<`CITY` STRING, `ZIP` INTEGER>"),
        status_entity(statements[3], "stream/EN_S/alter", "Stream altered"),
    ]


def test_queries_answer_their_query_id(quiet_app: TestClient) -> None:
    ksql(quiet_app, "CREATE STREAM EN_Q (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='en_q', VALUE_FORMAT='JSON', "
                 "PARTITIONS=1);")
    csas = "CREATE STREAM EN_Q2 AS SELECT * FROM EN_Q;"
    ctas = "CREATE TABLE EN_QT AS SELECT ID, COUNT(*) AS N FROM EN_Q GROUP BY ID;"
    insert = "INSERT INTO EN_Q2 SELECT * FROM EN_Q;"
    body = fixed(ksql(quiet_app, f"{csas} {ctas} {insert}"))
    ids = [query_number(e) for e in body]
    assert ids[0].startswith("CSAS_EN_Q2_") and ids[1].startswith("CTAS_EN_QT_") and ids[2].startswith("INSERTQUERY_")
    # each CREATE ... AS SELECT answers with the statement TopicCreateInjector reprinted; the INSERT as sent
    stored_csas = ("CREATE STREAM EN_Q2 WITH (CLEANUP_POLICY='delete', KAFKA_TOPIC='EN_Q2', PARTITIONS=1, REPLICAS=1, "
                   "RETENTION_MS=604800000) AS SELECT *\nFROM EN_Q EN_Q\nEMIT CHANGES;")
    stored_ctas = ("CREATE TABLE EN_QT WITH (CLEANUP_POLICY='compact', KAFKA_TOPIC='EN_QT', PARTITIONS=1, REPLICAS=1, "
                   "RETENTION_MS=604800000) AS SELECT\n  EN_Q.ID ID,\n  COUNT(*) N\nFROM EN_Q EN_Q\nGROUP BY EN_Q.ID\n"
                   "EMIT CHANGES;")
    assert body == [status_entity(stored_csas, "stream/EN_Q2/create", f"Created query with ID {ids[0]}", ids[0]),
                    status_entity(stored_ctas, "table/EN_QT/create", f"Created query with ID {ids[1]}", ids[1]),
                    status_entity(insert, "stream/EN_Q2/create", f"Created query with ID {ids[2]}", ids[2])]
    pause, resume, terminate = f"PAUSE {ids[2]};", f"RESUME {ids[2]};", f"TERMINATE {ids[2]};"
    assert fixed(ksql(quiet_app, f"{pause} {resume} {terminate}")) == [
        status_entity(pause, f"pause/{ids[2]}/execute", "Query paused."),
        status_entity(resume, f"resume/{ids[2]}/execute", "Query resumed."),
        status_entity(terminate, f"terminate/{ids[2]}/execute", "Query terminated."),
    ]


def test_if_not_exists_warns_with_the_statements_kind(quiet_app: TestClient) -> None:
    ksql(quiet_app, "CREATE STREAM EN_W (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='en_w', VALUE_FORMAT='JSON', "
                 "PARTITIONS=1);")
    for sql, kind in [("CREATE STREAM IF NOT EXISTS EN_W (ID INT KEY) WITH (KAFKA_TOPIC='en_w', VALUE_FORMAT='JSON');",
                       "stream"),
                      ("CREATE TABLE IF NOT EXISTS EN_W (ID INT PRIMARY KEY) WITH (KAFKA_TOPIC='en_w', "
                       "VALUE_FORMAT='JSON');", "table"),
                      ("CREATE STREAM IF NOT EXISTS EN_W AS SELECT * FROM EN_W;", "stream")]:
        assert ksql(quiet_app, sql) == [{
            "@type": "warning_entity", "statementText": sql, "warnings": [],
            "message": f"Cannot add {kind} `EN_W`: A {kind} with the same name already exists."}]


def test_types_if_not_exists_and_if_exists(quiet_app: TestClient) -> None:
    statements = ["CREATE TYPE EN_T1 AS INT;", "CREATE TYPE IF NOT EXISTS EN_T1 AS STRING;", "DROP TYPE EN_T1;",
                  "DROP TYPE IF EXISTS EN_T1;"]
    assert fixed(ksql(quiet_app, " ".join(statements))) == [
        status_entity(statements[0], "type/EN_T1/create", "Registered custom type with name 'EN_T1' and SQL type "
                                                          "INTEGER"),
        status_entity(statements[1], "type/EN_T1/create", "EN_T1 is already registered with type INTEGER"),
        status_entity(statements[2], "type/EN_T1/drop", "Dropped type 'EN_T1'"),
        status_entity(statements[3], "type/EN_T1/drop", "Type 'EN_T1' does not exist"),
    ]
    assert ksql(quiet_app, "DROP TYPE EN_T1;", 400) == {
        "@type": "statement_error", "error_code": 40001, "message": "Type EN_T1 does not exist.",
        "statementText": "DROP TYPE EN_T1;", "entities": []}


def test_show_types_lists_schema_infos(quiet_app: TestClient) -> None:
    ksql(quiet_app, "CREATE TYPE EN_NESTED AS STRUCT<A ARRAY<DECIMAL(4, 2)>, M MAP<STRING, BIGINT>>;")
    body = ksql(quiet_app, "SHOW TYPES;")
    assert [e["@type"] for e in body] == ["type_list"]
    assert body[0]["statementText"] == "SHOW TYPES;" and body[0]["warnings"] == []
    assert body[0]["types"]["EN_NESTED"] == schema("STRUCT", fields=[
        {"name": "A", "schema": schema("ARRAY", memberSchema=schema("DECIMAL", parameters={"precision": 4,
                                                                                          "scale": 2}))},
        {"name": "M", "schema": schema("MAP", memberSchema=BIGINT)}])


def test_streams_and_tables_lists(quiet_app: TestClient) -> None:
    ksql(quiet_app, "CREATE STREAM EN_L (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='en_l', VALUE_FORMAT='JSON', "
                 "KEY_FORMAT='JSON', PARTITIONS=1);"
                 "CREATE TABLE EN_LW AS SELECT ID, COUNT(*) AS N FROM EN_L WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY ID;")
    streams, tables = ksql(quiet_app, "SHOW STREAMS; LIST TABLES;")
    assert streams["@type"] == "streams" and tables["@type"] == "tables"
    assert {"type": "STREAM", "name": "EN_L", "topic": "en_l", "keyFormat": "JSON", "valueFormat": "JSON",
            "isWindowed": False} in streams["streams"]
    assert {"type": "TABLE", "name": "EN_LW", "topic": "EN_LW", "keyFormat": "JSON", "valueFormat": "JSON",
            "isWindowed": True} in tables["tables"]
    assert [s["name"] for s in streams["streams"]] == sorted(s["name"] for s in streams["streams"])
    assert set(streams) == {"@type", "statementText", "warnings", "streams"}


def test_describe_is_a_whole_source_description(quiet_app: TestClient) -> None:
    create = ("CREATE STREAM EN_D (ID INT KEY, V STRING, D DECIMAL(4, 2), A ARRAY<STRUCT<X INT>>, "
              "M MAP<STRING, BIGINT>, H BYTES HEADER('h'), TS BIGINT) WITH (KAFKA_TOPIC='en_d', VALUE_FORMAT='JSON', "
              "PARTITIONS=3, TIMESTAMP='TS');")
    ksql(quiet_app, create)
    # stored as ksqlDB's DefaultFormatInjector leaves it: the default key format added, reprinted
    stored = ("CREATE STREAM EN_D (ID INTEGER KEY, V STRING, D DECIMAL(4, 2), A ARRAY<STRUCT<X INTEGER>>, "
              "M MAP<STRING, BIGINT>, H BYTES HEADER('h'), TS BIGINT) WITH (KAFKA_TOPIC='en_d', KEY_FORMAT='KAFKA', "
              "PARTITIONS=3, TIMESTAMP='TS', VALUE_FORMAT='JSON');")
    ctas = fixed(ksql(quiet_app, "CREATE STREAM EN_D2 AS SELECT ID, V FROM EN_D;"))
    qid = query_number(ctas[0])
    (body,) = ksql(quiet_app, "DESCRIBE EN_D;")
    reader = {"queryString": "CREATE STREAM EN_D2 WITH (CLEANUP_POLICY='delete', KAFKA_TOPIC='EN_D2', PARTITIONS=3, "
                             "REPLICAS=1, RETENTION_MS=604800000) AS SELECT\n  EN_D.ID ID,\n  EN_D.V V\n"
                             "FROM EN_D EN_D\nEMIT CHANGES;", "sinks": ["EN_D2"],
              "sinkKafkaTopics": ["EN_D2"], "id": qid, "statusCount": {"RUNNING": 1}, "queryType": "PERSISTENT",
              "state": "RUNNING"}
    assert body == {"@type": "sourceDescription", "statementText": "DESCRIBE EN_D;", "warnings": [],
                    "sourceDescription": {
                        "name": "EN_D", "windowType": None, "readQueries": [reader], "writeQueries": [],
                        "fields": [
                            {"name": "ID", "schema": INT, "type": "KEY"},
                            {"name": "V", "schema": STRING},
                            {"name": "D", "schema": schema("DECIMAL", parameters={"precision": 4, "scale": 2})},
                            {"name": "A", "schema": schema("ARRAY", memberSchema=schema(
                                "STRUCT", fields=[{"name": "X", "schema": INT}]))},
                            {"name": "M", "schema": schema("MAP", memberSchema=BIGINT)},
                            {"name": "H", "schema": schema("BYTES"), "type": "HEADER", "headerKey": "h"},
                            {"name": "TS", "schema": BIGINT}],
                        "type": "STREAM", "timestamp": "TS", "statistics": "", "errorStats": "", "extended": False,
                        # the topic is described for EXTENDED only: 0 partitions and replicas otherwise
                        "keyFormat": "KAFKA", "valueFormat": "JSON", "topic": "en_d", "partitions": 0,
                        "replication": 0, "statement": stored, "queryOffsetSummaries": [],
                        "sourceConstraints": ["EN_D2"], "clusterStatistics": [], "clusterErrorStats": []}}
    (sink,) = ksql(quiet_app, "DESCRIBE EN_D2 EXTENDED;")
    d = sink["sourceDescription"]
    assert d["extended"] is True and d["writeQueries"] == [{**reader}] and d["readQueries"] == []
    # no record moved yet: ksqlDB's collectors have no sensors for the topic, both lines are empty
    assert (d["statistics"], d["errorStats"]) == ("", "")
    assert d["sourceConstraints"] == [] and d["statement"] == reader["queryString"]
    assert (d["partitions"], d["replication"]) == (3, 1)  # the sink inherits the source's partitions


def test_describe_streams_and_show_tables_extended_are_description_lists(quiet_app: TestClient) -> None:
    ksql(quiet_app, "CREATE TABLE EN_X (ID INT PRIMARY KEY, V STRING) WITH (KAFKA_TOPIC='en_x', VALUE_FORMAT='JSON', "
                 "PARTITIONS=1);")
    for sql, extended in [("DESCRIBE TABLES;", False), ("SHOW TABLES EXTENDED;", True),
                          ("DESCRIBE TABLES EXTENDED;", True)]:
        (body,) = ksql(quiet_app, sql)
        assert set(body) == {"@type", "statementText", "warnings", "sourceDescriptions"}
        assert body["@type"] == "source_descriptions" and body["statementText"] == sql
        mine = [d for d in body["sourceDescriptions"] if d["name"] == "EN_X"]
        assert len(mine) == 1 and mine[0]["extended"] is extended and mine[0]["type"] == "TABLE"
        assert all(d["type"] == "TABLE" for d in body["sourceDescriptions"])


def test_explain_a_running_query(quiet_app: TestClient) -> None:
    ksql(quiet_app, "CREATE STREAM EN_E (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='en_e', VALUE_FORMAT='JSON', "
                 "PARTITIONS=1);")
    qid = query_number(ksql(quiet_app, "CREATE TABLE EN_ET AS SELECT ID, COUNT(*) AS N FROM EN_E "
                                    "WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY ID;")[0])
    (body,) = ksql(quiet_app, f"EXPLAIN {qid.lower()};")
    d = body["queryDescription"]
    assert body["@type"] == "queryDescription" and body["statementText"] == f"EXPLAIN {qid.lower()};"
    assert set(d) == {"id", "statementText", "windowType", "fields", "sources", "sinks", "topology", "executionPlan",
                      "overriddenProperties", "ksqlHostQueryStatus", "queryType", "queryErrors", "tasksMetadata",
                      "consumerGroupId", "state"}
    assert (d["id"], d["windowType"], d["sources"], d["sinks"], d["queryType"], d["state"]) == (
        qid, "TUMBLING", ["EN_E"], ["EN_ET"], "PERSISTENT", "RUNNING")
    assert d["fields"] == [{"name": "ID", "schema": INT, "type": "KEY"}, {"name": "N", "schema": BIGINT}]
    assert list(d["ksqlHostQueryStatus"].values()) == ["RUNNING"]
    assert d["consumerGroupId"] == f"_confluent-ksql-default_query_{qid}"
    assert ksql(quiet_app, "EXPLAIN EN_NOPE;", 400)["message"] == (
        "Query with id:EN_NOPE does not exist, use SHOW QUERIES to view the full set of queries.")


def test_explain_a_statement_describes_the_query_it_would_run(quiet_app: TestClient) -> None:
    ksql(quiet_app, "CREATE STREAM EN_P (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='en_p', VALUE_FORMAT='JSON', "
                 "PARTITIONS=1);")
    (body,) = ksql(quiet_app, "EXPLAIN CREATE STREAM EN_P2 WITH (KAFKA_TOPIC='p2') AS SELECT ID, V FROM EN_P;")
    d = body["queryDescription"]
    assert re.fullmatch(r"CSAS_EN_P2_\d+", d["id"])
    assert d["statementText"] == "CREATE STREAM EN_P2 WITH (KAFKA_TOPIC='p2') AS SELECT ID, V FROM EN_P;"
    assert (d["sources"], d["sinks"], d["queryType"], d["ksqlHostQueryStatus"], d["tasksMetadata"]) == (
        ["EN_P"], ["EN_P2"], "PERSISTENT", {}, [])
    assert d["fields"] == [{"name": "ID", "schema": INT, "type": "KEY"}, {"name": "V", "schema": STRING}]
    assert "(topics: [en_p])" in d["topology"] and "(topic: p2)" in d["topology"]
    assert d["consumerGroupId"] == f"_confluent-ksql-default_query_{d['id']}"
    # nothing ran: the id is still free and no source was made
    assert "EN_P2" not in {s["name"] for s in ksql(quiet_app, "SHOW STREAMS;")[0]["streams"]}
    (push,) = ksql(quiet_app, "EXPLAIN SELECT V FROM EN_P EMIT CHANGES;")
    p = push["queryDescription"]
    assert re.fullmatch(r"transient_EN_P_\d+", p["id"]) and p["queryType"] == "PUSH" and p["sinks"] == []
    assert p["fields"] == [{"name": "V", "schema": STRING}] and p["statementText"] == "SELECT V FROM EN_P EMIT CHANGES;"
    assert ksql(quiet_app, "EXPLAIN CREATE STREAM EN_P3 (A INT) WITH (KAFKA_TOPIC='en_p', VALUE_FORMAT='JSON');",
                400)["message"] == "The provided statement does not run a ksql query"


def test_explain_a_statement_window_type_and_overrides(quiet_app: TestClient) -> None:
    """ksqlDB's QueryDescriptionFactory: a persistent query's window type is its result topic's, any other
    query's is null (a windowed push aggregation's too); the sandbox runs the statement with the request's
    overrides, which the description lists as a query created with them lists them."""
    ksql(quiet_app, "CREATE STREAM EN_EXW (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='en_exw', VALUE_FORMAT='JSON', "
                 "PARTITIONS=1);")
    windowed = "SELECT ID, COUNT(*) AS N FROM EN_EXW WINDOW HOPPING (SIZE 2 SECONDS, ADVANCE BY 1 SECOND) GROUP BY ID"
    props = {"streamsProperties": {"auto.offset.reset": "earliest"}}
    (push,) = ksql(quiet_app, f"EXPLAIN {windowed} EMIT CHANGES;", **props)
    (ctas,) = ksql(quiet_app, f"EXPLAIN CREATE TABLE EN_EXWT AS {windowed};", **props)
    assert push["queryDescription"]["windowType"] is None
    assert ctas["queryDescription"]["windowType"] == "HOPPING"
    created = query_number(ksql(quiet_app, f"CREATE TABLE EN_EXWT2 AS {windowed};", **props)[0])
    (running,) = ksql(quiet_app, f"EXPLAIN {created};")
    overrides = running["queryDescription"]["overriddenProperties"]
    assert [v for k, v in overrides.items() if k.endswith("auto.offset.reset")] == ["earliest"]
    assert push["queryDescription"]["overriddenProperties"] == overrides
    assert ctas["queryDescription"]["overriddenProperties"] == overrides
    (plain,) = ksql(quiet_app, f"EXPLAIN {windowed} EMIT CHANGES;")
    assert plain["queryDescription"]["overriddenProperties"] == {}


def test_show_queries_and_extended(quiet_app: TestClient) -> None:
    ksql(quiet_app, "CREATE STREAM EN_SQ (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='en_sq', VALUE_FORMAT='JSON', "
                 "PARTITIONS=1);")
    qid = query_number(ksql(quiet_app, "CREATE STREAM EN_SQ2 AS SELECT * FROM EN_SQ;")[0])
    (body,) = ksql(quiet_app, "SHOW QUERIES;")
    assert set(body) == {"@type", "statementText", "warnings", "queries"}
    stored = ("CREATE STREAM EN_SQ2 WITH (CLEANUP_POLICY='delete', KAFKA_TOPIC='EN_SQ2', PARTITIONS=1, REPLICAS=1, "
              "RETENTION_MS=604800000) AS SELECT *\nFROM EN_SQ EN_SQ\nEMIT CHANGES;")
    assert {"queryString": stored, "sinks": ["EN_SQ2"],
            "sinkKafkaTopics": ["EN_SQ2"], "id": qid, "queryType": "PERSISTENT", "state": "RUNNING",
            "statusCount": {"RUNNING": 1}} in body["queries"]
    (ext,) = ksql(quiet_app, "SHOW QUERIES EXTENDED;")
    assert ext["@type"] == "query_descriptions"
    mine = [d for d in ext["queryDescriptions"] if d["id"] == qid]
    assert len(mine) == 1 and mine[0]["sinks"] == ["EN_SQ2"] and mine[0]["statementText"] == stored


def test_topics_lists(quiet_app: TestClient) -> None:
    ksql(quiet_app, "CREATE STREAM EN_TP (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='en_tp', VALUE_FORMAT='JSON', "
                 "PARTITIONS=2); CREATE STREAM EN_TP2 AS SELECT * FROM EN_TP;")
    (plain,) = ksql(quiet_app, "SHOW TOPICS;")
    assert plain["@type"] == "kafka_topics" and {"name": "en_tp", "replicaInfo": [1, 1]} in plain["topics"]
    names = [t["name"] for t in plain["topics"]]
    assert names == sorted(names) and not any(n.startswith("_confluent") for n in names)
    (everything,) = ksql(quiet_app, "SHOW ALL TOPICS;")
    assert any(t["name"].startswith("_confluent-ksql-") for t in everything["topics"])
    (extended,) = ksql(quiet_app, "LIST TOPICS EXTENDED;")
    assert extended["@type"] == "kafka_topics_extended"
    by_name = {t["name"]: t for t in extended["topics"]}
    # one group (the query) with a consumer per partition on the source; nobody reads the sink
    assert by_name["en_tp"] == {"name": "en_tp", "replicaInfo": [1, 1], "consumerCount": 2, "consumerGroupCount": 1}
    assert by_name["EN_TP2"] == {"name": "EN_TP2", "replicaInfo": [1, 1], "consumerCount": 0,
                                 "consumerGroupCount": 0}


def test_functions(quiet_app: TestClient) -> None:
    (names,) = ksql(quiet_app, "SHOW FUNCTIONS;")
    assert names["@type"] == "function_names"
    assert {"name": "ABS", "type": "SCALAR", "category": "MATHEMATICAL"} in names["functions"]
    assert {"name": "COUNT", "type": "AGGREGATE", "category": "AGGREGATE"} in names["functions"]
    (abs_,) = ksql(quiet_app, "DESCRIBE FUNCTION abs;")
    assert set(abs_) == {"@type", "statementText", "warnings", "name", "description", "author", "version", "path",
                         "type", "functions"}
    assert (abs_["@type"], abs_["name"], abs_["type"], abs_["path"]) == ("describe_function", "ABS", "SCALAR",
                                                                         "internal")
    # a built-in's author is Confluent, its version empty (ksqlDB's KsqlConstants.CONFLUENT_AUTHOR)
    assert (abs_["author"], abs_["version"]) == ("Confluent", "")
    first = abs_["functions"][0]
    assert set(first) == {"arguments", "returnType", "description"}
    assert first["arguments"] == [{"name": "val", "type": "INT", "description": "The value to take the absolute value of",
                                   "isVariadic": False}]
    assert first["returnType"] == "INT"
    (concat,) = ksql(quiet_app, "DESCRIBE FUNCTION CONCAT;")
    assert concat["functions"][0]["arguments"][0]["isVariadic"] is True
    assert concat["functions"][0]["arguments"][0]["type"] == "STRING"  # the element type; isVariadic says it repeats
    (sum_,) = ksql(quiet_app, "DESCRIBE FUNCTION SUM;")
    assert sum_["type"] == "AGGREGATE" and {"arguments": [{"name": "val", "type": "BIGINT", "description": "",
                                                            "isVariadic": False}],
                                            "returnType": "BIGINT", "description": sum_["description"]} \
        in sum_["functions"]


def test_variables_are_the_requests(quiet_app: TestClient) -> None:
    body = ksql(quiet_app, "DEFINE en_a = 'one'; SHOW VARIABLES; UNDEFINE en_a; SHOW VARIABLES; UNDEFINE en_b;",
                sessionVariables={"start": 5})
    assert body == [
        {"@type": "variables", "statementText": "SHOW VARIABLES;", "warnings": [],
         "variables": [{"name": "start", "value": "5"}, {"name": "en_a", "value": "one"}]},
        {"@type": "variables", "statementText": "SHOW VARIABLES;", "warnings": [],
         "variables": [{"name": "start", "value": "5"}]},
        {"@type": "warning_entity", "statementText": "UNDEFINE en_b;", "warnings": [],
         "message": "Cannot undefine variable 'en_b' which was never defined"}]
    # a request starts with only its own session variables
    assert ksql(quiet_app, "SHOW VARIABLES;")[0]["variables"] == []
    # values are the texts Java's String.valueOf gives them
    (shown,) = ksql(quiet_app, "SHOW VARIABLES;", sessionVariables={"n": None, "b": True, "d": 1.5})
    assert shown["variables"] == [{"name": "n", "value": "null"}, {"name": "b", "value": "true"},
                                  {"name": "d", "value": "1.5"}]


def test_set_unset_and_insert_values_answer_nothing(quiet_app: TestClient) -> None:
    ksql(quiet_app, "CREATE STREAM EN_IV (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='en_iv', VALUE_FORMAT='JSON', "
                 "PARTITIONS=1);")
    assert ksql(quiet_app, "SET 'auto.offset.reset'='earliest'; INSERT INTO EN_IV (ID, V) VALUES (1, 'a'); "
                        "UNSET 'auto.offset.reset';") == []


def test_properties_entity(quiet_app: TestClient) -> None:
    (body,) = ksql(quiet_app, "SHOW PROPERTIES;", streamsProperties={"auto.offset.reset": "earliest"})
    assert set(body) == {"@type", "statementText", "warnings", "properties", "overwrittenProperties",
                         "defaultProperties"}
    entry = next(p for p in body["properties"] if p["name"] == "ksql.streams.auto.offset.reset")
    assert entry == {"name": "ksql.streams.auto.offset.reset", "scope": "KSQL", "value": "earliest",
                     "editable": True, "level": "QUERY"}
    assert "ksql.streams.auto.offset.reset" in body["overwrittenProperties"]


def test_assert_topic_and_schema(quiet_app: TestClient) -> None:
    ksql(quiet_app, "CREATE STREAM EN_AS (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='en_as', VALUE_FORMAT='AVRO', "
                 "PARTITIONS=2);")
    assert ksql(quiet_app, "ASSERT TOPIC en_as WITH (PARTITIONS=2, REPLICAS=1); ASSERT NOT EXISTS TOPIC en_none;") == [
        {"@type": "assert_topic", "statementText": "ASSERT TOPIC en_as WITH (PARTITIONS=2, REPLICAS=1);",
         "warnings": [], "topicName": "en_as", "exists": True},
        {"@type": "assert_topic", "statementText": "ASSERT NOT EXISTS TOPIC en_none;", "warnings": [],
         "topicName": "en_none", "exists": False}]
    assert ksql(quiet_app, "ASSERT SCHEMA SUBJECT 'en_as-value' TIMEOUT 1 SECONDS;") == [
        {"@type": "assert_schema", "statementText": "ASSERT SCHEMA SUBJECT 'en_as-value' TIMEOUT 1 SECONDS;",
         "warnings": [], "subject": "en_as-value", "id": None, "exists": True}]
    failures = {
        "ASSERT TOPIC en_none TIMEOUT 200 MILLISECONDS;": "Topic en_none does not exist",
        "ASSERT NOT EXISTS TOPIC en_as TIMEOUT 0 SECONDS;": "Topic en_as exists",
        "ASSERT TOPIC en_as WITH (PARTITIONS=3, FOO=1) TIMEOUT 0 SECONDS;":
            "Mismatched configuration for topic en_as: For config partitions, expected 3 got 2\n"
            "Cannot assert unknown topic property: FOO",
        "ASSERT SCHEMA SUBJECT 'en_none' ID 999 TIMEOUT 100 MILLISECONDS;":
            "Schema with subject name en_none id 999 does not exist",
        "ASSERT NOT EXISTS SCHEMA SUBJECT 'en_as-value' TIMEOUT 0 SECONDS;": "Schema with subject name en_as-value exists",
    }
    for sql, message in failures.items():
        assert ksql(quiet_app, sql, 417) == {"@type": "generic_error", "error_code": 41700, "message": message}


def test_an_assertion_waits_for_its_topic(quiet_app: TestClient) -> None:
    import threading

    def create_later() -> None:
        time.sleep(0.3)
        ksql(quiet_app, "CREATE STREAM EN_LATE (ID INT KEY) WITH (KAFKA_TOPIC='en_late', VALUE_FORMAT='JSON', "
                     "PARTITIONS=1);")

    t = threading.Thread(target=create_later)
    t.start()
    try:
        assert ksql(quiet_app, "ASSERT TOPIC en_late TIMEOUT 5 SECONDS;")[0]["exists"] is True
    finally:
        t.join()


def test_a_source_read_by_another_may_not_be_dropped(quiet_app: TestClient) -> None:
    ksql(quiet_app, "CREATE STREAM EN_R (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='en_r', VALUE_FORMAT='JSON', "
                 "PARTITIONS=1);")
    qid = query_number(ksql(quiet_app, "CREATE STREAM EN_R2 AS SELECT * FROM EN_R;")[0])
    ksql(quiet_app, f"TERMINATE {qid};")
    assert ksql(quiet_app, "DROP STREAM EN_R;", 400) == {
        "@type": "statement_error", "error_code": 40001, "statementText": "DROP STREAM EN_R;", "entities": [],
        "message": "Cannot drop EN_R.\nThe following streams and/or tables read from this source: [EN_R2].\n"
                   "You need to drop them before dropping EN_R."}
    assert fixed(ksql(quiet_app, "DROP STREAM EN_R2; DROP STREAM EN_R;")) == [
        status_entity("DROP STREAM EN_R2;", "stream/EN_R2/drop", "Source `EN_R2` (topic: EN_R2) was dropped."),
        status_entity("DROP STREAM EN_R;", "stream/EN_R/drop", "Source `EN_R` (topic: en_r) was dropped.")]
    assert fixed(ksql(quiet_app, "DROP STREAM IF EXISTS EN_R;")) == [
        status_entity("DROP STREAM IF EXISTS EN_R;", "stream/EN_R/drop", "Source `EN_R` does not exist.")]


def test_terminate_all(quiet_app: TestClient) -> None:
    body = fixed(ksql(quiet_app, "TERMINATE ALL;"))
    assert body == [status_entity("TERMINATE ALL;", "terminate/ALL/execute", "Query terminated.")]


def test_a_source_table_answers_its_materializing_query(quiet_app: TestClient) -> None:
    sql = "CREATE SOURCE TABLE EN_ST (ID INT PRIMARY KEY, V STRING) WITH (KAFKA_TOPIC='en_st', VALUE_FORMAT='JSON', " \
          "PARTITIONS=1);"
    (body,) = fixed(ksql(quiet_app, sql))
    qid = body["commandStatus"]["queryId"]
    assert re.fullmatch(r"CST_EN_ST_\d+", qid)
    stored = ("CREATE SOURCE TABLE EN_ST (ID INTEGER PRIMARY KEY, V STRING) WITH (KAFKA_TOPIC='en_st', "
              "KEY_FORMAT='KAFKA', PARTITIONS=1, VALUE_FORMAT='JSON');")  # KEY_FORMAT filled in: reprinted
    assert body == status_entity(stored, "table/EN_ST/create", f"Created query with ID {qid}", qid)
    plain = "CREATE SOURCE STREAM EN_SS (ID INT KEY) WITH (KAFKA_TOPIC='en_st', FORMAT='JSON');"
    stored = ("CREATE SOURCE STREAM EN_SS (ID INTEGER KEY) WITH (KAFKA_TOPIC='en_st', KEY_FORMAT='JSON', "
              "VALUE_FORMAT='JSON');")
    assert fixed(ksql(quiet_app, plain)) == [status_entity(stored, "stream/EN_SS/create", "Stream created")]


def test_push_query_ids_name_the_leftmost_alias_and_a_random_long(quiet_app: TestClient) -> None:
    """ksqlDB's transient id (QueryIdUtil): ``transient_<leftmost source alias>_<random positive long>``."""
    ksql(quiet_app, "CREATE STREAM EN_QI (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='en_qi', VALUE_FORMAT='JSON', "
                 "PARTITIONS=1); INSERT INTO EN_QI (ID, V) VALUES (1, 'a');")
    ids = []
    for sql in ("SELECT * FROM EN_QI EMIT CHANGES LIMIT 1;", "SELECT * FROM EN_QI q EMIT CHANGES LIMIT 1;"):
        r = quiet_app.post("/query-stream", json={"sql": sql, "properties": {"auto.offset.reset": "earliest"}})
        ids.append(r.text.splitlines()[0])
    first, aliased = (re.search(r'"queryId":"([^"]+)"', line).group(1) for line in ids)  # type: ignore[union-attr]
    assert re.fullmatch(r"transient_EN_QI_\d+", first) and re.fullmatch(r"transient_Q_\d+", aliased)
    assert 0 < int(first.rsplit("_", 1)[1]) < 2**63


def test_session_variables_reach_every_query_endpoint(quiet_app: TestClient) -> None:
    """``sessionVariables`` substitute ``${name}`` on /query and /query-stream as on /ksql (ksqlDB 0.18+)."""
    ksql(quiet_app, "CREATE STREAM EN_SV (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='en_sv', VALUE_FORMAT='JSON', "
                 "PARTITIONS=1); INSERT INTO EN_SV (ID, V) VALUES (7, 'seven');")
    variables = {"src": "EN_SV", "wanted": 7}
    r = quiet_app.post("/query", json={"ksql": "SELECT V FROM ${src} WHERE ID = ${wanted};",
                                    "sessionVariables": variables}, headers={"Accept": "application/json"})
    assert r.status_code == 200, r.text
    assert [line.strip("[],") for line in r.text.splitlines()][1:3] == ['{"row":{"columns":["seven"]}}',
                                                                        '{"finalMessage":"Query Completed"}']
    r = quiet_app.post("/query-stream", json={"sql": "SELECT V FROM ${src} WHERE ID = ${wanted};",
                                           "sessionVariables": variables})
    assert r.text.splitlines()[1:] == ['["seven"]']
