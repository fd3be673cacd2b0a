"""Latency workloads on the embedded engine: ``python -m bench.latency pull|push EVENTS``.

pull: a materialized table (bids per auction) is built, then key lookups (``SELECT * FROM t WHERE
auction = k``) are timed while a persistent query drains a backlog in the engine's background runner
- the pull query waits for the runner between batches, which is the latency a user sees under load.

push: ``SELECT * FROM bid EMIT CHANGES`` runs in the background runner while a producer writes one bid
at a time at a steady rate; latency is from just before the producing transaction to the row arriving
at the consumer. Both print one JSON object with p50/p99/max in milliseconds.
"""

from __future__ import annotations

import queue
import statistics
import sys
import tempfile
import threading
import time
from typing import Any

import orjson

from bench.nexmark import generate
from bench.workloads import SOURCES_SQL, WORKLOADS


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def _summary(kind: str, lat_ms: list[float], extra: dict[str, Any]) -> dict[str, Any]:
    return {"workload": kind, "engine": "ksqlpy", "log": "embedded", "samples": len(lat_ms),
            "p50_ms": _pct(lat_ms, 50), "p99_ms": _pct(lat_ms, 99), "max_ms": max(lat_ms),
            "mean_ms": statistics.fmean(lat_ms), **extra}


def _engine(events: int) -> tuple[Any, Any, Any]:
    from ksqlpy.engine import Engine
    from ksqlpy.log import EmbeddedLog

    d = tempfile.mkdtemp(prefix="ksqlpy-bench-lat-")
    log = EmbeddedLog(f"{d}/log")
    g = generate(events)
    for t in ("bid", "auction", "person"):
        log.create_topic(t, 4)
    engine = Engine(f"{d}/engine", {"auto.offset.reset": "earliest"}, log=log)
    engine.execute(SOURCES_SQL)
    return engine, log, g


def _load(log: Any, g: Any, topic: str = "bid") -> None:
    ks, vs, ts = g.keys[topic], g.values[topic], g.timestamps[topic]
    for s in range(0, len(vs), 50_000):
        with log.transaction() as tx:
            tx.produce_batch(topic, None, ks[s:s + 50_000], vs[s:s + 50_000], ts[s:s + 50_000])


def pull(events: int, lookups: int = 2000) -> dict[str, Any]:
    engine, log, g = _engine(events)
    _load(log, g)
    engine.execute("CREATE TABLE bids_per_auction AS SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction;")
    engine.drain(3600)
    auctions = sorted({int.from_bytes(k, "big", signed=True) for k in g.keys["bid"]})

    def lookup(i: int) -> tuple[float, bool]:
        k = auctions[(i * 7919) % len(auctions)]
        t0 = time.perf_counter()
        res = engine.execute(f"SELECT * FROM bids_per_auction WHERE auction = {k};")
        return (time.perf_counter() - t0) * 1000, bool(res[0].data["rows"])

    idle = [lookup(i)[0] for i in range(lookups // 4)]
    # load: a second copy of the bids arrives and a windowed aggregation over all of them drains in the
    # engine's background runner; lookups are timed until it has caught up
    _load(log, g)
    engine.execute(WORKLOADS["q7"].sql.format(sink="bench_load_q7"))
    engine.start()

    def busy() -> bool:
        return any(t.position < log.end_offset(t.topic, t.partition)
                   for q in list(engine.queries.values()) for t in q.tasks)

    lat = []
    found = 0
    deadline = time.perf_counter() + 120
    while busy() and len(lat) < lookups and time.perf_counter() < deadline:
        ms, ok = lookup(len(lat))
        lat.append(ms)
        found += ok
    engine.close()
    if not lat:
        raise RuntimeError("the load query finished before any lookup")
    return _summary("pull", lat, {"found": found, "idle_p50_ms": _pct(idle, 50), "idle_p99_ms": _pct(idle, 99)})


def push(events: int, samples: int = 2000, rate: float = 1000.0) -> dict[str, Any]:
    from ksqlpy.log import ProducerRecord

    engine, log, g = _engine(events)
    engine.start()
    tq = engine.push_query("SELECT auction, extra FROM bid EMIT CHANGES;")
    got: queue.Queue[tuple[float, Any]] = queue.Queue()

    def consume() -> None:
        for row in tq:
            got.put((time.perf_counter(), row))

    th = threading.Thread(target=consume, daemon=True)
    th.start()
    time.sleep(0.5)  # the push query's tasks are positioned at the end of the topic
    sent: dict[str, float] = {}
    template = orjson.loads(g.values["bid"][0])
    for i in range(samples):
        template["extra"] = f"s{i}"
        v = orjson.dumps(template)
        t0 = time.perf_counter()
        sent[f"s{i}"] = t0
        log.produce(ProducerRecord("bid", g.keys["bid"][i], v, g.timestamps["bid"][i]))
        nxt = t0 + 1 / rate
        while time.perf_counter() < nxt:
            time.sleep(max(0.0, nxt - time.perf_counter()))
    lat = []
    deadline = time.perf_counter() + 10
    while len(lat) < samples and time.perf_counter() < deadline:
        try:
            t, row = got.get(timeout=1)
        except queue.Empty:
            continue
        lat.append((t - sent[row[-1]]) * 1000)
    tq.close()
    engine.close()
    return _summary("push", lat, {"rate_per_s": rate})


def main(argv: list[str]) -> None:
    kind, events = argv[0], int(argv[1]) if len(argv) > 1 else 100_000
    result = pull(events) if kind == "pull" else push(events)
    sys.stdout.buffer.write(orjson.dumps(result) + b"\n")


if __name__ == "__main__":
    main(sys.argv[1:])
