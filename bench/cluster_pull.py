"""Pull-query latency in a cluster: a key lookup answered by the server that owns the key's partition
(local) against the same lookup sent to another server, which forwards it to the owner (ksqlDB's
internal /query request) - ``python -m bench.cluster_pull [--keys N] [--rounds R] [--gap-ms G]``.

Three ``ksqlpy server`` processes with one service id on a tansu broker (memory storage), a table of
``--keys`` keys over 8 partitions. Each round looks every key up twice, interleaved: at its owner and at
a server that is not its owner, each over its own keep-alive HTTP/1.1 connection (``http.client``), paced
by ``--gap-ms``. The owner of a key is learnt from the response (``X-Ksqlpy-Source-Hosts``). Prints one
JSON object with p50/p99/max per path and the p99 ratio forwarded/local (issue 18 asks for <= 2).

Figures from a shared machine are indicative only: other processes compete for the same cores.
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import sys
import tempfile
import time
import uuid
from typing import Any

import orjson

from bench.broker import Broker
from ksqlpy.log.partitioner import partition_for_key
from ksqlpy.testing.server_process import ServerProcess

PARTITIONS = 8
HOSTS_HEADER = "X-Ksqlpy-Source-Hosts"


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def _stats(xs: list[float]) -> dict[str, float]:
    return {"samples": len(xs), "p50_ms": round(_pct(xs, 50), 3), "p99_ms": round(_pct(xs, 99), 3),
            "max_ms": round(max(xs), 3), "mean_ms": round(statistics.fmean(xs), 3)}


class Client:
    """One keep-alive connection to one server."""

    def __init__(self, url: str) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)
        self.key = f"{host}:{port}"

    def pull(self, sql: str) -> tuple[float, list[Any], str]:
        body = orjson.dumps({"ksql": sql, "streamsProperties": {}})
        t0 = time.perf_counter()
        self.conn.request("POST", "/query", body=body, headers={"Content-Type": "application/json",
                                                               "Accept": "application/vnd.ksql.v1+json"})
        resp = self.conn.getresponse()
        raw = resp.read()
        ms = (time.perf_counter() - t0) * 1000
        if resp.status != 200:
            raise RuntimeError(f"{self.key}: HTTP {resp.status}: {raw[:300]!r}")
        rows = [e["row"]["columns"] for e in orjson.loads(raw) if "row" in e]
        return ms, rows, resp.getheader(HOSTS_HEADER) or ""


def _post(url: str, sql: str) -> Any:
    c = Client(url)
    c.conn.request("POST", "/ksql", body=orjson.dumps({"ksql": sql, "streamsProperties": {}}),
                   headers={"Content-Type": "application/json"})
    resp = c.conn.getresponse()
    raw = resp.read()
    if resp.status != 200:
        raise RuntimeError(raw.decode())
    return orjson.loads(raw)


def _wait(check: Any, timeout_s: float, what: str) -> Any:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        try:
            got = check()
            if got:
                return got
        except (OSError, RuntimeError, http.client.HTTPException, KeyError):
            pass
        time.sleep(0.5)
    raise RuntimeError(f"timed out waiting for {what}")


def run(keys: int, rounds: int, gap_ms: float) -> dict[str, Any]:
    from confluent_kafka import Producer

    root = tempfile.mkdtemp(prefix="ksqlpy-bench-cluster-")
    with Broker() as broker:
        service = f"b{uuid.uuid4().hex[:8]}_"
        props = {"bootstrap.servers": broker.bootstrap, "ksql.service.id": service, "session.timeout.ms": 6000,
                 "ksql.logging.processing.topic.auto.create": "false", "auto.offset.reset": "earliest",
                 "ksql.server.command.response.timeout.ms": 30000, "commit.interval.ms": 200}
        servers = [ServerProcess(os.path.join(root, f"s{i}"), props, startup_timeout_s=120) for i in range(3)]
        try:
            for s in servers:
                s.start(wait=False)
            for s in servers:
                s.wait_ready()
            a = servers[0].url
            _post(a, f"CREATE STREAM SRC (K STRING KEY, V BIGINT) WITH (KAFKA_TOPIC='bsrc', VALUE_FORMAT='JSON', "
                     f"PARTITIONS={PARTITIONS});")
            _post(a, "CREATE TABLE T AS SELECT K, COUNT(*) AS N FROM SRC GROUP BY K;")
            p = Producer({"bootstrap.servers": broker.bootstrap, "partitioner": "murmur2_random"})
            for i in range(keys):
                p.produce("bsrc", key=f"k{i}".encode(), value=orjson.dumps({"V": i}))
            p.flush(30)

            def spread() -> bool:
                status = Client(a)
                status.conn.request("GET", "/clusterStatus")
                hosts = orjson.loads(status.conn.getresponse().read())["clusterStatus"]
                owners = {h for h, info in hosts.items() if info["hostAlive"] and any(
                    q.get("activePartitions") for q in info["activeStandbyPerQuery"].values())}
                return len(owners) == 3

            _wait(spread, 120, "the table's partitions over three servers")
            clients = {s.url.removeprefix("http://"): Client(s.url) for s in servers}
            first = clients[a.removeprefix("http://")]
            _wait(lambda: len(first.pull("SELECT * FROM T;")[1]) == keys, 120, "every key in the table")
            owner_of_partition: dict[int, str] = {}
            for i in range(keys):
                part = partition_for_key(f"k{i}".encode(), PARTITIONS)
                if part not in owner_of_partition:
                    _, _, hosts = first.pull(f"SELECT * FROM T WHERE K='k{i}';")
                    owner_of_partition[part] = hosts
            local: list[float] = []
            forwarded: list[float] = []
            names = sorted(clients)
            for _ in range(rounds):
                for i in range(keys):
                    sql = f"SELECT * FROM T WHERE K='k{i}';"
                    owner = owner_of_partition[partition_for_key(f"k{i}".encode(), PARTITIONS)]
                    other = names[(names.index(owner) + 1 + i % 2) % len(names)]
                    ms, rows, hosts = clients[owner].pull(sql)
                    assert rows and hosts == owner, (owner, hosts)
                    local.append(ms)
                    time.sleep(gap_ms / 1000)
                    ms, rows, hosts = clients[other].pull(sql)
                    assert rows and hosts == owner, (other, hosts)
                    forwarded.append(ms)
                    time.sleep(gap_ms / 1000)
        finally:
            for s in servers:
                s.stop()
    out_local, out_fwd = _stats(local), _stats(forwarded)
    return {"workload": "cluster_pull", "servers": 3, "partitions": PARTITIONS, "keys": keys, "rounds": rounds,
            "gap_ms": gap_ms, "local": out_local, "forwarded": out_fwd,
            "p99_ratio": round(out_fwd["p99_ms"] / out_local["p99_ms"], 2),
            "p50_ratio": round(out_fwd["p50_ms"] / out_local["p50_ms"], 2),
            "note": "shared machine: figures are indicative"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.cluster_pull", description=__doc__)
    ap.add_argument("--keys", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--gap-ms", type=float, default=2.0)
    args = ap.parse_args(argv)
    print(orjson.dumps(run(args.keys, args.rounds, args.gap_ms)).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
