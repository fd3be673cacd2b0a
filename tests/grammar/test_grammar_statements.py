"""Each statement kind of the ksql dialect comes out as the right ast dataclass."""

from __future__ import annotations

import pytest
from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import ast as A
from ksqlpy.grammar import parse, parse_one


def col(name: str, table: str | None = None) -> exp.Column:
    if table is None:
        return exp.Column(this=exp.Identifier(this=name))
    return exp.Column(this=exp.Identifier(this=name), table=exp.Identifier(this=table))


# --------------------------------------------------------------------------- CREATE


def test_create_stream_with_columns_and_properties() -> None:
    stmt = parse_one(
        "CREATE STREAM pageviews (id BIGINT KEY, `Url` STRING, tags ARRAY<VARCHAR>) "
        "WITH (kafka_topic='pv', value_format='JSON', partitions=3, wrap_single_value=false);"
    )
    assert isinstance(stmt, A.CreateSource)
    assert (stmt.kind, stmt.name, stmt.is_source, stmt.or_replace) == ("STREAM", "PAGEVIEWS", False, False)
    assert [(c.name, c.type, c.key) for c in stmt.columns] == [
        ("ID", T.BIGINT, True),
        ("Url", T.STRING, False),
        ("TAGS", T.Array(T.STRING), False),
    ]
    assert stmt.properties == {
        "KAFKA_TOPIC": "pv",
        "VALUE_FORMAT": "JSON",
        "PARTITIONS": 3,
        "WRAP_SINGLE_VALUE": False,
    }


def test_create_or_replace_source_table_if_not_exists_with_header_columns() -> None:
    stmt = parse_one(
        "CREATE OR REPLACE SOURCE TABLE IF NOT EXISTS users (uid INT PRIMARY KEY, "
        "hs ARRAY<STRUCT<key STRING, value BYTES>> HEADERS, trace BYTES HEADER('trace-id')) "
        "WITH (kafka_topic='users', format='AVRO')"
    )
    assert isinstance(stmt, A.CreateSource)
    assert (stmt.kind, stmt.or_replace, stmt.if_not_exists, stmt.is_source) == ("TABLE", True, True, True)
    uid, hs, trace = stmt.columns
    assert uid.key and uid.primary_key
    assert hs.headers and hs.type == T.Array(T.Struct((("KEY", T.STRING), ("VALUE", T.BYTES))))
    assert trace.header_key == "trace-id" and not trace.key


def test_create_without_columns_leaves_schema_to_inference() -> None:
    stmt = parse_one("CREATE STREAM s WITH (kafka_topic='t', value_format='AVRO')")
    assert isinstance(stmt, A.CreateSource) and stmt.columns == []


def test_key_constraint_must_match_source_kind() -> None:
    with pytest.raises(KsqlParseError, match=r"Column `ID` is a 'KEY' column: please use 'PRIMARY KEY'") as e:
        parse("CREATE TABLE t (id INT KEY) WITH (kafka_topic='t', format='JSON');")
    assert (e.value.line, e.value.column) == (1, 17)
    with pytest.raises(KsqlParseError, match="please use 'KEY' for streams"):
        parse("CREATE STREAM s (id INT PRIMARY KEY) WITH (kafka_topic='t', format='JSON');")


def test_invalid_window_size_property_is_a_parse_error() -> None:
    with pytest.raises(KsqlParseError, match="Unknown time unit: 'FORTNIGHTS'"):
        parse(
            "CREATE TABLE t (k INT PRIMARY KEY) WITH (kafka_topic='t', format='JSON', "
            "window_type='TUMBLING', window_size='2 fortnights');"
        )
    stmt = parse_one("CREATE TABLE t (k INT PRIMARY KEY) WITH (kafka_topic='t', window_type='HOPPING', window_size='20 seconds')")
    assert isinstance(stmt, A.CreateSource) and stmt.properties["WINDOW_SIZE"] == "20 seconds"


def test_create_as_select() -> None:
    stmt = parse_one(
        "CREATE TABLE counts WITH (partitions=2) AS SELECT k, COUNT(*) AS n FROM s GROUP BY k EMIT CHANGES;"
    )
    assert isinstance(stmt, A.CreateAsSelect)
    assert (stmt.kind, stmt.name, stmt.properties) == ("TABLE", "COUNTS", {"PARTITIONS": 2})
    assert stmt.query.emit == "CHANGES" and stmt.query.group_by == [col("K")]
    assert stmt.query.select[1].alias == "N"


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE STREAM s (a INT) AS SELECT * FROM t;",  # no column list on CSAS
        "CREATE SOURCE STREAM s AS SELECT * FROM t;",  # no SOURCE on CSAS
    ],
)
def test_create_as_select_rejects_columns_and_source(sql: str) -> None:
    with pytest.raises(KsqlParseError):
        parse(sql)


def test_create_and_drop_type() -> None:
    stmt = parse_one("CREATE TYPE IF NOT EXISTS address AS STRUCT<street STRING, zip INT>;")
    assert isinstance(stmt, A.CreateType) and stmt.if_not_exists
    assert stmt.name == "ADDRESS" and stmt.type == T.Struct((("STREET", T.STRING), ("ZIP", T.INTEGER)))
    drop = parse_one("DROP TYPE IF EXISTS address")
    assert drop == A.DropType(name="ADDRESS", if_exists=True, text="DROP TYPE IF EXISTS address")


def test_connectors() -> None:
    stmt = parse_one(
        "CREATE SOURCE CONNECTOR IF NOT EXISTS `jdbc-src` WITH ('connector.class'='io.x.Jdbc', 'tasks.max'=1)"
    )
    assert isinstance(stmt, A.CreateConnector)
    assert (stmt.name, stmt.source, stmt.if_not_exists) == ("jdbc-src", True, True)
    assert stmt.properties == {"connector.class": "io.x.Jdbc", "tasks.max": 1}  # connector keys keep case
    sink = parse_one("CREATE SINK CONNECTOR es WITH ('topics'='t')")
    assert isinstance(sink, A.CreateConnector) and not sink.source
    drop = parse_one("DROP CONNECTOR IF EXISTS es")
    assert isinstance(drop, A.DropConnector) and drop.if_exists and drop.name == "ES"


# --------------------------------------------------------------------------- INSERT


def test_insert_into_select_with_query_id() -> None:
    stmt = parse_one("INSERT INTO sink WITH (QUERY_ID='my_q') SELECT * FROM src;")
    assert isinstance(stmt, A.InsertInto)
    assert stmt.target == "SINK" and stmt.properties == {"QUERY_ID": "my_q"}
    assert stmt.query.source == A.SourceRef("SRC")
    assert isinstance(parse_one("INSERT INTO sink SELECT * FROM src"), A.InsertInto)


def test_insert_values() -> None:
    stmt = parse_one("INSERT INTO s (id, ROWTIME, `name`) VALUES (1, 1600000000000, 'x');")
    assert isinstance(stmt, A.InsertValues)
    assert stmt.columns == ["ID", "ROWTIME", "name"]
    assert stmt.values == [exp.Literal.number(1), exp.Literal.number(1600000000000), exp.Literal.string("x")]
    no_columns = parse_one("INSERT INTO s VALUES (-1, ARRAY[1, 2])")
    assert isinstance(no_columns, A.InsertValues) and no_columns.columns is None
    assert no_columns.values[0] == exp.Literal(this="-1", is_string=False)


# --------------------------------------------------------------------------- SELECT


def test_pull_query_has_no_emit() -> None:
    stmt = parse_one("SELECT * FROM t WHERE k = 'a' LIMIT 10;")
    assert isinstance(stmt, A.SelectStatement)
    assert stmt.query.emit is None and stmt.query.limit == 10
    assert stmt.query.where == exp.EQ(this=col("K"), expression=exp.Literal.string("a"))


def test_select_items_and_aliases() -> None:
    query = parse_one("SELECT *, s.*, rec->*, a + 1 AS plus, b total, `c` FROM src s EMIT CHANGES").query
    items = query.select
    assert items[0].expr == exp.Star()
    assert items[1].expr == exp.Column(this=exp.Star(), table=exp.Identifier(this="S"))
    assert items[2].expr == A.Dereference(this=col("REC"), field="*")
    assert (items[3].alias, items[4].alias, items[5].alias) == ("PLUS", "TOTAL", None)
    assert items[5].expr == col("c")
    assert query.source == A.SourceRef("SRC", "S")


def test_joins_with_within_and_grace() -> None:
    query = parse_one(
        "SELECT * FROM orders o "
        "JOIN shipments AS s WITHIN 1 HOUR ON o.id = s.order_id "
        "LEFT OUTER JOIN refunds r WITHIN (10 SECONDS, 2 MINUTES) GRACE PERIOD 500 MILLISECONDS ON o.id = r.id "
        "RIGHT JOIN x ON o.id = x.id FULL OUTER JOIN y ON o.id = y.id INNER JOIN z ON o.id = z.id "
        "EMIT CHANGES"
    ).query
    assert [j.kind for j in query.joins] == ["INNER", "LEFT", "RIGHT", "FULL", "INNER"]
    first, second = query.joins[:2]
    assert first.right == A.SourceRef("SHIPMENTS", "S")
    assert first.within == A.WithinSpec(3_600_000, 3_600_000)
    assert first.on == exp.EQ(this=col("ID", "O"), expression=col("ORDER_ID", "S"))
    assert second.within == A.WithinSpec(10_000, 120_000, 500)
    assert query.joins[2].within is None


@pytest.mark.parametrize(("duration", "ms"), [("1000000000000 DAYS", 2**63 - 1), ("-1000000000000 DAYS", -(2**63)),
                                             ("9223372036854775807 MILLISECONDS", 2**63 - 1),
                                             ("106751991167 DAYS", 106751991167 * 86_400_000)])
def test_durations_in_ms_saturate_as_time_unit_to_millis(duration: str, ms: int) -> None:
    query = parse_one(f"SELECT * FROM A JOIN B WITHIN {duration} ON A.ID = B.ID EMIT CHANGES").query
    assert query.joins[0].within == A.WithinSpec(ms, ms)


@pytest.mark.parametrize(
    ("window", "spec"),
    [
        ("TUMBLING (SIZE 30 SECONDS)", A.WindowSpec("TUMBLING", 30_000)),
        (
            "TUMBLING (SIZE 1 MINUTE, RETENTION 2 DAYS, GRACE PERIOD 10 SECONDS)",
            A.WindowSpec("TUMBLING", 60_000, retention_ms=172_800_000, grace_ms=10_000),
        ),
        (
            "HOPPING (SIZE 1 HOUR, ADVANCE BY 5 MINUTES)",
            A.WindowSpec("HOPPING", 3_600_000, advance_ms=300_000),
        ),
        ("SESSION (5 MINUTES, GRACE PERIOD 0 MILLISECONDS)", A.WindowSpec("SESSION", 300_000, grace_ms=0)),
    ],
)
def test_windows_convert_to_milliseconds(window: str, spec: A.WindowSpec) -> None:
    query = parse_one(f"SELECT k, COUNT(*) FROM s WINDOW {window} GROUP BY k EMIT FINAL").query
    assert query.window == spec and query.emit == "FINAL"


def test_window_clause_order_is_fixed() -> None:
    with pytest.raises(KsqlParseError):
        parse(
            "SELECT k FROM s WINDOW TUMBLING (SIZE 1 SECOND, GRACE PERIOD 1 SECOND, RETENTION 1 DAY) GROUP BY k;"
        )


def test_group_by_and_partition_by_forms() -> None:
    assert parse_one("SELECT * FROM s GROUP BY (a, b)").query.group_by == [col("A"), col("B")]
    assert parse_one("SELECT * FROM s GROUP BY a, b HAVING COUNT(*) > 1").query.group_by == [
        col("A"),
        col("B"),
    ]
    assert parse_one("SELECT * FROM s PARTITION BY ()").query.partition_by == []
    paren_expr = parse_one("SELECT * FROM s PARTITION BY (a) + 1").query.partition_by
    assert paren_expr == [exp.Add(this=col("A"), expression=exp.Literal.number(1))]
    is_null = parse_one("SELECT * FROM s GROUP BY (a IS NULL)").query.group_by
    assert is_null == [exp.Is(this=col("A"), expression=exp.Null())]
    # ksqlDB's GROUP BY takes value expressions: no boolean connectives, no nested tuples.
    for sql in ("SELECT * FROM s GROUP BY a AND b;", "SELECT * FROM s GROUP BY a, (b, c);"):
        with pytest.raises(KsqlParseError):
            parse(sql)


def test_limit_must_be_an_integer() -> None:
    with pytest.raises(KsqlParseError) as info:
        parse("SELECT * FROM s LIMIT 2.5;")
    # ksqlDB's wording has no position; the error still carries it
    assert str(info.value) == "Failed to prepare statement: Value must be integer for command: LIMIT"
    assert (info.value.line, info.value.column) == (1, 23)
    assert parse_one("SELECT * FROM s LIMIT -1").query.limit == -1  # rejected later, by the engine


@pytest.mark.parametrize(("sql", "command"), [
    ("SELECT * FROM s LIMIT 2147483648;", "LIMIT"),
    ("SELECT * FROM s EMIT CHANGES LIMIT 10000000000;", "LIMIT"),
    ("PRINT t LIMIT 2147483648;", "LIMIT"),
    ("PRINT t FROM BEGINNING INTERVAL 2147483648;", "INTERVAL"),
    ("PRINT t SAMPLE 2147483648 LIMIT 1;", "INTERVAL"),
    ("PRINT t INTERVAL 1e3;", "INTERVAL"),
])
def test_a_count_beyond_int_is_no_integer(sql: str, command: str) -> None:
    # ParserUtil.visitIntegerLiteral makes a LongLiteral of an integer beyond INT, which processIntegerNumber
    # refuses as it refuses a decimal
    with pytest.raises(KsqlParseError) as info:
        parse(sql)
    assert str(info.value) == f"Failed to prepare statement: Value must be integer for command: {command}"
    assert parse_one(sql.replace("2147483648", "2147483647").replace("10000000000", "2147483647")
                     .replace("1e3", "1000")) is not None


def test_a_count_beyond_bigint_is_no_literal() -> None:
    with pytest.raises(KsqlParseError) as info:
        parse("SELECT * FROM s LIMIT 9223372036854775808;")
    assert "Invalid numeric literal: 9223372036854775808" in str(info.value)


def test_implicit_alias_never_swallows_a_clause() -> None:
    query = parse_one("SELECT * FROM s EMIT CHANGES").query
    assert query.source.alias is None and query.emit == "CHANGES"
    query = parse_one("SELECT * FROM s PARTITION BY x").query
    assert query.source.alias is None and query.partition_by == [col("X")]


# --------------------------------------------------------------------------- metadata statements


@pytest.mark.parametrize(
    ("sql", "what", "extended"),
    [
        ("SHOW STREAMS", "STREAMS", False),
        ("LIST TABLES EXTENDED", "TABLES", True),
        ("SHOW TOPICS", "TOPICS", False),
        ("SHOW ALL TOPICS EXTENDED", "ALL_TOPICS", True),
        ("show queries extended", "QUERIES", True),
        ("SHOW PROPERTIES", "PROPERTIES", False),
        ("SHOW FUNCTIONS", "FUNCTIONS", False),
        ("LIST TYPES", "TYPES", False),
        ("SHOW VARIABLES", "VARIABLES", False),
        ("SHOW CONNECTORS", "CONNECTORS", False),
        ("SHOW SINK CONNECTORS", "SINK_CONNECTORS", False),
        ("SHOW SOURCE CONNECTORS", "SOURCE_CONNECTORS", False),
        ("SHOW CONNECTOR PLUGINS", "CONNECTOR_PLUGINS", False),
    ],
)
def test_show_and_list(sql: str, what: str, extended: bool) -> None:
    stmt = parse_one(sql)
    assert isinstance(stmt, A.Show) and (stmt.what, stmt.extended) == (what, extended)


def test_describe_variants() -> None:
    assert parse_one("DESCRIBE pageviews EXTENDED") == A.Describe(
        name="PAGEVIEWS", extended=True, text="DESCRIBE pageviews EXTENDED"
    )
    streams = parse_one("DESCRIBE STREAMS EXTENDED")
    assert isinstance(streams, A.Describe) and (streams.name, streams.what, streams.extended) == (
        None,
        "STREAMS",
        True,
    )
    fn = parse_one("DESCRIBE FUNCTION substring")
    assert isinstance(fn, A.Describe) and (fn.what, fn.name) == ("FUNCTION", "SUBSTRING")
    conn = parse_one("DESCRIBE CONNECTOR `my-conn`")
    assert isinstance(conn, A.Describe) and (conn.what, conn.name) == ("CONNECTOR", "my-conn")
    # FUNCTION is not reserved: alone it names a source.
    source = parse_one("DESCRIBE function")
    assert isinstance(source, A.Describe) and (source.what, source.name) == ("SOURCE", "FUNCTION")


def test_explain_query_id_or_statement() -> None:
    by_id = parse_one("EXPLAIN CSAS_OUT_3;")
    assert isinstance(by_id, A.Explain) and by_id.query_id == "CSAS_OUT_3" and by_id.statement is None
    inner = parse_one("EXPLAIN\n  SELECT * FROM s EMIT CHANGES;")
    assert isinstance(inner, A.Explain) and isinstance(inner.statement, A.SelectStatement)
    assert inner.statement.text == "SELECT * FROM s EMIT CHANGES"
    assert (inner.statement.line, inner.statement.column) == (2, 3)


def test_query_lifecycle() -> None:
    assert parse_one("TERMINATE ALL") == A.Terminate(query_id=None, text="TERMINATE ALL")
    assert parse_one("TERMINATE csas_x_1").query_id == "CSAS_X_1"  # type: ignore[attr-defined]
    pause = parse_one("PAUSE ALL")
    assert isinstance(pause, A.PauseResume) and (pause.action, pause.query_id) == ("PAUSE", None)
    resume = parse_one("RESUME `q1`")
    assert isinstance(resume, A.PauseResume) and (resume.action, resume.query_id) == ("RESUME", "q1")


def test_drop_source() -> None:
    stmt = parse_one("DROP TABLE IF EXISTS t DELETE TOPIC;")
    assert stmt == A.Drop(
        kind="TABLE", name="T", if_exists=True, delete_topic=True, text="DROP TABLE IF EXISTS t DELETE TOPIC;"
    )
    assert parse_one("DROP STREAM s").delete_topic is False  # type: ignore[attr-defined]


def test_alter_source_adds_columns() -> None:
    stmt = parse_one("ALTER STREAM s ADD COLUMN c1 INT, ADD c2 MAP<STRING, DOUBLE>;")
    assert isinstance(stmt, A.AlterSource) and (stmt.kind, stmt.name) == ("STREAM", "S")
    assert [(c.name, c.type) for c in stmt.columns] == [("C1", T.INTEGER), ("C2", T.Map(T.STRING, T.DOUBLE))]


def test_session_statements() -> None:
    assert parse_one("SET 'auto.offset.reset' = 'earliest';") == A.SetProperty(
        name="auto.offset.reset", value="earliest", text="SET 'auto.offset.reset' = 'earliest';"
    )
    assert parse_one("UNSET 'auto.offset.reset'").name == "auto.offset.reset"  # type: ignore[attr-defined]
    define = parse_one("DEFINE topicName = 'it''s';")
    assert isinstance(define, A.DefineVariable) and (define.name, define.value) == ("topicName", "it's")
    assert isinstance(parse_one("UNDEFINE topicName"), A.UndefineVariable)


def test_print_topic() -> None:
    stmt = parse_one("PRINT 'Mixed-Case' FROM BEGINNING INTERVAL 3 LIMIT 5;")
    assert stmt == A.PrintTopic(
        topic="Mixed-Case",
        from_beginning=True,
        interval=3,
        limit=5,
        text="PRINT 'Mixed-Case' FROM BEGINNING INTERVAL 3 LIMIT 5;",
    )
    bare = parse_one("PRINT pageviews SAMPLE 2")
    assert (
        isinstance(bare, A.PrintTopic) and bare.topic == "pageviews" and bare.interval == 2
    )  # topic names keep case


def test_assert_topic_and_schema() -> None:
    topic = parse_one("ASSERT NOT EXISTS TOPIC 'x' WITH (partitions=1, replicas=1) TIMEOUT 3 SECONDS;")
    assert isinstance(topic, A.AssertTopic)
    assert (topic.topic, topic.exists, topic.properties, topic.timeout_ms) == (
        "x",
        False,
        {"PARTITIONS": 1, "REPLICAS": 1},
        3000,
    )
    schema = parse_one("ASSERT SCHEMA SUBJECT 'x-value' ID 4")
    assert isinstance(schema, A.AssertSchema) and (schema.subject, schema.schema_id, schema.exists) == (
        "x-value",
        4,
        True,
    )
    with pytest.raises(KsqlParseError, match="subject name or an id"):
        parse("ASSERT SCHEMA TIMEOUT 1 SECOND;")
    with pytest.raises(KsqlParseError, match="'VALUES'"):
        parse("ASSERT VALUES s (a) VALUES (1);")


def test_run_script_is_cli_only() -> None:
    assert parse_one("RUN SCRIPT '/tmp/setup.sql'") == A.RunScript(
        path="/tmp/setup.sql", text="RUN SCRIPT '/tmp/setup.sql'"
    )
    with pytest.raises(KsqlParseError, match="Unknown statement 'RUN'"):
        parse("RUN SCRIPT 'x.sql';", allow_run_script=False)


# --------------------------------------------------------------------------- scripts


def test_script_statements_carry_text_and_position() -> None:
    script = "-- setup\nSET 'a'='b';\n\n  SHOW STREAMS;  /* trailing */ SELECT 1 AS one\nFROM s"
    first, second, third = parse(script)
    assert (first.text, first.line, first.column) == ("SET 'a'='b';", 2, 1)
    assert (second.text, second.line, second.column) == ("SHOW STREAMS;", 4, 3)
    assert (third.text, third.line, third.column) == ("SELECT 1 AS one\nFROM s", 4, 33)


def test_semicolons_inside_strings_and_names_do_not_split() -> None:
    stmts = parse("SELECT ';' AS `a;b` FROM s; SHOW TABLES;")
    assert len(stmts) == 2 and stmts[0].text == "SELECT ';' AS `a;b` FROM s;"


def test_empty_script_and_empty_statements() -> None:
    assert parse("") == []
    assert parse("  -- nothing\n /* here */ ") == []
    assert len(parse("SHOW STREAMS; -- trailing comment\n")) == 1


# ksqlDB's grammar is ``statements: singleStatement* EOF`` with ``singleStatement: statement ';'``: a ';' where a
# statement should start is a syntax error whose expected set is the statement keywords (an unknown statement)
@pytest.mark.parametrize(("script", "line", "column", "statement"), [
    (";", 1, 1, ";"),
    (";;", 1, 1, ";;"),
    ("SHOW STREAMS;;", 1, 14, "SHOW STREAMS;;"),
    ("SHOW STREAMS; ;SHOW TABLES;", 1, 15, "SHOW STREAMS; ;SHOW TABLES;"),
    ("SHOW STREAMS;\n  ;", 2, 3, "  ;"),
    ("-- a comment\n;", 2, 1, ";"),
    ("/* block */ ;", 1, 13, "/* block */ ;"),
    ("CREATE STREAM s (a INT) WITH (kafka_topic='s', value_format='JSON');\n;\nSHOW TABLES;", 2, 1, ";"),
])
def test_an_empty_statement_is_a_syntax_error(script: str, line: int, column: int, statement: str) -> None:
    with pytest.raises(KsqlParseError) as info:
        parse(script)
    e = info.value
    assert (e.line, e.column) == (line, column)
    assert e.message == (f"line {line}:{column}: Syntax Error\nUnknown statement ';'\nDid you mean 'SET'?\n"
                         f"Statement: {statement}")
