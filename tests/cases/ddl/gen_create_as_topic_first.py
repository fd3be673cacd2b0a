"""Writes tests/cases/ddl/create-as-topic-first.json: a CREATE ... AS SELECT whose sink topic exists with other
partition counts reports the topic before any fault the query's analysis or planning finds.

From memory of ksqlDB's TopicCreateInjector.injectForCreateAsSelect: it runs on the prepared statement once the
sanitizer found its sources, before the engine plans the query, and refuses a topic that exists with counts other
than the WITH clause's ('A Kafka topic with the name ... already exists, with different partition/replica
configuration than required. ...'). Faults found before it stay first: the LIMIT clause and, in a join, a qualifier
no source has (prepare); a FROM source that does not exist and, in a join, an unqualified column more than one
source has (sanitizer: AstSanitizer's DataSourceExtractor and its column rewriter). With a topic that is right,
each fault is reported as before.

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
JOIN = "FROM E JOIN T ON E.K = T.K"
AMBIGUOUS_V = "Column 'V' is ambiguous. Could be E.V or T.V."
# join faults the sanitizer or the preparation finds (the two tables join the stream on its key)
JOIN_SETUP = ["CREATE TABLE T (K INT PRIMARY KEY, V INT) WITH (kafka_topic='t', value_format='JSON');",
              "CREATE TABLE U (K INT PRIMARY KEY, V INT, W INT) WITH (kafka_topic='u', value_format='JSON');"]
BEFORE_TOPIC_JOINS: dict[str, tuple[str, str, str, str]] = {
    "a SELECT column two join sources have": ("STREAM", "", f"SELECT E.K, V {JOIN}", AMBIGUOUS_V),
    "a SELECT column two join sources have, in an expression": ("STREAM", "", f"SELECT E.K, ABS(V) + 1 AS A {JOIN}",
                                                               AMBIGUOUS_V),
    "a WHERE column two join sources have": ("STREAM", "", f"SELECT E.K, E.V AS EV {JOIN} WHERE V > 1",
                                             AMBIGUOUS_V),
    "a PARTITION BY column two join sources have": ("STREAM", "", f"SELECT E.V AS EV, T.V AS TV {JOIN} PARTITION BY V",
                                                    AMBIGUOUS_V),
    "a join criterion two join sources have": ("STREAM", "", "SELECT E.K, E.V AS EV FROM E JOIN T ON K = T.K",
                                               "Column 'K' is ambiguous. Could be E.K or T.K."),
    "a GROUP BY column two join sources have": ("TABLE", "", f"SELECT E.K, COUNT(*) AS C {JOIN} GROUP BY E.K, V",
                                                AMBIGUOUS_V),
    "a column two aliased join sources have": ("STREAM", "", "SELECT L.K, V FROM E AS L JOIN T AS R ON L.K = R.K",
                                               "Column 'V' is ambiguous. Could be L.V or R.V."),
    "a column three join sources have": ("STREAM", "", f"SELECT E.K, V {JOIN} JOIN U ON E.K = U.K",
                                         "Column 'V' is ambiguous. Could be E.V, T.V or U.V."),
    "a qualifier no join source has": ("STREAM", "", f"SELECT E.K, Q.V {JOIN}",
                                       "'Q' is not a valid stream/table name or alias."),
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
    for fault, (kind, extra, query, message) in BEFORE_TOPIC_JOINS.items():
        for where, topic in (("a topic at other counts", WRONG_TOPIC), ("a right topic", RIGHT_TOPIC)):
            c = case(f"CREATE {kind} AS SELECT with {fault} into {where}: the fault", statement(kind, topic, extra,
                                                                                              query), message)
            c["statements"][len(SETUP):len(SETUP)] = JOIN_SETUP
            out.append(c)
    # a column one join source has: the topic as before
    c = case("CREATE STREAM AS SELECT with an unknown column of a join into a topic at other counts: the topic",
             statement("STREAM", WRONG_TOPIC, "", f"SELECT E.K, W {JOIN}"), COUNTS)
    c["statements"][len(SETUP):len(SETUP)] = JOIN_SETUP
    out.append(c)
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
