"""Time, windows and custom timestamps."""

from __future__ import annotations

from docs_runner import Step, ok, refused, rows

from ._common import CS, EARLIEST_K, EARLIEST_Q


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


def windowed_table_reference(p: str) -> list[Step]:
    """The CREATE TABLE AS SELECT reference page's windowed examples over page views, as written: a filter
    of UCASE/LCASE calls (LIKE in the hopping one) before the window, an unaliased COUNT(*) (KSQL_COL_0), a
    window RETENTION that becomes the sink topic's retention.ms, the pull-query page's window bounds written
    as ISO-8601 text on both WINDOWSTART and WINDOWEND; then the operator notes a reader meets on the way:
    DECIMAL division whose exact result needs rounding is NULL (RoundingMode.UNNECESSARY), a typed literal
    other than DECIMAL 'x' is refused while the statement is prepared, and the REST page's malformed
    /query-stream bodies."""
    pv = f"{p}pageviews"
    base = 1_600_000_000_000  # 2020-09-13T12:26:40Z
    ins = "\n".join(f"INSERT INTO {pv} (viewtime, userid, pageid, regionid, gender) VALUES "
                    f"({base + i * 20_000}, '{u}', '{pg}', '{r}', '{g}');"
                    for i, (u, pg, r, g) in enumerate((("User_1", "Page_1", "Region_6", "FEMALE"),
                                                        ("User_2", "Page_2", "Region_6", "female"),
                                                        ("User_1", "Page_3", "Region_1", "MALE"),
                                                        ("User_3", "Page_1", "Region_6", "FEMALE"))))
    cols = ["REGIONID", "WINDOWSTART", "WINDOWEND", "KSQL_COL_0"]
    return [
        Step(f"CREATE STREAM {pv} (viewtime BIGINT, userid VARCHAR, pageid VARCHAR, regionid VARCHAR, "
             f"gender VARCHAR)\n  WITH (KAFKA_TOPIC='{pv.lower()}', VALUE_FORMAT='JSON', PARTITIONS=1, "
             "TIMESTAMP='viewtime');", ok(CS)),
        Step(ins, ok()),
        Step(f"CREATE TABLE {p}per_region_30s AS\n  SELECT regionid,\n         COUNT(*)\n  FROM {pv}\n"
             "  WINDOW TUMBLING (SIZE 30 SECONDS)\n  WHERE UCASE(gender)='FEMALE' AND LCASE(regionid)='region_6'\n"
             "  GROUP BY regionid\n  EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(f"CREATE TABLE {p}per_region_hop AS\n  SELECT regionid, COUNT(*) FROM {pv}\n"
             "  WINDOW HOPPING (SIZE 30 SECONDS, ADVANCE BY 10 SECONDS)\n"
             "  WHERE UCASE(gender)='FEMALE' AND LCASE (regionid) LIKE '%_6'\n  GROUP BY regionid\n  EMIT CHANGES;",
             ok(CS), body=EARLIEST_K),
        Step(f"CREATE TABLE {p}per_page_hour AS SELECT pageid, COUNT(*) AS cnt FROM {pv}\n"
             "  WINDOW TUMBLING (SIZE 1 HOUR, RETENTION 1 DAYS, GRACE PERIOD 10 MINUTES) GROUP BY pageid;",
             ok(CS, text=["RETENTION_MS=86400000", "SIZE 1 HOURS , RETENTION 1 DAYS , GRACE PERIOD 10 MINUTES"]),
             body=EARLIEST_K),
        Step(f"SELECT * FROM {p}per_region_30s;",
             rows(cols, [["Region_6", base - 10_000, base + 20_000, 1], ["Region_6", base + 20_000, base + 50_000, 1],
                         ["Region_6", base + 50_000, base + 80_000, 1]]), wait=15),
        Step(f"SELECT * FROM {p}per_region_hop WHERE regionid='Region_6' AND WINDOWSTART = {base};",
             rows(cols, [["Region_6", base, base + 30_000, 2]]), wait=15),
        Step(f"SELECT * FROM {p}per_region_30s WHERE regionid = 'Region_6'\n"
             "  AND WINDOWSTART >= '2020-09-13T12:27:00' AND WINDOWEND <= '2020-09-13T12:28:00';",
             rows(cols, [["Region_6", base + 20_000, base + 50_000, 1], ["Region_6", base + 50_000, base + 80_000, 1]])),
        Step(f"SELECT * FROM {p}per_region_30s WHERE regionid = 'Region_6' AND {base} <= WINDOWSTART "
             f"AND WINDOWEND <= {base + 50_000};", rows(cols, [["Region_6", base + 20_000, base + 50_000, 1]])),
        Step(f"SELECT pageid, cnt FROM {p}per_page_hour WHERE pageid = 'Page_1';",
             rows(["PAGEID", "CNT"], [["Page_1", 2]]), wait=15),
        Step(f"SELECT CAST(12.34 AS DECIMAL(10, 2)) / 3 AS third, CAST(12.34 AS DECIMAL(10, 2)) / 2 AS half\n"
             f"FROM {pv} WHERE userid = 'User_3';", rows(["THIRD", "HALF"], [[None, 6.17]])),
        Step(f"SELECT FORMAT_TIMESTAMP(TIMESTAMP '2021-01-01 00:00:00', 'yyyy') AS y FROM {pv};",
             refused(40001, "Failed to prepare statement: Unknown type: TIMESTAMP, location:Optional[Line: 1, Col: 25]")),
        # DECIMAL is a reserved word of the lexer: the decimal typed literal is written back-quoted
        Step(f"SELECT DECIMAL '1.50' * 2 AS d FROM {pv} WHERE userid = 'User_3';",
             refused(40001, "re:\"DECIMAL\" is a reserved keyword")),
        Step(f"SELECT `DECIMAL` '1.50' * 2 AS d FROM {pv} WHERE userid = 'User_3';", rows(["D"], [[3.0]])),
        Step("", refused(40000, "Missing required creator property 'sql'"), endpoint="/query-stream", raw_body="{}"),
        Step(f"SELECT * FROM {pv}; SELECT * FROM {pv};",
             refused(40001, "Expected exactly one KSQL statement; found 2 instead")),
        Step("SHOW STREAMS;", refused(40001, "Only SELECT and PRINT statements can be issued to this endpoint"),
             endpoint="/query-stream"),
    ]
