"""Generates topic-counts.json: the counts a statement requires of a topic that exists."""
import json
import os

X = "io.confluent.ksql.util.KsqlStatementException"


def msg(topic, ep, hp, er, hr):
    return (f"A Kafka topic with the name '{topic}' already exists, with different partition/replica configuration "
            f"than required. KSQL expects {ep} partitions (topic has {hp}), {er} replication factor (topic has {hr}).")

tests = []


def err(name, stmts, m, topics=None, props=None):
    t={"name":name,"statements":stmts,"expectedException":{"type":X,"message":m}}
    if topics:
        t["topics"] = topics
    if props:
        t["properties"] = props
    tests.append(t)


def ok(name, stmts, inputs, outputs, topics=None, props=None):
    t={"name":name,"statements":stmts,"inputs":inputs,"outputs":outputs}
    if topics:
        t["topics"] = topics
    if props:
        t["properties"] = props
    tests.append(t)


def src(name, topic, extra="", kind="STREAM"):
    key = "PRIMARY KEY" if kind == "TABLE" else "KEY"
    return f"CREATE {kind} {name} (ID BIGINT {key}, AMOUNT INT) WITH (kafka_topic='{topic}', value_format='JSON'{extra});"


# plain CREATE over a topic that exists
err("a plain CREATE naming another PARTITIONS than its existing topic has is refused",
    [src("ORDERS", "orders", ", partitions=2"), src("ORDERS_AGAIN", "orders", ", partitions=5")], msg("orders", 5, 2, 1, 1))
err("a plain CREATE naming another REPLICAS than its existing topic has is refused",
    [src("ORDERS", "orders", ", partitions=2, replicas=1"), src("ORDERS_AGAIN", "orders", ", partitions=2, replicas=3")], msg("orders", 2, 2, 3, 1))
err("a plain CREATE without REPLICAS expects the replicas its topic has",
    [src("ORDERS", "orders", ", partitions=2, replicas=3"), src("ORDERS_AGAIN", "orders", ", partitions=6")], msg("orders", 6, 2, 3, 3))
err("a declared topic's replica count is the one a CREATE meets",
    [src("ORDERS", "orders", ", replicas=1")], msg("orders", 3, 3, 1, 2), topics=[{"name":"orders","partitions":3,"replicas":2}])
ok("REPLICAS=-1 leaves the replica count to the broker: any existing count is accepted",
    [src("ORDERS", "orders", ", partitions=2, replicas=3"), src("ORDERS_AGAIN", "orders", ", partitions=2, replicas=-1"),
     "CREATE STREAM COPY AS SELECT * FROM ORDERS_AGAIN;"],
    [{"topic":"orders","key":7,"value":{"AMOUNT":70}}], [{"topic":"COPY","key":7,"value":{"AMOUNT":70}}])
ok("a plain CREATE naming the counts its existing topic has is accepted",
    [src("ORDERS", "orders", ", partitions=2, replicas=2"), src("ORDERS_AGAIN", "orders", ", partitions=2, replicas=2"),
     "CREATE STREAM COPY AS SELECT * FROM ORDERS_AGAIN;"],
    [{"topic":"orders","key":7,"value":{"AMOUNT":70}}], [{"topic":"COPY","key":7,"value":{"AMOUNT":70}}])
# CREATE ... AS SELECT into a topic that exists
for kind in ("STREAM", "TABLE"):
    k = kind.lower()
    err(f"a CREATE {kind} AS SELECT naming PARTITIONS expects them of its existing topic",
        [src("ORDERS", "orders", ", partitions=2", kind), src("TARGET", "target", ", partitions=2", kind),
         f"CREATE {kind} COPY WITH (kafka_topic='target', partitions=3) AS SELECT * FROM ORDERS;"], msg("target", 3, 2, 1, 1))
    ok(f"a CREATE {kind} AS SELECT naming its existing topic's PARTITIONS writes to it whatever its source has",
        [src("ORDERS", "orders", ", partitions=2", kind), src("TARGET", "target", ", partitions=3", kind),
         f"CREATE {kind} COPY WITH (kafka_topic='target', partitions=3) AS SELECT ID, AMOUNT * 2 AS DOUBLED FROM ORDERS;"],
        [{"topic":"orders","key":7,"value":{"AMOUNT":70}}], [{"topic":"target","key":7,"value":{"DOUBLED":140}}])
    ok(f"a CREATE {kind} AS SELECT into an existing topic with its source topic's counts writes to it",
        [src("ORDERS", "orders", ", partitions=2", kind), src("TARGET", "target", ", partitions=2", kind),
         f"CREATE {kind} COPY WITH (kafka_topic='target') AS SELECT ID, AMOUNT * 2 AS DOUBLED FROM ORDERS;"],
        [{"topic":"orders","key":7,"value":{"AMOUNT":70}}], [{"topic":"target","key":7,"value":{"DOUBLED":140}}])
err("the legacy ksql.sink.partitions is the count a CREATE AS SELECT expects when it names none",
    [src("ORDERS", "orders", ", partitions=2"), src("TARGET", "target", ", partitions=2"),
     "CREATE STREAM COPY WITH (kafka_topic='target') AS SELECT * FROM ORDERS;"], msg("target", 6, 2, 1, 1),
    props={"ksql.sink.partitions": "6"})
err("the WITH clause's PARTITIONS goes before the legacy ksql.sink.partitions",
    [src("ORDERS", "orders", ", partitions=2"), src("TARGET", "target", ", partitions=6"),
     "CREATE STREAM COPY WITH (kafka_topic='target', partitions=2) AS SELECT * FROM ORDERS;"], msg("target", 2, 6, 1, 1),
    props={"ksql.sink.partitions": "6"})
err("the legacy ksql.sink.replicas is the replica count a CREATE AS SELECT expects when it names none",
    [src("ORDERS", "orders", ", partitions=2"), src("TARGET", "target", ", partitions=2"),
     "CREATE STREAM COPY WITH (kafka_topic='target') AS SELECT * FROM ORDERS;"], msg("target", 2, 2, 3, 1),
    props={"ksql.sink.replicas": "3"})
ok("the legacy ksql.sink.partitions matching the existing sink topic is accepted",
    [src("ORDERS", "orders", ", partitions=2"), src("TARGET", "target", ", partitions=5"),
     "CREATE STREAM COPY WITH (kafka_topic='target') AS SELECT * FROM ORDERS;"],
    [{"topic":"orders","key":7,"value":{"AMOUNT":70}}], [{"topic":"target","key":7,"value":{"AMOUNT":70}}],
    props={"ksql.sink.partitions": "5"})
ok("the legacy ksql.sink.partitions is the count of a sink topic a CREATE AS SELECT creates",
    [src("ORDERS", "orders", ", partitions=2"),
     "CREATE STREAM COPY AS SELECT * FROM ORDERS;", src("COPY_AGAIN", "COPY", ", partitions=5"),
     "CREATE STREAM BACK AS SELECT * FROM COPY_AGAIN;"],
    [{"topic":"orders","key":7,"value":{"AMOUNT":70}}],
    [{"topic":"COPY","key":7,"value":{"AMOUNT":70}}, {"topic":"BACK","key":7,"value":{"AMOUNT":70}}],
    props={"ksql.sink.partitions": "5"})
err("a sink topic a CREATE AS SELECT creates has its source topic's counts",
    [src("ORDERS", "orders", ", partitions=2, replicas=3"), "CREATE STREAM COPY AS SELECT * FROM ORDERS;",
     src("COPY_AGAIN", "COPY", ", partitions=2, replicas=1")], msg("COPY", 2, 2, 1, 3))
err("a sink topic a CREATE TABLE AS SELECT creates has its source topic's counts",
    [src("ORDERS", "orders", ", partitions=3, replicas=2", "TABLE"), "CREATE TABLE COPY AS SELECT * FROM ORDERS;",
     src("COPY_AGAIN", "COPY", ", partitions=1", "TABLE")], msg("COPY", 1, 3, 2, 2))
ok("REPLICAS=-1 in a CREATE AS SELECT accepts the existing sink topic's replica count",
    [src("ORDERS", "orders", ", partitions=2"), src("TARGET", "target", ", partitions=2, replicas=3"),
     "CREATE STREAM COPY WITH (kafka_topic='target', replicas=-1) AS SELECT * FROM ORDERS;"],
    [{"topic":"orders","key":7,"value":{"AMOUNT":70}}], [{"topic":"target","key":7,"value":{"AMOUNT":70}}])


json.dump({"comments":["The partition and replica counts a statement requires of a topic that already exists (from memory of ksqlDB's TopicCreateInjector, TopicProperties.Builder and TopicValidationUtil): PARTITIONS / REPLICAS of the WITH clause, else for CREATE ... AS SELECT the legacy ksql.sink.partitions / ksql.sink.replicas; REPLICAS=-1 accepts any replica count. A new sink topic takes its source topic's counts."],"tests":tests}, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "topic-counts.json"), "w"), indent=1)
