"""Latency workloads on the embedded engine: ``python -m bench.latency pull|push EVENTS [--mode M]``.

pull: a materialized table (bids per auction) is built, then key lookups (``SELECT * FROM t WHERE
auction = k``, a new key each time) are timed while a persistent query drains a backlog: through the
Engine API with the queries in the engine's background thread (``--mode engine``) or in worker processes
(``--mode workers``), or over REST (``--mode rest``: a real ``ksqlpy server`` and one keep-alive HTTP/1.1
connection of ``http.client``, or of httpx with ``--client httpx``; ``-D NAME=VALUE`` sets a server property,
e.g. ``ksqlpy.workers=process`` or ``ksqlpy.server.lean.lookups=false``). Lookups are paced (``--gap-ms``,
default 2 ms), so each one has to get the interpreter back from the busy query, as a client's occasional
lookup does.

push: ``SELECT * FROM bid EMIT CHANGES`` runs in the background runner while a producer writes one bid
at a time at a steady rate; latency is from just before the producing transaction to the row arriving
at the consumer. Both print one JSON object with p50/p99/max in milliseconds.
"""

from __future__ import annotations

import os
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


def _engine(events: int, properties: dict[str, str] | None = None) -> tuple[Any, Any, Any]:
    from ksqlpy.engine import Engine
    from ksqlpy.log import EmbeddedLog

    d = tempfile.mkdtemp(prefix="ksqlpy-bench-lat-")
    log = EmbeddedLog(f"{d}/log")
    g = generate(events)
    for t in ("bid", "auction", "person"):
        log.create_topic(t, 4)
    engine = Engine(f"{d}/engine", {"auto.offset.reset": "earliest", **(properties or {})}, log=log)
    engine.execute(SOURCES_SQL)
    return engine, log, g


def _load(log: Any, g: Any, topic: str = "bid") -> None:
    ks, vs, ts = g.keys[topic], g.values[topic], g.timestamps[topic]
    for s in range(0, len(vs), 50_000):
        with log.transaction() as tx:
            tx.produce_batch(topic, None, ks[s:s + 50_000], vs[s:s + 50_000], ts[s:s + 50_000])


def _paced(lookup: Any, busy: Any, lookups: int, gap_s: float, deadline_s: float = 120.0, more: Any = None,
           min_samples: int = 0) -> tuple[list[float], int, int]:
    """Time ``lookup(i)`` calls while ``busy()``: one every ``gap_s`` (a client asking now and then,
    so each lookup must win the interpreter back from the busy query), back to back with ``gap_s=0``.
    When the load has drained with fewer than ``min_samples`` lookups taken, ``more()`` adds another copy of
    it (a p99 of a few hundred samples is its two or three slowest); returns (latencies, found, copies)."""
    lat: list[float] = []
    found = 0
    copies = 1
    deadline = time.perf_counter() + deadline_s
    while len(lat) < lookups and time.perf_counter() < deadline:
        if not busy():
            if more is None or len(lat) >= min_samples:
                break
            more()
            copies += 1
            continue
        if gap_s:
            time.sleep(gap_s)
        ms, ok = lookup(len(lat))
        lat.append(ms)
        found += ok
    if not lat:
        raise RuntimeError("the load query finished before any lookup")
    return lat, found, copies


def _auctions(g: Any) -> list[int]:
    return sorted({int.from_bytes(k, "big", signed=True) for k in g.keys["bid"]})


TABLE_SQL = "CREATE TABLE bids_per_auction AS SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction;"


def pull(events: int, lookups: int = 2000, mode: str = "engine", gap_ms: float = 2.0, client: str = "stdlib",
         server_properties: dict[str, str] | None = None, min_samples: int = 1000) -> dict[str, Any]:
    """Key lookups through the Engine API while a second copy of the bids drains through q7 and the table's
    own query. ``mode``: ``engine`` - queries in the engine's background thread (one interpreter with the
    lookups); ``workers`` - queries in worker processes (``ksqlpy.workers=process``)."""
    if mode == "rest":
        return pull_rest(events, lookups, gap_ms, client, server_properties, min_samples)
    # ksqlpy.workers is read from the engine's configuration: it has to be there when the engine is built
    engine, log, g = _engine(events, {"ksqlpy.workers": "process"} if mode == "workers" else None)
    _load(log, g)
    engine.execute(TABLE_SQL)
    engine.drain(3600)
    auctions = _auctions(g)

    def lookup(i: int) -> tuple[float, bool]:
        k = auctions[(i * 7919) % len(auctions)]
        t0 = time.perf_counter()
        res = engine.execute(f"SELECT * FROM bids_per_auction WHERE auction = {k};")
        return (time.perf_counter() - t0) * 1000, bool(res[0].data["rows"])

    load_idle = os.getloadavg()[0]
    idle = [lookup(i)[0] for i in range(lookups // 4)]
    # load: a second copy of the bids arrives and a windowed aggregation over all of them drains in the
    # engine's background runner (or its workers); lookups are timed until it has caught up
    _load(log, g)
    engine.execute(WORKLOADS["q7"].sql.format(sink="bench_load_q7"))
    engine.start()
    if mode == "workers":
        from ksqlpy.runtime.coordinator import workers_caught_up

        inline = [qid for qid, q in engine.queries.items() if getattr(q, "workers", None) is None]
        if inline:  # the row would measure the engine's own thread under the workers' name
            raise RuntimeError(f"not run in worker processes: {', '.join(inline)}")
        state: dict[str, Any] = {}

        def restart() -> None:
            state.update(seen=None, busy=True, checked=0.0)

        def busy() -> bool:
            # caught up: every worker-run query committed its inputs' ends, twice in a row with the same
            # ends (Engine.drain's rule); read from the log every 50 ms, not per lookup
            now = time.perf_counter()
            if state["busy"] and now - state["checked"] >= 0.05:
                state["checked"] = now
                done, state["seen"] = workers_caught_up(engine.worker_manager, state["seen"])
                state["busy"] = not done
            return bool(state["busy"])
        restart()
    else:
        def restart() -> None:
            pass

        def busy() -> bool:
            return any(t.position < log.end_offset(t.topic, t.partition)
                       for q in list(engine.queries.values()) for t in q.tasks)

    def more() -> None:  # another copy of the bids: the lookups go on under load
        _load(log, g)
        restart()

    t0 = time.perf_counter()
    cpu0 = time.process_time()
    lat, found, copies = _paced(lookup, busy, lookups, gap_ms / 1000, more=more, min_samples=min_samples)
    # this process's CPU per lookup under load (with the queries in workers: the lookups and the copies'
    # catch-up; inline: the queries too)
    cpu_ms = (time.process_time() - cpu0) * 1000 / len(lat)
    loaded_s = time.perf_counter() - t0
    load_draining = os.getloadavg()[0]
    engine.close()
    return _summary(f"pull-{mode}", lat, {"via": "Engine.execute", "gap_ms": gap_ms, "found": found,
                                           "load_seconds": round(loaded_s, 2), "load_copies": copies,
                                           "draining_process_cpu_ms": round(cpu_ms, 3),
                                           "idle_p50_ms": _pct(idle, 50), "idle_p99_ms": _pct(idle, 99),
                                           **_machine_load(load_idle, load_draining)})


class _StdlibClient:
    """``http.client`` over one keep-alive connection: a real HTTP/1.1 client with little of its own cost
    (httpx spends ~1 ms of client CPU per request, which would be most of what is measured)."""

    def __init__(self, url: str, timeout: float) -> None:
        import http.client
        from urllib.parse import urlsplit

        u = urlsplit(url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)

    def post_json(self, path: str, body: Any, accept: str = "application/json") -> tuple[int, bytes]:
        data = orjson.dumps(body)
        self.conn.request("POST", path, data, {"Accept": accept, "Content-Type": "application/json"})
        r = self.conn.getresponse()
        return r.status, r.read()

    def close(self) -> None:
        self.conn.close()


class _HttpxClient:
    def __init__(self, url: str, timeout: float) -> None:
        import httpx

        self.c = httpx.Client(base_url=url, timeout=timeout)

    def post_json(self, path: str, body: Any, accept: str = "application/json") -> tuple[int, bytes]:
        r = self.c.post(path, json=body, headers={"Accept": accept})
        return r.status_code, r.content

    def close(self) -> None:
        self.c.close()


def _cpu_s(pid: int) -> float:
    """user + sys CPU seconds of a process so far (Linux /proc)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pull_rest(events: int, lookups: int = 2000, gap_ms: float = 2.0, client: str = "stdlib",
              server_properties: dict[str, str] | None = None, min_samples: int = 1000) -> dict[str, Any]:
    """The same lookups as ``pull`` over HTTP: ``POST /query-stream`` to a ``ksqlpy server`` (queries in
    its background thread), timed by the client from request to the whole body; HTTP/1.1 keep-alive.
    ``client``: ``stdlib`` (``http.client``) or ``httpx``."""
    from ksqlpy.log import EmbeddedLog
    from ksqlpy.testing.server_process import ServerProcess

    d = tempfile.mkdtemp(prefix="ksqlpy-bench-rest-")
    g = generate(events)
    log = EmbeddedLog(f"{d}/log")
    for t in ("bid", "auction", "person"):
        log.create_topic(t, 4)
    _load(log, g)
    server = ServerProcess(d, server_properties).start()
    assert server.proc is not None
    pid = server.proc.pid
    c = (_StdlibClient if client == "stdlib" else _HttpxClient)(server.url, 30)
    try:
        def ksql(sql: str) -> None:
            status, body = c.post_json("/ksql", {"ksql": sql, "streamsProperties": {"auto.offset.reset": "earliest"}})
            if status != 200:
                raise RuntimeError(body.decode())

        ksql(SOURCES_SQL)
        ksql(TABLE_SQL)
        auctions = _auctions(g)
        last = g.keys["bid"][-1]
        want = sum(1 for k in g.keys["bid"] if k == last)

        def rows(k: int) -> list[Any]:
            status, body = c.post_json("/query-stream", {"sql": f"SELECT * FROM bids_per_auction WHERE auction = {k};"})
            if status != 200:
                raise RuntimeError(body.decode())
            return list(orjson.loads(body)[1:])

        k_last = int.from_bytes(last, "big", signed=True)
        end = time.monotonic() + 600
        while rows(k_last) != [[k_last, want]]:
            if time.monotonic() > end:
                raise RuntimeError("the table did not catch up with the bids")
            time.sleep(0.2)

        def lookup(i: int) -> tuple[float, bool]:
            k = auctions[(i * 7919) % len(auctions)]
            t0 = time.perf_counter()
            got = rows(k)
            return (time.perf_counter() - t0) * 1000, bool(got)

        load_idle = os.getloadavg()[0]
        cpu0, own0 = _cpu_s(pid), time.process_time()
        idle = [lookup(i)[0] for i in range(lookups // 4)]
        cpu1, own1 = _cpu_s(pid), time.process_time()
        _load(log, g)
        ksql(WORKLOADS["q7"].sql.format(sink="bench_load_q7"))
        busy = _caught_up_in_log(log, "BENCH_LOAD_Q7")

        def more() -> None:  # another copy of the bids: the lookups go on under load
            _load(log, g)
            busy.restart()  # type: ignore[attr-defined]

        t0 = time.perf_counter()
        cpu2 = _cpu_s(pid)
        lat, found, copies = _paced(lookup, busy, lookups, gap_ms / 1000, more=more, min_samples=min_samples)
        cpu3 = _cpu_s(pid)
        loaded_s = time.perf_counter() - t0
        load_draining = os.getloadavg()[0]
    finally:
        c.close()
        server.stop()
        log.close()
    via = f"POST /query-stream over {'http.client' if client == 'stdlib' else 'httpx'}" + "".join(
        f", {k}={v}" for k, v in (server_properties or {}).items())
    return _summary("pull-rest", lat, {"via": via, "client": client, "gap_ms": gap_ms,
                                       "found": found, "load_seconds": round(loaded_s, 2), "load_copies": copies,
                                       "idle_server_cpu_ms": round((cpu1 - cpu0) * 1000 / len(idle), 3),
                                       # the server process's CPU (its threads, not its worker processes) while
                                       # the lookups ran under load, per lookup: the requests and whatever else
                                       # it did meanwhile (keeping worker-run tables' copies caught up)
                                       "draining_server_cpu_ms": round((cpu3 - cpu2) * 1000 / len(lat), 3),
                                       "idle_client_cpu_ms": round((own1 - own0) * 1000 / len(idle), 3),
                                       "idle_p50_ms": _pct(idle, 50), "idle_p99_ms": _pct(idle, 99),
                                       **_machine_load(load_idle, load_draining)})


def _machine_load(idle: float, draining: float) -> dict[str, Any]:
    """The machine's 1-minute load average when the idle lookups began and when the draining ones ended,
    and its cores: a p99 means little on a machine whose other work takes the cores."""
    return {"load_avg_idle": round(idle, 2), "load_avg_draining": round(draining, 2), "cpus": os.cpu_count()}


def _caught_up_in_log(log: Any, sink: str, period_s: float = 0.05) -> Any:
    """``busy()`` for queries in another process (the server's): busy until ``sink`` has grown since the start
    (or the last ``busy.restart()``), then until every persistent query's group has committed each partition
    it reads up to its end, twice in a row with the same ends (``Engine.drain``'s rule; a commit between an
    input and the repartition topic it feeds shows as a moved end). Read from the log every ``period_s``.
    (The sink merely not growing for a second counted that second's lookups, ~400 on an idle server, as
    lookups under load.)"""
    state: dict[str, Any] = {}

    def sink_ends() -> list[int]:
        return [log.end_offset(sink, p) for p in range(log.describe_topic(sink).partitions)] \
            if log.topic_exists(sink) else []

    def behind() -> dict[tuple[str, str, int], int] | None:
        got = {}
        topics = [(t.name, t.partitions) for t in log.list_topics()]
        for g in log.groups():
            if "query_" not in g or "transient" in g.lower():
                continue
            for name, parts in topics:
                for p in range(parts):
                    committed = log.committed(g, name, p)
                    if committed is None:
                        continue
                    end = log.end_offset(name, p)
                    if committed < end:
                        return None
                    got[(g, name, p)] = end
        return got

    def restart() -> None:
        state.update(base=sink_ends(), started=False, seen=None, busy=True, checked=0.0)

    def busy() -> bool:
        now = time.perf_counter()
        if state["busy"] and now - state["checked"] >= period_s:
            state["checked"] = now
            if not state["started"]:
                state["started"] = sink_ends() != state["base"]
            else:
                got = behind()
                state["busy"] = not (got is not None and got == state["seen"])
                state["seen"] = got
        return bool(state["busy"])

    restart()
    busy.restart = restart  # type: ignore[attr-defined]
    return busy


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
    import argparse

    ap = argparse.ArgumentParser(prog="python -m bench.latency")
    ap.add_argument("kind", choices=["pull", "push"])
    ap.add_argument("events", type=int, nargs="?", default=100_000)
    ap.add_argument("--mode", choices=["engine", "workers", "rest"], default="engine",
                    help="pull: Engine API with queries in the engine process / in worker processes, or REST")
    ap.add_argument("--gap-ms", type=float, default=2.0, help="pull: pause before each lookup (0: back to back)")
    ap.add_argument("--min-samples", type=int, default=1000,
                    help="pull: lookups to take under load at least (another copy of the bids arrives while fewer)")
    ap.add_argument("--client", choices=["stdlib", "httpx"], default="stdlib",
                    help="rest: the HTTP client (http.client, or httpx with ~1 ms of its own CPU per request)")
    ap.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=VALUE",
                    help="rest: a server property (e.g. ksqlpy.server.lean.lookups=false)")
    a = ap.parse_args(argv)
    props = dict(d.split("=", 1) for d in a.defines)
    result = pull(a.events, mode=a.mode, gap_ms=a.gap_ms, client=a.client, server_properties=props,
                  min_samples=a.min_samples) \
        if a.kind == "pull" else push(a.events)
    sys.stdout.buffer.write(orjson.dumps(result) + b"\n")


if __name__ == "__main__":
    main(sys.argv[1:])
