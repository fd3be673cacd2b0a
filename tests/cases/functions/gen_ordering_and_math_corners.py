"""LEAST/GREATEST over every ordered type, TRUNC/CBRT/SIGN/POWER/LOG corners, PARSE_TIME/FORMAT_TIME,
CONCAT_WS and INITCAP, and the planning errors of these functions' overload choice. Java's orders: STRING by
UTF-16 code units (String.compareTo), BYTES by signed bytes (ByteBuffer.compareTo), DOUBLE by Double.compareTo
(-0.0 below 0.0, NaN above everything); NULL arguments of the variadic LEAST/GREATEST are skipped.

Expected values are written from ksqlDB's UDFs (from memory of Least/Greatest, Trunc, Cbrt, Sign, Power, Log,
ParseTime, FormatTime, ConcatWS, InitCap and UdfIndex), never computed by ours. Writes
tests/cases/functions/ordering-and-math-corners.json: ``python
tests/cases/functions/gen_ordering_and_math_corners.py tests/cases/functions/ordering-and-math-corners.json``.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

COLUMNS = ("S STRING, NS STRING, U STRING, E STRING, D DOUBLE, NZ DOUBLE, I INT, BI BIGINT, DC DECIMAL(6, 3), "
           "BT BYTES, DT DATE, TM TIME, TS TIMESTAMP, NTM TIME, P INT")
ROW = {"S": "Zeta", "NS": None, "U": "\uffff", "E": "\U0001F600", "D": -123.456, "NZ": -0.0, "I": -17,
       "BI": 12345, "DC": -123.456, "BT": "gA==", "DT": 19000, "TM": 45296789, "TS": 5000, "NTM": None,
       "P": 2147483647}

FAMILIES: dict[str, list[tuple[str, object]]] = {
    "LEAST and GREATEST beyond numbers: Java's orders of STRING (UTF-16 units), BYTES (signed), DATE, TIME, "
    "TIMESTAMP, DOUBLE (-0.0 < 0.0, NaN greatest); NULL arguments skipped, all NULL is NULL": [
        ("LEAST(S, 'alpha', 'Beta')", "Beta"),
        ("GREATEST(S, 'alpha', 'éclair')", "éclair"),
        ("LEAST(S, NS)", "Zeta"),
        ("GREATEST(NS, CAST(NULL AS STRING))", None),
        ("LEAST('', S)", ""),
        # U+FFFF is one unit above the high surrogate that starts U+1F600
        ("GREATEST(U, E)", "\uffff"),
        ("LEAST(U, E)", "\U0001F600"),
        # 0x80 is -128 as a signed byte
        ("LEAST(BT, TO_BYTES('7F', 'hex'))", "gA=="),
        ("GREATEST(BT, TO_BYTES('00', 'hex'))", "AA=="),
        ("LEAST(DT, FROM_DAYS(18999))", 18999),
        ("GREATEST(TM, PARSE_TIME('23:00', 'HH:mm'))", 82800000),
        ("LEAST(TS, FROM_UNIXTIME(4999), CAST(NULL AS TIMESTAMP))", 4999),
        ("LEAST(NZ, 0.0E0)", -0.0),
        ("GREATEST(NZ, 0.0E0)", 0.0),
        ("GREATEST(0.0E0 / 0, 1.0E300)", "NaN"),
        ("LEAST(0.0E0 / 0, -1.0E300)", -1.0E300),
    ],
    "TRUNC over each overload: INT and BIGINT unchanged, DOUBLE to BIGINT towards zero, places on DOUBLE and "
    "DECIMAL (negative places zero the integer digits, the DECIMAL keeps its scale)": [
        ("TRUNC(I)", -17),
        ("TRUNC(BI)", 12345),
        ("TRUNC(D)", -123),
        ("TRUNC(D, 2)", -123.45),
        ("TRUNC(D, -2)", -100.0),
        ("TRUNC(D, 20)", -123.456),
        ("TRUNC(DC)", -123),
        ("CAST(TRUNC(DC, 2) AS STRING)", "-123.450"),
        ("CAST(TRUNC(DC, -2) AS STRING)", "-100.000"),
        ("CAST(TRUNC(DC, 5) AS STRING)", "-123.456"),
        ("TRUNC(DC, CAST(NULL AS INT))", None),
    ],
    "ROUND and TRUNC to places far beyond the digits, as BigDecimal.setScale: more places keep the value, fewer "
    "than every digit give zero, a scale whose 10^n BigInteger cannot hold or whose difference overflows an int "
    "fails (NULL)": [
        ("CAST(ROUND(DC, 1000000) AS STRING)", "-123.456"),
        ("CAST(ROUND(DC, -1000000) AS STRING)", "0.000"),
        ("CAST(TRUNC(DC, 5000) AS STRING)", "-123.456"),
        ("CAST(TRUNC(DC, -5000) AS STRING)", "0.000"),
        ("ROUND(D, 1000000)", -123.456),
        ("ROUND(D, -1000000)", 0.0),
        ("TRUNC(D, 5000)", -123.456),
        ("TRUNC(D, -5000)", 0.0),
        ("ROUND(D, -3)", 0.0),
        ("ROUND(-500.0E0, -3)", 0.0),
        ("ROUND(500.0E0, -3)", 1000.0),
        ("ROUND(DC, P)", None),
        ("ROUND(DC, -P)", None),
        ("TRUNC(D, P)", None),
        ("TRUNC(D, -P)", None),
        ("ROUND(DC, 700000000)", None),
    ],
    "CBRT, SIGN, POWER and LOG corners: Math.cbrt keeps the sign, SIGN of NaN is 0, POWER and LOG give "
    "Java's NaN and infinities": [
        ("CBRT(-8)", -2.0),
        ("CBRT(CAST(27 AS BIGINT))", 3.0),
        ("CBRT(0.0E0 / 0)", "NaN"),
        ("SIGN(0.0E0 / 0)", 0),
        ("SIGN(NZ)", 0),
        ("SIGN(BI)", 1),
        ("SIGN(DC)", -1),
        ("SIGN(CAST(NULL AS INT))", None),
        ("POWER(0, -1)", "Infinity"),
        ("POWER(-8, 1.0E0 / 3)", "NaN"),
        ("POWER(2, 0.5)", 1.4142135623730951),
        ("LOG(0)", "-Infinity"),
        ("LOG(-1)", "NaN"),
        ("LOG(2, 0)", "-Infinity"),
        ("LOG(1, 2)", "NaN"),
        ("EXP(1000)", "Infinity"),
    ],
    "PARSE_TIME and FORMAT_TIME: a time of day only - a date field in the pattern or text out of range is "
    "NULL, 12-hour clocks, fractions; FORMAT_TIME of a zone or date letter is NULL": [
        ("PARSE_TIME('23:59:59.999', 'HH:mm:ss.SSS')", 86399999),
        ("PARSE_TIME('23:59:59.999', 'HH:mm')", None),
        ("PARSE_TIME('7:05', 'H:mm')", 25500000),
        ("PARSE_TIME('07:05:00 pm', 'hh:mm:ss a')", 68700000),
        ("PARSE_TIME('12:00 AM', 'hh:mm a')", 0),
        ("PARSE_TIME('25:00', 'HH:mm')", None),
        ("PARSE_TIME('2020-01-01 10:11', 'yyyy-MM-dd HH:mm')", None),
        ("PARSE_TIME('10.5', 'HH.S')", 36000500),
        ("PARSE_TIME(NS, 'HH')", None),
        ("FORMAT_TIME(TM, 'HH:mm:ss.SSS')", "12:34:56.789"),
        ("FORMAT_TIME(TM, 'h:mm a')", "12:34 PM"),
        ("FORMAT_TIME(TM, '''at'' kk')", "at 12"),
        ("FORMAT_TIME(TM, 'n')", "789000000"),
        ("FORMAT_TIME(TM, 'z')", None),
        ("FORMAT_TIME(TM, 'yyyy')", None),
        ("FORMAT_TIME(NTM, 'HH')", None),
    ],
    "CONCAT_WS skips NULL values and is NULL for a NULL separator; INITCAP splits words at whitespace, drops "
    "leading whitespace and keeps the rest": [
        ("CONCAT_WS('-', 'a', NS, 'b')", "a-b"),
        ("CONCAT_WS(NS, 'a', 'b')", None),
        ("CONCAT_WS('', 'a', 'b')", "ab"),
        ("CONCAT_WS(', ', NS)", ""),
        ("CONCAT_WS(TO_BYTES('2C', 'hex'), TO_BYTES('41', 'hex'), TO_BYTES('42', 'hex'))", "QSxC"),
        ("INITCAP('  hello wORLD-fOO bar  ')", "Hello World-foo Bar  "),
        ("INITCAP('hello_world x')", "Hello_world X"),
        ("INITCAP('élan 1st')", "Élan 1st"),
        ("INITCAP('')", ""),
        ("INITCAP(NS)", None),
    ],
}

ERRORS: list[tuple[str, str, str]] = [
    ("LEAST of INT and BIGINT is ambiguous: every numeric overload takes both after implicit casts",
     "LEAST(I, BI)", "Function 'least' cannot be resolved due to ambiguous method parameters (INTEGER, BIGINT)."),
    ("LEAST of a number and a string: no overload",
     "LEAST(I, S)", "Function 'least' does not accept parameters (INTEGER, STRING)."),
    ("GREATEST of BOOLEANs: no overload",
     "GREATEST(true, false)", "Function 'greatest' does not accept parameters (BOOLEAN, BOOLEAN)."),
    ("RANDOM takes no argument",
     "RANDOM(1)", "Function 'random' does not accept parameters (INTEGER)."),
    ("PARSE_TIME has no time zone argument",
     "PARSE_TIME('10:00', 'HH:mm', 'UTC')",
     "Function 'parse_time' does not accept parameters (STRING, STRING, STRING)."),
    ("CONCAT_WS joins strings or bytes only",
     "CONCAT_WS('-', I, BI)", "Function 'concat_ws' does not accept parameters (STRING, INTEGER, BIGINT)."),
    ("ENTRIES has no overload for a map of arrays",
     "ENTRIES(MAP('k' := ARRAY[1]), true)",
     "Function 'entries' does not accept parameters (MAP<STRING, ARRAY<INTEGER>>, BOOLEAN)."),
]


def error_case(title: str, expression: str, message: str) -> dict:
    return {
        "name": title,
        "statements": [
            f"CREATE STREAM S (K STRING KEY, {COLUMNS}) WITH (kafka_topic='s', value_format='JSON');",
            f"CREATE STREAM O AS SELECT K, {expression} AS C0 FROM S;",
        ],
        "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException", "message": message},
    }


def main() -> None:
    tests = [probe_case(title, probes, COLUMNS, ROW) for title, probes in FAMILIES.items()]
    tests += [error_case(*e) for e in ERRORS]
    write_cases(sys.argv[1], __doc__, tests, ensure_ascii=False)


if __name__ == "__main__":
    main()
