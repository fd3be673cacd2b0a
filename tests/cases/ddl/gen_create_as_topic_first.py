"""Writes tests/cases/ddl/create-as-topic-first.json: a CREATE ... AS SELECT whose sink topic exists with other
partition counts reports the topic before any fault the query's analysis or planning finds.

From memory of ksqlDB's TopicCreateInjector.injectForCreateAsSelect: it runs on the prepared statement once the
sanitizer found its sources, before the engine plans the query, and refuses a topic that exists with counts other
than the WITH clause's ('A Kafka topic with the name ... already exists, with different partition/replica
configuration than required. ...'). Faults found before it stay first: the LIMIT clause (prepare) and a FROM source
that does not exist (sanitizer). With a topic that is right, each fault is reported as before.

Run ``python tests/cases/ddl/gen_create_as_topic_first.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
SETUP = ["CREATE STREAM E (K INT KEY, V INT, S STRING) WITH (kafka_topic='e', value_format='JSON');"]
COUNTS = ("A Kafka topic with the name 'e' already exists, with different partition/replica configuration than "
          "required. KSQL expects 3 partitions (topic has 4)")
WRONG_TOPIC = "kafka_topic='e', partitions=3"
RIGHT_TOPIC = "kafka_topic='e'"

# fault -> (kind, WITH extra, query, message with a right topic)
AFTER_TOPIC: dict[str, tuple[str, str, str, str]] = {
    "a SELECT column that does not exist": ("STREAM", "", "SELECT K, NOPE FROM E",
                                            "SELECT column 'NOPE' cannot be resolved."),
    "a WHERE comparing INTEGER with STRING": ("STREAM", "", "SELECT K, V FROM E WHERE V = 'x'",
                                              "Error in WHERE expression: Cannot compare V (INTEGER) to 'x' (STRING) "
                                              "with EQUAL."),
    "an unknown function": ("STREAM", "", "SELECT K, NOPE(V) AS N FROM E",
                            "Can't find any functions with the name 'NOPE'"),
    "a stream statement over an aggregation": ("STREAM", "", "SELECT K, COUNT(*) AS C FROM E GROUP BY K",
                                               "Invalid result type. Your SELECT query produces a TABLE. Please use "
                                               "CREATE TABLE AS SELECT statement instead."),
    "a table statement over a projection": ("TABLE", "", "SELECT K, V FROM E",
                                            "Invalid result type. Your SELECT query produces a STREAM. Please use "
                                            "CREATE STREAM AS SELECT statement instead."),
    "a non-aggregate HAVING": ("TABLE", "", "SELECT K, COUNT(*) AS C FROM E GROUP BY K HAVING V = 1",
                               "Non-aggregate HAVING expression not part of GROUP BY: V"),
    "an unknown value format": ("STREAM", ", value_format='FOO'", "SELECT K, V FROM E", "Unknown format: FOO"),
    "a TIMESTAMP column not in the result": ("STREAM", ", timestamp='NOPE'", "SELECT K, V FROM E",
                                             "The TIMESTAMP column set in the WITH clause does not exist in the "
                                             "schema: 'NOPE'"),
}
# faults found before the injector: reported whatever the topic
BEFORE_TOPIC: dict[str, tuple[str, str, str, str]] = {
    "a FROM source that does not exist": ("STREAM", "", "SELECT K, V FROM NOSUCH", "NOSUCH does not exist."),
    "a LIMIT clause": ("STREAM", "", "SELECT K, V FROM E LIMIT 2",
                       "CREATE STREAM AS SELECT statements don't support LIMIT clause."),
}


def case(name: str, statement: str, message: str) -> dict[str, Any]:
    return {"name": name, "statements": [*SETUP, statement],
            "expectedException": {"type": EXCEPTION, "message": message}}


def statement(kind: str, topic: str, extra: str, query: str) -> str:
    return f"CREATE {kind} O WITH ({topic}{extra}) AS {query};"


def cases() -> list[dict[str, Any]]:
    out = []
    for fault, (kind, extra, query, message) in AFTER_TOPIC.items():
        out.append(case(f"CREATE {kind} AS SELECT with {fault} into a topic at other counts: the topic",
                        statement(kind, WRONG_TOPIC, extra, query), COUNTS))
        out.append(case(f"CREATE {kind} AS SELECT with {fault} into a right topic: the fault",
                        statement(kind, RIGHT_TOPIC, extra, query), message))
    for fault, (kind, extra, query, message) in BEFORE_TOPIC.items():
        out.append(case(f"CREATE {kind} AS SELECT with {fault} into a topic at other counts: the fault first",
                        statement(kind, WRONG_TOPIC, extra, query), message))
    # the counts a sink takes from its FROM source when the WITH clause names none: the first source's topic
    out.append({"name": "CREATE STREAM AS SELECT into an existing topic without counts: the first FROM source's",
                "statements": [*SETUP,
                               "CREATE STREAM F (K INT KEY, W INT) WITH (kafka_topic='f', value_format='JSON', "
                               "partitions=2);",
                               "CREATE STREAM O WITH (kafka_topic='e') AS SELECT E.K, NOPE FROM F JOIN E WITHIN 1 "
                               "SECOND ON F.K = E.K;"],
                "expectedException": {"type": EXCEPTION, "message": (
                    "A Kafka topic with the name 'e' already exists, with different partition/replica configuration "
                    "than required. KSQL expects 2 partitions (topic has 4)")}})
    return out


def main() -> None:
    doc = {"comments": [__doc__.split("\n\n")[1].replace("\n", " ")], "tests": cases()}
    Path(__file__).with_name("create-as-topic-first.json").write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
