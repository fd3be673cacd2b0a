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
