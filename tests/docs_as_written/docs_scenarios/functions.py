"""The function pages: scalar, lambda, table and aggregate functions."""

from __future__ import annotations

from docs_runner import Step, ok, refused, rows

from ._common import CS, EARLIEST_K, EARLIEST_Q


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
