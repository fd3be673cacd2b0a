"""OUTPUT JSON in the embedded shell prints the entities a server's shell prints (the REST shapes): a type as
ksqlDB's SchemaInfo (fields and memberSchema present, null when the type has none, at every depth) in
DESCRIBE, EXPLAIN and SHOW TYPES; a source description's cluster statistics lists; a CommandStatusEntity's
fields in its order, warnings last."""

from __future__ import annotations

import json
from typing import Any

from tests.cli.captured_shell import CapturedShell

SOURCE = ("CREATE STREAM S (ID INT KEY, V STRING, A ARRAY<STRUCT<X INT>>, D DECIMAL(4, 2)) "
          "WITH (kafka_topic='s', value_format='JSON', partitions=1);")
INT = {"type": "INTEGER", "fields": None, "memberSchema": None}


def _json_shell(embedded: Any) -> CapturedShell:
    shell = CapturedShell(embedded)
    shell.run("output JSON")
    return shell


def test_a_command_status_keeps_its_field_order(embedded: Any) -> None:
    entity = json.loads(_json_shell(embedded).run(SOURCE))[0]
    assert list(entity) == ["@type", "statementText", "commandId", "commandStatus", "commandSequenceNumber",
                            "warnings"]


def test_describe_writes_schema_infos(embedded: Any) -> None:
    shell = _json_shell(embedded)
    shell.run(SOURCE)
    d = json.loads(shell.run("DESCRIBE S;"))[0]["sourceDescription"]
    schemas = {f["name"]: f["schema"] for f in d["fields"]}
    assert schemas["ID"] == INT
    assert schemas["V"] == {"type": "STRING", "fields": None, "memberSchema": None}
    assert schemas["A"] == {"type": "ARRAY", "fields": None, "memberSchema": {
        "type": "STRUCT", "fields": [{"name": "X", "schema": INT}], "memberSchema": None}}
    assert schemas["D"] == {"type": "DECIMAL", "fields": None, "memberSchema": None,
                            "parameters": {"precision": 4, "scale": 2}}
    assert d["clusterStatistics"] == [] and d["clusterErrorStats"] == []
    for e in json.loads(shell.run("DESCRIBE STREAMS;"))[0]["sourceDescriptions"]:
        assert all(set(f["schema"]) >= {"fields", "memberSchema"} for f in e["fields"])


def test_explain_and_show_types_write_schema_infos(embedded: Any) -> None:
    shell = _json_shell(embedded)
    shell.run(SOURCE)
    shell.run("CREATE STREAM S2 AS SELECT * FROM S EMIT CHANGES;")
    qid = next(iter(embedded.engine.queries))
    q = json.loads(shell.run(f"EXPLAIN {qid};"))[0]["queryDescription"]
    assert {f["name"]: f["schema"] for f in q["fields"]}["ID"] == INT
    shell.run("CREATE TYPE PAIR AS STRUCT<L INT, R ARRAY<STRING>>;")
    types = json.loads(shell.run("SHOW TYPES;"))[0]["types"]
    assert types == {"PAIR": {"type": "STRUCT", "memberSchema": None, "fields": [
        {"name": "L", "schema": INT},
        {"name": "R", "schema": {"type": "ARRAY", "fields": None,
                                 "memberSchema": {"type": "STRING", "fields": None, "memberSchema": None}}}]}}


def test_a_query_description_has_the_server_s_fields_in_order(embedded: Any) -> None:
    """ksqlDB's QueryDescription: id, statementText (the query's statement), windowType, fields, sources, sinks,
    topology, executionPlan, overriddenProperties, ksqlHostQueryStatus, queryType, queryErrors, tasksMetadata,
    consumerGroupId, state - for EXPLAIN <id>, SHOW QUERIES EXTENDED and EXPLAIN <statement> alike."""
    shell = _json_shell(embedded)
    shell.run(SOURCE)
    shell.run("CREATE STREAM S2 AS SELECT * FROM S EMIT CHANGES;")
    qid = next(iter(embedded.engine.queries))
    order = ["id", "statementText", "windowType", "fields", "sources", "sinks", "topology", "executionPlan",
             "overriddenProperties", "ksqlHostQueryStatus", "queryType", "queryErrors", "tasksMetadata",
             "consumerGroupId", "state"]
    q = json.loads(shell.run(f"EXPLAIN {qid};"))[0]["queryDescription"]
    assert list(q) == order
    assert q["statementText"].startswith("CREATE STREAM S2 ") and q["state"] == "RUNNING"
    assert q["consumerGroupId"] == f"_confluent-ksql-default_query_{qid}"
    listed = json.loads(shell.run("SHOW QUERIES EXTENDED;"))[0]["queryDescriptions"]
    assert [list(d) for d in listed] == [order]
    planned = json.loads(shell.run("EXPLAIN SELECT * FROM S EMIT CHANGES;"))[0]["queryDescription"]
    assert list(planned) == order and planned["statementText"] == "SELECT * FROM S EMIT CHANGES;"
