"""Tutorials and tools: the event-driven microservice, the migrations tool."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docs_runner import Expect, Step, ok, refused, rows

from ._common import CS, EARLIEST_K, EARLIEST_Q, _has


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


def _avro_source(name: str, topic: str, columns: str) -> str:
    """What a connector would have produced: an Avro topic whose value schema is registered. Declared with
    its columns once, so the page's own statements can declare it again with the columns inferred."""
    return (f"CREATE STREAM {name} ({columns}) WITH (kafka_topic='{topic}', value_format='avro', partitions=1);")


def materialized_cache(p: str) -> list[Step]:
    """The materialized cache tutorial: a change stream of Debezium-shaped Avro records (its columns inferred
    from the registered schema), two tables over the `after` struct, read by pull queries as a cache."""
    topic = f"{p.lower()}call-center-db.call-center.calls"
    ins = "\n".join(f"INSERT INTO {p}calls_src (after) VALUES (STRUCT(name := '{n}', reason := '{r}', "
                    f"duration_seconds := {d}));"
                    for n, r, d in (("michael", "purchase", 540), ("derek", "help", 300), ("derek", "refund", 120),
                                    ("michael", "help", 60), ("derek", "help", 240), ("colin", "refund", 420)))
    return [
        Step(_avro_source(f"{p}calls_src", topic, "after STRUCT<name VARCHAR, reason VARCHAR, duration_seconds INT>"),
             ok(CS)),
        Step(f"SET 'auto.offset.reset' = 'earliest';\nCREATE STREAM {p}calls WITH (\n    kafka_topic = '{topic}',\n"
             "    value_format = 'avro'\n);", ok(CS)),
        Step(f"DESCRIBE {p}calls;", ok("sourceDescription", check=_has([0, "sourceDescription", "fields"], lambda fs: (
            [f["name"] for f in fs] == ["AFTER"]
            and [g["name"] for g in fs[0]["schema"]["fields"]] == ["NAME", "REASON", "DURATION_SECONDS"])))),
        Step(f"CREATE TABLE {p}support_view AS\n    SELECT after->name AS name,\n"
             "           count_distinct(after->reason) AS distinct_reasons,\n"
             "           latest_by_offset(after->reason) AS last_reason\n"
             f"    FROM {p}calls\n    GROUP BY after->name\n    EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(f"CREATE TABLE {p}lifetime_view AS\n    SELECT after->name AS name,\n"
             "           count(after->reason) AS total_calls,\n"
             "           (sum(after->duration_seconds) / 60) as minutes_engaged\n"
             f"    FROM {p}calls\n    GROUP BY after->name\n    EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(ins, ok()),
        Step(f"SELECT name, distinct_reasons, last_reason\nFROM {p}support_view\nWHERE name = 'derek';",
             rows(["NAME", "DISTINCT_REASONS", "LAST_REASON"], [["derek", 2, "help"]]), wait=15),
        Step(f"SELECT name, total_calls, minutes_engaged\nFROM {p}lifetime_view\nWHERE name = 'michael';",
             rows(["NAME", "TOTAL_CALLS", "MINUTES_ENGAGED"], [["michael", 2, 10]]), wait=15),
        Step(f"SELECT * FROM {p}lifetime_view WHERE name IN ('colin', 'derek');",
             rows(["NAME", "TOTAL_CALLS", "MINUTES_ENGAGED"], [["colin", 1, 7], ["derek", 3, 11]]), wait=15),
    ]


def streaming_etl(p: str) -> list[Step]:
    """The streaming ETL tutorial: three Avro change streams declared with inferred columns (two with a
    string event time and its format), a table of the latest customer by id, a stream-table LEFT JOIN, and a
    stream-stream join WITHIN 7 DAYS written to a topic the page names; read back by push query and PRINT."""
    ct, ot, st = (f"{p.lower()}customers.public.customers", f"{p.lower()}my-replica-set.logistics.orders",
                  f"{p.lower()}my-replica-set.logistics.shipments")
    ts = "    timestamp = 'ts',\n    timestamp_format = 'yyyy-MM-dd''T''HH:mm:ss'\n"
    ins = "\n".join([
        # the customers were in the database before the orders: their records are older than the orders' event
        # times (a stream-table join processes both inputs in timestamp order and looks up the table as of then)
        *(f"INSERT INTO {p}customers_src (ROWTIME, id, name, age) VALUES (1585699200000, {i}, '{n}', {a});"
          for i, n, a in ((1, "fred", 34), (2, "sue", 25), (3, "bill", 51))),
        *(f"INSERT INTO {p}orders_src (order_id, customer_id, price, currency, ts) VALUES "
          f"('{o}', {c}, {pr}, '{cur}', '{t}');"
          for o, c, pr, cur, t in (("o1", 2, 6.20, "usd", "2020-04-03T11:20:00"),
                                   ("o2", 1, 3.45, "eur", "2020-04-04T12:55:00"),
                                   ("o3", 3, 2.99, "usd", "2020-04-05T13:10:00"))),
        *(f"INSERT INTO {p}shipments_src (shipment_id, order_id, origin, ts) VALUES ('{s}', '{o}', '{og}', '{t}');"
          for s, o, og, t in (("s1", "o1", "ca", "2020-04-04T08:00:00"), ("s2", "o2", "us", "2020-04-05T09:30:00"),
                              ("s3", "o3", "mx", "2020-04-20T10:00:00"))),
    ])
    return [
        Step("\n".join((_avro_source(f"{p}customers_src", ct, "id INT, name VARCHAR, age INT"),
                        _avro_source(f"{p}orders_src", ot,
                                     "order_id VARCHAR, customer_id INT, price DOUBLE, currency VARCHAR, ts VARCHAR"),
                        _avro_source(f"{p}shipments_src", st,
                                     "shipment_id VARCHAR, order_id VARCHAR, origin VARCHAR, ts VARCHAR"))),
             ok(CS, CS, CS)),
        Step(f"CREATE STREAM {p}customers WITH (\n    kafka_topic = '{ct}',\n    value_format = 'avro'\n);\n\n"
             f"CREATE STREAM {p}orders WITH (\n    kafka_topic = '{ot}',\n    value_format = 'avro',\n{ts});\n\n"
             f"CREATE STREAM {p}shipments WITH (\n    kafka_topic = '{st}',\n    value_format = 'avro',\n{ts});",
             ok(CS, CS, CS)),
        Step(f"SET 'auto.offset.reset' = 'earliest';\n"
             f"CREATE TABLE {p}customers_by_key AS\n    SELECT id,\n           latest_by_offset(name) AS name,\n"
             f"           latest_by_offset(age) AS age\n    FROM {p}customers\n    GROUP BY id\n    EMIT CHANGES;",
             ok(CS)),
        Step(ins, ok()),
        # the table first: a stream-table join looks the customer up when the order arrives
        Step(f"SELECT * FROM {p}customers_by_key;", rows(["ID", "NAME", "AGE"],
                                                         [[1, "fred", 34], [2, "sue", 25], [3, "bill", 51]]), wait=15),
        Step(f"SET 'auto.offset.reset' = 'earliest';\n"
             f"CREATE STREAM {p}enriched_orders AS\n    SELECT o.order_id,\n           o.price,\n           o.currency,\n"
             "           c.id AS customer_id,\n           c.name AS customer_name,\n           c.age AS customer_age\n"
             f"    FROM {p}orders AS o\n    LEFT JOIN {p}customers_by_key c\n    ON o.customer_id = c.id\n"
             "    EMIT CHANGES;", ok(CS)),
        Step(f"SET 'auto.offset.reset' = 'earliest';\n"
             f"CREATE STREAM {p}shipped_orders WITH (\n    kafka_topic = '{p.lower()}shipped_orders'\n)   AS\n"
             "    SELECT o.order_id,\n           s.shipment_id,\n           o.customer_id,\n           o.customer_name,\n"
             "           o.customer_age,\n           s.origin,\n           o.price,\n           o.currency\n"
             f"    FROM {p}enriched_orders AS o\n    INNER JOIN {p}shipments s\n    WITHIN 7 DAYS\n"
             "    ON s.order_id = o.order_id\n    EMIT CHANGES;", ok(CS)),
        Step(f"SELECT * FROM {p}enriched_orders EMIT CHANGES LIMIT 3;",
             rows(["CUSTOMER_ID", "ORDER_ID", "PRICE", "CURRENCY", "CUSTOMER_NAME", "CUSTOMER_AGE"],
                  [[2, "o1", 6.2, "usd", "sue", 25], [1, "o2", 3.45, "eur", "fred", 34],
                   [3, "o3", 2.99, "usd", "bill", 51]]), body=EARLIEST_Q),
        Step(f"SELECT * FROM {p}shipped_orders EMIT CHANGES LIMIT 2;",
             rows(["O_ORDER_ID", "SHIPMENT_ID", "CUSTOMER_ID", "CUSTOMER_NAME", "CUSTOMER_AGE", "ORIGIN", "PRICE",
                   "CURRENCY"],
                  [["o1", "s1", 2, "sue", 25, "ca", 6.2, "usd"], ["o2", "s2", 1, "fred", 34, "us", 3.45, "eur"]]),
             body=EARLIEST_Q),
        Step(f"PRINT '{p.lower()}shipped_orders' FROM BEGINNING LIMIT 1;",
             Expect(text=["Key format: KAFKA_STRING", "Value format: AVRO", "re:key: o\\d, value: \\{\"SHIPMENT_ID\""]),
             endpoint="/query", http2_expect=refused(40500, "The /query endpoint is not available using HTTP2")),
    ]
