"""AVRO with registered schemas ksqlDB did not generate: unions of several types (Connect's union STRUCT,
ksqlpy.serde.avro_unions), decimals in fixed types."""

from __future__ import annotations

import io
import json
import struct

import fastavro
import pytest

from ksqlpy import types as T
from ksqlpy.errors import KsqlStatementError
from ksqlpy.schema_registry import EmbeddedSchemaRegistry
from ksqlpy.serde import value_serde
from ksqlpy.serde.avro_format import sql_type_of

SCHEMA = {"type": "record", "name": "R", "namespace": "a.b", "fields": [
    {"name": "u", "type": ["null", "int", "long", {"type": "record", "name": "P", "fields": [
        {"name": "x", "type": "int"}]}], "default": None},
    {"name": "p", "type": ["null", "P"], "default": None}]}
U = T.Struct((("INT", T.INTEGER), ("LONG", T.BIGINT), ("P", T.Struct((("X", T.INTEGER),)))))


def _frame(sid: int, schema: dict, datum: dict) -> bytes:
    out = io.BytesIO()
    out.write(struct.pack(">bI", 0, sid))
    fastavro.schemaless_writer(out, fastavro.parse_schema(schema), datum)
    return out.getvalue()


def test_inferred_type_names_branches_and_keeps_optional_records_plain() -> None:
    assert sql_type_of(SCHEMA) == T.Struct((("U", U), ("P", T.Struct((("X", T.INTEGER),)))))
    lower = sql_type_of(SCHEMA, upper=False)
    assert isinstance(lower, T.Struct) and [n for n, _ in dict(lower.fields)["u"].fields] == ["int", "long", "P"]
    # a two-branch union with null is the optional type, not a struct
    assert sql_type_of(["null", "string"]) == T.STRING
    # a lone branch is still a union struct, as Connect reads it
    assert sql_type_of(["string"]) == T.Struct((("STRING", T.STRING),))


def test_reader_tells_int_from_long_by_branch() -> None:
    reg = EmbeddedSchemaRegistry()
    sid = reg.register("t-value", json.dumps(SCHEMA))
    cols = [("U", U), ("P", T.Struct((("X", T.INTEGER),)))]
    serde = value_serde("AVRO", cols, registry=reg, topic="t", schema_id=sid)
    # fastavro writes an int to the first branch that takes it; index 2 (long) needs the bytes built by hand
    as_int = _frame(sid, SCHEMA, {"u": 5, "p": {"x": 1}})
    assert serde.deserialize(as_int) == ({"INT": 5, "LONG": None, "P": None}, {"X": 1})
    long_branch = struct.pack(">bI", 0, sid) + bytes([4, 10, 0])  # branch 2 (zigzag 4), 5 (zigzag 10), p null
    assert serde.deserialize(long_branch) == ({"INT": None, "LONG": 5, "P": None}, None)
    record_branch = _frame(sid, SCHEMA, {"u": {"x": 9}, "p": None})
    assert serde.deserialize(record_branch) == ({"INT": None, "LONG": None, "P": {"X": 9}}, None)


def test_writer_picks_first_non_null_field_and_round_trips() -> None:
    reg = EmbeddedSchemaRegistry()
    sid = reg.register("t-value", json.dumps(SCHEMA))
    cols = [("U", U), ("P", T.Struct((("X", T.INTEGER),)))]
    serde = value_serde("AVRO", cols, registry=reg, topic="t", schema_id=sid)
    for row in [({"INT": None, "LONG": 7, "P": None}, None), ({"INT": 1, "LONG": 2, "P": None}, {"X": 3}),
                (None, None)]:
        back = serde.deserialize(serde.serialize(row))
        assert back is not None
        if row[0] is None:
            assert back == row
        else:
            first = next(k for k, v in row[0].items() if v is not None)
            assert back[0] == {k: (row[0][k] if k == first else None) for k in row[0]}
            assert back[1] == row[1]
    # every field NULL is the union's NULL branch
    assert serde.deserialize(serde.serialize(({"INT": None, "LONG": None, "P": None}, None))) == (None, None)


def test_branches_with_the_same_connect_name_are_refused() -> None:
    clash = ["null", {"type": "record", "name": "x.P", "fields": []}, {"type": "record", "name": "y.P", "fields": []}]
    with pytest.raises(KsqlStatementError, match="Multiple union schemas map to the Connect union field name"):
        sql_type_of(clash)


def test_a_decimal_written_to_a_fixed_schema_takes_its_size() -> None:
    schema = {"type": "record", "name": "R", "fields": [
        {"name": "d", "type": ["null", {"type": "fixed", "name": "D", "size": 6, "logicalType": "decimal",
                                        "precision": 10, "scale": 2}]}]}
    reg = EmbeddedSchemaRegistry()
    sid = reg.register("t-value", json.dumps(schema))
    serde = value_serde("AVRO", [("D", T.Decimal(10, 2))], registry=reg, topic="t", schema_id=sid)
    from decimal import Decimal

    for v in (Decimal("-1.50"), Decimal("12345678.99"), Decimal("0.00")):
        data = serde.serialize((v,))
        assert len(data) == 5 + 1 + 6 and serde.deserialize(data) == (v,)


def test_references_are_inlined_at_first_use_recursively() -> None:
    from ksqlpy.serde.avro_references import inline_references, registry_lookup

    reg = EmbeddedSchemaRegistry()
    reg.register("a.Inner", json.dumps({"type": "enum", "name": "Inner", "namespace": "a", "symbols": ["X"]}))
    reg.register("Outer", json.dumps({"type": "record", "name": "Outer", "namespace": "a", "fields": [
        {"name": "i", "type": "Inner"}]}))
    main = {"type": "record", "name": "Main", "namespace": "a", "fields": [
        {"name": "o", "type": "a.Outer"}, {"name": "o2", "type": ["null", "Outer"]}, {"name": "n", "type": "int"}]}
    got = inline_references(main, registry_lookup(reg))
    assert sql_type_of(got) == T.Struct((("O", T.Struct((("I", T.STRING),))), ("O2", T.Struct((("I", T.STRING),))),
                                         ("N", T.INTEGER)))
    fastavro.parse_schema(got)  # self-contained: the second use refers to the first definition
    # a name nothing defines is left for the parser to report
    assert inline_references({"type": "array", "items": "Nope"}, registry_lookup(reg)) == {"type": "array",
                                                                                          "items": "Nope"}
