"""Scenarios in the shape of ksqlDB's documentation pages, in our own words and data: each page's kinds of
statement typed as a reader types them - keyword case as the docs mix it, ``WITH`` property spellings,
comments, statements over several lines, several statements in one request, the request bodies the REST
pages show - with the answers ksqlDB gives.

Every scenario is a function of a name prefix (so scenarios share one server) returning its steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docs_runner import Expect, Step, ok, refused, rows

EARLIEST_Q = {"properties": {"auto.offset.reset": "earliest"}}
EARLIEST_K = {"streamsProperties": {"ksql.streams.auto.offset.reset": "earliest"}}
CS = "currentStatus"


def _has(path: list[Any], want: Any) -> Callable[[Any], str | None]:
    def check(answer: Any) -> str | None:
        x = answer
        for p in path:
            try:
                x = x[p]
            except (KeyError, IndexError, TypeError):
                return f"no {path} in {str(answer)[:300]}"
        return None if (want(x) if callable(want) else x == want) else f"{path} = {str(x)[:300]}"
    return check


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
        Step(f"CREATE STREAM {p}o2 (id INT KEY) WITH (kafka_topic='{p}o2', value_format='JSON', partitions=1)",
             ok(CS)),  # no trailing ';'
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


def nested_data(p: str) -> list[Step]:
    """Structs, arrays, maps, lambdas and table functions as the nested-data pages use them."""
    s = f"{p}readings"
    return [
        Step(f"CREATE TYPE {p}ADDRESS AS STRUCT<street VARCHAR, city VARCHAR>;", ok(CS)),
        Step(f"CREATE STREAM {s} (\n  sensor VARCHAR KEY,\n  area {p}ADDRESS,\n  vals ARRAY<DOUBLE>,\n"
             f"  tags MAP<VARCHAR, VARCHAR>\n) WITH (kafka_topic='{s}', value_format='JSON', partitions=1);", ok(CS)),
        Step(f"INSERT INTO {s} (sensor, area, vals, tags) VALUES ('s1', STRUCT(street := 'High St', city := 'York'), "
             "ARRAY[1.5, 2.5, 4.0], MAP('unit' := 'C', 'floor' := '2'));", ok()),
        Step(f"SELECT sensor, area->city AS city, vals[1] AS first, vals[-1] AS last, tags['unit'] AS unit "
             f"FROM {s} EMIT CHANGES LIMIT 1;",
             rows(["SENSOR", "CITY", "FIRST", "LAST", "UNIT"], [["s1", "York", 1.5, 4.0, "C"]]), body=EARLIEST_Q),
        Step(f"SELECT sensor, TRANSFORM(vals, v => v * 2) AS doubled, FILTER(vals, v => v > 2) AS big,\n"
             f"       REDUCE(vals, 0e0, (acc, v) => acc + v) AS total,\n"
             f"       TRANSFORM(tags, (k, v) => UCASE(k), (k, v) => CONCAT(v, '!')) AS loud\n"
             f"FROM {s} EMIT CHANGES LIMIT 1;",
             rows(["SENSOR", "DOUBLED", "BIG", "TOTAL", "LOUD"],
                  [["s1", [3.0, 5.0, 8.0], [2.5, 4.0], 8.0, {"UNIT": "C!", "FLOOR": "2!"}]]), body=EARLIEST_Q),
        Step(f"SELECT sensor, EXPLODE(vals) AS v FROM {s} EMIT CHANGES LIMIT 3;",
             rows(["SENSOR", "V"], [["s1", 1.5], ["s1", 2.5], ["s1", 4.0]]), body=EARLIEST_Q),
        Step(f"SELECT area->* FROM {s} EMIT CHANGES LIMIT 1;", rows(["STREET", "CITY"], [["High St", "York"]]),
             body=EARLIEST_Q),
        Step(f"SELECT sensor, ARRAY_LENGTH(vals) AS n, MAP_KEYS(tags) AS ks, ARRAY_MAX(vals) AS hi,\n"
             f"  CASE WHEN ARRAY_MAX(vals) > 3 THEN 'hot' ELSE 'ok' END AS state\nFROM {s} EMIT CHANGES LIMIT 1;",
             rows(["SENSOR", "N", "KS", "HI", "STATE"], [["s1", 3, ["floor", "unit"], 4.0, "hot"]]),
             body=EARLIEST_Q),
        Step("SHOW TYPES;", ok("type_list", check=_has([0, "types", f"{p.upper()}ADDRESS", "type"], "STRUCT"))),
        Step(f"DESCRIBE {s};", ok("sourceDescription", check=_has([0, "sourceDescription", "fields", 1, "schema",
                                                                  "fields", 0, "name"], "STREET"))),
        Step(f"DROP STREAM {s};", ok(CS)),
        Step(f"DROP TYPE {p}ADDRESS;", ok(CS)),
    ]


def function_pages(p: str) -> list[Step]:
    """The scalar-function page's examples as written there (string, regex and date-time families), each
    called on a row of our own, with the results the page gives or Java's rules imply."""
    s = f"{p}texts"
    q = f"FROM {s} EMIT CHANGES LIMIT 1;"
    return [
        Step(f"CREATE STREAM {s} (id INT KEY, txt VARCHAR) WITH (kafka_topic='{s}', value_format='JSON', "
             "partitions=1);", ok(CS)),
        Step(f"INSERT INTO {s} (id, txt) VALUES (1, 'My Test $123');", ok()),
        Step("SELECT INSTR('CORPORATE FLOOR', 'OR') AS a, INSTR('CORPORATE FLOOR', 'OR', 3) AS b,\n"
             "       INSTR('CORPORATE FLOOR', 'OR', 3, 2) AS c, INSTR('CORPORATE FLOOR', 'OR', -3) AS d,\n"
             "       INSTR('CORPORATE FLOOR', 'OR', -3, 2) AS e, INSTR('CORPORATE FLOOR', 'MISSING') AS f\n" + q,
             rows(["A", "B", "C", "D", "E", "F"], [[2, 5, 14, 5, 2, 0]]), body=EARLIEST_Q),
        Step("SELECT MASK(txt) AS m, MASK(txt, 'X', 'x', 'n', '-') AS m2, MASK_KEEP_LEFT(txt, 4) AS kl,\n"
             "       MASK_KEEP_RIGHT(txt, 4) AS kr, MASK_LEFT(txt, 4) AS ml, MASK_RIGHT(txt, 4) AS mr\n" + q,
             rows(["M", "M2", "KL", "KR", "ML", "MR"],
                  [["Xx-Xxxx--nnn", "Xx-Xxxx--nnn", "My Txxx--nnn", "Xx-Xxxx-$123", "Xx-Xest $123",
                    "My Test -nnn"]]), body=EARLIEST_Q),
        Step("SELECT CHR(75) AS k, CHR('\\u004b') AS k2, CHR(22909) AS h, CHR('\\u597d') AS h2,\n"
             "       CONCAT_WS(', ', 'apple', 'banana', NULL, 'date') AS fruit, LPAD('Foo', 7, 'Bar') AS l,\n"
             "       RPAD('Foo', 7, 'Bar') AS r, ENCODE('ksqlDB', 'ascii', 'base64') AS enc\n" + q,
             rows(["K", "K2", "H", "H2", "FRUIT", "L", "R", "ENC"],
                  [["K", "K", "\u597d", "\u597d", "apple, banana, date", "BarBFoo", "FooBarB", "a3NxbERC"]]),
             body=EARLIEST_Q),
        Step("SELECT SPLIT_TO_MAP('apple:green/banana:yellow/cherry:red', '/', ':') AS colours,\n"
             "       SPLIT('a,b,,c', ',') AS parts, SUBSTRING(txt, 4, 4) AS sub\n" + q,
             rows(["COLOURS", "PARTS", "SUB"],
                  [[{"apple": "green", "banana": "yellow", "cherry": "red"}, ["a", "b", "", "c"], "Test"]]),
             body=EARLIEST_Q),
        Step("SELECT REGEXP_EXTRACT('\\$(\\d+)', txt, 1) AS num, REGEXP_EXTRACT_ALL('[A-Z]', txt) AS caps,\n"
             "       REGEXP_REPLACE(txt, '(\\w+) (\\w+)', '$2 $1') AS swapped,\n"
             "       REGEXP_SPLIT_TO_ARRAY(txt, '\\s+') AS words\n" + q,
             rows(["NUM", "CAPS", "SWAPPED", "WORDS"],
                  [["123", ["M", "T"], "Test My $123", ["My", "Test", "$123"]]]), body=EARLIEST_Q),
        Step("SELECT PARSE_TIMESTAMP('2021-12-01 15:53:00.123', 'yyyy-MM-dd HH:mm:ss.SSS') AS ts,\n"
             "       FORMAT_TIMESTAMP(PARSE_TIMESTAMP('2021-12-01 15:53:00.123', 'yyyy-MM-dd HH:mm:ss.SSS'),\n"
             "         'yyyy-MM-dd''T''HH:mm:ssXXX', 'America/Los_Angeles') AS la,\n"
             "       PARSE_DATE('2021-12-01', 'yyyy-MM-dd') AS d, FORMAT_DATE(DATEADD(DAYS, 31, "
             "PARSE_DATE('2021-12-01', 'yyyy-MM-dd')), 'dd MMM yyyy') AS later,\n"
             "       CONVERT_TZ(PARSE_TIMESTAMP('2021-12-01 15:53', 'yyyy-MM-dd HH:mm'), 'UTC', 'Asia/Tokyo') AS tokyo\n"
             + q,
             rows(["TS", "LA", "D", "LATER", "TOKYO"],
                  [["2021-12-01T15:53:00.123", "2021-12-01T07:53:00-08:00", "2021-12-01", "01 Jan 2022",
                    "2021-12-02T00:53:00.000"]]), body=EARLIEST_Q),
        Step(f"DROP STREAM {s};", ok(CS)),
    ]


def time_and_windows(p: str) -> list[Step]:
    """Event time from a column, windows of every kind, pull queries over windowed tables."""
    s = f"{p}clicks"
    base = 1_700_000_000_000  # 2023-11-14T22:13:20Z
    ins = "\n".join(f"INSERT INTO {s} (user_id, page, ts) VALUES ('{u}', '{pg}', {base + off});"
                    for u, pg, off in (("u1", "a", 0), ("u1", "b", 20_000), ("u2", "a", 40_000),
                                       ("u1", "c", 70_000), ("u1", "d", 400_000)))
    return [
        Step(f"CREATE STREAM {s} (user_id VARCHAR KEY, page VARCHAR, ts BIGINT)\n"
             f"  WITH (KAFKA_TOPIC='{s}', VALUE_FORMAT='JSON', TIMESTAMP='ts', PARTITIONS=1);", ok(CS)),
        Step(f"CREATE TABLE {p}per_min AS\n  SELECT user_id, COUNT(*) AS hits\n  FROM {s}\n"
             f"  WINDOW TUMBLING (SIZE 1 MINUTE)\n  GROUP BY user_id\n  EMIT CHANGES;", ok(CS)),
        Step(f"CREATE TABLE {p}hopping AS SELECT user_id, COUNT(*) AS hits FROM {s}\n"
             f"  WINDOW HOPPING (SIZE 2 MINUTES, ADVANCE BY 1 MINUTE, GRACE PERIOD 10 MINUTES) GROUP BY user_id;",
             ok(CS)),
        Step(f"CREATE TABLE {p}sessions AS SELECT user_id, COUNT(*) AS hits,\n"
             f"  WINDOWSTART AS session_start, WINDOWEND AS session_end\n  FROM {s}\n"
             f"  WINDOW SESSION (60 SECONDS)\n  GROUP BY user_id;", ok(CS)),
        Step(ins, ok()),
        Step(f"SELECT user_id, WINDOWSTART, WINDOWEND, hits FROM {p}per_min WHERE user_id = 'u1';",
             rows(["USER_ID", "WINDOWSTART", "WINDOWEND", "HITS"],
                  [["u1", 1699999980000, 1700000040000, 2], ["u1", 1700000040000, 1700000100000, 1],
                   ["u1", 1700000400000, 1700000460000, 1]]), wait=15),
        Step(f"SELECT * FROM {p}per_min WHERE user_id = 'u1' AND WINDOWSTART >= {base + 60_000};",
             rows(["USER_ID", "WINDOWSTART", "WINDOWEND", "HITS"],
                  [["u1", 1700000400000, 1700000460000, 1]]), wait=10),
        Step(f"SELECT user_id, hits, TIMESTAMPTOSTRING(WINDOWSTART, 'yyyy-MM-dd HH:mm:ss', 'UTC') AS start_utc\n"
             f"FROM {p}per_min WHERE user_id = 'u2';",
             rows(["USER_ID", "HITS", "START_UTC"], [["u2", 1, "2023-11-14 22:14:00"]]), wait=10),
        Step(f"SELECT user_id, hits, session_start, session_end FROM {p}sessions WHERE user_id = 'u1';",
             rows(["USER_ID", "HITS", "SESSION_START", "SESSION_END"],
                  [["u1", 3, base, base + 70_000], ["u1", 1, base + 400_000, base + 400_000]]), wait=15),
        Step(f"SELECT FORMAT_TIMESTAMP(FROM_UNIXTIME(ts), 'yyyy-MM-dd HH:mm', 'Europe/London') AS local_time,\n"
             f"       PARSE_TIMESTAMP('2023-11-14 22:13', 'yyyy-MM-dd HH:mm') AS parsed,\n"
             f"       TIMESTAMPADD(MINUTES, 5, FROM_UNIXTIME(ts)) AS later\n"
             f"FROM {s} WHERE page = 'a' AND user_id = 'u1' EMIT CHANGES LIMIT 1;",
             rows(["LOCAL_TIME", "PARSED", "LATER"],
                  [["2023-11-14 22:13", "2023-11-14T22:13:00.000", "2023-11-14T22:18:20.000"]]), body=EARLIEST_Q),
        Step(f"SELECT user_id, COUNT(*) AS n FROM {s} WINDOW TUMBLING (SIZE 1 HOUR) GROUP BY user_id "
             "EMIT CHANGES LIMIT 2;", rows(["USER_ID", "N"], [["u1", 4], ["u2", 1]]),
             body={"properties": {"auto.offset.reset": "earliest", "cache.max.bytes.buffering": "10000000"}}),
    ]


def joins(p: str) -> list[Step]:
    """Stream-stream with WITHIN, stream-table, table-table and foreign-key joins."""
    o, sh, c, ac = f"{p}orders", f"{p}shipments", f"{p}customers", f"{p}accounts"
    return [
        Step(f"CREATE STREAM {o} (order_id INT KEY, customer_id INT, total DOUBLE) WITH (kafka_topic='{o}', "
             "value_format='JSON', partitions=1);", ok(CS)),
        Step(f"CREATE STREAM {sh} (order_id INT KEY, warehouse VARCHAR) WITH (kafka_topic='{sh}', "
             "value_format='JSON', partitions=1);", ok(CS)),
        Step(f"CREATE TABLE {c} (customer_id INT PRIMARY KEY, name VARCHAR, account_id INT) WITH "
             f"(kafka_topic='{c}', value_format='JSON', partitions=1);", ok(CS)),
        Step(f"CREATE TABLE {ac} (account_id INT PRIMARY KEY, tier VARCHAR) WITH (kafka_topic='{ac}', "
             "value_format='JSON', partitions=1);", ok(CS)),
        Step(f"INSERT INTO {c} (customer_id, name, account_id) VALUES (10, 'Ada', 100);\n"
             f"INSERT INTO {c} (customer_id, name, account_id) VALUES (11, 'Bo', 101);\n"
             f"INSERT INTO {ac} (account_id, tier) VALUES (100, 'gold');", ok()),
        Step(f"CREATE TABLE {p}cust_tier AS SELECT c.customer_id AS customer_id, c.name, a.tier\n"
             f"  FROM {c} c LEFT JOIN {ac} a ON c.account_id = a.account_id;", ok(CS), body=EARLIEST_K),
        Step(f"CREATE STREAM {p}enriched AS\n  SELECT c.customer_id AS customer_id, o.order_id, c.name AS customer, "
             "o.total\n"
             f"  FROM {o} o\n  INNER JOIN {c} c ON o.customer_id = c.customer_id\n  EMIT CHANGES;",
             ok(CS), body=EARLIEST_K),
        Step(f"CREATE STREAM {p}shipped AS\n  SELECT o.order_id AS order_id, o.total, s.warehouse\n"
             f"  FROM {o} o\n  INNER JOIN {sh} s WITHIN 1 HOUR ON o.order_id = s.order_id;",
             ok(CS), body=EARLIEST_K),
        Step(f"CREATE STREAM {p}late AS SELECT o.order_id AS order_id, s.warehouse FROM {o} AS o\n"
             f"  LEFT JOIN {sh} AS s WITHIN (1 MINUTE, 2 HOURS) GRACE PERIOD 10 MINUTES ON o.order_id = s.order_id;",
             ok(CS), body=EARLIEST_K),
        Step(f"INSERT INTO {o} (order_id, customer_id, total) VALUES (1, 10, 9.5);\n"
             f"INSERT INTO {o} (order_id, customer_id, total) VALUES (2, 11, 20.0);\n"
             f"INSERT INTO {sh} (order_id, warehouse) VALUES (1, 'north');", ok()),
        Step(f"SELECT * FROM {p}enriched;", rows(["CUSTOMER_ID", "ORDER_ID", "CUSTOMER", "TOTAL"],
                                                [[10, 1, "Ada", 9.5], [11, 2, "Bo", 20.0]]), wait=15),
        Step(f"SELECT * FROM {p}shipped;", rows(["ORDER_ID", "TOTAL", "WAREHOUSE"], [[1, 9.5, "north"]]), wait=15),
        Step(f"SELECT * FROM {p}cust_tier;", rows(["CUSTOMER_ID", "NAME", "TIER"],
                                                 [[10, "Ada", "gold"], [11, "Bo", None]]), wait=15),
        Step(f"SELECT * FROM {p}cust_tier WHERE customer_id = 10;",
             rows(["CUSTOMER_ID", "NAME", "TIER"], [[10, "Ada", "gold"]]), wait=10),
        # the table row and the stream rows that join it in one request, as a page's INSERT block does
        Step(f"CREATE STREAM {p}by_name AS SELECT c.customer_id AS customer_id, c.name, o.total FROM {o} o\n"
             f"  LEFT JOIN {c} c ON o.customer_id = c.customer_id;", ok(CS)),
        Step(f"INSERT INTO {c} (customer_id, name, account_id) VALUES (12, 'Cy', 100);\n"
             f"INSERT INTO {o} (order_id, customer_id, total) VALUES (3, 12, 1.0);\n"
             f"INSERT INTO {o} (order_id, customer_id, total) VALUES (4, 12, 2.0);", ok()),
        Step(f"SELECT * FROM {p}by_name;", rows(["CUSTOMER_ID", "NAME", "TOTAL"], [[12, "Cy", 1.0], [12, "Cy", 2.0]]),
             wait=15),
        Step(f"CREATE TABLE {p}fk AS SELECT c.customer_id, a.account_id AS account_id, a.tier, c.name FROM {c} c\n"
             f"  JOIN {ac} a ON c.account_id = a.account_id;", ok(CS), body=EARLIEST_K),
        Step(f"SELECT * FROM {o} o JOIN {c} c ON o.customer_id = c.customer_id;",
             refused(40001, "re:(?i)pull queries don't support JOIN")),
        Step(f"SELECT * FROM {o} RIGHT JOIN {c} ON {o}.customer_id = {c}.customer_id EMIT CHANGES;",
             refused(40001)),
    ]


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
        Step("SELECT 1 FROM x;", refused(40002, "re:should be issued to|query endpoint"), endpoint="/ksql",
             raw_body=None),
        Step("", refused(40000), endpoint="/ksql", raw_body='{"ksql": "SHOW STREAMS;", '),
        Step(f"DESCRIBE {s} EXTENDED;", ok("sourceDescription", check=_has([0, "sourceDescription", "extended"], True))),
        Step(f"DROP STREAM IF EXISTS {p}nothing;", ok(CS)),
        Step(f"DROP STREAM {p}nothing;", refused(40001, f"Stream {p.upper()}NOTHING does not exist.")),
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


def update_running_query(p: str) -> list[Step]:
    """How to update a running persistent query: CREATE OR REPLACE keeps the query id when the change
    is compatible (a filter, a column added at the end) and refuses one that changes the sink's schema."""
    pu, f, c = f"{p}purchases", f"{p}purchases_filtered", f"{p}purchase_count"
    qid = f"CSAS_{f.upper()}_"
    return [
        Step(f"CREATE STREAM {pu} (\n    product_id INT KEY,\n    name VARCHAR,\n    cost DOUBLE,\n    quantity INT\n"
             f") WITH (\n    kafka_topic = '{pu.lower()}',\n    format = 'json',\n    partitions = 1\n);", ok(CS)),
        Step(f"CREATE STREAM {f} AS\n  SELECT product_id, name, cost, quantity\n  FROM {pu}\n  WHERE quantity > 0;",
             ok(CS, check=_has([0, "commandStatus", "queryId"], lambda q: q.startswith(qid)))),
        Step(f"CREATE OR REPLACE STREAM {f} AS\n  SELECT product_id, name, cost, quantity\n  FROM {pu}\n"
             "  WHERE quantity > 0 AND cost > 1;",
             ok(CS, check=_has([0, "commandStatus", "queryId"], lambda q: q.startswith(qid)))),
        Step(f"CREATE OR REPLACE STREAM {f} AS\n  SELECT product_id, name, cost, quantity, cost * quantity AS total\n"
             f"  FROM {pu}\n  WHERE quantity > 0 AND cost > 1;", ok(CS)),
        Step(f"INSERT INTO {pu} (product_id, name, cost, quantity) VALUES (1, 'tea', 2.5, 2);\n"
             f"INSERT INTO {pu} (product_id, name, cost, quantity) VALUES (2, 'gum', 0.5, 4);", ok()),
        Step(f"SELECT * FROM {f} EMIT CHANGES LIMIT 1;",
             rows(["PRODUCT_ID", "NAME", "COST", "QUANTITY", "TOTAL"], [[1, "tea", 2.5, 2, 5.0]]), body=EARLIEST_Q),
        Step(f"CREATE OR REPLACE STREAM {f} AS SELECT product_id, name FROM {pu};",
             refused(40001, f"Cannot upgrade data source: DataSource '`{f.upper()}`' has schema = `PRODUCT_ID` "
                            "INTEGER KEY, `NAME` STRING, `COST` DOUBLE, `QUANTITY` INTEGER, `TOTAL` DOUBLE which is "
                            "not upgradeable to `PRODUCT_ID` INTEGER KEY, `NAME` STRING.")),
        Step(f"CREATE TABLE {c} AS SELECT product_id, COUNT(*) AS n FROM {pu} GROUP BY product_id;", ok(CS)),
        Step(f"CREATE OR REPLACE TABLE {c} AS SELECT product_id, SUM(quantity) AS n FROM {pu} GROUP BY product_id;",
             refused(40001, "re:Cannot upgrade data source: .*`N` BIGINT which is not upgradeable to .*`N` INTEGER")),
        Step("SHOW QUERIES;", ok("queries", check=_has([0, "queries"], lambda qs: sum(
            q["id"].startswith(qid) for q in qs) == 1))),
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
             ok(CS, check=_has([0, "statementText"], lambda t: f"kafka_topic='{p.lower()}vars'" in t))),
        Step(f"DESCRIBE {p}stream1 EXTENDED;", ok("sourceDescription", check=_has(
            [0, "sourceDescription", "topic"], f"{p.lower()}vars"))),
        Step("INSERT INTO ${s} (id) VALUES (${v});", ok(), body={"sessionVariables": {"s": f"{p}stream1", "v": 7}}),
        Step(f"SELECT id FROM {p}stream1 WHERE id = ${{v}} EMIT CHANGES LIMIT 1;", rows(["ID"], [[7]]),
             body={"properties": {"auto.offset.reset": "earliest"}, "sessionVariables": {"v": 7}}),
    ]


def custom_timestamp(p: str) -> list[Step]:
    """How to use a custom timestamp column: a string column with a format, a TIMESTAMP column, and a
    derived stream whose records carry the new event time."""
    s1, s2, s3 = f"{p}s1", f"{p}s2", f"{p}s3"
    return [
        Step(f"CREATE STREAM {s1} (\n    k VARCHAR KEY,\n    ts VARCHAR,\n    v INT\n) WITH (\n"
             f"    kafka_topic = '{s1.lower()}',\n    partitions = 1,\n    value_format = 'avro',\n"
             "    timestamp = 'ts',\n    timestamp_format = 'yyyy-MM-dd HH:mm:ss'\n);", ok(CS)),
        Step(f"INSERT INTO {s1} (k, ts, v) VALUES ('k1', '2020-05-04 01:00:00', 0);\n"
             f"INSERT INTO {s1} (k, ts, v) VALUES ('k2', '2020-05-04 02:00:00', 1);", ok()),
        Step(f"SELECT k,\n       ROWTIME,\n       TIMESTAMPTOSTRING(ROWTIME, 'yyyy-MM-dd HH:mm:ss') AS rowtime_formatted,\n"
             f"       ts,\n       v\nFROM {s1}\nEMIT CHANGES LIMIT 2;",
             rows(["K", "ROWTIME", "ROWTIME_FORMATTED", "TS", "V"],
                  [["k1", 1588554000000, "2020-05-04 01:00:00", "2020-05-04 01:00:00", 0],
                   ["k2", 1588557600000, "2020-05-04 02:00:00", "2020-05-04 02:00:00", 1]]), body=EARLIEST_Q),
        Step(f"CREATE STREAM {s2} WITH (timestamp = 'ts2', timestamp_format = 'yyyy-MM-dd HH:mm:ss') AS\n"
             "    SELECT k, v, FORMAT_TIMESTAMP(TIMESTAMPADD(HOURS, 1, PARSE_TIMESTAMP(ts, 'yyyy-MM-dd HH:mm:ss')), "
             f"'yyyy-MM-dd HH:mm:ss') AS ts2\n    FROM {s1}\n    EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(f"SELECT k, ROWTIME, ts2 FROM {s2} EMIT CHANGES LIMIT 1;",
             rows(["K", "ROWTIME", "TS2"], [["k1", 1588557600000, "2020-05-04 02:00:00"]]), body=EARLIEST_Q),
        Step(f"CREATE STREAM {s3} (k VARCHAR KEY, ts TIMESTAMP, v INT) WITH (kafka_topic = '{s3.lower()}', "
             "partitions = 1, value_format = 'json', timestamp = 'ts');", ok(CS)),
        Step(f"INSERT INTO {s3} (k, ts, v) VALUES ('k1', '2020-05-04T01:00:00', 0);", ok()),
        Step(f"SELECT k, ROWTIME, ts FROM {s3} EMIT CHANGES LIMIT 1;",
             rows(["K", "ROWTIME", "TS"], [["k1", 1588554000000, "2020-05-04T01:00:00.000"]]), body=EARLIEST_Q),
        Step(f"CREATE STREAM {p}bad (k VARCHAR KEY, ts INT) WITH (kafka_topic='{p.lower()}bad', partitions=1, "
             "value_format='json', timestamp='ts');",
             refused(40001, "re:Timestamp column, `TS`, should be LONG\\(INT64\\), TIMESTAMP, or a String with a "
                            "timestamp_format specified")),
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


def syntax_reference(p: str) -> list[Step]:
    """The syntax reference's statements not shown elsewhere: an n-way join, PARTITION BY, INSERT INTO ...
    SELECT, CREATE SOURCE TABLE, the aggregate-function page's aggregates, PAUSE / RESUME / TERMINATE,
    ALTER ... ADD COLUMN, ASSERT TOPIC and DROP ... DELETE TOPIC."""
    o, c, i = f"{p}orders", f"{p}customers", f"{p}items"
    return [
        Step(f"CREATE STREAM {o} (order_id INT KEY, customer_id INT, item_id INT, qty INT)\n"
             f"  WITH (kafka_topic='{o.lower()}', value_format='protobuf', partitions=1);\n"
             f"CREATE TABLE {c} (id INT PRIMARY KEY, name VARCHAR)\n"
             f"  WITH (kafka_topic='{c.lower()}', value_format='protobuf', partitions=1);\n"
             f"CREATE TABLE {i} (id INT PRIMARY KEY, descr VARCHAR, price DOUBLE)\n"
             f"  WITH (kafka_topic='{i.lower()}', format='json', partitions=1);", ok(CS, CS, CS)),
        Step(f"CREATE SOURCE TABLE {p}items_src (id INT PRIMARY KEY, descr VARCHAR)\n"
             f"  WITH (kafka_topic='{i.lower()}', format='json');", ok(CS)),
        Step(f"INSERT INTO {c} (id, name) VALUES (1, 'ann');\nINSERT INTO {i} (id, descr, price) VALUES (10, 'pen', 1.5);",
             ok()),
        Step(f"INSERT INTO {o} (order_id, customer_id, item_id, qty) VALUES (100, 1, 10, 3);\n"
             f"INSERT INTO {o} (order_id, customer_id, item_id, qty) VALUES (101, 1, 10, 5);", ok()),
        Step(f"CREATE STREAM {p}enriched AS\n  SELECT i.id AS item_id, o.order_id, c.name, i.descr, "
             f"o.qty * i.price AS total\n  FROM {o} o\n    LEFT JOIN {c} c ON o.customer_id = c.id\n"
             f"    LEFT JOIN {i} i ON o.item_id = i.id\n  EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(f"CREATE STREAM {p}enriched_bad AS SELECT o.order_id, c.name FROM {o} o\n"
             f"  LEFT JOIN {c} c ON o.customer_id = c.id\n  LEFT JOIN {i} i ON o.item_id = i.id;",
             refused(40001, "Key missing from projection (ie, SELECT). See https://cnfl.io/2LV7ouS.\nThe query used to "
                            f"build `{p.upper()}ENRICHED_BAD` must include the join expressions O.ITEM_ID or I.ID in "
                            "its projection (eg, SELECT O.ITEM_ID...).")),
        Step(f"CREATE STREAM {p}by_customer AS SELECT * FROM {o} PARTITION BY customer_id;", ok(CS),
             body=EARLIEST_K),
        Step(f"CREATE STREAM {p}all_orders (order_id INT KEY, customer_id INT, item_id INT, qty INT)\n"
             f"  WITH (kafka_topic='{p.lower()}all_orders', value_format='json', partitions=1);\n"
             f"INSERT INTO {p}all_orders SELECT * FROM {o};", ok(CS, CS), body=EARLIEST_K),
        Step(f"CREATE TABLE {p}item_stats AS SELECT item_id, TOPK(qty, 2) AS top2,\n"
             "  HISTOGRAM(CAST(qty AS VARCHAR)) AS h, COLLECT_SET(customer_id) AS custs,\n"
             "  EARLIEST_BY_OFFSET(qty) AS first_qty, MIN(qty) AS mn, MAX(qty) AS mx, AVG(qty) AS av,\n"
             f"  SUM(qty) AS total FROM {o} GROUP BY item_id;", ok(CS), body=EARLIEST_K),
        Step(f"SELECT * FROM {p}enriched;", rows(["ITEM_ID", "ORDER_ID", "NAME", "DESCR", "TOTAL"],
                                                [[10, 100, "ann", "pen", 4.5], [10, 101, "ann", "pen", 7.5]]),
             wait=15),
        Step(f"SELECT * FROM {p}by_customer;", rows(["CUSTOMER_ID", "ITEM_ID", "QTY", "ORDER_ID"],
                                                   [[1, 10, 3, 100], [1, 10, 5, 101]]), wait=15),
        Step(f"SELECT * FROM {p}all_orders;", rows(["ORDER_ID", "CUSTOMER_ID", "ITEM_ID", "QTY"],
                                                  [[100, 1, 10, 3], [101, 1, 10, 5]]), wait=15),
        Step(f"SELECT * FROM {p}item_stats WHERE item_id = 10;",
             rows(["ITEM_ID", "TOP2", "H", "CUSTS", "FIRST_QTY", "MN", "MX", "AV", "TOTAL"],
                  [[10, [5, 3], {"3": 1, "5": 1}, [1], 3, 3, 5, 4.0, 8]]), wait=15),
        Step(f"SELECT * FROM {p}items_src WHERE id = 10;", rows(["ID", "DESCR"], [[10, "pen"]]), wait=15),
        Step(f"ALTER STREAM {p}all_orders ADD COLUMN note VARCHAR, ADD COLUMN tags ARRAY<VARCHAR>;", ok(CS)),
        Step(f"DESCRIBE {p}all_orders;", ok("sourceDescription", check=_has(
            [0, "sourceDescription", "fields"], lambda fs: [f["name"] for f in fs][-2:] == ["NOTE", "TAGS"]))),
        Step(f"ALTER TABLE {p}item_stats ADD COLUMN x INT;",
             refused(40001, "ALTER command is not supported for CREATE ... AS statements.")),
        Step(f"ASSERT TOPIC '{o.lower()}' WITH (PARTITIONS=1) TIMEOUT 3 SECONDS;", ok("assert_topic")),
        Step(f"ASSERT NOT EXISTS TOPIC '{p.lower()}nothing';", ok("assert_topic")),
        Step(f"ASSERT TOPIC '{p.lower()}nothing' TIMEOUT 1 SECONDS;",
             refused(41700, f"Topic {p.lower()}nothing does not exist", status=417)),
        Step(f"DROP STREAM {p}by_customer;", ok(CS)),  # its own query goes with it
        Step(f"DROP STREAM {o};", refused(40001, f"Cannot drop {o.upper()}.\nThe following queries read "
                                                 "from this source: [")),
        Step("SHOW QUERIES;", ok("queries")),
    ]


def changelog_to_table(p: str) -> list[Step]:
    """How to convert a changelog to a table: LATEST_BY_OFFSET per key over an Avro stream, read back by
    pull query and by PRINT of the table's topic (Avro values the query wrote)."""
    s1, t1 = f"{p}s1", f"{p}t1"
    ins = "\n".join(f"INSERT INTO {s1} (k, v1, v2) VALUES ('{k}', {v1}, '{v2}');"
                    for k, v1, v2 in (("k1", 0, "a"), ("k2", 1, "b"), ("k1", 2, "c"), ("k3", 3, "d"), ("k2", 4, "e")))
    return [
        Step(f"CREATE STREAM {s1} (\n    k VARCHAR KEY,\n    v1 INT,\n    v2 VARCHAR\n) WITH (\n"
             f"    kafka_topic = '{s1.lower()}',\n    partitions = 1,\n    value_format = 'avro'\n);", ok(CS)),
        Step(f"SET 'auto.offset.reset' = 'earliest';\nCREATE TABLE {t1} AS\n    SELECT k,\n"
             "           LATEST_BY_OFFSET(v1) AS v1,\n           LATEST_BY_OFFSET(v2) AS v2\n"
             f"    FROM {s1}\n    GROUP BY k\n    EMIT CHANGES;", ok(CS)),
        Step(ins, ok()),
        Step(f"SELECT * FROM {t1} WHERE k = 'k2';", rows(["K", "V1", "V2"], [["k2", 4, "e"]]), wait=15),
        Step(f"SELECT * FROM {t1};", rows(["K", "V1", "V2"], [["k1", 2, "c"], ["k2", 4, "e"], ["k3", 3, "d"]]),
             wait=15),
        Step(f"PRINT '{t1.upper()}' FROM BEGINNING LIMIT 1;",
             Expect(text=["Key format: KAFKA_STRING", "Value format: AVRO", 're:key: k\\d, value: \\{"V1": \\d, '
                                                                            '"V2": "\\w"\\}, partition: 0']),
             endpoint="/query", http2_expect=refused(40500, "The /query endpoint is not available using HTTP2")),
    ]


def data_types(p: str) -> list[Step]:
    """The data types page: DATE, TIME, TIMESTAMP, BYTES and DECIMAL columns written from string and numeric
    literals, compared with string literals, cast between each other."""
    s = f"{p}types"
    return [
        Step(f"CREATE STREAM {s} (\n  d DATE,\n  t TIME,\n  ts TIMESTAMP,\n  b BYTES,\n  dec DECIMAL(5, 2),\n"
             f"  m MAP<STRING, ARRAY<INT>>\n) WITH (kafka_topic='{s.lower()}', value_format='json', partitions=1);",
             ok(CS)),
        Step(f"INSERT INTO {s} (d, t, ts, b, dec, m) VALUES ('2021-03-04', '10:11:12', '2021-03-04T10:11:12.345',\n"
             "  TO_BYTES('abc', 'utf8'), 12.34, MAP('a' := ARRAY[1, 2]));", ok()),
        Step(f"SELECT * FROM {s} EMIT CHANGES LIMIT 1;",
             rows(["D", "T", "TS", "B", "DEC", "M"],
                  [["2021-03-04", "10:11:12", "2021-03-04T10:11:12.345", "YWJj", 12.34, {"a": [1, 2]}]]),
             body=EARLIEST_Q),
        Step(f"SELECT d, ts FROM {s} WHERE ts > '2021-03-04T10:00:00' AND d = '2021-03-04' EMIT CHANGES LIMIT 1;",
             rows(["D", "TS"], [["2021-03-04", "2021-03-04T10:11:12.345"]]), body=EARLIEST_Q),
        Step("SELECT CAST('2021-03-04' AS DATE) AS d, CAST('10:11:12' AS TIME) AS t,\n"
             "       CAST('2021-03-04T10:11:12' AS TIMESTAMP) AS ts, CAST(ts AS DATE) AS td, CAST(ts AS TIME) AS tt,\n"
             "       CAST(ts AS VARCHAR) AS tv, CAST(d AS TIMESTAMP) AS dts, CAST(12.3456 AS DECIMAL(5,2)) AS dec,\n"
             "       UNIX_TIMESTAMP(ts) AS u, UNIX_DATE(d) AS ud, FROM_BYTES(b, 'utf8') AS bs,\n"
             f"       DATEADD(DAYS, 1, d) AS d1, dec * 2 AS dec2, m['a'][1] AS m1\nFROM {s} EMIT CHANGES LIMIT 1;",
             rows(["D", "T", "TS", "TD", "TT", "TV", "DTS", "DEC", "U", "UD", "BS", "D1", "DEC2", "M1"],
                  [["2021-03-04", "10:11:12", "2021-03-04T10:11:12.000", "2021-03-04", "10:11:12.345",
                    "2021-03-04T10:11:12.345", "2021-03-04T00:00:00.000", 12.35, 1614852672345, 18690, "abc",
                    "2021-03-05", 24.68, 1]]), body=EARLIEST_Q),
    ]


def lambda_functions(p: str) -> list[Step]:
    """The lambda functions how-to: TRANSFORM over a map (key and value lambdas), REDUCE over an array with an
    initial state, FILTER over a map, each in a CREATE STREAM AS SELECT whose unnamed column is KSQL_COL_0, and
    lambdas in a push query (nested, over an array of structs)."""
    s1, s2, s3 = f"{p}stream1", f"{p}stream2", f"{p}stream3"
    o1, o2, o3 = f"{p}output1", f"{p}output2", f"{p}output3"
    return [
        Step(f"CREATE STREAM {s1} (\n  id INT,\n  lambda_map MAP<STRING, INTEGER>\n) WITH (\n"
             f"  kafka_topic = '{s1.lower()}',\n  partitions = 1,\n  value_format = 'avro'\n);", ok(CS)),
        Step(f"CREATE STREAM {o1} AS\n  SELECT id,\n  TRANSFORM(lambda_map, (k, v) => UCASE(k), (k, v) => v + 5)\n"
             f"  FROM {s1}\n  EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(f"INSERT INTO {s1} (id, lambda_map) VALUES (3, MAP('hello' := 15, 'goodbye' := -5));", ok()),
        Step(f"SELECT * FROM {o1} EMIT CHANGES LIMIT 1;",
             rows(["ID", "KSQL_COL_0"], [[3, {"HELLO": 20, "GOODBYE": 0}]]), body=EARLIEST_Q),
        Step(f"CREATE STREAM {s2} (\n  id INT,\n  lambda_arr ARRAY<INTEGER>\n) WITH (\n"
             f"  kafka_topic = '{s2.lower()}',\n  partitions = 1,\n  value_format = 'avro'\n);", ok(CS)),
        Step(f"CREATE STREAM {o2} AS\n  SELECT id,\n  REDUCE(lambda_arr, 2, (s, x) => ceil(x/s))\n"
             f"  FROM {s2}\n  EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        # integer division as Java's: 2/2=1, 3/1=3, 4/3=1, 5/1=5; CEIL of an INT is that INT
        Step(f"INSERT INTO {s2} (id, lambda_arr) VALUES (1, ARRAY[2, 3, 4, 5]);", ok()),
        Step(f"SELECT * FROM {o2} EMIT CHANGES LIMIT 1;", rows(["ID", "KSQL_COL_0"], [[1, 5]]), body=EARLIEST_Q),
        Step(f"CREATE STREAM {s3} (\n  id INT,\n  lambda_map MAP<STRING, STRING>\n) WITH (\n"
             f"  kafka_topic = '{s3.lower()}',\n  partitions = 1,\n  value_format = 'avro'\n);", ok(CS)),
        Step(f"CREATE STREAM {o3} AS\n  SELECT id,\n"
             "  FILTER(lambda_map, (k, v) => instr(k, 'name') > 0 AND v != 'Ada')\n"
             f"  FROM {s3}\n  EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(f"INSERT INTO {s3} (id, lambda_map) VALUES (7, MAP('first name' := 'Ada', 'last name' := 'Byron',\n"
             "  'nickname' := 'Countess', 'title' := 'Lady'));", ok()),
        Step(f"SELECT * FROM {o3} EMIT CHANGES LIMIT 1;",
             rows(["ID", "KSQL_COL_0"], [[7, {"last name": "Byron", "nickname": "Countess"}]]), body=EARLIEST_Q),
        Step("SELECT id, TRANSFORM(lambda_arr, x => x * 10) AS tens,\n"
             "       FILTER(lambda_arr, x => x % 2 = 0) AS evens,\n"
             "       REDUCE(lambda_arr, 0, (acc, x) => acc + x) AS total,\n"
             "       TRANSFORM(ARRAY[lambda_arr, ARRAY[7]], a => REDUCE(a, 0, (acc, x) => acc + x)) AS sums,\n"
             "       TRANSFORM(MAP('a' := 1), (k, v) => CONCAT(k, '!'), (k, v) => v > 0) AS flags\n"
             f"FROM {s2} EMIT CHANGES LIMIT 1;",
             rows(["ID", "TENS", "EVENS", "TOTAL", "SUMS", "FLAGS"],
                  [[1, [20, 30, 40, 50], [2, 4], 14, [14, 7], {"a!": True}]]), body=EARLIEST_Q),
        Step(f"SELECT TRANSFORM(lambda_map, k => k) FROM {s1} EMIT CHANGES LIMIT 1;",
             refused(40001, "Function 'transform' does not accept parameters (MAP<STRING, INTEGER>, ")),
    ]


def table_and_aggregate_functions(p: str) -> list[Step]:
    """The table-function and aggregate-function pages: EXPLODE of several arrays in one SELECT (the shorter
    padded with NULL), CUBE_EXPLODE, and the collection aggregates
    (TOPK, TOPKDISTINCT, HISTOGRAM, COLLECT_SET/LIST, EARLIEST/LATEST_BY_OFFSET with n, COUNT_DISTINCT, AVG)
    read back by a pull query."""
    s, t = f"{p}events", f"{p}stats"
    ins = "\n".join(f"INSERT INTO {s} (k, n, tags) VALUES ('{k}', {n}, ARRAY[{tags}]);"
                    for k, n, tags in (("a", 3, "'x', 'y'"), ("a", 1, "'z'"), ("b", 5, "'w'"), ("a", 3, "'q'")))
    return [
        Step(f"CREATE STREAM {s} (k VARCHAR KEY, n INT, tags ARRAY<VARCHAR>)\n"
             f"  WITH (kafka_topic='{s.lower()}', value_format='JSON', partitions=1);", ok(CS)),
        Step(f"CREATE TABLE {t} AS\n  SELECT k,\n         TOPK(n, 2) AS top2,\n         TOPKDISTINCT(n, 2) AS topd,\n"
             "         HISTOGRAM(CAST(n AS VARCHAR)) AS hist,\n         COLLECT_SET(n) AS cs,\n"
             "         COLLECT_LIST(n) AS cl,\n         EARLIEST_BY_OFFSET(n, 2) AS e2,\n"
             "         LATEST_BY_OFFSET(n, 2) AS l2,\n         COUNT_DISTINCT(n) AS cd,\n         AVG(n) AS av\n"
             f"  FROM {s}\n  GROUP BY k\n  EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(ins, ok()),
        Step(f"SELECT k, EXPLODE(tags) AS tag, EXPLODE(ARRAY[n, n * 10]) AS m FROM {s} EMIT CHANGES LIMIT 8;",
             rows(["K", "TAG", "M"], [["a", "x", 3], ["a", "y", 30], ["a", "z", 1], ["a", None, 10],
                                      ["b", "w", 5], ["b", None, 50], ["a", "q", 3], ["a", None, 30]]),
             body=EARLIEST_Q),
        Step(f"SELECT k, CUBE_EXPLODE(ARRAY[k, CAST(n AS VARCHAR)]) AS combo FROM {s} WHERE n = 5 EMIT CHANGES LIMIT 4;",
             rows(["K", "COMBO"], [["b", [None, None]], ["b", [None, "5"]], ["b", ["b", None]], ["b", ["b", "5"]]]),
             body=EARLIEST_Q),
        Step(f"SELECT * FROM {t} WHERE k = 'a';",
             rows(["K", "TOP2", "TOPD", "HIST", "CS", "CL", "E2", "L2", "CD", "AV"],
                  [["a", [3, 3], [3, 1], {"3": 2, "1": 1}, [3, 1], [3, 1, 3], [3, 1], [1, 3], 2,
                    2.3333333333333335]]), wait=15),
        Step(f"SELECT EXPLODE(n) FROM {s} EMIT CHANGES;",
             refused(40001, "Function 'explode' does not accept parameters (INTEGER)")),
    ]


def serialization_formats(p: str) -> list[Step]:
    """The serialization formats page: DELIMITED with a VALUE_DELIMITER, WRAP_SINGLE_VALUE=false on a sink
    (PRINT shows the bare value), the single-field rules of WRAP_SINGLE_VALUE and the KAFKA format."""
    dl, one = f"{p}people", f"{p}names"
    return [
        Step(f"CREATE STREAM {dl} (id BIGINT, name STRING, age INT)\n"
             f"  WITH (KAFKA_TOPIC='{dl.lower()}', VALUE_FORMAT='DELIMITED', VALUE_DELIMITER='|', PARTITIONS=1);",
             ok(CS)),
        Step(f"INSERT INTO {dl} (id, name, age) VALUES (1, 'ann', 30);", ok()),
        Step(f"PRINT '{dl.lower()}' FROM BEGINNING LIMIT 1;",
             Expect(text=["Value format: KAFKA_BIGINT or KAFKA_DOUBLE or KAFKA_STRING", "re:value: 1\\|ann\\|30, partition: 0"]),
             endpoint="/query", http2_expect=refused(40500, "The /query endpoint is not available using HTTP2")),
        Step(f"CREATE STREAM {one} WITH (WRAP_SINGLE_VALUE=false, VALUE_FORMAT='JSON') AS\n"
             f"  SELECT name FROM {dl} EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(f"PRINT '{one.upper()}' FROM BEGINNING LIMIT 1;",
             Expect(text=['re:value: "ann", partition: 0']),
             endpoint="/query", http2_expect=refused(40500, "The /query endpoint is not available using HTTP2"), wait=10),
        Step(f"CREATE STREAM {p}two (a INT, b INT)\n"
             f"  WITH (KAFKA_TOPIC='{p.lower()}two', VALUE_FORMAT='JSON', PARTITIONS=1, WRAP_SINGLE_VALUE=false);",
             refused(40001, "'WRAP_SINGLE_VALUE' is only valid for single-field value schemas")),
        Step(f"CREATE STREAM {p}kaf (a INT, b INT)\n"
             f"  WITH (KAFKA_TOPIC='{p.lower()}kaf', VALUE_FORMAT='KAFKA', PARTITIONS=1);",
             refused(40001, "The 'KAFKA' format only supports a single field. Got: [`A` INTEGER, `B` INTEGER]")),
    ]


SCENARIOS: dict[str, Callable[[str], list[Step]]] = {
    "quickstart": quickstart, "with_spellings": with_spellings, "statements_text": statements_text,
    "nested_data": nested_data, "time_and_windows": time_and_windows, "joins": joins, "rest_pages": rest_pages,
    "cli_only": cli_only, "migrations_tool": migrations_tool, "function_pages": function_pages,
    "event_driven_tutorial": event_driven_tutorial, "update_running_query": update_running_query,
    "identifiers_and_variables": identifiers_and_variables, "custom_timestamp": custom_timestamp,
    "info_status_endpoints": info_status_endpoints, "syntax_reference": syntax_reference,
    "changelog_to_table": changelog_to_table, "data_types": data_types,
    "lambda_functions": lambda_functions, "table_and_aggregate_functions": table_and_aggregate_functions,
    "serialization_formats": serialization_formats,
}
