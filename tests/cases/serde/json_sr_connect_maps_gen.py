"""A registered JSON_SR schema's map in Connect's array form - ``{"type": "array", "connect.type": "map",
"items": {"type": "object", "properties": {"key": K, "value": V}}}``, how JsonSchemaData writes a map whose
keys are not strings - is a MAP<K, V> to ksqlDB's schema inference (``JsonSchemaData.toConnectSchema``), not
an ARRAY of STRUCTs. Over the map's positions (a column, a STRUCT field, an ARRAY element, a MAP value) x key
types: STRING keys make a MAP<STRING, V> source that reads a map from either form JsonSchemaData's
``toConnectData`` takes (ksqlDB reads JSON_SR through Connect's JsonSchemaConverter by default,
``ksql.json_sr.converter.deserializer.enabled``): an object, or an array of ``{"key", "value"}`` entries; the
sink writes the object form. Any other key type is refused by the JSON formats' STRING-key rule when the
source is created. Also any MAP column of a JSON_SR source given as entries: by the schema's type, not its form.

Writes tests/cases/serde/json-sr-connect-maps.json: ``python tests/cases/serde/json_sr_connect_maps_gen.py
tests/cases/serde/json-sr-connect-maps.json`` after changing this file.
"""
import json
import sys

I32 = {"type": "integer", "connect.type": "int32"}
KEYS = {
    "STRING": {"type": "string"},
    "INTEGER": I32,
    "BIGINT": {"type": "integer", "connect.type": "int64"},
    "BOOLEAN": {"type": "boolean"},
    "DOUBLE": {"type": "number", "connect.type": "float64"},
}


def entries(k: dict, v: dict) -> dict:
    return {"type": "array", "connect.type": "map",
            "items": {"type": "object", "properties": {"key": k, "value": v}}}


def optional(s: dict) -> dict:
    return {"oneOf": [{"type": "null"}, s]}


# position -> (schema of the column holding the map, its SQL type given the map's, a value holding {"a": 1})
POSITIONS = {
    "column": (lambda m: m, lambda t: t, lambda m: m),
    "STRUCT field": (lambda m: {"type": "object", "properties": {"F": {**optional(m), "connect.index": 0}}},
                     lambda t: f"STRUCT<F {t}>", lambda m: {"F": m}),
    "ARRAY element": (lambda m: {"type": "array", "items": optional(m)}, lambda t: f"ARRAY<{t}>",
                      lambda m: [m]),
    "MAP value": (lambda m: {"type": "object", "connect.type": "map", "additionalProperties": optional(m)},
                  lambda t: f"MAP<STRING, {t}>", lambda m: {"x": m}),
}


def source_schema(column: dict) -> dict:
    return {"type": "object", "properties": {"C": {**optional(column), "connect.index": 0},
                                             "N": {**optional(I32), "connect.index": 1}}}


tests = []
for where, (wrap, sql, value) in POSITIONS.items():
    for key_name, key_schema in KEYS.items():
        schema = source_schema(wrap(entries(key_schema, I32)))
        map_type = f"MAP<{key_name}, INTEGER>"
        case = {
            "name": f"JSON_SR connect.type map array with {key_name} keys as a {where} is {map_type}",
            "statements": [
                "CREATE STREAM INPUT WITH (kafka_topic='input', value_format='JSON_SR');",
            ],
            "topics": [{"name": "input", "valueSchema": schema, "valueFormat": "JSON_SR", "partitions": 1}],
        }
        if key_name != "STRING":
            case["expectedException"] = {"type": "io.confluent.ksql.util.KsqlStatementException",
                                         "message": "JSON only supports MAP types with STRING keys"}
        else:
            case["statements"].append("CREATE STREAM OUTPUT AS SELECT * FROM INPUT;")
            case["inputs"] = [
                {"topic": "input", "key": None, "value": {"C": value({"a": 1}), "N": 1}, "timestamp": 0},
                {"topic": "input", "key": None, "value": {"C": value([{"key": "a", "value": 1}]), "N": 2},
                 "timestamp": 1},
                {"topic": "input", "key": None, "value": {"C": None, "N": 3}, "timestamp": 2},
            ]
            case["outputs"] = [
                {"topic": "OUTPUT", "key": None, "value": {"C": value({"a": 1}), "N": 1}, "timestamp": 0},
                {"topic": "OUTPUT", "key": None, "value": {"C": value({"a": 1}), "N": 2}, "timestamp": 1},
                {"topic": "OUTPUT", "key": None, "value": {"C": None, "N": 3}, "timestamp": 2},
            ]
            case["post"] = {"sources": [{"name": "INPUT", "type": "stream",
                                         "schema": f"C {sql(map_type)}, N INTEGER"}]}
        tests.append(case)

# a MAP column declared in SQL (the registered schema is the object form ksqlDB generates) reads entries too
tests.append({
    "name": "JSON_SR MAP<STRING, INTEGER> columns read an array of key/value entries as Connect does",
    "statements": [
        "CREATE STREAM INPUT (K STRING KEY, M MAP<STRING, INTEGER>, A ARRAY<MAP<STRING, STRING>>, "
        "S STRUCT<N MAP<STRING, DOUBLE>>) WITH (kafka_topic='input', format='JSON_SR', partitions=1);",
        "CREATE STREAM OUTPUT AS SELECT K, M['a'] AS MA, A[1]['x'] AS AX, S->N['d'] AS SD FROM INPUT;",
    ],
    "inputs": [
        {"topic": "input", "key": "k", "value": {"M": [{"key": "a", "value": 1}, {"key": "b", "value": 2}],
                                                "A": [[{"key": "x", "value": "y"}]],
                                                "S": {"N": [{"key": "d", "value": 1.5}]}}, "timestamp": 0},
        {"topic": "input", "key": "k", "value": {"M": [], "A": [[]], "S": {"N": []}}, "timestamp": 1},
        {"topic": "input", "key": "k", "value": {"M": {"a": 3}, "A": [{"x": "z"}], "S": {"N": {"d": 2.5}}},
         "timestamp": 3},
    ],
    "outputs": [
        {"topic": "OUTPUT", "key": "k", "value": {"MA": 1, "AX": "y", "SD": 1.5}, "timestamp": 0},
        {"topic": "OUTPUT", "key": "k", "value": {"MA": None, "AX": None, "SD": None}, "timestamp": 1},
        {"topic": "OUTPUT", "key": "k", "value": {"MA": 3, "AX": "z", "SD": 2.5}, "timestamp": 3},
    ],
})

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, f, indent=2)
        f.write("\n")
