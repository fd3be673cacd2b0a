"""The Engine API end to end on the embedded log: statements, persistent and transient queries, errors."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlParseError, KsqlStatementError
from ksqlpy.log.base import ProducerRecord


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    yield e
    e.close()


def values(engine: Engine, topic: str) -> list[dict]:
    batch = engine.log.fetch(topic, 0, 0, 1000)
    return [None if v is None else orjson.loads(v) for v in batch.values]


ORDERS = ("CREATE STREAM orders (id STRING KEY, qty INT, item STRING) "
          "WITH (kafka_topic='orders', value_format='JSON', partitions=1);")


def test_persistent_query_processes_inserted_rows(engine: Engine) -> None:
    engine.execute(ORDERS)
    [res] = engine.execute("CREATE STREAM big AS SELECT id, qty * 2 AS double_qty FROM orders WHERE qty > 1;")
    assert res.query_id == "CSAS_BIG_0"
    engine.execute("INSERT INTO orders (id, qty, item) VALUES ('a', 1, 'pen');")
    engine.execute("INSERT INTO orders (id, qty, item) VALUES ('b', 5, 'ink');")
    engine.drain()
    assert values(engine, "BIG") == [{"DOUBLE_QTY": 10}]
    batch = engine.log.fetch("BIG", 0, 0, 10)
    assert batch.keys == [b"b"]


def test_a_bad_record_goes_to_the_processing_log_and_the_query_goes_on(engine: Engine) -> None:
    engine.execute(ORDERS)
    engine.execute("CREATE STREAM copy AS SELECT * FROM orders;")
    engine.log.produce(ProducerRecord("orders", b"x", b"{broken", 1))
    engine.log.produce(ProducerRecord("orders", b"y", b'{"QTY": 3, "ITEM": "cup"}', 2))
    engine.drain()
    assert values(engine, "COPY") == [{"QTY": 3, "ITEM": "cup"}]
    [entry] = list(engine.plog.entries)
    assert entry["message"]["type"] == 0
    assert entry["message"]["deserializationError"]["topic"] == "orders"


def test_an_evaluation_error_yields_null_for_that_expression_only(engine: Engine) -> None:
    engine.execute(ORDERS)
    engine.execute("CREATE STREAM ratio AS SELECT id, 100 / qty AS per, UCASE(item) AS item FROM orders;")
    engine.execute("INSERT INTO orders (id, qty, item) VALUES ('a', 0, 'pen');")
    engine.drain()
    assert values(engine, "RATIO") == [{"PER": None, "ITEM": "PEN"}]
    assert any("PER" in e["message"]["recordProcessingError"]["errorMessage"] for e in engine.plog.entries)


def test_push_query_streams_rows_and_honours_limit(engine: Engine) -> None:
    engine.execute(ORDERS)
    for i in range(3):
        engine.execute(f"INSERT INTO orders (id, qty, item) VALUES ('k{i}', {i}, 'x');")
    [res] = engine.execute("SELECT id, qty FROM orders EMIT CHANGES LIMIT 2;")
    query = res.data
    engine.drain()
    rows = list(query)
    assert rows == [("k0", 0), ("k1", 1)]
    assert query.done


def test_pull_query_on_a_stream_scans_to_the_end(engine: Engine) -> None:
    engine.execute(ORDERS)
    engine.execute("INSERT INTO orders (id, qty, item) VALUES ('a', 7, 'pen');")
    [res] = engine.execute("SELECT item, qty FROM orders WHERE qty > 5;")
    assert res.kind == "rows"
    assert res.data["rows"] == [("pen", 7)]


def test_transient_queries_of_different_engines_do_not_share_positions(tmp_path: Path) -> None:
    # regression: ids restarted at 1 in each process, so a new query resumed an old one's offsets
    for run in (1, 2):
        e = Engine(str(tmp_path))
        e.execute(ORDERS)
        e.execute("INSERT INTO orders (id, qty, item) VALUES ('a', 1, 'pen');")
        rows = e.execute("SELECT * FROM orders;")[0].data["rows"]
        assert len(rows) == run  # every pull query scans the whole topic
        e.close()


def test_unknown_source_and_duplicate_names_are_clear_errors(engine: Engine) -> None:
    with pytest.raises(KsqlStatementError, match="NOPE does not exist"):
        engine.execute("CREATE STREAM s AS SELECT * FROM nope;")
    engine.execute(ORDERS)
    with pytest.raises(KsqlStatementError, match="already exists"):
        engine.execute(ORDERS)
    [res] = engine.execute(ORDERS.replace("CREATE STREAM", "CREATE STREAM IF NOT EXISTS"))
    assert res.warnings


def test_missing_topic_property_and_unknown_format(engine: Engine) -> None:
    with pytest.raises(KsqlParseError, match='Failed to prepare statement: Missing required property "KAFKA_TOPIC"'):
        engine.execute("CREATE STREAM s (a INT) WITH (value_format='JSON');")
    with pytest.raises(KsqlStatementError, match="Unknown format: XML"):
        engine.execute("CREATE STREAM s (a INT) WITH (kafka_topic='s', value_format='XML', partitions=1);")


def test_parse_errors_carry_line_and_column(engine: Engine) -> None:
    with pytest.raises(KsqlParseError) as err:
        engine.execute("SHOW STREAMS;\nSELEKT 1;")
    assert err.value.line == 2
    assert err.value.column == 1


def test_drop_is_refused_while_a_query_reads_the_source(engine: Engine) -> None:
    engine.execute(ORDERS)
    engine.execute("CREATE STREAM copy AS SELECT * FROM orders;")
    with pytest.raises(KsqlStatementError, match="CSAS_COPY_0"):
        engine.execute("DROP STREAM orders;")
    engine.execute("DROP STREAM copy;")  # also terminates the query writing it
    assert engine.queries == {}
    engine.execute("DROP STREAM orders DELETE TOPIC;")
    assert not engine.log.topic_exists("orders")


def test_terminate_stops_processing(engine: Engine) -> None:
    engine.execute(ORDERS)
    engine.execute("CREATE STREAM copy AS SELECT * FROM orders;")
    engine.execute("TERMINATE CSAS_COPY_0;")
    engine.execute("INSERT INTO orders (id, qty, item) VALUES ('a', 1, 'pen');")
    engine.drain()
    assert values(engine, "COPY") == []


@pytest.mark.parametrize("written", ["CST_PRICES_0", "cst_prices_0"])
def test_terminate_refuses_a_source_tables_query(engine: Engine, written: str) -> None:
    """A SOURCE table's CST_ query ends only with DROP of its table (ksqlDB's TerminateQueryValidator)."""
    engine.execute("CREATE SOURCE TABLE prices (id STRING PRIMARY KEY, p INT) WITH (kafka_topic='prices', "
                   "value_format='JSON', partitions=1);")
    with pytest.raises(KsqlStatementError, match=r"^Cannot terminate query 'CST_PRICES_0' because it is linked "
                                                  r"to a source table\.$"):
        engine.execute(f"TERMINATE {written};")
    assert list(engine.queries) == ["CST_PRICES_0"]
    engine.execute("DROP TABLE prices;")
    assert engine.queries == {}


def test_variables_substitute_into_later_statements(engine: Engine) -> None:
    engine.execute("DEFINE tname = 'orders'; " + ORDERS.replace("'orders'", "'${tname}'"))
    assert engine.catalog.source("ORDERS").topic == "orders"


def test_show_and_describe(engine: Engine) -> None:
    engine.execute(ORDERS)
    [streams] = engine.execute("SHOW STREAMS;")
    assert [s["name"] for s in streams.data] == ["ORDERS"]
    [desc] = engine.execute("DESCRIBE orders;")
    assert [f["name"] for f in desc.data["fields"]] == ["ID", "QTY", "ITEM"]
    assert desc.data["fields"][0]["type"] == "KEY"


def test_insert_values_checks_types(engine: Engine) -> None:
    engine.execute(ORDERS)
    with pytest.raises(KsqlStatementError, match="QTY"):
        engine.execute("INSERT INTO orders (id, qty) VALUES ('a', 'many');")


def test_star_on_a_windowed_table_push_query_includes_the_window_bounds(engine: Engine) -> None:
    engine.execute(ORDERS)
    engine.execute("CREATE TABLE counts AS SELECT id, COUNT(*) AS n FROM orders "
                   "WINDOW TUMBLING (SIZE 10 SECONDS) GROUP BY id;")
    [res] = engine.execute("SELECT * FROM counts EMIT CHANGES;")
    assert [name for name, _ in res.data.columns] == ["ID", "WINDOWSTART", "WINDOWEND", "N"]
    res.data.close()


def test_star_puts_header_columns_after_the_value_columns(engine: Engine) -> None:
    engine.execute("CREATE STREAM h (k INT KEY, hdr BYTES HEADER('abc'), text STRING, hs "
                   "ARRAY<STRUCT<KEY STRING, VALUE BYTES>> HEADERS, n INT) "
                   "WITH (kafka_topic='h', value_format='JSON', partitions=1);")
    [res] = engine.execute("SELECT * FROM h EMIT CHANGES;")
    assert [name for name, _ in res.data.columns] == ["K", "TEXT", "N", "HDR", "HS"]
    res.data.close()
