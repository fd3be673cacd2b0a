"""The function reference's entries added in the 0.2x releases, which readers of older guides miss: the BYTES
family (TO_BYTES / FROM_BYTES, the *_FROM_BYTES decoders, BYTES overloads of the string functions), the
DATE / TIME family (PARSE_TIME, FORMAT_TIME, TIMEADD / TIMESUB, DATESUB, UNIX_DATE, FROM_DAYS), the JSON
family's corner answers, the trigonometric and rounding functions, UUID(BYTES), and the aggregates'
newer overloads (LATEST_BY_OFFSET / EARLIEST_BY_OFFSET with a count and ignoreNulls, STDDEV_SAMP, CORRELATION)."""

from __future__ import annotations

from typing import Any

from docs_runner import Step, ok, refused, rows

from ._common import CS, EARLIEST_K, EARLIEST_Q


def recent_functions(p: str) -> list[Step]:
    """Each call as the reference page shows one, on rows of our own; the answers are the page's, or what
    Java's rules give where the page shows none (a result type's JSON form, ROUND's half rule)."""
    s = f"{p}readings"
    q = f"FROM {s} WHERE n = 5 EMIT CHANGES LIMIT 1;"

    def call(select: str, columns: list[str], values: list[Any]) -> Step:
        return Step(f"SELECT {select}\n{q}", rows(columns, [values]), body=EARLIEST_Q)

    ins = "\n".join(f"INSERT INTO {s} (id, n, x, s, b) VALUES (1, {n}, {x}, {txt}, TO_BYTES('{b}', 'base64'));"
                    for n, x, txt, b in ((5, 1.0, "'x'", "AAAH5Q=="), (7, 2.0, "NULL", "AQI="),
                                         (9, 4.0, "'z'", "/w==")))
    return [
        Step(f"CREATE STREAM {s} (id INT KEY, n INT, x DOUBLE, s VARCHAR, b BYTES)\n"
             f"  WITH (kafka_topic='{s.lower()}', value_format='JSON', partitions=1);", ok(CS)),
        Step(ins, ok()),
        # the conversion functions' examples: big-endian unless told otherwise
        call("INT_FROM_BYTES(TO_BYTES('AAAH5Q==', 'base64')) AS i,\n"
             "       INT_FROM_BYTES(TO_BYTES('5QcAAA==', 'base64'), 'LITTLE_ENDIAN') AS il,\n"
             "       BIGINT_FROM_BYTES(TO_BYTES('AAAAASoF8gA=', 'base64')) AS bi,\n"
             "       DOUBLE_FROM_BYTES(TO_BYTES('QICm/ZvJ9YI=', 'base64')) AS d,\n"
             "       INT_FROM_BYTES(b) AS fromcol",
             ["I", "IL", "BI", "D", "FROMCOL"], [2021, 2021, 5000000000, 532.8738323, 2021]),
        # the string functions' BYTES overloads; a BYTES column answers as base64 text
        call("b, LEN(b) AS l, FROM_BYTES(b, 'hex') AS h, FROM_BYTES(SUBSTRING(b, 3), 'hex') AS sb,\n"
             "       FROM_BYTES(CONCAT(b, TO_BYTES('ff', 'hex')), 'hex') AS cc,\n"
             "       FROM_BYTES(LPAD(TO_BYTES('01', 'hex'), 3, TO_BYTES('00', 'hex')), 'hex') AS lp,\n"
             "       SPLIT(TO_BYTES('a,b', 'utf8'), TO_BYTES(',', 'utf8')) AS sp,\n"
             "       FROM_BYTES(TO_BYTES('abc', 'ascii'), 'base64') AS b64",
             ["B", "L", "H", "SB", "CC", "LP", "SP", "B64"],
             ["AAAH5Q==", 4, "000007E5", "07E5", "000007E5FF", "000001", ["YQ==", "Yg=="], "YWJj"]),
        call("UUID(TO_BYTES('AAECAwQFBgcICQoLDA0ODw==', 'base64')) AS u, ENCODE('4b', 'hex', 'utf8') AS e",
             ["U", "E"], ["00010203-0405-0607-0809-0a0b0c0d0e0f", "K"]),
        # TIME wraps at midnight; dates count days from the epoch
        call("PARSE_TIME('10:11:12', 'HH:mm:ss') AS t,\n"
             "       FORMAT_TIME(PARSE_TIME('10:11:12', 'HH:mm:ss'), 'hh:mm a') AS ft,\n"
             "       TIMEADD(HOURS, 1, PARSE_TIME('23:30:00', 'HH:mm:ss')) AS ta,\n"
             "       TIMESUB(MINUTES, 31, PARSE_TIME('00:30:00', 'HH:mm:ss')) AS tsb",
             ["T", "FT", "TA", "TSB"], ["10:11:12", "10:11 AM", "00:30", "23:59"]),
        call("UNIX_DATE(PARSE_DATE('2021-01-01', 'yyyy-MM-dd')) AS ud, FROM_DAYS(18628) AS fd,\n"
             "       DATESUB(DAYS, 1, FROM_DAYS(18628)) AS ds,\n"
             "       UNIX_TIMESTAMP(PARSE_TIMESTAMP('2021-01-01 00:00:00', 'yyyy-MM-dd HH:mm:ss')) AS ut,\n"
             "       TIMESTAMPSUB(SECONDS, 1, FROM_UNIXTIME(0)) AS tsb,\n"
             "       CAST(FROM_UNIXTIME(3600000) AS TIME) AS tt, CAST(FROM_DAYS(1) AS TIMESTAMP) AS dts",
             ["UD", "FD", "DS", "UT", "TSB", "TT", "DTS"],
             [18628, "2021-01-01", "2020-12-31", 1609459200000, "1969-12-31T23:59:59.000", "01:00",
              "1970-01-02T00:00:00.000"]),
        # JSON_CONCAT: objects merge (the right one wins), arrays append, an array and a non-array nest
        call("JSON_CONCAT('[1, 2]', '{\"a\": 1}') AS x1, JSON_CONCAT('{\"a\": 1}', '[1, 2]') AS x2,\n"
             "       JSON_CONCAT('[]', '{}') AS x3, JSON_CONCAT('abc', '[1]') AS x4,\n"
             "       JSON_CONCAT('{\"a\": {\"3\": 4}}', '{\"a\": {\"5\": 6}}') AS x5,\n"
             "       JSON_CONCAT('[1, [2]]', '[[[3]]]') AS x6",
             ["X1", "X2", "X3", "X4", "X5", "X6"],
             ["[1,2,{\"a\":1}]", "[{\"a\":1},1,2]", "[{}]", None, "{\"a\":{\"5\":6}}", "[1,[2],[[3]]]"]),
        call("JSON_KEYS('[]') AS k1, JSON_KEYS('') AS k2, JSON_RECORDS('[]') AS r1, JSON_RECORDS('{}') AS r2,\n"
             "       JSON_ARRAY_LENGTH('abc') AS l1, JSON_ARRAY_LENGTH('123') AS l2, IS_JSON_STRING('') AS e",
             ["K1", "K2", "R1", "R2", "L1", "L2", "E"], [None, None, None, {}, None, None, False]),
        call("TO_JSON_STRING(CAST(NULL AS INT)) AS n1, TO_JSON_STRING(b) AS tb, TO_JSON_STRING(FROM_DAYS(1)) AS td,\n"
             "       TO_JSON_STRING(PARSE_TIME('10:11:12', 'HH:mm:ss')) AS tt,\n"
             "       TO_JSON_STRING(FROM_UNIXTIME(0)) AS tts, TO_JSON_STRING('a\"b') AS ts, TO_JSON_STRING(1.50) AS dec",
             ["N1", "TB", "TD", "TT", "TTS", "TS", "DEC"],
             ["null", "\"AAAH5Q==\"", "\"1970-01-02\"", "\"10:11:12\"", "\"1970-01-01T00:00:00.000\"",
              "\"a\\\"b\"", "1.50"]),
        # ROUND follows Math.round: halves go up, so -2.5 rounds to -2
        call("SIN(0) AS s0, COS(0) AS c0, ATAN2(1, 1) AS a2, DEGREES(PI()) AS dg, RADIANS(180) AS rd, SINH(0) AS sh,\n"
             "       TRUNC(1.2345, 2) AS tr, ROUND(2.5) AS r, ROUND(-2.5) AS r2, ROUND(1.2345, 2) AS r3,\n"
             "       CBRT(27.0) AS cb, LOG(2, 8) AS lg2",
             ["S0", "C0", "A2", "DG", "RD", "SH", "TR", "R", "R2", "R3", "CB", "LG2"],
             [0.0, 1.0, 0.7853981633974483, 180.0, 3.141592653589793, 0.0, 1.23, 3, -2, 1.23, 3.0, 3.0]),
        # the aggregates' newer overloads, read back through a table; STDDEV_SAMP answers the sample
        # variance, as ksqlDB's StandardDeviationSampUdaf computes it
        Step(f"CREATE TABLE {p}stats AS\n  SELECT id,\n         LATEST_BY_OFFSET(s, 2) AS last2,\n"
             "         LATEST_BY_OFFSET(s, false) AS last_with_nulls,\n"
             "         EARLIEST_BY_OFFSET(s, 2, false) AS first2_with_nulls,\n"
             "         STDDEV_SAMP(n) AS sd_n, ROUND(STDDEV_SAMP(x), 4) AS sd_x,\n"
             "         ROUND(CORRELATION(x, CAST(n AS DOUBLE)), 4) AS corr\n"
             f"  FROM {s}\n  GROUP BY id\n  EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(f"SELECT * FROM {p}stats WHERE id = 1;",
             rows(["ID", "LAST2", "LAST_WITH_NULLS", "FIRST2_WITH_NULLS", "SD_N", "SD_X", "CORR"],
                  [[1, ["x", "z"], "z", ["x", None], 4.0, 2.3333, 0.982]]), wait=15),
        Step(f"SELECT id, STDDEV_SAMP(s) FROM {s} GROUP BY id EMIT CHANGES;",
             refused(40001, "re:^Function 'STDDEV_SAMP' does not accept parameters \\(STRING\\)\\.\\n"
                            "Valid alternatives are:\\n")),
        Step(f"SELECT id, STDDEV_POP(n) FROM {s} GROUP BY id EMIT CHANGES;",
             refused(40001, "Can't find any functions with the name 'STDDEV_POP'")),
    ]
