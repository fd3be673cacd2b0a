"""INSERT INTO ... VALUES by ksqlDB's rules: column pairing, target checks, pseudo columns, STRICT value
coercion (structs at every level, inside arrays and maps), primary keys, and the record timestamp - over
every key and value format."""

from __future__ import annotations

import base64
import decimal
import time
from pathlib import Path

import pytest
from statement_errors import raised as _error

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlParseError

KEY_FORMATS = ["KAFKA", "JSON", "DELIMITED", "AVRO", "JSON_SR", "PROTOBUF", "PROTOBUF_NOSR"]
VALUE_FORMATS = ["JSON", "DELIMITED", "AVRO", "JSON_SR", "PROTOBUF", "PROTOBUF_NOSR"]
NESTED_FORMATS = ["JSON", "AVRO", "JSON_SR", "PROTOBUF", "PROTOBUF_NOSR"]


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    yield e
    e.close()


def _rows(engine: Engine, source: str) -> list[tuple[tuple, tuple, int]]:
    """What the source's topic holds, decoded with its own serdes: (key, value, timestamp)."""
    src = engine.catalog.source(source)
    batch = engine.log.fetch(src.topic, 0, 0, 100)
    ks, vs = engine.key_serde(src), engine.value_serde(src)
    return [(ks.deserialize(k) if src.key_columns else (), vs.deserialize(v), ts)
            for k, v, ts in zip(batch.keys, batch.values, batch.timestamps, strict=True)]


@pytest.mark.parametrize("key_format", KEY_FORMATS)
@pytest.mark.parametrize("value_format", VALUE_FORMATS)
def test_without_a_column_list_keys_come_first(engine: Engine, key_format: str, value_format: str) -> None:
    engine.execute(f"CREATE STREAM s (a INT, k STRING KEY, b STRING) WITH (kafka_topic='s', partitions=1, "
                   f"key_format='{key_format}', value_format='{value_format}');")
    engine.execute("INSERT INTO s VALUES ('key', 1, 'x');")
    engine.execute("INSERT INTO s (b, k) VALUES ('y', 'other');")
    unset = 0 if value_format.startswith("PROTOBUF") else None  # proto3 reads an unset INT as 0
    assert [(k, v) for k, v, _ in _rows(engine, "S")] == [(("key",), (1, "x")), (("other",), (unset, "y"))]


@pytest.mark.parametrize("values", ["('k', 1)", "('k', 1, 'x', 2)"])
def test_a_value_per_column_without_a_list(engine: Engine, values: str) -> None:
    engine.execute("CREATE STREAM s (k STRING KEY, a INT, b STRING) WITH (kafka_topic='s', partitions=1, "
                   "value_format='JSON');")
    got = values.strip("()")
    assert _error(engine, f"INSERT INTO s VALUES {values};").message == (
        f"Failed to insert values into 'S'. Expected a value for each column. Expected Columns: []. Got [{got}]")


@pytest.mark.parametrize("kind", ["STREAM", "TABLE"])
def test_a_column_list_pairs_with_the_values_while_preparing(engine: Engine, kind: str) -> None:
    err = _error(engine, "INSERT INTO s (k, a) VALUES ('k', 1, 2);")
    assert isinstance(err, KsqlParseError)
    assert err.message == "Failed to prepare statement: Expected number columns and values to match: 2, 3"
    assert _error(engine, "INSERT INTO s (k) VALUES ();").message == (
        "Failed to prepare statement: Expected some values for INSERT INTO statement.")


def test_qualifiers_name_the_target(engine: Engine) -> None:
    engine.execute("CREATE STREAM s (k STRING KEY, a INT) WITH (kafka_topic='s', partitions=1, value_format='JSON');")
    engine.execute("INSERT INTO s (s.k, S.a) VALUES ('k', 1);")
    assert [(k, v) for k, v, _ in _rows(engine, "S")] == [(("k",), (1,))]
    for sql in ("INSERT INTO s (x.k, a) VALUES ('k', 1);", "INSERT INTO s (a) VALUES (x.a);"):
        assert _error(engine, sql).message == (
            "Failed to prepare statement: 'X' is not a valid stream/table name or alias.")


@pytest.mark.parametrize("kind", ["STREAM", "TABLE"])
@pytest.mark.parametrize("column", ["ROWPARTITION", "ROWOFFSET"])
def test_pseudo_columns_the_producer_decides(engine: Engine, kind: str, column: str) -> None:
    pk = "PRIMARY KEY" if kind == "TABLE" else "KEY"
    engine.execute(f"CREATE {kind} s (k STRING {pk}, a INT) WITH (kafka_topic='s', partitions=1, value_format='JSON');")
    assert _error(engine, f"INSERT INTO s (k, {column}) VALUES ('k', 1);").message == (
        f"Failed to insert values into 'S'. Inserting into column `{column}` is not allowed.")
    assert _error(engine, "INSERT INTO s (k, nope) VALUES ('k', 1);").message == (
        "Failed to insert values into 'S'. Column name `NOPE` does not exist.")


def test_rowtime_is_the_record_timestamp(engine: Engine) -> None:
    engine.execute("CREATE STREAM s (k STRING KEY, a INT) WITH (kafka_topic='s', partitions=1, value_format='JSON');")
    engine.execute("INSERT INTO s (ROWTIME, k, a) VALUES (1234, 'k', 1);")
    assert _rows(engine, "S")[0][2] == 1234


@pytest.mark.parametrize("value_format", ["JSON", "AVRO", "DELIMITED", "PROTOBUF"])
@pytest.mark.parametrize(("declared", "pattern", "text"), [
    ("STRING", "yyyy-MM-dd", "2020-01-02"),
    ("STRING", "yyyy-MM-dd", "soon"),  # unparseable: still inserted, the reader's extractor logs it
    ("BIGINT", None, 42),
    ("TIMESTAMP", None, "2020-01-02T00:00:00"),
])
def test_a_timestamp_column_is_data_and_the_record_time_is_now(engine: Engine, value_format: str, declared: str,
                                                               pattern: str | None, text: object) -> None:
    """ksqlDB's GenericRecordFactory: ROWTIME if given, else the wall clock - the TIMESTAMP column is not read."""
    fmt = f", timestamp_format='{pattern.replace(chr(39), chr(39) * 2)}'" if pattern else ""
    engine.execute(f"CREATE STREAM s (k STRING KEY, t {declared}) WITH (kafka_topic='s', partitions=1, "
                   f"value_format='{value_format}', timestamp='t'{fmt});")
    literal = f"'{text}'" if isinstance(text, str) else str(text)
    before = int(time.time() * 1000)
    engine.execute(f"INSERT INTO s (k, t) VALUES ('a', {literal});")
    after = int(time.time() * 1000)
    assert before <= _rows(engine, "S")[0][2] <= after


@pytest.mark.parametrize("kind", ["STREAM", "TABLE"])
@pytest.mark.parametrize("value", ["NULL", "CAST(NULL AS BIGINT)", "IFNULL(NULL, NULL)"])
def test_a_null_rowtime_fails_the_insert_with_no_reason(engine: Engine, kind: str, value: str) -> None:
    """GenericRecordFactory.build unboxes ``values.getOrDefault(ROWTIME, clock)``: a ROWTIME given as NULL throws
    a NullPointerException without a message - after the table's key check, with nothing written."""
    key = "PRIMARY KEY" if kind == "TABLE" else "KEY"
    engine.execute(f"CREATE {kind} s (k STRING {key}, a INT) WITH (kafka_topic='s', partitions=1, "
                   "value_format='JSON');")
    err = _error(engine, f"INSERT INTO s (ROWTIME, k, a) VALUES ({value}, 'k', 1);")
    assert (err.message, err.error_code) == ("Failed to insert values into 'S'. ", 40001)
    if kind == "TABLE":  # the key check comes first
        assert _error(engine, f"INSERT INTO s (ROWTIME, a) VALUES ({value}, 1);").message == (
            "Failed to insert values into 'S'. Value for primary key column(s) K is required for tables")
    assert _rows(engine, "S") == []


@pytest.mark.parametrize("kind", ["STREAM", "TABLE"])
def test_null_key_and_value_columns_are_written(engine: Engine, kind: str) -> None:
    """NULL is a value of every column (a table's key too, which must be named): the record is written."""
    key = "PRIMARY KEY" if kind == "TABLE" else "KEY"
    engine.execute(f"CREATE {kind} s (k STRING {key}, a INT, b STRING) WITH (kafka_topic='s', partitions=1, "
                   "value_format='JSON');")
    engine.execute("INSERT INTO s (ROWTIME, k, a, b) VALUES (5, NULL, NULL, 'x');")
    engine.execute("INSERT INTO s (ROWTIME, k, a) VALUES (6, 'k', NULL);")
    assert _rows(engine, "S") == [(None, (None, "x"), 5), (("k",), (None, None), 6)]  # a NULL key: no key bytes


def test_rowtime_wins_over_the_timestamp_column(engine: Engine) -> None:
    engine.execute("CREATE STREAM s (k STRING KEY, t BIGINT) WITH (kafka_topic='s', partitions=1, "
                   "value_format='JSON', timestamp='t');")
    engine.execute("INSERT INTO s (ROWTIME, k, t) VALUES (7, 'a', 42);")
    assert _rows(engine, "S")[0][2] == 7


def test_target_checks_come_first(engine: Engine) -> None:
    engine.execute("CREATE STREAM s (k STRING KEY, a INT) WITH (kafka_topic='s', partitions=1, value_format='JSON');")
    engine.execute("CREATE TABLE w AS SELECT k, COUNT(*) AS n FROM s WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY k;")
    engine.execute("CREATE SOURCE STREAM ro (k STRING KEY, a INT) WITH (kafka_topic='s', value_format='JSON');")
    engine.execute("CREATE STREAM h (k STRING KEY, a INT, hs ARRAY<STRUCT<key STRING, value BYTES>> HEADERS) "
                   "WITH (kafka_topic='h', partitions=1, value_format='JSON');")
    cases = {
        "INSERT INTO w (k, nope) VALUES ('a', 1);": "Cannot insert values into windowed stream/table!",
        "INSERT INTO ro (k, nope) VALUES ('a', 1);": "Cannot insert values into read-only stream: RO",
        "INSERT INTO h (k, hs) VALUES ('a', NULL);": "Cannot insert into HEADER columns: HS",
        "INSERT INTO h VALUES ('a', 1, NULL);": "Cannot insert into HEADER columns: HS",
        "INSERT INTO ghost (k) VALUES ('a');": "Cannot insert values into an unknown stream/table: `GHOST`",
    }
    for sql, message in cases.items():
        err = _error(engine, sql)
        assert (err.message, err.error_code) == (message, 40000), sql
    engine.execute("INSERT INTO h (k, a) VALUES ('a', 1);")


@pytest.mark.parametrize("value_format", ["JSON", "AVRO", "PROTOBUF"])
def test_tables_need_every_primary_key_column(engine: Engine, value_format: str) -> None:
    engine.execute(f"CREATE TABLE t (k1 STRING PRIMARY KEY, k2 INT PRIMARY KEY, a INT) WITH (kafka_topic='t', "
                   f"partitions=1, key_format='JSON', value_format='{value_format}');")
    assert _error(engine, "INSERT INTO t (k2, a) VALUES (1, 1);").message == (
        "Failed to insert values into 'T'. Value for primary key column(s) K1 is required for tables")
    assert _error(engine, "INSERT INTO t (a) VALUES (1);").message == (
        "Failed to insert values into 'T'. Value for primary key column(s) K1, K2 is required for tables")


def test_values_are_constants(engine: Engine) -> None:
    engine.execute("CREATE STREAM s (k STRING KEY, a INT, b ARRAY<INT>) WITH (kafka_topic='s', partitions=1, "
                   "value_format='JSON');")
    assert _error(engine, "INSERT INTO s (k, a) VALUES ('k', a + 1);").message == (
        "Failed to insert values into 'S'. Unsupported column reference in insert value: A")
    engine.execute("INSERT INTO s (k, b) VALUES ('k', TRANSFORM(ARRAY[1, 2], x => x * 10));")
    assert _rows(engine, "S")[0][1] == (None, [10, 20])
    assert _error(engine, "INSERT INTO s (k, a) VALUES ('k', 1 / 0);").message == "Failed to insert values into 'S'. "


# STRICT coercion: (column type, literal, stored value) that are accepted ...
ACCEPTED = [
    ("BIGINT", "1", 1),
    ("DOUBLE", "1", 1.0),
    ("DOUBLE", "10000000000", 1e10),
    ("DOUBLE", "1.25", 1.25),
    ("DECIMAL(4, 2)", "3", decimal.Decimal("3.00")),
    ("DECIMAL(4, 2)", "1.5", decimal.Decimal("1.50")),
    ("DECIMAL(4, 2)", "1.500", decimal.Decimal("1.50")),  # zeros beyond the scale fit
    ("DECIMAL(12, 0)", "10000000000", decimal.Decimal("10000000000")),
    ("TIMESTAMP", "'2020-01-02T03:04:05.006'", 1577934245006),
    ("DATE", "'2020-01-02'", 18263),
    ("TIME", "'03:04:05'", 11045000),
    ("BYTES", "'" + base64.b64encode(b"hi").decode() + "'", b"hi"),
    ("STRING", "NULL", None),
]
# ... and refused, with the base type ksqlDB names
REFUSED = [
    ("INT", "10000000000", "BIGINT(10000000000)"),
    ("INT", "1.5", "DECIMAL(1.5)"),
    ("INT", "'1'", "STRING(1)"),
    ("BIGINT", "1.0E0", "DOUBLE(1.0)"),
    ("DECIMAL(4, 2)", "1.0E0", "DOUBLE(1.0)"),
    ("DECIMAL(4, 2)", "123", "INTEGER(123)"),
    ("DECIMAL(4, 2)", "1.234", "DECIMAL(1.234)"),  # ensureFit never rounds
    ("STRING", "1", "INTEGER(1)"),
    ("STRING", "true", "BOOLEAN(true)"),
    ("BOOLEAN", "'true'", "STRING(true)"),
    ("ARRAY<BIGINT>", "ARRAY['a']", "ARRAY([a])"),
    ("MAP<STRING, INTEGER>", "MAP('a' := 1.5)", "MAP({a=1.5})"),
]
HINTS = [
    ("TIMESTAMP", "'yesterday'", "STRING(yesterday). Timestamp format must be yyyy-mm-ddThh:mm:ss[.S]"),
    ("TIME", "'noon'", "STRING(noon). Time format must be hh:mm:ss[.S]"),
    ("DATE", "'today'", "STRING(today). Date format must be yyyy-mm-dd"),
]


@pytest.mark.parametrize(("declared", "literal", "stored"), ACCEPTED)
def test_strict_coercion_accepts(engine: Engine, declared: str, literal: str, stored: object) -> None:
    engine.execute(f"CREATE STREAM s (k STRING KEY, v {declared}) WITH (kafka_topic='s', partitions=1, "
                   "value_format='JSON');")
    engine.execute(f"INSERT INTO s (k, v) VALUES ('k', {literal});")
    assert _rows(engine, "S")[0][1] == (stored,)


@pytest.mark.parametrize(("declared", "literal", "got"), REFUSED + HINTS)
def test_strict_coercion_refuses(engine: Engine, declared: str, literal: str, got: str) -> None:
    engine.execute(f"CREATE STREAM s (k STRING KEY, v {declared}) WITH (kafka_topic='s', partitions=1, "
                   "value_format='JSON');")
    expected_type = {"INT": "INTEGER"}.get(declared, declared)
    assert _error(engine, f"INSERT INTO s (k, v) VALUES ('k', {literal});").message == (
        f"Failed to insert values into 'S'. Expected type {expected_type} for field `V` but got {got}")


STRUCT = "STRUCT<A INT, B STRUCT<C BIGINT, D STRING>>"


@pytest.mark.parametrize("value_format", NESTED_FORMATS)
@pytest.mark.parametrize(("declared", "literal", "stored"), [
    (STRUCT, "STRUCT(A:=1, Z:=2, B:=STRUCT(C:=3, Q:=4))", {"A": 1, "B": {"C": 3, "D": None}}),
    (STRUCT, "STRUCT(B:=STRUCT(D:='x'))", {"A": None, "B": {"C": None, "D": "x"}}),
    (f"ARRAY<{STRUCT}>", "ARRAY[STRUCT(A:=1, X:=true)]", [{"A": 1, "B": None}]),
    (f"MAP<STRING, {STRUCT}>", "MAP('m' := STRUCT(X:=1, B:=STRUCT(C:=7)))", {"m": {"A": None, "B": {"C": 7, "D": None}}}),
])
def test_structs_take_the_target_fields_at_every_level(engine: Engine, value_format: str, declared: str,
                                                       literal: str, stored: object) -> None:
    engine.execute(f"CREATE STREAM s (k STRING KEY, v {declared}) WITH (kafka_topic='s', partitions=1, "
                   f"value_format='{value_format}');")
    engine.execute(f"INSERT INTO s (k, v) VALUES ('k', {literal});")
    [(_, (value,), _)] = _rows(engine, "S")
    if value_format.startswith("PROTOBUF"):  # proto3 reads unset fields as their defaults: compare what was set
        value, stored = _set_leaves(value, stored), _set_leaves(stored, stored)
    assert value == stored


def _set_leaves(value: object, reference: object) -> object:
    """``value`` reduced to the leaves that are set (not None) in ``reference``."""
    if isinstance(reference, dict):
        return {k: _set_leaves(value[k], r) for k, r in reference.items() if r is not None}  # type: ignore[index]
    if isinstance(reference, list):
        return [_set_leaves(v, r) for v, r in zip(value, reference, strict=True)]  # type: ignore[call-overload]
    return value


def test_a_struct_field_of_the_wrong_type_is_refused(engine: Engine) -> None:
    engine.execute(f"CREATE STREAM s (k STRING KEY, v {STRUCT}) WITH (kafka_topic='s', partitions=1, "
                   "value_format='JSON');")
    assert _error(engine, "INSERT INTO s (k, v) VALUES ('k', STRUCT(B:=STRUCT(C:='x')));").message == (
        "Failed to insert values into 'S'. Expected type STRUCT<`A` INTEGER, `B` STRUCT<`C` BIGINT, `D` STRING>> "
        "for field `V` but got STRUCT(Struct{B=Struct{C=x}})")


SR_KEY_FORMATS = ["AVRO", "JSON_SR", "PROTOBUF"]


@pytest.mark.parametrize("fmt", SR_KEY_FORMATS)
def test_a_key_schema_registered_with_other_columns_is_not_overwritten(engine: Engine, fmt: str) -> None:
    """Two streams over one topic with different keys: the second's generated key schema would replace the
    first's registered one, so ksqlDB refuses the insert (the subject keeps its one version)."""
    engine.execute(f"CREATE STREAM a (k STRING KEY, v INT) WITH (kafka_topic='t', partitions=1, format='{fmt}');")
    engine.execute(f"CREATE STREAM b (k2 INT KEY, v INT) WITH (kafka_topic='t', partitions=1, format='{fmt}');")
    existing = "`K` STRING KEY" if fmt == "PROTOBUF" else "`ROWKEY` STRING KEY"  # a PROTOBUF key names its field
    assert _error(engine, "INSERT INTO b (k2, v) VALUES (1, 1);").message == (
        "Failed to insert values into 'B'. Cannot INSERT VALUES into data source `B`. ksqlDB generated schema would "
        f"overwrite existing key schema.\n\tExisting Schema: [{existing}]\n\tksqlDB Generated: [`K2` INTEGER KEY]")
    engine.execute("INSERT INTO a (k, v) VALUES ('x', 1);")
    assert len(engine.schema_registry.versions("t-key")) == 1
    assert [k for k, _, _ in _rows(engine, "A")] == [("x",)]


@pytest.mark.parametrize("fmt", SR_KEY_FORMATS)
@pytest.mark.parametrize(("declared", "literal"), [
    ("DECIMAL(4, 2)", "1.25"), ("TIMESTAMP", "'2020-01-01T00:00:00'"), ("DATE", "'2020-01-01'"), ("BYTES", "'AQI='"),
    ("STRUCT<F1 STRING, `f2` BIGINT>", "STRUCT(F1 := 'x', `f2` := CAST(1 AS BIGINT))"),
])
def test_a_key_schema_of_the_same_columns_lets_the_insert_through(engine: Engine, fmt: str, declared: str,
                                                                   literal: str) -> None:
    engine.execute(f"CREATE TABLE a (k {declared} PRIMARY KEY, v INT) WITH (kafka_topic='t', partitions=1, "
                   f"format='{fmt}');")
    engine.execute(f"INSERT INTO a (k, v) VALUES ({literal}, 1);")
    engine.execute("CREATE TABLE c AS SELECT * FROM a;")
    engine.execute(f"INSERT INTO c (k, v) VALUES ({literal}, 2);")
    assert len(_rows(engine, "A")) == 1


@pytest.mark.parametrize("fmt", SR_KEY_FORMATS)
def test_a_missing_key_subject_is_reported(engine: Engine, fmt: str) -> None:
    engine.execute(f"CREATE STREAM a (k STRING KEY, v INT) WITH (kafka_topic='t', partitions=1, format='{fmt}');")
    engine.schema_registry.delete_subject("t-key")
    assert _error(engine, "INSERT INTO a (k, v) VALUES ('x', 1);").message == (
        "Failed to insert values into 'A'. Failed to fetch key schema (t-key). Please check if schema exists in "
        "Schema Registry and/or check connection with Schema Registry.")
