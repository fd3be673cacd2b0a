"""An EMIT FINAL windowed CREATE TABLE AS SELECT on a running server, fed by INSERT VALUES: its sink topic (PRINT)
and a push query over the table (which reads the sink) get each window once it closes - when stream time
reaches its end plus grace.

Kafka Streams (and so ksqlDB) looks for closed windows after a record at most once per
``__emit.interval.ms.kstreams.windowed.aggregation__`` of wall-clock time (default 1000 ms), and a look uses the
interval up: records inserted within a second of the first look do not look, and the windows they close wait
for the next record that may look. So with the default, a few INSERTs in a row write nothing; a record a
second later writes what closed. With the interval 0 every record looks."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from server_helpers import ksql

httpx = pytest.importorskip("httpx")

EARLIEST = {"auto.offset.reset": "earliest"}
THROTTLE = "ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__"
HOUR = 3_600_000
FIRST_HOUR = [["home", 0, HOUR, 2], ["shop", 0, HOUR, 1]]


def _setup(c: Any, unique: Callable[[str], str], props: dict[str, Any]) -> tuple[str, str]:
    stream, table = unique("VISITS"), unique("HOURLY")
    ksql(c, f"CREATE STREAM {stream} (PAGE STRING KEY, USERID STRING) WITH (kafka_topic='{stream.lower()}', "
            "value_format='JSON', partitions=1);")
    ksql(c, f"CREATE TABLE {table} AS SELECT PAGE, COUNT(*) AS VISITS FROM {stream} "
            "WINDOW TUMBLING (SIZE 1 HOUR, GRACE PERIOD 0 SECONDS) GROUP BY PAGE EMIT FINAL;",
         streamsProperties={**EARLIEST, **props})
    return stream, table


def _insert(c: Any, stream: str, ts: int, page: str, user: str) -> None:
    ksql(c, f"INSERT INTO {stream} (ROWTIME, PAGE, USERID) VALUES ({ts}, '{page}', '{user}');")


def _push_rows(c: Any, table: str, n: int) -> list[list[Any]]:
    r = c.post("/query", json={"ksql": f"SELECT * FROM {table} EMIT CHANGES LIMIT {n};",
                               "streamsProperties": EARLIEST}, timeout=30)
    assert r.status_code == 200, r.text
    lines = [json.loads(line) for line in r.text.splitlines() if line.strip()]  # a header, then one row a line
    return [line for line in lines if isinstance(line, list)]


def _printed(c: Any, topic: str, n: int) -> list[str]:
    r = c.post("/query", json={"ksql": f"PRINT '{topic}' FROM BEGINNING LIMIT {n};"}, timeout=30)
    assert r.status_code == 200, r.text
    return [line for line in r.text.splitlines() if line.startswith("rowtime:")]


def _first_hour(c: Any, stream: str) -> None:
    for ts, page, user in ((1000, "home", "a"), (2000, "home", "b"), (3000, "shop", "c"),
                           (HOUR + 1000, "home", "d")):
        _insert(c, stream, ts, page, user)


def test_every_record_looks_with_the_interval_0(server: Any, unique: Callable[[str], str]) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        stream, table = _setup(c, unique, {THROTTLE: 0})
        _first_hour(c, stream)  # the visit an hour later closes the first hour of both pages
        assert _push_rows(c, table, 2) == FIRST_HOUR
        printed = _printed(c, table, 2)
        assert [p.split(", partition")[0] for p in printed] == [
            'rowtime: 1970/01/01 00:00:02.000 Z, key: [home@0/Infinity], value: {"VISITS":2}',
            'rowtime: 1970/01/01 00:00:03.000 Z, key: [shop@0/Infinity], value: {"VISITS":1}']


def test_windows_held_back_by_the_default_interval_go_out_at_a_record_a_second_later(
        server: Any, unique: Callable[[str], str]) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        stream, table = _setup(c, unique, {})
        _first_hour(c, stream)
        time.sleep(1.2)  # whatever the inserts' pace, the next record may look
        _insert(c, stream, HOUR + 2000, "shop", "e")
        assert _push_rows(c, table, 2) == FIRST_HOUR
        assert len(_printed(c, table, 2)) == 2
