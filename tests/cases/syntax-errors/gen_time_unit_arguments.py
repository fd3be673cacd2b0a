"""Writes tests/cases/syntax-errors/time-unit-arguments.json: which words are a time unit as a call's argument.

ksqlDB's rule (from memory of SqlBase.g4): ``functionArgument : expression | windowUnit`` with ``windowUnit`` the ten
lexer keywords DAY HOUR MINUTE SECOND MILLISECOND DAYS HOURS MINUTES SECONDS MILLISECONDS; the AstBuilder makes an
IntervalUnit of it (WindowExpression.getWindowUnit: a singular word gets its 'S'). The four singular words DAY, HOUR,
MINUTE and SECOND are also in ``nonReserved``, so they are identifiers too: the argument is ambiguous and ANTLR
takes the first alternative, an expression - a column reference. So, in any call and any argument position:
- DAYS HOURS MINUTES SECONDS MILLISECONDS MILLISECOND (any case) are units;
- DAY HOUR MINUTE SECOND, MONTH, YEAR (non-reserved keywords) and WEEKS, NANOSECONDS, MICROSECONDS (no keyword at
  all) are column names: 'cannot be resolved' without such a column, a parameter type mismatch with one;
- MONTHS and YEARS are keywords reserved and no windowUnit: no call form begins with them - ANTLR's prediction
  fails there ("Syntax error at or near 'MONTHS'");
- a back-quoted unit is an identifier, and a unit in brackets is an expression (a reserved word there: the
  mismatch over the expression's long first set, no detail).

Run ``python tests/cases/syntax-errors/gen_time_unit_arguments.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Case = dict[str, Any]
PARSE_FAILED = "io.confluent.ksql.parser.exception.ParseFailedException"
STATEMENT_FAILED = "io.confluent.ksql.util.KsqlStatementException"
SOURCE = ("CREATE STREAM S (K STRING KEY, TS TIMESTAMP, D DATE, T TIME, N INT) "
          "WITH (kafka_topic='s', value_format='JSON', partitions=1);")
INPUT = {"topic": "s", "key": "a", "value": {"TS": 1000, "D": 10, "T": 1000, "N": 1}}
UNIT_MS = {"DAYS": 86_400_000, "HOURS": 3_600_000, "MINUTES": 60_000, "SECONDS": 1_000, "MILLISECONDS": 1}
# every spelling of a unit: the windowUnit keywords ANTLR takes as a unit, the word's case as written
UNIT_SPELLINGS = {"DAYS": "DAYS", "days": "DAYS", "Hours": "HOURS", "MINUTES": "MINUTES", "seconds": "SECONDS",
                  "MILLISECONDS": "MILLISECONDS", "MILLISECOND": "MILLISECONDS", "millisecond": "MILLISECONDS"}
NAMES = ["DAY", "HOUR", "MINUTE", "SECOND", "MONTH", "YEAR", "WEEKS", "WEEK", "NANOSECONDS", "MICROSECONDS"]
RESERVED_NON_UNITS = ["MONTHS", "YEARS", "Months"]
PREFIX = "CREATE STREAM O AS SELECT K, "


def query(call: str) -> str:
    return f"{PREFIX}{call} AS X FROM S;"


def unit_cases() -> list[Case]:
    """Each unit spelling in the TIMESTAMP, DATE and TIME families, adding and subtracting."""
    out: list[Case] = []
    for spelling, unit in UNIT_SPELLINGS.items():
        ms = UNIT_MS[unit]
        two_days = 2 * 86_400_000 // ms  # an amount that is two days in this unit (an INT for every unit)
        calls = {
            f"TIMESTAMPADD({spelling}, 3, TS)": 1000 + 3 * ms,
            f"TIMESTAMPSUB({spelling}, 3, TS)": 1000 - 3 * ms,
            # DateAdd: the days of (date's ms + the unit's ms)
            f"DATEADD({spelling}, {two_days}, D)": 12,
            f"DATESUB({spelling}, {two_days}, D)": 8,
        }
        if ms < 86_400_000:  # TimeAdd wraps at midnight: one hour in the unit
            calls[f"TIMEADD({spelling}, {3_600_000 // ms}, T)"] = 3_601_000
            calls[f"TIMESUB({spelling}, {3_600_000 // ms}, T)"] = 1000 - 3_600_000 + 86_400_000
        for call, value in calls.items():
            out.append({
                "name": f"{call.split('(')[0]}: {spelling} is the time unit {unit}",
                "statements": [SOURCE, query(call)],
                "inputs": [INPUT],
                "outputs": [{"topic": "O", "key": "a", "value": {"X": value}}],
            })
    return out


def name_cases() -> list[Case]:
    """Words that are no windowUnit, or that ANTLR takes as an identifier first: column references."""
    out: list[Case] = []
    for word in NAMES:
        call = f"TIMESTAMPADD({word}, 3, TS)"
        out.append({
            "name": f"TIMESTAMPADD: {word} is a column name, unknown",
            "statements": [SOURCE, query(call)],
            "expectedException": {"type": STATEMENT_FAILED,
                                  "message": f"SELECT column '{word}' cannot be resolved."},
        })
    for word in ["DAY", "SECOND", "WEEKS"]:
        # the source has the column: the call is resolved with it - an INT where the unit goes
        source = SOURCE.replace("N INT", f"{word} INT")
        out.append({
            "name": f"TIMESTAMPADD: {word} is a column name, an INT where the unit goes",
            "statements": [source, query(f"TIMESTAMPADD({word}, 3, TS)")],
            "expectedException": {
                "type": STATEMENT_FAILED,
                "message": "Function 'timestampadd' does not accept parameters (INTEGER, INTEGER, TIMESTAMP)."},
        })
    out.append({
        "name": "TIMESTAMPADD: a back-quoted unit word is a column name",
        "statements": [SOURCE, query("TIMESTAMPADD(`DAYS`, 3, TS)")],
        "expectedException": {"type": STATEMENT_FAILED, "message": "SELECT column 'DAYS' cannot be resolved."},
    })
    return out


def reserved_cases() -> list[Case]:
    """MONTHS and YEARS: reserved, and no unit - the call's form cannot be predicted at them."""
    out: list[Case] = []
    column = len(PREFIX) + len("TIMESTAMPADD(") + 1
    for word in RESERVED_NON_UNITS:
        statement = query(f"TIMESTAMPADD({word}, 3, TS)")
        out.append({
            "name": f"TIMESTAMPADD: {word} is a reserved word and no time unit",
            "statements": [SOURCE, statement],
            "expectedException": {
                "type": PARSE_FAILED,
                "message": f"line 2:{column}: Syntax Error\nSyntax error at or near '{word}' at line 2:{column}\n"
                           f"Statement: {statement}"},
        })
    statement = query("TIMESTAMPADD((DAYS), 3, TS)")
    out.append({
        "name": "TIMESTAMPADD: a unit in brackets is an expression, where a reserved word begins none",
        "statements": [SOURCE, statement],
        "expectedException": {"type": PARSE_FAILED,
                              "message": f"line 2:{column + 1}: Syntax Error\n\nStatement: {statement}"},
    })
    statement = query("TIMESTAMPADD(DAYS + 1, 3, TS)")
    out.append({
        "name": "TIMESTAMPADD: a unit is a whole argument, never an operand",
        "statements": [SOURCE, statement],
        "expectedException": {"type": PARSE_FAILED,
                              "message": f"line 2:{column + 5}: Syntax Error\nExpecting {{',', ')'}}\n"
                                         f"Statement: {statement}"},
    })
    return out


def main() -> None:
    tests = unit_cases() + name_cases() + reserved_cases()
    path = Path(__file__).with_name("time-unit-arguments.json")
    path.write_text(json.dumps({"comments": ["Generated by gen_time_unit_arguments.py; see its docstring."],
                                "tests": tests}, indent=2) + "\n")
    print(f"{len(tests)} cases -> {path}")


if __name__ == "__main__":
    main()
