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
    [src("ORDERS", "orders", ", replicas=3")], msg("orders", 3, 3, 3, 2), topics=[{"name":"orders","partitions":3,"replicas":2}])
# TopicValidationUtil (from memory): the replica count is a floor - a topic with more replicas than asked is fine
ok("a plain CREATE naming fewer REPLICAS than its existing topic has is accepted",
    [src("ORDERS", "orders", ", replicas=1"), "CREATE STREAM COPY AS SELECT * FROM ORDERS;"],
    [{"topic":"orders","key":7,"value":{"AMOUNT":70}}], [{"topic":"COPY","key":7,"value":{"AMOUNT":70}}],
    topics=[{"name":"orders","partitions":3,"replicas":2}])
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
     src("COPY_AGAIN", "COPY", ", partitions=2, replicas=4")], msg("COPY", 2, 2, 4, 3))
ok("a CREATE naming fewer REPLICAS than the sink topic a CREATE AS SELECT created with its source's count is accepted",
    [src("ORDERS", "orders", ", partitions=2, replicas=3"), "CREATE STREAM COPY AS SELECT * FROM ORDERS;",
     src("COPY_AGAIN", "COPY", ", partitions=2, replicas=1"), "CREATE STREAM BACK AS SELECT * FROM COPY_AGAIN;"],
    [{"topic":"orders","key":7,"value":{"AMOUNT":70}}],
    [{"topic":"COPY","key":7,"value":{"AMOUNT":70}}, {"topic":"BACK","key":7,"value":{"AMOUNT":70}}])
err("a sink topic a CREATE TABLE AS SELECT creates has its source topic's counts",
    [src("ORDERS", "orders", ", partitions=3, replicas=2", "TABLE"), "CREATE TABLE COPY AS SELECT * FROM ORDERS;",
     src("COPY_AGAIN", "COPY", ", partitions=1", "TABLE")], msg("COPY", 1, 3, 2, 2))
ok("REPLICAS in a CREATE AS SELECT below the existing sink topic's replica count is accepted",
    [src("ORDERS", "orders", ", partitions=2"), src("TARGET", "target", ", partitions=2, replicas=3"),
     "CREATE STREAM COPY WITH (kafka_topic='target', replicas=2) AS SELECT * FROM ORDERS;"],
    [{"topic":"orders","key":7,"value":{"AMOUNT":70}}], [{"topic":"target","key":7,"value":{"AMOUNT":70}}])
ok("ksql.sink.replicas below the existing sink topic's replica count is accepted",
    [src("ORDERS", "orders", ", partitions=2"), src("TARGET", "target", ", partitions=2, replicas=3"),
     "CREATE TABLE COPY WITH (kafka_topic='target') AS SELECT ID, COUNT(*) AS N FROM ORDERS GROUP BY ID;"],
    [{"topic":"orders","key":7,"value":{"AMOUNT":70}}], [{"topic":"target","key":7,"value":{"N":1}}],
    props={"ksql.sink.replicas": "1"})
ok("REPLICAS=-1 in a CREATE AS SELECT accepts the existing sink topic's replica count",
    [src("ORDERS", "orders", ", partitions=2"), src("TARGET", "target", ", partitions=2, replicas=3"),
     "CREATE STREAM COPY WITH (kafka_topic='target', replicas=-1) AS SELECT * FROM ORDERS;"],
    [{"topic":"orders","key":7,"value":{"AMOUNT":70}}], [{"topic":"target","key":7,"value":{"AMOUNT":70}}])

# a CREATE ... AS SELECT naming no counts (and no ksql.sink.*) expects an existing sink topic at the counts of
# the topic it reads first (TopicProperties.Builder.withSource), as it would create it
for kind in ("STREAM", "TABLE"):
    err(f"a CREATE {kind} AS SELECT naming no counts expects its source topic's partitions of an existing sink topic",
        [src("ORDERS", "orders", ", partitions=2", kind), src("TARGET", "target", ", partitions=3", kind),
         f"CREATE {kind} COPY WITH (kafka_topic='target') AS SELECT * FROM ORDERS;"], msg("target", 2, 3, 1, 1))
    err(f"a CREATE {kind} AS SELECT naming no counts expects its source topic's replicas of an existing sink topic",
        [src("ORDERS", "orders", ", partitions=2, replicas=2", kind), src("TARGET", "target", ", partitions=2", kind),
         f"CREATE {kind} COPY WITH (kafka_topic='target') AS SELECT * FROM ORDERS;"], msg("target", 2, 2, 2, 1))
ok("a CREATE AS SELECT writes to an existing sink topic with its source topic's partitions and replicas",
    [src("ORDERS", "orders", ", partitions=3, replicas=2"), src("TARGET", "target", ", partitions=3, replicas=2"),
     "CREATE STREAM COPY WITH (kafka_topic='target') AS SELECT ID, AMOUNT + 1 AS NEXT FROM ORDERS;"],
    [{"topic":"orders","key":4,"value":{"AMOUNT":9}}], [{"topic":"target","key":4,"value":{"NEXT":10}}])
err("PARTITIONS alone in a CREATE AS SELECT: the replica count is still its source topic's",
    [src("ORDERS", "orders", ", partitions=2, replicas=3"), src("TARGET", "target", ", partitions=5"),
     "CREATE STREAM COPY WITH (kafka_topic='target', partitions=5) AS SELECT * FROM ORDERS;"], msg("target", 5, 5, 3, 1))
err("ksql.sink.replicas alone: the partition count is still the source topic's",
    [src("ORDERS", "orders", ", partitions=2"), src("TARGET", "target", ", partitions=4"),
     "CREATE STREAM COPY WITH (kafka_topic='target') AS SELECT * FROM ORDERS;"], msg("target", 2, 4, 1, 1),
    props={"ksql.sink.replicas": "1"})
err("a sink topic declared in the case's topics at other counts than the source topic's is refused",
    [src("ORDERS", "orders", ", partitions=1"), "CREATE STREAM SHIPPED AS SELECT * FROM ORDERS;"],
    msg("SHIPPED", 1, 6, 1, 1), topics=[{"name":"SHIPPED","partitions":6}])
ok("a sink topic declared in the case's topics at the source topic's counts is written to",
    [src("ORDERS", "orders", ", partitions=1"), "CREATE STREAM SHIPPED AS SELECT * FROM ORDERS;"],
    [{"topic":"orders","key":3,"value":{"AMOUNT":30}}], [{"topic":"SHIPPED","key":3,"value":{"AMOUNT":30}}],
    topics=[{"name":"SHIPPED","partitions":1}])
ok("a sink topic only the outputs name is the CREATE AS SELECT's to create, at its source topic's counts",
    [src("ORDERS", "orders", ", partitions=7"), "CREATE STREAM SHIPPED AS SELECT * FROM ORDERS;"],
    [{"topic":"orders","key":3,"value":{"AMOUNT":30}}], [{"topic":"SHIPPED","key":3,"value":{"AMOUNT":30}}])
# a join reads its left-most source first: a foreign-key join needs no co-partitioning, so the sides differ
FK_LEFT = ("CREATE TABLE ITEMS (ID BIGINT PRIMARY KEY, SHOP BIGINT, QTY INT) WITH (kafka_topic='items', "
           "value_format='JSON', partitions=2);")
FK_RIGHT = ("CREATE TABLE SHOPS (ID BIGINT PRIMARY KEY, CITY STRING) WITH (kafka_topic='shops', "
            "value_format='JSON', partitions=5);")
FK_JOIN = ("CREATE TABLE PLACED WITH (kafka_topic='placed') AS SELECT I.ID AS ID, I.QTY, S.CITY FROM ITEMS I "
           "JOIN SHOPS S ON I.SHOP = S.ID;")
err("a join's sink topic is expected at its left source topic's counts, not its right's",
    [FK_LEFT, FK_RIGHT, src("EXISTING", "placed", ", partitions=5", "TABLE"), FK_JOIN], msg("placed", 2, 5, 1, 1))
ok("a join writes to an existing sink topic at its left source topic's counts",
    [FK_LEFT, FK_RIGHT, src("EXISTING", "placed", ", partitions=2", "TABLE"), FK_JOIN],
    [{"topic":"shops","key":1,"value":{"CITY":"Oslo"}}, {"topic":"items","key":8,"value":{"SHOP":1,"QTY":2}}],
    [{"topic":"placed","key":8,"value":{"QTY":2,"CITY":"Oslo"}}])
# ksqlDB's injectors run DefaultSchemaInjector before TopicCreateInjector: a sink's registered schema is
# checked (and a CREATE's columns inferred) before any topic count
REGISTERED = {"type": "record", "name": "Shipped", "fields": [{"name": "WEIGHT", "type": ["null", "string"]}]}
for kind in ("STREAM", "TABLE"):
    err(f"a CREATE {kind} AS SELECT's VALUE_SCHEMA_ID mismatch is reported before its sink topic's counts",
        [src("ORDERS", "orders", ", partitions=2", kind),
         f"CREATE {kind} SHIPPED WITH (kafka_topic='shipped', value_format='AVRO', value_schema_id=77) AS "
         "SELECT * FROM ORDERS;"],
        "The following value columns are changed, missing or reordered: [`AMOUNT` INTEGER]. "
        "Schema from schema registry is [`WEIGHT` STRING]",
        topics=[{"name":"shipped","partitions":6,"valueFormat":"AVRO","valueSchemaId":77,"valueSchema":REGISTERED}])
err("a VALUE_SCHEMA_ID mismatch is reported before the PARTITIONS a CREATE AS SELECT names differ from its topic's",
    [src("ORDERS", "orders", ", partitions=2"),
     "CREATE STREAM SHIPPED WITH (kafka_topic='shipped', partitions=4, value_format='AVRO', value_schema_id=77) AS "
     "SELECT * FROM ORDERS;"],
    "The following value columns are changed, missing or reordered: [`AMOUNT` INTEGER]. "
    "Schema from schema registry is [`WEIGHT` STRING]",
    topics=[{"name":"shipped","partitions":6,"valueFormat":"AVRO","valueSchemaId":77,"valueSchema":REGISTERED}])
err("a CREATE inferring its columns reports a missing value schema before its topic's counts",
    ["CREATE STREAM ORDERS WITH (kafka_topic='orders', value_format='AVRO', partitions=3);"],
    "Schema for message values on topic 'orders' does not exist in the Schema Registry.",
    topics=[{"name":"orders","partitions":2}])


json.dump({"comments":["The partition and replica counts a statement requires of a topic that already exists (from memory of ksqlDB's TopicCreateInjector, TopicProperties.Builder and TopicValidationUtil): PARTITIONS / REPLICAS of the WITH clause, else for CREATE ... AS SELECT the legacy ksql.sink.partitions / ksql.sink.replicas, else the counts of the topic the CREATE ... AS SELECT reads first; REPLICAS=-1 accepts any replica count. A new sink topic takes the same counts. A sink's registered schema (DefaultSchemaInjector) is checked before them (TopicCreateInjector)."],"tests":tests}, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "topic-counts.json"), "w"), indent=1)
