"""Writes tests/cases/upgrades/upgrade-scope.json: CREATE OR REPLACE over query shapes x changes x formats.

The rule (ksqlDB's ``StructuredDataSource.canUpgradeTo`` when the sink is put in the metastore, then
``ExecutionStep.validateUpgrade`` over the old and new plans, sink first):
- the sink must keep its name, kind, topic (name, key/value formats with their properties - full schema
  name, delimiter, schema id - and features, window) and timestamp column; its key columns must be identical and every old column must keep its place -
  value columns may only be appended;
- passive steps (filters, projections) may be added, removed or changed; every other step must match:
  the source's topic, PARTITION BY's key expressions (PARTITION BY the input's own key is no step), GROUP BY's
  expressions, the aggregation's columns and calls - all three over the Prepare step's internal columns
  (KSQL_INTERNAL_COL_<n>: the columns GROUP BY and the aggregates read, COUNT(*) reading ROWTIME), so an
  aggregation whose state keeps its shape is upgradable; a plan with a join (any kind) cannot be upgraded at all, and a
  non-join plan cannot become one.
An accepted upgrade runs the new query (the harness feeds its inputs after every statement ran, so the
outputs are the new query's); a refused one names the first rule that fails.

Shapes: a stream projection, a stream re-keyed by PARTITION BY, a stream grouped by its key, a stream grouped
by a value column, a table copied from a table, and the four join kinds; formats JSON, AVRO, PROTOBUF and
DELIMITED for the shapes whose changes run records. Outputs come from a small model of each accepted query.

Run ``python tests/cases/upgrades/gen_upgrade_scope.py`` after changing it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Case = dict[str, Any]
Row = tuple[int, int, str]  # ID (key), V, W
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
FORMATS = ["JSON", "AVRO", "PROTOBUF", "DELIMITED"]
# no negative V: DELIMITED quotes a first field starting with "-" (commons-csv), which is not this rule
ROWS: list[Row] = [(1, 5, "a"), (2, 0, "b"), (1, 7, "b"), (3, 2, "a"), (2, 4, "a")]
SOURCES = [("S", "STREAM", "s"), ("S2", "STREAM", "s2"), ("T", "TABLE", "t"), ("T2", "TABLE", "t2")]


def source_ddl(fmt: str) -> list[str]:
    out = []
    for name, kind, topic in SOURCES:
        key = "KEY" if kind == "STREAM" else "PRIMARY KEY"
        out.append(f"CREATE {kind} {name} (ID INT {key}, V INT, W STRING) WITH (kafka_topic='{topic}', "
                   f"key_format='KAFKA', value_format='{fmt}', partitions=1);")
    return out


def encode(fmt: str, value: dict[str, Any] | None) -> Any:
    """A value as the harness writes it: an object, or DELIMITED text (NULL is empty)."""
    if value is None or fmt != "DELIMITED":
        return value
    return ",".join("" if v is None else str(v) for v in value.values())


# --------------------------------------------------------------------------- the models of accepted queries

Out = tuple[Any, dict[str, Any] | None]


@dataclass
class Stateless:
    """SELECT <project> FROM <stream|table> [WHERE <keep>] [PARTITION BY <key>]: one output per input that
    passes; over a table, a row that stops passing deletes the key it last wrote."""

    keep: Callable[[Row], bool]
    key: Callable[[Row], Any]
    project: Callable[[Row], dict[str, Any]]
    table: bool = False

    def outputs(self, rows: list[Row]) -> list[Out]:
        out: list[Out] = []
        live: set[Any] = set()
        for r in rows:
            k = self.key(r)
            if self.keep(r):
                out.append((k, self.project(r)))
                live.add(k)
            elif self.table and k in live:
                out.append((k, None))
                live.discard(k)
        return out


@dataclass
class Counting:
    """SELECT <group>, COUNT(*) AS C [, extra] FROM S [WHERE <keep>] GROUP BY <group> [HAVING <having>]: each
    counted input updates its group; a group that stops passing HAVING is deleted once."""

    keep: Callable[[Row], bool]
    group: Callable[[Row], Any]
    project: Callable[[Any, int], dict[str, Any]]
    having: Callable[[int], bool] = lambda n: True

    def outputs(self, rows: list[Row]) -> list[Out]:
        counts: dict[Any, int] = {}
        out: list[Out] = []
        live: set[Any] = set()
        for r in rows:
            if not self.keep(r):
                continue
            g = self.group(r)
            counts[g] = counts.get(g, 0) + 1
            if self.having(counts[g]):
                out.append((g, self.project(g, counts[g])))
                live.add(g)
            elif g in live:
                out.append((g, None))
                live.discard(g)
        return out


def every_row(r: Row) -> bool:
    """No filter."""
    return True


@dataclass
class Shape:
    label: str
    kind: str  # STREAM | TABLE (the sink)
    create: str  # the original query, its sink named O
    schema: str  # the sink's columns as ksqlDB prints them (LogicalSchema.toString)
    input_topic: str  # the topic the records go to


@dataclass
class Accepted:
    label: str
    query: str
    model: Stateless | Counting
    schema: str  # the sink's columns after the upgrade (post condition, SQL form)


@dataclass
class Refused:
    label: str
    query: str
    message: str


def _schema_message(old: str, new: str, why: str) -> str:
    return f"Cannot upgrade data source: DataSource '`O`' has schema = {old} which is not upgradeable to {new}. ({why}"


COLUMNS_CHANGED = "The following columns are changed, missing or reordered: ["
KEYS_CHANGED = "Key columns must be identical. The following key columns are changed, missing or reordered: ["

PROJECTION = Shape("a stream projection", "STREAM", "CREATE STREAM O AS SELECT ID, V, W FROM S;",
                   "`ID` INTEGER KEY, `V` INTEGER, `W` STRING", "s")
PARTITIONED = Shape("a stream re-keyed by PARTITION BY", "STREAM",
                    "CREATE STREAM O AS SELECT V, ID, W FROM S PARTITION BY V;",
                    "`V` INTEGER KEY, `ID` INTEGER, `W` STRING", "s")
BY_KEY = Shape("a stream grouped by its key", "TABLE", "CREATE TABLE O AS SELECT ID, COUNT(*) AS C FROM S GROUP BY ID;",
               "`ID` INTEGER KEY, `C` BIGINT", "s")
BY_VALUE = Shape("a stream grouped by a value column", "TABLE",
                 "CREATE TABLE O AS SELECT W, COUNT(*) AS C FROM S GROUP BY W;", "`W` STRING KEY, `C` BIGINT", "s")
TABLE_COPY = Shape("a table copied from a table", "TABLE", "CREATE TABLE O AS SELECT ID, V, W FROM T;",
                   "`ID` INTEGER KEY, `V` INTEGER, `W` STRING", "t")


def accepted(shape: Shape) -> list[Accepted]:
    def by_id(r: Row) -> Any:
        return r[0]
    if shape is PROJECTION:
        def vw(r: Row) -> dict[str, Any]:
            return {"V": r[1], "W": r[2]}
        return [
            Accepted("a filter is added", "CREATE OR REPLACE STREAM O AS SELECT ID, V, W FROM S WHERE V > 0;",
                     Stateless(lambda r: r[1] > 0, by_id, vw), "ID INT KEY, V INT, W STRING"),
            Accepted("a column is appended", "CREATE OR REPLACE STREAM O AS SELECT ID, V, W, UCASE(W) AS U FROM S;",
                     Stateless(every_row, by_id, lambda r: {**vw(r), "U": r[2].upper()}),
                     "ID INT KEY, V INT, W STRING, U STRING"),
            Accepted("a column's expression changes, its type kept",
                     "CREATE OR REPLACE STREAM O AS SELECT ID, V * 10 AS V, W FROM S;",
                     Stateless(every_row, by_id, lambda r: {"V": r[1] * 10, "W": r[2]}), "ID INT KEY, V INT, W STRING"),
            Accepted("a filter and an appended expression",
                     "CREATE OR REPLACE STREAM O AS SELECT ID, V, W, LEN(W) + V AS L FROM S WHERE W = 'a';",
                     Stateless(lambda r: r[2] == "a", by_id, lambda r: {**vw(r), "L": len(r[2]) + r[1]}),
                     "ID INT KEY, V INT, W STRING, L INT"),
            Accepted("PARTITION BY its own key is no re-keying step",
                     "CREATE OR REPLACE STREAM O AS SELECT ID, V, W FROM S WHERE V <> 0 PARTITION BY ID;",
                     Stateless(lambda r: r[1] != 0, by_id, vw), "ID INT KEY, V INT, W STRING"),
        ]
    if shape is PARTITIONED:
        def by_v(r: Row) -> Any:
            return r[1]
        return [
            Accepted("a filter is added", "CREATE OR REPLACE STREAM O AS SELECT V, ID, W FROM S WHERE ID > 1 "
                     "PARTITION BY V;", Stateless(lambda r: r[0] > 1, by_v, lambda r: {"ID": r[0], "W": r[2]}),
                     "V INT KEY, ID INT, W STRING"),
            Accepted("a column is appended", "CREATE OR REPLACE STREAM O AS SELECT V, ID, W, ID + V AS T FROM S "
                     "PARTITION BY V;", Stateless(every_row, by_v, lambda r: {"ID": r[0], "W": r[2], "T": r[0] + r[1]}),
                     "V INT KEY, ID INT, W STRING, T INT"),
        ]
    if shape is BY_KEY:
        return [
            Accepted("a filter is added", "CREATE OR REPLACE TABLE O AS SELECT ID, COUNT(*) AS C FROM S WHERE V > 0 "
                     "GROUP BY ID;", Counting(lambda r: r[1] > 0, by_id, lambda g, n: {"C": n}), "ID INT KEY, C BIGINT"),
            Accepted("a HAVING is added", "CREATE OR REPLACE TABLE O AS SELECT ID, COUNT(*) AS C FROM S GROUP BY ID "
                     "HAVING COUNT(*) > 1;", Counting(every_row, by_id, lambda g, n: {"C": n}, lambda n: n > 1),
                     "ID INT KEY, C BIGINT"),
            Accepted("the aggregate's argument changes (COUNT(*) reads ROWTIME, both one internal column)",
                     "CREATE OR REPLACE TABLE O AS SELECT ID, COUNT(W) AS C FROM S GROUP BY ID;",
                     Counting(every_row, by_id, lambda g, n: {"C": n}), "ID INT KEY, C BIGINT"),
            Accepted("a column of the key and the aggregate is appended",
                     "CREATE OR REPLACE TABLE O AS SELECT ID, COUNT(*) AS C, ID * 100 + COUNT(*) AS D FROM S "
                     "GROUP BY ID;", Counting(every_row, by_id, lambda g, n: {"C": n, "D": g * 100 + n}),
                     "ID INT KEY, C BIGINT, D BIGINT"),
        ]
    if shape is BY_VALUE:
        def by_w(r: Row) -> Any:
            return r[2]
        return [
            Accepted("a filter is added", "CREATE OR REPLACE TABLE O AS SELECT W, COUNT(*) AS C FROM S WHERE V > 4 "
                     "GROUP BY W;", Counting(lambda r: r[1] > 4, by_w, lambda g, n: {"C": n}),
                     "W STRING KEY, C BIGINT"),
            Accepted("a HAVING and an appended column", "CREATE OR REPLACE TABLE O AS SELECT W, COUNT(*) AS C, "
                     "UCASE(W) AS U FROM S GROUP BY W HAVING COUNT(*) < 3;",
                     Counting(every_row, by_w, lambda g, n: {"C": n, "U": g.upper()}, lambda n: n < 3),
                     "W STRING KEY, C BIGINT, U STRING"),
        ]
    assert shape is TABLE_COPY
    def vw2(r: Row) -> dict[str, Any]:
        return {"V": r[1], "W": r[2]}
    return [
        Accepted("a filter is added", "CREATE OR REPLACE TABLE O AS SELECT ID, V, W FROM T WHERE V > 0;",
                 Stateless(lambda r: r[1] > 0, by_id, vw2, table=True), "ID INT KEY, V INT, W STRING"),
        Accepted("a column is appended", "CREATE OR REPLACE TABLE O AS SELECT ID, V, W, V * 2 AS D FROM T;",
                 Stateless(every_row, by_id, lambda r: {**vw2(r), "D": r[1] * 2}, table=True),
                 "ID INT KEY, V INT, W STRING, D INT"),
        Accepted("a filter and a changed expression", "CREATE OR REPLACE TABLE O AS SELECT ID, V + 1 AS V, W FROM T "
                 "WHERE W = 'b';", Stateless(lambda r: r[2] == "b", by_id, lambda r: {"V": r[1] + 1, "W": r[2]},
                                             table=True), "ID INT KEY, V INT, W STRING"),
    ]


def refused(shape: Shape, fmt: str) -> list[Refused]:
    old = shape.schema

    def schema(query: str, label: str, new: str, why: str) -> Refused:
        return Refused(label, query, _schema_message(old, new, why))

    if shape is PROJECTION:
        return [
            schema("CREATE OR REPLACE STREAM O AS SELECT ID, V FROM S;", "a column is removed",
                   "`ID` INTEGER KEY, `V` INTEGER", COLUMNS_CHANGED + "`W` STRING]"),
            schema("CREATE OR REPLACE STREAM O AS SELECT ID, W, V FROM S;", "columns are reordered",
                   "`ID` INTEGER KEY, `W` STRING, `V` INTEGER", COLUMNS_CHANGED + "`V` INTEGER, `W` STRING]"),
            schema("CREATE OR REPLACE STREAM O AS SELECT ID, CAST(V AS BIGINT) AS V, W FROM S;",
                   "a column's type changes", "`ID` INTEGER KEY, `V` BIGINT, `W` STRING",
                   COLUMNS_CHANGED + "`V` INTEGER]"),
            schema("CREATE OR REPLACE STREAM O AS SELECT ID AS K, V, W FROM S;", "the key column is renamed",
                   "`K` INTEGER KEY, `V` INTEGER, `W` STRING", KEYS_CHANGED + "`ID` INTEGER KEY]"),
            schema("CREATE OR REPLACE STREAM O AS SELECT V, ID, W FROM S PARTITION BY V;", "the key changes",
                   "`V` INTEGER KEY, `ID` INTEGER, `W` STRING", KEYS_CHANGED + "`ID` INTEGER KEY]"),
            Refused("the source changes", "CREATE OR REPLACE STREAM O AS SELECT ID, V, W FROM S2;",
                    "Query is not upgradeable. Plan step of type StreamSource must have matching topicName. "
                    "Values differ: s vs. s2"),
            Refused("the sink becomes a table", "CREATE OR REPLACE TABLE O AS SELECT ID, V, W FROM T;",
                    "Cannot upgrade data source: DataSource '`O`' has type = KSTREAM which is not upgradeable to "
                    "KTABLE"),
            Refused("the value format changes", "CREATE OR REPLACE STREAM O WITH (value_format='"
                    + ("JSON" if fmt != "JSON" else "AVRO") + "') AS SELECT ID, V, W FROM S;",
                    "Cannot upgrade data source: DataSource '`O`' has topic = KsqlTopic{kafkaTopicName='O', "
                    "keyFormat=KeyFormat{format=FormatInfo{format=KAFKA, properties={}}"),
            *([Refused("the value schema's full name changes", "CREATE OR REPLACE STREAM O WITH "
                       "(value_schema_full_name='x.Y') AS SELECT ID, V, W FROM S;",
                       "which is not upgradeable to KsqlTopic{kafkaTopicName='O', keyFormat=KeyFormat{format="
                       "FormatInfo{format=KAFKA, properties={}}, features=SerdeFeatures{features=[]}, window="
                       f"Optional.empty}}, valueFormat=ValueFormat{{format=FormatInfo{{format={fmt}, "
                       "properties={fullSchemaName=x.Y}}")] if fmt in ("AVRO", "PROTOBUF") else []),
            Refused("the sink topic changes", "CREATE OR REPLACE STREAM O WITH (kafka_topic='other') AS "
                    "SELECT ID, V, W FROM S;",
                    "Cannot upgrade data source: DataSource '`O`' has topic = KsqlTopic{kafkaTopicName='O', "),
            Refused("a join is added", "CREATE OR REPLACE STREAM O AS SELECT S.ID AS ID, T.V AS V, T.W AS W "
                    "FROM S JOIN T ON S.ID = T.ID;", "Query is not upgradeable. Cannot change a non-join source into a join source."),
        ]
    if shape is PARTITIONED:
        return [
            Refused("the PARTITION BY expression changes", "CREATE OR REPLACE STREAM O AS SELECT ABS(V) AS V, ID, W "
                    "FROM S PARTITION BY ABS(V);", "Query is not upgradeable. Plan step of type StreamSelectKey must "
                    "have matching keyExpression. Values differ: [V] vs. [ABS(V)]"),
            schema("CREATE OR REPLACE STREAM O AS SELECT ID, V, W FROM S;", "the PARTITION BY is removed",
                   "`ID` INTEGER KEY, `V` INTEGER, `W` STRING", KEYS_CHANGED + "`V` INTEGER KEY]"),
        ]
    if shape is BY_KEY:
        return [
            Refused("an aggregate is added", "CREATE OR REPLACE TABLE O AS SELECT ID, COUNT(*) AS C, SUM(V) AS T "
                    "FROM S GROUP BY ID;", "Query is not upgradeable. Plan step of type StreamAggregate must have "
                    "matching nonAggregateColumns. Values differ: [`KSQL_INTERNAL_COL_0`, `KSQL_INTERNAL_COL_1`] vs. "
                    "[`KSQL_INTERNAL_COL_0`, `KSQL_INTERNAL_COL_1`, `KSQL_INTERNAL_COL_2`]"),
            Refused("the aggregate function changes over the same internal column",
                    "CREATE OR REPLACE TABLE O AS SELECT ID, MAX(ROWTIME) AS C FROM S GROUP BY ID;",
                    "Query is not upgradeable. Plan step of type StreamAggregate must have matching "
                    "aggregationFunctions. Values differ: [COUNT(KSQL_INTERNAL_COL_1)] vs. [MAX(KSQL_INTERNAL_COL_1)]"),
            Refused("a window is added", "CREATE OR REPLACE TABLE O AS SELECT ID, COUNT(*) AS C FROM S WINDOW "
                    "TUMBLING (SIZE 1 MINUTE) GROUP BY ID;",
                    "Cannot upgrade data source: DataSource '`O`' has topic = KsqlTopic{kafkaTopicName='O', "
                    "keyFormat=KeyFormat{format=FormatInfo{format=KAFKA, properties={}}, features=SerdeFeatures{"
                    "features=[]}, window=Optional.empty}"),
            Refused("the sink becomes a stream", "CREATE OR REPLACE STREAM O AS SELECT ID, V AS C FROM S;",
                    "Cannot upgrade data source: DataSource '`O`' has type = KTABLE which is not upgradeable to "
                    "KSTREAM"),
        ]
    if shape is BY_VALUE:
        return [
            Refused("the GROUP BY expression changes", "CREATE OR REPLACE TABLE O AS SELECT UCASE(W) AS W, COUNT(*) "
                    "AS C FROM S GROUP BY UCASE(W);", "Query is not upgradeable. Plan step of type StreamGroupByV2 "
                    "must have matching groupByExpressions. Values differ: [KSQL_INTERNAL_COL_0] vs. "
                    "[UCASE(KSQL_INTERNAL_COL_0)]"),
            schema("CREATE OR REPLACE TABLE O AS SELECT ID, COUNT(*) AS C FROM S GROUP BY ID;",
                   "the GROUP BY column changes", "`ID` INTEGER KEY, `C` BIGINT", KEYS_CHANGED + "`W` STRING KEY]"),
        ]
    assert shape is TABLE_COPY
    return [
        schema("CREATE OR REPLACE TABLE O AS SELECT ID, V FROM T;", "a column is removed", "`ID` INTEGER KEY, `V` INTEGER",
               COLUMNS_CHANGED + "`W` STRING]"),
        Refused("the source table changes", "CREATE OR REPLACE TABLE O AS SELECT ID, V, W FROM T2;",
                "Query is not upgradeable. Plan step of type TableSource must have matching topicName. "
                "Values differ: t vs. t2"),
        Refused("the table becomes an aggregation", "CREATE OR REPLACE TABLE O AS SELECT ID, SUM(V) AS V, "
                "CAST(COUNT(*) AS STRING) AS W FROM T GROUP BY ID;", "Query is not upgradeable. Cannot add a TableAggregate step that is not in the "
                "original query plan."),
    ]


# joins: every kind refuses any upgrade, whatever the change
JOINS = [
    ("a stream-stream join", "STREAM", "SELECT S.ID AS ID, S2.V AS V FROM S JOIN S2 WITHIN 1 MINUTE ON S.ID = S2.ID",
     "StreamStreamJoin"),
    ("a stream-table join", "STREAM", "SELECT S.ID AS ID, T.V AS V FROM S JOIN T ON S.ID = T.ID", "StreamTableJoin"),
    ("a table-table join", "TABLE", "SELECT T.ID AS ID, T2.V AS V FROM T JOIN T2 ON T.ID = T2.ID", "TableTableJoin"),
    ("a foreign-key join", "TABLE", "SELECT T.ID AS ID, T2.W AS W FROM T JOIN T2 ON T.V = T2.ID",
     "ForeignKeyTableTableJoin"),
]


# --------------------------------------------------------------------------- the cases


def _inputs(fmt: str, topic: str) -> list[dict[str, Any]]:
    return [{"topic": topic, "key": k, "value": encode(fmt, {"V": v, "W": w}), "timestamp": i}
            for i, (k, v, w) in enumerate(ROWS)]


def _accepted_case(shape: Shape, change: Accepted, fmt: str) -> Case:
    outputs = [{"topic": "O", "key": k, "value": encode(fmt, v)} for k, v in change.model.outputs(ROWS)]
    return {
        "name": f"{shape.label} - {change.label} - {fmt}",
        "statements": [*source_ddl(fmt), shape.create, change.query],
        "inputs": _inputs(fmt, shape.input_topic),
        "outputs": outputs,
        "post": {"sources": [{"name": "O", "type": shape.kind.lower(), "schema": change.schema}]},
    }


def _refused_case(shape: Shape, change: Refused, fmt: str) -> Case:
    return {
        "name": f"{shape.label} - refused: {change.label} - {fmt}",
        "statements": [*source_ddl(fmt), shape.create, change.query],
        "expectedException": {"type": EXCEPTION, "message": change.message},
    }


def _join_cases() -> list[Case]:
    cases = []
    for label, kind, query, step in JOINS:
        for change, extra in (("a filter is added", " WHERE {l}.V > 0"), ("nothing changes", "")):
            left = query.split(" FROM ")[1].split(" ")[0]
            cases.append({
                "name": f"{label} - refused: {change}",
                "statements": [*source_ddl("JSON"), f"CREATE {kind} O AS {query};",
                               f"CREATE OR REPLACE {kind} O AS {query}{extra.format(l=left)};"],
                "expectedException": {"type": EXCEPTION, "message": f"Upgrades not yet supported for {step}"},
            })
    return cases


def cases() -> list[Case]:
    out: list[Case] = []
    for shape in (PROJECTION, PARTITIONED, BY_KEY, BY_VALUE, TABLE_COPY):
        for fmt in FORMATS:
            out += [_accepted_case(shape, change, fmt) for change in accepted(shape)]
        out += [_refused_case(shape, change, "JSON") for change in refused(shape, "JSON")]
    out += [_refused_case(PROJECTION, change, fmt) for fmt in FORMATS[1:] for change in refused(PROJECTION, fmt)
            if change.label in ("the value format changes", "a column is removed",
                                "the value schema's full name changes")]
    return out + _join_cases()


if __name__ == "__main__":
    path = Path(__file__).with_name("upgrade-scope.json")
    path.write_text(json.dumps({"comments": ["Generated by gen_upgrade_scope.py - do not edit."],
                                "tests": cases()}, indent=2) + "\n")
    print(f"{len(cases())} cases -> {path}")
