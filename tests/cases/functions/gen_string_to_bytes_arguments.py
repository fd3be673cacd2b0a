"""A STRING argument fits a BYTES parameter in the second pass of function resolution, as it fits a DATE, TIME or
TIMESTAMP one (ksqlDB's SqlBaseType.canImplicitlyCast: STRING -> BYTES, used by UdfIndex when no overload fits
exactly; reference ksqldb-rules 2.4 and 2.8): the text is read as base64, as CAST(s AS BYTES) reads it, and a text
that is not base64 makes the call fail for that record (the column NULL). An overload that fits exactly still
wins (LEN, SUBSTRING, CONCAT of strings stay string functions); only BYTES parameters take a STRING, never
INT or BOOLEAN. Over every function with a BYTES parameter: the conversions, UUID, CONCAT/CONCAT_WS, LPAD/RPAD,
SPLIT, GREATEST/LEAST with one BYTES argument among strings.

Writes tests/cases/functions/string-to-bytes-arguments.json: ``python
tests/cases/functions/gen_string_to_bytes_arguments.py tests/cases/functions/string-to-bytes-arguments.json``
after changing this file.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

COLUMNS = "S STRING, S1 STRING, BAD STRING, NS STRING, BT BYTES, SEP BYTES, I INT, BO BOOLEAN"
ROW = {"S": "AQI=", "S1": "AAAAAQ==", "BAD": "!!", "NS": None, "BT": "AwQ=", "SEP": "AA==", "I": 1, "BO": True}
HINT = "For detailed information on a function run: DESCRIBE FUNCTION <Function-Name>;"

# (expression, expected value as the JSON output writes it: BYTES as base64)
ACCEPTED: list[tuple[str, object]] = [
    ("FROM_BYTES(S, 'hex')", "0102"),
    ("FROM_BYTES('AQI=', 'base64')", "AQI="),
    ("FROM_BYTES(S1, 'utf8')", "\u0000\u0000\u0000\u0001"),
    ("INT_FROM_BYTES(S1)", 1),
    ("INT_FROM_BYTES('AQAAAA==', 'LITTLE_ENDIAN')", 1),
    ("BIGINT_FROM_BYTES('AAAAAAAAAAI=')", 2),
    ("DOUBLE_FROM_BYTES('P/AAAAAAAAA=')", 1.0),
    ("UUID('ABEiM0RVZneImaq7zN3u/w==')", "00112233-4455-6677-8899-aabbccddeeff"),
    ("CONCAT(S, BT)", "AQIDBA=="),
    ("CONCAT(BT, S, S)", "AwQBAgEC"),
    ("S || BT", "AQIDBA=="),
    ("CONCAT_WS(SEP, S, BT)", "AQIAAwQ="),
    ("CONCAT_WS(S, BT, BT)", "AwQBAgME"),
    ("LPAD(S, 4, BT)", "AwQBAg=="),
    ("RPAD(BT, 3, S)", "AwQB"),
    ("SPLIT(S, BT)", ["AQI="]),
    ("SPLIT(BT, 'BA==')", ["Aw==", ""]),
    ("GREATEST(S, BT)", "AwQ="),
    ("LEAST(BT, S)", "AQI="),
    ("FROM_BYTES(NS, 'hex')", None),
    ("CONCAT(NS, BT)", "AwQ="),
    # not base64: the call fails for the record (logged), its column is NULL
    ("FROM_BYTES(BAD, 'hex')", None),
    ("INT_FROM_BYTES(BAD)", None),
    # an exact STRING overload wins over the BYTES one
    ("LEN(S)", 4),
    ("SUBSTRING(S, 2)", "QI="),
    ("CONCAT(S, S1)", "AQI=AAAAAQ=="),
    ("SPLIT(S, 'I')", ["AQ", "="]),
    ("GREATEST(S, S1)", "AQI="),
]

# (call, argument types as the error prints them, the alternatives)
REFUSED: list[tuple[str, str, list[str]]] = [
    ("FROM_BYTES(I, 'hex')", "INTEGER, STRING", ["from_bytes(BYTES value, STRING encoding)"]),
    ("INT_FROM_BYTES(BO)", "BOOLEAN",
     ["int_from_bytes(BYTES value)", "int_from_bytes(BYTES value, STRING byteOrder)"]),
    ("UUID(I)", "INTEGER", ["uuid()", "uuid(BYTES bytes)"]),
]


def refused(call: str, args: str, alternatives: list[str]) -> dict:  # type: ignore[type-arg]
    name = alternatives[0].split("(")[0]
    return {
        "name": f"{call} - no STRING, no BYTES: still refused",
        "statements": [
            f"CREATE STREAM S (K STRING KEY, {COLUMNS}) WITH (kafka_topic='s', value_format='JSON');",
            f"CREATE STREAM O AS SELECT K, {call} AS C FROM S;",
        ],
        "expectedException": {
            "type": "io.confluent.ksql.util.KsqlStatementException",
            "message": f"Function '{name}' does not accept parameters ({args}).\nValid alternatives are:\n"
                       + "\n".join(alternatives) + f"\n{HINT}",
        },
    }


def result_types() -> dict:  # type: ignore[type-arg]
    """The resolved overload decides the result type: BYTES where a STRING met a BYTES argument."""
    return {
        "name": "result types follow the BYTES overload",
        "statements": [
            f"CREATE STREAM S (K STRING KEY, {COLUMNS}) WITH (kafka_topic='s', value_format='JSON');",
            "CREATE STREAM O AS SELECT K, CONCAT(S, BT) AS A, SPLIT(S, BT) AS B, FROM_BYTES(S, 'hex') AS C, "
            "CONCAT(S, S1) AS D FROM S;",
        ],
        "inputs": [{"topic": "s", "key": "k", "value": ROW}],
        "outputs": [{"topic": "O", "key": "k",
                     "value": {"A": "AQIDBA==", "B": ["AQI="], "C": "0102", "D": "AQI=AAAAAQ=="}}],
        "post": {"sources": [{"name": "O", "type": "stream",
                              "schema": "K STRING KEY, A BYTES, B ARRAY<BYTES>, C STRING, D STRING"}]},
    }


tests = ([probe_case("STRING arguments of BYTES parameters read as base64", ACCEPTED, COLUMNS, ROW)]
         + [refused(*row) for row in REFUSED] + [result_types()])

if __name__ == "__main__":
    write_cases(sys.argv[1], __doc__, tests)
