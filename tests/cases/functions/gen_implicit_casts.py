"""Implicit casts of function arguments as ksqlDB's UdfIndex applies them (from memory of UdfIndex.getFunction,
ParamTypes.isPrimitiveMatch and SqlBaseType.canImplicitlyCast): an exact match is looked for first; only when
no overload fits exactly are arguments widened, numbers along INT -> BIGINT -> DECIMAL -> DOUBLE and a STRING to
a DATE, TIME or TIMESTAMP parameter (and to a BYTES one: string-to-bytes-arguments.json); a number never narrows (BIGINT to an INT parameter), a STRING is never a
number, a BOOLEAN never anything else, a NULL literal fits every parameter. When nothing fits, the statement
fails with "Function '<name>' does not accept parameters (<argument types>)." and the valid alternatives.
Over every family with a parameter of one numeric type (strings, dates and times, the deprecated epoch forms,
geography, masking): a widened argument gives what the explicitly cast one gives (compared with IS NOT
DISTINCT FROM, NULL results alike), each refused argument its own failing case.

Writes tests/cases/functions/implicit-casts.json: ``python tests/cases/functions/gen_implicit_casts.py
tests/cases/functions/implicit-casts.json`` after changing this file.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

COLUMNS = ("I INT, B BIGINT, DC DECIMAL(4, 2), D DOUBLE, S STRING, BO BOOLEAN, TS TIMESTAMP, DT DATE, "
           "TM TIME")
ROW = {"I": 2, "B": 3, "DC": 1.25, "D": 2.5, "S": "Hello World", "BO": True, "TS": 86400000, "DT": 3,
       "TM": 3600000}
ARG = {"INTEGER": "I", "BIGINT": "B", "DECIMAL(4, 2)": "DC", "DOUBLE": "D", "STRING": "S", "BOOLEAN": "BO"}
SQL_TYPE = {"INTEGER": "INT", "BIGINT": "BIGINT", "DOUBLE": "DOUBLE"}
NUMBERS = ["INTEGER", "BIGINT", "DECIMAL(4, 2)", "DOUBLE"]

# ksqlDB's signatures with a parameter of one numeric type in a position no other overload of that arity
# types differently: (call with {} for the probed argument, its parameter type, argument types written as
# the error lists them with {} for the probed one)
CALLS: list[tuple[str, str, str]] = [
    ("SUBSTRING(S, {})", "INTEGER", "STRING, {}"),
    ("SUBSTRING(S, 1, {})", "INTEGER", "STRING, INTEGER, {}"),
    ("LPAD(S, {}, 'x')", "INTEGER", "STRING, {}, STRING"),
    ("RPAD(S, {}, 'x')", "INTEGER", "STRING, {}, STRING"),
    ("INSTR(S, 'o', {})", "INTEGER", "STRING, STRING, {}"),
    ("INSTR(S, 'o', 1, {})", "INTEGER", "STRING, STRING, INTEGER, {}"),
    ("ELT({}, 'a', 'b', 'c')", "INTEGER", "{}, STRING, STRING, STRING"),
    ("MASK_LEFT(S, {})", "INTEGER", "STRING, {}"),
    ("MASK_KEEP_RIGHT(S, {})", "INTEGER", "STRING, {}"),
    ("ROUND(D, {})", "INTEGER", "DOUBLE, {}"),
    ("DATEADD(DAYS, {}, DT)", "INTEGER", "INTERVALUNIT, {}, DATE"),
    ("TIMESUB(HOURS, {}, TM)", "INTEGER", "INTERVALUNIT, {}, TIME"),
    ("FROM_DAYS({})", "INTEGER", "{}"),
    ("DATETOSTRING({}, 'yyyy-MM-dd')", "INTEGER", "{}, STRING"),
    ("FROM_UNIXTIME({})", "BIGINT", "{}"),
    ("TIMESTAMPTOSTRING({}, 'yyyy-MM-dd')", "BIGINT", "{}, STRING"),
    ("GEO_DISTANCE({}, D, D, D)", "DOUBLE", "{}, DOUBLE, DOUBLE, DOUBLE"),
    ("GEO_DISTANCE(D, D, D, {}, 'KM')", "DOUBLE", "DOUBLE, DOUBLE, DOUBLE, {}, STRING"),
]


def widens(arg: str, param: str) -> bool:
    return arg in NUMBERS and param in NUMBERS and NUMBERS.index(arg) <= NUMBERS.index(param)


def accepted() -> list[tuple[str, object]]:
    probes: list[tuple[str, object]] = []
    for call, param, _ in CALLS:
        exact = call.format(f"CAST({{}} AS {SQL_TYPE[param]})")
        for arg in NUMBERS:
            if arg != param and widens(arg, param):
                col = ARG[arg]
                probes.append((f"{call.format(col)} IS NOT DISTINCT FROM {exact.format(col)}", True))
        probes.append((f"{call.format('NULL')} IS NULL", True))
    return probes


def refused() -> list[dict]:  # type: ignore[type-arg]
    cases = []
    for call, param, listed in CALLS:
        for arg in [*NUMBERS, "STRING", "BOOLEAN"]:
            if arg == param or widens(arg, param):
                continue
            expr = call.format(ARG[arg])
            case = probe_case(f"{expr}: {arg} is not implicitly cast to {param}", [(expr, None)], COLUMNS, ROW)
            del case["inputs"], case["outputs"]
            case["expectedException"] = {
                "type": "io.confluent.ksql.util.KsqlStatementException",
                "message": f"does not accept parameters ({listed.format(arg)}).",
            }
            cases.append(case)
    return cases


FAMILIES: dict[str, list[tuple[str, object]]] = {
    "a narrower number widens to the parameter's type (INT -> BIGINT -> DECIMAL -> DOUBLE) and gives what "
    "the cast argument gives; a NULL literal fits any parameter": accepted(),
    "a STRING argument for a DATE, TIME or TIMESTAMP parameter is read as an ISO date, time or timestamp": [
        ("FORMAT_DATE('2020-01-02', 'dd.MM.yyyy')", "02.01.2020"),
        ("FORMAT_TIMESTAMP('2020-01-02T03:04:05', 'yyyy-MM-dd HH:mm:ss')", "2020-01-02 03:04:05"),
        ("FORMAT_TIME('03:04:05', 'HH-mm-ss')", "03-04-05"),
        ("UNIX_DATE('1970-01-11')", 10),
        ("UNIX_TIMESTAMP('1970-01-01T00:00:01')", 1000),
        ("DATEADD(DAYS, 1, '1970-01-02')", 2),
        ("TIMESTAMPADD(SECONDS, 1, '1970-01-01T00:00:00')", 1000),
        ("FORMAT_DATE('not a date', 'yyyy')", None),
    ],
}


def case(title: str, probes: list[tuple[str, object]]) -> dict:  # type: ignore[type-arg]
    return probe_case(title, probes, COLUMNS, ROW)


tests = [case(title, probes) for title, probes in FAMILIES.items()] + refused()

if __name__ == "__main__":
    write_cases(sys.argv[1], __doc__, tests)
