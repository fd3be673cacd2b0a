"""Writes tests/cases/ddl/new-topic-counts.json and tests/cases/rest/new-topic-counts.json: the PARTITIONS and
REPLICAS a statement creates a new topic with - CREATE STREAM/TABLE (also SOURCE) over a topic that does not exist,
CREATE STREAM/TABLE AS SELECT into a new sink topic.

From memory of ksqlDB's TopicCreateInjector and KafkaTopicClientImpl.createTopic: no count is judged by ksqlDB
itself (its sandboxed topic client, which validates the statement, accepts any); the statement's topic is created
when it runs, and the broker's refusal comes back as ``Failed to guarantee existence of topic <name>`` with a
``Caused by:`` line holding the broker's message (a KsqlException: the REST API answers a KsqlErrorMessage, 40000).
The broker's rule (the KRaft controller's ReplicationControlManager): a count of -1 asks for the broker default
(``num.partitions``, ``default.replication.factor``), any other count below 1 is refused, the replication factor
judged first. REPLICAS left out is -1. A refused statement leaves no topic, no source and no query.

Run ``python tests/cases/ddl/gen_new_topic_counts.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
EXCEPTION = "io.confluent.ksql.util.KsqlException"
GENERIC = "io.confluent.ksql.rest.entity.KsqlErrorMessage"

PARTITIONS_REFUSED = "Caused by: Number of partitions was set to an invalid non-positive value."
REPLICAS_REFUSED = "Caused by: Replication factor must be larger than 0, or -1 to use the default\n\tvalue."
SOURCE = "CREATE STREAM SRC (ID INT KEY, V INT) WITH (kafka_topic='src', value_format='JSON', partitions=2);"


def failed(topic: str) -> str:
    return f"Failed to guarantee existence of topic {topic}\n"


# statement kind -> (statements before, the statement with {counts} in its WITH clause, its topic)
KINDS: dict[str, tuple[list[str], str, str]] = {
    "CREATE STREAM": ([], "CREATE STREAM N (ID INT KEY, V INT) WITH (kafka_topic='n', value_format='JSON', {counts});",
                      "n"),
    "CREATE TABLE": ([], "CREATE TABLE N (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='n', value_format='JSON', "
                         "{counts});", "n"),
    "CREATE SOURCE STREAM": ([], "CREATE SOURCE STREAM N (ID INT KEY, V INT) WITH (kafka_topic='n', "
                                 "value_format='JSON', {counts});", "n"),
    "CREATE SOURCE TABLE": ([], "CREATE SOURCE TABLE N (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='n', "
                                "value_format='JSON', {counts});", "n"),
    "CREATE STREAM AS SELECT": ([SOURCE], "CREATE STREAM N WITH ({counts}) AS SELECT * FROM SRC;", "N"),
    "CREATE TABLE AS SELECT": ([SOURCE], "CREATE TABLE N WITH (kafka_topic='n_counts', {counts}) AS "
                                         "SELECT ID, COUNT(*) AS C FROM SRC GROUP BY ID;", "n_counts"),
}

# WITH counts -> the refusal's cause line
REFUSED: dict[str, str] = {
    "partitions=0": PARTITIONS_REFUSED,
    "partitions=-2": PARTITIONS_REFUSED,
    "partitions=1, replicas=0": REPLICAS_REFUSED,
    "partitions=1, replicas=-3": REPLICAS_REFUSED,
    "partitions=0, replicas=0": REPLICAS_REFUSED,  # the replication factor is judged first
}
SINK_REFUSED: dict[str, str] = {  # a CREATE ... AS SELECT may leave PARTITIONS to its source
    "replicas=0": REPLICAS_REFUSED,
    "partitions=-5": PARTITIONS_REFUSED,
}


def with_counts(statement: str, counts: str) -> str:
    return statement.replace("{counts}", counts)


def refusals() -> list[tuple[str, list[str], str]]:
    """(name, statements, message) of every refused count for every statement kind."""
    out = []
    for kind, (before, statement, topic) in KINDS.items():
        counts = dict(REFUSED)
        if "AS SELECT" in kind:
            counts.update(SINK_REFUSED)
        for with_, cause in counts.items():
            out.append((f"{kind} with {with_} is refused by the broker",
                        [*before, with_counts(statement, with_)], failed(topic) + cause))
    return out


def local_cases() -> list[dict[str, Any]]:
    tests: list[dict[str, Any]] = []
    for name, statements, message in refusals():
        tests.append({"name": name, "statements": statements,
                      "expectedException": {"type": EXCEPTION, "message": message}})
    # a refusal comes after the statement's own checks (ksqlDB validates on its sandbox first)
    tests.append({
        "name": "a CREATE's own faults come before the broker's refusal of its counts",
        "statements": ["CREATE STREAM N (ID INT KEY, ROWTIME BIGINT) WITH (kafka_topic='n', value_format='JSON', "
                       "partitions=0);"],
        "expectedException": {"type": EXCEPTION, "message": "'ROWTIME' is a reserved column name."}})
    tests.append({
        "name": "a CREATE AS SELECT's analysis faults come before the broker's refusal of its counts",
        "statements": [SOURCE, "CREATE STREAM N WITH (partitions=0) AS SELECT ID, NOPE FROM SRC;"],
        "expectedException": {"type": EXCEPTION, "message": "SELECT column 'NOPE' cannot be resolved."}})
    tests.append({
        "name": "PARTITIONS=0 against a topic that exists is the existing topic's mismatch, not the broker's",
        "statements": [SOURCE, "CREATE STREAM N (ID INT KEY, V INT) WITH (kafka_topic='src', value_format='JSON', "
                               "partitions=0);"],
        "expectedException": {"type": EXCEPTION, "message": "A Kafka topic with the name 'src' already exists, with "
                              "different partition/replica configuration than required. KSQL expects 0 partitions "
                              "(topic has 2)"}})
    # -1: the broker's default, one partition and one replica on the embedded log
    for kind, create in (("STREAM", "CREATE STREAM A (ID INT KEY, V INT) WITH (kafka_topic='a', value_format='JSON', "
                                    "{counts});"),
                         ("TABLE", "CREATE TABLE A (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='a', "
                                   "value_format='JSON', {counts});")):
        for counts in ("partitions=-1", "partitions=-1, replicas=-1", "partitions=3, replicas=-1"):
            parts = 3 if "partitions=3" in counts else 1
            sink = "CREATE STREAM O AS SELECT * FROM A;" if kind == "STREAM" else "CREATE TABLE O AS SELECT * FROM A;"
            tests.append({
                "name": f"CREATE {kind} with {counts} creates its topic with the broker's default for -1",
                "statements": [with_counts(create, counts), sink],
                "inputs": [{"topic": "a", "key": 1, "value": {"V": 7}, "timestamp": 0}],
                "outputs": [{"topic": "O", "key": 1, "value": {"V": 7}, "timestamp": 0}],
                "post": {"topics": {"topics": [{"name": "a", "partitions": parts},
                                               {"name": "O", "partitions": parts}]}}})
    tests.append({
        "name": "CREATE STREAM AS SELECT with partitions=-1 creates its sink with the broker's default, not its "
                "source's count",
        "statements": [SOURCE, "CREATE STREAM O WITH (partitions=-1) AS SELECT * FROM SRC;"],
        "inputs": [{"topic": "src", "key": 1, "value": {"V": 7}, "timestamp": 0}],
        "outputs": [{"topic": "O", "key": 1, "value": {"V": 7}, "timestamp": 0}],
        "post": {"topics": {"topics": [{"name": "O", "partitions": 1}]}}})
    tests.append({
        "name": "CREATE STREAM AS SELECT with replicas=-1 keeps its source's partition count",
        "statements": [SOURCE, "CREATE STREAM O WITH (replicas=-1) AS SELECT * FROM SRC;"],
        "inputs": [{"topic": "src", "key": 1, "value": {"V": 7}, "timestamp": 0}],
        "outputs": [{"topic": "O", "key": 1, "value": {"V": 7}, "timestamp": 0}],
        "post": {"topics": {"topics": [{"name": "O", "partitions": 2}]}}})
    return tests


def rest_cases() -> list[dict[str, Any]]:
    tests: list[dict[str, Any]] = []
    for name, statements, message in refusals():
        tests.append({"name": name, "statements": statements,
                      "expectedError": {"type": GENERIC, "message": message, "status": 400}})
    return tests


def write(path: Path, comment: list[str], tests: list[dict[str, Any]]) -> None:
    path.write_text(json.dumps({"comments": comment, "tests": tests}, indent=1) + "\n")


COMMENT = [line.strip() for line in (__doc__ or "").split("\n\n")[1].split("\n")]
write(HERE / "new-topic-counts.json", COMMENT, local_cases())
write(HERE.parent / "rest" / "new-topic-counts.json", COMMENT, rest_cases())
