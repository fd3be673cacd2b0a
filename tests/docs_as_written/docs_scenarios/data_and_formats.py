"""Data types, nested data and serialization formats."""

from __future__ import annotations

from docs_runner import Expect, Step, ok, refused, rows

from ._common import CS, EARLIEST_K, EARLIEST_Q, _has


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


def structured_data(p: str) -> list[Step]:
    """How to query structured data: a struct nesting a struct and an array, an array of structs and a map of
    arrays, written by INSERT VALUES with the constructors; read by dereference chains, 1-based and negative
    subscripts (out of range and missing keys NULL, a NULL struct's fields NULL), filtered and grouped on a
    nested field, flattened into a new stream that builds a struct of its own."""
    s = f"{p}sd"
    q = {"properties": {"auto.offset.reset": "earliest"}}
    return [
        Step(f"CREATE STREAM {s} (\n    k VARCHAR KEY,\n    j STRUCT<\n        a VARCHAR,\n        b INT,\n"
             "        c STRUCT<d VARCHAR, e ARRAY<INT>>\n    >,\n    items ARRAY<STRUCT<name VARCHAR, qty INT>>,\n"
             f"    stock MAP<VARCHAR, ARRAY<INT>>\n) WITH (\n    kafka_topic = '{s.lower()}',\n    partitions = 1,\n"
             "    value_format = 'json'\n);", ok(CS)),
        Step(f"INSERT INTO {s} (k, j, items, stock) VALUES ('k1',\n"
             "    STRUCT(a := 'foo', b := 1, c := STRUCT(d := 'bar', e := ARRAY[10, 20])),\n"
             "    ARRAY[STRUCT(name := 'pen', qty := 2), STRUCT(name := 'ink', qty := 5)],\n"
             "    MAP('north' := ARRAY[1, 2], 'south' := ARRAY[3]));\n"
             f"INSERT INTO {s} (k, j, items, stock) VALUES ('k2', STRUCT(a := 'baz', b := 2, c := NULL), NULL,\n"
             "    MAP('north' := ARRAY[7]));", ok()),
        Step(f"DESCRIBE {s};", ok("sourceDescription", check=_has(
            [0, "sourceDescription", "fields", 1, "schema", "fields", 2, "schema", "fields", 1, "schema"],
            lambda e: e["type"] == "ARRAY" and e["memberSchema"]["type"] == "INTEGER"))),
        Step(f"SELECT k,\n       j->c->e[1] AS e1,\n       j->c->e[-1] AS elast,\n       j->c->e[3] AS e3,\n"
             "       items[1]->name AS first_item,\n       items[-1]->qty AS last_qty,\n"
             "       stock['north'][1] AS n1,\n       stock['west'] AS w,\n       ARRAY_LENGTH(items) AS n_items\n"
             f"FROM {s}\nEMIT CHANGES LIMIT 2;",
             rows(["K", "E1", "ELAST", "E3", "FIRST_ITEM", "LAST_QTY", "N1", "W", "N_ITEMS"],
                  [["k1", 10, 20, None, "pen", 5, 1, None, 2], ["k2", None, None, None, None, None, 7, None, None]]),
             body=q),
        Step(f"SELECT k, j->a AS a FROM {s} WHERE j->c->d = 'bar' EMIT CHANGES LIMIT 1;",
             rows(["K", "A"], [["k1", "foo"]]), body=q),
        Step(f"CREATE STREAM {p}flat AS\n    SELECT k,\n           j->a AS a,\n           j->c->d AS d,\n"
             "           STRUCT(name := j->a, total := j->b * 10) AS summary\n"
             f"    FROM {s}\n    WHERE j->b > 0\n    EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(f"CREATE TABLE {p}by_a AS\n    SELECT j->a AS a, COUNT(*) AS n, COLLECT_LIST(j->c->e[1]) AS firsts\n"
             f"    FROM {s}\n    GROUP BY j->a\n    EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(f"SELECT * FROM {p}flat EMIT CHANGES LIMIT 2;",
             rows(["K", "A", "D", "SUMMARY"], [["k1", "foo", "bar", {"NAME": "foo", "TOTAL": 10}],
                                               ["k2", "baz", None, {"NAME": "baz", "TOTAL": 20}]]), body=q),
        Step(f"SELECT * FROM {p}by_a WHERE a = 'foo';", rows(["A", "N", "FIRSTS"], [["foo", 1, [10]]]), wait=15),
        Step(f"SELECT j->nope FROM {s} EMIT CHANGES;",
             refused(40001, "Could not find field 'NOPE' in 'J'.")),
        Step(f"SELECT j['a'] FROM {s} EMIT CHANGES;",
             refused(40001, "Subscript expression (J['a']) do not apply to STRUCT<`A` STRING, `B` INTEGER, `C` "
                            "STRUCT<`D` STRING, `E` ARRAY<INTEGER>>>. Use the dereference operator for STRUCTS: J->'a'")),
        Step(f"SELECT items->name FROM {s} EMIT CHANGES;",
             refused(40001, "Expected STRUCT type, got: ARRAY<STRUCT<`NAME` STRING, `QTY` INTEGER>>")),
    ]


def header_columns(p: str) -> list[Step]:
    """The CREATE STREAM page's Kafka header columns (``HEADERS`` for all of a record's headers,
    ``HEADER('key')`` for one), read by queries and copied by a CSAS as value columns; EXPLAIN of a
    SELECT and of a running query; ASSERT SCHEMA by subject and by id."""
    s, one, sink = f"{p}clicks", f"{p}clicks_trace", f"{p}click_hdrs"
    header_type = {"type": "ARRAY", "fields": None, "memberSchema": {"type": "STRUCT", "fields": [
        {"name": "KEY", "schema": {"type": "STRING", "fields": None, "memberSchema": None}},
        {"name": "VALUE", "schema": {"type": "BYTES", "fields": None, "memberSchema": None}}], "memberSchema": None}}
    return [
        Step(f"CREATE STREAM {s} (\n  user_id INT KEY,\n  page VARCHAR,\n"
             f"  hdrs ARRAY<STRUCT<key STRING, value BYTES>> HEADERS\n"
             f") WITH (kafka_topic='{s.lower()}', value_format='JSON', partitions=1);", ok(CS)),
        Step(f"CREATE STREAM {one} (user_id INT KEY, page VARCHAR, trace BYTES HEADER('trace_id'))\n"
             f"  WITH (kafka_topic='{s.lower()}', value_format='JSON');", ok(CS)),
        Step(f"DESCRIBE {s};", ok("sourceDescription", check=_has([0, "sourceDescription", "fields", 2],
                                                                  {"name": "HDRS", "schema": header_type,
                                                                   "type": "HEADER"}))),
        # a record written without headers: the HEADERS column reads an empty list, a HEADER('k') column NULL
        Step(f"INSERT INTO {s} (user_id, page) VALUES (7, '/home');", ok()),
        Step(f"SELECT * FROM {s} EMIT CHANGES LIMIT 1;", rows(["USER_ID", "PAGE", "HDRS"], [[7, "/home", []]]),
             body=EARLIEST_Q),
        Step(f"SELECT user_id, trace FROM {one} EMIT CHANGES LIMIT 1;", rows(["USER_ID", "TRACE"], [[7, None]]),
             body=EARLIEST_Q),
        # header columns are read-only: INSERT VALUES naming one (or, without a column list, implying all) is refused
        Step(f"INSERT INTO {s} (user_id, page, hdrs) VALUES (8, '/x', ARRAY[]);",
             refused(40000, "Cannot insert into HEADER columns: HDRS")),
        Step(f"INSERT INTO {one} VALUES (8, '/x');", refused(40000, "Cannot insert into HEADER columns: TRACE")),
        # a CSAS copies a header column into its sink as an ordinary value column
        Step(f"CREATE STREAM {sink} AS SELECT user_id, page, hdrs AS copied FROM {s} EMIT CHANGES;", ok(CS),
             body=EARLIEST_K),
        Step(f"DESCRIBE {sink};", ok("sourceDescription", check=_has([0, "sourceDescription", "fields", 2],
                                                                     {"name": "COPIED", "schema": header_type}))),
        Step(f"SELECT * FROM {sink} EMIT CHANGES LIMIT 1;", rows(["USER_ID", "PAGE", "COPIED"], [[7, "/home", []]]),
             body=EARLIEST_Q),
        Step(f"EXPLAIN SELECT page FROM {s} WHERE user_id = 7 EMIT CHANGES;",
             ok("queryDescription", check=_has([0, "queryDescription", "sources"], [s.upper()]))),
        Step(f"EXPLAIN CSAS_{p.upper()}NOWHERE_1;",
             refused(40001, f"Query with id:CSAS_{p.upper()}NOWHERE_1 does not exist, use SHOW QUERIES")),
        Step("SHOW QUERIES;", ok("queries", check=lambda a: None if any(
            q["sinks"] == [sink.upper()] for q in a[0]["queries"]) else "no query writes the sink")),
        Step(f"DROP STREAM {sink} DELETE TOPIC;", ok(CS)),
        Step(f"DROP STREAM {one};", ok(CS)),
        Step(f"DROP STREAM {s} DELETE TOPIC;", ok(CS)),
        Step(f"ASSERT SCHEMA SUBJECT '{s.lower()}-value' TIMEOUT 1 SECONDS;",
             refused(41700, f"Schema with subject name {s.lower()}-value does not exist")),
        Step(f"ASSERT NOT EXISTS SCHEMA SUBJECT '{s.lower()}-value';",
             ok("assert_schema", check=_has([0, "exists"], False))),
        Step("ASSERT NOT EXISTS SCHEMA ID 4242;", ok("assert_schema", check=_has([0, "id"], 4242))),
    ]
