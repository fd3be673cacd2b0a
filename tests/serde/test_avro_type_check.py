"""AVRO read into columns: the writer's Connect type is checked before the value (ConnectDataTranslator.
validateSchema), a NULL included; the error names Connect's lowercase types and the path from the row."""

from __future__ import annotations

import pytest

from ksqlpy import types as T
from ksqlpy.serde.avro_format import named_types, to_sql
from ksqlpy.serde.base import SerdeError

NULLABLE_LONG = ["null", "long"]
REC = {"type": "record", "name": "Inner", "fields": [{"name": "X", "type": ["null", "double"]}]}


def read(schema, v, t, path=""):
    return to_sql(schema, v, t, named_types(schema), path)


@pytest.mark.parametrize(("schema", "value", "t", "path", "message"), [
    (NULLABLE_LONG, None, T.INTEGER, "->C", "Cannot deserialize type int64 as type int32 for path: ->C"),
    (["null", "double"], None, T.STRING, "->C", "Cannot deserialize type float64 as type string for path: ->C"),
    (["null", "float"], 1.5, T.STRING, "", "Cannot deserialize type float32 as type string for path: "),
    (["null", "int"], None, T.Decimal(4, 2), "->D", "Cannot deserialize type int32 as type bytes for path: ->D"),
    (["null", "string"], None, T.BOOLEAN, "->B", "Cannot deserialize type string as type boolean for path: ->B"),
    (["null", REC], None, T.STRING, "->S", "Cannot deserialize type struct as type string for path: ->S"),
    (["null", REC], {"X": None}, T.Struct((("X", T.INTEGER),)), "->S",
     "Cannot deserialize type float64 as type int32 for path: ->S->X"),
    ({"type": "array", "items": ["null", "string"]}, [None], T.Array(T.INTEGER), "->L",
     "Cannot deserialize type string as type int32 for path: ->L->ARRAY"),
    ({"type": "map", "values": ["null", "long"]}, {"k": None}, T.Map(T.STRING, T.INTEGER), "->M",
     "Cannot deserialize type int64 as type int32 for path: ->M->MAP_VALUE"),
    ({"type": "map", "values": "int"}, {"k": 1}, T.Map(T.INTEGER, T.INTEGER), "->M",
     "Cannot deserialize type string as type int32 for path: ->M->MAP_KEY"),
    (["null", "int", "string"], None, T.INTEGER, "->U", "Cannot deserialize type struct as type int32 for path: ->U"),
    (["null", {"type": "array", "items": "int"}], None, T.Map(T.STRING, T.INTEGER), "->A",
     "Cannot deserialize type array as type map for path: ->A"),
])
def test_a_type_the_column_cannot_read_fails_null_or_not(schema, value, t, path, message) -> None:
    with pytest.raises(SerdeError) as e:
        read(schema, value, t, path)
    assert str(e.value) == message


@pytest.mark.parametrize(("schema", "t"), [
    (["null", "int"], T.BIGINT), (["null", "int"], T.STRING), (["null", "float"], T.DOUBLE),
    (["null", "boolean"], T.STRING), (["null", REC], T.Struct((("X", T.INTEGER),))),
    ({"type": "array", "items": "string"}, T.Array(T.INTEGER)),  # elements are checked one by one: none here
])
def test_a_readable_type_reads_null_and_empty(schema, t) -> None:
    empty = [] if isinstance(t, T.Array) else None
    assert read(schema, empty, t, "->C") == empty
