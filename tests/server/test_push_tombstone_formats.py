"""A push query over a table shows the table's deletes as tombstone rows where its format has one - the
StreamedRow format of /query (and of /query-stream asked for application/vnd.ksql.v1+json) - and leaves
them out of the formats without one (/query-stream's delimited and JSON-array rows) before LIMIT counts rows,
as ksqlDB's QueryStreamEndpoint builds the transient query with excludeTombstones: LIMIT 2 there is two
rows shown, never a row and an invisible delete."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from server_helpers import ksql

from ksqlpy.server.streaming import DELIMITED, JSON, KSQL_V1_JSON

EARLIEST = {"auto.offset.reset": "earliest"}


def _table(client: Any, unique: Callable[[str], str]) -> str:
    name = unique("TT")
    ksql(client, f"CREATE TABLE {name} (K STRING PRIMARY KEY, V INT) WITH (kafka_topic='{name.lower()}', "
                 f"value_format='JSON', partitions=1);")
    # 'a' passes the WHERE below, then no longer does (a delete of the push query's result), then 'b' passes
    ksql(client, f"INSERT INTO {name} (K, V) VALUES ('a', 1);"
                 f"INSERT INTO {name} (K, V) VALUES ('a', 0);"
                 f"INSERT INTO {name} (K, V) VALUES ('b', 2);")
    return name


def test_streamed_rows_show_the_delete_and_count_it(client: Any, unique: Callable[[str], str]) -> None:
    name = _table(client, unique)
    sql = f"SELECT * FROM {name} WHERE V > 0 EMIT CHANGES LIMIT 2;"
    r = client.post("/query", json={"ksql": sql, "streamsProperties": EARLIEST}, headers={"Accept": KSQL_V1_JSON})
    assert r.status_code == 200, r.text
    elements = json.loads(r.text)
    assert [e["row"] for e in elements[1:-1]] == [{"columns": ["a", 1]}, {"columns": ["a", None], "tombstone": True}]
    assert elements[-1] == {"finalMessage": "Limit Reached"}


@pytest.mark.parametrize("media", [DELIMITED, JSON])
def test_formats_without_a_tombstone_leave_the_delete_out_before_the_limit(
        client: Any, unique: Callable[[str], str], media: str) -> None:
    name = _table(client, unique)
    sql = f"SELECT * FROM {name} WHERE V > 0 EMIT CHANGES LIMIT 2;"
    r = client.post("/query-stream", json={"sql": sql, "properties": EARLIEST}, headers={"Accept": media})
    assert r.status_code == 200, r.text
    if media == JSON:
        rows = json.loads(r.text)[1:]
    else:
        rows = [json.loads(line) for line in r.text.splitlines()[1:] if line.strip()]
    assert rows == [["a", 1], ["b", 2]]


def _windowed(client: Any, unique: Callable[[str], str]) -> str:
    name = unique("TS")
    ksql(client, f"CREATE STREAM {name} (K STRING KEY, V INT) WITH (kafka_topic='{name.lower()}', "
                 f"value_format='JSON', partitions=1);")
    # the group of 'a' passes HAVING once, then no longer does (a delete), then 'b' passes
    ksql(client, f"INSERT INTO {name} (K, V, ROWTIME) VALUES ('a', 1, 1000);"
                 f"INSERT INTO {name} (K, V, ROWTIME) VALUES ('a', 1, 2000);"
                 f"INSERT INTO {name} (K, V, ROWTIME) VALUES ('b', 1, 3000);")
    return name


@pytest.mark.parametrize("media", [KSQL_V1_JSON, DELIMITED, JSON])
def test_a_windowed_aggregations_having_delete_follows_the_same_rule(
        client: Any, unique: Callable[[str], str], media: str) -> None:
    name = _windowed(client, unique)
    sql = (f"SELECT K, COUNT(*) AS C FROM {name} WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY K HAVING COUNT(*) < 2 "
           f"EMIT CHANGES LIMIT 2;")
    if media == KSQL_V1_JSON:
        r = client.post("/query", json={"ksql": sql, "streamsProperties": EARLIEST}, headers={"Accept": media})
        assert r.status_code == 200, r.text
        rows = [e["row"] for e in json.loads(r.text)[1:-1]]
        assert rows == [{"columns": ["a", 1]}, {"columns": ["a", None], "tombstone": True}]
        return
    r = client.post("/query-stream", json={"sql": sql, "properties": EARLIEST}, headers={"Accept": media})
    assert r.status_code == 200, r.text
    if media == JSON:
        rows = json.loads(r.text)[1:]
    else:
        rows = [json.loads(line) for line in r.text.splitlines()[1:] if line.strip()]
    assert rows == [["a", 1], ["b", 1]]
