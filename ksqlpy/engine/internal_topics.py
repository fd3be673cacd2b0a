"""Topics ksqlDB will not write into for a user: its own (``_confluent-ksql-...``: the command topic, queries'
changelog and repartition topics) and those ``ksql.readonly.topics`` names - by default Confluent's and Kafka's
own, the schema registry's and Kafka Connect's. Reading them is allowed (a stream may be declared over one);
INSERT INTO ... VALUES, INSERT INTO ... SELECT and /inserts-stream into a source on one are refused, so a
statement can never write a record into the command topic that every restart replays.

From memory of ksqlDB's ReservedInternalTopics (readOnlyTopicsPattern: ``_confluent-ksql-.*`` and the
configured list, whole-name regular expressions), InsertValuesExecutor ('Cannot insert values into read-only
topic: ') and DistributingExecutor.throwIfInsertOnReadOnlyTopic ('Cannot insert into read-only topic: ').
"""

from __future__ import annotations

import re
from typing import Any

KSQL_INTERNAL_TOPIC_PREFIX = "_confluent-ksql-"
READONLY_TOPICS = "ksql.readonly.topics"
DEFAULT_READONLY_TOPICS = ("_confluent.*,__confluent.*,_schemas,__consumer_offsets,__transaction_state,"
                           "connect-configs,connect-offsets,connect-status,connect-statuses")


def read_only_patterns(engine: Any) -> list[re.Pattern[str]]:
    text = str(engine.prop(READONLY_TOPICS, DEFAULT_READONLY_TOPICS) or "")
    return [re.compile(re.escape(KSQL_INTERNAL_TOPIC_PREFIX) + ".*"),
            *(re.compile(p.strip()) for p in text.split(",") if p.strip())]


def is_read_only(engine: Any, topic: str) -> bool:
    return any(p.fullmatch(topic) for p in read_only_patterns(engine))
