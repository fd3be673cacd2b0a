"""Scalar built-ins over their type scope - the functions our other cases call least (array set operations,
bytes conversions, date and time arithmetic and time zones, JSON, padding and case, maps, regular
expressions, UUID): every overload, a NULL in each position (typed NULL columns), empty and edge values.
Expected values are written out from ksqlDB's documented behaviour of each function (its Java UDF), never
computed by ours.

Writes tests/cases/functions/scalar-sweep.json: ``python tests/cases/functions/gen_scalar_sweep.py
tests/cases/functions/scalar-sweep.json`` after changing this file.
"""
import json
import sys

# one source with a column per type, and a NULL column of the types NULL arguments need
COLUMNS = ("I INT, B BIGINT, D DOUBLE, S STRING, BO BOOLEAN, DC DECIMAL(4, 2), TS TIMESTAMP, DT DATE, TM TIME, "
           "BT BYTES, AI ARRAY<INT>, AST ARRAY<STRING>, M MAP<STRING, INT>, "
           "NI INT, NB BIGINT, NS STRING, NBY BYTES, NAI ARRAY<INT>, NM MAP<STRING, INT>, NTS TIMESTAMP, "
           "NDT DATE, NTM TIME")
ROW = {"I": 5, "B": 10, "D": 2.5, "S": "Hello World", "BO": True, "DC": 12.34, "TS": 1000, "DT": 10,
       "TM": 3600000, "BT": "AQID", "AI": [1, 2, 2, None, 3], "AST": ["a", "b", None], "M": {"a": 1, "b": None}}

# family -> [(expression, expected JSON value)]
FAMILIES: dict[str, list[tuple[str, object]]] = {
    "array set operations: distinct elements in first-seen order, NULL an element like any other, a NULL array "
    "NULL": [
        ("ARRAY_DISTINCT(AI)", [1, 2, None, 3]),
        ("ARRAY_DISTINCT(AST)", ["a", "b", None]),
        ("ARRAY_DISTINCT(NAI)", None),
        ("ARRAY_EXCEPT(AI, ARRAY[2])", [1, None, 3]),
        ("ARRAY_EXCEPT(AI, ARRAY[CAST(NULL AS INT), 1])", [2, 3]),
        ("ARRAY_EXCEPT(AST, ARRAY['a'])", ["b", None]),
        ("ARRAY_EXCEPT(AI, NAI)", None),
        ("ARRAY_EXCEPT(NAI, AI)", None),
        ("ARRAY_INTERSECT(AI, ARRAY[3, 2, 7])", [2, 3]),
        ("ARRAY_INTERSECT(AI, ARRAY[CAST(NULL AS INT)])", [None]),
        ("ARRAY_INTERSECT(AI, NAI)", None),
        ("ARRAY_UNION(AI, ARRAY[4, 1])", [1, 2, None, 3, 4]),
        ("ARRAY_UNION(AST, ARRAY['c', 'a'])", ["a", "b", None, "c"]),
        ("ARRAY_UNION(NAI, AI)", None),
        ("ARRAY_CONCAT(AI, ARRAY[9, 1])", [1, 2, 2, None, 3, 9, 1]),
        ("ARRAY_CONCAT(AI, NAI)", [1, 2, 2, None, 3]),
        ("ARRAY_CONCAT(NAI, ARRAY[7])", [7]),
        ("ARRAY_CONCAT(NAI, NAI)", None),
        ("ARRAY_LENGTH(AI)", 5),
        ("ARRAY_LENGTH(NAI)", None),
        ("ARRAY_CONTAINS(AI, CAST(NULL AS INT))", True),
        ("ARRAY_CONTAINS(NAI, 1)", False),
        ("ARRAY_REMOVE(AI, 2)", [1, None, 3]),
        ("ARRAY_REMOVE(AI, CAST(NULL AS INT))", [1, 2, 2, 3]),
        ("ARRAY_MAX(AI)", 3),
        ("ARRAY_MIN(AST)", "a"),
        ("ARRAY_MAX(NAI)", None),
    ],
    "bytes conversions: big-endian by default, the byte order named, exactly the type's size": [
        ("INT_FROM_BYTES(TO_BYTES('AAAAKg==', 'base64'))", 42),
        ("INT_FROM_BYTES(TO_BYTES('KgAAAA==', 'base64'), 'LITTLE_ENDIAN')", 42),
        ("INT_FROM_BYTES(TO_BYTES('FFFFFFFF', 'hex'), 'BIG_ENDIAN')", -1),
        ("INT_FROM_BYTES(NBY)", None),
        ("BIGINT_FROM_BYTES(TO_BYTES('000000000000002A', 'hex'))", 42),
        ("BIGINT_FROM_BYTES(TO_BYTES('2A00000000000000', 'hex'), 'LITTLE_ENDIAN')", 42),
        ("BIGINT_FROM_BYTES(NBY)", None),
        ("DOUBLE_FROM_BYTES(TO_BYTES('3FF8000000000000', 'hex'))", 1.5),
        ("DOUBLE_FROM_BYTES(TO_BYTES('000000000000F83F', 'hex'), 'LITTLE_ENDIAN')", 1.5),
        ("DOUBLE_FROM_BYTES(NBY)", None),
        ("FROM_BYTES(BT, 'hex')", "010203"),
        ("FROM_BYTES(BT, 'base64')", "AQID"),
        ("FROM_BYTES(TO_BYTES('', 'hex'), 'utf8')", ""),
        ("FROM_BYTES(NBY, 'hex')", None),
        ("TO_BYTES(NS, 'hex')", None),
        ("LEN(BT)", 3),
    ],
    "date and time arithmetic: NULL in any position is NULL, TIME wraps around midnight, time zones": [
        ("DATEADD(DAYS, 5, DT)", 15),
        ("DATEADD(DAYS, -11, DT)", -1),
        ("DATESUB(DAYS, 3, DT)", 7),
        ("DATEADD(DAYS, NI, DT)", None),
        ("DATEADD(DAYS, 1, NDT)", None),
        ("DATESUB(DAYS, 1, NDT)", None),
        ("TIMESTAMPADD(SECONDS, 2, TS)", 3000),
        ("TIMESTAMPADD(DAYS, 1, TS)", 86401000),
        ("TIMESTAMPADD(MILLISECONDS, NI, TS)", None),
        ("TIMESTAMPSUB(MILLISECONDS, 1000, TS)", 0),
        ("TIMESTAMPSUB(HOURS, 1, TS)", -3599000),
        ("TIMESTAMPSUB(SECONDS, 1, NTS)", None),
        ("TIMEADD(HOURS, 1, TM)", 7200000),
        ("TIMEADD(HOURS, 24, TM)", 3600000),
        ("TIMESUB(HOURS, 2, TM)", 82800000),
        ("TIMESUB(MINUTES, 1, NTM)", None),
        ("FROM_DAYS(10)", 10),
        ("FROM_DAYS(NI)", None),
        ("UNIX_DATE(DT)", 10),
        ("UNIX_DATE(NDT)", None),
        ("UNIX_TIMESTAMP(TS)", 1000),
        ("UNIX_TIMESTAMP(NTS)", None),
        ("CONVERT_TZ(TS, 'UTC', 'America/Los_Angeles')", -28799000),
        ("CONVERT_TZ(TS, 'Asia/Kolkata', 'UTC')", -19799000),
        ("CONVERT_TZ(TS, 'UTC', 'UTC')", 1000),
        ("CONVERT_TZ(NTS, 'UTC', 'America/Los_Angeles')", None),
        ("CONVERT_TZ(TS, NS, 'UTC')", None),
        ("FORMAT_TIMESTAMP(TS, 'yyyy-MM-dd HH:mm:ss.SSS', 'America/Los_Angeles')", "1969-12-31 16:00:01.000"),
        ("FORMAT_DATE(DT, 'yyyy-MM-dd')", "1970-01-11"),
        ("FORMAT_TIME(TM, 'HH:mm')", "01:00"),
        ("PARSE_DATE('1970-01-11', 'yyyy-MM-dd')", 10),
        ("PARSE_TIME('01:00', 'HH:mm')", 3600000),
        ("PARSE_TIMESTAMP('1970-01-01 00:00:01', 'yyyy-MM-dd HH:mm:ss', 'UTC')", 1000),
    ],
    "JSON functions: NULL or text that is not the JSON the function reads gives NULL": [
        ("JSON_CONCAT('{\"a\": 1}', '{\"b\": 2}')", '{"a":1,"b":2}'),
        ("JSON_CONCAT('{\"a\": 1}', '{\"a\": 2}')", '{"a":2}'),
        ("JSON_CONCAT('[1]', '[2, 3]')", "[1,2,3]"),
        ("JSON_CONCAT('[1]', '{\"a\": 1}')", '[1,{"a":1}]'),
        ("JSON_CONCAT('{\"a\": 1}', NS)", None),
        ("JSON_KEYS('{\"a\": 1, \"b\": {\"c\": 2}}')", ["a", "b"]),
        ("JSON_KEYS('[1]')", None),
        ("JSON_KEYS('{}')", []),
        ("JSON_KEYS(NS)", None),
        ("JSON_ARRAY_LENGTH('[1, 2, [3]]')", 3),
        ("JSON_ARRAY_LENGTH('[]')", 0),
        ("JSON_ARRAY_LENGTH('{}')", None),
        ("JSON_ARRAY_LENGTH(NS)", None),
        ("IS_JSON_STRING('{\"a\": 1}')", True),
        ("IS_JSON_STRING('[1')", False),
        ("IS_JSON_STRING(NS)", False),
        ("JSON_ITEMS('[1, {\"a\": 2}, \"x\"]')", ["1", '{"a":2}', '"x"']),
        ("JSON_ITEMS('{}')", None),
        ("JSON_RECORDS('{\"a\": 1, \"b\": \"x\", \"c\": [true]}')", {"a": "1", "b": "x", "c": "[true]"}),
        ("JSON_RECORDS('[1]')", None),
        ("TO_JSON_STRING(AI)", "[1,2,2,null,3]"),
        ("TO_JSON_STRING(M)", '{"a":1,"b":null}'),
        ("TO_JSON_STRING(NS)", "null"),
    ],
    "string padding and case: a negative length or empty padding is NULL, a shorter length truncates": [
        ("LPAD('hi', 5, 'ab')", "abahi"),
        ("LPAD('hello', 3, 'x')", "hel"),
        ("LPAD('hi', 0, 'x')", ""),
        ("LPAD('hi', -1, 'x')", None),
        ("LPAD('hi', 5, '')", None),
        ("LPAD(NS, 5, 'x')", None),
        ("LPAD('hi', NI, 'x')", None),
        ("RPAD('hi', 5, 'ab')", "hiaba"),
        ("RPAD('hello', 2, 'x')", "he"),
        ("RPAD('hi', 3, NS)", None),
        ("INITCAP('hello wORLD')", "Hello World"),
        ("INITCAP('')", ""),
        ("INITCAP(NS)", None),
        ("LCASE('ÀBC')", "àbc"),
        ("UCASE('straße')", "STRASSE"),
        ("LCASE(NS)", None),
        ("TRIM('  a b  ')", "a b"),
        ("TRIM(NS)", None),
        ("LEN('')", 0),
        ("LEN(NS)", None),
        ("REPLACE('aaa', 'a', 'bb')", "bbbbbb"),
        ("REPLACE('abc', '', 'x')", "xaxbxcx"),
        ("REPLACE(NS, 'a', 'b')", None),
        ("SUBSTRING(S, -5)", "World"),
        ("SUBSTRING(S, 0)", "Hello World"),
        ("SUBSTRING(S, 7, 100)", "World"),
        ("SUBSTRING(S, 20)", ""),
        ("SUBSTRING(S, NI)", None),
        ("LEN(UUID())", 36),
        ("MD5('')", "d41d8cd98f00b204e9800998ecf8427e"),
    ],
    "map functions: entries, keys, values and unions": [
        ("MAP_UNION(M, MAP('c' := 3))", {"a": 1, "b": None, "c": 3}),
        ("MAP_UNION(M, MAP('a' := 9))", {"a": 9, "b": None}),
        ("MAP_UNION(M, NM)", {"a": 1, "b": None}),
        ("MAP_UNION(NM, NM)", None),
        ("MAP_KEYS(NM)", None),
        ("MAP_VALUES(NM)", None),
        ("AS_MAP(ARRAY['x', 'y'], ARRAY[1, 2])", {"x": 1, "y": 2}),
        ("AS_MAP(ARRAY['x', 'x'], ARRAY[1, 2])", {"x": 2}),
        ("SPLIT_TO_MAP('a=1;b=2', ';', '=')", {"a": "1", "b": "2"}),
        ("SPLIT_TO_MAP(NS, ';', '=')", None),
        ("SPLIT_TO_MAP('a=1', NS, '=')", None),
    ],
    "regular expressions: Java's pattern syntax, the pattern first in the extracts, NULL in any position is NULL": [
        ("REGEXP_EXTRACT_ALL('\\d+', 'a1b22c')", ["1", "22"]),
        ("REGEXP_EXTRACT_ALL('([a-z])(\\d+)', 'a1b22c', 2)", ["1", "22"]),
        ("REGEXP_EXTRACT_ALL('\\d', 'abc')", []),
        ("REGEXP_EXTRACT_ALL('a', NS)", None),
        ("REGEXP_EXTRACT_ALL(NS, 'a')", None),
        ("REGEXP_EXTRACT('([a-z])(\\d+)', 'a1b22c', 2)", "1"),
        ("REGEXP_EXTRACT('\\d+', 'a1b22c')", "1"),
        ("REGEXP_EXTRACT('x', 'abc')", None),
        ("REGEXP_EXTRACT('x', NS)", None),
        ("REGEXP_SPLIT_TO_ARRAY('a1b2c', '\\d')", ["a", "b", "c"]),
        ("REGEXP_SPLIT_TO_ARRAY('', 'x')", [""]),
        ("REGEXP_SPLIT_TO_ARRAY(NS, 'x')", None),
        ("REGEXP_REPLACE('aaa', 'a', 'b')", "bbb"),
        ("REGEXP_REPLACE('a.b', '\\.', '')", "ab"),
        ("REGEXP_REPLACE(NS, 'a', 'b')", None),
    ],
}


def case(title: str, probes: list[tuple[str, object]]) -> dict:  # type: ignore[type-arg]
    select = ", ".join(f"{e} AS C{i}" for i, (e, _) in enumerate(probes))
    return {
        "name": title,
        "statements": [
            f"CREATE STREAM S ({'K STRING KEY, ' + COLUMNS}) WITH (kafka_topic='s', value_format='JSON');",
            f"CREATE STREAM O AS SELECT K, {select} FROM S;",
        ],
        "inputs": [{"topic": "s", "key": "k", "value": ROW}],
        "outputs": [{"topic": "O", "key": "k", "value": {f"C{i}": v for i, (_, v) in enumerate(probes)}}],
    }


tests = [case(title, probes) for title, probes in FAMILIES.items()]

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({"comments": [__doc__.split("\n\n")[0].replace("\n", " ")], "tests": tests}, f, indent=1,
                  ensure_ascii=False)
        f.write("\n")
