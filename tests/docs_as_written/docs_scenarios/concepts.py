"""The reference and concept pages: the processing log, type coercion, operators, partitioning, queries (push
and pull, what a pull query can do), and the high-availability / exactly-once configuration pages."""

from __future__ import annotations

from typing import Any

from docs_runner import Expect, Step, ok, refused, rows

from ._common import CS, EARLIEST_K, EARLIEST_Q, _has

PLOG_MESSAGE_FIELDS = ["TYPE", "DESERIALIZATIONERROR", "RECORDPROCESSINGERROR", "PRODUCTIONERROR",
                       "SERIALIZATIONERROR", "KAFKASTREAMSTHREADERROR"]


def _plog_schema(answer: Any) -> str | None:
    sd = answer[0]["sourceDescription"]
    names = [f["name"] for f in sd["fields"]]
    if names != ["LOGGER", "LEVEL", "TIME", "MESSAGE"]:
        return f"fields {names}"
    message = [f["name"].upper() for f in sd["fields"][3]["schema"]["fields"]]
    if message != PLOG_MESSAGE_FIELDS:
        return f"MESSAGE fields {message}"
    deser = [f["name"].upper() for f in sd["fields"][3]["schema"]["fields"][1]["schema"]["fields"]]
    if deser != ["TARGET", "ERRORMESSAGE", "RECORDB64", "CAUSE", "TOPIC"]:
        return f"DESERIALIZATIONERROR fields {deser}"
    if not sd["topic"].endswith("ksql_processing_log") or sd["valueFormat"] != "JSON":
        return f"topic {sd['topic']} format {sd['valueFormat']}"
    return None


def processing_log(p: str) -> list[Step]:
    """The processing log page: the KSQL_PROCESSING_LOG stream the server declares (its record schema), a
    deserialization error read back with the page's query, the same topic declared by hand as the page
    writes the stream (`topic` backquoted: TOPIC is a reserved word), and a record-processing error."""
    raw, typed, topic = f"{p}raw", f"{p}readings", f"{p.lower()}readings"
    like = f"'%{topic}%'"
    return [
        Step("DESCRIBE KSQL_PROCESSING_LOG;", ok("sourceDescription", check=_plog_schema)),
        Step(f"CREATE STREAM {raw} (id INT KEY, n STRING) WITH (KAFKA_TOPIC='{topic}', VALUE_FORMAT='JSON', "
             f"PARTITIONS=1);\nCREATE STREAM {typed} (id INT KEY, n INT) WITH (KAFKA_TOPIC='{topic}', "
             "VALUE_FORMAT='JSON');", ok(CS, CS)),
        Step(f"CREATE STREAM {p}copied AS SELECT * FROM {typed};\n"
             f"CREATE STREAM {p}div AS SELECT id, 10 / n AS q FROM {typed};", ok(CS, CS), body=EARLIEST_K),
        Step(f"INSERT INTO {raw} (id, n) VALUES (1, 'not a number');\nINSERT INTO {raw} (id, n) VALUES (2, '0');",
             ok()),
        # the page's query; RECORDB64 is NULL: ksql.logging.processing.rows.include is false by default
        Step("SELECT\n  message->deserializationError->errorMessage,\n"
             "  encode(message->deserializationError->RECORDB64, 'base64', 'utf8'),\n"
             "  message->deserializationError->cause\nFROM KSQL_PROCESSING_LOG\n"
             f"WHERE message->deserializationError->errorMessage LIKE {like}\nEMIT CHANGES LIMIT 1;",
             Expect(columns=["ERRORMESSAGE", "KSQL_COL_0", "CAUSE"], check=_has(["rows", 0], lambda r: (
                 r[0] == f"Failed to deserialize value from topic: {topic}. Can't coerce string to type. "
                         "targetType: INTEGER, path: $.N"
                 and r[1] is None and r[2][0].startswith("Can't coerce string to type.")))),
             body=EARLIEST_Q),
        Step(f"CREATE STREAM {p}PROCESSING_LOG_STREAM (\n    logger VARCHAR,\n    level VARCHAR,\n    time BIGINT,\n"
             "    message STRUCT<\n        type INT,\n        deserializationError STRUCT<\n"
             "            errorMessage VARCHAR,\n            recordB64 VARCHAR,\n            cause ARRAY<VARCHAR>,\n"
             "            `topic` VARCHAR>,\n        recordProcessingError STRUCT<\n"
             "            errorMessage VARCHAR,\n            cause ARRAY<VARCHAR>,\n            record VARCHAR>,\n"
             "        productionError STRUCT<errorMessage VARCHAR>,\n        serializationError STRUCT<\n"
             "            errorMessage VARCHAR,\n            record VARCHAR,\n            cause ARRAY<VARCHAR>,\n"
             "            `topic` VARCHAR>,\n        kafkaStreamsThreadError STRUCT<\n"
             "            errorMessage VARCHAR,\n            threadName VARCHAR,\n            cause ARRAY<VARCHAR>>>)\n"
             "  WITH (KAFKA_TOPIC='default_ksql_processing_log', VALUE_FORMAT='JSON');", ok(CS)),
        Step("SELECT level, message->type AS type, message->deserializationError->`topic` AS t\n"
             f"FROM {p}PROCESSING_LOG_STREAM\nWHERE message->deserializationError->`topic` = '{topic}'\n"
             "EMIT CHANGES LIMIT 1;", rows(["LEVEL", "TYPE", "T"], [["ERROR", 0, topic]]), body=EARLIEST_Q),
        Step("SELECT message->deserializationError->topic FROM KSQL_PROCESSING_LOG EMIT CHANGES;",
             refused(40001, "Syntax Error")),
        Step(f"SELECT logger, message->recordProcessingError->errorMessage AS err,\n"
             "       message->recordProcessingError->cause AS cause\n"
             f"FROM KSQL_PROCESSING_LOG WHERE message->type = 1 AND logger LIKE '%{p.upper()}DIV%'\n"
             "EMIT CHANGES LIMIT 1;",
             Expect(columns=["LOGGER", "ERR", "CAUSE"], check=_has(["rows", 0], lambda r: (
                 r[0].startswith(f"processing.CSAS_{p.upper()}DIV_") and r[0].endswith(".Project")
                 and r[1:] == ["Error computing expression (10 / N) for column Q with index 0", ["/ by zero"]]))),
             body=EARLIEST_Q),
        Step(f"SELECT * FROM {p}div EMIT CHANGES LIMIT 1;", rows(["ID", "Q"], [[2, None]]), body=EARLIEST_Q),
    ]


def type_coercion(p: str) -> list[Step]:
    """The type coercion page: numbers widen INT -> BIGINT -> DECIMAL -> DOUBLE in arithmetic and comparisons,
    lists (IN, ARRAY, MAP) take a common type left to right, CASE branches do not widen, text is never a
    number in a comparison or arithmetic, and INSERT VALUES coerces a literal only where it fits."""
    s = f"{p}s"
    return [
        Step(f"CREATE STREAM {s} (id INT KEY, i INT, b BIGINT, d DOUBLE, dec DECIMAL(4, 1), s VARCHAR, ts TIMESTAMP)\n"
             f"  WITH (kafka_topic='{s.lower()}', value_format='JSON', partitions=1);", ok(CS)),
        Step(f"INSERT INTO {s} (id, i, b, d, dec, s, ts) VALUES (1, 2, 3, 4, 5, 'x', '2024-01-02T03:04:05');\n"
             f"INSERT INTO {s} (id, b, d, dec) VALUES (2, 7, 7, 7.5);", ok()),
        Step("SELECT i + b AS ib, i + d AS id_, i + dec AS idec, dec + d AS decd, b * dec AS bdec,\n"
             "       i = 2.0 AS eq1, b > i AS gt, dec = 5 AS eq2, d >= dec AS ge, i IN (1, 2.0, 3e0) AS in1\n"
             f"FROM {s} WHERE id = 1 EMIT CHANGES LIMIT 1;",
             rows(["IB", "ID_", "IDEC", "DECD", "BDEC", "EQ1", "GT", "EQ2", "GE", "IN1"],
                  [[5, 6.0, 7.0, 9.0, 15.0, True, True, True, False, True]],
                  text=['"columnTypes":["BIGINT","DOUBLE","DECIMAL(12, 1)","DOUBLE","DECIMAL(24, 1)"']),
             body=EARLIEST_Q),
        Step("SELECT ARRAY[1, 2.5] AS a1, ARRAY[1, 2e0] AS a2, ARRAY[i, b] AS a3, ARRAY[1, '2'] AS a4,\n"
             "       ARRAY['1', 2] AS a5, MAP('a' := 1, 'b' := 2.5) AS m1\n"
             f"FROM {s} WHERE id = 1 EMIT CHANGES LIMIT 1;",
             rows(["A1", "A2", "A3", "A4", "A5", "M1"],
                  [[[1.0, 2.5], [1.0, 2.0], [2, 3], [1, 2], ["1", "2"], {"a": 1.0, "b": 2.5}]],
                  text=['"columnTypes":["ARRAY<DECIMAL(11, 1)>","ARRAY<DOUBLE>","ARRAY<BIGINT>","ARRAY<INTEGER>",'
                        '"ARRAY<STRING>","MAP<STRING, DECIMAL(11, 1)>"]']), body=EARLIEST_Q),
        Step(f"SELECT id FROM {s} WHERE i IN ('2', 3) EMIT CHANGES LIMIT 1;", rows(["ID"], [[1]]), body=EARLIEST_Q),
        Step(f"SELECT id FROM {s} WHERE ts = '2024-01-02T03:04:05' EMIT CHANGES LIMIT 1;", rows(["ID"], [[1]]),
             body=EARLIEST_Q),
        Step(f"SELECT ARRAY[1, 'a'] FROM {s} EMIT CHANGES;",
             refused(40001, 'invalid input syntax for type INTEGER: "a".')),
        Step(f"SELECT CASE WHEN i > 1 THEN 1 ELSE 2.5 END FROM {s} EMIT CHANGES;",
             refused(40001, "Invalid Case expression. Type for the default clause should be the same as for 'THEN' "
                            "clauses.\nTHEN type: INTEGER.\nDEFAULT type: DECIMAL(2, 1).")),
        Step(f"SELECT id FROM {s} WHERE s = 1 EMIT CHANGES;",
             refused(40001, "Error in WHERE expression: Cannot compare S (STRING) to 1 (INTEGER) with EQUAL.")),
        Step(f"SELECT id FROM {s} WHERE i = true EMIT CHANGES;",
             refused(40001, "Cannot compare I (INTEGER) to true (BOOLEAN) with EQUAL.")),
        Step(f"SELECT i + s FROM {s} EMIT CHANGES;",
             refused(40001, "Error processing expression: (I + S). Unsupported arithmetic types. INTEGER STRING")),
        Step(f"SELECT id, b, d, dec FROM {s} WHERE id = 2 EMIT CHANGES LIMIT 1;", rows(["ID", "B", "D", "DEC"],
                                                                                 [[2, 7, 7.0, 7.5]]), body=EARLIEST_Q),
        Step(f"INSERT INTO {s} (id, b) VALUES (3, 2.5);",
             refused(40001, f"Failed to insert values into '{s.upper()}'. Expected type BIGINT for field `B` but got "
                            "DECIMAL(2.5)")),
        Step(f"INSERT INTO {s} (id, i) VALUES (4, 3000000000);",
             refused(40001, "Expected type INTEGER for field `I` but got BIGINT(3000000000)")),
        Step(f"INSERT INTO {s} (id, s) VALUES (5, 10);", refused(40001, "Expected type STRING for field `S` but got "
                                                                       "INTEGER(10)")),
        Step(f"CREATE STREAM {p}c (id INT KEY, ad ARRAY<DOUBLE>, mb MAP<STRING, BIGINT>, st STRUCT<a BIGINT, b DOUBLE>,\n"
             f"  dec DECIMAL(4, 1), ts TIMESTAMP, d DATE) WITH (kafka_topic='{p.lower()}c', value_format='JSON', "
             "partitions=1);", ok(CS)),
        Step(f"INSERT INTO {p}c (id, ad, mb, st, ts, d) VALUES (1, ARRAY[1, 2], MAP('a' := 1), STRUCT(a := 1, b := 2),\n"
             "  '2024-01-02', '2024-01-02');", ok()),
        Step(f"SELECT * FROM {p}c EMIT CHANGES LIMIT 1;",
             rows(["ID", "AD", "MB", "ST", "DEC", "TS", "D"],
                  [[1, [1.0, 2.0], {"a": 1}, {"A": 1, "B": 2.0}, None, "2024-01-02T00:00:00.000", "2024-01-02"]]),
             body=EARLIEST_Q),
        Step(f"INSERT INTO {p}c (id, dec) VALUES (2, 1e0);",
             refused(40001, "Expected type DECIMAL(4, 1) for field `DEC` but got DOUBLE(1.0)")),
        Step(f"INSERT INTO {p}c (id, ts) VALUES (3, 'not a time');",
             refused(40001, "Expected type TIMESTAMP for field `TS` but got STRING(not a time). Timestamp format must "
                            "be yyyy-mm-ddThh:mm:ss[.S]")),
        Step(f"INSERT INTO {p}c (id, d) VALUES (4, '2024-13-45');",
             refused(40001, "Expected type DATE for field `D` but got STRING(2024-13-45). Date format must be "
                            "yyyy-mm-dd")),
        Step(f"INSERT INTO {p}c (id, ts) VALUES (5, 1000);",
             refused(40001, "Expected type TIMESTAMP for field `TS` but got INTEGER(1000)")),
        Step(f"INSERT INTO {p}c (id, st) VALUES (6, STRUCT(a := 'x'));",
             refused(40001, "Expected type STRUCT<`A` BIGINT, `B` DOUBLE> for field `ST` but got STRUCT(Struct{A=x})")),
        Step(f"INSERT INTO {s} (id, dec) VALUES (6, 5.55);",
             refused(40001, "Expected type DECIMAL(4, 1) for field `DEC` but got DECIMAL(5.55)")),
    ]


def operators(p: str) -> list[Step]:
    """The operators page: arithmetic with Java's integer rules and DECIMAL types, `+` and `||` on strings,
    source dereference `.`, subscript `[]` on arrays and maps, struct dereference `->`, precedence, BETWEEN,
    LIKE with ESCAPE, IS [NOT] DISTINCT FROM."""
    u = f"{p}users"
    return [
        Step(f"CREATE STREAM {u} (\n  userid VARCHAR KEY,\n  firstname VARCHAR,\n  lastname VARCHAR,\n"
             "  nicknames ARRAY<VARCHAR>,\n  props MAP<VARCHAR, INT>,\n  address STRUCT<street VARCHAR, house_num INT>,\n"
             "  age INT,\n  score DOUBLE,\n  pct DECIMAL(4, 2)\n"
             f") WITH (kafka_topic='{u.lower()}', value_format='JSON', partitions=1);", ok(CS)),
        Step(f"INSERT INTO {u} (userid, firstname, lastname, nicknames, props, address, age, score, pct) VALUES\n"
             "  ('u1', 'Ada', 'Lovelace', ARRAY['countess', 'enchantress'], MAP('x' := 1),\n"
             "   STRUCT(street := 'St James Sq', house_num := 12), 36, 9.5, 12.25);\n"
             f"INSERT INTO {u} (userid, firstname, lastname, nicknames, props, address, age, score, pct) VALUES\n"
             "  ('u2', 'Alan', 'Turing_x', ARRAY['prof'], MAP('y' := 2),\n"
             "   STRUCT(street := 'Adlington Rd', house_num := 43), 41, 7.0, 3.5);", ok()),
        Step(f"SELECT LASTNAME + ', ' + FIRSTNAME AS NAME FROM {u} EMIT CHANGES LIMIT 2;",
             rows(["NAME"], [["Lovelace, Ada"], ["Turing_x, Alan"]]), body=EARLIEST_Q),
        Step(f"SELECT LASTNAME || ', ' || FIRSTNAME AS NAME FROM {u} EMIT CHANGES LIMIT 2;",
             rows(["NAME"], [["Lovelace, Ada"], ["Turing_x, Alan"]]), body=EARLIEST_Q),
        Step(f"SELECT {u}.USERID, NICKNAMES[1], NICKNAMES[-1], PROPS['x'], ADDRESS->STREET, ADDRESS->HOUSE_NUM\n"
             f"FROM {u} EMIT CHANGES LIMIT 2;",
             rows(["USERID", "KSQL_COL_0", "KSQL_COL_1", "KSQL_COL_2", "STREET", "HOUSE_NUM"],
                  [["u1", "countess", "enchantress", 1, "St James Sq", 12],
                   ["u2", "prof", "prof", None, "Adlington Rd", 43]]), body=EARLIEST_Q),
        Step("SELECT age + 1 AS a, age * 2 - 1 AS b, age / 5 AS c, age % 5 AS d, -age AS e, age / 2.0 AS f,\n"
             "       score * 2 AS g, pct + 1 AS h, pct * age AS i, age + score AS j, 10 / 4 AS k, 10.0 / 4 AS l\n"
             f"FROM {u} EMIT CHANGES LIMIT 1;",
             rows(["A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L"],
                  [[37, 71, 7, 1, -36, 18.0, 19.0, 13.25, 441.0, 45.5, 2, 2.5]],
                  text=['"columnTypes":["INTEGER","INTEGER","INTEGER","INTEGER","INTEGER","DECIMAL(17, 6)","DOUBLE",'
                        '"DECIMAL(13, 2)","DECIMAL(15, 2)","DOUBLE","INTEGER","DECIMAL(14, 12)"]']),
             body=EARLIEST_Q),
        Step("SELECT 1 + 2 * 3 AS a, (1 + 2) * 3 AS b, NOT true AND false AS c, true OR false AND false AS d,\n"
             "       -5 / 2 AS e, -5 % 3 AS f, 7.5 % 2 AS g, CAST(NULL AS INT) IS NULL AS h, age IS NOT NULL AS i,\n"
             f"       1 IS DISTINCT FROM 2 AS j, 1 IS NOT DISTINCT FROM 1 AS k\nFROM {u} EMIT CHANGES LIMIT 1;",
             rows(["A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"],
                  [[7, 9, False, True, -2, -2, 1.5, True, True, True, True]]), body=EARLIEST_Q),
        Step(f"SELECT userid FROM {u} WHERE age BETWEEN 30 AND 40 EMIT CHANGES LIMIT 1;", rows(["USERID"], [["u1"]]),
             body=EARLIEST_Q),
        Step(f"SELECT userid FROM {u} WHERE age NOT BETWEEN 30 AND 40 EMIT CHANGES LIMIT 1;",
             rows(["USERID"], [["u2"]]), body=EARLIEST_Q),
        Step(f"SELECT userid FROM {u} WHERE lastname LIKE '%!_x' ESCAPE '!' EMIT CHANGES LIMIT 1;",
             rows(["USERID"], [["u2"]]), body=EARLIEST_Q),
        Step(f"SELECT userid, lastname LIKE 'Love%' AS l1, firstname LIKE 'A_a' AS l2, firstname NOT LIKE 'A%' AS l3,\n"
             f"       firstname LIKE 'ada' AS l4\nFROM {u} EMIT CHANGES LIMIT 2;",
             rows(["USERID", "L1", "L2", "L3", "L4"], [["u1", True, True, False, False], ["u2", False, False, False,
                                                                                           False]]), body=EARLIEST_Q),
        Step(f"SELECT userid FROM {u} WHERE lastname LIKE 'L%' ESCAPE 'ab' EMIT CHANGES;",
             refused(40001, "Expected single character escape but got: ab")),
        Step(f"SELECT 'a' || 1 FROM {u} EMIT CHANGES;",
             refused(40001, "Function 'concat' does not accept parameters (STRING, INTEGER).")),
        # || binds looser than + (the grammar's alternatives in order), as the refusal's printed tree shows
        Step(f"SELECT userid FROM {u} WHERE lastname || 'a' + 'b' = 1 EMIT CHANGES;",
             refused(40001, "Cannot compare CONCAT(LASTNAME, ('a' + 'b')) (STRING) to 1 (INTEGER) with EQUAL.")),
        Step(f"SELECT 'a' + 1 FROM {u} EMIT CHANGES;",
             refused(40001, "Error processing expression: ('a' + 1). Unsupported arithmetic types. STRING INTEGER")),
        Step(f"SELECT 1 IS DISTINCT FROM NULL FROM {u} EMIT CHANGES;",
             refused(40001, "Comparison with NULL not supported: INTEGER IS DISTINCT FROM NULL")),
    ]


def partitioning(p: str) -> list[Step]:
    """The partitioning concepts page: PARTITION BY re-keys into a new stream with the partition count asked
    for, a join needs co-partitioned inputs (same partition count, checked even when a side is re-keyed),
    PARTITION BY several columns needs a key format that holds several, PARTITION BY NULL drops the key."""
    pr, ca = f"{p}products", f"{p}cats"
    return [
        Step(f"CREATE STREAM {pr} (product_id INT, name VARCHAR, category VARCHAR)\n"
             f"  WITH (kafka_topic='{pr.lower()}', value_format='JSON', partitions=2);\n"
             f"CREATE TABLE {ca} (category VARCHAR PRIMARY KEY, descr VARCHAR)\n"
             f"  WITH (kafka_topic='{ca.lower()}', value_format='JSON', partitions=1);", ok(CS, CS)),
        Step(f"CREATE STREAM {p}enriched AS\n  SELECT p.category, p.name, c.descr\n  FROM {pr} p\n"
             f"  JOIN {ca} c ON p.category = c.category;",
             refused(40001, f"Can't join `{pr.upper()}` with `{ca.upper()}` since the number of partitions don't "
                            f"match. `{pr.upper()}` partitions = 2; `{ca.upper()}` partitions = 1. Please repartition "
                            "either one so that the number of partitions match.")),
        Step(f"CREATE STREAM {p}products_rekeyed WITH (PARTITIONS=1) AS\n  SELECT * FROM {pr}\n  PARTITION BY category;",
             ok(CS), body=EARLIEST_K),
        Step(f"DESCRIBE {p}products_rekeyed EXTENDED;", ok("sourceDescription", check=_has(
            [0, "sourceDescription"], lambda sd: sd["partitions"] == 1 and [f["name"] for f in sd["fields"]] ==
            ["CATEGORY", "PRODUCT_ID", "NAME"] and sd["fields"][0].get("type") == "KEY"))),
        Step(f"CREATE STREAM {p}enriched AS\n  SELECT p.category, p.name, c.descr\n  FROM {p}products_rekeyed p\n"
             f"  JOIN {ca} c ON p.category = c.category;", ok(CS), body=EARLIEST_K),
        Step(f"CREATE STREAM {p}by_two WITH (KEY_FORMAT='JSON') AS SELECT * FROM {pr} PARTITION BY category, name;",
             ok(CS), body=EARLIEST_K),
        Step(f"CREATE STREAM {p}by_two_kafka AS SELECT * FROM {pr} PARTITION BY category, name;",
             refused(40001, "The 'KAFKA' format only supports a single field. Got: [`CATEGORY` STRING KEY, `NAME` "
                            "STRING KEY]")),
        Step(f"CREATE STREAM {p}unkeyed AS SELECT * FROM {p}products_rekeyed PARTITION BY NULL;", ok(CS),
             body=EARLIEST_K),
        Step(f"INSERT INTO {ca} (category, descr) VALUES ('office', 'Office supplies');\n"
             f"INSERT INTO {pr} (product_id, name, category) VALUES (5, 'pen', 'office');", ok()),
        Step(f"SELECT * FROM {p}enriched;", rows(["P_CATEGORY", "NAME", "DESCR"], [["office", "pen", "Office supplies"]]),
             wait=15),
        Step(f"SELECT * FROM {p}by_two EMIT CHANGES LIMIT 1;", rows(["CATEGORY", "NAME", "PRODUCT_ID"],
                                                                    [["office", "pen", 5]]), body=EARLIEST_Q),
        Step(f"SELECT * FROM {p}unkeyed EMIT CHANGES LIMIT 1;", rows(["PRODUCT_ID", "NAME", "CATEGORY"],
                                                                     [[5, "pen", "office"]]), body=EARLIEST_Q),
    ]


def pull_queries(p: str) -> list[Step]:
    """The queries concept page: a push query follows changes, a pull query reads the current state - by key
    (=, IN), by a range of the key or of WINDOWSTART/WINDOWEND, by any column (a table scan), with LIMIT, and
    over a stream; the clauses a pull query refuses; table scans turned off by a request property."""
    s, t, w = f"{p}readings", f"{p}avg_readings", f"{p}per_minute"
    ins = "\n".join(f"INSERT INTO {s} (ROWTIME, sensor, area, reading) VALUES ({ts}, '{k}', '{a}', {v});"
                    for ts, k, a, v in ((60000, "s1", "north", 10), (61000, "s1", "north", 20),
                                        (130000, "s2", "south", 5), (190000, "s3", "south", 7)))
    cols = ["SENSOR", "AVG", "N"]
    hint = " See https://cnfl.io/queries for more info.\nAdd EMIT CHANGES if you intended to issue a push query."
    return [
        Step(f"CREATE STREAM {s} (sensor VARCHAR KEY, area VARCHAR, reading INT)\n"
             f"  WITH (kafka_topic='{s.lower()}', value_format='JSON', partitions=1);", ok(CS)),
        Step(f"CREATE TABLE {t} AS\n    SELECT sensor, AVG(reading) AS avg, COUNT(*) AS n\n    FROM {s}\n"
             f"    GROUP BY sensor\n    EMIT CHANGES;\nCREATE TABLE {w} AS\n    SELECT sensor, COUNT(*) AS n\n"
             f"    FROM {s}\n    WINDOW TUMBLING (SIZE 1 MINUTE)\n    GROUP BY sensor\n    EMIT CHANGES;",
             ok(CS, CS)),
        Step(ins, ok()),
        Step(f"SELECT * FROM {t} WHERE sensor = 's1';", rows(cols, [["s1", 15.0, 2]]), wait=15),
        Step(f"SELECT * FROM {t} WHERE sensor IN ('s1', 's3');", rows(cols, [["s1", 15.0, 2], ["s3", 7.0, 1]]),
             wait=15),
        Step(f"SELECT * FROM {t};", rows(cols, [["s1", 15.0, 2], ["s2", 5.0, 1], ["s3", 7.0, 1]]), wait=15),
        Step(f"SELECT * FROM {t} WHERE avg > 6;", rows(cols, [["s1", 15.0, 2], ["s3", 7.0, 1]])),
        Step(f"SELECT * FROM {t} WHERE sensor > 's1';", rows(cols, [["s2", 5.0, 1], ["s3", 7.0, 1]])),
        Step(f"SELECT sensor FROM {t} LIMIT 1;", Expect(columns=["SENSOR"], check=_has(["rows"], lambda r: len(r) == 1))),
        Step(f"SELECT * FROM {w} WHERE sensor = 's1' AND WINDOWSTART >= 60000 AND WINDOWSTART < 120000;",
             rows(["SENSOR", "WINDOWSTART", "WINDOWEND", "N"], [["s1", 60000, 120000, 2]]), wait=15),
        Step(f"SELECT * FROM {w} WHERE WINDOWEND > 150000;",
             rows(["SENSOR", "WINDOWSTART", "WINDOWEND", "N"], [["s2", 120000, 180000, 1], ["s3", 180000, 240000, 1]]),
             wait=15),
        # the bounds as the pull-query page writes them: the literal first, and ISO-8601 text (UTC unless
        # the text names an offset)
        Step(f"SELECT * FROM {w}\n  WHERE sensor = 's1'\n    AND 60000 <= WINDOWSTART\n    AND WINDOWEND <= 120000;",
             rows(["SENSOR", "WINDOWSTART", "WINDOWEND", "N"], [["s1", 60000, 120000, 2]]), wait=15),
        Step(f"SELECT * FROM {w}\n  WHERE sensor = 's1'\n    AND '1970-01-01T00:01:00' <= WINDOWSTART\n"
             "    AND WINDOWEND <= '1970-01-01T00:02:00';",
             rows(["SENSOR", "WINDOWSTART", "WINDOWEND", "N"], [["s1", 60000, 120000, 2]]), wait=15),
        Step(f"SELECT sensor, n FROM {w} WHERE sensor = 's1' AND WINDOWSTART >= '1970-01-01T00:31:00+0030';",
             rows(["SENSOR", "N"], [["s1", 2]]), wait=15),
        Step(f"SELECT sensor, WINDOWSTART FROM {w} WHERE WINDOWSTART BETWEEN '1970-01-01T00:02' AND '1970-01-01T00:03';",
             rows(["SENSOR", "WINDOWSTART"], [["s2", 120000], ["s3", 180000]]), wait=15),
        Step(f"SELECT sensor, ROWTIME FROM {s}\n  WHERE ROWTIME >= '1970-01-01T00:01:01' AND ROWTIME <= '1970-01-01T00:02:10'\n"
             "  EMIT CHANGES LIMIT 2;", rows(["SENSOR", "ROWTIME"], [["s1", 61000], ["s2", 130000]]), body=EARLIEST_Q),
        Step(f"SELECT * FROM {s} WHERE area = 'south';",
             rows(["SENSOR", "AREA", "READING"], [["s2", "south", 5], ["s3", "south", 7]])),
        Step(f"SELECT sensor, reading FROM {s} LIMIT 2;", rows(["SENSOR", "READING"], [["s1", 10], ["s1", 20]])),
        Step(f"SELECT * FROM {t} EMIT CHANGES LIMIT 3;", rows(cols, [["s1", 15.0, 2], ["s2", 5.0, 1], ["s3", 7.0, 1]]),
             body=EARLIEST_Q),
        Step(f"SELECT sensor, COUNT(*) FROM {t} GROUP BY sensor;",
             refused(40001, "Pull queries don't support GROUP BY clauses." + hint)),
        Step(f"SELECT * FROM {t} WINDOW TUMBLING (SIZE 1 MINUTE);",
             refused(40001, "Pull queries don't support WINDOW clauses." + hint)),
        Step(f"SELECT * FROM {t} PARTITION BY n;", refused(40001, "Pull queries don't support PARTITION BY clauses.")),
        Step(f"SELECT * FROM {s} r JOIN {t} a ON r.sensor = a.sensor;",
             refused(40001, "Pull queries don't support JOIN clauses.")),
        Step(f"SELECT * FROM {t};", refused(40001, "Query requires table scan to be enabled." + hint),
             body={"properties": {"ksql.query.pull.table.scan.enabled": False}}),
        Step(f"SELECT * FROM {t} WHERE sensor = 's2';", rows(cols, [["s2", 5.0, 1]]),
             body={"properties": {"ksql.query.pull.table.scan.enabled": False}}),
    ]


def _overrides(sink: str) -> Any:
    """The query writing ``sink`` runs with the request's processing.guarantee (whatever spelling it is kept
    under)."""
    def check(answer: Any) -> str | None:
        for q in answer[0]["queryDescriptions"]:
            if sink in q["sinks"]:
                props = q["overriddenProperties"]
                if any(k.endswith("processing.guarantee") and v == "exactly_once_v2" for k, v in props.items()):
                    return None
                return f"overriddenProperties {props}"
        return f"no query writes {sink}"
    return check


def ha_and_exactly_once(p: str) -> list[Step]:
    """The high-availability and exactly-once configuration pages: the properties they set, in a request's
    streamsProperties and by SET, are accepted and kept as the query's overrides; a pull query takes the
    standby and lag properties; a value outside the property's range is refused naming it."""
    s = f"{p}events"
    return [
        Step(f"CREATE STREAM {s} (id INT KEY, v INT) WITH (kafka_topic='{s.lower()}', value_format='JSON', "
             "partitions=1);", ok(CS)),
        Step(f"CREATE TABLE {p}totals AS SELECT id, SUM(v) AS total FROM {s} GROUP BY id;", ok(CS),
             body={"streamsProperties": {"processing.guarantee": "exactly_once_v2",
                                         "ksql.streams.num.standby.replicas": 1,
                                         "ksql.streams.auto.offset.reset": "earliest"}}),
        Step("SHOW QUERIES EXTENDED;", ok("query_descriptions", check=_overrides(f"{p.upper()}TOTALS"))),
        Step(f"SET 'processing.guarantee' = 'exactly_once_v2';\nCREATE STREAM {p}copy AS SELECT * FROM {s};", ok(CS)),
        Step(f"INSERT INTO {s} (id, v) VALUES (1, 5);\nINSERT INTO {s} (id, v) VALUES (1, 6);", ok()),
        Step(f"SELECT * FROM {p}totals WHERE id = 1;", rows(["ID", "TOTAL"], [[1, 11]]), wait=15,
             body={"properties": {"ksql.query.pull.enable.standby.reads": True,
                                  "ksql.query.pull.max.allowed.offset.lag": 100}}),
        Step("", Expect(text=["true"]), endpoint="/is_valid_property/ksql.streams.num.standby.replicas", method="GET"),
        Step("", Expect(text=["true"]), endpoint="/is_valid_property/ksql.query.pull.enable.standby.reads",
             method="GET"),
        Step(f"SET 'processing.guarantee' = 'exactly_twice';\nCREATE STREAM {p}bad AS SELECT * FROM {s};",
             refused(40001, "Invalid value exactly_twice for configuration processing.guarantee: String must be one "
                            "of: at_least_once, exactly_once, exactly_once_beta, exactly_once_v2")),
        Step("SHOW PROPERTIES;", ok("properties", check=_has([0, "properties"], lambda ps: any(
            x["name"] == "ksql.streams.processing.guarantee" for x in ps)))),
    ]
