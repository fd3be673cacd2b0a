"""The logical plan as a tree: its shape per statement kind, each node's expressions over the row below it,
the planning decisions recorded on the nodes, pickling."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest

from ksqlpy.analysis.query import analyze_query
from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.bound import ColumnRef, Expr
from ksqlpy.plan.logical import (
    Aggregate,
    ColumnRole,
    EmitMode,
    Filter,
    FlatMap,
    Join,
    JoinFlavor,
    JoinKind,
    PlanNode,
    Project,
    PullAccess,
    QueryKind,
    Rekey,
    ResultKind,
    Scan,
    Sink,
)
from ksqlpy.plan.partitioning import group_by_repartition
from ksqlpy.plan.pull_access import decide_access

SOURCES = [
    "CREATE STREAM S (K STRING KEY, A INT, B STRING, ARR ARRAY<INT>) "
    "WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=3);",
    "CREATE STREAM S2 (K1 STRING KEY, K2 INT KEY, V INT) "
    "WITH (KAFKA_TOPIC='s2', KEY_FORMAT='JSON', VALUE_FORMAT='JSON', PARTITIONS=3);",
    "CREATE STREAM ONE (K STRING KEY, V INT) WITH (KAFKA_TOPIC='one', VALUE_FORMAT='JSON', PARTITIONS=1);",
    "CREATE TABLE T (ID STRING PRIMARY KEY, X INT, FK STRING) WITH (KAFKA_TOPIC='t', VALUE_FORMAT='JSON', PARTITIONS=3);",
    "CREATE TABLE U (ID STRING PRIMARY KEY, Y INT) WITH (KAFKA_TOPIC='u', VALUE_FORMAT='JSON', PARTITIONS=3);",
    "CREATE TABLE W (ID STRING PRIMARY KEY, N BIGINT) WITH (KAFKA_TOPIC='w', VALUE_FORMAT='JSON', PARTITIONS=3, "
    "WINDOW_TYPE='TUMBLING', WINDOW_SIZE='10 SECONDS');",
]


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path / "data"))
    for sql in SOURCES:
        e.execute(sql)
    yield e
    e.close()


def plan(engine: Engine, sql: str, *, persistent: bool = True, pull: bool = False, sink: str | None = "OUT") -> Sink:
    (stmt,) = engine.parse(sql)
    return analyze_query(stmt.query, engine.catalog, engine.session_state(),  # type: ignore[attr-defined]
                         sink_name=sink if persistent else None, persistent=persistent, pull=pull, sql=sql)


def chain(root: PlanNode) -> list[type]:
    return [type(n) for n in root.walk()]


def refs(e: Expr) -> list[ColumnRef]:
    return [n for n in e.walk() if isinstance(n, ColumnRef)]


def reads_its_input(node: PlanNode, exprs: list[Expr]) -> None:
    """Every column an expression of ``node`` names is that column of its input's row."""
    (below,) = node.inputs
    for e in exprs:
        for r in refs(e):
            assert below.schema.columns[r.index].name == r.name


# ------------------------------------------------------------------------------------------------ shapes
def test_stateless_chain_and_schemas(engine: Engine) -> None:
    p = plan(engine, "SELECT K, EXPLODE(ARR) AS E, B FROM S WHERE A > 1 PARTITION BY B;")
    assert chain(p) == [Sink, Project, FlatMap, Rekey, Filter, Scan]
    sink, project, flat, rekey, where, scan = p.walk()
    assert isinstance(scan, Scan) and scan.source.name == "S" and scan.result_kind is ResultKind.STREAM
    assert [c.name for c in scan.schema.by_role(ColumnRole.KEY)] == ["K"]
    assert isinstance(where, Filter) and where.schema == scan.schema
    reads_its_input(where, [where.predicate])
    assert isinstance(rekey, Rekey) and rekey.names == ["B"]
    reads_its_input(rekey, rekey.exprs)
    # the old key moves into the value, the new one is the key
    assert [c.name for c in rekey.schema.by_role(ColumnRole.KEY)] == ["B"]
    assert "K" in [c.name for c in rekey.schema.by_role(ColumnRole.VALUE)]
    assert isinstance(flat, FlatMap) and [f.fn.name for f in flat.functions] == ["EXPLODE"]
    reads_its_input(flat, list(flat.functions))
    assert isinstance(project, Project) and [c.name for c in project.key] == ["B"]
    assert [c.name for c in project.value] == ["K", "E"]
    assert sink.schema == project.schema
    assert sink.query_kind is QueryKind.PERSISTENT and sink.name == "OUT"


def test_aggregate_node(engine: Engine) -> None:
    p = plan(engine, "SELECT B, COUNT(*) AS N FROM S WINDOW TUMBLING (SIZE 1 SECOND) WHERE A > 0 GROUP BY B "
                     "HAVING SUM(A) > 3 EMIT FINAL;")
    assert chain(p) == [Sink, Project, Aggregate, Filter, Scan]
    agg = p.find(Aggregate)
    reads_its_input(agg, agg.group_by + [a for c in agg.aggregates for a in c.args])
    assert agg.emit is EmitMode.FINAL and agg.window is not None and agg.window.type == "TUMBLING"
    assert [c.function for c in agg.aggregates] == ["COUNT", "SUM"]
    # HAVING reads the aggregate's own row: the key, one column per call, the window bounds, ROWTIME
    assert [c.name for c in agg.schema.columns] == ["B", "KSQL_AGG_VARIABLE_0", "KSQL_AGG_VARIABLE_1",
                                                    "WINDOWSTART", "WINDOWEND", "ROWTIME"]
    assert agg.having is not None and {r.name for r in refs(agg.having)} == {"KSQL_AGG_VARIABLE_1"}
    assert agg.result_kind is ResultKind.TABLE and agg.windowed is not None
    assert p.result_kind is ResultKind.TABLE and p.windowed is not None and p.windowed.size_ms == 1000


def test_join_tree(engine: Engine) -> None:
    p = plan(engine, "SELECT S.K AS K, T.X, U.Y FROM S JOIN T ON S.K = T.ID JOIN U ON S.K = U.ID;")
    top = p.bottom
    assert isinstance(top, Join) and top.kind is JoinKind.INNER and top.flavor is JoinFlavor.STREAM_TABLE
    inner = top.left
    assert isinstance(inner, Join) and isinstance(top.right, Scan) and top.right.source.name == "U"
    assert [s.source.name for s in p.scans] == ["S", "T", "U"]
    assert [s.index for s in top.leaves] == [0, 1, 2]
    assert inner.context == "L_" and top.context == ""
    # each step's key expressions read its sides' rows: the left input's blocks, the right source's block
    for j in (inner, top):
        left_row = [c.name for lf in j.left.leaves for c in lf.columns]  # type: ignore[attr-defined]
        assert all(left_row[r.index] == r.name for e in j.left_exprs for r in refs(e))
        assert all(j.right.columns[r.index].name == r.name for e in j.right_exprs for r in refs(e))
    # the rest of the query reads the top join's row: the join key, every block, the pseudo columns
    assert top.schema.columns[0].role is ColumnRole.KEY
    assert top.key_columns == top.schema.by_role(ColumnRole.KEY)
    assert top.width == sum(len(s.columns) for s in top.leaves)


def test_push_and_pull_roots(engine: Engine) -> None:
    push = plan(engine, "SELECT * FROM T EMIT CHANGES LIMIT 2;", persistent=False)
    assert push.query_kind is QueryKind.PUSH and push.limit == 2 and push.emit is EmitMode.CHANGES
    assert push.project.key == []  # a transient query's key columns are values
    pull = plan(engine, "SELECT * FROM T WHERE ID = 'a';", persistent=False, pull=True)
    assert pull.query_kind is QueryKind.PULL and pull.emit is None


def test_plans_pickle(engine: Engine) -> None:
    for sql in ("SELECT B, COUNT(*) AS N FROM S GROUP BY B;",
                "SELECT S.K AS K, T.X FROM S JOIN T ON S.K = T.ID;"):
        p = plan(engine, sql)
        copy = pickle.loads(pickle.dumps(p))
        assert chain(copy) == chain(p)
        assert copy.project.value == p.project.value and copy.bottom.schema == p.bottom.schema


# ------------------------------------------------------------------------------------------------ decisions
@pytest.mark.parametrize(("partition_by", "moves"), [
    ("K", False),  # the key itself
    ("B", True),
    ("UCASE(K)", True),  # an expression of the key is another key
    ("NULL", True),
])
def test_partition_by_repartition(engine: Engine, partition_by: str, moves: bool) -> None:
    p = plan(engine, f"SELECT * FROM S PARTITION BY {partition_by};")
    assert p.find(Rekey).repartition is moves


@pytest.mark.parametrize(("partition_by", "moves"), [("K1, K2", False), ("K2, K1", True), ("K1", True)])
def test_partition_by_composite_key(engine: Engine, partition_by: str, moves: bool) -> None:
    p = plan(engine, f"CREATE STREAM O WITH (KEY_FORMAT='JSON') AS SELECT * FROM S2 PARTITION BY {partition_by};")
    assert p.find(Rekey).repartition is moves


@pytest.mark.parametrize(("sql", "moves"), [
    ("SELECT K, COUNT(*) FROM S GROUP BY K;", False),  # the stream's key
    ("SELECT B, COUNT(*) FROM S GROUP BY B;", True),
    ("SELECT K, COUNT(*) FROM S WHERE A > 1 GROUP BY K;", False),  # a filter does not move rows
    ("SELECT K, COUNT(*) FROM ONE GROUP BY K;", False),
    ("SELECT V, COUNT(*) FROM ONE GROUP BY V;", True),  # one partition moves too: the plan ignores the count
    ("SELECT ID, COUNT(*) FROM T GROUP BY ID;", True),  # a table's groups always move
    ("SELECT K2, K1, COUNT(*) FROM S2 GROUP BY K2, K1;", True),  # the key's columns in another order
    ("SELECT T.ID, COUNT(*) FROM S JOIN T ON S.K = T.ID GROUP BY T.ID;", False),  # the join key (right side)
    ("SELECT S.K, COUNT(*) FROM S JOIN T ON S.K = T.ID GROUP BY S.K;", False),  # the join key (left side)
    ("SELECT T.X, COUNT(*) FROM S JOIN T ON S.K = T.ID GROUP BY T.X;", True),
    ("SELECT T.ID, COUNT(*) FROM T JOIN U ON T.FK = U.ID GROUP BY T.ID;", True),  # foreign-key results move
    ("SELECT T.ID, COUNT(*) FROM T FULL OUTER JOIN U ON T.ID = U.ID GROUP BY T.ID;", True),  # key is ROWKEY
    # (GROUP BY the synthetic key itself is refused by the analyzer: tests/cases/analysis/rowkey-scope.json)
    # an earlier join's column equal to the key is a viable key column too
    ("SELECT U.ID, COUNT(*) FROM S JOIN U ON S.K = U.ID JOIN T ON S.K = T.ID GROUP BY U.ID;", False),
    # the key column is named after the first viable column the projection selects, else the first viable one:
    # grouping by another viable column is not grouping by the key (LogicalPlanner.buildJoinKey)
    ("SELECT COUNT(*) FROM S LEFT JOIN T ON S.K = T.ID GROUP BY T.ID;", True),
    ("SELECT COUNT(*) FROM S LEFT JOIN T ON S.K = T.ID GROUP BY S.K;", False),
    ("SELECT T.ID AS I, COUNT(*) FROM S LEFT JOIN T ON S.K = T.ID GROUP BY T.ID;", False),
    # a table-table join's result is a table: KTable.groupBy, whatever it groups by
    ("SELECT T.ID, COUNT(*) FROM T JOIN U ON T.ID = U.ID GROUP BY T.ID;", True),
    ("SELECT U.ID, COUNT(*) FROM T LEFT JOIN U ON T.ID = U.ID GROUP BY U.ID;", True),
])
def test_group_by_repartition(engine: Engine, sql: str, moves: bool) -> None:
    p = plan(engine, sql, persistent=False)
    agg = p.find(Aggregate)
    assert agg.repartition is moves


def test_group_by_repartition_reads_only_the_plan(engine: Engine) -> None:
    """The decision takes the grouping and the input node, nothing about the topic's partitions."""
    agg = plan(engine, "SELECT V, COUNT(*) FROM ONE GROUP BY V;", persistent=False).find(Aggregate)
    assert group_by_repartition(agg.group_by, agg.input) is True
    agg = plan(engine, "SELECT K, COUNT(*) FROM ONE GROUP BY K;", persistent=False).find(Aggregate)
    assert group_by_repartition(agg.group_by, agg.input) is False


@pytest.mark.parametrize(("where", "access", "keys"), [
    ("ID = 'a'", PullAccess.KEY_LOOKUP, [(("a",), None, None)]),
    ("ID IN ('a', 'b')", PullAccess.KEY_LOOKUP, [(("a",), None, None), (("b",), None, None)]),
    ("ID = 'a' OR X = 1", PullAccess.TABLE_SCAN, None),
    ("X = 1", PullAccess.TABLE_SCAN, None),
    (None, PullAccess.TABLE_SCAN, None),
])
def test_pull_access(engine: Engine, where: str | None, access: PullAccess, keys: list | None) -> None:
    sql = "SELECT * FROM T" + (f" WHERE {where}" if where else "") + ";"
    p = plan(engine, sql, persistent=False, pull=True)
    (stmt,) = engine.parse(sql)
    scan = decide_access(p, stmt.query.where, {}, {})  # type: ignore[attr-defined]
    assert scan is p.bottom and scan.access is access and scan.lookup == keys


def test_pull_access_windowed_range(engine: Engine) -> None:
    sql = "SELECT * FROM W WHERE ID = 'a' AND WINDOWSTART >= 10000 AND WINDOWEND <= 40000;"
    p = plan(engine, sql, persistent=False, pull=True)
    (stmt,) = engine.parse(sql)
    scan = decide_access(p, stmt.query.where, {}, {})  # type: ignore[attr-defined]
    assert scan.lookup == [(("a",), 10000, 30000)]  # WINDOWEND <= 40000: starts at most 40000 - size


def test_pull_scan_refused_when_disabled(engine: Engine) -> None:
    sql = "SELECT * FROM T WHERE X = 1;"
    p = plan(engine, sql, persistent=False, pull=True)
    (stmt,) = engine.parse(sql)
    with pytest.raises(KsqlStatementError, match="WHERE clause missing key column"):
        decide_access(p, stmt.query.where, {"ksql.query.pull.table.scan.enabled": "false"}, {})  # type: ignore[attr-defined]
    # a ksql.* property has one name: with the streams prefix it is another (unknown) property
    decide_access(p, stmt.query.where, {"ksql.streams.ksql.query.pull.table.scan.enabled": False}, {})  # type: ignore[attr-defined]


@pytest.mark.parametrize(("where", "keys"), [
    # NOT is pushed down to the comparisons before the WHERE is read (ksqlDB's LogicRewriter.rewriteNegations)
    ("NOT ID <> 'a'", [(("a",), None, None)]),
    ("NOT (ID <> 'a' AND ID <> 'b')", [(("a",), None, None), (("b",), None, None)]),
    ("ID = 'a' AND NOT WINDOWSTART < 10000", [(("a",), 10000, None)]),
    ("ID = 'a' AND NOT NOT WINDOWSTART <= 10000", [(("a",), None, 10000)]),
])
def test_pull_access_negations(engine: Engine, where: str, keys: list) -> None:
    sql = f"SELECT * FROM W WHERE {where};"
    p = plan(engine, sql, persistent=False, pull=True)
    (stmt,) = engine.parse(sql)
    where_before = stmt.query.where.sql()  # type: ignore[attr-defined]
    scan = decide_access(p, stmt.query.where, {"ksql.query.pull.table.scan.enabled": False}, {})  # type: ignore[attr-defined]
    assert scan.access is PullAccess.KEY_LOOKUP and scan.lookup == keys
    assert stmt.query.where.sql() == where_before  # type: ignore[attr-defined]  # the WHERE itself is unchanged


@pytest.mark.parametrize(("where", "reason"), [
    ("ID = 'a' AND WINDOWSTART != 10000", "Unsupported WINDOWSTART bounds: NOT_EQUAL"),
    ("ID = 'a' AND 10000 <> WINDOWEND", "Unsupported WINDOWEND bounds: NOT_EQUAL"),
    ("ID = 'a' AND NOT WINDOWSTART = 10000", "Unsupported WINDOWSTART bounds: NOT_EQUAL"),
    ("ID = 'a' AND WINDOWSTART IS DISTINCT FROM 10000", "Unsupported WINDOWSTART bounds: IS_DISTINCT_FROM"),
    ("ID = 'a' AND WINDOWEND IS NOT DISTINCT FROM 10000", "Unsupported WINDOWEND bounds: IS_NOT_DISTINCT_FROM"),
    ("NOT ID = 'a'", "Bound on key columns '[`ID` STRING KEY]' must currently be '='"),
])
def test_pull_window_bound_operators(engine: Engine, where: str, reason: str) -> None:
    """Window bounds take =, <, <=, >, >= only: anything else needs a scan (QueryFilterNode's
    VALID_WINDOW_BOUND_COMPARISONS); with scans on the WHERE filters what a scan reads."""
    sql = f"SELECT * FROM W WHERE {where};"
    p = plan(engine, sql, persistent=False, pull=True)
    (stmt,) = engine.parse(sql)
    with pytest.raises(KsqlStatementError) as e:
        decide_access(p, stmt.query.where, {"ksql.query.pull.table.scan.enabled": False}, {})  # type: ignore[attr-defined]
    assert str(e.value).startswith(reason + ". See https://cnfl.io/queries")
    assert decide_access(p, stmt.query.where, {}, {}).access is PullAccess.TABLE_SCAN  # type: ignore[attr-defined]


@pytest.mark.parametrize(("where", "keys"), [
    # a key value that is no literal is resolved once with the key column's type (GenericExpressionResolver)
    ("ID = CONCAT('a', 'b')", [(("ab",), None, None)]),
    ("ID IN (LCASE('A'), 'b')", [(("a",), None, None), (("b",), None, None)]),
])
def test_pull_key_values_that_are_expressions(engine: Engine, where: str, keys: list) -> None:
    sql = f"SELECT * FROM T WHERE {where};"
    p = plan(engine, sql, persistent=False, pull=True)
    (stmt,) = engine.parse(sql)
    assert decide_access(p, stmt.query.where, {}, {}).lookup == keys  # type: ignore[attr-defined]


@pytest.mark.parametrize(("where", "message"), [
    # the resolver's texts, as INSERT VALUES gives them (a literal keeps resolveKey's own text)
    ("ID = CAST(1 AS BIGINT)", r"Expected type INTEGER for field `ID` but got BIGINT\(1\)"),
    ("ID IN (1, 2.0 - 1)", r"Expected type INTEGER for field `ID` but got DECIMAL\(1.0\)"),
    ("ID = CAST(NULL AS INT)", r"Primary key columns can not be NULL: \(ID = CAST\(null AS INTEGER\)\)"),
    ("ID = 1.5", "'1.5' can not be converted to the type of the key column: ID INTEGER KEY"),
    ("ID = CAST('x' AS INT)", "^$"),  # evaluation failed: the resolver gives no reason
])
def test_pull_key_values_refused(engine: Engine, where: str, message: str) -> None:
    engine.execute("CREATE TABLE TI (ID INT PRIMARY KEY, X INT) WITH (KAFKA_TOPIC='ti', VALUE_FORMAT='JSON', "
                   "PARTITIONS=1);")
    sql = f"SELECT * FROM TI WHERE {where};"
    (stmt,) = engine.parse(sql)
    with pytest.raises(KsqlStatementError, match=message):
        decide_access(plan(engine, sql, persistent=False, pull=True), stmt.query.where, {}, {})  # type: ignore[attr-defined]
