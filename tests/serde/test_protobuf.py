"""PROTOBUF with a schema registry: the .proto parser, the Confluent framing, type mapping, the serde, the engine."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ksqlpy import types as T
from ksqlpy.engine.engine import Engine
from ksqlpy.schema_registry import EmbeddedSchemaRegistry
from ksqlpy.schema_registry.sources import sql_type_of
from ksqlpy.serde import key_serde, value_serde
from ksqlpy.serde.base import SerdeError
from ksqlpy.serde.protobuf_schema import ProtoSchemaError, parse_proto
from ksqlpy.serde.protobuf_types import schema_text
from ksqlpy.serde.protobuf_types import sql_type_of as proto_type
from ksqlpy.serde.protobuf_wire import decode, encode, frame, unframe
from ksqlpy.testing.protobuf_codec import ProtobufSrCodec

SHOP = """
syntax = "proto3";
package shop.v1;
import "google/protobuf/timestamp.proto";   // well-known types need no text
/* a block comment */
message Order {
  uint64 id = 1;
  float weight = 2;
  Status status = 3;
  map<string, Line> lines = 4;
  repeated sint32 deltas = 5;
  google.protobuf.Timestamp placed = 6;
  oneof payment { string card = 7; int32 voucher = 8; }
  optional int32 rating = 9;
  reserved 10 to 12;
  google.protobuf.StringValue note = 13;
  message Line { string sku = 1; confluent.type.Decimal price = 2 [(confluent.field_meta) = {
      params: [{ key: "precision", value: "6" }, { key: "scale", value: "2" }] }]; }
  enum Status { NEW = 0; SHIPPED = 1; }
}
message Refund { int64 order_id = 1; }
"""


def test_parser_reads_nested_types_options_and_scopes() -> None:
    f = parse_proto(SHOP)
    order = f.message("Order")
    assert order.full_name == "shop.v1.Order" and f.message("shop.v1.Refund").name == "Refund"
    lines = next(x for x in order.fields if x.name == "lines")
    assert (lines.key_type, lines.type) == ("string", "shop.v1.Order.Line")
    price = f.message("Line").fields[1]
    assert price.type == "confluent.type.Decimal" and price.params == {"precision": "6", "scale": "2"}
    assert [x.oneof for x in order.fields if x.oneof] == ["payment", "payment"]
    assert next(x for x in order.fields if x.name == "rating").label == "optional"
    assert f.indexes(f.message("Refund")) == [1] and f.indexes(f.message("Line")) == [0, 0]
    assert f.by_indexes([0, 0]) is f.message("Line") and f.message(None) is order
    with pytest.raises(ProtoSchemaError, match="Unknown protobuf type Missing"):
        parse_proto('syntax = "proto3"; message M { Missing m = 1; }')
    with pytest.raises(ProtoSchemaError, match="does not contain a message named Nope"):
        f.message("Nope")


def test_types_map_as_ksqldb_infers_them() -> None:
    f = parse_proto(SHOP)
    t = proto_type(f, f.message("Order"), upper=False)
    assert dict(t.fields) == {
        "id": T.BIGINT, "weight": T.DOUBLE, "status": T.STRING,
        "lines": T.Map(T.STRING, T.Struct((("sku", T.STRING), ("price", T.Decimal(6, 2))))),
        "deltas": T.Array(T.INTEGER), "placed": T.TIMESTAMP,
        "payment_0": T.Struct((("card", T.STRING), ("voucher", T.INTEGER))), "rating": T.INTEGER,
        "note": T.Struct((("value", T.STRING),))}  # a wrapper is the message it is (no WRAPPER representation)
    assert [n for n, _ in proto_type(f, f.message("Refund")).fields] == ["ORDER_ID"]
    f.unwrap_wrappers = True  # *_PROTOBUF_NULLABLE_REPRESENTATION='WRAPPER'
    assert dict(proto_type(f, f.message("Order"), upper=False).fields)["note"] == T.STRING


def test_each_oneof_is_named_by_its_index_among_the_oneofs() -> None:
    f = parse_proto('syntax = "proto3"; message M { int32 a = 1; oneof first { string s = 2; int32 i = 3; } '
                    'optional int32 o = 6; oneof second { bool b = 4; double d = 5; } }')
    assert [n for n, _ in proto_type(f, f.message("M")).fields] == ["A", "FIRST_0", "O", "SECOND_1"]


def test_confluent_framing_writes_message_indexes() -> None:
    assert frame(7, [0], b"\x08\x01") == b"\x00\x00\x00\x00\x07\x00\x08\x01"
    # [1, 0]: count 2 and each index, zig-zag encoded
    assert frame(7, [1, 0], b"") == b"\x00\x00\x00\x00\x07\x04\x02\x00"
    assert unframe(frame(300, [2, 1], b"xy")) == (300, [2, 1], b"xy")
    with pytest.raises(SerdeError, match="Unknown magic byte"):
        unframe(b"\x01\x00\x00\x00\x01\x00")


def test_wire_encoding_of_scalars_packed_and_presence() -> None:
    f = parse_proto('syntax = "proto3"; message M { int32 a = 1; sint32 b = 2; repeated int32 c = 3; '
                    "optional int32 d = 4; int32 e = 5; }")
    m = f.messages[0]
    assert encode(f, m, {"a": 150}) == b"\x08\x96\x01"
    assert encode(f, m, {"b": -1}) == b"\x10\x01"  # zig-zag
    assert encode(f, m, {"c": [1, 2]}) == b"\x1a\x02\x01\x02"  # packed
    assert encode(f, m, {"a": 0, "d": 0}) == b"\x20\x00"  # implicit presence drops 0, optional keeps it
    assert len(encode(f, m, {"e": -1})) == 11  # a negative int32 is a 10-byte varint
    assert decode(f, m, encode(f, m, {"a": -5, "b": -7, "c": [3, -4], "d": 0})) == {
        "a": -5, "b": -7, "c": [3, -4], "d": 0}
    assert decode(f, m, b"\x18\x01\x18\x02") == {"c": [1, 2]}  # unpacked repeated is read too


COLS = [("I", T.INTEGER), ("L", T.BIGINT), ("D", T.DOUBLE), ("S", T.STRING), ("B", T.BOOLEAN), ("Y", T.BYTES),
        ("DEC", T.Decimal(5, 2)), ("DT", T.DATE), ("TM", T.TIME), ("TS", T.TIMESTAMP), ("A", T.Array(T.STRING)),
        ("M", T.Map(T.STRING, T.BIGINT)), ("ST", T.Struct((("X", T.INTEGER), ("IN", T.Struct((("Z", T.DOUBLE),))))))]
ROW = (-3, 2**40, 1.5, "héllo", True, b"\x00\x01", Decimal("-123.45"), -10, 45_296_789, 1_526_075_913_123,
       ["a", "b"], {"k": 7}, {"X": 1, "IN": {"Z": 2.5}})


def test_round_trip_registers_the_generated_schema() -> None:
    reg = EmbeddedSchemaRegistry()
    s = value_serde("PROTOBUF", COLS, registry=reg, topic="t")
    data = s.serialize(ROW)
    rs = reg.latest("t-value")
    assert rs.schema_type == "PROTOBUF" and data[:6] == b"\x00" + rs.id.to_bytes(4, "big") + b"\x00"
    assert s.deserialize(data) == ROW
    text = rs.schema
    assert text.startswith('syntax = "proto3";') and "message ConnectDefault1 {" in text
    assert "confluent.type.Decimal DEC = 7" in text and "repeated ConnectDefault2Entry M = 12;" in text
    assert "message ConnectDefault3 {" in text and "message ConnectDefault4 {" in text  # the entry took 2
    # the generated schema reads back as the same columns: inference of what ksqlDB registered
    assert list(sql_type_of(rs).fields) == COLS
    # proto3 null handling: scalars read back as defaults, messages and (as in ksqlDB) bytes stay NULL
    assert s.deserialize(s.serialize((None,) * len(COLS))) == (0, 0, 0.0, "", False, None, None, None, None, None,
                                                                [], {}, None)


def test_generated_schema_payload_is_the_protobuf_nosr_payload() -> None:
    """Same layout as PROTOBUF_NOSR (fields numbered in column order, same message types): same bytes."""
    sr = value_serde("PROTOBUF", COLS, registry=EmbeddedSchemaRegistry(), topic="t")
    nosr = value_serde("PROTOBUF_NOSR", COLS)
    assert unframe(sr.serialize(ROW))[2] == nosr.serialize(ROW)


def test_keys_are_messages_and_full_names_pick_the_message() -> None:
    reg = EmbeddedSchemaRegistry()
    sid = reg.register("k-key", 'syntax = "proto3"; message K1 { int32 a = 1; } message K2 { string ID = 1; }',
                       "PROTOBUF")
    ks = key_serde("PROTOBUF", [("ID", T.STRING)], registry=reg, topic="k", schema_id=sid, full_name="K2")
    data = ks.serialize(("x",))
    assert data == frame(sid, [1], b"\x0a\x01x")
    assert ks.deserialize(data) == ("x",)
    generated = key_serde("PROTOBUF", [("ID", T.BIGINT)], registry=reg, topic="g")
    assert unframe(generated.serialize((5,)))[2] == b"\x08\x05"


def test_reader_maps_a_foreign_schema_by_name() -> None:
    reg = EmbeddedSchemaRegistry()
    sid = reg.register("o-value", SHOP, "PROTOBUF")
    f = parse_proto(SHOP)
    order = f.message("Order")
    body = encode(f, order, {"id": 9, "weight": 0.5, "status": "SHIPPED", "deltas": [-1, 1], "voucher": 3,
                             "placed": {"seconds": 2, "nanos": 5_000_000}, "note": {"value": "hi"},
                             "lines": {"a": {"sku": "s", "price": {"value": b"\x04\xd2", "scale": 2}}}})
    cols = [("ID", T.BIGINT), ("WEIGHT", T.DOUBLE), ("STATUS", T.STRING), ("DELTAS", T.Array(T.INTEGER)),
            ("PAYMENT_0", T.Struct((("CARD", T.STRING), ("VOUCHER", T.INTEGER)))), ("PLACED", T.TIMESTAMP),
            ("RATING", T.INTEGER), ("NOTE", T.STRING),
            ("LINES", T.Map(T.STRING, T.Struct((("SKU", T.STRING), ("PRICE", T.Decimal(6, 2))))))]
    s = value_serde("PROTOBUF", cols, registry=reg, topic="o", nullable="WRAPPER")
    assert s.deserialize(frame(sid, [0], body)) == (
        9, 0.5, "SHIPPED", [-1, 1], {"CARD": None, "VOUCHER": 3}, 2005, None, "hi",
        {"a": {"SKU": "s", "PRICE": Decimal("12.34")}})
    # without the WRAPPER representation the wrapper is a struct: a STRING column cannot hold it
    plain = value_serde("PROTOBUF", cols, registry=reg, topic="o")
    with pytest.raises(SerdeError, match="Cannot deserialize type struct as type string for path: ->NOTE"):
        plain.deserialize(frame(sid, [0], body))
    as_struct = [(n, T.Struct((("VALUE", T.STRING),)) if n == "NOTE" else t) for n, t in cols]
    assert value_serde("PROTOBUF", as_struct, registry=reg, topic="o").deserialize(frame(sid, [0], body))[7] == \
        {"VALUE": "hi"}
    with pytest.raises(SerdeError, match="Schema 99 not found"):
        s.deserialize(frame(99, [0], body))


def test_schema_text_rejects_what_protobuf_cannot_hold() -> None:
    with pytest.raises(SerdeError, match="Array cannot be nested"):
        schema_text([("A", T.Array(T.Array(T.INTEGER)))])
    with pytest.raises(SerdeError, match="Array cannot be nested"):
        schema_text([("A", T.Array(T.Map(T.STRING, T.INTEGER)))])
    assert "package com.acme;" in schema_text([("A", T.INTEGER)], "com.acme.Rec")


def test_harness_codec_reads_and_writes_specs() -> None:
    reg = EmbeddedSchemaRegistry()
    reg.register("h-value", SHOP, "PROTOBUF")
    codec = ProtobufSrCodec(reg, "h-value", "Refund")
    data = codec.encode({"ORDER_ID": 12})
    assert unframe(data)[1] == [1]
    assert codec.decode(data) == {"order_id": 12}
    out = ProtobufSrCodec(reg, "h-value").decode(ProtobufSrCodec(reg, "h-value").encode(
        {"id": "5", "placed": 1500, "lines": {"x": {"sku": "q", "price": 1.5}}}))
    assert out["id"] == 5 and out["placed"] == 1500 and out["status"] == "NEW" and out["deltas"] == []
    assert out["lines"] == {"x": {"sku": "q", "price": Decimal("1.50")}}


def test_engine_infers_protobuf_columns_and_writes(tmp_path) -> None:
    with Engine(str(tmp_path), {}) as e:
        e.log.create_topic("in", 1)
        e.schema_registry.register("in-key", 'syntax = "proto3"; message K { string id = 1; }', "PROTOBUF")
        e.schema_registry.register("in-value", 'syntax = "proto3"; message V { uint32 c1 = 1; float c2 = 2; }',
                                   "PROTOBUF")
        e.execute("CREATE STREAM I WITH (kafka_topic='in', format='PROTOBUF');")
        src = e.catalog.source("I")
        assert [(c.name, c.type, c.key) for c in src.columns] == [
            ("ID", T.STRING, True), ("C1", T.BIGINT, False), ("C2", T.DOUBLE, False)]
        e.execute("CREATE STREAM O AS SELECT ID, C1 * 2 AS X FROM I;")
        e.execute("INSERT INTO I (ID, C1, C2) VALUES ('a', 21, 0.5);")
        e.drain(5)
        batch = e.log.fetch("O", 0, 0, 10)
        out = e.catalog.source("O")
        assert e.value_serde(out).deserialize(batch.values[0]) == (42,)
        assert e.key_serde(out).deserialize(batch.keys[0]) == ("a",)
        assert "message ConnectDefault1" in e.schema_registry.latest("O-value").schema


def test_pull_queries_on_a_protobuf_table_read_nulls_as_its_store_does(tmp_path) -> None:
    """ksqlDB keeps a table's values in its format: a left join's missing side reads back as proto3 defaults."""
    with Engine(str(tmp_path), {"ksql.query.pull.table.scan.enabled": True}) as e:
        e.execute("CREATE TABLE L (ID BIGINT PRIMARY KEY, NAME STRING) WITH (kafka_topic='l', value_format='PROTOBUF',"
                  " partitions=1);")
        e.execute("CREATE TABLE R (ID BIGINT PRIMARY KEY, F1 STRING, F2 BIGINT) WITH (kafka_topic='r', "
                  "value_format='PROTOBUF', partitions=1);")
        e.execute("CREATE TABLE J AS SELECT L.ID, NAME, F1, F2 FROM L LEFT JOIN R ON L.ID = R.ID;")
        e.execute("INSERT INTO L (ID, NAME) VALUES (1, 'one');")
        e.drain(5)
        rows = e.execute("SELECT * FROM J;")[0].data["rows"]
        assert [tuple(r) for r in rows] == [(1, "one", "", 0)]
        keyed = [e.execute("SELECT * FROM J WHERE L_ID = 1;")[0].data["rows"] for _ in range(2)]  # 2nd: prepared
        assert [tuple(r) for r in keyed[0]] == [tuple(r) for r in keyed[1]] == [(1, "one", "", 0)]


def test_imports_resolve_through_schema_references() -> None:
    texts = {"money.proto": 'syntax = "proto3"; package fin; import "order.proto"; message Money { int64 cents = 1; }',
             "order.proto": 'syntax = "proto3"; import "money.proto"; message Line { fin.Money price = 1; }'}
    f = parse_proto('syntax = "proto3"; import "order.proto"; message Cart { repeated Line lines = 1; }',
                    texts.get)
    assert [m.name for m in f.messages] == ["Cart"]  # imported messages are types, not messages of this schema
    assert proto_type(f, f.message(None)) == T.Struct((("LINES", T.Array(T.Struct((
        ("PRICE", T.Struct((("CENTS", T.BIGINT),))),)))),))
    with pytest.raises(ProtoSchemaError, match="Cannot resolve import 'gone.proto'"):
        parse_proto('syntax = "proto3"; import "gone.proto"; message M { int32 a = 1; }', texts.get)


def test_a_schema_with_references_reads_writes_and_infers(tmp_path) -> None:
    with Engine(str(tmp_path), {}) as e:
        reg = e.schema_registry
        reg.register("event.proto", 'syntax = "proto3"; message Event { int64 TS = 1; }', "PROTOBUF")
        sid = reg.register("ev-value", 'syntax = "proto3"; import "event.proto"; message Log { Event EVENT = 1; }',
                           "PROTOBUF")
        e.log.create_topic("ev", 1)
        e.execute(f"CREATE STREAM EV WITH (kafka_topic='ev', value_format='PROTOBUF', value_schema_id={sid});")
        cols = [(c.name, c.type) for c in e.catalog.source("EV").value_columns]
        assert cols == [("EVENT", T.Struct((("TS", T.BIGINT),)))]
        s = value_serde("PROTOBUF", cols, registry=reg, topic="ev", schema_id=sid)
        data = s.serialize(({"TS": 99},))
        assert data == frame(sid, [0], b"\x0a\x02\x08\x63") and s.deserialize(data) == ({"TS": 99},)


@pytest.mark.parametrize("nullable", ["WRAPPER", "OPTIONAL"])
def test_nullable_representation_keeps_null_apart_from_default(nullable: str) -> None:
    """``*_PROTOBUF_NULLABLE_REPRESENTATION``: primitives become wrappers / proto3 ``optional`` fields in the
    generated schema, so NULL (absent) and 0 / "" (present) both survive a round trip."""
    reg = EmbeddedSchemaRegistry()
    cols = [("A", T.INTEGER), ("S", T.STRING), ("T", T.Struct((("X", T.BIGINT),)))]
    s = value_serde("PROTOBUF", cols, registry=reg, topic=f"n{nullable}", nullable=nullable)
    assert s.deserialize(s.serialize((None, "", {"X": None}))) == (None, "", {"X": None})
    assert s.deserialize(s.serialize((0, None, {"X": 0}))) == (0, None, {"X": 0})
    text = reg.latest(f"n{nullable}-value").schema
    if nullable == "WRAPPER":
        assert 'import "google/protobuf/wrappers.proto";' in text and "google.protobuf.Int64Value X = 1;" in text
    else:
        assert "optional int32 A = 1;" in text and "optional int64 X = 1;" in text
    plain = value_serde("PROTOBUF", cols, registry=reg, topic="plain")
    assert plain.deserialize(plain.serialize((None, None, {"X": None}))) == (0, "", {"X": 0})
