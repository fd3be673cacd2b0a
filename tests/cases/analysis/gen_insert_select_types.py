"""INSERT INTO ... SELECT: which result columns a sink takes. ksqlDB's EngineExecutor.validateExistingSink checks
LogicalSchema.compatibleSchema - the same columns in order, each type equal to the sink's or a DECIMAL that widens
into the sink's DECIMAL (SqlDecimal.canImplicitlyCast); no other implicit cast (INT into BIGINT, INT into DOUBLE,
INT into DECIMAL are refused: nothing would convert the values). Before that check the logical planner rewrites
a numeric literal projected into a DECIMAL column as a DECIMAL literal when its digits fit
(ImplicitlyCastResolver: INT, BIGINT, DOUBLE and DECIMAL literals; a column never). All from memory of ksqlDB's
sources; the refusal reads ``Incompatible schema between results and sink.`` then both schemas.

Writes tests/cases/analysis/insert-select-types.json: ``python tests/cases/analysis/gen_insert_select_types.py
tests/cases/analysis/insert-select-types.json`` after changing this file.
"""
import json
import re
import sys

SOURCE = ("CREATE STREAM SRC (K STRING KEY, I INT, B BIGINT, D DOUBLE, DC DECIMAL(3, 1), DW DECIMAL(8, 4), S STRING, "
          "AI ARRAY<INT>) WITH (kafka_topic='src', value_format='JSON', partitions=1);")
ROW = {"I": 7, "B": 70, "D": 1.5, "DC": 12.5, "DW": 1234.5678, "S": "x", "AI": [1]}

DEC = "\u0000DEC"  # a DECIMAL expectation: written as a number with its scale ("1.00"), by _dump

# (sink column type, projected expression, its type as ksqlDB prints it when refused, value written or None)
ACCEPTED: list[tuple[str, str, object]] = [
    ("DECIMAL(3, 1)", "DC", DEC + "12.5"),  # the same type
    ("DECIMAL(5, 2)", "1", DEC + "1.00"),  # INT literal: DECIMAL(1, 0) widens into DECIMAL(5, 2), written so
    ("DECIMAL(5, 2)", "123", DEC + "123.00"),  # three integer digits fit p - s = 3
    ("DECIMAL(12, 0)", "10000000000", DEC + "10000000000"),  # BIGINT literal
    ("DECIMAL(5, 2)", "2.5", DEC + "2.50"),  # DECIMAL literal DECIMAL(2, 1)
    ("DECIMAL(4, 2)", "1.5e0", DEC + "1.50"),  # DOUBLE literal whose Java text fits
    ("BIGINT", "B", 70),
    ("DOUBLE", "D", 1.5),
    ("ARRAY<INT>", "AI", [1]),
]

REFUSED: list[tuple[str, str, str]] = [
    ("BIGINT", "I", "INTEGER"),           # no INT -> BIGINT widening for a column
    ("BIGINT", "1", "INTEGER"),           # nor for a literal: only DECIMAL targets are rewritten
    ("DOUBLE", "I", "INTEGER"),
    ("DOUBLE", "B", "BIGINT"),
    ("DOUBLE", "DC", "DECIMAL(3, 1)"),
    ("DOUBLE", "1", "INTEGER"),
    ("DECIMAL(10, 0)", "I", "INTEGER"),   # a column is never rewritten
    ("DECIMAL(20, 0)", "B", "BIGINT"),
    ("DECIMAL(5, 2)", "1234", "INTEGER"),  # four integer digits do not fit p - s = 3
    ("DECIMAL(5, 2)", "1.234", "DECIMAL(4, 3)"),  # the scale would round
    ("DECIMAL(6, 2)", "DW", "DECIMAL(8, 4)"),  # DECIMAL narrowing
    ("DECIMAL(3, 1)", "DW", "DECIMAL(8, 4)"),
    ("INT", "B", "BIGINT"),
    ("STRING", "I", "INTEGER"),
    ("ARRAY<BIGINT>", "AI", "ARRAY<INTEGER>"),
    ("TIMESTAMP", "S", "STRING"),
]


def _sink(t: str) -> str:
    return f"CREATE STREAM DST (K STRING KEY, X {t}) WITH (kafka_topic='dst', value_format='JSON', partitions=1);"


def accepted(t: str, expr: str, value: object) -> dict:  # type: ignore[type-arg]
    return {
        "name": f"INSERT INTO a {t} column takes {expr}",
        "statements": [SOURCE, _sink(t), f"INSERT INTO DST SELECT K, {expr} AS X FROM SRC;"],
        "inputs": [{"topic": "src", "key": "k", "value": ROW}],
        "outputs": [{"topic": "dst", "key": "k", "value": {"X": value}}],
    }


def refused(t: str, expr: str, printed: str) -> dict:  # type: ignore[type-arg]
    sink_type = {"INT": "INTEGER"}.get(t, t.replace("ARRAY<INT>", "ARRAY<INTEGER>"))
    return {
        "name": f"INSERT INTO a {t} column refuses {expr} ({printed})",
        "statements": [SOURCE, _sink(t), f"INSERT INTO DST SELECT K, {expr} AS X FROM SRC;"],
        "expectedException": {
            "type": "io.confluent.ksql.util.KsqlStatementException",
            "message": "Incompatible schema between results and sink.\n"
                       f"Result schema is `K` STRING KEY, `X` {printed}\n"
                       f"Sink schema is `K` STRING KEY, `X` {sink_type}",
        },
    }


def _dump(doc: object) -> str:
    """JSON text with each DECIMAL marker written as the number it spells."""
    return re.sub(r'"\\u0000DEC(-?[0-9.]+)"', r"\1", json.dumps(doc, indent=1))


def cases() -> list[dict]:  # type: ignore[type-arg]
    """The cases as their file reads back."""
    return json.loads(_dump([accepted(*row) for row in ACCEPTED] + [refused(*row) for row in REFUSED]))


if __name__ == "__main__":
    doc = {"comments": [__doc__.split("\n\n")[0].replace("\n", " ")],
           "tests": [accepted(*row) for row in ACCEPTED] + [refused(*row) for row in REFUSED]}
    with open(sys.argv[1], "w") as f:
        f.write(_dump(doc) + "\n")
