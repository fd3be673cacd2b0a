"""Cluster membership: which servers of this service id are alive, and which partitions each one holds.

ksqlDB's servers learn of each other from Kafka Streams' group metadata and then exchange ``/heartbeat``
and ``/lag`` messages. Here every server publishes a *host status* - its advertised listener
(``ksql.advertised.listener``), a timestamp, and for every persistent query the partitions it processes
(active), the ones it keeps a standby of, and the offset lag of its copies - to the internal topic
``_confluent-ksql-<service id>_cluster_status`` every ``ksql.heartbeat.send.interval.ms``, and reads
everyone else's from it: the topic is both the discovery and the heartbeat. A host whose last status is
older than ``ksql.heartbeat.window.ms`` is dead for routing. ``POST /heartbeat`` and ``POST /lag`` take
ksqlDB's messages too (a heartbeat keeps a host alive, a lag report updates its lags).

The same thread keeps this server's copies of its active and standby partitions caught up with their
changelogs (``ownership.refresh``), every ``ksqlpy.standby.refresh.interval.ms``. When this server's
member thread is given a partition (a failover, a rebalance), its stores start their restore phase from
those copies (``ownership.warm_copy``): only the changelog's tail past the standby is replayed.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import orjson

from ksqlpy.log.base import ProducerRecord
from ksqlpy.runtime.context import Hosting
from ksqlpy.server import ownership as O

if TYPE_CHECKING:
    from ksqlpy.server.context import ServerContext

LOG = logging.getLogger("ksqlpy.cluster")

DEFAULTS = {
    "ksql.heartbeat.send.interval.ms": 200,
    "ksql.heartbeat.window.ms": 2000,
    "ksql.lag.reporting.send.interval.ms": 1000,
    "ksqlpy.standby.refresh.interval.ms": 100,
    "num.standby.replicas": 0,
}


def prepare_engine(engine: Any) -> None:
    """A server whose log other servers can share (Kafka) runs inline persistent queries as members of
    their consumer groups (``runtime/member_thread.py``) and keeps its copies of their state caught up in
    the background (``Membership.refresh_copies``), never two servers processing one partition; the
    servers run the same statements at once, so a topic may be created by another meanwhile."""
    if engine.log.remote_commit:
        engine.hosting = Hosting(members_in_threads=True, standby_refresh=True,
                                 store_copies=lambda changelog, partition: O.warm_copy(engine, changelog, partition))
        engine.log.concurrent_creates = True


def status_topic(service_id: str) -> str:
    return f"_confluent-ksql-{service_id}_cluster_status"


def advertised_listener(ctx: ServerContext) -> str:
    """``ksql.advertised.listener``, else ``ksql.internal.listener``, else the first listener (a wildcard host
    read as localhost): where the other servers reach this one (from memory of ksqlDB's
    KsqlRestConfig.getInterNodeListener)."""
    given = ctx.config.get("ksql.advertised.listener")
    if given:
        return str(given).strip().rstrip("/")
    listener = ctx.config.internal_listener or ctx.config.listeners[0]
    host = "localhost" if listener.host in ("0.0.0.0", "::") else listener.host
    return f"{listener.scheme}://{host}:{listener.port}"


def host_key(url: str) -> str:
    """``host:port`` of a listener URL: how /clusterStatus names hosts."""
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port}"


@dataclass
class HostView:
    """The last status of one server, and when it came (its own clock, as ksqlDB's heartbeats carry)."""

    listener: str
    timestamp: int = 0  # ms, the host's clock
    queries: dict[str, O.QueryPlacement] = field(default_factory=dict)
    lag_update: int = 0
    store_lags: dict[str, Any] = field(default_factory=dict)  # ksqlDB's stateStoreLags, as last reported


@dataclass(frozen=True)
class Holder:
    """A host's copy of one partition of a query, as its last status reported it."""

    url: str
    active: bool
    lag: int  # offsets behind the changelog's end
    alive: bool
    timestamp: int  # of the report (ms, the host's clock)


class Membership:
    """This server's membership thread: publish, read, place standbys, refresh copies."""

    def __init__(self, ctx: ServerContext) -> None:
        self.ctx = ctx
        self.engine = ctx.engine
        self.log = ctx.engine.log
        self.me = advertised_listener(ctx)
        self.topic = status_topic(ctx.config.service_id)
        self.hosts: dict[str, HostView] = {}
        self.lock = threading.RLock()
        self.standby: dict[str, set[int]] = {}  # query id -> partitions this host keeps a standby of
        self._lags: dict[str, dict[int, int]] = {}
        self._store_lags: dict[str, dict[str, Any]] = {}  # query id -> ksqlDB's stateStoreLags entries
        self._lag_time = 0
        self._next_lags = 0.0
        self._position = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.remote = bool(getattr(self.log, "remote_commit", False))  # other servers can share this log

    # ------------------------------------------------------------------ settings
    def setting(self, name: str) -> int:
        value = self.ctx.config.get(name)
        if value is None:
            value = self.engine.prop(name, DEFAULTS[name])
        try:
            return int(str(value).strip())
        except ValueError:
            return int(DEFAULTS[name])

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        if self.remote:
            info = self.log.describe_topic(self.topic)
            if info is None:
                try:
                    self.log.create_topic(self.topic, 1, 1, {"retention.ms": "3600000", "cleanup.policy": "delete"})
                except Exception:  # noqa: BLE001 - another server created it meanwhile
                    LOG.debug("creating %s", self.topic, exc_info=True)
            end = self.log.end_offset(self.topic, 0)
            self._position = max(self.log.start_offset(self.topic, 0), end - 2000)
        self._thread = threading.Thread(target=self._loop, name="ksqlpy-membership", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def _loop(self) -> None:
        next_publish = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            try:
                if now >= next_publish:
                    next_publish = now + self.setting("ksql.heartbeat.send.interval.ms") / 1000
                    self.publish()
                if self.remote:
                    self.read()
                self.place_standbys()
                self.refresh_copies()
            except Exception:  # noqa: BLE001 - the membership thread must survive a broken round
                LOG.warning("cluster membership round failed", exc_info=True)
            self._stop.wait(self.setting("ksqlpy.standby.refresh.interval.ms") / 1000)

    # ------------------------------------------------------------------ this host
    def local_status(self) -> dict[str, Any]:
        engine = self.engine
        now = time.monotonic()
        with_lags = now >= self._next_lags
        if with_lags:
            self._next_lags = now + self.setting("ksql.lag.reporting.send.interval.ms") / 1000
        queries: dict[str, Any] = {}
        for qid, q in list(engine.queries.items()):
            if getattr(q, "state", "RUNNING") == "TERMINATED":
                continue
            active = O.active_partitions(q)
            standby = sorted(self.standby.get(qid, set()) - set(active))
            if with_lags:
                self._store_lags[qid] = O.store_lags(engine, q, active + standby)
                self._lags[qid] = O.partition_lags(self._store_lags[qid])
            queries[qid] = O.QueryPlacement(O.query_partitions(q), active, standby, dict(self._lags.get(qid, {})),
                                            O.store_names(engine, q), O.input_topics(q)).to_json()
        for gone in set(self._store_lags) - set(queries):
            self._store_lags.pop(gone, None)
            self._lags.pop(gone, None)
        parts = urlsplit(self.me)
        now_ms = int(time.time() * 1000)
        if with_lags:
            self._lag_time = now_ms
        store_lags = {k: v for lags in self._store_lags.values() for k, v in lags.items()}
        return {"hostInfo": {"host": parts.hostname, "port": parts.port}, "advertisedListener": self.me,
                "timestamp": now_ms, "queries": queries,
                "hostStoreLags": {"stateStoreLags": store_lags, "updateTimeMs": self._lag_time}}

    def publish(self) -> None:
        status = self.local_status()
        self._take(status)
        if self.remote:
            self.log.produce(ProducerRecord(self.topic, self.me.encode(), orjson.dumps(status), partition=0))

    # ------------------------------------------------------------------ the others
    def read(self) -> None:
        for _ in range(100):
            batch = self.log.fetch(self.topic, 0, self._position, 1000)
            if not batch.offsets:
                return
            for value in batch.values:
                if value:
                    try:
                        self._take(orjson.loads(value))
                    except Exception:  # noqa: BLE001 - a status we cannot read is skipped
                        LOG.debug("unreadable host status", exc_info=True)
            self._position = batch.next_offset

    def _take(self, status: dict[str, Any]) -> None:
        listener = str(status.get("advertisedListener") or "")
        if not listener:
            return
        ts = int(status.get("timestamp") or 0)
        with self.lock:
            view = self.hosts.setdefault(listener, HostView(listener))
            if ts < view.timestamp:
                return
            view.timestamp = ts
            view.queries = {qid: O.QueryPlacement.from_json(raw) for qid, raw in (status.get("queries") or {}).items()}
            lags = status.get("hostStoreLags") or {}
            view.store_lags = dict(lags.get("stateStoreLags") or {})
            view.lag_update = int(lags.get("updateTimeMs") or ts)

    def heartbeat(self, message: dict[str, Any]) -> None:
        """ksqlDB's ``HeartbeatMessage`` {hostInfo: {host, port}, timestamp}: the host is alive."""
        url = self._url_of(message.get("hostInfo") or {})
        if url is None:
            return
        with self.lock:
            view = self.hosts.setdefault(url, HostView(url))
            view.timestamp = max(view.timestamp, int(message.get("timestamp") or time.time() * 1000))

    def lag_report(self, message: dict[str, Any]) -> None:
        """ksqlDB's ``LagReportingMessage`` {hostInfo, hostStoreLags: {stateStoreLags, updateTimeMs}}."""
        url = self._url_of(message.get("hostInfo") or {})
        lags = message.get("hostStoreLags") or {}
        if url is None:
            return
        with self.lock:
            view = self.hosts.setdefault(url, HostView(url))
            view.lag_update = int(lags.get("updateTimeMs") or time.time() * 1000)
            view.store_lags.update(lags.get("stateStoreLags") or {})
            for store, entry in (lags.get("stateStoreLags") or {}).items():
                qid = _query_of_store(store)
                placement = view.queries.get(qid) if qid else None
                if placement is None:
                    continue
                for p, lag in (entry.get("lagByPartition") or {}).items():
                    placement.lags[int(p)] = int(lag.get("offsetLag", 0))

    def _url_of(self, info: dict[str, Any]) -> str | None:
        host, port = info.get("host"), info.get("port")
        if not host or not port:
            return None
        with self.lock:
            for url in self.hosts:
                if host_key(url) == f"{host}:{port}":
                    return url
        return f"{urlsplit(self.me).scheme}://{host}:{port}"

    # ------------------------------------------------------------------ views
    def alive(self, listener: str) -> bool:
        if listener == self.me:
            return True
        with self.lock:
            view = self.hosts.get(listener)
        return view is not None and time.time() * 1000 - view.timestamp <= self.setting("ksql.heartbeat.window.ms")

    def views(self) -> dict[str, HostView]:
        with self.lock:
            return dict(self.hosts)

    def live_hosts(self) -> list[str]:
        return sorted(h for h in self.views() if self.alive(h))

    def active_hosts(self, qid: str) -> dict[int, str]:
        """Partition -> the live host that reports it active (the latest report wins a tie)."""
        out: dict[int, tuple[int, str]] = {}
        for url, view in self.views().items():
            placement = view.queries.get(qid)
            if placement is None or not self.alive(url):
                continue
            for p in placement.active:
                if p not in out or view.timestamp > out[p][0]:
                    out[p] = (view.timestamp, url)
        return {p: url for p, (_, url) in out.items()}

    def standby_hosts(self, qid: str, partition: int) -> list[tuple[str, int]]:
        """(host, lag) of the live hosts reporting a standby of ``partition``, least lag first."""
        found = []
        for url, view in self.views().items():
            placement = view.queries.get(qid)
            if placement is not None and partition in placement.standby and self.alive(url):
                found.append((url, placement.lags.get(partition, 0)))
        return sorted(found, key=lambda h: (h[1], h[0]))

    def holders(self, qid: str, partition: int) -> list[Holder]:
        """Every host that reports ``partition`` of ``qid``, dead ones included (for the routing's account
        of the hosts it scanned): the newest active report first, then the standbys, least lag first."""
        actives, standbys = [], []
        for url, view in self.views().items():
            placement = view.queries.get(qid)
            if placement is None:
                continue
            holder = Holder(url, partition in placement.active, placement.lags.get(partition, 0), self.alive(url),
                            view.timestamp)
            if holder.active:
                actives.append(holder)
            elif partition in placement.standby:
                standbys.append(holder)
        actives.sort(key=lambda h: (not h.alive, -h.timestamp))
        standbys.sort(key=lambda h: (h.lag, h.url))
        return actives + standbys

    def lag_of(self, url: str, qid: str, partition: int) -> int:
        view = self.views().get(url)
        placement = view.queries.get(qid) if view is not None else None
        return placement.lags.get(partition, 0) if placement is not None else 0

    # ------------------------------------------------------------------ standbys
    def place_standbys(self) -> None:
        replicas = self.setting("num.standby.replicas")
        live = self.live_hosts()
        for qid, q in list(self.engine.queries.items()):
            n = O.query_partitions(q)
            active_of = self.active_hosts(qid)
            placed = O.standby_placement(self.me, live, active_of, n, replicas)
            previous = self.standby.get(qid, set())
            # a partition whose active host is not known now (a rebalance) keeps its standby here
            kept = {p for p in previous if p not in active_of}
            self.standby[qid] = placed | kept
        for qid in list(self.standby):
            if qid not in self.engine.queries:
                del self.standby[qid]

    def refresh_copies(self) -> None:
        """Keep this host's copies of its active and standby partitions caught up (see ownership.py)."""
        if not self.engine.hosting.standby_refresh:
            return
        for qid, q in list(self.engine.queries.items()):
            if getattr(q, "materialization", None) is None or getattr(q, "state", "") == "TERMINATED":
                continue
            wanted = set(O.active_partitions(q)) | self.standby.get(qid, set())
            if wanted:
                O.refresh(self.engine, q, wanted)


def _query_of_store(store: str) -> str | None:
    """``<application id>#<store>`` -> the query id at the end of the application id."""
    app = store.split("#", 1)[0]
    marker = "query_"
    return app[app.rfind(marker) + len(marker):] if marker in app else None
