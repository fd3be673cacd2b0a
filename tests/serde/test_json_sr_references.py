"""JSON_SR ``$ref`` resolution (ksqlpy.serde.json_sr_references): pointers, external subjects, cycles."""

from __future__ import annotations

import pytest

from ksqlpy import types as T
from ksqlpy.errors import KsqlStatementError
from ksqlpy.serde.json_sr import sql_type_of
from ksqlpy.serde.json_sr_references import resolve_references


def test_local_pointer_into_definitions_and_defs() -> None:
    schema = {"type": "object",
              "definitions": {"P": {"type": "object", "properties": {"x": {"type": "integer"}}}},
              "$defs": {"Q": {"type": "string"}},
              "properties": {"p": {"$ref": "#/definitions/P"}, "q": {"$ref": "#/$defs/Q"}}}
    t = sql_type_of(resolve_references(schema))
    assert t == T.Struct((("P", T.Struct((("X", T.BIGINT),))), ("Q", T.STRING)))


def test_escaped_pointer_and_chained_references() -> None:
    schema = {"definitions": {"a/b~c": {"$ref": "#/definitions/leaf"}, "leaf": {"type": "boolean"}},
              "type": "object", "properties": {"v": {"$ref": "#/definitions/a~1b~0c"}}}
    assert sql_type_of(resolve_references(schema)) == T.Struct((("V", T.BOOLEAN),))


def test_external_reference_with_pointer() -> None:
    docs = {"other.json": {"definitions": {"X": {"type": "number"}}}}
    schema = {"type": "object", "properties": {"v": {"$ref": "other.json#/definitions/X"}}}
    assert sql_type_of(resolve_references(schema, docs.get)) == T.Struct((("V", T.DOUBLE),))


def test_unknown_and_recursive_references_are_refused() -> None:
    with pytest.raises(KsqlStatementError, match="names nothing"):
        resolve_references({"$ref": "#/definitions/missing"})
    with pytest.raises(KsqlStatementError, match="names nothing"):
        resolve_references({"$ref": "nowhere.json"}, lambda name: None)
    loop = {"definitions": {"N": {"type": "object", "properties": {"next": {"$ref": "#/definitions/N"}}}},
            "$ref": "#/definitions/N"}
    with pytest.raises(KsqlStatementError, match="Recursive schema"):
        resolve_references(loop)
    mutual = {"a.json": {"$ref": "b.json"}, "b.json": {"$ref": "a.json"}}
    with pytest.raises(KsqlStatementError, match="Recursive schema"):
        resolve_references({"$ref": "a.json"}, mutual.get)


def test_a_reference_used_twice_is_not_a_cycle() -> None:
    schema = {"definitions": {"S": {"type": "string"}}, "type": "object",
              "properties": {"a": {"$ref": "#/definitions/S"}, "b": {"$ref": "#/definitions/S"}}}
    assert sql_type_of(resolve_references(schema)) == T.Struct((("A", T.STRING), ("B", T.STRING)))
