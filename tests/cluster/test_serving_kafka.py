"""Serving from three servers over eight partitions (tansu).

Push queries through any server see the rows of every partition: a push query is not routed - the server
it was sent to reads every partition of its source itself, whichever server's persistent query (and
consumer-group member) processes them; checked for a stream and for a table's changes, with rows written
while the queries run. Pull queries through any server: a debug request's rows name the host that served
each (the owner of its partition), and a lag bound no host meets is refused with ksqlDB's message."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest

pytest.importorskip("confluent_kafka")

from cluster_helpers import active_map, cluster, ksql, produce, pull, wait_until  # noqa: E402

from ksqlpy.log.partitioner import partition_for_key  # noqa: E402

PARTITIONS = 8
KEYS = 100


class Push:
    """A push query streamed through one server in a thread; ``started`` once its header came."""

    def __init__(self, url: str, sql: str) -> None:
        self.url, self.sql = url, sql
        self.rows: list[list[Any]] = []
        self.started = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            with httpx.Client(base_url=self.url, timeout=httpx.Timeout(120, read=None)) as cl, cl.stream(
                    "POST", "/query", json={"ksql": self.sql, "streamsProperties": {"auto.offset.reset": "earliest"}},
                    headers={"Accept": "application/vnd.ksql.v1+json"}) as r:
                assert r.status_code == 200, r.read()
                for line in r.iter_lines():
                    text = line.strip().removeprefix("[").removesuffix(",").removesuffix("]")
                    if not text:
                        continue
                    item = orjson.loads(text)
                    if "header" in item:
                        self.started.set()
                    elif "row" in item:
                        self.rows.append(item["row"]["columns"])
                    elif "errorMessage" in item:
                        raise AssertionError(item["errorMessage"])
        except BaseException as e:  # noqa: BLE001 - reported by the test
            self.error = e
        finally:
            self.started.set()

    def result(self, timeout_s: float) -> list[list[Any]]:
        self.thread.join(timeout_s)
        assert not self.thread.is_alive(), f"{self.url}: {len(self.rows)} rows so far"
        if self.error is not None:
            raise self.error
        return self.rows


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, kafka_broker: Any) -> Iterator[tuple[list[Any], str, str, str]]:
    """Three servers with a stream over eight partitions and a table of it: (servers, the stream's topic, the
    table's query, the table). Names are unique: other tests' tables share the broker (and topic names)."""
    bootstrap = kafka_broker.bootstrap
    with cluster(str(tmp_path_factory.mktemp("serving")), bootstrap) as servers:
        a = servers[0]
        suffix = int(time.time() * 1000) % 10**8
        topic, table = f"push{suffix}", f"SERVED{suffix}"
        ksql(a, f"CREATE STREAM SRC (K STRING KEY, V BIGINT) WITH (KAFKA_TOPIC='{topic}', VALUE_FORMAT='JSON', "
                f"PARTITIONS={PARTITIONS});")
        qid = ksql(a, f"CREATE TABLE {table} AS SELECT K, SUM(V) AS S FROM SRC GROUP BY K;"
                   )[0]["commandStatus"]["queryId"]
        wait_until(lambda: len(set(active_map(a, qid).values())) == 3 and len(active_map(a, qid)) == PARTITIONS,
                   90, "the table's partitions over three hosts")
        yield servers, topic, qid, table


KEY_NAMES = [f"k{i}" for i in range(KEYS)]
SUMS = {k: i + 1000 + i for i, k in enumerate(KEY_NAMES)}  # what T holds once both writes are in
FIRST = [(k, {"V": i}) for i, k in enumerate(KEY_NAMES)]
LATER = [(k, {"V": 1000 + i}) for i, k in enumerate(KEY_NAMES)]
WRITTEN: set[str] = set()  # topics both writes went to: the pull test writes them itself when run alone


@pytest.mark.slow
def test_push_queries_through_every_server_see_every_partition(served: tuple[list[Any], str, str, str],
                                                               bootstrap: str) -> None:
    servers, topic, _, table = served
    keys = KEY_NAMES
    assert len({partition_for_key(k.encode(), PARTITIONS) for k in keys}) == PARTITIONS
    first, later = FIRST, LATER
    total = len(first) + len(later)
    assert topic not in WRITTEN, "the push test must see its rows written while it runs"
    produce(bootstrap, topic, first)
    streams = [Push(s.url, f"SELECT K, V FROM SRC EMIT CHANGES LIMIT {total};") for s in servers]
    # the table's changes: the last value of each key is the sum of both writes
    tables = [Push(s.url, f"SELECT K, S FROM {table} WHERE S >= 1000 EMIT CHANGES;") for s in servers]
    for p in streams + tables:
        assert p.started.wait(60), f"{p.url}: no header"
    produce(bootstrap, topic, later)  # while the queries run
    WRITTEN.add(topic)
    want = sorted(v["V"] for _, v in first + later)
    for p in streams:
        rows = p.result(120)
        assert sorted(v for _, v in rows) == want, p.url
        assert {partition_for_key(k.encode(), PARTITIONS) for k, _ in rows} == set(range(PARTITIONS))

    def every_key(p: Push) -> bool:
        return {k: s for k, s in list(p.rows)} == SUMS

    for p in tables:
        try:
            wait_until(lambda p=p: every_key(p), 180, f"every key's sum through {p.url}")
        except AssertionError:
            got = {k: s for k, s in list(p.rows)}
            wrong = {k: (got.get(k), v) for k, v in SUMS.items() if got.get(k) != v}
            parts = sorted({partition_for_key(k.encode(), PARTITIONS) for k in wrong})
            raise AssertionError(f"{p.url}: {len(p.rows)} rows, {len(wrong)} keys wrong (got, want) in partitions "
                                 f"{parts}: {dict(list(wrong.items())[:10])}; error {p.error!r}") from None


@pytest.mark.slow
def test_pull_rows_name_their_host_and_a_lag_bound_no_host_meets_is_refused(
        served: tuple[list[Any], str, str, str], bootstrap: str) -> None:
    servers, topic, qid, table = served
    a = servers[0]
    if topic not in WRITTEN:  # run without the push test: both writes, as that test leaves them
        produce(bootstrap, topic, FIRST + LATER)
        WRITTEN.add(topic)
    owners = active_map(a, qid)

    def complete() -> bool:
        with httpx.Client(base_url=a.url, timeout=30) as cl:
            code, rows, _ = pull(cl, f"SELECT K, S FROM {table};")
        return code == 200 and {k: s for k, s in rows} == SUMS

    wait_until(complete, 90, "the table to hold every key", every_s=1.0)
    for s in servers:
        with httpx.Client(base_url=s.url, timeout=30) as cl:
            r = cl.post("/query", json={"ksql": f"SELECT K, S FROM {table};", "streamsProperties": {},
                                        "requestProperties": {"request.ksql.debug.request": True}},
                        headers={"Accept": "application/vnd.ksql.v1+json"})
            assert r.status_code == 200, r.text
            rows = [e for e in orjson.loads(r.content) if "row" in e]
            assert len(rows) == KEYS
            for e in rows:
                key = e["row"]["columns"][0]
                assert e["sourceHost"] == owners[partition_for_key(key.encode(), PARTITIONS)]
            # without the debug flag the rows are ksqlDB's plain rows
            code, plain, r = pull(cl, f"SELECT K, S FROM {table} WHERE K='k1';")
            assert code == 200 and plain == [["k1", SUMS["k1"]]]
            assert all("sourceHost" not in e for e in orjson.loads(r.content))
            # every copy lags by 0 at best: a negative bound is met by none
            r = cl.post("/query", json={"ksql": f"SELECT K, S FROM {table} WHERE K='k1';",
                                        "streamsProperties": {"ksql.query.pull.max.allowed.offset.lag": -1}},
                        headers={"Accept": "application/vnd.ksql.v1+json"})
            assert r.status_code == 400, r.text
            err = r.json()
            assert err["error_code"] == 40000
            part = partition_for_key(b"k1", PARTITIONS)
            assert re.fullmatch(rf"Unable to execute pull query\. \[Partition {part} failed to find valid host\. "
                                rf"Hosts scanned: \[{re.escape(owners[part])} \(Host excluded because lag \d+ "
                                r"exceeds maximum allowed lag -1\.\)\]\]", err["message"]), err["message"]


@pytest.mark.slow
def test_consistency_tokens_span_every_host_and_a_bound_travels_with_the_forwarded_query(
        served: tuple[list[Any], str, str, str], bootstrap: str) -> None:
    """A scan through any server answers with one token covering every partition (each host's part merged);
    a request's vector goes with the query to the partition's owner, whose store behind it fails the run:
    200, the header, then ksqlDB's 'Exhausted standby hosts' element (no standbys here)."""
    from ksqlpy.engine.consistency import OffsetVector

    servers, topic, _, table = served
    if topic not in WRITTEN:
        produce(bootstrap, topic, FIRST + LATER)
        WRITTEN.add(topic)
    counts = [0] * PARTITIONS
    for k in KEY_NAMES:
        counts[partition_for_key(k.encode(), PARTITIONS)] += 2  # both writes
    want = {topic: {p: n - 1 for p, n in enumerate(counts) if n}}
    on = {"ksql.query.pull.consistency.token.enabled": True}
    accept = {"Accept": "application/vnd.ksql.v1+json"}

    def query(cl: httpx.Client, sql: str, vector: str | None = None) -> list[dict[str, Any]]:
        body: dict[str, Any] = {"ksql": sql, "streamsProperties": on}
        if vector is not None:
            body["requestProperties"] = {"request.ksql.query.pull.consistency.offset.vector": vector}
        r = cl.post("/query", json=body, headers=accept)
        assert r.status_code == 200, r.text
        return orjson.loads(r.content)  # type: ignore[no-any-return]

    def token_of(elements: list[dict[str, Any]]) -> dict[str, dict[int, int]]:
        return OffsetVector.deserialize(elements[-1]["consistencyToken"]["consistencyToken"]).offsets

    part = partition_for_key(b"k1", PARTITIONS)
    other = next(k for k in KEY_NAMES if partition_for_key(k.encode(), PARTITIONS) != part)
    behind = OffsetVector({topic: {part: 10**9}}).serialize()
    for s in servers:
        with httpx.Client(base_url=s.url, timeout=30) as cl:
            wait_until(lambda cl=cl: token_of(query(cl, f"SELECT K, S FROM {table};")) == want, 90,
                       f"a scan's token through {s.url} to name every partition's last offset", every_s=0.5)
            elements = query(cl, f"SELECT K, S FROM {table} WHERE K='k1';", behind)
            assert [list(e) for e in elements] == [["header"], ["errorMessage"]], elements
            assert elements[1]["errorMessage"]["message"].endswith("Exhausted standby hosts to try.")
            elements = query(cl, f"SELECT K, S FROM {table} WHERE K='{other}';", behind)
            assert elements[1] == {"row": {"columns": [other, SUMS[other]]}}
            got = token_of(elements)
            assert got[topic][part] == 10**9 and len(got[topic]) == 2  # the bound, merged with the part read
