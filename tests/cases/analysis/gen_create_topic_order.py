"""Writes tests/cases/analysis/create-topic-order.json: a CREATE STREAM/TABLE whose topic is at fault reports the
topic, whatever CreateSourceFactory would refuse.

ksqlDB's TopicCreateInjector runs before the statement is executed (from memory of its injectForCreateSource):
a topic that exists with other partition counts (or one that does not exist, without PARTITIONS) is refused before
CreateSourceFactory looks at the statement - a reserved column name, a TIMESTAMP column not in the schema, a name
another source has, a table without PRIMARY KEY. With a topic that is right, those are reported as before.

Run ``python tests/cases/analysis/gen_create_topic_order.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
# the harness creates every topic a statement names (at 4 partitions unless declared), as ksqlDB's does: a
# missing topic is tested in tests/engine/test_create_topic_order.py
SETUP = ["CREATE STREAM E (K INT KEY, V INT) WITH (kafka_topic='e', value_format='JSON');"]
COUNTS = ("A Kafka topic with the name 'e' already exists, with different partition/replica configuration than "
          "required. KSQL expects 3 partitions")
TOPICS = {"a topic with other counts": ("kafka_topic='e', partitions=3", COUNTS)}
RIGHT_TOPIC = "kafka_topic='e'"


def faults(kind: str) -> dict[str, tuple[str, str, str]]:
    """(name, columns, extra WITH properties) -> CreateSourceFactory's message with a right topic."""
    key = "K INT KEY" if kind == "STREAM" else "K INT PRIMARY KEY"
    lower = kind.lower()
    return {
        "a reserved column name": ("N", f"{key}, ROWTIME BIGINT", "",
                                   "'ROWTIME' is a reserved column name. You cannot use it as a name for a column."),
        "a TIMESTAMP column not in the schema": ("N", f"{key}, V INT", ", timestamp='NOPE'",
                                                 "The TIMESTAMP column set in the WITH clause does not exist in the "
                                                 "schema: 'NOPE'"),
        "a name another source has": ("E", f"{key}, V INT", "",
                                      f"Cannot add {lower} 'E': A stream with the same name already exists"),
        **({"no PRIMARY KEY": ("N", "V INT", "", "Tables require a PRIMARY KEY. Please define the PRIMARY KEY.")}
           if kind == "TABLE" else {}),
    }


def case(name: str, statement: str, message: str) -> dict[str, Any]:
    return {"name": name, "statements": [*SETUP, statement],
            "expectedException": {"type": EXCEPTION, "message": message}}


def cases() -> list[dict[str, Any]]:
    out = []
    for kind in ("STREAM", "TABLE"):
        for fault, (name, columns, extra, message) in faults(kind).items():
            out.append(case(f"CREATE {kind} with {fault} and a right topic: {fault}",
                            f"CREATE {kind} {name} ({columns}) WITH ({RIGHT_TOPIC}, value_format='JSON'{extra});",
                            message))
            for topic_fault, (props, topic_message) in TOPICS.items():
                out.append(case(f"CREATE {kind} with {fault} and {topic_fault}: the topic",
                                f"CREATE {kind} {name} ({columns}) WITH ({props}, value_format='JSON'{extra});",
                                topic_message))
    return out


def main() -> None:
    doc = {"comments": [__doc__.split("\n\n")[1].replace("\n", " ")], "tests": cases()}
    Path(__file__).with_name("create-topic-order.json").write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
