"""The switches that turn pull queries off (engine/pull.py ``_check_enabled``): ``ksql.pull.queries.enable``
as the server is configured - a session or request override does not change it, as ksqlDB's QueryExecutor
reads the server's config -, and ``ksql.query.pull.stream.enabled`` for streams, overrides included. Both
refuse only a query that analyses: its analysis error comes first."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest

from ksqlpy.engine.engine import Engine
from ksqlpy.errors import KsqlStatementError

SETUP = ("CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
         "CREATE TABLE A AS SELECT ID, COUNT(*) AS C FROM S GROUP BY ID;")
DISABLED = ("Pull queries are disabled. See https://cnfl.io/queries for more info.\nAdd EMIT CHANGES if you "
            "intended to issue a push query.\nPlease set ksql.pull.queries.enable=true to enable this feature.\n")
STREAMS_DISABLED = ("Pull queries on streams are disabled. To create a push query on the stream, add EMIT CHANGES "
                    "to the end. To enable pull queries on streams, set the ksql.query.pull.stream.enabled config "
                    "to 'true'.")


_dirs = itertools.count()


@pytest.fixture
def engine(tmp_path: Path) -> Callable[..., Engine]:
    """An engine configured with ``config`` (``_`` for ``.`` in names), the stream S and its aggregation A."""
    def make(**config: str) -> Engine:
        e = Engine(str(tmp_path / f"e{next(_dirs)}"), {k.replace("_", "."): v for k, v in config.items()})
        e.execute(SETUP)
        return e
    return make


@pytest.mark.parametrize("sql", ["SELECT * FROM A WHERE ID = 1;", "SELECT * FROM A;", "SELECT * FROM S;"])
def test_pull_queries_disabled_by_the_server_config(engine: Callable[..., Engine], sql: str) -> None:
    e = engine(ksql_pull_queries_enable="false")
    with pytest.raises(KsqlStatementError) as err:
        e.execute(sql)
    assert str(err.value) == DISABLED
    with pytest.raises(KsqlStatementError) as err:  # a request cannot turn them back on
        e.execute(sql, {"ksql.pull.queries.enable": "true"})
    assert str(err.value) == DISABLED
    e.execute("SELECT * FROM S EMIT CHANGES LIMIT 0;")  # push queries are not pull queries


def test_an_override_does_not_disable_pull_queries(engine: Callable[..., Engine]) -> None:
    e = engine()
    e.execute("SELECT * FROM A;", {"ksql.pull.queries.enable": "false"})


def test_analysis_errors_come_before_the_switches(engine: Callable[..., Engine]) -> None:
    e = engine(ksql_pull_queries_enable="false")
    with pytest.raises(KsqlStatementError, match="SELECT column 'NOPE' cannot be resolved"):
        e.execute("SELECT NOPE FROM A;")
    e = engine()
    with pytest.raises(KsqlStatementError, match="SELECT column 'NOPE' cannot be resolved"):
        e.execute("SELECT NOPE FROM S;", {"ksql.query.pull.stream.enabled": "false"})


TYPING_ERRORS = ["SELECT * FROM {} WHERE V = 'x';", "SELECT * FROM {} WHERE ID;", "SELECT NOSUCHFN(ID) FROM {};",
                 "SELECT ID + 'x' FROM {};"]


@pytest.mark.parametrize("sql", TYPING_ERRORS)
def test_the_switches_come_before_logical_planning(engine: Callable[..., Engine], sql: str) -> None:
    """ksqlDB's QueryExecutor checks ``ksql.pull.queries.enable`` after the analysis and before
    executeTablePullQuery / createStreamPullQuery plan the query (typing WHERE and the select items, resolving
    functions); the stream switch is the first thing createStreamPullQuery checks: a query whose planning
    would fail is refused by the switch."""
    e = engine(ksql_pull_queries_enable="false")
    for source in ("A", "S"):
        with pytest.raises(KsqlStatementError) as err:
            e.execute(sql.format(source).replace("V = 'x'", "C = 'x'" if source == "A" else "V = 'x'"))
        assert str(err.value) == DISABLED
    e = engine()
    with pytest.raises(KsqlStatementError) as err:
        e.execute(sql.format("S"), {"ksql.query.pull.stream.enabled": "false"})
    assert str(err.value) == STREAMS_DISABLED
    with pytest.raises(KsqlStatementError) as err:  # switched on, the planning's error
        e.execute(sql.format("S"))
    assert str(err.value) not in (DISABLED, STREAMS_DISABLED)


def test_stream_pull_queries_switch_follows_overrides(engine: Callable[..., Engine]) -> None:
    e = engine()
    for props in ({"ksql.query.pull.stream.enabled": "false"}, {"ksql.query.pull.stream.enabled": "FALSE"}):
        with pytest.raises(KsqlStatementError) as err:
            e.execute("SELECT * FROM S WHERE ID = 1;", props)
        assert str(err.value) == STREAMS_DISABLED
        e.execute("SELECT * FROM A WHERE ID = 1;", props)  # tables are not concerned
    e = engine(ksql_query_pull_stream_enabled="false")
    with pytest.raises(KsqlStatementError, match="Pull queries on streams are disabled"):
        e.execute("SELECT * FROM S;")
    e.execute("SELECT * FROM S;", {"ksql.query.pull.stream.enabled": "true"})


@pytest.mark.parametrize("name, bad, reason", [
    ("ksql.query.pull.stream.enabled", "nah", "Expected value to be either true or false"),
    ("ksql.query.pull.range.scan.enabled", "1", "Expected value to be either true or false"),
    ("ksql.query.pull.limit.clause.enabled", "yes", "Expected value to be either true or false"),
    ("ksql.query.push.v2.enabled", "x", "Expected value to be either true or false"),
    ("ksql.pull.queries.enable", "no", "Expected value to be either true or false"),
    ("ksql.query.pull.max.qps", "fast", "Not a number of type INT"),
    ("ksql.query.pull.forwarding.timeout.ms", "1.5", "Not a number of type LONG"),
])
def test_pull_and_push_switches_are_typed(engine: Callable[..., Engine], name: str, bad: str, reason: str) -> None:
    """A request's value for a pull or push switch is read by its config type, as ksqlDB parses overrides:
    one that is not of it is refused naming the setting, before the query runs."""
    e = engine()
    with pytest.raises(KsqlStatementError) as err:
        e.execute("SELECT * FROM A;", {name: bad})
    assert str(err.value) == f"Invalid value {bad} for configuration {name}: {reason}"
    e.execute("SELECT * FROM A;", {name: "TRUE" if reason.endswith("false") else "5"})


SCAN_REFUSED = "Query requires table scan to be enabled. See https://cnfl.io/queries for more info."
SCANS = ["SELECT * FROM A;", "SELECT * FROM A WHERE C > 0;", "SELECT * FROM A WHERE ID > 0;",
         "CHECK:SELECT * FROM A;", "EXPLAIN SELECT * FROM A;"]


def _run(e: Engine, sql: str, props: dict[str, str] | None = None) -> None:
    """The pull query run, validated as part of a script (the sandbox's check_pull) or explained."""
    if sql.startswith("CHECK:"):
        e.execute(sql[len("CHECK:"):] + " SELECT * FROM A WHERE ID = 1;", props)
    else:
        e.execute(sql, props)


@pytest.mark.parametrize("sql", SCANS)
def test_a_request_cannot_enable_table_scans_the_configuration_disables(engine: Callable[..., Engine],
                                                                       sql: str) -> None:
    """ksql.query.pull.table.scan.enabled: the configuration's ``false`` holds whatever a request or SET says
    (reference: "a request may only disable it"); a key lookup is served."""
    e = engine(ksql_query_pull_table_scan_enabled="false")
    for props in (None, {"ksql.query.pull.table.scan.enabled": "true"}, {"ksql.query.pull.table.scan.enabled": True}):
        with pytest.raises(KsqlStatementError) as err:
            _run(e, sql, props)
        assert str(err.value).startswith(SCAN_REFUSED) or "WHERE clause missing key column" in str(err.value), err
    e.execute("SET 'ksql.query.pull.table.scan.enabled'='true';")
    with pytest.raises(KsqlStatementError, match="table scan|missing key column"):
        _run(e, sql)
    e.execute("SELECT * FROM A WHERE ID = 1;", {"ksql.query.pull.table.scan.enabled": "true"})


@pytest.mark.parametrize("sql", SCANS)
def test_a_request_or_set_may_disable_table_scans(engine: Callable[..., Engine], sql: str) -> None:
    e = engine()
    _run(e, sql)
    with pytest.raises(KsqlStatementError, match="table scan|missing key column"):
        _run(e, sql, {"ksql.query.pull.table.scan.enabled": "false"})
    e.execute("SET 'ksql.query.pull.table.scan.enabled'='false';")
    with pytest.raises(KsqlStatementError, match="table scan|missing key column"):
        _run(e, sql)
    e = engine(ksql_query_pull_table_scan_enabled="true")
    with pytest.raises(KsqlStatementError, match="table scan|missing key column"):
        _run(e, sql, {"ksql.query.pull.table.scan.enabled": "false"})
