"""A bad record typed into the interactive shell (a pseudo-terminal) is visible in KSQL_PROCESSING_LOG, in
ksqlDB's record layout - in the embedded shell as against a server (``target``)."""

from __future__ import annotations

import re
import uuid

import pytest

pexpect = pytest.importorskip("pexpect")


def test_a_bad_record_shows_in_the_processing_log(spawn_shell) -> None:  # type: ignore[no-untyped-def]
    tag = uuid.uuid4().hex[:6].upper()
    topic = f"t_{tag.lower()}"
    sh = spawn_shell()
    sh.run("SHOW STREAMS;", "KSQL_PROCESSING_LOG")
    sh.run(f"CREATE STREAM raw_{tag} (id INT KEY, n STRING) WITH (kafka_topic='{topic}', value_format='JSON', "
           "partitions=1);", "Stream created")
    sh.run(f"CREATE STREAM typed_{tag} (id INT KEY, n INT) WITH (kafka_topic='{topic}', value_format='JSON');",
           "Stream created")
    sh.run("SET 'auto.offset.reset'='earliest';")
    created = sh.run(f"CREATE STREAM out_{tag} AS SELECT * FROM typed_{tag};", r"Created query with ID \w+")
    [qid] = re.findall(r"Created query with ID (\w+)", created)
    sh.run(f"INSERT INTO raw_{tag} (id, n) VALUES (1, 'not a number');")
    shown = sh.run("SELECT logger, message->type AS kind, message->deserializationError->`TOPIC` AS src, "
                   "message->deserializationError->errorMessage AS error FROM KSQL_PROCESSING_LOG "
                   f"WHERE message->deserializationError->`TOPIC` = '{topic}' EMIT CHANGES LIMIT 1;",
                   "Query terminated")
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown).replace("\r", "")
    [row] = [ln for ln in plain.split("\n") if f"processing.{qid}" in ln]
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    assert cells[0].startswith(f"processing.{qid}") and cells[1] == "0" and cells[2] == topic
    assert cells[3]  # the deserializer's reason
