"""Three server processes with one service id on a real broker (tansu): one live command topic, the
partitions of every persistent query shared through its consumer group, pull queries answered through
every server (forwarded to the partition's owner), /clusterStatus, push queries through any server."""

from __future__ import annotations

import time
from typing import Any

import httpx
import orjson
import pytest

pytest.importorskip("confluent_kafka")

from cluster_helpers import active_map, cluster, cluster_status, ksql, produce, pull, wait_until  # noqa: E402

KEYS = 1000
PARTITIONS = 8


def expected(n_records: int) -> dict[str, tuple[int, int]]:
    """key -> (count, sum) of the records ``records`` makes."""
    out: dict[str, tuple[int, int]] = {}
    for i in range(n_records):
        k = f"k{i % KEYS}"
        c, s = out.get(k, (0, 0))
        out[k] = (c + 1, s + i)
    return out


def records(n: int) -> list[tuple[str, dict[str, Any]]]:
    return [(f"k{i % KEYS}", {"V": i}) for i in range(n)]


@pytest.mark.slow
def test_three_servers_serve_every_key_through_every_server(tmp_path: Any, bootstrap: str) -> None:
    n = 2 * KEYS
    with cluster(str(tmp_path), bootstrap) as servers:
        a, b, c = servers
        suffix = int(time.time() * 1000) % 10**8
        topic = f"src{suffix}"
        created = ksql(a, f"CREATE STREAM SRC (K STRING KEY, V BIGINT) WITH (KAFKA_TOPIC='{topic}', "
                          f"VALUE_FORMAT='JSON', PARTITIONS={PARTITIONS});")
        seq = created[0]["commandSequenceNumber"]
        # a statement accepted by one server runs on the others, without a restart
        shown = ksql(b, "SHOW STREAMS;", commandSequenceNumber=seq)
        assert "SRC" in {s["name"] for s in shown[0]["streams"]}
        ctas = ksql(b, "CREATE TABLE T AS SELECT K, COUNT(*) AS N, SUM(V) AS S FROM SRC GROUP BY K;")
        qid = ctas[0]["commandStatus"]["queryId"]
        csas = ksql(c, "CREATE STREAM COPY AS SELECT * FROM SRC;", commandSequenceNumber=ctas[0]["commandSequenceNumber"])
        copy_topic = "COPY"
        for s in servers:
            listed = ksql(s, "SHOW QUERIES;", commandSequenceNumber=csas[0]["commandSequenceNumber"])
            assert {q["id"] for q in listed[0]["queries"]} >= {qid}
        # every partition of the query is active on exactly one live server, and all three take part
        def spread() -> dict[int, str] | None:
            m = active_map(a, qid)
            return m if len(m) == PARTITIONS and len(set(m.values())) == 3 else None

        owners = wait_until(spread, 90, "all partitions assigned over three hosts")
        assert len(cluster_status(a)) == 3
        produce(bootstrap, topic, records(n))
        want = expected(n)

        def complete() -> bool:
            with httpx.Client(base_url=a.url, timeout=30) as cl:
                code, rows, _ = pull(cl, "SELECT K, N, S FROM T;")
            return code == 200 and len(rows) == KEYS and all(tuple(r[1:]) == want[r[0]] for r in rows)

        wait_until(complete, 120, "the table to hold every key", every_s=1.0)
        for s in servers:
            answered, hosts = 0, set()
            with httpx.Client(base_url=s.url, timeout=30) as cl:
                for i in range(KEYS):
                    code, rows, r = pull(cl, f"SELECT K, N, S FROM T WHERE K='k{i}';")
                    if code == 200 and rows == [[f"k{i}", *want[f"k{i}"]]]:
                        answered += 1
                    hosts.update(h for h in r.headers.get("x-ksqlpy-source-hosts", "").split(",") if h)
            assert answered == KEYS, f"{s.url}: {answered} of {KEYS}"
            assert hosts == set(owners.values())  # each lookup went to the owner of its key's partition
        # the stream copy: each record once (no two servers processing one partition)
        from confluent_kafka import Consumer

        consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"check{suffix}",
                             "auto.offset.reset": "earliest", "enable.partition.eof": True})
        consumer.subscribe([copy_topic])
        seen: list[int] = []
        deadline = time.monotonic() + 60
        while len(seen) < n and time.monotonic() < deadline:
            m = consumer.poll(0.5)
            if m is not None and not m.error():
                seen.append(orjson.loads(m.value())["V"])
        time.sleep(2)
        for m in consumer.consume(10000, 2):
            if not m.error():
                seen.append(orjson.loads(m.value())["V"])
        consumer.close()
        assert sorted(seen) == list(range(n))
        # a push query through any server sees rows from every partition
        with httpx.Client(base_url=c.url, timeout=60) as cl:
            r = cl.post("/query", json={"ksql": f"SELECT K, V FROM SRC EMIT CHANGES LIMIT {n};",
                                        "streamsProperties": {"auto.offset.reset": "earliest"}},
                        headers={"Accept": "application/vnd.ksql.v1+json"})
        rows = [item["row"]["columns"] for item in orjson.loads(r.content) if "row" in item]
        assert sorted(v for _, v in rows) == list(range(n))
