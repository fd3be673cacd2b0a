"""Which sides of a join are re-keyed, and into which key format (ksqlDB's JoinNode.resolveKeyFormats and
PreJoinRepartitionNode): the left side's format unless it must be re-keyed, then the right side's, then the
first non-NONE; a side in another format is re-keyed into it, and every side is when the format is a
schema-registry one. Windowed sources are only re-keyed into a schema-registry format on their own key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ksqlpy.analysis.query import analyze_query
from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar import parse

WINDOWED = {"W": "WINDOW_TYPE='TUMBLING', WINDOW_SIZE='1 SECOND'", "H": "WINDOW_TYPE='HOPPING', WINDOW_SIZE='2 SECONDS'"}


@pytest.fixture
def engine(tmp_path: Path) -> Any:
    e = Engine(str(tmp_path), {})
    yield e
    e.close()


def _source(engine: Engine, kind: str, name: str, fmt: str, window: str | None = None) -> None:
    key = "" if fmt == "NONE" else " PRIMARY KEY" if kind == "TABLE" else " KEY"
    extra = f", {WINDOWED[window]}" if window else ""
    engine.execute(f"CREATE {kind} {name} (ID INT{key}, V INT) WITH (kafka_topic='{name.lower()}', "
                   f"key_format='{fmt}', value_format='JSON', partitions=2{extra});")


def _root(engine: Engine, sql: str) -> Any:
    (stmt,) = parse(sql)
    plan = analyze_query(stmt.query, engine.catalog, engine.session_state(), sink_name=None, persistent=False)
    return plan.bottom


# (left kind, left format, right kind, right format, ON, expected: re-key left, re-key right, join key format)
CASES = [
    ("STREAM", "KAFKA", "STREAM", "KAFKA", "L.ID = R.ID", False, False, "KAFKA"),
    ("STREAM", "KAFKA", "STREAM", "JSON", "L.ID = R.ID", False, True, "KAFKA"),
    ("STREAM", "JSON", "STREAM", "KAFKA", "L.V = R.ID", True, False, "KAFKA"),  # left re-keyed: right's format
    ("STREAM", "NONE", "STREAM", "JSON", "L.V = R.ID", True, False, "JSON"),
    ("STREAM", "JSON", "STREAM", "KAFKA", "L.V = R.V", True, True, "JSON"),  # both: the first non-NONE
    ("STREAM", "NONE", "STREAM", "DELIMITED", "L.V = R.V", True, True, "DELIMITED"),
    ("STREAM", "AVRO", "STREAM", "AVRO", "L.ID = R.ID", True, True, "AVRO"),  # schema-registry: both re-keyed
    ("STREAM", "KAFKA", "STREAM", "AVRO", "L.ID = R.ID", False, True, "KAFKA"),
    ("STREAM", "AVRO", "STREAM", "KAFKA", "L.ID = R.ID", True, True, "AVRO"),
    ("STREAM", "KAFKA", "TABLE", "AVRO", "L.V = R.ID", True, True, "AVRO"),  # the table's format, forced
    ("STREAM", "JSON_SR", "TABLE", "KAFKA", "L.V = R.ID", True, False, "KAFKA"),
    ("STREAM", "PROTOBUF", "TABLE", "PROTOBUF", "L.ID = R.ID", True, True, "PROTOBUF"),
    ("TABLE", "KAFKA", "TABLE", "JSON", "L.ID = R.ID", False, True, "KAFKA"),
    ("TABLE", "JSON_SR", "TABLE", "JSON_SR", "L.ID = R.ID", True, True, "JSON_SR"),
    ("TABLE", "AVRO", "TABLE", "AVRO", "L.V = R.ID", False, False, "AVRO"),  # foreign key: no re-keying
]


@pytest.mark.parametrize(("lk", "lf", "rk", "rf", "on", "rep_left", "rep_right", "fmt"), CASES)
def test_rekey_decision(engine: Engine, lk: str, lf: str, rk: str, rf: str, on: str, rep_left: bool,
                        rep_right: bool, fmt: str) -> None:
    _source(engine, lk, "L", lf)
    _source(engine, rk, "R", rf)
    within = " WITHIN 1 SECOND" if lk == rk == "STREAM" else ""
    node = _root(engine, f"SELECT * FROM L JOIN R{within} ON {on} EMIT CHANGES;")
    assert (node.repartition_left, node.repartition_right, node.key_format) == (rep_left, rep_right, fmt)


def test_nested_join_keeps_its_own_format_and_schema_registry_sides_follow(engine: Engine) -> None:
    _source(engine, "STREAM", "A", "AVRO")
    _source(engine, "STREAM", "B", "JSON_SR")
    _source(engine, "TABLE", "C", "JSON_SR")
    node = _root(engine, "SELECT * FROM A JOIN B WITHIN 1 SECOND ON A.ID = B.ID JOIN C ON A.ID = C.ID EMIT CHANGES;")
    assert (node.left.key_format, node.left.repartition_left, node.left.repartition_right) == ("AVRO", True, True)
    # the nested join needs no re-keying: its AVRO stays, and the JSON_SR table is re-keyed into it
    assert (node.key_format, node.repartition_left, node.repartition_right) == ("AVRO", False, True)
    node = _root(engine, "SELECT * FROM A JOIN B WITHIN 1 SECOND ON A.ID = B.ID JOIN C ON A.V = C.ID EMIT CHANGES;")
    assert (node.key_format, node.repartition_left, node.repartition_right) == ("JSON_SR", True, True)


def test_windowed_streams_are_re_keyed_into_a_schema_registry_format_on_their_key(engine: Engine) -> None:
    _source(engine, "STREAM", "L", "JSON_SR", "H")
    _source(engine, "STREAM", "R", "JSON_SR", "W")
    node = _root(engine, "SELECT * FROM L JOIN R WITHIN 1 MINUTE ON L.ID = R.ID EMIT CHANGES;")
    assert (node.repartition_left, node.repartition_right) == (True, True)
    with pytest.raises(KsqlStatementError, match=r"^Implicit repartitioning of windowed sources is not supported. "
                                                 r"See https://github.com/confluentinc/ksql/issues/4385.$"):
        _root(engine, "SELECT * FROM L JOIN R WITHIN 1 MINUTE ON L.V = R.ID EMIT CHANGES;")


def test_windowed_sources_in_another_window_are_not_re_keyed(engine: Engine) -> None:
    _source(engine, "STREAM", "L", "KAFKA", "H")
    _source(engine, "STREAM", "R", "KAFKA", "W")
    with pytest.raises(KsqlStatementError, match="^Implicit repartitioning of windowed sources is not supported"):
        _root(engine, "SELECT * FROM L JOIN R WITHIN 1 MINUTE ON L.ID = R.ID EMIT CHANGES;")


def test_windowed_tables_with_schema_registry_keys_cannot_join(engine: Engine) -> None:
    _source(engine, "TABLE", "L", "AVRO", "W")
    _source(engine, "TABLE", "R", "AVRO", "W")
    with pytest.raises(KsqlStatementError, match="As a result, ksqlDB does not support joins on windowed sources "
                                                 "with Schema-Registry-enabled key formats"):
        _root(engine, "SELECT * FROM L JOIN R ON L.ID = R.ID EMIT CHANGES;")
