"""An AVRO key's record is named after its source (``<namespace>.<SourceName>Key``) unless
KEY_SCHEMA_FULL_NAME says otherwise - for every statement kind that creates a source; values keep the shared
``KsqlDataSourceSchema`` and other formats are untouched."""

from __future__ import annotations

import json

import pytest

from ksqlpy.engine.engine import Engine
from ksqlpy.serde.avro_format import key_schema_full_name

NS = "io.confluent.ksql.avro_schemas"


@pytest.mark.parametrize(("name", "expected"), [
    ("OUTPUT", "OutputKey"), ("S1", "S1Key"), ("MY_SINK", "MySinkKey"), ("A__B", "ABKey"),
    ("mixedCase", "MixedcaseKey"),
])
def test_the_name_is_upper_camel_of_the_source_name(name: str, expected: str) -> None:
    assert key_schema_full_name(name) == f"{NS}.{expected}"


def _key_schema(engine: Engine, topic: str) -> dict:
    got = engine.schema_registry.latest(f"{topic}-key")
    assert got is not None, f"no key schema registered for {topic}"
    schema = json.loads(got.schema)
    return schema[1] if isinstance(schema, list) else schema  # an unwrapped single key is optional


def test_create_stream_with_a_multi_column_key(tmp_path) -> None:
    with Engine(str(tmp_path), {}) as e:
        e.execute("CREATE STREAM ORDERS_IN (A INT KEY, B STRING KEY, V INT) "
                  "WITH (kafka_topic='o', format='AVRO', partitions=1);")
        key = _key_schema(e, "o")
        assert key["name"] == "OrdersInKey" and key["namespace"] == NS
        assert json.loads(e.schema_registry.latest("o-value").schema)["name"] == "KsqlDataSourceSchema"


@pytest.mark.parametrize("kind", ["STREAM", "TABLE"])
def test_a_struct_key_of_a_derived_source_is_named_after_the_sink(tmp_path, kind: str) -> None:
    with Engine(str(tmp_path), {}) as e:
        e.execute("CREATE STREAM SRC (ID INT KEY, V STRUCT<F1 INT>, N INT) "
                  "WITH (kafka_topic='src', key_format='AVRO', value_format='JSON', partitions=1);")
        if kind == "STREAM":
            e.execute("CREATE STREAM BY_V AS SELECT * FROM SRC PARTITION BY V;")
        else:
            e.execute("CREATE TABLE BY_V AS SELECT V, COUNT(*) AS C FROM SRC GROUP BY V;")
        key = _key_schema(e, "BY_V")
        assert key["name"] == "ByVKey"
        assert key["fields"][0]["name"] == "F1"


def test_an_explicit_full_name_wins(tmp_path) -> None:
    with Engine(str(tmp_path), {}) as e:
        e.execute("CREATE STREAM SRC (ID STRUCT<X INT> KEY, V INT) WITH (kafka_topic='src', format='AVRO', "
                  "partitions=1, key_schema_full_name='com.example.Id');")
        e.execute("CREATE STREAM OUT WITH (key_schema_full_name='com.example.OutId') AS SELECT * FROM SRC;")
        assert _key_schema(e, "src")["name"] == "Id"
        out = _key_schema(e, "OUT")
        assert (out["namespace"], out["name"]) == ("com.example", "OutId")


def test_other_key_formats_do_not_take_the_name(tmp_path) -> None:
    with Engine(str(tmp_path), {}) as e:
        e.execute("CREATE STREAM SRC (ID STRUCT<X INT> KEY, V INT) "
                  "WITH (kafka_topic='src', key_format='PROTOBUF', value_format='JSON', partitions=1);")
        assert "SrcKey" not in e.schema_registry.latest("src-key").schema
