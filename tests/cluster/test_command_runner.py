"""The live command topic: servers sharing one log (and service id) run every distributed statement,
whichever server accepted it, in the same order, without a restart.

Two ``ServerContext``s over one embedded log stand in for two servers on one Kafka cluster (the
three-process tests on a real broker are in ``test_cluster_kafka.py``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlError
from ksqlpy.grammar import parse
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.server.config import build_config
from ksqlpy.server.context import ServerContext


def _server(root: str, name: str, log: EmbeddedLog) -> ServerContext:
    data = os.path.join(root, name)
    config = build_config(None, "http://127.0.0.1:1", data, {"ksql.logging.processing.stream.auto.create": "false",
                                                             "ksql.logging.processing.topic.auto.create": "false"})
    ctx = ServerContext(config, Engine(data, config.engine_properties, log=log, lock=False))
    ctx.initialize()
    assert ctx.state == "READY", ctx.init_error
    return ctx


@pytest.fixture
def pair(tmp_path: Any) -> Iterator[tuple[ServerContext, ServerContext]]:
    log = EmbeddedLog(os.path.join(str(tmp_path), "log"))
    a, b = _server(str(tmp_path), "a", log), _server(str(tmp_path), "b", log)
    try:
        yield a, b
    finally:
        for ctx in (a, b):
            if ctx.runner is not None:
                ctx.runner.close()
            ctx.engine._stop.set()
            if ctx.engine._runner is not None:
                ctx.engine._runner.join(5)
        log.close()


def run(ctx: ServerContext, sql: str) -> tuple[Any, int]:
    stmt = parse(sql)[0]
    result, seq, _ = ctx.run_distributed(stmt, {})
    return result, seq


def names(ctx: ServerContext) -> set[str]:
    return {s.name for s in ctx.engine.catalog.sources()}


def test_a_statement_accepted_by_one_server_runs_on_the_other(pair: tuple[ServerContext, ServerContext]) -> None:
    a, b = pair
    _, seq = run(a, "CREATE STREAM S1 (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='s1', VALUE_FORMAT='JSON', "
                    "PARTITIONS=2);")
    b.wait_for_command(seq)  # commandSequenceNumber across servers
    assert "S1" in names(b)
    _, seq2 = run(b, "CREATE STREAM S2 AS SELECT * FROM S1;")
    a.wait_for_command(seq2)
    assert "S2" in names(a)
    assert set(a.engine.queries) == set(b.engine.queries) == {f"CSAS_S2_{seq2}"}
    assert b.statuses["stream/S1/create"]["status"] == "SUCCESS"


def test_the_last_command_counts_what_this_server_executed(pair: tuple[ServerContext, ServerContext]) -> None:
    a, b = pair
    before = b.last_command()
    b.runner.close()  # b stops reading: a's command is in the topic but not executed by b
    _, seq = run(a, "CREATE STREAM S3 (ID INT KEY) WITH (KAFKA_TOPIC='s3', VALUE_FORMAT='JSON', PARTITIONS=1);")
    assert b.last_command() == before < seq
    b.config.properties["ksql.server.command.response.timeout.ms"] = 200
    with pytest.raises(Exception, match="Timed out while waiting for a previous command"):
        b.wait_for_command(seq)


def test_drop_delete_topic_deletes_once_and_drops_everywhere(pair: tuple[ServerContext, ServerContext]) -> None:
    a, b = pair
    run(a, "CREATE STREAM S4 (ID INT KEY) WITH (KAFKA_TOPIC='s4', VALUE_FORMAT='JSON', PARTITIONS=1);")
    _, seq = run(b, "DROP STREAM S4 DELETE TOPIC;")
    a.wait_for_command(seq)
    assert "S4" not in names(a) and "S4" not in names(b)
    assert a.statuses["stream/S4/drop"]["status"] == "SUCCESS"
    assert not a.engine.log.topic_exists("s4")


def test_a_refused_statement_is_never_written(pair: tuple[ServerContext, ServerContext]) -> None:
    a, b = pair
    end = a.commands.next_offset()
    with pytest.raises(KsqlError, match="does not exist"):
        run(a, "CREATE STREAM S5 AS SELECT * FROM NOPE;")
    assert a.commands.next_offset() == end


def test_if_not_exists_on_an_existing_source_writes_nothing(pair: tuple[ServerContext, ServerContext]) -> None:
    a, b = pair
    sql = "CREATE STREAM IF NOT EXISTS S6 (ID INT KEY) WITH (KAFKA_TOPIC='s6', VALUE_FORMAT='JSON', PARTITIONS=1);"
    run(a, sql)
    end = b.commands.next_offset()
    result, seq = run(b, sql)
    assert seq == -1 and result.message.startswith("Cannot add")
    assert b.commands.next_offset() == end


def test_two_servers_racing_for_one_name_fail_the_second_everywhere(pair: tuple[ServerContext, ServerContext]) -> None:
    """Both validated before either wrote: the second command fails on every server alike."""
    a, b = pair
    sql = "CREATE STREAM S7 (ID INT KEY) WITH (KAFKA_TOPIC='s7', VALUE_FORMAT='JSON', PARTITIONS=1);"
    cmds = a.commands
    first = cmds.append("stream/S7/create", sql, {}, {}, origin=a.runner.origin)
    second = cmds.append("stream/S7/create", sql, {}, {}, origin=b.runner.origin)
    assert a.runner.wait_for(second, 5) and b.runner.wait_for(second, 5)
    assert a.runner.take(first).error is None
    outcome = b.runner.take(second)
    assert outcome is not None and "already exists" in str(outcome.error)
    assert a.statuses["stream/S7/create"]["status"] == b.statuses["stream/S7/create"]["status"] == "ERROR"
