"""The REST API pages, the info/status endpoints, CLI-only statements."""

from __future__ import annotations

from docs_runner import Expect, Step, ok, refused, rows

from ._common import CS, EARLIEST_K, EARLIEST_Q, _has


def rest_pages(p: str) -> list[Step]:
    """The REST API pages' requests: bodies, Accept headers and answer shapes."""
    s = f"{p}pv"
    return [
        Step(f"CREATE STREAM {s} (userid VARCHAR KEY, pageid VARCHAR, viewtime BIGINT) WITH "
             f"(kafka_topic='{s}', value_format='JSON', partitions=1);",
             ok(CS, check=_has([0, "commandId"], f"stream/{s.upper()}/create")),
             body={"streamsProperties": {}}),
        Step(f"INSERT INTO {s} (userid, pageid, viewtime) VALUES ('u1', 'p1', 1);\n"
             f"INSERT INTO {s} (userid, pageid, viewtime) VALUES ('u2', 'p2', 2);", ok()),
        Step(f"SELECT * FROM {s} EMIT CHANGES LIMIT 2;", rows(["USERID", "PAGEID", "VIEWTIME"],
                                                             [["u1", "p1", 1], ["u2", "p2", 2]]),
             endpoint="/query", body=EARLIEST_K),
        Step(f"SELECT * FROM {s} EMIT CHANGES LIMIT 2;", rows(["USERID", "PAGEID", "VIEWTIME"],
                                                             [["u1", "p1", 1], ["u2", "p2", 2]],
                                                             text=['"finalMessage":"Limit Reached"']),
             endpoint="/query", body=EARLIEST_K, accept="application/vnd.ksql.v1+json"),
        Step(f"SELECT * FROM {s} EMIT CHANGES LIMIT 2;", rows(["USERID", "PAGEID", "VIEWTIME"],
                                                             [["u1", "p1", 1], ["u2", "p2", 2]]),
             body=EARLIEST_Q, accept="application/vnd.ksqlapi.delimited.v1"),
        Step(f"SELECT * FROM {s} EMIT CHANGES LIMIT 2;", Expect(text=['[{"queryId":', '["u1","p1",1]']),
             body=EARLIEST_Q, accept="application/json"),
        Step(f"SELECT * FROM {s};", rows(["USERID", "PAGEID", "VIEWTIME"], [["u1", "p1", 1], ["u2", "p2", 2]])),
        Step(f"SELECT * FROM {s} WHERE pageid = 'p2';",
             rows(None, [["u2", "p2", 2]], text=['"finalMessage":"Query Completed"']), endpoint="/query",
             accept="application/vnd.ksql.v1+json"),
        Step(f"PRINT '{s}' FROM BEGINNING LIMIT 1;", Expect(text=["Value format: JSON", "key: u1"]),
             endpoint="/query", http2_expect=refused(40500, "The /query endpoint is not available using HTTP2")),
        Step("SHOW STREAMS;", ok("streams"), endpoint="/ksql", body={"streamsProperties": {}}),
        Step(f"SELECT 1 FROM {s};", refused(40002, "re:should be issued to|query endpoint"), endpoint="/ksql",
             raw_body=None),
        Step("", refused(40000), endpoint="/ksql", raw_body='{"ksql": "SHOW STREAMS;", '),
        Step(f"DESCRIBE {s} EXTENDED;", ok("sourceDescription", check=_has([0, "sourceDescription", "extended"], True))),
        Step(f"DROP STREAM IF EXISTS {p}nothing;", ok(CS)),
        Step(f"DROP STREAM {p}nothing;", refused(40001, f"Stream {p.upper()}NOTHING does not exist.")),
    ]


def info_status_endpoints(p: str) -> list[Step]:
    """The REST API pages' other endpoints as their curl calls use them: server info, health, cluster
    status, command status, property check, closing a query, streaming inserts."""
    s = f"{p}ins"
    return [
        Step("", Expect(check=_has(["KsqlServerInfo"], lambda i: i.get("version") == "0.29.0" and
                                   i.get("serverStatus") == "RUNNING" and {"kafkaClusterId", "ksqlServiceId"} <= set(i))),
             endpoint="/info", method="GET"),
        Step("", Expect(check=_has([], lambda h: h.get("isHealthy") is True and h.get("serverState") == "READY" and
                                   set(h["details"]) == {"metastore", "kafka", "commandRunner"})),
             endpoint="/healthcheck", method="GET"),
        # the server-metadata page: ServerClusterId's scope and its (always empty) id
        Step("", Expect(check=_has([], lambda m: m.get("version") == "0.29.0" and m.get("clusterId", {}).get("id") == ""
                                   and m["clusterId"]["scope"]["path"] == []
                                   and set(m["clusterId"]["scope"]["clusters"]) == {"kafka-cluster", "ksql-cluster"})),
             endpoint="/v1/metadata", method="GET"),
        Step("", Expect(check=_has([], lambda i: i.get("id") == "" and
                                   i["scope"]["clusters"].get("ksql-cluster") == "default_")),
             endpoint="/v1/metadata/id", method="GET"),
        Step("", Expect(check=_has(["clusterStatus"], lambda c: all(
            {"hostAlive", "lastStatusUpdateMs", "activeStandbyPerQuery", "hostStoreLags"} <= set(h)
            for h in c.values()) and len(c) >= 1)), endpoint="/clusterStatus", method="GET"),
        Step(f"CREATE STREAM {s} (id INT KEY, name VARCHAR) WITH (kafka_topic='{s.lower()}', value_format='JSON', "
             "partitions=1);", ok(CS)),
        Step("", Expect(check=_has(["commandStatuses", f"stream/{s.upper()}/create"], "SUCCESS")),
             endpoint="/status", method="GET"),
        Step("", Expect(check=_has([], {"status": "SUCCESS", "message": "Stream created", "queryId": None})),
             endpoint=f"/status/stream/{s.upper()}/create", method="GET"),
        Step("", refused(40400, "Command not found", status=404), endpoint=f"/status/stream/{s.upper()}_NOPE/create",
             method="GET"),
        Step("", Expect(text=["true"]), endpoint="/is_valid_property/ksql.streams.auto.offset.reset", method="GET"),
        # only the denylist is consulted there: an unknown name is valid (the request carrying it is refused)
        Step("", Expect(text=["true"]), endpoint="/is_valid_property/no.such.prop", method="GET"),
        Step("", refused(40000, "No query with id transient_NOPE_1"), endpoint="/close-query",
             raw_body='{"queryId": "transient_NOPE_1"}'),
        # the inserts page's body: the target, then one object per row (HTTP/2 only; HTTP/1.1 is refused)
        Step("", Expect(status=400, error_code=40004), endpoint="/inserts-stream",
             raw_body=f'{{"target": "{s}"}}\n{{"ID": 1, "NAME": "a"}}\n',
             http2_expect=Expect(text=['{"status":"ok","seq":0}'])),
        Step(f"SELECT * FROM {s};", rows(["ID", "NAME"], []), http2_expect=rows(["ID", "NAME"], [[1, "a"]])),
    ]


def cli_only(p: str) -> list[Step]:
    """Statements only the CLI runs, and connector statements without a Connect cluster (none at ksql.connect.url's
    default, http://localhost:8083): clear refusals, as ksqlDB answers a Connect cluster it cannot reach - a
    statement error for CREATE ... CONNECTOR (validated against Connect), a generic_error for the others."""
    return [
        Step("RUN SCRIPT '/tmp/nowhere.sql';", refused(40001)),
        Step(f"CREATE SOURCE CONNECTOR {p}src WITH ('connector.class' = 'io.example.Source', 'tasks.max' = '1');",
             refused(40001, "Could not connect to the server")),
        Step(f"CREATE SINK CONNECTOR IF NOT EXISTS {p}snk WITH ('connector.class' = 'io.example.Sink', "
             "'topics' = 'x');", refused(40001, "Could not connect to the server")),
        Step("SHOW CONNECTORS;", refused(40000, "Could not connect to the server")),
        Step(f"DESCRIBE CONNECTOR {p}src;", refused(40000, "Could not connect to the server")),
        Step(f"DROP CONNECTOR IF EXISTS {p}src;", refused(40000, "Could not connect to the server")),
    ]
