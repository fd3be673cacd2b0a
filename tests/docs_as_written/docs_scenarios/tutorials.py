"""Tutorials and tools: the event-driven microservice, the migrations tool."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docs_runner import Expect, Step, ok, refused, rows

from ._common import CS, EARLIEST_K, EARLIEST_Q


def event_driven_tutorial(p: str) -> list[Step]:
    """The event-driven microservice tutorial: Avro transactions with a string event-time column named
    ``timestamp``, a windowed anomaly table with backquoted lower-case names, ``AS_VALUE`` and a full Avro
    schema name, read by a push query, a pull query and PRINT."""
    tx, an = f"{p}transactions", f"{p}possible_anomalies"
    ins = "\n".join(
        f"INSERT INTO {tx} (\n    email_address, card_number, tx_id, timestamp, amount\n) VALUES (\n"
        f"    '{who}@example.com',\n    '{card}',\n    '{tid}',\n    '2020-04-22T{at}',\n    {amt}\n);"
        for who, card, tid, at, amt in (
            ("ann", "4111", "t1", "03:19:58", "50.25"), ("bob", "5222", "t2", "12:50:30", "18.97"),
            ("ann", "4111", "t3", "03:19:54", "103.43"), ("bob", "5222", "t4", "12:50:25", "3200.80"),
            ("ann", "4111", "t5", "03:19:32", "78.73"), ("bob", "5222", "t6", "12:51:55", "154.32")))
    cols = ["card_number_key", "WINDOWSTART", "WINDOWEND", "card_number", "email_address", "n_attempts",
            "total_amount", "tx_ids", "start_boundary", "end_boundary"]
    row = ["4111", 1587525570000, 1587525600000, "4111", "ann@example.com", 3, 232.41, ["t1", "t3", "t5"],
           1587525570000, 1587525600000]

    def anomaly(expect_cols: list[str], expect_row: list[Any]) -> Callable[[Any], str | None]:
        # the three transactions sit on different partitions of eight: COLLECT_LIST's order is theirs
        def check(answer: Any) -> str | None:
            got = [[sorted(v) if isinstance(v, list) else v for v in r] for r in answer["rows"][:1]]
            if answer["columns"] != expect_cols or got != [expect_row]:
                return f"columns {answer['columns']} rows {answer['rows']}"
            return None
        return check

    return [
        Step(f"CREATE STREAM {tx} (\n    tx_id VARCHAR KEY,\n    email_address VARCHAR,\n    card_number VARCHAR,\n"
             "    timestamp VARCHAR,\n    amount DECIMAL(12, 2)\n) WITH (\n"
             f"    kafka_topic = '{tx.lower()}',\n    partitions = 8,\n    value_format = 'avro',\n"
             "    timestamp = 'timestamp',\n    timestamp_format = 'yyyy-MM-dd''T''HH:mm:ss'\n);", ok(CS)),
        Step(ins, ok()),
        Step("SET 'auto.offset.reset' = 'earliest';\n"
             f"CREATE TABLE {an} WITH (\n    kafka_topic = '{an.lower()}',\n"
             "    VALUE_AVRO_SCHEMA_FULL_NAME = 'io.ksqldb.example.Anomaly'\n)   AS\n"
             "    SELECT card_number AS `card_number_key`,\n           as_value(card_number) AS `card_number`,\n"
             "           latest_by_offset(email_address) AS `email_address`,\n"
             "           count(*) AS `n_attempts`,\n           sum(amount) AS `total_amount`,\n"
             "           collect_list(tx_id) AS `tx_ids`,\n           WINDOWSTART as `start_boundary`,\n"
             "           WINDOWEND as `end_boundary`\n"
             f"    FROM {tx}\n    WINDOW TUMBLING (SIZE 30 SECONDS, RETENTION 1000 DAYS)\n"
             "    GROUP BY card_number\n    HAVING count(*) >= 3\n    EMIT CHANGES;", ok(CS)),
        Step(f"SELECT * FROM {an} EMIT CHANGES;", Expect(check=anomaly(cols, row)), body=EARLIEST_Q, take=1),
        Step(f"SELECT * FROM {an};", Expect(check=anomaly(cols, row)), wait=15),
        Step(f"SELECT `n_attempts`, `tx_ids` FROM {an} WHERE `card_number_key` = '4111';",
             Expect(check=anomaly(["n_attempts", "tx_ids"], [3, ["t1", "t3", "t5"]])), wait=10),
        # PRINT reads the Avro records through the schema they were written with
        Step(f"PRINT '{tx.lower()}' FROM BEGINNING LIMIT 1;",
             Expect(text=["Key format: KAFKA_STRING", "Value format: AVRO",
                          're:value: \\{"EMAIL_ADDRESS": "\\w+@example.com", "CARD_NUMBER": "\\d+", '
                          '"TIMESTAMP": "2020-04-22T[0-9:]+", "AMOUNT": \\{"bytes": "[^"]*"\\}\\}, partition: \\d']),
             endpoint="/query", http2_expect=refused(40500, "The /query endpoint is not available using HTTP2")),
        Step(f"DROP TABLE {an} DELETE TOPIC;", ok(CS)),
    ]


def migrations_tool(p: str) -> list[Step]:
    """What the ``ksql-migrations`` tool sends (initialize-metadata, then apply and info): its metadata
    stream and table, a migration's events and the lookups of the current version."""
    ev, ver = f"{p}MIGRATION_EVENTS", f"{p}MIGRATION_SCHEMA_VERSIONS"
    cols = "version, name, state, checksum, started_on, completed_on, previous, error_reason"

    def event(key: str, version: str, state: str, previous: str) -> str:
        return (f"INSERT INTO {ev} (version_key, {cols}) VALUES ('{key}', '{version}', 'add_users', '{state}', "
                f"'abc123', '1700000000000', '{'1700000000500' if state == 'MIGRATED' else ''}', '{previous}', '');")

    return [
        Step(f"CREATE STREAM {ev} (\n  version_key  STRING KEY,\n  version      STRING,\n  name         STRING,\n"
             "  state        STRING,\n  checksum     STRING,\n  started_on   STRING,\n  completed_on STRING,\n"
             "  previous     STRING,\n  error_reason STRING\n) WITH (\n"
             f"  KAFKA_TOPIC='default_ksql_{ev}',\n  VALUE_FORMAT='JSON',\n  PARTITIONS=1,\n  REPLICAS=1\n);",
             ok(CS)),
        Step(f"CREATE TABLE {ver}\n  WITH (\n    KAFKA_TOPIC='default_ksql_{ver}'\n  )\n  AS SELECT\n"
             "    version_key,\n    latest_by_offset(version) as version,\n    latest_by_offset(name) AS name,\n"
             "    latest_by_offset(state) AS state,\n    latest_by_offset(checksum) AS checksum,\n"
             "    latest_by_offset(started_on) AS started_on,\n    latest_by_offset(completed_on) AS completed_on,\n"
             "    latest_by_offset(previous) AS previous,\n    latest_by_offset(error_reason) AS error_reason\n"
             f"  FROM {ev}\n  GROUP BY version_key;", ok(CS), body=EARLIEST_K),
        Step("\n".join((event("1", "1", "RUNNING", "<none>"), event("CURRENT", "1", "RUNNING", "<none>"))), ok()),
        Step("CREATE STREAM users (id STRING KEY, name STRING) WITH (kafka_topic='users_mig', value_format='JSON', "
             "partitions=1);".replace("users", f"{p}users"), ok(CS)),
        Step("\n".join((event("1", "1", "MIGRATED", "<none>"), event("CURRENT", "1", "MIGRATED", "<none>"))), ok()),
        Step(f"SELECT * FROM {ver} WHERE version_key = 'CURRENT';",
             rows(["VERSION_KEY", "VERSION", "NAME", "STATE", "CHECKSUM", "STARTED_ON", "COMPLETED_ON", "PREVIOUS",
                   "ERROR_REASON"],
                  [["CURRENT", "1", "add_users", "MIGRATED", "abc123", "1700000000000", "1700000000500", "<none>",
                    ""]]), wait=15),
        Step(f"SELECT version, state FROM {ver} WHERE version_key = '1';", rows(["VERSION", "STATE"],
                                                                              [["1", "MIGRATED"]]), wait=10),
        Step(f"SELECT version FROM {ver} WHERE version_key = '2';", rows(["VERSION"], [])),
        Step("SHOW PROPERTIES;", ok("properties")),  # the tool reads ksql.service.id from here
        # destroy-metadata: the table (its query goes with it) and the stream, with their topics
        Step(f"DROP TABLE {ver} DELETE TOPIC;\nDROP STREAM {ev} DELETE TOPIC;", ok(CS, CS)),
    ]
