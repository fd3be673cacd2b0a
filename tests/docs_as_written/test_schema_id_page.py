"""The "Schema inference with ID" page as written: schemas registered over the registry's REST API (as the page's
curl calls do), then sources declared by ``KEY_SCHEMA_ID`` / ``VALUE_SCHEMA_ID`` with their columns taken from
those schemas (Avro, Protobuf with a full name, JSON_SR), a table whose PRIMARY KEY is declared and whose
values come from the id, a CREATE STREAM AS SELECT writing with a registered schema, and the refusals the
page's notes describe. Answers sorted right / different / failing as in test_doc_scenarios."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from docs_runner import Runner, Step, ok, refused, report, rows, tally

from ksqlpy.schema_registry.http_server import RegistryServer
from ksqlpy.testing.server_process import ServerProcess

pytestmark = pytest.mark.timeout(300)

CS = "currentStatus"
EARLIEST_Q = {"properties": {"auto.offset.reset": "earliest"}}
EARLIEST_K = {"streamsProperties": {"ksql.streams.auto.offset.reset": "earliest"}}


@pytest.fixture(scope="module")
def sr_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    with RegistryServer() as sr:
        proc = ServerProcess(str(tmp_path_factory.mktemp("schema-id")), {"ksql.schema.registry.url": sr.url})
        proc.start()
        try:
            yield proc, sr.url
        finally:
            proc.stop()


def _register(sr_url: str, subject: str, schema: Any, schema_type: str | None = None) -> int:
    """What the page's ``curl -X POST .../subjects/<subject>/versions`` does."""
    body: dict[str, Any] = {"schema": schema if isinstance(schema, str) else json.dumps(schema)}
    if schema_type:
        body["schemaType"] = schema_type
    r = httpx.post(f"{sr_url}/subjects/{subject}/versions", json=body,
                   headers={"Content-Type": "application/vnd.schemaregistry.v1+json"}, timeout=10)
    r.raise_for_status()
    return int(r.json()["id"])


def _fields(*want: tuple[str, str, str | None]) -> Any:
    def check(answer: Any) -> str | None:
        got = [(f["name"], f["schema"]["type"], f.get("type")) for f in answer[0]["sourceDescription"]["fields"]]
        return None if got == list(want) else f"fields {got}"
    return check


def _page(p: str, sr_url: str) -> list[Step]:
    pv, orders, ev = f"{p}pageviews", f"{p}orders", f"{p}events"
    key_id = _register(sr_url, f"{pv.lower()}-key", {
        "type": "record", "name": "PageViewKey", "namespace": "io.example",
        "fields": [{"name": "pageId", "type": "string"}]})
    value_id = _register(sr_url, f"{pv.lower()}-value", {
        "type": "record", "name": "PageView", "namespace": "io.example",
        "fields": [{"name": "VIEWTIME", "type": "long"}, {"name": "USERID", "type": "string"},
                   {"name": "PAGEID", "type": ["null", "string"], "default": None}]})
    order_id = _register(sr_url, f"{orders.lower()}-value",
                         'syntax = "proto3"; message Other { int32 a = 1; } '
                         "message Order { int64 id = 1; string item = 2; double price = 3; }", "PROTOBUF")
    event_id = _register(sr_url, f"{ev.lower()}-value", {
        "type": "object", "properties": {"ID": {"type": "integer"}, "NAME": {"type": "string"}}}, "JSON")
    # a schema a sink is to be written with: same columns as the query below, another record name
    sink_id = _register(sr_url, f"{p.lower()}elsewhere-value", {
        "type": "record", "name": "Enriched", "namespace": "io.example.out",
        "fields": [{"name": "USERID", "type": ["null", "string"], "default": None},
                   {"name": "VIEWTIME", "type": ["null", "long"], "default": None}]})
    return [
        # the key schema is a record: an AVRO key is a single unwrapped column, so the record is one
        # STRUCT column named ROWKEY (ksqlDB's SerdeUtils.wrapSingle for keys)
        Step(f"CREATE STREAM {pv} WITH (\n    KAFKA_TOPIC='{pv.lower()}',\n    KEY_FORMAT='AVRO',\n"
             f"    VALUE_FORMAT='AVRO',\n    KEY_SCHEMA_ID={key_id},\n    VALUE_SCHEMA_ID={value_id},\n"
             "    PARTITIONS=1\n);",
             ok(CS, text=[f"KEY_SCHEMA_ID={key_id}", "KEY_SCHEMA_FULL_NAME='io.example.PageViewKey'",
                          "VALUE_SCHEMA_FULL_NAME='io.example.PageView'"])),
        Step(f"DESCRIBE {pv};", ok("sourceDescription", check=_fields(
            ("ROWKEY", "STRUCT", "KEY"), ("VIEWTIME", "BIGINT", None), ("USERID", "STRING", None),
            ("PAGEID", "STRING", None)))),
        Step(f"INSERT INTO {pv} (ROWKEY, VIEWTIME, USERID, PAGEID) VALUES (STRUCT(`pageId` := 'p1'), 1, 'u1', 'p1');\n"
             f"INSERT INTO {pv} (ROWKEY, VIEWTIME, USERID) VALUES (STRUCT(`pageId` := 'p2'), 2, 'u2');", ok()),
        Step(f"SELECT ROWKEY->`pageId` AS page, VIEWTIME, USERID, PAGEID FROM {pv} EMIT CHANGES LIMIT 2;",
             rows(["PAGE", "VIEWTIME", "USERID", "PAGEID"], [["p1", 1, "u1", "p1"], ["p2", 2, "u2", None]]),
             body=EARLIEST_Q),
        # a table: the PRIMARY KEY is declared (a partial schema), the value columns come from the id
        Step(f"CREATE TABLE {p}users (\n    pageKey BIGINT PRIMARY KEY\n) WITH (\n    KAFKA_TOPIC='{p.lower()}users',\n"
             f"    VALUE_FORMAT='AVRO',\n    VALUE_SCHEMA_ID={value_id},\n    PARTITIONS=1\n);", ok(CS)),
        Step(f"DESCRIBE {p}users;", ok("sourceDescription", check=_fields(
            ("PAGEKEY", "BIGINT", "KEY"), ("VIEWTIME", "BIGINT", None), ("USERID", "STRING", None),
            ("PAGEID", "STRING", None)))),
        # a Protobuf schema defining two messages needs the full name of the one to use
        Step(f"CREATE STREAM {orders} WITH (KAFKA_TOPIC='{orders.lower()}', VALUE_FORMAT='PROTOBUF', "
             f"VALUE_SCHEMA_ID={order_id}, PARTITIONS=1);",
             refused(40001, "Value schema has multiple schema definitions. Please specify a schema full name in "
                            "the WITH clause using VALUE_SCHEMA_FULL_NAME.")),
        Step(f"CREATE STREAM {orders} WITH (KAFKA_TOPIC='{orders.lower()}', VALUE_FORMAT='PROTOBUF', "
             f"VALUE_SCHEMA_ID={order_id}, VALUE_SCHEMA_FULL_NAME='Order', PARTITIONS=1);", ok(CS)),
        Step(f"INSERT INTO {orders} (`id`, `item`, `price`) VALUES (1, 'tea', 2.5);", ok()),
        Step(f"SELECT * FROM {orders} EMIT CHANGES LIMIT 1;", rows(["id", "item", "price"], [[1, "tea", 2.5]]),
             body=EARLIEST_Q),
        # JSON_SR: a JSON schema "integer" is BIGINT
        Step(f"CREATE STREAM {ev} WITH (KAFKA_TOPIC='{ev.lower()}', VALUE_FORMAT='JSON_SR', "
             f"VALUE_SCHEMA_ID={event_id}, PARTITIONS=1);", ok(CS)),
        Step(f"DESCRIBE {ev};", ok("sourceDescription", check=_fields(("ID", "BIGINT", None),
                                                                      ("NAME", "STRING", None)))),
        # CREATE ... AS SELECT with a schema id: the query's columns must be the schema's, by name, type and
        # position; the sink is written with that schema
        Step(f"CREATE STREAM {p}enriched WITH (KAFKA_TOPIC='{p.lower()}enriched', VALUE_FORMAT='AVRO', "
             f"VALUE_SCHEMA_ID={sink_id}) AS\n  SELECT ROWKEY, USERID, VIEWTIME FROM {pv};", ok(CS), body=EARLIEST_K),
        Step(f"SELECT * FROM {p}enriched EMIT CHANGES LIMIT 2;",
             rows(["ROWKEY", "USERID", "VIEWTIME"], [[{"pageId": "p1"}, "u1", 1], [{"pageId": "p2"}, "u2", 2]]), body=EARLIEST_Q),
        Step(f"CREATE STREAM {p}reordered WITH (KAFKA_TOPIC='{p.lower()}reordered', VALUE_FORMAT='AVRO', "
             f"VALUE_SCHEMA_ID={sink_id}) AS\n  SELECT ROWKEY, VIEWTIME, USERID FROM {pv};",
             refused(40001, "The following value columns are changed, missing or reordered: [`VIEWTIME` BIGINT, "
                            "`USERID` STRING]. Schema from schema registry is [`USERID` STRING, `VIEWTIME` BIGINT]")),
        # what the query cannot plan is reported through the output-schema step that needs it
        Step(f"CREATE STREAM {p}unknown WITH (KAFKA_TOPIC='{p.lower()}unknown', VALUE_FORMAT='AVRO', "
             f"VALUE_SCHEMA_ID={sink_id}) AS\n  SELECT ROWKEY, nope FROM {pv};",
             refused(40001, "re:^Could not determine output schema for query due to error: .*"
                            "SELECT column 'NOPE' cannot be resolved")),
        # the page's notes: columns and an id of the same kind together, an id with a format that cannot
        # infer, an id the registry does not have, a table without its PRIMARY KEY
        Step(f"CREATE STREAM {p}both (a INT) WITH (KAFKA_TOPIC='{pv.lower()}', VALUE_FORMAT='AVRO', "
             f"VALUE_SCHEMA_ID={value_id});",
             refused(40001, "Table elements and VALUE_SCHEMA_ID cannot both exist for create statement.")),
        Step(f"CREATE STREAM {p}json WITH (KAFKA_TOPIC='{pv.lower()}', VALUE_FORMAT='JSON', "
             f"VALUE_SCHEMA_ID={value_id});",
             refused(40001, "VALUE_FORMAT should support schema inference when VALUE_SCHEMA_ID is provided. "
                            "Current format is JSON.")),
        Step(f"CREATE STREAM {p}jsonkey WITH (KAFKA_TOPIC='{pv.lower()}', KEY_FORMAT='JSON', "
             f"KEY_SCHEMA_ID={key_id}, VALUE_FORMAT='AVRO');",
             refused(40001, "KEY_FORMAT should support schema inference when KEY_SCHEMA_ID is provided. "
                            "Current format is JSON.")),
        Step(f"CREATE STREAM {p}missing WITH (KAFKA_TOPIC='{pv.lower()}', VALUE_FORMAT='AVRO', VALUE_SCHEMA_ID=9999);",
             refused(40001, f"re:^Schema for message values on topic '{pv.lower()}' does not exist in the Schema "
                            f"Registry\\.\\nSubject: {pv.lower()}-value\\nSchema Id: 9999\\n")),
        Step(f"CREATE TABLE {p}nokey WITH (KAFKA_TOPIC='{p.lower()}users', VALUE_FORMAT='AVRO', "
             f"VALUE_SCHEMA_ID={value_id});",
             refused(40001, "re:^Tables require a PRIMARY KEY\\. Please define the PRIMARY KEY\\.\\nUse a partial "
                            "schema to define the primary key and still load the value columns from the Schema "
                            "Registry, for example:\\n\\tCREATE TABLE .*NOKEY \\(ID INT PRIMARY KEY\\) WITH \\(\\.\\.\\.\\);")),
    ]


@pytest.mark.parametrize("http2", [False, True], ids=["http1", "http2"])
def test_schema_inference_with_id_page(sr_server: tuple[ServerProcess, str], http2: bool) -> None:
    server, sr_url = sr_server
    runner = Runner(server.url, http2=http2)
    try:
        for step in _page(f"SID{'H2' if http2 else 'H1'}_", sr_url):
            runner.run(step)
        print(f"\nschema_inference_with_id: {report(runner.results)}")
        assert tally(runner.results)["right"] == len(runner.results), report(runner.results)
    finally:
        runner.close()
