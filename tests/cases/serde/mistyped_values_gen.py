"""Values that do not match their column's type, per format and type (reference 4.2, 4.3, 4.6): ksqlDB
either coerces them (JSON's KsqlJsonDeserializer: numeric text into numbers, any scalar or container into
STRING, numbers narrowed as Java does), reads them by the format's Java parser (DELIMITED: Boolean.parseBoolean,
Integer.parseInt, Double.parseDouble, new BigDecimal, base64), reinterprets the bytes (KAFKA: a value of the
width the column needs), or drops the record to the processing log - and the query goes on with the next.

Writes tests/cases/serde/mistyped-values.json: ``python tests/cases/serde/mistyped_values_gen.py
tests/cases/serde/mistyped-values.json`` after changing this file.
"""
import base64
import json
import string
import sys
from decimal import Decimal

DROP = object()
JSON_INPUTS = ["abc", "12", "-7", 12, 1.5, -1.5, True, {"A": 1}, [1], "AQID", None]
TYPES = ["BOOLEAN", "INT", "BIGINT", "DOUBLE", "STRING", "DECIMAL(4,1)", "BYTES", "TIMESTAMP", "TIME",
         "ARRAY<INT>", "MAP<STRING, INT>", "STRUCT<A INT>"]


def _int_text(s: str) -> int | None:
    body = s[1:] if s[:1] in "+-" else s
    return int(s) if body.isdigit() else None


def json_rule(t: str, v: object) -> object:
    """What ksqlDB's JSON reader makes of ``v`` in a column of type ``t`` (DROP: the record is dropped)."""
    if v is None:
        return None
    if t == "BOOLEAN":
        return v if isinstance(v, bool) else DROP
    if t in ("INT", "BIGINT", "TIMESTAMP", "TIME"):
        if isinstance(v, bool) or isinstance(v, dict | list):
            return DROP
        n = int(v) if isinstance(v, int | float) else _int_text(v)  # (int() truncates toward zero, as Java)
        if n is None or (t == "TIME" and not 0 <= n <= 86400000):
            return DROP
        return n
    if t == "DOUBLE":
        if isinstance(v, bool) or isinstance(v, dict | list):
            return DROP
        if isinstance(v, str):
            try:
                return float(v)
            except ValueError:
                return DROP
        return float(v)
    if t == "STRING":
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, dict):
            return json.dumps(v, separators=(",", ":"))
        if isinstance(v, list):
            return "[" + ", ".join(str(e) for e in v) + "]"
        return str(v)
    if t == "DECIMAL(4,1)":
        if isinstance(v, bool) or isinstance(v, dict | list):
            return DROP
        try:
            d = Decimal(str(v))
        except ArithmeticError:
            return DROP
        q = d.quantize(Decimal("0.1"))
        return float(q) if q == d and abs(d) < 1000 else DROP
    if t == "BYTES":
        return v if v in ("AQID",) else DROP  # base64 text only ('abc' and '12' are not whole base64 units)
    if t == "ARRAY<INT>":
        return v if isinstance(v, list) else DROP
    if t == "MAP<STRING, INT>":
        return v if isinstance(v, dict) else DROP
    if t == "STRUCT<A INT>":
        return v if isinstance(v, dict) else DROP
    raise AssertionError(t)


DELIMITED_INPUTS = ["abc", "12", "-7", " 12", "1.5", "TRUE", "true", "", '""', "AQID", "1e2", "\"1,5\""]
DELIMITED_TYPES = ["BOOLEAN", "INT", "BIGINT", "DOUBLE", "STRING", "DECIMAL(4,1)", "BYTES", "TIMESTAMP"]


def delimited_rule(t: str, s: str) -> object:
    """What ksqlDB's DELIMITED reader makes of field text ``s`` (an empty field is NULL for every type; zero
    bytes are no CSV record at all: 'No fields in record', dropped)."""
    if s == "":
        return DROP
    text = s[1:-1] if s.startswith('"') else s
    if text == "":
        return None
    if "," in s and not s.startswith('"'):
        return DROP
    if t == "STRING":
        return text
    if t == "BOOLEAN":
        return text.lower() == "true"
    if t in ("INT", "BIGINT", "TIMESTAMP"):
        n = _int_text(text)
        return DROP if n is None else n
    if t == "DOUBLE":
        try:
            return float(text)  # Double.parseDouble trims blanks; 'abc', 'TRUE', 'AQID' fail alike
        except ValueError:
            return DROP
    if t == "DECIMAL(4,1)":
        if text != text.strip():
            return DROP  # new BigDecimal takes no blanks
        try:
            d = Decimal(text)
        except ArithmeticError:
            return DROP
        q = d.quantize(Decimal("0.1"))
        return float(q) if q == d and abs(d) < 1000 else DROP
    if t == "BYTES":
        return java_base64(text)
    raise AssertionError(t)


def java_base64(text: str) -> object:
    """Java's basic Base64 decoder: the alphabet only, padding optional, no single-character tail; the bits
    left over in a last unit are ignored. The bytes as the JSON sink writes them (padded base64)."""
    body = text.rstrip("=")
    alphabet = string.ascii_letters + string.digits + "+/"
    if not body or any(c not in alphabet for c in body) or len(body) % 4 == 1 or len(text) - len(body) > 2:
        return DROP
    return base64.b64encode(base64.b64decode(body + "=" * (-len(body) % 4))).decode()


# KAFKA: a value written with one type's serializer, read with another's (the column's width decides)
KAFKA_PAIRS = [
    ("BIGINT", 5, "INT", DROP), ("INT", 5, "BIGINT", DROP), ("INT", 5, "DOUBLE", DROP),
    ("DOUBLE", 1.5, "BIGINT", 4609434218613702656), ("BIGINT", 4609434218613702656, "DOUBLE", 1.5),
    ("STRING", "abcd", "INT", 1633837924), ("STRING", "abc", "INT", DROP), ("INT", 1633837924, "STRING", "abcd"),
    ("STRING", "abcdefgh", "BIGINT", 7017280452245743464), ("BYTES", "AQID", "INT", DROP),
    ("INT", 66051, "BYTES", "AAECAw=="),
]


def _records(rule, types, inputs, fmt):  # type: ignore[no-untyped-def]
    tests = []
    for t in types:
        ins, outs = [], []
        for i, v in enumerate(inputs):
            key = str(i)
            ins.append({"topic": "i", "key": key, "value": {"C": v} if fmt == "JSON" else v})
            got = rule(t, v)
            if got is not DROP:
                outs.append({"topic": "O", "key": key, "value": {"C": got}})
        shown = ", ".join(json.dumps(v) for v in inputs)
        tests.append({
            "name": f"{fmt} into {t}: {shown}",
            "statements": [
                f"CREATE STREAM I (K STRING KEY, C {t}) WITH (kafka_topic='i', value_format='{fmt}');",
                "CREATE STREAM O WITH (value_format='JSON') AS SELECT * FROM I;",
            ],
            "inputs": ins,
            "outputs": outs,
        })
    return tests


tests = _records(json_rule, TYPES, JSON_INPUTS, "JSON") + _records(delimited_rule, DELIMITED_TYPES, DELIMITED_INPUTS,
                                                                   "DELIMITED")
for wt, wv, rt, expected in KAFKA_PAIRS:
    tests.append({
        "name": f"KAFKA {wt} read as {rt}: " + ("the record is dropped" if expected is DROP else "the bytes reinterpreted"),
        "statements": [
            f"CREATE STREAM I (K STRING KEY, C {wt}) WITH (kafka_topic='i', value_format='JSON');",
            "CREATE STREAM W WITH (kafka_topic='w', value_format='KAFKA') AS SELECT * FROM I;",
            f"CREATE STREAM R (K STRING KEY, C {rt}) WITH (kafka_topic='w', value_format='KAFKA');",
            "CREATE STREAM O WITH (value_format='JSON') AS SELECT * FROM R;",
        ],
        "inputs": [{"topic": "i", "key": "a", "value": {"C": wv}}, {"topic": "i", "key": "b", "value": {"C": None}}],
        "outputs": ([] if expected is DROP else [{"topic": "O", "key": "a", "value": {"C": expected}}])
        + [{"topic": "O", "key": "b", "value": None}],  # a NULL column is no bytes: a tombstone
    })

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({"comments": [__doc__.split("\n\n")[0]], "tests": tests}, f, indent=2)
        f.write("\n")
