"""How /ksql entities tell a windowed source, over every way a source gets a windowed key: a CREATE TABLE AS
SELECT with a TUMBLING, HOPPING or SESSION window, and a stream, table or SOURCE table declared over a windowed
topic (WINDOW_TYPE, any case). SHOW STREAMS/TABLES (SourceInfo.isWindowed) and DESCRIBE (SourceDescription's
windowType, the key format's WindowType name) read it from the source's key format; EXPLAIN of the
persistent query that writes one names the window of its sink's key (QueryDescriptionFactory, from the
result topic's key format). A plain source is ``false`` / ``null``. From memory of ksqlDB's
SourceDescriptionFactory, ListSourceExecutor and QueryDescriptionFactory."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

pytest.importorskip("fastapi")
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
from server_helpers import ksql  # noqa: E402

SETUP = """
CREATE STREAM WE_S (ID INT KEY, V INT) WITH (kafka_topic='we_s', value_format='JSON', partitions=1);
CREATE TABLE WE_TUMBLING AS SELECT ID, COUNT(*) AS C FROM WE_S WINDOW TUMBLING (SIZE 10 SECONDS) GROUP BY ID;
CREATE TABLE WE_HOPPING AS SELECT ID, COUNT(*) AS C FROM WE_S
  WINDOW HOPPING (SIZE 10 SECONDS, ADVANCE BY 5 SECONDS) GROUP BY ID;
CREATE TABLE WE_SESSION AS SELECT ID, COUNT(*) AS C FROM WE_S WINDOW SESSION (30 SECONDS) GROUP BY ID;
CREATE TABLE WE_PLAIN AS SELECT ID, COUNT(*) AS C FROM WE_S GROUP BY ID;
CREATE STREAM WE_DECL_S (ID INT KEY, V INT) WITH (kafka_topic='we_decl', value_format='JSON', partitions=1,
  window_type='Tumbling', window_size='5 seconds');
CREATE TABLE WE_DECL_T (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='we_decl', value_format='JSON',
  partitions=1, window_type='session');
CREATE SOURCE TABLE WE_DECL_SRC (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='we_decl', value_format='JSON',
  partitions=1, window_type='HOPPING', window_size='5 seconds');
"""

WINDOWS = {"WE_S": None, "WE_TUMBLING": "TUMBLING", "WE_HOPPING": "HOPPING", "WE_SESSION": "SESSION",
           "WE_PLAIN": None, "WE_DECL_S": "TUMBLING", "WE_DECL_T": "SESSION", "WE_DECL_SRC": "HOPPING"}


@pytest.fixture(scope="module")
def client(quiet_app: Any) -> Any:
    ksql(quiet_app, SETUP)
    return quiet_app


def listed(client: Any) -> dict[str, Any]:
    body = ksql(client, "SHOW STREAMS; SHOW TABLES;")
    return {s["name"]: s for e in body for s in e.get("streams", []) + e.get("tables", [])}


@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_show_says_whether_the_source_is_windowed(client: Any, name: str) -> None:
    assert listed(client)[name]["isWindowed"] is (WINDOWS[name] is not None)


@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_describe_names_the_window_type(client: Any, name: str) -> None:
    for sql in (f"DESCRIBE {name};", f"DESCRIBE {name} EXTENDED;"):
        (entity,) = ksql(client, sql)
        assert entity["sourceDescription"]["windowType"] == WINDOWS[name], sql


@pytest.mark.parametrize("name", ["WE_TUMBLING", "WE_HOPPING", "WE_SESSION", "WE_PLAIN"])
def test_explain_of_the_writing_query_names_its_sinks_window(client: Any, name: str) -> None:
    (entity,) = ksql(client, f"DESCRIBE {name};")
    (query,) = entity["sourceDescription"]["writeQueries"]
    (explained,) = ksql(client, f"EXPLAIN {query['id']};")
    assert explained["queryDescription"]["windowType"] == WINDOWS[name]


# EXPLAIN <statement>: a transient query (push or pull) names no window, whatever it reads or aggregates; a
# persistent one names its sink's (QueryDescriptionFactory.forQueryMetadata: the result topic's key format for a
# PersistentQueryMetadata, Optional.empty() for any other - from memory)
EXPLAINED = {
    "SELECT * FROM WE_TUMBLING EMIT CHANGES;": None,
    "SELECT * FROM WE_SESSION WHERE ID = 1;": None,
    "SELECT * FROM WE_HOPPING;": None,
    "SELECT * FROM WE_DECL_S EMIT CHANGES;": None,
    "SELECT * FROM WE_DECL_S;": None,
    "SELECT ID, COUNT(*) AS C FROM WE_S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY ID EMIT CHANGES;": None,
    "SELECT ID, COUNT(*) AS C FROM WE_S WINDOW SESSION (5 SECONDS) GROUP BY ID EMIT CHANGES;": None,
    "SELECT V, COUNT(*) AS N FROM WE_DECL_T GROUP BY V EMIT CHANGES;": None,
    "CREATE TABLE WE_X AS SELECT ID, COUNT(*) AS C FROM WE_S WINDOW HOPPING (SIZE 4 SECONDS, ADVANCE BY 2 SECONDS) "
    "GROUP BY ID;": "HOPPING",
    "CREATE STREAM WE_Y AS SELECT * FROM WE_DECL_S;": "TUMBLING",
    "CREATE TABLE WE_Z AS SELECT ID, COUNT(*) AS C FROM WE_S GROUP BY ID;": None,
}


@pytest.mark.parametrize("sql", sorted(EXPLAINED))
def test_explain_of_a_statement_names_a_persistent_querys_window_only(client: Any, sql: str) -> None:
    (explained,) = ksql(client, f"EXPLAIN {sql}")
    d = explained["queryDescription"]
    assert d["windowType"] == EXPLAINED[sql], d
    assert d["queryType"] == ("PERSISTENT" if sql.startswith("CREATE") else d["queryType"])
