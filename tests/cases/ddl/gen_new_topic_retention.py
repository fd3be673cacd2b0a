"""Writes tests/cases/ddl/new-topic-retention.json and tests/cases/rest/new-topic-retention.json: the RETENTION_MS a
statement creates a new topic with, and which values the broker refuses.

ksqlDB reads RETENTION_MS as any LONG (CommonCreateConfigs: no range; text that is no LONG is the WITH clause's
'Not a number of type LONG') and hands it to the new topic as ``retention.ms`` (TopicCreateInjector; a windowed
CREATE TABLE AS SELECT takes the larger of it and the WINDOW's RETENTION). The broker judges it (from memory of
Kafka's LogConfig, ``retention.ms`` defined with ``Range.atLeast(-1)``, and KRaft's ReplicationControlManager
.createTopics, which validates a topic's configs before its counts): a value below -1 is refused with the
ConfigException's text, ``Invalid value <v> for configuration retention.ms: Value must be at least -1``, which
ksqlDB's topic client wraps as ``Failed to guarantee existence of topic <name>`` + ``Caused by:``. -1 keeps
records forever. A topic that exists is not created again, so its retention is not judged (createTopic returns
after comparing the counts). A refused statement leaves no topic, no source and no query.

Run ``python tests/cases/ddl/gen_new_topic_retention.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
EXCEPTION = "io.confluent.ksql.util.KsqlException"
GENERIC = "io.confluent.ksql.rest.entity.KsqlErrorMessage"
SOURCE = "CREATE STREAM SRC (ID INT KEY, V INT) WITH (kafka_topic='src', value_format='JSON', partitions=2);"
PARTITIONS_REFUSED = "Caused by: Number of partitions was set to an invalid non-positive value."


def retention_refused(value: int) -> str:
    # the cause line as the REST API wraps it (ErrorMessageUtil, as for the count refusals): where the break
    # falls depends on the value's length
    if len(str(value)) > 5:
        return f"Caused by: Invalid value {value} for configuration retention.ms:\n\tValue must be at least -1"
    return f"Caused by: Invalid value {value} for configuration retention.ms: Value must be at\n\tleast -1"


def failed(topic: str) -> str:
    return f"Failed to guarantee existence of topic {topic}\n"


# statement kind -> (statements before, the statement with {with} in its WITH clause, its topic)
KINDS: dict[str, tuple[list[str], str, str]] = {
    "CREATE STREAM": ([], "CREATE STREAM N (ID INT KEY, V INT) WITH (kafka_topic='n', value_format='JSON', "
                          "partitions=1, {with});", "n"),
    "CREATE SOURCE STREAM": ([], "CREATE SOURCE STREAM N (ID INT KEY, V INT) WITH (kafka_topic='n', "
                                 "value_format='JSON', partitions=1, {with});", "n"),
    "CREATE STREAM AS SELECT": ([SOURCE], "CREATE STREAM N WITH ({with}) AS SELECT * FROM SRC;", "N"),
    "CREATE STREAM AS SELECT into a named topic": (
        [SOURCE], "CREATE STREAM N WITH (kafka_topic='n_ret', {with}) AS SELECT ID, V + 1 AS W FROM SRC;", "n_ret"),
}
REFUSED = ("retention_ms=-2", "RETENTION_MS=-1000", "retention_ms='-5'", "`RETENTION_MS`=-9223372036854775808")


def value_of(with_: str) -> int:
    return int(with_.split("=", 1)[1].strip("'"))


def statement(template: str, with_: str) -> str:
    return template.replace("{with}", with_)


def refusals() -> list[tuple[str, list[str], str]]:
    out = []
    for kind, (before, template, topic) in KINDS.items():
        for with_ in REFUSED:
            out.append((f"{kind} with {with_} is refused by the broker", [*before, statement(template, with_)],
                        failed(topic) + retention_refused(value_of(with_))))
    # the config is judged before the counts; a statement's own faults before either
    out.append(("the retention is judged before the partition count",
                [statement(KINDS["CREATE STREAM"][1].replace("partitions=1", "partitions=0"), "retention_ms=-3")],
                failed("n") + retention_refused(-3)))
    out.append(("a windowed CREATE TABLE AS SELECT's RETENTION_MS below -1 is refused when the window has no RETENTION",
                [SOURCE, "CREATE TABLE N WITH (retention_ms=-7) AS SELECT ID, COUNT(*) AS C FROM SRC "
                         "WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY ID;"],
                failed("N") + retention_refused(-7)))
    return out


def local_cases() -> list[dict[str, Any]]:
    tests: list[dict[str, Any]] = []
    for name, statements, message in refusals():
        tests.append({"name": name, "statements": statements,
                      "expectedException": {"type": EXCEPTION, "message": message}})
    for with_ in ("retention_ms=-1", "retention_ms=0", "retention_ms=86400000"):
        tests.append({
            "name": f"CREATE STREAM AS SELECT with {with_} creates its sink",
            "statements": [SOURCE, f"CREATE STREAM O WITH ({with_}) AS SELECT * FROM SRC;"],
            "inputs": [{"topic": "src", "key": 1, "value": {"V": 7}, "timestamp": 0}],
            "outputs": [{"topic": "O", "key": 1, "value": {"V": 7}, "timestamp": 0}],
            "post": {"topics": {"topics": [{"name": "O", "partitions": 2}]}}})
    tests.append({
        "name": "a windowed CREATE TABLE AS SELECT's RETENTION_MS below -1 is not refused under a larger WINDOW "
                "RETENTION",
        "statements": [SOURCE, "CREATE TABLE O WITH (retention_ms=-7) AS SELECT ID, COUNT(*) AS C FROM SRC "
                               "WINDOW TUMBLING (SIZE 1 SECOND, RETENTION 1 HOUR, GRACE PERIOD 0 SECONDS) "
                               "GROUP BY ID;"],
        "inputs": [{"topic": "src", "key": 1, "value": {"V": 7}, "timestamp": 0}],
        "outputs": [{"topic": "O", "key": 1, "value": {"C": 1}, "timestamp": 0, "window": {"start": 0, "end": 1000,
                                                                                          "type": "time"}}]})
    tests.append({
        "name": "a RETENTION_MS below -1 over a topic that exists is not judged: the topic is not created",
        "statements": ["CREATE STREAM N (ID INT KEY, V INT) WITH (kafka_topic='old', value_format='JSON', "
                       "retention_ms=-2);",
                       "CREATE STREAM O AS SELECT * FROM N;"],
        "topics": [{"name": "old", "partitions": 1}],
        "inputs": [{"topic": "old", "key": 1, "value": {"V": 7}, "timestamp": 0}],
        "outputs": [{"topic": "O", "key": 1, "value": {"V": 7}, "timestamp": 0}]})
    tests.append({
        "name": "a CREATE TABLE's RETENTION_MS is refused by ksqlDB before the broker sees it",
        "statements": ["CREATE TABLE N (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='n', value_format='JSON', "
                       "partitions=1, retention_ms=-2);"],
        "expectedException": {"type": EXCEPTION, "message": "Invalid config variable in the WITH clause: "
                              "RETENTION_MS. Non-windowed tables do not support retention."}})
    return tests


def rest_cases() -> list[dict[str, Any]]:
    return [{"name": name, "statements": statements,
             "expectedError": {"type": GENERIC, "message": message, "status": 400}}
            for name, statements, message in refusals()]


def write(path: Path, comment: list[str], tests: list[dict[str, Any]]) -> None:
    path.write_text(json.dumps({"comments": comment, "tests": tests}, indent=1) + "\n")


COMMENT = [line.strip() for line in (__doc__ or "").split("\n\n")[1].split("\n")]
write(HERE / "new-topic-retention.json", COMMENT, local_cases())
write(HERE.parent / "rest" / "new-topic-retention.json", COMMENT, rest_cases())
