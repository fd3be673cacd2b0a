"""Issue 15's acceptance beyond the shell: the same extension on the REST server (push query, CTAS, pull query,
DESCRIBE FUNCTION; a broken file stops the start-up), and a query with user functions run by worker processes
(``ksqlpy.workers=process``), which load the extension directory themselves."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from ksqlpy.engine import Engine
from ksqlpy.testing.server_process import ServerProcess
from tests.udf.acceptance import CTAS, INSERTS, PULL, PUSH, STREAM, write_extension


def _ksql(client: httpx.Client, sql: str, **properties: Any) -> Any:
    r = client.post("/ksql", json={"ksql": sql, "streamsProperties": properties})
    assert r.status_code == 200, r.text
    return r.json()


def _query(client: httpx.Client, sql: str) -> list[list[Any]]:
    r = client.post("/query", json={"ksql": sql, "streamsProperties": {"auto.offset.reset": "earliest"}},
                    headers={"Accept": "application/json"}, timeout=60)
    assert r.status_code == 200, r.text
    return [x["row"]["columns"] for x in json.loads(r.text) if "row" in x]


def _until(get: Any, done: Any, timeout_s: float = 120.0) -> Any:
    """``get()`` until ``done`` says its answer is the final one (the query catches up meanwhile)."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = get()
        if done(got) or time.monotonic() > deadline:
            return got
        time.sleep(0.2)


def test_on_the_server(tmp_path: Path) -> None:
    ext = tmp_path / "ext"
    write_extension(ext)
    server = ServerProcess(str(tmp_path / "server"), {"ksql.extension.dir": str(ext),
                                                     "cache.max.bytes.buffering": 0})
    with server, httpx.Client(base_url=server.url, timeout=30) as c:
        described = _ksql(c, "DESCRIBE FUNCTION WORDS;")[0]
        assert described["description"] == "One row per word of a text."
        assert described["path"] == str(ext / "shop_functions.py") and described["type"] == "TABLE"
        _ksql(c, STREAM)
        _ksql(c, INSERTS)
        assert _query(c, PUSH) == [["a", 12.0, "red"], ["a", 12.0, "apple"], ["a", 6.0, "pear"]]
        _ksql(c, CTAS, **{"auto.offset.reset": "earliest"})
        rows = _until(lambda: _query(c, PULL), lambda r: bool(r) and r[0][1] == 2)
        assert rows == [["red apple", 2]]


def test_a_broken_extension_stops_the_server_start_up(tmp_path: Path) -> None:
    ext = tmp_path / "ext"
    ext.mkdir()
    (ext / "broken.py").write_text("def oops(:\n")
    server = ServerProcess(str(tmp_path / "server"), {"ksql.extension.dir": str(ext)}, startup_timeout_s=30)
    with pytest.raises(Exception):  # noqa: B017 - the server exits instead of becoming ready
        server.start()
    assert server.exit_code not in (None, 0)  # it exited by itself, with a failure code
    assert f"Could not load functions from {ext / 'broken.py'}: SyntaxError" in server.log_tail()


def test_in_worker_processes(tmp_path: Path) -> None:
    ext = tmp_path / "ext"
    write_extension(ext)
    props = {"ksql.extension.dir": str(ext), "auto.offset.reset": "earliest", "ksqlpy.workers": "process",
             "num.stream.threads": 1, "cache.max.bytes.buffering": 0}
    with Engine(str(tmp_path / "engine"), props) as e:
        e.execute(STREAM)
        e.execute(INSERTS)
        e.execute(CTAS)
        e.execute("CREATE STREAM PRICED AS SELECT ID, TAXED(PRICE) AS T, WORDS(ITEM) AS W FROM ORDERS;")
        assert all(q.workers is not None for q in e.queries.values())  # run by worker processes
        e.drain(timeout_s=120)
        src = e.catalog.require("PRICED")
        vs = e.value_serde(src)
        batch = e.log.fetch(src.topic, 0, 0, 100)
        assert [vs.deserialize(v) for v in batch.values] == [(12.0, "red"), (12.0, "apple"), (6.0, "pear")]
        table = e.catalog.require("LONGEST_ITEM")
        vs = e.value_serde(table)
        batch = e.log.fetch(table.topic, 0, 0, 100)
        assert [vs.deserialize(v) for v in batch.values][-1] == ("red apple", 2)


def test_an_installed_package_on_the_server_with_worker_processes(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The example package found through its entry point by the server (DESCRIBE FUNCTION, a push query, a
    CTAS and a pull query), whose persistent query runs in worker processes that find it the same way."""
    from tests.udf.test_example_package import _installed_from_metadata

    site = tmp_path / "site"
    site.mkdir()
    _installed_from_metadata(site)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    server = ServerProcess(str(tmp_path / "server"), {"ksqlpy.workers": "process", "cache.max.bytes.buffering": 0})
    with server, httpx.Client(base_url=server.url, timeout=30) as c:
        assert _ksql(c, "DESCRIBE FUNCTION CENTROID;")[0]["path"].startswith("package ksqlpy-geo-functions")
        _ksql(c, "CREATE STREAM RIDES (ID STRING KEY, CITY STRING, LAT DOUBLE, LON DOUBLE) "
                 "WITH (KAFKA_TOPIC='rides', VALUE_FORMAT='JSON', PARTITIONS=1);")
        _ksql(c, "INSERT INTO RIDES (ID, CITY, LAT, LON) VALUES ('1', 'paris', 48.0, 2.0); "
                 "INSERT INTO RIDES (ID, CITY, LAT, LON) VALUES ('2', 'paris', 50.0, 4.0);")
        # a push query (scalar, vectorized and table functions of the package)
        assert _query(c, "SELECT ID, ROUND(DISTANCE_KM(LAT, LON, 48.0, 2.0)) AS D, "
                         "ROUND(DISTANCE_KM_BATCH(LAT, LON, 48.0, 2.0)) AS DB, NEIGHBOUR_CELLS(LAT, LON) AS C "
                         "FROM RIDES EMIT CHANGES LIMIT 2;") == [["1", 0.0, 0.0, "47:1"], ["1", 0.0, 0.0, "47:2"]]
        _ksql(c, "CREATE TABLE CENTRES AS SELECT CITY, CENTROID(LAT, LON) AS C, "
                 "COUNT(DISTANCE_KM(LAT, LON, 0.0, 0.0)) AS N FROM RIDES GROUP BY CITY;",
              **{"auto.offset.reset": "earliest"})
        rows = _until(lambda: _query(c, "SELECT C, N FROM CENTRES WHERE CITY = 'paris';"),
                      lambda r: bool(r) and r[0][1] == 2)
        assert rows == [[{"LAT": 49.0, "LON": 3.0, "N": 2}, 2]]
