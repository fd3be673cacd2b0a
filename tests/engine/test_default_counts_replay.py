"""A topic created with the broker's default counts (PARTITIONS=-1 / REPLICAS=-1) survives the restart that
replays its statement, and a count the broker refuses leaves no command behind.

ksqlDB judges a statement's topic counts once, before the command is written (its DistributingExecutor runs
TopicCreateInjector with the real topic client); replaying the command never judges them again. Here a replayed
command (and one another server wrote) skips the existing-topic count check: the -1 it names asked for the count
the topic was created with, which is never -1. A refused count fails in the validation, before the command is
written, so it neither replays nor takes a query id.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine.command_log import DurableStatements
from ksqlpy.errors import KsqlError

CREATES = ("CREATE STREAM A (ID INT KEY, V INT) WITH (kafka_topic='a', value_format='JSON', partitions=-1, "
           "replicas=-1);"
           "CREATE STREAM B WITH (partitions=-1) AS SELECT * FROM A;"
           "CREATE TABLE T WITH (partitions=-1, replicas=-1) AS SELECT ID, COUNT(*) AS N FROM A GROUP BY ID;")


def _open(data_dir: Path) -> tuple[Engine, DurableStatements]:
    engine = Engine(str(data_dir), {"auto.offset.reset": "earliest"})
    return engine, DurableStatements(engine)


def test_default_counts_survive_a_restart(tmp_path: Path) -> None:
    engine, shell = _open(tmp_path)
    shell.execute(CREATES)
    queries = sorted(q.query_id for q in engine.catalog.queries())
    engine.close()
    engine, shell = _open(tmp_path)
    try:
        assert shell.replay_errors == []
        assert sorted(s.name for s in engine.catalog.sources()) == ["A", "B", "T"]
        assert sorted(q.query_id for q in engine.catalog.queries()) == queries
        assert engine.log.partition_count("a") == engine.log.partition_count("B") == 1
        # a live statement is still judged: -1 is not the count an existing topic has
        with pytest.raises(KsqlError, match="KSQL expects -1 partitions \\(topic has 1\\)"):
            shell.execute("CREATE STREAM A2 (ID INT KEY, V INT) WITH (kafka_topic='a', value_format='JSON', "
                          "partitions=-1);")
    finally:
        engine.close()


def test_a_refused_count_writes_no_command(tmp_path: Path) -> None:
    engine, shell = _open(tmp_path)
    try:
        shell.execute("CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', "
                      "partitions=1);")
        written = shell.commands.next_offset()
        for sql in ("CREATE STREAM N WITH (partitions=0) AS SELECT * FROM S;",
                    "CREATE STREAM N (ID INT KEY, V INT) WITH (kafka_topic='n', value_format='JSON', partitions=1, "
                    "replicas=0);",
                    "CREATE STREAM OK AS SELECT * FROM S; CREATE STREAM N WITH (partitions=-3) AS SELECT * FROM S;"):
            with pytest.raises(KsqlError, match="^Failed to guarantee existence of topic "):
                shell.execute(sql)
        assert shell.commands.next_offset() == written  # the script's first statement did not run either
        (result,) = shell.execute("CREATE STREAM C AS SELECT * FROM S;")
        assert result.query_id == f"CSAS_C_{written}"
    finally:
        engine.close()
