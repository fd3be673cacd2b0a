"""The order of the STRUCT fields ksqlDB infers from a JSON Schema object whose properties lack
``connect.index`` (from memory of Connect's JsonSchemaData.toConnectSchema and the everit JSON Schema library):

- the library keeps an object's ``properties`` in a ``java.util.HashMap`` (org.json's JSONObject, everit's
  ObjectSchema builder), so JsonSchemaData meets them in HashMap order - by bucket (``String.hashCode`` with
  its high half folded in, masked by the capacity: 16, doubled whenever more than 3/4 full), then as written;
- each property goes to the position its ``connect.index`` names or, without one, to the number of
  properties placed so far; a later property placed at a taken position replaces the earlier one (its
  field is gone); the fields are ordered by position;
- a ``$ref`` property keeps the ``connect.index`` written beside the reference.

The order shows in the inferred columns (``post.sources``), in STRUCT fields at any depth, and in the fields
of a JSON_SR key (inferred as one ROWKEY STRUCT). Values are read through a JSON sink, so what is compared is what was read.

Writes tests/cases/serde/json-sr-field-order.json: ``python tests/cases/serde/json_sr_field_order_gen.py
tests/cases/serde/json-sr-field-order.json`` after changing this file.
"""
import json
import sys

INT = {"type": "integer", "connect.type": "int32"}
STR = {"type": "string"}


def java_bucket_order(names):  # type: ignore[no-untyped-def]
    """``names`` in the order a java.util.HashMap filled with them in this order iterates them."""
    capacity = 16
    while len(names) > capacity * 3 // 4:
        capacity *= 2

    def spread(name):  # type: ignore[no-untyped-def]
        h = 0
        units = [int.from_bytes(name.encode("utf-16-be")[i:i + 2], "big") for i in range(0, 2 * len(name), 2)]
        for u in units:
            h = (h * 31 + u) % 2 ** 32
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(names, key=lambda n: (spread(n), names.index(n)))


def struct_of(props, indexes=None):  # type: ignore[no-untyped-def]
    """The STRUCT fields of an object with ``props`` (name -> type), ``indexes`` their connect.index."""
    indexes = indexes or {}
    placed = {}
    for name in java_bucket_order(list(props)):
        placed[indexes.get(name, len(placed))] = name
    return [placed[i] for i in sorted(placed)]


def value_case(name, props, types, indexes=None, value=None):  # type: ignore[no-untyped-def]
    indexes = indexes or {}
    schema = {"type": "object", "properties": {
        n: {**s, **({"connect.index": indexes[n]} if n in indexes else {})} for n, s in props.items()}}
    fields = struct_of(props, indexes)
    value = value or {n: (i + 1 if props[n] is INT else f"v{i}") for i, n in enumerate(props)}
    case = {
        "name": f"JSON_SR columns without connect.index: {name}",
        "statements": ["CREATE STREAM INPUT WITH (kafka_topic='input', value_format='JSON_SR');",
                       "CREATE STREAM OUTPUT WITH (value_format='JSON') AS SELECT * FROM INPUT;"],
        "topics": [{"name": "input", "valueFormat": "JSON_SR", "valueSchema": schema, "partitions": 1}],
        "inputs": [{"topic": "input", "key": None, "value": value}],
        "outputs": [{"topic": "OUTPUT", "key": None, "value": {f.upper(): value.get(f) for f in fields}}],
        "post": {"sources": [{"name": "INPUT", "type": "stream",
                              "schema": ", ".join(f"`{f.upper()}` {types[f]}" for f in fields)}]},
    }
    return case


tests = []
# written in reverse alphabetical order; HashMap order is none of document, alphabetical or reverse
NAMES = ["ZED", "ID", "NAME", "AGE", "CITY"]
tests.append(value_case("five properties in HashMap order", {n: (INT if n in ("ID", "AGE") else STR) for n in NAMES},
                        {n: ("INTEGER" if n in ("ID", "AGE") else "STRING") for n in NAMES}))
# thirteen properties: the map has grown to 32 buckets
MANY = [f"C{i}" for i in range(13, 0, -1)]
tests.append(value_case("thirteen properties (the map grown to 32 buckets)", {n: INT for n in MANY},
                        {n: "INTEGER" for n in MANY}))
# lower-case names (upper-cased as columns; the hash is of the name as written)
LOWER = ["total", "user_id", "item"]
tests.append(value_case("lower-case names hash as written", {n: STR for n in LOWER}, {n: "STRING" for n in LOWER}))
# two names in one bucket: the order they were written in
SAME = ["Q", "A"]  # 81 & 15 == 65 & 15 == 1
tests.append(value_case("names sharing a bucket keep their written order", {n: INT for n in SAME},
                        {n: "INTEGER" for n in SAME}))
# some properties with connect.index, one without: placed at the count so far, replacing what was there
MIXED = {"A": INT, "B": INT, "C": STR}
tests.append(value_case("a property without connect.index replaces the one at the count so far",
                        MIXED, {"A": "INTEGER", "B": "INTEGER", "C": "STRING"}, indexes={"A": 1, "C": 0}))
tests.append(value_case("connect.index on every property decides alone",
                        {"ZED": INT, "ID": STR}, {"ZED": "INTEGER", "ID": "STRING"}, indexes={"ZED": 0, "ID": 1}))

# nested: a STRUCT column's fields, and a $ref property keeping its connect.index
INNER = ["ZED", "ID", "NAME"]
inner_order = struct_of({n: STR for n in INNER})
tests.append({
    "name": "JSON_SR STRUCT fields without connect.index: HashMap order inside the column",
    "statements": ["CREATE STREAM INPUT WITH (kafka_topic='input', value_format='JSON_SR');",
                   "CREATE STREAM OUTPUT WITH (value_format='JSON') AS SELECT * FROM INPUT;"],
    "topics": [{"name": "input", "valueFormat": "JSON_SR", "partitions": 1, "valueSchema": {
        "type": "object", "properties": {
            "S": {"type": "object", "connect.index": 0, "properties": {n: STR for n in INNER}},
            "N": {**INT, "connect.index": 1}}}}],
    "inputs": [{"topic": "input", "key": None, "value": {"S": {"ZED": "z", "ID": "i", "NAME": "n"}, "N": 1}}],
    "outputs": [{"topic": "OUTPUT", "key": None, "value": {"S": {"ZED": "z", "ID": "i", "NAME": "n"}, "N": 1}}],
    "post": {"sources": [{"name": "INPUT", "type": "stream",
                          "schema": "S STRUCT<" + ", ".join(f"`{n}` STRING" for n in inner_order) + ">, N INTEGER"}]},
})
tests.append({
    "name": "JSON_SR a $ref property keeps the connect.index written beside the reference",
    "statements": ["CREATE STREAM INPUT WITH (kafka_topic='input', value_format='JSON_SR');",
                   "CREATE STREAM OUTPUT WITH (value_format='JSON') AS SELECT * FROM INPUT;"],
    "topics": [{"name": "input", "valueFormat": "JSON_SR", "partitions": 1, "valueSchema": {
        "type": "object",
        "definitions": {"P": {"type": "object", "connect.index": 0, "properties": {"X": INT}}},
        # "at" comes before "id" in HashMap order: without its own index "at" would sit at 0 and "id" replace it
        "properties": {"id": {**INT, "connect.index": 0}, "at": {"$ref": "#/definitions/P", "connect.index": 1}}}}],
    "inputs": [{"topic": "input", "key": None, "value": {"id": 1, "at": {"X": 2}}}],
    "outputs": [{"topic": "OUTPUT", "key": None, "value": {"ID": 1, "AT": {"X": 2}}}],
    "post": {"sources": [{"name": "INPUT", "type": "stream", "schema": "ID INTEGER, `AT` STRUCT<X INTEGER>"}]},
})
KEYS = ["ZED", "ID", "NAME"]
key_order = struct_of({n: STR for n in KEYS})
tests.append({
    "name": "JSON_SR key STRUCT fields without connect.index: HashMap order (the key is one STRUCT column)",
    "statements": ["CREATE STREAM INPUT WITH (kafka_topic='input', format='JSON_SR');",
                   "CREATE STREAM OUTPUT WITH (format='JSON') AS SELECT * FROM INPUT;"],
    "topics": [{"name": "input", "keyFormat": "JSON_SR", "valueFormat": "JSON_SR", "partitions": 1,
                "keySchema": {"type": "object", "properties": {n: STR for n in KEYS}},
                "valueSchema": {"type": "object", "properties": {"V": INT}}}],
    "inputs": [{"topic": "input", "key": {"ZED": "z", "ID": "i", "NAME": "n"}, "value": {"V": 1}}],
    "outputs": [{"topic": "OUTPUT", "key": {"ZED": "z", "ID": "i", "NAME": "n"}, "value": {"V": 1}}],
    "post": {"sources": [{"name": "INPUT", "type": "stream",
                          "schema": "ROWKEY STRUCT<" + ", ".join(f"`{n}` STRING" for n in key_order)
                                    + "> KEY, V INTEGER"}]},
})

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, f, indent=1)
        f.write("\n")
    print(len(tests))
