"""The developer guide's task pages: create a stream, create a table, transform a stream, aggregate
streaming data, query with arrays and maps; and the joins page's synthetic key columns."""

from __future__ import annotations

from typing import Any

from docs_runner import Expect, Step, ok, refused, rows

from ._common import CS, EARLIEST_K, EARLIEST_Q, _has


def _fields(*want: tuple[str, str, str | None]) -> Any:
    """DESCRIBE's fields as (name, type, KEY or None)."""
    def check(sd: Any) -> bool:
        return [(f["name"], f["schema"]["type"], f.get("type")) for f in sd["fields"]] == list(want)
    return _has([0, "sourceDescription"], check)


def create_stream_and_table(p: str) -> list[Step]:
    """The create-a-stream and create-a-table pages: a DELIMITED stream over a topic that does not exist yet
    (refused until PARTITIONS is given), one with a KEY column and an event-time column, a filtered stream
    and table written by persistent queries, the listings and descriptions, and a table without a PRIMARY
    KEY refused."""
    pv, us = f"{p}pageviews", f"{p}users"
    ins = "\n".join(f"INSERT INTO {pv} (viewtime, userid, pageid) VALUES ({t}, '{u}', '{pg}');"
                    for t, u, pg in ((1, "User_1", "Page_10"), (2, "User_2", "Page_25"), (3, "User_1", "Page_19")))
    return [
        Step(f"CREATE STREAM {pv} (viewtime BIGINT, userid VARCHAR, pageid VARCHAR)\n"
             f"  WITH (KAFKA_TOPIC='{pv.lower()}', VALUE_FORMAT='DELIMITED');",
             # the fix shown is the statement itself with PARTITIONS=2 (and the default key format) added
             refused(40001, f"Topic '{pv.lower()}' does not exist. If you want to create a new topic for the "
                            "stream/table please re-run the statement providing the required 'PARTITIONS' "
                            "configuration in the WITH clause (and optionally 'REPLICAS'). For example: "
                            f"CREATE STREAM {pv.upper()} (VIEWTIME BIGINT, USERID STRING, PAGEID STRING) WITH "
                            f"(KAFKA_TOPIC='{pv.lower()}', KEY_FORMAT='KAFKA', PARTITIONS=2, "
                            "VALUE_FORMAT='DELIMITED');")),
        Step(f"CREATE STREAM {pv} (viewtime BIGINT, userid VARCHAR, pageid VARCHAR)\n"
             f"  WITH (KAFKA_TOPIC='{pv.lower()}', VALUE_FORMAT='DELIMITED', PARTITIONS=1);", ok(CS)),
        Step(f"DESCRIBE {pv};", ok("sourceDescription", check=_fields(
            ("VIEWTIME", "BIGINT", None), ("USERID", "STRING", None), ("PAGEID", "STRING", None)))),
        Step("SHOW STREAMS;", ok("streams", check=_has([0, "streams"], lambda ss: any(
            s["name"] == pv.upper() and s["topic"] == pv.lower() and s["keyFormat"] == "KAFKA"
            and s["valueFormat"] == "DELIMITED" and s["isWindowed"] is False and s["type"] == "STREAM" for s in ss)))),
        Step(ins, ok()),
        Step(f"CREATE STREAM {p}pageviews_intro AS\n  SELECT * FROM {pv}\n  WHERE pageid < 'Page_20'\n  EMIT CHANGES;",
             ok(CS), body=EARLIEST_K),
        Step(f"SELECT * FROM {p}pageviews_intro EMIT CHANGES LIMIT 2;",
             rows(["VIEWTIME", "USERID", "PAGEID"], [[1, "User_1", "Page_10"], [3, "User_1", "Page_19"]]),
             body=EARLIEST_Q),
        Step("SHOW QUERIES;", ok("queries", check=_has([0, "queries"], lambda qs: any(
            q["sinks"] == [f"{p.upper()}PAGEVIEWS_INTRO"] and q["id"].startswith(f"CSAS_{p.upper()}PAGEVIEWS_INTRO_")
            and q["state"] == "RUNNING" and q["queryType"] == "PERSISTENT" for q in qs)))),
        Step(f"CREATE STREAM {p}pageviews_withkey (viewtime BIGINT, userid VARCHAR, pageid VARCHAR KEY)\n"
             f"  WITH (KAFKA_TOPIC='{p.lower()}pageviews_withkey', VALUE_FORMAT='DELIMITED', PARTITIONS=1,\n"
             "        TIMESTAMP='viewtime');", ok(CS)),
        Step(f"DESCRIBE {p}pageviews_withkey EXTENDED;", ok("sourceDescription", check=_has(
            [0, "sourceDescription"], lambda sd: sd["timestamp"] == "VIEWTIME" and sd["keyFormat"] == "KAFKA"
            and sorted((f["name"], f.get("type", "")) for f in sd["fields"]) ==
            [("PAGEID", "KEY"), ("USERID", ""), ("VIEWTIME", "")]))),
        Step(f"DROP STREAM IF EXISTS {p}pageviews_intro DELETE TOPIC;", ok(CS)),
        Step("SHOW QUERIES;", ok("queries", check=_has([0, "queries"], lambda qs: not any(
            q["sinks"] == [f"{p.upper()}PAGEVIEWS_INTRO"] for q in qs)))),
        # a table needs its PRIMARY KEY
        Step(f"CREATE TABLE {us} (registertime BIGINT, gender VARCHAR, regionid VARCHAR, userid VARCHAR)\n"
             f"  WITH (KAFKA_TOPIC='{us.lower()}', VALUE_FORMAT='JSON', PARTITIONS=1);",
             refused(40001, "Tables require a PRIMARY KEY. Please define the PRIMARY KEY.")),
        Step(f"CREATE TABLE {us} (registertime BIGINT, gender VARCHAR, regionid VARCHAR, userid VARCHAR PRIMARY KEY)\n"
             f"  WITH (KAFKA_TOPIC='{us.lower()}', VALUE_FORMAT='JSON', PARTITIONS=1);", ok(CS)),
        Step("SHOW TABLES;", ok("tables", check=_has([0, "tables"], lambda ts: any(
            t["name"] == us.upper() and t["valueFormat"] == "JSON" and t["type"] == "TABLE" for t in ts)))),
        Step(f"INSERT INTO {us} (registertime, gender, regionid, userid) VALUES (10, 'FEMALE', 'Region_1', 'User_1');\n"
             f"INSERT INTO {us} (registertime, gender, regionid, userid) VALUES (11, 'MALE', 'Region_2', 'User_2');\n"
             f"INSERT INTO {us} (registertime, gender, regionid, userid) VALUES (12, 'FEMALE', 'Region_2', 'User_3');",
             ok()),
        Step(f"CREATE TABLE {p}users_female AS\n  SELECT userid, gender, regionid FROM {us}\n"
             "  WHERE gender='FEMALE'\n  EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(f"SELECT * FROM {p}users_female;", rows(["USERID", "GENDER", "REGIONID"],
                                                     [["User_1", "FEMALE", "Region_1"], ["User_3", "FEMALE", "Region_2"]]),
             wait=15),
        Step(f"SELECT regionid FROM {p}users_female WHERE userid = 'User_3';", rows(["REGIONID"], [["Region_2"]]),
             wait=10),
        # a pull query over a table the server materialized only as a source is refused until it is a SOURCE table
        Step(f"SELECT * FROM {us} WHERE userid = 'User_1';",
             refused(40001, f"re:The `{us.upper()}` table isn't queryable")),
        Step(f"DROP TABLE {p}users_female;", ok(CS)),
    ]


def transform_a_stream(p: str) -> list[Step]:
    """The transform-a-stream page: a derived stream with a new event time, partition count and value
    format, re-keyed with PARTITION BY and a formatted time column; converting DELIMITED to JSON and AVRO;
    a stream written by INSERT INTO ... SELECT from two sources."""
    pv = f"{p}pageviews"
    ins = "\n".join(f"INSERT INTO {pv} (viewtime, userid, pageid) VALUES ({t}, '{u}', '{pg}');"
                    for t, u, pg in ((1_600_000_000_000, "User_1", "Page_1"), (1_600_000_001_500, "User_2", "Page_2")))
    return [
        Step(f"CREATE STREAM {pv} (viewtime BIGINT, userid VARCHAR, pageid VARCHAR)\n"
             f"  WITH (KAFKA_TOPIC='{pv.lower()}', VALUE_FORMAT='DELIMITED', PARTITIONS=1);", ok(CS)),
        Step(ins, ok()),
        Step(f"CREATE STREAM {p}pageviews_transformed\n"
             "  WITH (TIMESTAMP='viewtime',\n        PARTITIONS=5,\n        VALUE_FORMAT='JSON') AS\n"
             "  SELECT viewtime,\n         userid,\n         pageid,\n"
             "         TIMESTAMPTOSTRING(viewtime, 'yyyy-MM-dd HH:mm:ss.SSS', 'UTC') AS timestring\n"
             f"  FROM {pv}\n  PARTITION BY userid\n  EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(f"DESCRIBE {p}pageviews_transformed EXTENDED;", ok("sourceDescription", check=_has(
            [0, "sourceDescription"], lambda sd: sd["partitions"] == 5 and sd["timestamp"] == "VIEWTIME"
            and sd["valueFormat"] == "JSON" and sd["keyFormat"] == "KAFKA"
            and [(f["name"], f.get("type")) for f in sd["fields"]] ==
            [("USERID", "KEY"), ("VIEWTIME", None), ("PAGEID", None), ("TIMESTRING", None)]))),
        Step(f"SELECT ROWTIME, userid, timestring FROM {p}pageviews_transformed EMIT CHANGES LIMIT 2;",
             rows(["ROWTIME", "USERID", "TIMESTRING"],
                  [[1_600_000_000_000, "User_1", "2020-09-13 12:26:40.000"],
                   [1_600_000_001_500, "User_2", "2020-09-13 12:26:41.500"]]), body=EARLIEST_Q),
        Step(f"CREATE STREAM {p}pageviews_json WITH (VALUE_FORMAT='JSON') AS SELECT * FROM {pv};\n"
             f"CREATE STREAM {p}pageviews_avro WITH (VALUE_FORMAT='AVRO') AS SELECT * FROM {pv};",
             ok(CS, CS), body=EARLIEST_K),
        Step(f"PRINT '{p.upper()}PAGEVIEWS_JSON' FROM BEGINNING LIMIT 1;",
             Expect(text=["Value format: JSON", '"VIEWTIME":1600000000000,"USERID":"User_1","PAGEID":"Page_1"']),
             endpoint="/query", http2_expect=refused(40500, "The /query endpoint is not available using HTTP2")),
        Step(f"SELECT * FROM {p}pageviews_avro EMIT CHANGES LIMIT 1;",
             rows(["VIEWTIME", "USERID", "PAGEID"], [[1_600_000_000_000, "User_1", "Page_1"]]), body=EARLIEST_Q),
        # merge two streams into one: the sink is created by the first query, the second inserts into it
        Step(f"CREATE STREAM {p}other (viewtime BIGINT, userid VARCHAR, pageid VARCHAR)\n"
             f"  WITH (KAFKA_TOPIC='{p.lower()}other', VALUE_FORMAT='JSON', PARTITIONS=1);\n"
             f"CREATE STREAM {p}all_views AS SELECT * FROM {p}pageviews_json;\n"
             f"INSERT INTO {p}all_views SELECT * FROM {p}other;", ok(CS, CS, CS), body=EARLIEST_K),
        Step(f"INSERT INTO {p}other (viewtime, userid, pageid) VALUES (5, 'User_9', 'Page_9');", ok()),
        Step(f"SELECT userid FROM {p}all_views EMIT CHANGES LIMIT 3;",
             rows(["USERID"], [["User_1"], ["User_2"], ["User_9"]]), body=EARLIEST_Q),
        Step(f"INSERT INTO {p}all_views SELECT viewtime, userid FROM {p}other;",
             refused(40001, "re:Incompatible schema between results and sink")),
    ]


def aggregate_streaming_data(p: str) -> list[Step]:
    """The aggregate-streaming-data page: a count per region with no alias (KSQL_COL_0), tumbling windows
    with HAVING, hopping and session windows, windowed results read by pull query with the window bounds
    formatted, and an aggregate grouped by several columns."""
    pv = f"{p}pageviews"
    base = 1_600_000_000_000
    ins = "\n".join(f"INSERT INTO {pv} (viewtime, userid, regionid) VALUES ({base + off}, '{u}', '{r}');"
                    for off, u, r in ((0, "User_1", "Region_1"), (5_000, "User_2", "Region_1"),
                                      (40_000, "User_1", "Region_2"), (400_000, "User_1", "Region_1")))
    return [
        Step(f"CREATE STREAM {pv} (viewtime BIGINT, userid VARCHAR, regionid VARCHAR)\n"
             f"  WITH (KAFKA_TOPIC='{pv.lower()}', VALUE_FORMAT='JSON', PARTITIONS=1, TIMESTAMP='viewtime');", ok(CS)),
        Step(f"CREATE TABLE {p}per_region AS\n  SELECT regionid,\n         COUNT(*)\n  FROM {pv}\n"
             "  GROUP BY regionid\n  EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(f"CREATE TABLE {p}per_region_5m AS\n  SELECT regionid,\n         COUNT(*) AS numusers\n  FROM {pv}\n"
             "  WINDOW TUMBLING (SIZE 5 MINUTES)\n  GROUP BY regionid\n  HAVING COUNT(*) > 1\n  EMIT CHANGES;",
             ok(CS), body=EARLIEST_K),
        Step(f"CREATE TABLE {p}per_region_hop AS\n  SELECT regionid,\n         COUNT(*) AS numusers\n  FROM {pv}\n"
             "  WINDOW HOPPING (SIZE 30 SECONDS, ADVANCE BY 10 SECONDS)\n  GROUP BY regionid\n  EMIT CHANGES;",
             ok(CS), body=EARLIEST_K),
        Step(f"CREATE TABLE {p}per_user_session AS\n  SELECT userid,\n         COUNT(*) AS views\n  FROM {pv}\n"
             "  WINDOW SESSION (60 SECONDS)\n  GROUP BY userid\n  EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        # several key columns need a key format that holds several (KAFKA holds one)
        Step(f"CREATE TABLE {p}per_user_region AS\n  SELECT userid, regionid, COUNT(*) AS total\n  FROM {pv}\n"
             "  GROUP BY userid, regionid\n  EMIT CHANGES;",
             refused(40001, "re:^Key format does not support schema.\nformat: KAFKA\nschema: Persistence\\{columns="
                            "\\[`USERID` STRING KEY, `REGIONID` STRING KEY\\], features=\\[\\]\\}\nreason: The 'KAFKA' "
                            "format only supports a single field.")),
        Step(f"CREATE TABLE {p}per_user_region WITH (KEY_FORMAT='JSON') AS\n"
             f"  SELECT userid, regionid, COUNT(*) AS total\n  FROM {pv}\n"
             "  GROUP BY userid, regionid\n  EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(ins, ok()),
        Step(f"SELECT * FROM {p}per_region;", rows(["REGIONID", "KSQL_COL_0"], [["Region_1", 3], ["Region_2", 1]]),
             wait=15),
        Step(f"SELECT regionid, numusers,\n"
             f"       TIMESTAMPTOSTRING(WINDOWSTART, 'yyyy-MM-dd HH:mm:ss', 'UTC') AS window_start,\n"
             f"       TIMESTAMPTOSTRING(WINDOWEND, 'yyyy-MM-dd HH:mm:ss', 'UTC') AS window_end\n"
             f"FROM {p}per_region_5m WHERE regionid = 'Region_1';",
             rows(["REGIONID", "NUMUSERS", "WINDOW_START", "WINDOW_END"],
                  [["Region_1", 2, "2020-09-13 12:25:00", "2020-09-13 12:30:00"]]), wait=15),
        Step(f"SELECT regionid, WINDOWSTART, numusers FROM {p}per_region_hop WHERE regionid = 'Region_1'\n"
             f"  AND WINDOWSTART <= {base};",
             rows(["REGIONID", "WINDOWSTART", "NUMUSERS"],
                  [["Region_1", base - 20_000, 2], ["Region_1", base - 10_000, 2], ["Region_1", base, 2]]), wait=15),
        Step(f"SELECT userid, WINDOWSTART, WINDOWEND, views FROM {p}per_user_session WHERE userid = 'User_1';",
             rows(["USERID", "WINDOWSTART", "WINDOWEND", "VIEWS"],
                  [["User_1", base, base + 40_000, 2], ["User_1", base + 400_000, base + 400_000, 1]]), wait=15),
        Step(f"SELECT * FROM {p}per_user_region WHERE userid = 'User_1' AND regionid = 'Region_1';",
             rows(["USERID", "REGIONID", "TOTAL"], [["User_1", "Region_1", 2]]), wait=15),
        Step(f"DESCRIBE {p}per_user_region EXTENDED;", ok("sourceDescription", check=_has(
            [0, "sourceDescription"], lambda sd: sd["keyFormat"] == "JSON"
            and [(f["name"], f.get("type")) for f in sd["fields"]] ==
            [("USERID", "KEY"), ("REGIONID", "KEY"), ("TOTAL", None)]))),
        Step(f"SELECT regionid, COUNT(*) AS n FROM {pv} GROUP BY regionid EMIT CHANGES LIMIT 2;",
             Expect(check=lambda a: None if a["columns"] == ["REGIONID", "N"] and len(a["rows"]) == 2 else str(a)),
             body=EARLIEST_Q),
    ]


def arrays_and_maps(p: str) -> list[Step]:
    """The query-with-arrays-and-maps page: a table with an ARRAY and a MAP column, elements by 1-based and
    negative index, map values by key, their sizes, and the missing ones as NULL."""
    us = f"{p}users"
    return [
        Step(f"CREATE TABLE {us}\n  (registertime BIGINT,\n   gender VARCHAR,\n   regionid VARCHAR,\n"
             "   userid VARCHAR PRIMARY KEY,\n   interests ARRAY<VARCHAR>,\n   contactinfo MAP<VARCHAR, VARCHAR>)\n"
             f"  WITH (KAFKA_TOPIC='{us.lower()}',\n        VALUE_FORMAT='JSON',\n        PARTITIONS=1);", ok(CS)),
        Step(f"INSERT INTO {us} (registertime, gender, regionid, userid, interests, contactinfo) VALUES\n"
             "  (1, 'FEMALE', 'Region_1', 'User_1', ARRAY['News', 'Movies', 'Travel'],\n"
             "   MAP('zipcode' := '94041', 'city' := 'Mountain View', 'state' := 'CA'));", ok()),
        Step(f"SELECT interests[1] AS first_interest,\n       interests[-1] AS last_interest,\n"
             "       interests[5] AS no_interest,\n       ARRAY_LENGTH(interests) AS n_interests,\n"
             "       contactinfo['zipcode'] AS zipcode,\n       contactinfo['city'] AS city,\n"
             "       contactinfo['country'] AS country,\n       userid,\n       gender,\n       regionid\n"
             f"FROM {us}\nEMIT CHANGES\nLIMIT 1;",
             rows(["FIRST_INTEREST", "LAST_INTEREST", "NO_INTEREST", "N_INTERESTS", "ZIPCODE", "CITY", "COUNTRY",
                   "USERID", "GENDER", "REGIONID"],
                  [["News", "Travel", None, 3, "94041", "Mountain View", None, "User_1", "FEMALE", "Region_1"]]),
             body=EARLIEST_Q),
        Step(f"SELECT userid, interests[0] AS zeroth FROM {us} EMIT CHANGES LIMIT 1;",
             rows(["USERID", "ZEROTH"], [["User_1", None]]), body=EARLIEST_Q),
    ]


def outer_join_synthetic_key(p: str) -> list[Step]:
    """The joins page's synthetic key columns: a FULL OUTER join's key is neither side's column, so the result
    names it ROWKEY (the projection must include it); a join on expressions over both sides the same."""
    le, ri = f"{p}l", f"{p}r"
    return [
        Step(f"CREATE TABLE {le} (id INT PRIMARY KEY, lv VARCHAR) WITH (kafka_topic='{le.lower()}', value_format='JSON', "
             f"partitions=1);\nCREATE TABLE {ri} (id INT PRIMARY KEY, rv VARCHAR) WITH (kafka_topic='{ri.lower()}', "
             "value_format='JSON', partitions=1);", ok(CS, CS)),
        Step(f"CREATE TABLE {p}joined AS\n  SELECT ROWKEY AS id, L.lv, R.rv\n  FROM {le} L\n"
             f"  FULL OUTER JOIN {ri} R ON L.id = R.id;", ok(CS), body=EARLIEST_K),
        Step(f"CREATE TABLE {p}nokey AS\n  SELECT L.lv, R.rv\n  FROM {le} L\n  FULL OUTER JOIN {ri} R ON L.id = R.id;",
             refused(40001, f"re:The query used to build `{p.upper()}NOKEY` must include the join expression ROWKEY "
                            "in its projection")),
        Step(f"INSERT INTO {le} (id, lv) VALUES (1, 'a');\nINSERT INTO {ri} (id, rv) VALUES (2, 'b');\n"
             f"INSERT INTO {ri} (id, rv) VALUES (1, 'c');", ok()),
        Step(f"SELECT * FROM {p}joined;", rows(["ID", "LV", "RV"], [[1, "a", "c"], [2, None, "b"]]), wait=15),
        Step(f"DESCRIBE {p}joined;", ok("sourceDescription", check=_fields(
            ("ID", "INTEGER", "KEY"), ("LV", "STRING", None), ("RV", "STRING", None)))),
    ]


def scalar_function_families(p: str) -> list[Step]:
    """The scalar-function page's other families, each call as its section shows one: numeric, conditional,
    JSON, URL, array and map, string and bytes - on a row of our own, with the results the page gives."""
    s = f"{p}one"
    q = f"FROM {s} EMIT CHANGES LIMIT 1;"

    def call(select: str, columns: list[str], values: list[Any]) -> Step:
        return Step(f"SELECT {select}\n{q}", rows(columns, [values]), body=EARLIEST_Q)

    return [
        Step(f"CREATE STREAM {s} (id INT KEY, n INT, x DOUBLE, t VARCHAR) WITH (kafka_topic='{s.lower()}', "
             "value_format='JSON', partitions=1);", ok(CS)),
        Step(f"INSERT INTO {s} (id, n, x, t) VALUES (1, -7, 16.0, NULL);", ok()),
        call("ABS(n) AS a, SIGN(n) AS sg, SQRT(x) AS sq, POWER(2, 10) AS pw, EXP(0) AS ex, LN(1) AS l,\n"
             "       GREATEST(3, 9, n) AS gr, LEAST(3, 9, n) AS le, CEIL(x / 5) AS ce, FLOOR(x / 5) AS fl",
             ["A", "SG", "SQ", "PW", "EX", "L", "GR", "LE", "CE", "FL"],
             [7, -1, 4.0, 1024.0, 1.0, 0.0, 9, -7, 4.0, 3.0]),
        call("GENERATE_SERIES(1, 5) AS s1, GENERATE_SERIES(1, 10, 3) AS s2, GENERATE_SERIES(5, 1, -2) AS s3",
             ["S1", "S2", "S3"], [[1, 2, 3, 4, 5], [1, 4, 7, 10], [5, 3, 1]]),
        call("COALESCE(t, 'fallback') AS c, IFNULL(t, 'none') AS i, NULLIF(n, -7) AS n1, NULLIF(n, 0) AS n2,\n"
             "       CASE WHEN n < 0 THEN 'negative' WHEN n = 0 THEN 'zero' ELSE 'positive' END AS sgn",
             ["C", "I", "N1", "N2", "SGN"], ["fallback", "none", None, -7, "negative"]),
        call("IS_JSON_STRING('[1, 2, 3]') AS j1, IS_JSON_STRING('abc') AS j2,\n"
             "       JSON_ARRAY_LENGTH('[1, [1, [2]], 3]') AS jl, JSON_ARRAY_LENGTH('{}') AS jl2,\n"
             "       JSON_KEYS('{\"a\": \"abc\", \"b\": { \"c\": \"a\" }, \"d\": 1}') AS jk,\n"
             "       JSON_ARRAY_CONTAINS('[1, 2, 3]', 3) AS jc,\n"
             "       EXTRACTJSONFIELD('{\"a\": {\"b\": \"x\"}}', '$.a.b') AS ex",
             ["J1", "J2", "JL", "JL2", "JK", "JC", "EX"], [True, False, 3, None, ["a", "b", "d"], True, "x"]),
        call("JSON_RECORDS('{\"a\": \"abc\", \"b\": { \"c\": \"a\" }, \"d\": 1}') AS jr,\n"
             "       JSON_CONCAT('{\"a\": 1}', '{\"b\": 2}') AS o, JSON_CONCAT('[1, 2]', '[3, 4]') AS a,\n"
             "       TO_JSON_STRING(ARRAY[1, 2]) AS t1, TO_JSON_STRING(STRUCT(id := 1, name := 'a')) AS t2,\n"
             "       TO_JSON_STRING(MAP('k' := 1.5)) AS t3",
             ["JR", "O", "A", "T1", "T2", "T3"],
             # a string value is its text (ksqlDB's JsonRecords: a TextNode's textValue), others their JSON
             [{"a": "abc", "b": "{\"c\":\"a\"}", "d": "1"}, "{\"a\":1,\"b\":2}", "[1,2,3,4]", "[1,2]",
              "{\"ID\":1,\"NAME\":\"a\"}", "{\"k\":1.5}"]),
        call("URL_EXTRACT_HOST('http://test.com:8080/path?query=1#frag') AS h,\n"
             "       URL_EXTRACT_PORT('http://test.com:8080/path?query=1#frag') AS po,\n"
             "       URL_EXTRACT_PATH('http://test.com:8080/path?query=1#frag') AS pa,\n"
             "       URL_EXTRACT_QUERY('http://test.com:8080/path?query=1#frag') AS q,\n"
             "       URL_EXTRACT_FRAGMENT('http://test.com:8080/path?query=1#frag') AS f,\n"
             "       URL_EXTRACT_PROTOCOL('http://test.com:8080/path?query=1#frag') AS pr,\n"
             "       URL_EXTRACT_PARAMETER('http://test.com?a=b&c=d', 'c') AS pm,\n"
             "       URL_ENCODE_PARAM('a b&c') AS en, URL_DECODE_PARAM('a%20b') AS de",
             ["H", "PO", "PA", "Q", "F", "PR", "PM", "EN", "DE"],
             ["test.com", 8080, "/path", "query=1", "frag", "http", "d", "a+b%26c", "a b"]),
        call("ARRAY_CONCAT(ARRAY[1, 2], ARRAY[3]) AS ac, ARRAY_DISTINCT(ARRAY[1, 1, 2, 3, 1, 2]) AS ad,\n"
             "       ARRAY_EXCEPT(ARRAY[1, 2, 3, 1], ARRAY[2]) AS ae, ARRAY_INTERSECT(ARRAY[1, 2, 3, 1], ARRAY[1, 3, 4]) AS ai,\n"
             "       ARRAY_UNION(ARRAY[1, 2, 1], ARRAY[2, 3]) AS au, ARRAY_JOIN(ARRAY[1, 2, 3], '|') AS aj,\n"
             "       ARRAY_JOIN(ARRAY['a', 'b']) AS aj2, ARRAY_MAX(ARRAY[1, 4, 2]) AS amx, ARRAY_MIN(ARRAY[1, 4, 2]) AS amn,\n"
             "       ARRAY_REMOVE(ARRAY[1, 2, 1, 3], 1) AS ar, ARRAY_SORT(ARRAY[3, 1, 2]) AS asc1,\n"
             "       ARRAY_SORT(ARRAY['b', 'c', 'a'], 'DESC') AS desc1, ARRAY_CONTAINS(ARRAY[1, 2], 2) AS has,\n"
             "       SLICE(ARRAY[1, 2, 3, 4], 2, 3) AS sl, ARRAY_LENGTH(ARRAY[1, 2]) AS len",
             ["AC", "AD", "AE", "AI", "AU", "AJ", "AJ2", "AMX", "AMN", "AR", "ASC1", "DESC1", "HAS", "SL", "LEN"],
             [[1, 2, 3], [1, 2, 3], [1, 3], [1, 3], [1, 2, 3], "1|2|3", "a,b", 4, 1, [2, 3], [1, 2, 3],
              ["c", "b", "a"], True, [2, 3], 2]),
        call("ARRAY_SORT(MAP_KEYS(MAP('b' := 2, 'a' := 1))) AS mk, ARRAY_SORT(MAP_VALUES(MAP('b' := 2, 'a' := 1))) AS mv,\n"
             "       MAP_UNION(MAP('a' := 1), MAP('b' := 2)) AS mu, AS_MAP(ARRAY['a', 'b'], ARRAY[1, 2]) AS am,\n"
             "       ENTRIES(MAP('b' := 2, 'a' := 1), true) AS en",
             ["MK", "MV", "MU", "AM", "EN"],
             [["a", "b"], [1, 2], {"a": 1, "b": 2}, {"a": 1, "b": 2}, [{"K": "a", "V": 1}, {"K": "b", "V": 2}]]),
        call("INITCAP('hello wORLD') AS ic, UCASE('a') AS u, LCASE('A') AS lc, REPLACE('ab-ab', 'ab', 'x') AS r,\n"
             "       TRIM('  a  ') AS tr, LEN('abc') AS le, SUBSTRING('abcdef', -3) AS s1, SUBSTRING('abcdef', 2, 3) AS s2,\n"
             "       CONCAT('a', 'b', 'c') AS c, LEN(UUID()) AS ul, FROM_BYTES(TO_BYTES('a', 'utf8'), 'hex') AS hx",
             ["IC", "U", "LC", "R", "TR", "LE", "S1", "S2", "C", "UL", "HX"],
             ["Hello World", "A", "a", "x-x", "a", 3, "def", "bcd", "abc", 36, "61"]),
    ]


def defined_types_and_windowed_sources(p: str) -> list[Step]:
    """The CREATE TYPE page (a struct type used by name in a stream, listed by SHOW TYPES, dropped) and the
    CREATE TABLE page's windowed source: a table declared over a windowed aggregate's topic with WINDOW_TYPE and
    WINDOW_SIZE, read by push query with its window bounds."""
    s, w = f"{p}people", f"{p}per_min"
    addr = f"{p}ADDRESS"
    return [
        Step(f"CREATE TYPE {addr} AS STRUCT<number INTEGER, street VARCHAR, city VARCHAR>;", ok(CS)),
        Step("SHOW TYPES;", ok("type_list", check=_has([0, "types", addr], lambda t: t["type"] == "STRUCT" and [
            f["name"] for f in t["fields"]] == ["NUMBER", "STREET", "CITY"]))),
        Step(f"CREATE STREAM {s} (name VARCHAR KEY, home {addr}, ts BIGINT) WITH (kafka_topic='{s.lower()}', "
             "value_format='JSON', partitions=1, timestamp='ts');", ok(CS)),
        Step(f"INSERT INTO {s} (name, home, ts) VALUES ('ann', STRUCT(number := 7, street := 'High St', "
             "city := 'Leeds'), 1600000000000);\n"
             f"INSERT INTO {s} (name, home, ts) VALUES ('bob', STRUCT(number := 9, street := 'Low Rd', "
             "city := 'York'), 1600000030000);", ok()),
        Step(f"SELECT name, home->city AS city FROM {s} EMIT CHANGES LIMIT 2;",
             rows(["NAME", "CITY"], [["ann", "Leeds"], ["bob", "York"]]), body=EARLIEST_Q),
        Step(f"CREATE TABLE {w} AS SELECT home->city AS city, COUNT(*) AS n FROM {s}\n"
             "  WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY home->city;", ok(CS), body=EARLIEST_K),
        Step(f"CREATE TABLE {p}per_min_again (city VARCHAR PRIMARY KEY, n BIGINT)\n"
             f"  WITH (kafka_topic='{w.upper()}', value_format='JSON', WINDOW_TYPE='TUMBLING', WINDOW_SIZE='1 MINUTE');",
             ok(CS)),
        Step(f"DESCRIBE {p}per_min_again;", ok("sourceDescription", check=_has(
            [0, "sourceDescription", "windowType"], "TUMBLING"))),
        Step(f"SELECT city, WINDOWSTART, WINDOWEND, n FROM {p}per_min_again EMIT CHANGES LIMIT 2;",
             rows(["CITY", "WINDOWSTART", "WINDOWEND", "N"],
                  [["Leeds", 1599999960000, 1600000020000, 1], ["York", 1600000020000, 1600000080000, 1]]),
             body=EARLIEST_Q),
        Step(f"CREATE TABLE {p}bad_window (city VARCHAR PRIMARY KEY, n BIGINT)\n"
             f"  WITH (kafka_topic='{w.upper()}', value_format='JSON', WINDOW_TYPE='TUMBLING');",
             refused(40001, "re:^Failed to prepare statement: TUMBLING windows require 'WINDOW_SIZE' to be provided in the WITH clause. "
                            "For example: 'WINDOW_SIZE'='10 SECONDS'")),
        Step(f"DROP TYPE {addr};", ok(CS)),
        Step(f"DROP TYPE IF EXISTS {addr};", ok(CS)),
    ]



def clickstream_demo(p: str) -> list[Step]:
    """The clickstream analysis tutorial: a JSON click stream whose columns are named _time, time, status and
    bytes, a status-code table and a users table, windowed counts keyed by one column with AS_VALUE copies
    (TUMBLING, HOPPING with a LIKE filter, HOPPING with HAVING over errors), a stream-table LEFT JOIN per
    status code, a users join re-keyed by the click's user id, and a SESSION window over the joined clicks."""
    c, codes, users = f"{p}clickstream", f"{p}clickstream_codes", f"{p}web_users"
    base = 1_600_000_000_000
    clicks = [(0, "10.0.0.1", "GET /index.html HTTP/1.1", 200, 1, 278), (2_000, "10.0.0.2", "GET /a.html HTTP/1.1", 404, 2, 10),
              (4_000, "10.0.0.1", "GET /img.png HTTP/1.1", 200, 1, 4_096), (6_000, "10.0.0.2", "GET /b.html HTTP/1.1", 404, 2, 10),
              (70_000, "10.0.0.1", "GET /c.html HTTP/1.1", 200, 1, 300)]
    ins = "\n".join(
        f"INSERT INTO {c} (_time, time, ip, request, status, userid, bytes, agent) VALUES ({base + t}, "
        f"'{t // 1000}s', '{ip}', '{req}', {st}, {u}, {b}, 'curl');" for t, ip, req, st, u, b in clicks)
    return [
        Step(f"CREATE STREAM {c} (\n        _time bigint,\n        time varchar,\n        ip varchar,\n"
             "        request varchar,\n        status int,\n        userid int,\n        bytes bigint,\n"
             f"        agent varchar\n    ) with (\n        kafka_topic = '{c.lower()}',\n"
             "        value_format = 'json',\n        partitions = 1,\n        timestamp = '_time'\n    );", ok(CS)),
        Step(f"CREATE TABLE {codes} (code int primary key, definition varchar) with (\n"
             f"        kafka_topic = '{codes.lower()}',\n        value_format = 'json',\n        partitions = 1\n    );\n"
             f"CREATE TABLE {users} (user_id int primary key, registered_at bigint, username varchar, first_name varchar,\n"
             "        last_name varchar, city varchar, level varchar)\n"
             f"    with (kafka_topic = '{users.lower()}', value_format = 'json', partitions = 1);", ok(CS, CS)),
        # the lookup tables are older than the clicks (a stream-table join reads the table as of the click's time)
        Step(f"INSERT INTO {codes} (ROWTIME, code, definition) VALUES ({base - 100_000}, 200, 'Successful');\n"
             f"INSERT INTO {codes} (ROWTIME, code, definition) VALUES ({base - 100_000}, 404, 'Page not found');\n"
             f"INSERT INTO {users} (ROWTIME, user_id, registered_at, username, first_name, last_name, city, level) "
             f"VALUES ({base - 100_000}, 1, 1, 'ann_x', 'Ann', 'X', 'Leeds', 'Gold');\n"
             f"INSERT INTO {users} (ROWTIME, user_id, registered_at, username, first_name, last_name, city, level) "
             f"VALUES ({base - 100_000}, 2, 1, 'bob_y', 'Bob', 'Y', 'York', 'Silver');", ok()),
        Step("SET 'auto.offset.reset' = 'earliest';\n"
             f"CREATE TABLE {p}events_per_min AS\n    SELECT\n        userid as k1,\n        AS_VALUE(userid) as userid,\n"
             "        WINDOWSTART as EVENT_TS,\n        count(*) AS events\n"
             f"    FROM {c} window TUMBLING (size 60 second)\n    GROUP BY userid;\n"
             f"CREATE TABLE {p}pages_per_min AS\n    SELECT\n        userid as k1,\n        AS_VALUE(userid) as userid,\n"
             "        WINDOWSTART as EVENT_TS,\n        count(*) AS pages\n"
             f"    FROM {c} WINDOW HOPPING (size 60 second, advance by 5 second)\n    WHERE request like '%html%'\n"
             "    GROUP BY userid;\n"
             f"CREATE STREAM {p}enriched_error_codes AS\n    SELECT code, definition\n    FROM {c}\n"
             f"    LEFT JOIN {codes} ON {c}.status = {codes}.code;\n"
             f"CREATE TABLE {p}errors_per_min_alert AS\n    SELECT status as k1, AS_VALUE(status) as status, "
             "WINDOWSTART as EVENT_TS, count(*) AS errors\n"
             f"    FROM {c} window HOPPING (size 60 second, advance by 20 second)\n    WHERE status > 400\n"
             "    GROUP BY status\n    HAVING count(*) > 1 AND count(*) IS NOT NULL;\n"
             f"CREATE STREAM {p}user_clickstream AS\n    SELECT userid, u.username, ip, u.city, request, status, bytes\n"
             f"    FROM {c} c LEFT JOIN {users} u ON c.userid = u.user_id;",
             ok(CS, CS, CS, CS, CS)),
        Step(ins, ok()),
        Step(f"SELECT k1, userid, EVENT_TS, events FROM {p}events_per_min WHERE k1 = 1;",
             rows(["K1", "USERID", "EVENT_TS", "EVENTS"], [[1, 1, base - 40_000, 2], [1, 1, base + 20_000, 1]]),
             wait=15),
        Step(f"SELECT k1, EVENT_TS, pages FROM {p}pages_per_min WHERE k1 = 2 AND WINDOWSTART = {base};",
             rows(["K1", "EVENT_TS", "PAGES"], [[2, base, 2]]), wait=15),
        Step(f"SELECT * FROM {p}enriched_error_codes EMIT CHANGES LIMIT 5;",
             rows(["CODE", "DEFINITION"], [[200, "Successful"], [404, "Page not found"], [200, "Successful"],
                                           [404, "Page not found"], [200, "Successful"]]), body=EARLIEST_Q),
        Step(f"SELECT k1, status, errors FROM {p}errors_per_min_alert WHERE k1 = 404;",
             rows(["K1", "STATUS", "ERRORS"], [[404, 404, 2], [404, 404, 2], [404, 404, 2]]), wait=15),
        Step(f"SELECT userid, username, city, bytes FROM {p}user_clickstream EMIT CHANGES LIMIT 2;",
             rows(["USERID", "USERNAME", "CITY", "BYTES"], [[1, "ann_x", "Leeds", 278], [2, "bob_y", "York", 10]]),
             body=EARLIEST_Q),
        Step(f"CREATE TABLE {p}click_user_sessions AS\n    SELECT username as K,\n"
             "        AS_VALUE(username) as username,\n        WINDOWEND as EVENT_TS,\n        count(*) AS events\n"
             f"    FROM {p}user_clickstream window SESSION (30 second)\n    GROUP BY username;", ok(CS), body=EARLIEST_K),
        Step(f"SELECT K, EVENT_TS, events FROM {p}click_user_sessions WHERE K = 'ann_x';",
             rows(["K", "EVENT_TS", "EVENTS"], [["ann_x", base + 4_000, 2], ["ann_x", base + 70_000, 1]]), wait=15),
    ]


def late_events_and_emit_final(p: str) -> list[Step]:
    """The time-and-windows page's out-of-order events: a record later than its window's end plus the grace
    period is dropped; EMIT FINAL writes each window once, when it closes (the sink's topic read by a push
    query has no intermediate counts); a window still open is not written. Closed windows are looked for at
    most once a second of wall-clock time (Kafka Streams' emit interval), so the windows a burst of inserts
    closes are written on a record a second later."""
    ev = f"{p}events"
    base = 1_599_999_960_000  # 2020-09-13T12:26:00Z, a minute boundary
    ins = "\n".join(f"INSERT INTO {ev} (ROWTIME, k, v) VALUES ({base + off}, 'a', {i});"
                    for i, off in enumerate((0, 10_000, 70_000, 20_000, 130_000)))
    later = f"INSERT INTO {ev} (ROWTIME, k, v) VALUES ({base + 131_000}, 'a', 5);"
    return [
        Step(f"CREATE STREAM {ev} (k VARCHAR KEY, v INT) WITH (kafka_topic='{ev.lower()}', value_format='JSON', "
             "partitions=1);", ok(CS)),
        Step(f"CREATE TABLE {p}counts AS SELECT k, COUNT(*) AS n, COLLECT_LIST(v) AS vs FROM {ev}\n"
             "  WINDOW TUMBLING (SIZE 1 MINUTE, RETENTION 1 DAY, GRACE PERIOD 0 SECONDS) GROUP BY k EMIT CHANGES;\n"
             f"CREATE TABLE {p}final_counts AS SELECT k, COUNT(*) AS n, COLLECT_LIST(v) AS vs FROM {ev}\n"
             "  WINDOW TUMBLING (SIZE 1 MINUTE, RETENTION 1 DAY, GRACE PERIOD 0 SECONDS) GROUP BY k EMIT FINAL;",
             ok(CS, CS), body=EARLIEST_K),
        Step(ins, ok()),
        # the record at +20 s came after stream time passed +60 s: its window had closed
        Step(f"SELECT k, WINDOWSTART, n, vs FROM {p}counts WHERE k = 'a';",
             rows(["K", "WINDOWSTART", "N", "VS"],
                  [["a", base, 2, [0, 1]], ["a", base + 60_000, 1, [2]], ["a", base + 120_000, 1, [4]]]), wait=15),
        Step(later, ok(), pause=1.5),
        Step(f"SELECT k, WINDOWSTART, WINDOWEND, n, vs FROM {p}final_counts EMIT CHANGES LIMIT 2;",
             rows(["K", "WINDOWSTART", "WINDOWEND", "N", "VS"],
                  [["a", base, base + 60_000, 2, [0, 1]], ["a", base + 60_000, base + 120_000, 1, [2]]], ordered=True),
             body=EARLIEST_Q),
    ]


SCENARIOS = {
    "create_stream_and_table": create_stream_and_table, "transform_a_stream": transform_a_stream,
    "aggregate_streaming_data": aggregate_streaming_data, "arrays_and_maps": arrays_and_maps,
    "outer_join_synthetic_key": outer_join_synthetic_key, "scalar_function_families": scalar_function_families,
    "defined_types_and_windowed_sources": defined_types_and_windowed_sources, "clickstream_demo": clickstream_demo,
    "late_events_and_emit_final": late_events_and_emit_final,
}
