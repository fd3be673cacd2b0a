"""The value schemas of a query's internal topics in a schema-registry value format: ksqlDB's serializers
register them under ``<internal topic>-value`` when they first write (from memory of ksqlDB's AggregateNode,
AggregateAnalyzer, KudafAggregator and the join's PrependAlias step):

- ``Aggregate-GroupBy-repartition``: the Prepare step's internal columns ``KSQL_INTERNAL_COL_<n>`` - the
  required columns (column references of GROUP BY, then of the aggregate arguments in call order;
  ``COUNT(*)`` reads ROWTIME), then one per aggregate argument that is not a plain column;
- ``Aggregate-Aggregate-Materialize-changelog``: the required columns, then ``KSQL_AGG_VARIABLE_<n>`` in each
  aggregate's intermediate type (AVG: ``STRUCT<SUM, COUNT>``; STDDEV_SAMP: ``STRUCT<SUM, COUNT, M2>``);
- a join side's repartition topic and its store's changelog: the side's ``ALIAS_COL`` block (value columns,
  ROWTIME, ROWPARTITION, ROWOFFSET, key columns); a RIGHT join's JOINTHIS store holds the right side;
- a table materialized as read (a join's ``KafkaTopic_Right-Reduce``, a GROUP BY's or a projected/filtered
  table's ``KsqlTopic-Reduce``): the table's own value columns, whatever the query projects, then the pseudo
  columns its rows keep (ROWPARTITION INTEGER, ROWOFFSET BIGINT: SourceBuilder's withPseudoColumnsToMaterialize
  under the source step's pseudoColumnVersion) - none when the query is planned with
  ``ksql.rowpartition.rowoffset.enabled`` false;
- a table sink's ``Project-changelog`` (a table-table join's result, which TableSelect materializes under
  its step name): the sink's value columns, in the leftmost source's value format whatever the sink's
  (TableSelect's internal formats).

Each in the input's value format with its record name (AVRO ``KsqlDataSourceSchema``, PROTOBUF
``ConnectDefault1``); across AVRO, PROTOBUF and JSON_SR x stream/table/windowed aggregations x stream-stream,
stream-table and table-table joins.

Writes tests/cases/serde/internal-value-schemas.json: ``python tests/cases/serde/internal_value_schemas_gen.py
tests/cases/serde/internal-value-schemas.json`` after changing this file.
"""
import json
import sys

APP = "_confluent-ksql-some.ksql.service.idquery_"
FORMATS = ("AVRO", "PROTOBUF", "JSON_SR")
AVRO = {"INT": "int", "BIGINT": "long", "STRING": "string", "DOUBLE": "double"}
PROTO = {"INT": "int32", "BIGINT": "int64", "STRING": "string", "DOUBLE": "double"}
JSON_SR = {"INT": {"type": "integer", "connect.type": "int32"}, "BIGINT": {"type": "integer", "connect.type": "int64"},
           "STRING": {"type": "string"}, "DOUBLE": {"type": "number", "connect.type": "float64"}}
PSEUDO = [("ROWTIME", "BIGINT"), ("ROWPARTITION", "INT"), ("ROWOFFSET", "BIGINT")]
MATERIALIZED = [("ROWPARTITION", "INT"), ("ROWOFFSET", "BIGINT")]  # kept with a table source's stored rows
OFFSETS_OFF = {"ksql.rowpartition.rowoffset.enabled": False}


def reduce(values):  # type: ignore[no-untyped-def]
    """A table source's ``-Reduce`` store: its value columns, then the materialized pseudo columns."""
    return values + MATERIALIZED


def avro(columns, name="KsqlDataSourceSchema"):  # type: ignore[no-untyped-def]
    fields = []
    for n, t in columns:
        if isinstance(t, list):  # a struct: a nested record named after its parent and field
            inner = avro(t, f"{name}_{n}")
            fields.append({"name": n, "type": ["null", inner], "default": None})
        else:
            fields.append({"name": n, "type": ["null", AVRO[t]], "default": None})
    return {"type": "record", "name": name, "namespace": "io.confluent.ksql.avro_schemas", "fields": fields,
            "connect.name": f"io.confluent.ksql.avro_schemas.{name}"}


def json_sr(columns):  # type: ignore[no-untyped-def]
    props = {}
    for i, (n, t) in enumerate(columns):
        inner = json_sr(t) if isinstance(t, list) else JSON_SR[t]
        props[n] = {"connect.index": i, "oneOf": [{"type": "null"}, inner]}
    return {"type": "object", "properties": props}


def proto(columns):  # type: ignore[no-untyped-def]
    lines, nested = [], []
    for i, (n, t) in enumerate(columns, 1):
        if isinstance(t, list):  # an unnamed nested message: Connect's ConnectDefault<n>, numbered in order
            inner = f"ConnectDefault{2 + len(nested)}"
            nested.append(f"message {inner} {{ " + " ".join(
                f"{PROTO[ft]} {fn} = {j};" for j, (fn, ft) in enumerate(t, 1)) + " }")
            lines.append(f"{inner} {n} = {i};")
        else:
            lines.append(f"{PROTO[t]} {n} = {i};")
    return 'syntax = "proto3"; message ConnectDefault1 { ' + " ".join(lines + nested) + " }"


def schema(fmt, columns):  # type: ignore[no-untyped-def]
    return {"AVRO": avro, "JSON_SR": json_sr, "PROTOBUF": proto}[fmt](columns)


def block(alias, values, keys):  # type: ignore[no-untyped-def]
    return [(f"{alias}_{n}", t) for n, t in values + PSEUDO + keys]


def internal(n, t):  # type: ignore[no-untyped-def]
    return (f"KSQL_INTERNAL_COL_{n}", t)


def agg(n, t):  # type: ignore[no-untyped-def]
    return (f"KSQL_AGG_VARIABLE_{n}", t)


AVG_BIGINT = [("SUM", "BIGINT"), ("COUNT", "BIGINT")]


def stddev(t):  # type: ignore[no-untyped-def]
    """STDDEV_SAMP's state (ksqlDB's StandardDeviationSampUdaf): the sum in the overload's type, the count, M2."""
    return [("SUM", t), ("COUNT", "BIGINT"), ("M2", "DOUBLE")]

# name, statements (FMT substituted), query id, expected value columns by internal topic, inputs, outputs
SHAPES = [
    ("stream GROUP BY a value column: COUNT(*) reads ROWTIME, an expression argument is its own column",
     ["CREATE STREAM S (K STRING KEY, A INT, B BIGINT) WITH (kafka_topic='s', format='{FMT}', partitions=1);",
      "CREATE TABLE T AS SELECT A, COUNT(*) AS C, SUM(B) AS SB, AVG(B + 1) AS AV FROM S GROUP BY A;"],
     "CTAS_T_0",
     {"Aggregate-GroupBy-repartition": [internal(0, "INT"), internal(1, "BIGINT"), internal(2, "BIGINT"),
                                        internal(3, "BIGINT")],
      "Aggregate-Aggregate-Materialize-changelog": [internal(0, "INT"), internal(1, "BIGINT"),
                                                    internal(2, "BIGINT"), agg(0, "BIGINT"), agg(1, "BIGINT"),
                                                    agg(2, AVG_BIGINT)]},
     [{"topic": "s", "key": "k", "value": {"A": 1, "B": 2}}],
     [{"topic": "T", "key": 1, "value": {"C": 1, "SB": 2, "AV": 3.0}}]),
    ("stream GROUP BY with STDDEV_SAMP over INT, BIGINT and DOUBLE: each state a STRUCT<SUM, COUNT, M2>, SUM in the overload's type",
     ["CREATE STREAM S (K STRING KEY, A INT, B BIGINT, C DOUBLE) WITH (kafka_topic='s', format='{FMT}', "
      "partitions=1);",
      "CREATE TABLE T AS SELECT A, STDDEV_SAMP(A) AS SA, STDDEV_SAMP(B) AS SB, STDDEV_SAMP(C) AS SC FROM S "
      "GROUP BY A;"],
     "CTAS_T_0",
     {"Aggregate-GroupBy-repartition": [internal(0, "INT"), internal(1, "BIGINT"), internal(2, "DOUBLE")],
      "Aggregate-Aggregate-Materialize-changelog": [internal(0, "INT"), internal(1, "BIGINT"),
                                                    internal(2, "DOUBLE"), agg(0, stddev("INT")),
                                                    agg(1, stddev("BIGINT")), agg(2, stddev("DOUBLE"))]},
     [{"topic": "s", "key": "k", "value": {"A": 1, "B": 2, "C": 1.5}}],
     [{"topic": "T", "key": 1, "value": {"SA": 0.0, "SB": 0.0, "SC": 0.0}}]),
    ("stream GROUP BY two columns, aggregates over a column not grouped",
     ["CREATE STREAM S (K STRING KEY, A INT, B STRING, C DOUBLE) WITH (kafka_topic='s', format='{FMT}', "
      "partitions=1);",
      "CREATE TABLE T AS SELECT B, A, MAX(C) AS M, MIN(C) AS N FROM S GROUP BY B, A;"],
     "CTAS_T_0",
     {"Aggregate-GroupBy-repartition": [internal(0, "STRING"), internal(1, "INT"), internal(2, "DOUBLE")],
      "Aggregate-Aggregate-Materialize-changelog": [internal(0, "STRING"), internal(1, "INT"),
                                                    internal(2, "DOUBLE"), agg(0, "DOUBLE"), agg(1, "DOUBLE")]},
     [{"topic": "s", "key": "k", "value": {"A": 1, "B": "x", "C": 2.5}}],
     [{"topic": "T", "key": {"B": "x", "A": 1}, "value": {"M": 2.5, "N": 2.5}}]),
    ("table GROUP BY a value column: the table materialized as read, then grouped",
     ["CREATE TABLE S (K STRING PRIMARY KEY, A STRING, B INT) WITH (kafka_topic='s', format='{FMT}', "
      "partitions=1);",
      "CREATE TABLE T AS SELECT A, COUNT(*) AS C, SUM(B) AS SB FROM S GROUP BY A;"],
     "CTAS_T_0",
     {"KsqlTopic-Reduce-changelog": reduce([("A", "STRING"), ("B", "INT")]),
      "Aggregate-GroupBy-repartition": [internal(0, "STRING"), internal(1, "BIGINT"), internal(2, "INT")],
      "Aggregate-Aggregate-Materialize-changelog": [internal(0, "STRING"), internal(1, "BIGINT"),
                                                    internal(2, "INT"), agg(0, "BIGINT"), agg(1, "INT")]},
     [{"topic": "s", "key": "k", "value": {"A": "a", "B": 2}}],
     [{"topic": "T", "key": "a", "value": {"C": 1, "SB": 2}}]),
    ("GROUP BY after a join, HAVING's aggregate among the aggregates: the join's columns as internal columns",
     ["CREATE STREAM L (ID INT KEY, A INT, B STRING) WITH (kafka_topic='l', format='{FMT}', partitions=1);",
      "CREATE TABLE R (ID INT PRIMARY KEY, D STRING) WITH (kafka_topic='r', format='{FMT}', partitions=1);",
      "CREATE TABLE T AS SELECT R.D, COUNT(*) AS C, MAX(L.A) AS M FROM L JOIN R ON L.ID = R.ID GROUP BY R.D "
      "HAVING SUM(L.A) > 0;"],
     "CTAS_T_0",
     {"Aggregate-GroupBy-repartition": [internal(0, "STRING"), internal(1, "BIGINT"), internal(2, "INT")],
      "Aggregate-Aggregate-Materialize-changelog": [internal(0, "STRING"), internal(1, "BIGINT"),
                                                    internal(2, "INT"), agg(0, "BIGINT"), agg(1, "INT"),
                                                    agg(2, "INT")]},
     [{"topic": "r", "key": 1, "value": {"D": "d"}}, {"topic": "l", "key": 1, "value": {"A": 5, "B": "b"}}],
     [{"topic": "T", "key": "d", "value": {"C": 1, "M": 5}}]),
    ("windowed GROUP BY the key: no repartition, the store's changelog",
     ["CREATE STREAM S (K STRING KEY, B INT) WITH (kafka_topic='s', format='{FMT}', partitions=1);",
      "CREATE TABLE T AS SELECT K, COUNT(B) AS C FROM S WINDOW TUMBLING (SIZE 10 SECONDS) GROUP BY K;"],
     "CTAS_T_0",
     {"Aggregate-Aggregate-Materialize-changelog": [internal(0, "STRING"), internal(1, "INT"),
                                                    agg(0, "BIGINT")]},
     [{"topic": "s", "key": "k", "value": {"B": 2}, "timestamp": 1}],
     [{"topic": "T", "key": "k", "value": {"C": 1}, "timestamp": 1, "window": {"start": 0, "end": 10000,
                                                                              "type": "time"}}]),
    ("stream-stream join on a value column: each side's block in its repartition topic and store",
     ["CREATE STREAM L (ID INT KEY, A INT, B STRING) WITH (kafka_topic='l', format='{FMT}', partitions=1);",
      "CREATE STREAM R (ID INT KEY, C INT) WITH (kafka_topic='r', format='{FMT}', partitions=1);",
      "CREATE STREAM O AS SELECT L.A, B, C FROM L JOIN R WITHIN 1 SECOND ON L.A = R.ID;"],
     "CSAS_O_0",
     {"Join-left-repartition": block("L", [("A", "INT"), ("B", "STRING")], [("ID", "INT")]),
      "Join-right-repartition": block("R", [("C", "INT")], [("ID", "INT")]),
      "KSTREAM-JOINTHIS-0000000016-store-changelog": block("L", [("A", "INT"), ("B", "STRING")], [("ID", "INT")]),
      "KSTREAM-JOINOTHER-0000000017-store-changelog": block("R", [("C", "INT")], [("ID", "INT")])},
     [{"topic": "l", "key": 1, "value": {"A": 7, "B": "b"}}, {"topic": "r", "key": 7, "value": {"C": 3}}],
     [{"topic": "O", "key": 7, "value": {"B": "b", "C": 3}}]),
    ("stream-stream RIGHT join: the this store holds the right side",
     ["CREATE STREAM L (ID INT KEY, A INT) WITH (kafka_topic='l', format='{FMT}', partitions=1);",
      "CREATE STREAM R (ID INT KEY, C STRING) WITH (kafka_topic='r', format='{FMT}', partitions=1);",
      "CREATE STREAM O AS SELECT R.ID, A, C FROM L RIGHT JOIN R WITHIN 1 SECOND ON L.ID = R.ID;"],
     "CSAS_O_0",
     {"KSTREAM-JOINTHIS-0000000016-store-changelog": block("R", [("C", "STRING")], [("ID", "INT")]),
      "KSTREAM-OUTEROTHER-0000000017-store-changelog": block("L", [("A", "INT")], [("ID", "INT")])},
     [{"topic": "r", "key": 1, "value": {"C": "c"}}],
     [{"topic": "O", "key": 1, "value": {"A": None, "C": "c"}}]),
    ("stream-table join on a value column: both sides' blocks re-keyed (a schema-registry key)",
     ["CREATE STREAM L (ID INT KEY, A INT) WITH (kafka_topic='l', format='{FMT}', partitions=1);",
      "CREATE TABLE T (ID INT PRIMARY KEY, D STRING, E BIGINT) WITH (kafka_topic='t', format='{FMT}', "
      "partitions=1);",
      "CREATE STREAM O AS SELECT L.A, D FROM L JOIN T ON L.A = T.ID;"],
     "CSAS_O_0",
     {"Join-repartition": block("L", [("A", "INT")], [("ID", "INT")]),
      "RightSourceKeyed-SelectKey-repartition": block("T", [("D", "STRING"), ("E", "BIGINT")], [("ID", "INT")]),
      "RightSourceKeyed-Materialize-changelog": block("T", [("D", "STRING"), ("E", "BIGINT")], [("ID", "INT")])},
     [{"topic": "t", "key": 5, "value": {"D": "d", "E": 1}}, {"topic": "l", "key": 1, "value": {"A": 5}}],
     [{"topic": "O", "key": 5, "value": {"D": "d"}}]),
    ("stream-table join with KAFKA keys: the table materialized as read holds its own value columns",
     ["CREATE STREAM L (ID INT KEY, A INT) WITH (kafka_topic='l', key_format='KAFKA', value_format='{FMT}', "
      "partitions=1);",
      "CREATE TABLE T (ID INT PRIMARY KEY, D STRING, E BIGINT) WITH (kafka_topic='t', key_format='KAFKA', "
      "value_format='{FMT}', partitions=1);",
      "CREATE STREAM O AS SELECT L.A, D FROM L JOIN T ON L.A = T.ID;"],
     "CSAS_O_0",
     {"Join-repartition": block("L", [("A", "INT")], [("ID", "INT")]),
      "KafkaTopic_Right-Reduce-changelog": reduce([("D", "STRING"), ("E", "BIGINT")])},
     [{"topic": "t", "key": 5, "value": {"D": "d", "E": 1}}, {"topic": "l", "key": 1, "value": {"A": 5}}],
     [{"topic": "O", "key": 5, "value": {"D": "d"}}]),
    ("table-table join: each re-keyed side's block in its repartition topic and materialization",
     ["CREATE TABLE A (ID INT PRIMARY KEY, X STRING) WITH (kafka_topic='a', format='{FMT}', partitions=1);",
      "CREATE TABLE B (ID INT PRIMARY KEY, Y INT) WITH (kafka_topic='b', format='{FMT}', partitions=1);",
      "CREATE TABLE O AS SELECT A.ID, X, Y FROM A JOIN B ON A.ID = B.ID;"],
     "CTAS_O_0",
     {"LeftSourceKeyed-SelectKey-repartition": block("A", [("X", "STRING")], [("ID", "INT")]),
      "RightSourceKeyed-SelectKey-repartition": block("B", [("Y", "INT")], [("ID", "INT")]),
      "LeftSourceKeyed-Materialize-changelog": block("A", [("X", "STRING")], [("ID", "INT")]),
      "RightSourceKeyed-Materialize-changelog": block("B", [("Y", "INT")], [("ID", "INT")]),
      "Project-changelog": [("X", "STRING"), ("Y", "INT")]},
     [{"topic": "a", "key": 1, "value": {"X": "x"}}, {"topic": "b", "key": 1, "value": {"Y": 2}}],
     [{"topic": "O", "key": 1, "value": {"X": "x", "Y": 2}}]),
    ("foreign-key table-table join: the sink's Project store holds the projection, keyed by the left key",
     ["CREATE TABLE L (ID INT PRIMARY KEY, FK STRING, A INT) WITH (kafka_topic='l', format='{FMT}', partitions=1);",
      "CREATE TABLE R (ID STRING PRIMARY KEY, B DOUBLE) WITH (kafka_topic='r', format='{FMT}', partitions=1);",
      "CREATE TABLE O AS SELECT L.ID, A, B FROM L JOIN R ON L.FK = R.ID;"],
     "CTAS_O_0",
     {"Project-changelog": [("A", "INT"), ("B", "DOUBLE")]},
     [{"topic": "r", "key": "x", "value": {"B": 1.5}}, {"topic": "l", "key": 1, "value": {"FK": "x", "A": 2}}],
     [{"topic": "O", "key": 1, "value": {"A": 2, "B": 1.5}}]),
    ("table projected and filtered without aggregation: the source materialized as read (KsqlTopic-Reduce) holds the source's value columns",
     ["CREATE TABLE S (K STRING PRIMARY KEY, A INT, B STRING, C DOUBLE) WITH (kafka_topic='s', format='{FMT}', "
      "partitions=1);",
      "CREATE TABLE T AS SELECT K, A * 2 AS A2, C FROM S WHERE A > 0;"],
     "CTAS_T_0",
     {"KsqlTopic-Reduce-changelog": reduce([("A", "INT"), ("B", "STRING"), ("C", "DOUBLE")])},
     [{"topic": "s", "key": "k", "value": {"A": 1, "B": "b", "C": 1.5}}],
     [{"topic": "T", "key": "k", "value": {"A2": 2, "C": 1.5}}]),
    ("table projected into another value format: the source materialized as read keeps the source's columns and format",
     ["CREATE TABLE S (K STRING PRIMARY KEY, A INT, B STRING) WITH (kafka_topic='s', format='{FMT}', "
      "partitions=1);",
      "CREATE TABLE T WITH (value_format='JSON') AS SELECT K, B, A FROM S;"],
     "CTAS_T_0",
     {"KsqlTopic-Reduce-changelog": reduce([("A", "INT"), ("B", "STRING")])},
     [{"topic": "s", "key": "k", "value": {"A": 1, "B": "b"}}],
     [{"topic": "T", "key": "k", "value": {"B": "b", "A": 1}}]),
    ("SOURCE table: its CST query keeps the table materialized as read (KsqlTopic-Reduce)",
     ["CREATE SOURCE TABLE S (K STRING PRIMARY KEY, A INT, B STRING) WITH (kafka_topic='s', format='{FMT}', "
      "partitions=1);"],
     "CST_S_0",
     {"KsqlTopic-Reduce-changelog": reduce([("A", "INT"), ("B", "STRING")])},
     [{"topic": "s", "key": "k", "value": {"A": 1, "B": "b"}}],
     []),
]


def key_columns(statements):  # type: ignore[no-untyped-def]
    """The key column of each source's topic: the first column declared (a PROTOBUF key is a message of it)."""
    out = {}
    for sql in statements:
        if "kafka_topic=" in sql and "key_format='KAFKA'" not in sql:
            topic = sql.split("kafka_topic='")[1].split("'")[0]
            out[topic] = sql.split("(")[1].split(" ")[0]
    return out


def proto_record(record, keys, sinks):  # type: ignore[no-untyped-def]
    key = record["key"]
    name = keys.get(record["topic"]) or sinks.get(record["topic"])
    if not isinstance(key, dict) and name is not None:
        key = {name: key}
    # proto3 writes NULL as the type's default
    value = {k: (0 if v is None and k == "A" else "" if v is None else v) for k, v in record["value"].items()}
    return dict(record, key=key, value=value)


SINK_KEYS = {"T": "A", "O": "ID"}
SINK_KEYS_BY_SHAPE = {"GROUP BY after a join, HAVING's aggregate among the aggregates: the join's columns as "
                      "internal columns": {"T": "D"},
                      "windowed GROUP BY the key: no repartition, the store's changelog": {"T": "K"},
                      "stream-stream join on a value column: each side's block in its repartition topic and store":
                          {"O": "A"},
                      "stream-table join on a value column: both sides' blocks re-keyed (a schema-registry key)":
                          {"O": "A"},
                      "stream-stream RIGHT join: the this store holds the right side": {"O": "R_ID"},
                      "table-table join: each re-keyed side's block in its repartition topic and materialization":
                          {"O": "A_ID"},
                      "stream-table join with KAFKA keys: the table materialized as read holds its own value "
                      "columns": {"O": None},
                      "table projected and filtered without aggregation: the source materialized as read "
                      "(KsqlTopic-Reduce) holds the source's value columns": {"T": "K"},
                      "foreign-key table-table join: the sink's Project store holds the projection, keyed by "
                      "the left key": {"O": "L_ID"},
                      "table projected into another value format: the source materialized as read keeps the "
                      "source's columns and format": {"T": "K"}}

def without_offsets(topics):  # type: ignore[no-untyped-def]
    """The same topics planned with ``ksql.rowpartition.rowoffset.enabled`` false: a ``-Reduce`` store keeps
    no pseudo columns (a join's alias blocks are not modelled off: only the shapes with a store are run)."""
    return {t: (c[:-len(MATERIALIZED)] if t.endswith("-Reduce-changelog") else c) for t, c in topics.items()}


RUNS = [(name, statements, query, topics, inputs, outputs, None)
        for name, statements, query, topics, inputs, outputs in SHAPES]
RUNS += [(f"{name} (rowpartition/rowoffset off: no pseudo columns kept)", statements, query,
          {t: c for t, c in without_offsets(topics).items() if t.endswith("-Reduce-changelog")}, inputs, outputs,
          OFFSETS_OFF)
         for name, statements, query, topics, inputs, outputs in SHAPES
         if any(t.endswith("-Reduce-changelog") for t in topics)]

tests = []
for fmt in FORMATS:
    for name, statements, query, topics, inputs, outputs, properties in RUNS:
        sql = [s.replace("{FMT}", fmt) for s in statements]
        if fmt == "PROTOBUF":
            shape = name.split(" (rowpartition/rowoffset off")[0]
            keys, sinks = key_columns(sql), {**SINK_KEYS, **SINK_KEYS_BY_SHAPE.get(shape, {})}
            inputs = [proto_record(r, keys, sinks) for r in inputs]
            outputs = [proto_record(r, keys, sinks) for r in outputs]
        case = {
            "name": f"{fmt} {name}",
            "statements": sql,
            "inputs": inputs,
            "outputs": outputs,
            "post": {"topics": {"topics": [
                {"name": f"{APP}{query}-{topic}", "valueFormat": {"format": fmt},
                 "valueSchema": schema(fmt, columns)}
                for topic, columns in topics.items()]}},
        }
        if properties:
            case["properties"] = properties
        tests.append(case)

if __name__ == "__main__":
    json.dump({"comments": ["ksqlpy's own cases, generated by tests/cases/serde/internal_value_schemas_gen.py "
                            "(edit that): the value schemas ksqlDB registers for repartition and changelog topics"],
               "tests": tests}, open(sys.argv[1], "w"), indent=1)
    print(len(tests))
