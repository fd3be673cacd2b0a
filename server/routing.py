"""Pull queries in a cluster: answered from the partitions this server holds, forwarded for the rest.

ksqlDB's ``HARouting``. A pull query on a table is first run as a probe (``engine/pull_partitions.py``) to
learn which partitions it reads: the partition of each looked-up key, or all of them for a scan. For
each partition the hosts holding it are scanned in ksqlDB's order - its active host, then its standby
hosts, least lagging first - through ksqlDB's routing filters: without
``ksql.query.pull.enable.standby.reads`` only the active host is taken; a host must be alive
(membership.py); its copy must lag its changelog by no more than ``ksql.query.pull.max.allowed.offset.lag``
offsets. A partition no host passes for fails the query with ksqlDB's message naming, per partition, the
hosts scanned and why each was excluded. Partitions whose first candidate is this server are read here;
the others are forwarded, grouped per host, as ksqlDB forwards them: ``POST /query`` with the statement,
the request's properties, and the request properties ``request.ksql.query.pull.skip.forwarding``,
``request.ksql.internal.request`` and ``request.ksql.query.pull.partitions`` (the partitions that host is
to read). A host that cannot be reached gives way to the next candidate; when none is left the query fails
with ksqlDB's "Exhausted standby hosts to try." The rows are merged (LIMIT applied to the whole). A
request with ``request.ksql.debug.request`` gets each row's ``sourceHost`` (host:port) as ksqlDB's
StreamedRow carries it; every routed response also names its hosts in ``SOURCE_HOSTS_HEADER``.
"""

from __future__ import annotations

import contextvars
import dataclasses
import http.client
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import orjson

from ksqlpy.engine import consistency
from ksqlpy.engine.config import as_bool, resolve
from ksqlpy.engine.consistency import merged
from ksqlpy.engine.pull_partitions import Probe, reading
from ksqlpy.errors import KsqlError
from ksqlpy.server.membership import host_key

if TYPE_CHECKING:
    from ksqlpy.server.context import ServerContext
    from ksqlpy.server.queries import QueryRun

LOG = logging.getLogger("ksqlpy.cluster")

SKIP_FORWARDING = "request.ksql.query.pull.skip.forwarding"
INTERNAL_REQUEST = "request.ksql.internal.request"
PULL_PARTITIONS = "request.ksql.query.pull.partitions"
DEBUG_REQUEST = "request.ksql.debug.request"
INTERNAL_KEYS = (SKIP_FORWARDING, INTERNAL_REQUEST, PULL_PARTITIONS, DEBUG_REQUEST)
SOURCE_HOSTS_HEADER = "X-Ksqlpy-Source-Hosts"
MAX_LAG_DEFAULT = 2 ** 63 - 1

# the requestProperties of the request being served (set by the /query handler)
request_properties: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "ksqlpy_request_properties", default=None)


def bind_request(properties: dict[str, Any] | None) -> None:
    """The request being served is ``properties`` (its ``requestProperties``): the routing flags a forwarded
    pull query brings, and the consistency vector that bounds a pull query (``engine/consistency.py``) -
    for /query, /query-stream and /ws/query alike, as ksqlDB's QueryExecutor reads both from the request
    whatever endpoint it came through (from memory)."""
    request_properties.set(properties or None)
    token = (properties or {}).get(consistency.REQUEST_VECTOR)
    consistency.requested.set(str(token) if token else None)


def source_hosts_header(run: Any) -> dict[str, str]:
    """The response header naming the hosts that served a routed pull query (none for other queries)."""
    hosts = getattr(run, "source_hosts", None)
    return {SOURCE_HOSTS_HEADER: ",".join(hosts)} if hosts else {}


class RoutingError(KsqlError):
    """No live host can serve some partition the pull query needs."""


def split_internal(properties: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the request's overrides, its internal routing flags): the flags are taken from
    ``requestProperties`` (where ksqlDB puts them) or the overrides, and never reach the engine."""
    internal = dict(request_properties.get() or {})
    props = {}
    for k, v in (properties or {}).items():
        if k in INTERNAL_KEYS:
            internal.setdefault(k, v)
        else:
            props[k] = v
    return props, {k: v for k, v in internal.items() if k in INTERNAL_KEYS}


def _partitions_of(value: Any) -> frozenset[int] | None:
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return frozenset(int(p) for p in value)
    text = str(value).strip()
    return frozenset(int(p) for p in text.split(",") if p.strip()) if text else frozenset()


def routed_start(ctx: ServerContext, sql: str, properties: dict[str, Any], variables: dict[str, Any],
                 local: Callable[[dict[str, Any]], QueryRun]) -> QueryRun:
    """Start a query request: ``local(overrides)`` runs it here; a pull query on a table in a cluster is
    routed (see the module docstring)."""
    props, internal = split_internal(properties)
    membership = getattr(ctx, "membership", None)
    if membership is None or not membership.remote:
        return local(props)
    me = membership.me
    debug = as_bool(internal.get(DEBUG_REQUEST, "false"))
    parts = _partitions_of(internal.get(PULL_PARTITIONS))
    if parts is not None:  # forwarded here: read exactly these partitions
        with reading(parts):
            run = local(props)
        run.source_hosts = [host_key(me)]
        return _served_here(run, me, debug)
    if as_bool(internal.get(SKIP_FORWARDING, "false")):
        return _served_here(local(props), me, debug)
    probe = Probe()
    with reading(None, probe):
        first = local(props)
    from ksqlpy.server.queries import PULL_TABLE

    if first.error is not None:  # failed when it ran here before any partition was known: no host can serve it
        return _served_here(first, me, debug)
    if first.kind != PULL_TABLE or probe.query_id is None:
        return _served_here(first, me, debug)  # not a table's pull query: what ran is the answer
    needed = set(range(probe.partitions)) if probe.scan or not probe.keyed else set(probe.needed)
    plan = _plan(ctx, probe.query_id, needed, props)
    return _gather(ctx, first, plan, sql, props, variables, local, debug)


def _served_here(run: QueryRun, me: str, debug: bool) -> QueryRun:
    """A debug request's pull query answered by this server alone: every row's source is this host."""
    from ksqlpy.server.queries import PULL_STREAM, PULL_TABLE

    if debug and run.kind in (PULL_TABLE, PULL_STREAM):
        run.row_hosts = [host_key(me)] * len(run.rows)
    return run


def _setting(ctx: ServerContext, props: dict[str, Any], name: str, default: Any) -> Any:
    return resolve(name, ctx.config.properties, ctx.engine.session_properties, props, default=default)


@dataclass(frozen=True)
class Scanned:
    """A host considered for one partition (ksqlDB's routing ``Host``): chosen, or why it was not."""

    url: str
    reason: str | None = None  # the filter that excluded it; None: selected

    def __str__(self) -> str:
        return host_key(self.url) if self.reason is None else f"{host_key(self.url)} ({self.reason})"


def _scan(ctx: ServerContext, qid: str, partition: int, props: dict[str, Any]) -> list[Scanned]:
    """The hosts holding ``partition`` through ksqlDB's routing filters, in its order (active, liveness,
    maximum lag), each selected or with the reason the first filter that refused it gives."""
    max_lag = int(_setting(ctx, props, "ksql.query.pull.max.allowed.offset.lag", MAX_LAG_DEFAULT))
    standby_reads = as_bool(_setting(ctx, props, "ksql.query.pull.enable.standby.reads", "false"))
    out: list[Scanned] = []
    for holder in ctx.membership.holders(qid, partition):
        if not holder.active and not standby_reads:
            reason: str | None = "Host is not the active host for this partition."
        elif not holder.alive:
            # ksqlDB's LivenessFilter names the host's last status update, the last time it was known alive
            reason = f"Host is not alive as of time {holder.timestamp}."
        elif holder.lag > max_lag:
            reason = f"Host excluded because lag {holder.lag} exceeds maximum allowed lag {max_lag}."
        else:
            reason = None
        out.append(Scanned(holder.url, reason))
    return out


def _plan(ctx: ServerContext, qid: str, needed: set[int], props: dict[str, Any]) -> dict[int, list[str]]:
    plan: dict[int, list[str]] = {}
    empty: dict[int, list[Scanned]] = {}
    for p in sorted(needed):
        scanned = _scan(ctx, qid, p, props)
        chosen = [s.url for s in scanned if s.reason is None]
        if chosen:
            plan[p] = list(dict.fromkeys(chosen))
        else:
            empty[p] = scanned
    if empty:
        raise RoutingError("Unable to execute pull query. [" + ", ".join(
            f"Partition {p} failed to find valid host. Hosts scanned: [{', '.join(map(str, hosts))}]"
            for p, hosts in empty.items()) + "]")
    return plan


def _gather(ctx: ServerContext, first: QueryRun, plan: dict[int, list[str]], sql: str, props: dict[str, Any],
            variables: dict[str, Any], local: Callable[[dict[str, Any]], QueryRun], debug: bool = False) -> QueryRun:
    me = ctx.membership.me
    rows: list[Any] = []
    row_hosts: list[str] = []
    served: list[str] = []
    pending = dict(plan)
    # a consistency token's parts: every host that served some partitions answers with the vector of what it
    # read; HARouting merges each into the query's vector (from memory of HARouting.forwardTo)
    tokens: list[str | None] = [first.consistency_token]
    while pending:
        by_host: dict[str, set[int]] = {}
        for p, hosts in pending.items():
            by_host.setdefault(hosts[0], set()).add(p)
        failed: dict[str, Exception] = {}

        def serve(host: str, parts: set[int]) -> list[Any]:
            if host == me:
                with reading(frozenset(parts)):
                    run = local(props)
                if run.error is not None:  # failed when it ran here: as a host that failed, the next one is asked
                    raise ForwardError(run.error)
                tokens.append(run.consistency_token)
                return [run.convert(r) for r in run.rows]
            return forward(host, sql, props, variables, parts, timeout_s=_forward_timeout(ctx, props),
                           tokens=tokens)

        results: dict[str, list[Any]] = {}
        if len(by_host) == 1:
            host, parts = next(iter(by_host.items()))
            try:
                results[host] = serve(host, parts)
            except ForwardError as e:
                failed[host] = e
        else:
            with ThreadPoolExecutor(max_workers=len(by_host)) as pool:
                futures = {h: pool.submit(contextvars.copy_context().run, serve, h, ps) for h, ps in by_host.items()}
                for h, f in futures.items():
                    try:
                        results[h] = f.result()
                    except ForwardError as e:
                        failed[h] = e
        for h in by_host:
            if h in results:
                rows.extend(results[h])
                row_hosts.extend([host_key(h)] * len(results[h]))
                served.append(host_key(h))
        next_pending = {}
        exhausted = False
        for p, hosts in pending.items():
            if hosts[0] in failed:
                if len(hosts) == 1:
                    LOG.debug("partition %s could not be read from %s: %s", p, hosts[0], failed[hosts[0]])
                    exhausted = True
                next_pending[p] = hosts[1:]
        if exhausted:
            from ksqlpy.server.queries import exhausted_message

            # ksqlDB's groupByHost throws while HARouting runs the rounds, after the response's header: the
            # rows read so far, then the error element
            return dataclasses.replace(first, rows=rows, convert=list, source_hosts=served,
                                       row_hosts=row_hosts if debug else None, error=exhausted_message(sql))
        pending = next_pending
    if first.limit is not None:
        rows = rows[:first.limit]
        row_hosts = row_hosts[:first.limit]
    token = None if first.consistency_token is None else merged(tokens)
    return dataclasses.replace(first, rows=rows, convert=list, source_hosts=served,
                               row_hosts=row_hosts if debug else None, consistency_token=token)


def _forward_timeout(ctx: ServerContext, props: dict[str, Any]) -> float:
    return int(_setting(ctx, props, "ksql.query.pull.forwarding.timeout.ms", 20000)) / 1000


class ForwardError(Exception):
    """A host could not answer a forwarded pull query (unreachable, or it answered with an error that is
    not the statement's)."""


_connections = threading.local()


def _connection(url: str, timeout_s: float) -> http.client.HTTPConnection:
    pool: dict[str, http.client.HTTPConnection] = getattr(_connections, "pool", None) or {}
    _connections.pool = pool
    conn = pool.get(url)
    if conn is None:
        parts = urlsplit(url)
        cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        conn = pool[url] = cls(parts.hostname or "localhost", parts.port, timeout=timeout_s)
    conn.timeout = timeout_s
    return conn


def forward(url: str, sql: str, props: dict[str, Any], variables: dict[str, Any], partitions: set[int],
            timeout_s: float = 20.0, tokens: list[str | None] | None = None) -> list[list[Any]]:
    """Ask ``url`` for the rows of ``partitions`` (ksqlDB's internal /query request); the rows' columns.
    The request's consistency vector goes along (the host checks its stores against it) and the host's
    token, if it answers with one, is appended to ``tokens``."""
    internal: dict[str, Any] = {SKIP_FORWARDING: True, INTERNAL_REQUEST: True,
                                PULL_PARTITIONS: ",".join(str(p) for p in sorted(partitions))}
    vector = consistency.requested.get()
    if vector:
        internal[consistency.REQUEST_VECTOR] = vector
    body = orjson.dumps({"ksql": sql, "streamsProperties": props, "sessionVariables": variables,
                         "requestProperties": internal})
    headers = {"Content-Type": "application/json", "Accept": "application/vnd.ksql.v1+json"}
    for attempt in (0, 1):  # a kept-alive connection the server closed meanwhile is opened again once
        conn = _connection(url, timeout_s)
        try:
            conn.request("POST", "/query", body=body, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
            status = resp.status
            break
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            if attempt:
                raise ForwardError(str(e) or type(e).__name__) from e
    if status != 200:
        try:
            err = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise ForwardError(f"HTTP {status}") from None
        if isinstance(err, dict) and status < 500:
            raise KsqlError(str(err.get("message", f"HTTP {status}")))
        raise ForwardError(f"HTTP {status}: {raw[:200]!r}")
    rows: list[list[Any]] = []
    for item in orjson.loads(raw):
        if "row" in item:
            rows.append(item["row"]["columns"])
        elif "consistencyToken" in item and tokens is not None:
            token = item["consistencyToken"]
            tokens.append(token.get("consistencyToken") if isinstance(token, dict) else token)
        elif "errorMessage" in item:
            message = item["errorMessage"].get("message", "error") if isinstance(item["errorMessage"], dict) else \
                str(item["errorMessage"])
            raise ForwardError(message)
    return rows
