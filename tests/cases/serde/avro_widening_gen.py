"""AVRO read into declared columns of other types, over every Avro type x column type: Kafka Connect's
widening on read (ksqlDB's ConnectDataTranslator) and nothing else - INT takes int; BIGINT int or long;
DOUBLE float or double; STRING int, long, boolean (Java's String.valueOf: ``true``), string and enum symbols -
never float or double (ConnectDataTranslator's STRING_ACCEPTABLE_TYPES); BOOLEAN, BYTES, ARRAY, MAP and STRUCT only their own kind (elements, values and fields by the same
rule). Any other pairing fails the record (processing log) - a NULL in the field too, the writer's schema being
checked before the value (ConnectDataTranslator.validateSchema); the query keeps reading the next one.

Writes tests/cases/serde/avro-widening.json: ``python tests/cases/serde/avro_widening_gen.py
tests/cases/serde/avro-widening.json`` after changing this file.
"""
import json
import sys

DROP = object()
# Avro type written -> (its schema, the value written)
WRITTEN = {
    "int": ("int", 5), "long": ("long", 5000000000), "float": ("float", 1.5), "double": ("double", 2.5),
    "boolean": ("boolean", True), "string": ("string", "s"), "bytes": ("bytes", "AQI="),
    "array<int>": ({"type": "array", "items": "int"}, [1, 2]), "map<int>": ({"type": "map", "values": "int"}, {"k": 1}),
    "record": ({"type": "record", "name": "N", "fields": [{"name": "A", "type": ["null", "int"]}]}, {"A": 1}),
    "enum": ({"type": "enum", "name": "E", "symbols": ["X", "Y"]}, "Y"),
}
READ = ["INT", "BIGINT", "DOUBLE", "BOOLEAN", "STRING", "BYTES", "ARRAY<BIGINT>", "MAP<STRING, BIGINT>",
        "STRUCT<A BIGINT>"]


def rule(written: str, read: str) -> object:
    """The column's value, or DROP."""
    value = WRITTEN[written][1]
    accepts = {
        "INT": {"int": value}, "BIGINT": {"int": value, "long": value},
        "DOUBLE": {"float": value, "double": value}, "BOOLEAN": {"boolean": value},
        "STRING": {"int": "5", "long": "5000000000", "boolean": "true",
                   "string": "s", "enum": "Y"},
        "BYTES": {"bytes": value}, "ARRAY<BIGINT>": {"array<int>": value}, "MAP<STRING, BIGINT>": {"map<int>": value},
        "STRUCT<A BIGINT>": {"record": value},
    }[read]
    return accepts.get(written, DROP)


tests = []
for written, (schema, value) in WRITTEN.items():
    statements, outputs = [], []
    for i, read in enumerate(READ):
        statements.append(f"CREATE STREAM R{i} (K STRING KEY, C {read}) WITH (kafka_topic='i', key_format='KAFKA', "
                          "value_format='AVRO');")
        statements.append(f"CREATE STREAM O{i} WITH (value_format='JSON') AS SELECT * FROM R{i};")
        got = rule(written, read)
        if got is not DROP:  # the schema is checked before the value: a NULL under a wrong schema fails too
            outputs.append({"topic": f"O{i}", "key": "a", "value": {"C": got}})
            outputs.append({"topic": f"O{i}", "key": "n", "value": {"C": None}})
    tests.append({
        "name": f"AVRO {written} read as each column type: "
                + ", ".join(r for r in READ if rule(written, r) is not DROP)
                + " read it and its NULL, the others drop both records",
        "statements": statements,
        "topics": [{"name": "i", "valueFormat": "AVRO", "valueSchema": {
            "type": "record", "name": "R", "fields": [{"name": "C", "type": ["null", schema]}]}}],
        "inputs": [{"topic": "i", "key": "a", "value": {"C": value}}, {"topic": "i", "key": "n", "value": {"C": None}}],
        "outputs": outputs,
    })

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({"comments": [__doc__.split("\n\n")[0]], "tests": tests}, f, indent=2)
        f.write("\n")
