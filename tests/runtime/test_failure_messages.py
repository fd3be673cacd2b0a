"""What the processing log says when an expression fails on a record: the place, in ksqlDB's words
(``ksqlpy.expr.failures``), with the error's messages as the cause - projection, WHERE, HAVING, GROUP BY,
nested CASTs and function calls."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord

ROWS = [{"A": 1, "B": "x"}, {"A": 0, "B": None}, {"A": None, "B": "7"}]


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute("CREATE STREAM S (ID INT KEY, A INT, B STRING) WITH (kafka_topic='s', format='JSON', partitions=1);")
    yield e
    e.close()


def _run(engine: Engine, sql: str) -> list[tuple[str, list[str]]]:
    engine.execute(sql)
    with engine.log.transaction() as tx:
        for i, r in enumerate(ROWS):
            tx.produce(ProducerRecord("s", orjson.dumps(i), orjson.dumps(r), i, None, partition=0))
    engine.drain()
    out = []
    for entry in engine.plog.entries:
        m: dict[str, Any] = entry["message"]
        assert m["type"] == 1 and set(m["recordProcessingError"]) == {"errorMessage", "record", "cause"}
        out.append((m["recordProcessingError"]["errorMessage"], m["recordProcessingError"]["cause"]))
    return out


def test_projection_column_names_expression_column_and_value_index(engine: Engine) -> None:
    got = _run(engine, "CREATE STREAM O AS SELECT ID, B, 10 / A AS Q FROM S;")
    assert got == [("Error computing expression (10 / A) for column Q with index 1", ["/ by zero"]),
                   # a NULL operand fails as Java's unboxing does
                   ("Error computing expression (10 / A) for column Q with index 1", ["java.lang.NullPointerException"])]


def test_where_failure_is_a_predicate_error_and_drops_the_row(engine: Engine) -> None:
    got = _run(engine, "CREATE STREAM O AS SELECT * FROM S WHERE 10 / A > 1;")
    assert got == [("Error evaluating predicate ((10 / A) > 1)", ["/ by zero"]),
                   ("Error evaluating predicate ((10 / A) > 1)", ["java.lang.NullPointerException"])]


def test_nested_cast_fails_alone_and_is_named_by_its_type(engine: Engine) -> None:
    got = _run(engine, "CREATE STREAM O AS SELECT ID, COALESCE(CAST(B AS INT), -1) AS N FROM S;")
    assert got == [("Error processing INTEGER", ['For input string: "x"'])]


def test_group_by_failure_and_null_exclude_the_row(engine: Engine) -> None:
    got = _run(engine, "CREATE TABLE T AS SELECT 10 / A AS G, COUNT(*) AS C FROM S GROUP BY 10 / A;")
    assert got == [
        ("Error calculating group-by column with index 0. The source row will be excluded from the table.",
         ["/ by zero"]),
        # a NULL operand fails as Java's unboxing does: an error, not a NULL key
        ("Error calculating group-by column with index 0. The source row will be excluded from the table.",
         ["java.lang.NullPointerException"]),
    ]


def test_group_by_null_excludes_the_row(engine: Engine) -> None:
    got = _run(engine, "CREATE TABLE T AS SELECT UCASE(B) AS G, COUNT(*) AS C FROM S GROUP BY UCASE(B);")
    assert got == [
        ("Group-by column with index 0 resolved to null. The source row will be excluded from the table.", []),
    ]


def _grouped_without_kafka_key(engine: Engine, group_by: str) -> list[tuple[str, list[str]]]:
    engine.execute(f"CREATE TABLE T AS SELECT {group_by}, COUNT(*) AS C FROM S GROUP BY {group_by};")
    engine.log.produce(ProducerRecord("s", None, orjson.dumps({"A": 1, "B": "x"}), 0, None, partition=0))
    engine.drain()
    return [(e["message"]["recordProcessingError"]["errorMessage"], e["message"]["recordProcessingError"]["cause"])
            for e in engine.plog.entries]


def test_grouping_by_the_streams_own_key_skips_a_record_without_a_kafka_key_unlogged(engine: Engine) -> None:
    # groupByKey runs no group-by mapper: Kafka Streams' aggregation skips the record (a metric, no log entry)
    assert _grouped_without_kafka_key(engine, "ID") == []


def test_grouping_by_an_expression_of_the_key_logs_the_null_it_excludes(engine: Engine) -> None:
    assert _grouped_without_kafka_key(engine, "CAST(ID AS STRING)") == [
        ("Group-by column with index 0 resolved to null. The source row will be excluded from the table.", []),
    ]


def test_having_failure_is_a_predicate_error(engine: Engine) -> None:
    got = _run(engine, "CREATE TABLE T AS SELECT B, COUNT(*) AS C FROM S WHERE B IS NOT NULL GROUP BY B "
                       "HAVING 10 / (COUNT(*) - 1) > 0;")
    # ksqlDB runs HAVING over the aggregation's internal columns: the SELECT's COUNT(*) is KSQL_AGG_VARIABLE_0,
    # HAVING's own occurrence KSQL_AGG_VARIABLE_1
    assert got == [("Error evaluating predicate ((10 / (KSQL_AGG_VARIABLE_1 - 1)) > 0)", ["/ by zero"])] * 2


def test_having_names_grouping_columns_and_aggregates_as_it_runs_them(engine: Engine) -> None:
    got = _run(engine, "CREATE TABLE T AS SELECT B, SUM(A) AS S FROM S WHERE B IS NOT NULL GROUP BY B "
                       "HAVING B <> 'q' AND 10 / (MAX(A) - MIN(A)) = 0;")
    predicate = ("Error evaluating predicate ((KSQL_INTERNAL_COL_0 <> 'q') AND ((10 / (KSQL_AGG_VARIABLE_1 - "
                 "KSQL_AGG_VARIABLE_2)) = 0))")
    # the other group's MAX is NULL: arithmetic on it fails as Java's unboxing does
    assert sorted(got) == sorted([(predicate, ["/ by zero"]), (predicate, ["java.lang.NullPointerException"])])


def test_having_typing_errors_still_name_the_calls(engine: Engine) -> None:
    from ksqlpy.errors import KsqlError
    with pytest.raises(KsqlError) as e:
        engine.execute("CREATE TABLE T AS SELECT B, COUNT(*) FROM S GROUP BY B HAVING SUM(A) > 'x';")
    assert "Cannot compare SUM(A) (INTEGER) to 'x' (STRING) with GREATER_THAN." in str(e.value)


@pytest.mark.parametrize(("fmt", "raw", "message", "cause"), [
    ("JSON", b'{"A": "x"}',
     "Failed to deserialize value from topic: d. Can't coerce string to type. targetType: INTEGER, path: $.A",
     ["Can't coerce string to type. targetType: INTEGER, path: $.A",
      "Can't coerce string to type. targetType: INTEGER, path: .A", "Can't coerce string to type. targetType: INTEGER"]),
    ("DELIMITED", b"1,2,3", "Error deserializing delimited",
     ["Column count mismatch on deserialization. topic: d, expected: 2, got: 3"]),
    ("DELIMITED", b"x,y", "Error deserializing delimited", ['For input string: "x"']),
    ("JSON_SR", b'{"A": 1}',
     "Failed to deserialize value from topic: d. Got unexpected JSON serialization format that did not start with "
     "the magic byte. If this stream was not serialized using the JsonSchemaConverter, then make sure the stream "
     "is declared with JSON format (not JSON_SR).",
     ["Got unexpected JSON serialization format that did not start with the magic byte. If this stream was not "
      "serialized using the JsonSchemaConverter, then make sure the stream is declared with JSON format (not "
      "JSON_SR)."]),
    ("KAFKA", b"\x00\x01", "Error deserializing KAFKA message from topic: d",
     ["Size of data received by IntegerDeserializer is not 4"]),
])
def test_deserialization_errors_carry_each_formats_message(tmp_path: Path, fmt: str, raw: bytes, message: str,
                                                           cause: list[str]) -> None:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        cols = "A INT" if fmt == "KAFKA" else "A INT, B STRING"
        e.execute(f"CREATE STREAM D (ID INT KEY, {cols}) WITH (kafka_topic='d', key_format='JSON', "
                  f"value_format='{fmt}', partitions=1);")
        e.execute("CREATE STREAM O AS SELECT * FROM D;")
        e.log.produce(ProducerRecord("d", b"1", raw, 0, None, partition=0))
        e.drain()
        [entry] = e.plog.entries
        got = entry["message"]["deserializationError"]
        assert (got["errorMessage"], got["cause"], got["target"], got["topic"]) == (message, cause, "value", "d")
    finally:
        e.close()
