"""A JSON_SR union (``oneOf``/``anyOf`` of several types) on the wire is the branch's bare value: read into
the union STRUCT by the first branch of the value's JSON type, and written back - through a registered
schema that has the union (``*_SCHEMA_ID``) - as the value of the STRUCT's first non-NULL field; for keys
and values, at any depth. AVRO unions follow the same rule through their registered schema."""

from __future__ import annotations

import decimal
import json
import struct
import time
from pathlib import Path
from typing import Any

import pytest

from ksqlpy import types as T
from ksqlpy.engine.engine import Engine
from ksqlpy.log.base import ProducerRecord
from ksqlpy.serde.json_sr_unions import has_union, is_union, read, schema_has_union, write

P = "io.confluent.connect.json.OneOf.field."
U3 = T.Struct(((P + "0", T.BOOLEAN), (P + "1", T.BIGINT), (P + "2", T.DOUBLE), (P + "3", T.STRING),
               (P + "4", T.Array(T.INTEGER)), (P + "5", T.Struct((("A", T.STRING),)))))
UNION = {"oneOf": [{"type": "null"}, {"type": "integer"}, {"type": "string"}]}
U2 = T.Struct(((P + "0", T.BIGINT), (P + "1", T.STRING)))


def only(i: int, v: Any) -> dict[str, Any]:
    return {P + str(i): v}


@pytest.mark.parametrize(("value", "expected"), [
    (True, only(0, True)), (7, only(1, 7)), (1.5, only(2, 1.5)), (decimal.Decimal("2.5"), only(2, decimal.Decimal("2.5"))),
    ("x", only(3, "x")), ([1, 2], only(4, [1, 2])), ({"a": "q"}, only(5, {"a": "q"})), (None, None),
])
def test_read_picks_the_first_branch_of_the_values_type(value: Any, expected: Any) -> None:
    assert read(value, U3) == expected


def test_a_whole_number_goes_to_the_first_numeric_branch() -> None:
    doubles_first = T.Struct(((P + "0", T.DOUBLE), (P + "1", T.BIGINT)))
    assert read(3, doubles_first) == only(0, 3)
    assert read(3.5, T.Struct(((P + "0", T.BIGINT), (P + "1", T.DOUBLE)))) == only(1, 3.5)


def test_read_keeps_the_struct_form_and_goes_deep() -> None:
    written = {(P + "0").upper(): None, (P + "1").upper(): "y"}
    assert read(written, U2) == {P + "0": None, P + "1": "y"}
    nested = T.Struct((("U", U2), ("L", T.Array(U2)), ("M", T.Map(T.STRING, U2)), ("N", T.INTEGER)))
    assert read({"u": "s", "l": [1, None], "m": {"k": 2}, "n": 1}, nested) == \
        {"u": only(1, "s"), "l": [only(0, 1), None], "m": {"k": only(0, 2)}, "n": 1}


def test_is_union_and_has_union() -> None:
    assert is_union(U2) and is_union(T.Struct((((P + "0").upper(), T.INTEGER),)))
    assert not is_union(T.Struct(((P + "1", T.INTEGER),))) and not is_union(T.Struct((("A", T.INTEGER),)))
    assert has_union(T.Map(T.STRING, T.Array(U2))) and not has_union(T.Array(T.INTEGER))
    assert schema_has_union({"type": "object", "properties": {"u": UNION}})
    assert not schema_has_union({"type": "object", "properties": {"u": {"oneOf": [{"type": "null"},
                                                                                 {"type": "integer"}]}}})


def test_write_through_the_registered_schema() -> None:
    assert write({P + "0": None, P + "1": "y"}, U2, UNION) == "y"
    assert write({P + "0": 3, P + "1": "y"}, U2, UNION) == 3  # the first non-NULL field
    assert write({P + "0": None, P + "1": None}, U2, UNION) is None
    schema = {"type": "object", "properties": {"l": {"type": "array", "items": UNION}}}
    assert write({"L": [only(1, "a"), None]}, T.Struct((("L", T.Array(U2)),)), schema) == {"L": ["a", None]}
    # no union in the schema there: the STRUCT is written as it is
    assert write(only(1, "a"), U2, {"type": "object"}) == only(1, "a")


def _wait_rows(e: Engine, sql: str, n: int) -> list[Any]:
    end = time.monotonic() + 30
    while True:
        [res] = e.execute(sql)
        rows = list(res.data["rows"])
        if len(rows) >= n or time.monotonic() > end:
            return rows


def test_a_stream_over_a_union_schema_reads_bare_values(tmp_path: Path) -> None:
    with Engine(str(tmp_path), {"auto.offset.reset": "earliest"}) as e:
        e.log.create_topic("in", 1)
        sid = e.schema_registry.register("in-value", json.dumps({"type": "object", "properties": {
            "id": {"type": "integer", "connect.index": 0}, "u": {**UNION, "connect.index": 1}}}), "JSON")
        e.execute("CREATE STREAM I WITH (kafka_topic='in', value_format='JSON_SR');")
        for body in ({"id": 1, "u": "x"}, {"id": 2, "u": 5}, {"id": 3, "u": None}):
            e.log.produce(ProducerRecord("in", None, struct.pack(">bI", 0, sid) + json.dumps(body).encode(), 0,
                                         partition=0))
        u0, u1 = (P + "0").upper(), (P + "1").upper()
        assert _wait_rows(e, "SELECT * FROM I;", 3) == [
            (1, {u0: None, u1: "x"}), (2, {u0: 5, u1: None}), (3, None)]
        # a sink generated from the columns writes the STRUCT as an object, and reads it back
        e.execute("CREATE STREAM O AS SELECT * FROM I;")
        e.drain(10)
        assert _wait_rows(e, "SELECT * FROM O;", 3) == [
            (1, {u0: None, u1: "x"}), (2, {u0: 5, u1: None}), (3, None)]


def _payloads(e: Engine, topic: str) -> list[tuple[bytes | None, bytes | None]]:
    batch = e.log.fetch(topic, 0, 0, 100)
    return [(k[5:] if k else k, v[5:] if v else v) for k, v in zip(batch.keys, batch.values, strict=True)]


def test_json_sr_keys_and_values_written_through_schema_ids(tmp_path: Path) -> None:
    with Engine(str(tmp_path), {"auto.offset.reset": "earliest"}) as e:
        e.log.create_topic("ids", 1)
        vid = e.schema_registry.register("ids-value", json.dumps({"type": "object", "properties": {
            "id": {"type": "integer", "connect.index": 0}, "u": {**UNION, "connect.index": 1},
            "a": {"type": "array", "items": UNION, "connect.index": 2}}}), "JSON")
        kid = e.schema_registry.register("ids-key", json.dumps(UNION), "JSON")
        e.execute(f"CREATE STREAM S WITH (kafka_topic='ids', key_format='JSON_SR', value_format='JSON_SR', "
                  f"key_schema_id={kid}, value_schema_id={vid});")
        e.execute(f"INSERT INTO S (ROWKEY, `id`, `u`, `a`) VALUES (STRUCT(`{P}1` := 'k'), 1, STRUCT(`{P}1` := 'y'), "
                  f"ARRAY[STRUCT(`{P}0` := 1), STRUCT(`{P}1` := 'z'), NULL]);")
        e.execute(f"INSERT INTO S (ROWKEY, `id`, `u`) VALUES (STRUCT(`{P}0` := 3), 2, STRUCT(`{P}0` := 7));")
        assert [(json.loads(k), json.loads(v)) for k, v in _payloads(e, "ids")] == [
            ("k", {"id": 1, "u": "y", "a": [1, "z", None]}), (3, {"id": 2, "u": 7, "a": None})]
        rows = _wait_rows(e, "SELECT * FROM S;", 2)
        assert rows == [(only(1, "k") | only(0, None), 1, only(1, "y") | only(0, None),
                         [only(0, 1) | only(1, None), only(1, "z") | only(0, None), None]),
                        (only(0, 3) | only(1, None), 2, only(0, 7) | only(1, None), None)]


def test_avro_unions_through_schema_ids(tmp_path: Path) -> None:
    """AVRO's unions: the same rule through a registered schema, for a key and a value."""
    with Engine(str(tmp_path), {"auto.offset.reset": "earliest"}) as e:
        e.log.create_topic("av", 1)
        union = ["null", "int", "string"]
        vid = e.schema_registry.register("av-value", json.dumps({"type": "record", "name": "V", "fields": [
            {"name": "id", "type": "int"}, {"name": "u", "type": union, "default": None}]}))
        kid = e.schema_registry.register("av-key", json.dumps(["int", "string"]))
        e.execute(f"CREATE STREAM A WITH (kafka_topic='av', format='AVRO', key_schema_id={kid}, "
                  f"value_schema_id={vid});")
        cols = {c.name: c.type for c in e.catalog.source("A").columns}  # type: ignore[union-attr]
        key_t, u_t = cols["ROWKEY"], cols["u"]
        assert isinstance(key_t, T.Struct) and isinstance(u_t, T.Struct)
        (k_int, _), (_, _) = key_t.fields
        (u_int, _), (u_str, _) = u_t.fields
        e.execute(f"INSERT INTO A (ROWKEY, `id`, `u`) VALUES (STRUCT(`{k_int}` := 4), 1, STRUCT(`{u_str}` := 'y'));")
        rows = _wait_rows(e, "SELECT * FROM A;", 1)
        assert len(rows) == 1
        key, ident, u = rows[0]
        assert key[k_int] == 4 and ident == 1 and u[u_str] == "y" and u[u_int] is None


def test_a_union_behind_a_reference_is_written_bare(tmp_path: Path) -> None:
    with Engine(str(tmp_path), {"auto.offset.reset": "earliest"}) as e:
        e.log.create_topic("refs", 1)
        vid = e.schema_registry.register("refs-value", json.dumps({
            "type": "object", "definitions": {"U": UNION},
            "properties": {"id": {"type": "integer", "connect.index": 0},
                           "u": {"$ref": "#/definitions/U", "connect.index": 1}}}), "JSON")
        e.execute(f"CREATE STREAM R WITH (kafka_topic='refs', value_format='JSON_SR', value_schema_id={vid});")
        e.execute(f"INSERT INTO R (`id`, `u`) VALUES (1, STRUCT(`{P}1` := 'y'));")
        assert [json.loads(v) for _, v in _payloads(e, "refs")] == [{"id": 1, "u": "y"}]
