"""PROTOBUF_NOSR read with other column types than it was written with: protobuf's parser (Java's
``MessageReflection.mergeFieldFrom``) takes a field only in its declared wire type (or, for a repeated
scalar, packed); a field in another wire type is an unknown field and skipped, so the column reads as if
unset - proto3's default, NULL for BYTES and message types, NULL for every primitive under OPTIONAL. A field
in the same wire type is reinterpreted (varints as Java casts them, a length-delimited field as bytes or
as packed elements, a single varint as a one-element repeated field). The record is never dropped.

Writes tests/cases/serde/protobuf-wire-types.json: ``python tests/cases/serde/protobuf_wire_types_gen.py
tests/cases/serde/protobuf-wire-types.json`` after changing this file.
"""
import json
import sys

# written type -> (value given as JSON, wire type)
WRITTEN = {
    "INT": (5, 0), "BIGINT": (5000000000, 0), "BOOLEAN": (True, 0), "DOUBLE": (1.5, 1), "STRING": ("abc", 2),
    "ARRAY<BIGINT>": ([1, 2], 2), "STRUCT<A INT>": ({"A": 1}, 2),
}
# read type -> (wire type, what an unset field reads as: plain proto3, OPTIONAL representation)
READ = {
    "INT": (0, 0, None), "BIGINT": (0, 0, None), "BOOLEAN": (0, False, None), "DOUBLE": (1, 0.0, None),
    "STRING": (2, "", None), "BYTES": (2, None, None), "ARRAY<INT>": (0, [], []), "STRUCT<A INT>": (2, None, None),
    "DECIMAL(4,2)": (2, None, None), "TIMESTAMP": (2, None, None),
}
# same wire type: what the written bytes read as (combinations not listed are not generated)
SAME_WIRE = {
    ("INT", "BIGINT"): 5, ("BIGINT", "INT"): 705032704, ("BOOLEAN", "INT"): 1, ("BOOLEAN", "BIGINT"): 1,
    ("INT", "BOOLEAN"): True, ("BIGINT", "BOOLEAN"): True, ("INT", "ARRAY<INT>"): [5], ("BIGINT", "ARRAY<INT>"): [705032704],
    ("BOOLEAN", "ARRAY<INT>"): [1], ("STRING", "BYTES"): "YWJj", ("STRING", "ARRAY<INT>"): [97, 98, 99],
    ("ARRAY<BIGINT>", "ARRAY<INT>"): [1, 2], ("ARRAY<BIGINT>", "BYTES"): "AQI=", ("STRUCT<A INT>", "BYTES"): "CAE=",
    ("ARRAY<BIGINT>", "STRING"): "\u0001\u0002", ("STRUCT<A INT>", "ARRAY<INT>"): [8, 1],
}


def case(written: str, read: str, rep: str | None) -> dict | None:
    value, wire = WRITTEN[written]
    rwire, plain, optional = READ[read]
    if read.startswith("ARRAY") and wire == 2:
        same = True  # a repeated scalar also takes the packed form
    else:
        same = wire == rwire
    if same:
        if (written, read) not in SAME_WIRE or rep:
            return None
        expected, how = SAME_WIRE[(written, read)], "reinterpreted"
    else:
        expected, how = (optional if rep else plain), "skipped: reads as unset"
    props = f", VALUE_PROTOBUF_NULLABLE_REPRESENTATION='{rep}'" if rep else ""
    return {
        "name": f"PROTOBUF_NOSR {written} read as {read}{' (' + rep + ')' if rep else ''}: {how}",
        "statements": [
            f"CREATE STREAM I (K STRING KEY, C {written}) WITH (kafka_topic='i', value_format='JSON');",
            "CREATE STREAM W WITH (kafka_topic='w', value_format='PROTOBUF_NOSR') AS SELECT * FROM I;",
            f"CREATE STREAM R (K STRING KEY, C {read}) WITH (kafka_topic='w', value_format='PROTOBUF_NOSR'{props});",
            "CREATE STREAM O WITH (value_format='JSON') AS SELECT K, C, C IS NULL AS N FROM R;",
        ],
        "inputs": [{"topic": "i", "key": "a", "value": {"C": value}}],
        "outputs": [{"topic": "O", "key": "a", "value": {"C": expected, "N": expected is None}}],
    }


tests = [c for w in WRITTEN for r in READ if w != r for rep in (None, "OPTIONAL")
         if (c := case(w, r, rep)) is not None]

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({"comments": [__doc__.split("\n\n")[0]], "tests": tests}, f, indent=2)
        f.write("\n")
