"""The quickstart and the pages on writing statements: WITH spellings, statement text, identifiers and variables."""

from __future__ import annotations

from docs_runner import Expect, Step, ok, refused, rows

from ._common import CS, EARLIEST_K, EARLIEST_Q, _has


def quickstart(p: str) -> list[Step]:
    """The quickstart: a stream of rider locations, a table over it, push and pull queries."""
    s, t, t2 = f"{p}riderLocations", f"{p}currentLocation", f"{p}ridersNearHome"
    return [
        Step(f"CREATE STREAM {s} (profileId VARCHAR, latitude DOUBLE, longitude DOUBLE)\n"
             f"  WITH (kafka_topic='{p.lower()}locations', value_format='json', partitions=1);", ok(CS)),
        Step(f"CREATE TABLE {t} AS\n  SELECT profileId,\n         LATEST_BY_OFFSET(latitude) AS la,\n"
             f"         LATEST_BY_OFFSET(longitude) AS lo\n  FROM {s}\n  GROUP BY profileId\n  EMIT CHANGES;",
             ok(CS), body=EARLIEST_K),
        Step(f"CREATE TABLE {t2} AS\n  SELECT ROUND(GEO_DISTANCE(la, lo, 51.5007, -0.1246), -1) AS distanceInKm,\n"
             f"         COLLECT_LIST(profileId) AS riders,\n         COUNT(*) AS count\n  FROM {t}\n"
             f"  GROUP BY ROUND(GEO_DISTANCE(la, lo, 51.5007, -0.1246), -1);", ok(CS), body=EARLIEST_K),
        Step("\n".join(f"INSERT INTO {s} (profileId, latitude, longitude) VALUES ('{r}', {la}, {lo});"
                       for r, la, lo in (("r1", 51.5033, -0.1195), ("r2", 51.4545, -2.5879),
                                         ("r3", 51.5014, -0.1419), ("r1", 51.5072, -0.1276))), ok()),
        Step(f"SELECT * FROM {s}\n  WHERE GEO_DISTANCE(latitude, longitude, 51.5007, -0.1246) <= 5 EMIT CHANGES;",
             rows(["PROFILEID", "LATITUDE", "LONGITUDE"],
                  [["r1", 51.5033, -0.1195], ["r3", 51.5014, -0.1419], ["r1", 51.5072, -0.1276]]),
             body=EARLIEST_Q, take=3),
        Step(f"SELECT * from {t2} WHERE distanceInKm <= 10;",
             rows(["DISTANCEINKM", "RIDERS", "COUNT"], [[0.0, ["r3", "r1"], 2]]), wait=15),
        Step(f"SELECT * FROM {t} WHERE profileId = 'r1';", rows(["PROFILEID", "LA", "LO"], [["r1", 51.5072, -0.1276]]),
             wait=10),
        Step(f"select profileId, la from {t} where profileId IN ('r2', 'r3');",
             rows(["PROFILEID", "LA"], [["r2", 51.4545], ["r3", 51.5014]]), wait=10),
        Step(f"DROP TABLE {t2};", ok(CS)),
    ]


def with_spellings(p: str) -> list[Step]:
    """WITH properties as the docs spell them: any case, quoted names, every format option."""
    return [
        Step(f"CREATE STREAM {p}a (id BIGINT KEY, name STRING) WITH (KAFKA_TOPIC='{p}a', VALUE_FORMAT='JSON', "
             "PARTITIONS=1, REPLICAS=1);", ok(CS)),
        Step(f"CREATE STREAM {p}b (id BIGINT KEY, name STRING) WITH ('KAFKA_TOPIC'='{p}b', 'VALUE_FORMAT'='JSON', "
             "'PARTITIONS'=1);", ok(CS)),
        Step(f"create stream {p}c (id bigint key, name string) with (kafka_topic='{p}c', value_format='json', "
             "partitions=2, key_format='kafka');", ok(CS)),
        Step(f"CREATE STREAM {p}d (id INT KEY, name STRING, amount DOUBLE) WITH (kafka_topic='{p}d', "
             "format='json', partitions=1);", ok(CS)),
        Step(f"CREATE STREAM {p}e (name STRING, amount DOUBLE) WITH (kafka_topic='{p}e', value_format='delimited', "
             "value_delimiter='|', partitions=1);", ok(CS)),
        Step(f"CREATE STREAM {p}f (name STRING, amount DOUBLE) WITH (kafka_topic='{p}f', value_format='DELIMITED', "
             "value_delimiter='TAB', partitions=1);", ok(CS)),
        Step(f"CREATE STREAM {p}g (name STRING) WITH (kafka_topic='{p}g', value_format='JSON', "
             "wrap_single_value=false, partitions=1);", ok(CS)),
        Step(f"CREATE STREAM {p}h (event_ts VARCHAR, v INT) WITH (kafka_topic='{p}h', value_format='JSON', "
             "timestamp='event_ts', timestamp_format='yyyy-MM-dd''T''HH:mm:ssX', partitions=1);", ok(CS)),
        Step(f"CREATE STREAM {p}i (id STRING KEY, ts BIGINT) WITH (kafka_topic='{p}i', value_format='JSON', "
             "key_format='JSON', timestamp='ts', partitions=1);", ok(CS)),
        Step(f"CREATE TABLE {p}j (id STRING PRIMARY KEY, v INT) WITH (kafka_topic='{p}j', value_format='JSON', "
             "partitions=1, cleanup_policy='compact');",
             refused(40001, "Invalid config variable in the WITH clause: CLEANUP_POLICY.\nThe CLEANUP_POLICY config "
                            "is automatically inferred")),
        Step(f"CREATE TABLE {p}jr (id STRING PRIMARY KEY, v INT) WITH (kafka_topic='{p}jr', value_format='JSON', "
             "partitions=1, retention_ms=86400000);",
             refused(40001, "Invalid config variable in the WITH clause: RETENTION_MS. Non-windowed tables do not "
                            "support retention.")),
        Step(f"CREATE STREAM {p}k (v INT) WITH (kafka_topic='{p}k', key_format='NONE', value_format='JSON', "
             "partitions=1);", ok(CS)),
        Step(f"CREATE STREAM {p}l WITH (kafka_topic='{p}l', value_format='JSON', partitions=1) AS SELECT * FROM {p}a;",
             ok(CS)),
        Step(f"CREATE STREAM {p}m WITH (KAFKA_TOPIC='{p}m', FORMAT='JSON', PARTITIONS=1) AS "
             f"SELECT id, UCASE(name) AS upper_name FROM {p}a EMIT CHANGES;", ok(CS)),
        Step(f"INSERT INTO {p}h (event_ts, v) VALUES ('2024-05-01T10:00:00Z', 1);", ok()),
        Step(f"SELECT ROWTIME, v FROM {p}h EMIT CHANGES LIMIT 1;", rows(["ROWTIME", "V"], [[1714557600000, 1]]),
             body=EARLIEST_Q),
        Step(f"INSERT INTO {p}e (name, amount) VALUES ('x', 1.5);", ok()),
        Step(f"PRINT '{p}e' FROM BEGINNING LIMIT 1;", Expect(text=["x|1.5"])),
        Step(f"INSERT INTO {p}g (name) VALUES ('solo');", ok()),
        Step(f"PRINT '{p}g' FROM BEGINNING LIMIT 1;", Expect(text=['value: "solo"'])),
        # refusals with ksqlDB's messages
        Step(f"CREATE STREAM {p}z (v INT) WITH (kafka_topic='{p}z', value_format='JSON');",
             refused(40001, f"Topic '{p}z' does not exist. If you want to create a new topic for the stream/table "
                            "please re-run the statement providing the required 'PARTITIONS' configuration in the "
                            "WITH clause (and optionally 'REPLICAS'). For example: CREATE STREAM")),
        Step(f"CREATE STREAM {p}y (v INT) WITH (kafka_topic='{p}y', partitions=1);",
             refused(40001, "Statement is missing the 'VALUE_FORMAT' property from the WITH clause.")),
        Step(f"CREATE STREAM {p}x (v INT) WITH (kafka_topic='{p}x', format='JSON', value_format='JSON', "
             "partitions=1);", refused(40001, "re:Cannot supply both 'VALUE_FORMAT' and 'FORMAT' properties")),
    ]


def statements_text(p: str) -> list[Step]:
    """Comments, ``;`` handling, several statements in one request, variables."""
    return [
        Step(f"-- a stream of orders\nCREATE STREAM {p}orders (\n  id INT KEY, -- the key\n  item VARCHAR,\n"
             f"  /* price in cents */ price BIGINT\n) WITH (kafka_topic='{p.lower()}orders', value_format='JSON', "
             "partitions=1);", ok(CS)),
        # every statement ends in ';', the last one too (ksqlDB's grammar: singleStatement is statement ';')
        Step(f"CREATE STREAM {p}o2 (id INT KEY) WITH (kafka_topic='{p}o2', value_format='JSON', partitions=1)",
             refused(40001, "Syntax Error\nmissing ';' at '<EOF>'")),
        Step(f"CREATE STREAM {p}o2 (id INT KEY) WITH (kafka_topic='{p}o2', value_format='JSON', partitions=1);",
             ok(CS)),
        Step("SHOW STREAMS; SHOW TABLES;\nLIST TOPICS;", ok("streams", "tables", "kafka_topics")),
        Step(f"INSERT INTO {p}orders (id, item, price) VALUES (1, 'tea', 250); "
             f"INSERT INTO {p}orders (id, item, price) VALUES (2, 'it''s', 100);", ok()),
        Step(f"SELECT id, item FROM {p}orders WHERE item = 'it''s' EMIT CHANGES LIMIT 1;",
             rows(["ID", "ITEM"], [[2, "it's"]]), body=EARLIEST_Q),
        Step("DEFINE cheap = '200'; SHOW VARIABLES;", ok("variables",
                                                       check=_has([0, "variables", 0, "value"], "200"))),
        Step(f"SELECT id FROM {p}orders WHERE price < ${{cheap}} EMIT CHANGES LIMIT 1;", rows(["ID"], [[2]]),
             body={"properties": {"auto.offset.reset": "earliest"}, "sessionVariables": {"cheap": 200}}),
        Step("SELECT id FROM ${src} EMIT CHANGES LIMIT 2;", rows(["ID"], [[1], [2]]),
             body={"properties": {"auto.offset.reset": "earliest"}, "sessionVariables": {"src": f"{p}orders"}}),
        Step(f"SET 'auto.offset.reset' = 'earliest';\nCREATE STREAM {p}o3 AS SELECT * FROM {p}orders;",
             ok(CS)),
        Step(f"SELECT * FROM {p}o3;", rows(["ID", "ITEM", "PRICE"], [[1, "tea", 250], [2, "it's", 100]]), wait=10),
        Step(f"SELECT `ID`, \"ITEM\" FROM {p}orders EMIT CHANGES LIMIT 1;", rows(["ID", "ITEM"], [[1, "tea"]]),
             body=EARLIEST_Q),
        Step(f"SELECT `ID` FROM `{p.upper()}ORDERS` EMIT CHANGES LIMIT 1;", rows(["ID"], [[1]]), body=EARLIEST_Q),
        Step("UNDEFINE nothing_here;", ok("warning_entity")),
        Step("SHOW PROPERTIES;", ok("properties")),
    ]


def identifiers_and_variables(p: str) -> list[Step]:
    """How to control the case of identifiers (backquoted names keep their case everywhere) and how to
    substitute variables (DEFINE in the statement text, sessionVariables in the request)."""
    s1 = f"{p}s1"
    return [
        Step(f"CREATE STREAM `{s1}` (`foo` VARCHAR, `Bar` INT, baz BOOLEAN) WITH (kafka_topic='{s1}', partitions=1, "
             "value_format='json');", ok(CS)),
        Step(f"INSERT INTO `{s1}` (`foo`, `Bar`, baz) VALUES ('a', 1, true);", ok()),
        Step(f"SELECT `foo`, `Bar`, baz FROM `{s1}` EMIT CHANGES LIMIT 1;", rows(["foo", "Bar", "BAZ"],
                                                                               [["a", 1, True]]), body=EARLIEST_Q),
        Step(f"SELECT foo FROM `{s1}` EMIT CHANGES;", refused(40001, "Line: 1, Col: 8: SELECT column 'FOO' cannot be resolved.")),
        Step(f"SELECT * FROM {s1} EMIT CHANGES;", refused(40001, f"{s1.upper()} does not exist.")),
        Step(f"DESCRIBE `{s1}`;", ok("sourceDescription", check=_has([0, "sourceDescription", "fields", 1, "name"],
                                                                    "Bar"))),
        Step(f"DEFINE format = 'JSON';\nDEFINE replicas = '1';\nDEFINE topicName = '{p.lower()}vars';\n"
             f"CREATE STREAM {p}stream1 (id INT) WITH (kafka_topic='${{topicName}}', value_format='${{format}}', "
             "partitions=1, replicas=${replicas});",
             # the variables substituted (the statement as the injectors reprinted it: KAFKA_TOPIC='...')
             ok(CS, check=_has([0, "statementText"], lambda t: f"kafka_topic='{p.lower()}vars'" in t.lower()))),
        Step(f"DESCRIBE {p}stream1 EXTENDED;", ok("sourceDescription", check=_has(
            [0, "sourceDescription", "topic"], f"{p.lower()}vars"))),
        Step("INSERT INTO ${s} (id) VALUES (${v});", ok(), body={"sessionVariables": {"s": f"{p}stream1", "v": 7}}),
        Step(f"SELECT id FROM {p}stream1 WHERE id = ${{v}} EMIT CHANGES LIMIT 1;", rows(["ID"], [[7]]),
             body={"properties": {"auto.offset.reset": "earliest"}, "sessionVariables": {"v": 7}}),
    ]
