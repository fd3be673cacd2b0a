"""A JSON_SR schema node whose ``type`` lists several types (``{"type": ["null", "string", "integer"]}``) is
what the JSON Schema library ksqlDB's Connect converter uses reads as an ``anyOf`` of one schema per listed
type, in order (the node's other keywords - ``items``, ``properties`` - going to the type they belong to), so
it is a union like any other (``json_sr._union_struct``): one field per non-null type named
``io.confluent.connect.json.OneOf.field.<i>``, NULL when the value is null; with one non-null type it is that
type. Before, several types were refused as Unsupported (the case was skipped). Type lists x positions (a
column, an ARRAY element, a STRUCT field).

Writes tests/cases/serde/json-sr-type-lists.json: ``python tests/cases/serde/json_sr_type_lists_gen.py
tests/cases/serde/json-sr-type-lists.json`` after changing this file.
"""
import json
import sys

F = "IO.CONFLUENT.CONNECT.JSON.ONEOF.FIELD."

# (type list, extra keywords, [(SQL type of each non-null type)], values, index of the type each value is)
LISTS = [
    (["string", "integer"], {}, ["STRING", "BIGINT"], ["x", 5], [0, 1]),
    (["null", "string", "integer"], {}, ["STRING", "BIGINT"], ["x", 5, None], [0, 1, None]),
    (["integer", "string"], {}, ["BIGINT", "STRING"], ["x", 5], [1, 0]),
    (["boolean", "number"], {}, ["BOOLEAN", "DOUBLE"], [True, 1.5], [0, 1]),
    (["string", "array"], {"items": {"type": "integer"}}, ["STRING", "ARRAY<BIGINT>"], ["x", [1, 2]], [0, 1]),
    (["string", "object"], {"properties": {"A": {"type": "integer"}}}, ["STRING", "STRUCT<A BIGINT>"],
     ["x", {"A": 1}], [0, 1]),
]
SINGLE = [(["null", "string"], "STRING", ["x", None]), (["integer", "null"], "BIGINT", [5, None])]

POSITIONS = {
    "a column": (lambda s: s, lambda t: t, lambda v: v),
    "an ARRAY element": (lambda s: {"type": "array", "items": s}, lambda t: f"ARRAY<{t}>", lambda v: [v]),
    "a STRUCT field": (lambda s: {"type": "object", "properties": {"F": s}}, lambda t: f"STRUCT<F {t}>",
                       lambda v: {"F": v}),
}


def union_value(types: list[str], v, i):  # type: ignore[no-untyped-def]
    return None if i is None else {f"{F}{j}": (v if j == i else None) for j in range(len(types))}


def case(name: str, node: dict, sql: str, inputs: list, outputs: list) -> dict:
    return {
        "name": name,
        "statements": ["CREATE STREAM INPUT WITH (kafka_topic='input', value_format='JSON_SR');",
                       "CREATE STREAM OUTPUT AS SELECT * FROM INPUT;"],
        "topics": [{"name": "input", "valueFormat": "JSON_SR", "partitions": 1,
                    "valueSchema": {"type": "object", "properties": {"U": node, "N": {"type": "integer"}}}}],
        "inputs": [{"topic": "input", "key": None, "value": {"U": v, "N": n}, "timestamp": n}
                   for n, v in enumerate(inputs)],
        "outputs": [{"topic": "OUTPUT", "key": None, "value": {"U": v, "N": n}, "timestamp": n}
                    for n, v in enumerate(outputs)],
        "post": {"sources": [{"name": "INPUT", "type": "stream", "schema": f"U {sql}, N BIGINT"}]},
    }


tests = []
for where, (wrap, sql_of, value_of) in POSITIONS.items():
    for types, extra, sqls, values, picks in LISTS:
        union_sql = "STRUCT<" + ", ".join(f"`{F}{j}` {t}" for j, t in enumerate(sqls)) + ">"
        outs = [union_value(sqls, v, i) for v, i in zip(values, picks, strict=True)]
        tests.append(case(f"JSON_SR type {json.dumps(types)} as {where} is a union STRUCT",
                          wrap({"type": types, **extra}), sql_of(union_sql),
                          [value_of(v) for v in values],
                          [None if o is None and where == "a column" else value_of(o) for o in outs]))
    for types, sql, values in SINGLE:
        tests.append(case(f"JSON_SR type {json.dumps(types)} as {where} is {sql}", wrap({"type": types}),
                          sql_of(sql), [value_of(v) for v in values],
                          [None if v is None and where == "a column" else value_of(v) for v in values]))

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, f, indent=2)
        f.write("\n")
