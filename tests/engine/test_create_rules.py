"""CREATE rules of ksqlDB's CreateSourceFactory / TimestampExtractionPolicyFactory for CREATE and
CREATE ... AS SELECT alike (topic properties, timestamp columns), and the case hint for unknown sources."""

from __future__ import annotations

from pathlib import Path

import pytest
from statement_errors import error as _error

from ksqlpy.engine import Engine

SOURCE = ("CREATE STREAM src (k STRING KEY, n INT, l BIGINT, s STRING, ts TIMESTAMP) "
          "WITH (kafka_topic='src', value_format='JSON', partitions=1);")


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute(SOURCE)
    yield e
    e.close()


CLEANUP = ("Invalid config variable in the WITH clause: CLEANUP_POLICY.\nThe CLEANUP_POLICY config is automatically "
           "inferred based on the type of source (STREAM or TABLE).\nUsers can't set the CLEANUP_POLICY config "
           "manually.")
RETENTION = "Invalid config variable in the WITH clause: RETENTION_MS. Non-windowed tables do not support retention."


@pytest.mark.parametrize("sql", [
    "CREATE STREAM x (k STRING KEY, v INT) WITH (kafka_topic='x', value_format='JSON', partitions=1, "
    "cleanup_policy='delete');",
    "CREATE TABLE x (k STRING PRIMARY KEY, v INT) WITH (kafka_topic='x', value_format='JSON', partitions=1, "
    "cleanup_policy='compact');",
    "CREATE STREAM x WITH (cleanup_policy='delete') AS SELECT * FROM src;",
    "CREATE TABLE x WITH (cleanup_policy='compact') AS SELECT k, COUNT(*) AS c FROM src GROUP BY k;",
])
def test_the_cleanup_policy_is_not_the_users(engine: Engine, sql: str) -> None:
    assert _error(engine, sql) == CLEANUP


def test_only_windowed_tables_have_a_retention(engine: Engine) -> None:
    assert _error(engine, "CREATE TABLE x (k STRING PRIMARY KEY, v INT) WITH (kafka_topic='x', value_format='JSON', "
                          "partitions=1, retention_ms=1000);") == RETENTION
    assert _error(engine, "CREATE TABLE x WITH (retention_ms=1000) AS SELECT k, COUNT(*) AS c FROM src "
                          "GROUP BY k;") == RETENTION
    engine.execute("CREATE STREAM y (k STRING KEY, v INT) WITH (kafka_topic='y', value_format='JSON', partitions=1, "
                   "retention_ms=1000);")
    engine.execute("CREATE TABLE w WITH (retention_ms=1000) AS SELECT k, COUNT(*) AS c FROM src "
                   "WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY k;")
    assert engine.log.describe_topic("W").config.get("retention.ms") == "1000"


@pytest.mark.parametrize(("sql", "topic", "config"), [
    ("CREATE STREAM y (k STRING KEY, v INT) WITH (kafka_topic='y', value_format='JSON', partitions=1);", "y",
     {"cleanup.policy": "delete"}),
    ("CREATE STREAM y (k STRING KEY, v INT) WITH (kafka_topic='y', value_format='JSON', partitions=1, "
     "retention_ms=5000);", "y", {"cleanup.policy": "delete", "retention.ms": "5000"}),
    ("CREATE TABLE y (k STRING PRIMARY KEY, v INT) WITH (kafka_topic='y', value_format='JSON', partitions=1);", "y",
     {"cleanup.policy": "compact"}),
    ("CREATE TABLE y (k STRING PRIMARY KEY, v INT) WITH (kafka_topic='y', value_format='JSON', partitions=1, "
     "window_type='TUMBLING', window_size='1 SECOND');", "y", {"cleanup.policy": "compact"}),
    ("CREATE STREAM y AS SELECT * FROM src;", "Y", {"cleanup.policy": "delete"}),
    ("CREATE TABLE y AS SELECT k, COUNT(*) AS c FROM src GROUP BY k;", "Y", {"cleanup.policy": "compact"}),
    ("CREATE TABLE y AS SELECT k, COUNT(*) AS c FROM src WINDOW TUMBLING (SIZE 1 HOUR) GROUP BY k;", "Y",
     {"cleanup.policy": "compact,delete"}),
    # the window's RETENTION is kept at least, whatever RETENTION_MS says
    ("CREATE TABLE y WITH (retention_ms=1000) AS SELECT k, COUNT(*) AS c FROM src "
     "WINDOW TUMBLING (SIZE 1 HOUR, RETENTION 3 DAYS) GROUP BY k;", "Y",
     {"cleanup.policy": "compact,delete", "retention.ms": str(3 * 86_400_000)}),
    ("CREATE TABLE y WITH (retention_ms=999999999999) AS SELECT k, COUNT(*) AS c FROM src "
     "WINDOW TUMBLING (SIZE 1 HOUR, RETENTION 3 DAYS) GROUP BY k;", "Y",
     {"cleanup.policy": "compact,delete", "retention.ms": "999999999999"}),
])
def test_created_topics_get_the_cleanup_policy_and_retention_of_their_kind(engine: Engine, sql: str, topic: str,
                                                                          config: dict[str, str]) -> None:
    engine.execute(sql)
    info = engine.log.describe_topic(topic)
    assert info is not None and info.config == config


def test_a_stream_sink_inherits_its_source_topics_retention(engine: Engine) -> None:
    engine.execute("CREATE STREAM r (k STRING KEY, v INT) WITH (kafka_topic='r', value_format='JSON', partitions=1, "
                   "retention_ms=7000);")
    engine.execute("CREATE STREAM r2 AS SELECT * FROM r;")
    engine.execute("CREATE STREAM r3 WITH (retention_ms=9000) AS SELECT * FROM r;")
    assert engine.log.describe_topic("R2").config == {"cleanup.policy": "delete", "retention.ms": "7000"}
    assert engine.log.describe_topic("R3").config == {"cleanup.policy": "delete", "retention.ms": "9000"}


def _create(column: str, props: str) -> str:
    return (f"CREATE STREAM x (k STRING KEY, n INT, l BIGINT, s STRING, ts TIMESTAMP) WITH (kafka_topic='x', "
            f"value_format='JSON', partitions=1, timestamp='{column}'{props});")


def _csas(column: str, props: str) -> str:
    return f"CREATE STREAM x WITH (timestamp='{column}'{props}) AS SELECT * FROM src;"


@pytest.mark.parametrize("build", [_create, _csas])
def test_timestamp_columns(engine: Engine, build) -> None:  # type: ignore[no-untyped-def]
    assert _error(engine, build("s", "")) == (
        "A String timestamp field has been specified without also specifying the timestamp_format")
    assert _error(engine, build("n", "")) == (
        "Timestamp column, `N`, should be LONG(INT64), TIMESTAMP, or a String with a timestamp_format specified.")
    for column in ("l", "ts"):
        assert _error(engine, build(column, ", timestamp_format='yyyy'")) == (
            "'TIMESTAMP_FORMAT' set in the WITH clause can only be used when the timestamp column is of type STRING.")
    assert "does not exist in the schema: 'NOPE'" in _error(engine, build("nope", ""))
    for column, props in (("l", ""), ("ts", ""), ("s", ", timestamp_format='yyyy-MM-dd'")):
        engine.execute(build(column, props))
        engine.execute("DROP STREAM x;")


def test_a_source_differing_only_in_case_is_suggested(engine: Engine) -> None:
    engine.execute("CREATE STREAM \"lower\" (k STRING KEY, v INT) WITH (kafka_topic='l', value_format='JSON', "
                   "partitions=1);")
    assert _error(engine, "SELECT * FROM lower EMIT CHANGES;").endswith(
        'LOWER does not exist.\nDid you mean "lower"? Hint: wrap the source name in double quotes to make it '
        "case-sensitive.")
    assert _error(engine, "CREATE STREAM o AS SELECT * FROM `src`;").endswith(
        "src does not exist.\nDid you mean SRC? Hint: try removing double quotes from the source name.")
    assert _error(engine, "INSERT INTO `src` (k) VALUES ('a');") == (
        "Cannot insert values into an unknown stream/table: `src`\nDid you mean SRC? Hint: try removing double "
        "quotes from the source name.")
    engine.execute("CREATE TABLE \"Lower\" (k STRING PRIMARY KEY, v INT) WITH (kafka_topic='l2', value_format='JSON', "
                   "partitions=1);")
    assert _error(engine, "SELECT * FROM lower EMIT CHANGES;").endswith(
        'Did you mean "lower" (STREAM) or "Lower" (TABLE)? Hint: wrap the source name in double quotes to make '
        "it case-sensitive.")
    assert _error(engine, "SELECT * FROM `nothing` EMIT CHANGES;").endswith("nothing does not exist.")
