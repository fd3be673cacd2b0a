"""A DECIMAL wider than 28 digits (Python's default decimal context) keeps every digit through every format
that holds DECIMALs - as a value, as a key, and through arithmetic - and so does the harness that writes and
reads the records (AVRO bytes and fixed, PROTOBUF's confluent.type.Decimal, PROTOBUF_NOSR, JSON numbers,
JSON_SR, DELIMITED text).

Writes tests/cases/serde/wide-decimals.json: ``python tests/cases/serde/wide_decimals_gen.py
tests/cases/serde/wide-decimals.json`` after changing this file. Numbers are written as JSON text, never
through floats.
"""
import sys

WIDE = "123456789012345678901234567890123456789012345.25"
NEG = "-98765432109876543210987654321098765432.10"
SUM = "123456690246913569024691356902469135690246913.15"  # WIDE + NEG
FORMATS = ("AVRO", "JSON", "JSON_SR", "PROTOBUF", "PROTOBUF_NOSR", "DELIMITED")


def record(topic: str, fmt: str, key: str, d: str, e: str | None = None) -> str:
    if fmt == "DELIMITED":
        k = f'"{key}"'
        v = f'"{d},{e}"' if e is not None else f'"{d}"'
    else:
        k = f'{{"K": {key}}}' if fmt.startswith("PROTOBUF") else key
        v = f'{{"D": {d}, "E": {e}}}' if e is not None else f'{{"D": {d}}}'
    return f'{{"topic": "{topic}", "key": {k}, "value": {v}}}'


def case(fmt: str) -> str:
    stmts = [f"CREATE STREAM S (K DECIMAL(50,2) KEY, D DECIMAL(60,2), E DECIMAL(40,2)) WITH (kafka_topic='s', "
             f"format='{fmt}');",
             "CREATE STREAM O AS SELECT K, D, E FROM S;",
             "CREATE STREAM A AS SELECT K, D + E AS D FROM S;"]
    inputs = [record("s", fmt, WIDE, WIDE, NEG)]
    outputs = [record("O", fmt, WIDE, WIDE, NEG), record("A", fmt, WIDE, SUM)]
    name = f"{fmt}: DECIMALs of up to 60 digits keep every digit as key, value and through arithmetic"
    statements = ", ".join(f'"{s}"' for s in stmts)
    return (f'{{"name": "{name}", "statements": [{statements}], "inputs": [{", ".join(inputs)}], '
            f'"outputs": [{", ".join(outputs)}]}}')


COMMENT = __doc__.split("\n\n")[0].replace("\n", " ")
CASES = ",\n".join(case(f) for f in FORMATS)
text = f'{{"comments": ["{COMMENT}"], "tests": [\n{CASES}\n]}}\n'
tests = __import__("json").loads(text)["tests"]

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        f.write(text)
