"""Formats against what a statement asks of them, for CREATE and CREATE ... AS SELECT alike: the format
properties each accepts, single-value wrapping per format, the FORMAT/KEY_FORMAT/VALUE_FORMAT choice and
the protobuf-only nullable representation (ksqlDB's messages)."""

from __future__ import annotations

from pathlib import Path

import pytest
from statement_errors import error as _error

from ksqlpy.engine import Engine

ALL_FORMATS = ["KAFKA", "JSON", "DELIMITED", "AVRO", "JSON_SR", "PROTOBUF", "PROTOBUF_NOSR"]
SOURCE = ("CREATE STREAM src (k INT KEY, v INT, w STRING) "
          "WITH (kafka_topic='src', value_format='JSON', partitions=1);")


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute(SOURCE)
    yield e
    e.close()


def _create(value_format: str, props: str, key_format: str = "KAFKA", cols: str = "k INT KEY, v INT") -> str:
    return (f"CREATE STREAM s ({cols}) WITH (kafka_topic='s', partitions=1, key_format='{key_format}', "
            f"value_format='{value_format}'{', ' + props if props else ''});")


def _csas(value_format: str, props: str, key_format: str = "KAFKA", cols: str = "k, v") -> str:
    return (f"CREATE STREAM s WITH (key_format='{key_format}', value_format='{value_format}'"
            f"{', ' + props if props else ''}) AS SELECT {cols} FROM src;")


STATEMENTS = [pytest.param(_create, id="CREATE"), pytest.param(_csas, id="CSAS")]


SUPPORTS_DELIMITER = {"DELIMITED"}
SUPPORTS_FULL_NAME = {"AVRO", "JSON_SR", "PROTOBUF"}


@pytest.mark.parametrize("build", STATEMENTS)
@pytest.mark.parametrize("fmt", sorted(set(ALL_FORMATS) - SUPPORTS_DELIMITER))
def test_a_delimiter_only_for_delimited_values(engine: Engine, build, fmt: str) -> None:  # type: ignore[no-untyped-def]
    assert _error(engine, build(fmt, "value_delimiter='|'")) == (
        f"{fmt} does not support the following configs: [delimiter]")


@pytest.mark.parametrize("build", STATEMENTS)
@pytest.mark.parametrize("fmt", ["KAFKA", "JSON", "AVRO", "PROTOBUF_NOSR"])
def test_a_key_delimiter_only_for_delimited_keys(engine: Engine, build, fmt: str) -> None:  # type: ignore[no-untyped-def]
    assert _error(engine, build("JSON", "key_delimiter='|'", key_format=fmt)) == (
        f"{fmt} does not support the following configs: [delimiter]")


@pytest.mark.parametrize("build", STATEMENTS)
def test_delimited_takes_its_delimiter(engine: Engine, build) -> None:  # type: ignore[no-untyped-def]
    engine.execute(build("DELIMITED", "value_delimiter='|', key_delimiter='TAB'", key_format="DELIMITED"))
    s = engine.catalog.source("S")
    assert (s.value_delimiter, s.key_delimiter) == ("|", "\t")


@pytest.mark.parametrize("build", STATEMENTS)
@pytest.mark.parametrize("fmt", sorted(set(ALL_FORMATS) - SUPPORTS_FULL_NAME))
@pytest.mark.parametrize("prop", ["value_schema_full_name", "value_avro_schema_full_name"])
def test_a_schema_name_only_for_named_schemas(engine: Engine, build, fmt: str, prop: str) -> None:  # type: ignore[no-untyped-def]
    assert _error(engine, build(fmt, f"{prop}='a.B'")) == (
        f"{fmt} does not support the following configs: [fullSchemaName]")


@pytest.mark.parametrize("build", STATEMENTS)
def test_a_schema_name_is_not_blank(engine: Engine, build) -> None:  # type: ignore[no-untyped-def]
    assert _error(engine, build("AVRO", "value_schema_full_name='  '")) == (
        "fullSchemaName cannot be empty. Format configuration: {fullSchemaName=}")


WRAPS = {"JSON", "AVRO", "JSON_SR", "PROTOBUF", "PROTOBUF_NOSR"}
UNWRAPS = {"KAFKA", "DELIMITED", "JSON", "AVRO", "JSON_SR", "PROTOBUF_NOSR"}


@pytest.mark.parametrize("build", STATEMENTS)
@pytest.mark.parametrize("fmt", ALL_FORMATS)
@pytest.mark.parametrize("wrap", [True, False])
def test_wrap_single_value_per_format(engine: Engine, build, fmt: str, wrap: bool) -> None:  # type: ignore[no-untyped-def]
    sql = build(fmt, f"wrap_single_value={str(wrap).lower()}")
    if fmt in (WRAPS if wrap else UNWRAPS):
        engine.execute(sql)
        feature = "WRAP_SINGLES" if wrap else "UNWRAP_SINGLES"
        assert engine.catalog.source("S").value_features == {feature}
    else:
        assert _error(engine, sql) == (
            f"Format '{fmt}' does not support 'WRAP_SINGLE_VALUE' set to '{str(wrap).lower()}'.")


@pytest.mark.parametrize("build", [pytest.param(lambda f, p: _create(f, p, cols="k INT KEY, v INT, w STRING"),
                                                id="CREATE"),
                                   pytest.param(lambda f, p: _csas(f, p, cols="k, v, w"), id="CSAS")])
@pytest.mark.parametrize("fmt", ["JSON", "AVRO", "DELIMITED"])
@pytest.mark.parametrize("wrap", [True, False])
def test_wrap_single_value_needs_a_single_value_column(engine: Engine, build, fmt: str, wrap: bool) -> None:  # type: ignore[no-untyped-def]
    assert _error(engine, build(fmt, f"wrap_single_value={str(wrap).lower()}")) == (
        "'WRAP_SINGLE_VALUE' is only valid for single-field value schemas")


def test_unwrapped_by_default_where_the_format_can(tmp_path: Path) -> None:
    e = Engine(str(tmp_path), {"ksql.persistence.wrap.single.values": "false"})
    try:
        for i, fmt in enumerate(ALL_FORMATS):
            e.execute(f"CREATE STREAM s{i} (v INT) WITH (kafka_topic='t{i}', partitions=1, value_format='{fmt}');")
            expected = {"UNWRAP_SINGLES"} if fmt in UNWRAPS else set()
            assert e.catalog.source(f"S{i}").value_features == expected, fmt
    finally:
        e.close()


WRAPS = {"JSON", "JSON_SR", "AVRO", "PROTOBUF", "PROTOBUF_NOSR"}


@pytest.mark.parametrize("setting", [None, "true", "false", "TRUE"])
@pytest.mark.parametrize("kind", ["CREATE", "CSAS"])
def test_the_wrap_config_gives_a_feature_only_when_set(tmp_path: Path, setting: str | None, kind: str) -> None:
    """ksql.persistence.wrap.single.values has no default: unset, a single value column has no wrapping
    feature in any format; set either way, the feature it names where the format supports it."""
    e = Engine(str(tmp_path), {} if setting is None else {"ksql.persistence.wrap.single.values": setting})
    try:
        e.execute(SOURCE)
        for i, fmt in enumerate(ALL_FORMATS):
            if kind == "CREATE":
                e.execute(f"CREATE STREAM s{i} (v INT) WITH (kafka_topic='t{i}', partitions=1, value_format='{fmt}');")
            else:
                e.execute(f"CREATE STREAM s{i} WITH (value_format='{fmt}') AS SELECT k, v FROM src;")
            if setting is None:
                expected: set[str] = set()
            elif setting.lower() == "true":
                expected = {"WRAP_SINGLES"} if fmt in WRAPS else set()
            else:
                expected = {"UNWRAP_SINGLES"} if fmt in UNWRAPS else set()
            assert e.catalog.source(f"S{i}").value_features == expected, fmt
            # several value columns never carry one
            if fmt != "KAFKA":
                e.execute(f"CREATE STREAM m{i} (v INT, w INT) WITH (kafka_topic='m{i}', partitions=1, "
                          f"value_format='{fmt}');")
                assert e.catalog.source(f"M{i}").value_features == set(), fmt
    finally:
        e.close()


def test_a_session_set_wrap_config_applies_to_what_is_created_after(tmp_path: Path) -> None:
    e = Engine(str(tmp_path), {})
    try:
        e.execute("CREATE STREAM a (v INT) WITH (kafka_topic='a', partitions=1, value_format='JSON');")
        e.execute("SET 'ksql.persistence.wrap.single.values'='true';")
        e.execute("CREATE STREAM b (v INT) WITH (kafka_topic='b', partitions=1, value_format='JSON');")
        assert e.catalog.source("A").value_features == set()
        assert e.catalog.source("B").value_features == {"WRAP_SINGLES"}
    finally:
        e.close()


@pytest.mark.parametrize("build", STATEMENTS)
@pytest.mark.parametrize("which", ["KEY_FORMAT", "VALUE_FORMAT"])
def test_format_excludes_key_and_value_format(engine: Engine, build, which: str) -> None:  # type: ignore[no-untyped-def]
    sql = build("JSON", "format='JSON'")
    if which == "KEY_FORMAT":
        sql = sql.replace("value_format='JSON', ", "")
    else:
        sql = sql.replace("key_format='KAFKA', ", "")
    assert _error(engine, sql) == (
        f"Cannot supply both '{which}' and 'FORMAT' properties, as 'FORMAT' sets both key and value formats. "
        "Either use just 'FORMAT', or use 'KEY_FORMAT' and 'VALUE_FORMAT'.")


@pytest.mark.parametrize("build", STATEMENTS)
def test_one_value_schema_name(engine: Engine, build) -> None:  # type: ignore[no-untyped-def]
    assert _error(engine, build("AVRO", "value_schema_full_name='a.B', value_avro_schema_full_name='a.C'")) == (
        "Cannot supply both 'VALUE_AVRO_SCHEMA_FULL_NAME' and 'VALUE_SCHEMA_FULL_NAME' properties. Please only set "
        "'VALUE_SCHEMA_FULL_NAME'.")


@pytest.mark.parametrize("build", STATEMENTS)
@pytest.mark.parametrize("fmt", ["KAFKA", "JSON", "AVRO", "JSON_SR", "DELIMITED"])
@pytest.mark.parametrize("which", ["KEY", "VALUE"])
def test_nullable_representation_is_protobuf_only(engine: Engine, build, fmt: str, which: str) -> None:  # type: ignore[no-untyped-def]
    formats = {"key_format": fmt} if which == "KEY" else {"key_format": "KAFKA"}
    value_fmt = fmt if which == "VALUE" else "JSON"
    sql = build(value_fmt, f"{which.lower()}_protobuf_nullable_representation='WRAPPER'", **formats)
    assert _error(engine, sql) == (
        f"Property {which}_PROTOBUF_NULLABLE_REPRESENTATION can only be enabled with protobuf format")


@pytest.mark.parametrize("build", STATEMENTS)
@pytest.mark.parametrize("fmt", ["PROTOBUF", "PROTOBUF_NOSR"])
def test_nullable_representation_with_protobuf(engine: Engine, build, fmt: str) -> None:  # type: ignore[no-untyped-def]
    engine.execute(build(fmt, "value_protobuf_nullable_representation='OPTIONAL'"))


def test_none_format_has_no_columns(engine: Engine) -> None:
    assert _error(engine, _create("NONE", "")) == (
        "Value format does not support schema.\nformat: NONE\nschema: Persistence{columns=[`V` INTEGER], features=[]}\n"
        "reason: The 'NONE' format can only be used when no columns are defined. Got: [`V` INTEGER]")
    assert _error(engine, _create("JSON", "", key_format="NONE")).endswith(
        "reason: The 'NONE' format can only be used when no columns are defined. Got: [`K` INTEGER KEY]")


@pytest.mark.parametrize("build", STATEMENTS)
@pytest.mark.parametrize("key_format", ["JSON", "AVRO", "JSON_SR", "PROTOBUF_NOSR"])
def test_single_keys_unwrap_where_the_format_can_do_both(engine: Engine, build, key_format: str) -> None:  # type: ignore[no-untyped-def]
    engine.execute(build("JSON", "", key_format=key_format))
    assert engine.catalog.source("S").key_features == {"UNWRAP_SINGLES"}


@pytest.mark.parametrize("build", STATEMENTS)
@pytest.mark.parametrize("key_format", ["KAFKA", "DELIMITED", "PROTOBUF"])
def test_key_formats_without_unwrapping_carry_no_key_feature(engine: Engine, build, key_format: str) -> None:  # type: ignore[no-untyped-def]
    engine.execute(build("JSON", "", key_format=key_format))
    assert engine.catalog.source("S").key_features == set()


def test_csas_inherits_the_value_delimiter_of_an_unchanged_format_never_the_key_one(engine: Engine) -> None:
    engine.execute("CREATE STREAM d (k STRING KEY, v INT) WITH (kafka_topic='d', partitions=1, format='DELIMITED', "
                   "key_delimiter='|', value_delimiter='$');")
    engine.execute("CREATE STREAM same AS SELECT * FROM d;")
    engine.execute("CREATE STREAM other WITH (value_format='JSON') AS SELECT * FROM d;")
    same, other = engine.catalog.source("SAME"), engine.catalog.source("OTHER")
    assert (same.key_delimiter, same.value_delimiter) == (None, "$")
    assert (other.key_delimiter, other.value_delimiter) == (None, None)


@pytest.mark.parametrize("fmt", ["AVRO", "PROTOBUF"])
def test_csas_inherits_the_value_schema_name_of_an_unchanged_format_never_the_key_one(engine: Engine, fmt: str) -> None:
    engine.execute(f"CREATE STREAM named (k STRING KEY, v INT) WITH (kafka_topic='n', partitions=1, format='{fmt}', "
                   "key_schema_full_name='my.Key', value_schema_full_name='my.Value');")
    engine.execute("CREATE STREAM same AS SELECT * FROM named;")
    engine.execute("CREATE STREAM own WITH (value_schema_full_name='other.V') AS SELECT * FROM named;")
    engine.execute("CREATE STREAM json_value WITH (value_format='JSON') AS SELECT * FROM named;")
    props = {n: engine.catalog.source(n).properties for n in ("SAME", "OWN", "JSON_VALUE")}
    assert "KEY_SCHEMA_FULL_NAME" not in props["SAME"]
    assert props["SAME"]["VALUE_SCHEMA_FULL_NAME"] == "my.Value"
    assert props["OWN"]["VALUE_SCHEMA_FULL_NAME"] == "other.V"
    assert "VALUE_SCHEMA_FULL_NAME" not in props["JSON_VALUE"]
    assert "my" in engine.schema_registry.latest("SAME-value").schema


def test_json_sr_inherits_no_schema_name(engine: Engine) -> None:
    engine.execute("CREATE STREAM named (k STRING KEY, v INT) WITH (kafka_topic='n', partitions=1, format='JSON_SR', "
                   "value_schema_full_name='my.Value');")
    engine.execute("CREATE STREAM same AS SELECT * FROM named;")
    assert "VALUE_SCHEMA_FULL_NAME" not in engine.catalog.source("SAME").properties
