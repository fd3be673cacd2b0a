"""Plan rule revisions: how a statement's physical plan is laid out, recorded with each command so that a
running query keeps the layout its state was built with across an upgrade (as ksqlDB keeps a query's
persisted plan in its command topic).

* 1 - GROUP BY's internal topics (repartition, aggregate store and changelog) keyed in the sink's key format.
* 2 - keyed in the input's key format (``plan.group_key``, ksqlDB's rule). The format decides which task
  holds a group's state (the repartition topic's partitioner hashes the key's bytes), so a query whose state
  was placed under revision 1 keeps revision 1.
* 3 - a CREATE TABLE AS SELECT without aggregation over a table keeps the source's rows as read
  (``KsqlTopic-Reduce``, ksqlDB's table source materialization) and applies its WHERE and projection when
  they are read; before, it kept its result rows (``Materialize``). A query whose store was built under
  revision 2 keeps that store.
* 4 - a SOURCE table's ``CST_`` query keeps its rows in ``KsqlTopic-Reduce`` (changelog
  ``<app>-KsqlTopic-Reduce-changelog``, with the source's key and value schemas as a table CTAS's store:
  ksqlDB plans it as ``SELECT ... FROM <table> EMIT CHANGES``, whose table source step materializes as any);
  before, the store was ``Reduce``. A CST query created under revision 3 keeps its store and changelog.
* 5 - a table-table join's CREATE TABLE AS SELECT keeps its result rows in ``Project`` (changelog
  ``<app>-Project-changelog``: ksqlDB's TableSelect step materializes the join's result under its step
  name); before, ``Materialize``. A query created under revision 4 keeps its store and changelog.
* 6 - a foreign-key join keeps the results it applied (and its version counter) in its left table's store
  ``KafkaTopic_Left-Reduce`` (``Join-Left-Materialize`` for a nested join), so the query has no topic Kafka
  Streams' foreign-key join does not have; before, in a store of its own, ``FkJoin-Result`` (changelog
  ``<app>-FkJoin-Result-changelog``). A query created under revision 5 keeps that store and changelog.
* 7 - a GROUP BY over a table-table join's result goes through ``Aggregate-GroupBy-repartition`` whatever it
  groups by (ksqlDB's ``SchemaKTable.groupBy`` is always ``KTable.groupBy``); before, a grouping by the join
  key aggregated in the join's task. A query whose aggregate state was placed under revision 6 keeps it there.
* 8 - a GROUP BY over a table join's result (primary-key or foreign-key) takes each key's previous joined row
  from the join's change (Kafka Streams' KTable-KTable join sends old values to ``KTable.groupBy``) and keeps
  no store of them; before, the previous rows were kept in ``KsqlTopic-Reduce`` (changelog
  ``<app>-KsqlTopic-Reduce-changelog``), a store and topic ksqlDB's topology for that query does not have (its
  table sources are ``KafkaTopic_Left-Reduce`` and ``KafkaTopic_Right-Reduce``). A query created under
  revision 7 or before keeps that store and changelog.
* 9 - a join's CREATE ... AS SELECT sink takes its formats from the FROM source as written
  (``Sink.format_source``): a key-less FROM stream leaves the sink ``ksql.persistence.default.format.key``, and
  an AVRO or PROTOBUF value keeps the FROM source's ``VALUE_SCHEMA_FULL_NAME``; before, the sink took the join's
  internal key format and the default record name. A sink created under revision 8 keeps the formats its
  records were written in.
* 10 - a join whose two sides are both re-keyed by a value expression is keyed in JSON when the format it
  chose (the first non-NONE source key format, else ``ksql.persistence.default.format.key``) cannot write the
  join key (KAFKA: a STRUCT, BOOLEAN, DECIMAL, ARRAY; DELIMITED: a STRUCT, ARRAY, MAP - ksqlDB's
  ``SchemaKStream.selectKey`` sanitizing the key format); before, the repartition topics and join stores
  kept the chosen format and wrote such keys in an encoding of ksqlpy's own. The format decides the bytes
  the repartition partitioner hashes and the join stores are keyed by, so a join planned under revision 9
  keeps it (an analysis-time rule: ``SessionState.plan_rules``).
* 11 - an INSERT INTO writes each record with the ROWTIME its query computed (the FROM source's timestamp,
  a join's or a window's), whatever TIMESTAMP column the target declares: ksqlDB plans an INSERT's sink
  with no properties of its own (``InsertInto.getSink``: ``CreateSourceAsProperties.none()``), so its
  output node has no timestamp column; before, the target's TIMESTAMP column set the record's timestamp.
  An INSERT INTO planned under revision 10 keeps writing the timestamps it wrote.

Commands written before revisions were recorded are revision 1.
"""

from __future__ import annotations

PLAN_RULES = 11 # the revision statements are planned with now
UNRECORDED = 1  # the revision of a command that records none (written before revisions existed)
GROUP_KEY_FROM_INPUT = 2  # the first revision grouping in the input's key format
SOURCE_ROWS_FOR_TABLE_SELECT = 3  # the first revision keeping a table CTAS's source rows
SOURCE_TABLE_STORE_FOR_CST = 4  # the first revision naming a CST query's store as any table source's
PROJECT_STORE_FOR_JOIN_TABLE = 5  # the first revision naming a table join's result store Project
FK_RESULTS_IN_LEFT_STORE = 6  # the first revision without a foreign-key join's FkJoin-Result store
TABLE_JOIN_GROUP_BY_REPARTITION = 7  # the first revision re-grouping a table join's result through a topic
TABLE_JOIN_PREVIOUS_FROM_JOIN = 8  # the first revision taking a table join's previous rows from its changes
JOIN_SINK_FORMATS_FROM_SOURCE = 9  # the first revision giving a join's sink the FROM source's formats
JOIN_KEY_FORMAT_HOLDS_KEY = 10  # the first revision moving a both-sides-re-keyed join to JSON for its key
INSERT_KEEPS_ROWTIME = 11  # the first revision writing an INSERT INTO's records with the query's ROWTIME
