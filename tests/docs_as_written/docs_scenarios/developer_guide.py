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


SCENARIOS = {
    "create_stream_and_table": create_stream_and_table, "transform_a_stream": transform_a_stream,
    "aggregate_streaming_data": aggregate_streaming_data, "arrays_and_maps": arrays_and_maps,
    "outer_join_synthetic_key": outer_join_synthetic_key,
}
