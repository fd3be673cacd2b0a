"""Writes tests/cases/analysis/create-topic-order.json: a CREATE STREAM/TABLE whose topic is at fault reports the
topic, whatever CreateSourceFactory would refuse.

ksqlDB's TopicCreateInjector runs before the statement is executed (from memory of its injectForCreateSource):
a topic that exists with other partition counts (or one that does not exist, without PARTITIONS) is refused before
CreateSourceFactory looks at the statement - a reserved column name, a TIMESTAMP column not in the schema, a name
another source has, a table without PRIMARY KEY. With a topic that is right, those are reported as before. The
injectors before it report their faults first, on either side, with or without declared columns: a missing
VALUE_FORMAT (DefaultFormatInjector), an unknown KEY_FORMAT / VALUE_FORMAT / FORMAT and a schema id on a format
without schema inference (DefaultSchemaInjector.shouldInferSchema looks each side's format up with FormatFactory.of
before it asks whether that side needs inferring, the key's format and schema before the value's).

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
    for kind in ("STREAM", "TABLE"):
        key = "K INT KEY" if kind == "STREAM" else "K INT PRIMARY KEY"
        for fault, (columns, props, message) in before_topic(key).items():
            for where, topic in (("a topic with other counts", "kafka_topic='e', partitions=3"),
                                 ("a right topic", RIGHT_TOPIC)):
                out.append(case(f"CREATE {kind} with {fault} and {where}: {fault}",
                                f"CREATE {kind} N {columns}WITH ({topic}, {props});", message))
    return out


def before_topic(key: str) -> dict[str, tuple[str, str, str]]:
    """Faults the injectors before TopicCreateInjector find: (columns, WITH properties, message)."""
    unknown = "Unknown format: NOPE"
    return {
        "an unknown KEY_FORMAT and declared columns": (f"({key}, V INT) ", "key_format='NOPE', value_format='JSON'",
                                                       unknown),
        "an unknown VALUE_FORMAT and declared columns": (f"({key}, V INT) ", "value_format='NOPE'", unknown),
        "an unknown VALUE_FORMAT and only a key declared": (f"({key}) ", "value_format='NOPE'", unknown),
        "an unknown FORMAT and declared columns": (f"({key}, V INT) ", "format='NOPE'", unknown),
        "an unknown KEY_FORMAT with a known VALUE_FORMAT that infers": (f"({key}) ", "key_format='NOPE', "
                                                                        "value_format='AVRO'", unknown),
        "a key to infer without a subject and an unknown VALUE_FORMAT": (
            "(V INT) ", "key_format='AVRO', value_format='NOPE'",
            "Schema for message keys on topic 'e' does not exist in the Schema Registry.\nSubject: e-key"),
        "a missing VALUE_FORMAT": (f"({key}, V INT) ", "key_format='KAFKA'",
                                   "Statement is missing the 'VALUE_FORMAT' property from the WITH clause. Either "
                                   "provide one or set a default via the 'ksql.persistence.default.format.value' "
                                   "config."),
        "a KEY_SCHEMA_ID on a JSON key": (f"({key}, V INT) ", "key_format='JSON', value_format='JSON', key_schema_id=1",
                                          "KEY_FORMAT should support schema inference when KEY_SCHEMA_ID is provided. "
                                          "Current format is JSON."),
        "a VALUE_SCHEMA_ID on a DELIMITED value": (f"({key}) ", "value_format='DELIMITED', value_schema_id=1",
                                                   "VALUE_FORMAT should support schema inference when VALUE_SCHEMA_ID "
                                                   "is provided. Current format is DELIMITED."),
    }


def main() -> None:
    doc = {"comments": [__doc__.split("\n\n")[1].replace("\n", " ")], "tests": cases()}
    Path(__file__).with_name("create-topic-order.json").write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
