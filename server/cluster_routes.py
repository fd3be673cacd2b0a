"""``GET /clusterStatus``, ``POST /heartbeat`` and ``POST /lag``: the cluster as this server sees it.

``/clusterStatus`` answers in ksqlDB's shape: per host (``host:port`` of its advertised listener) whether
it is alive, when its last status came, per persistent query its active and standby stores and
partitions, and its stores' lags. Without other servers (an embedded log) only this host appears, with
every partition its tasks run. ``/heartbeat`` and ``/lag`` take ksqlDB's ``HeartbeatMessage`` and
``LagReportingMessage`` (membership.py).
"""

from __future__ import annotations

import time
from typing import Any

from ksqlpy.server.context import ServerContext
from ksqlpy.server.membership import host_key
from ksqlpy.server.models import HeartbeatMessage, LagReportingMessage


def cluster_status(ctx: ServerContext) -> dict[str, Any]:
    from ksqlpy.engine.metrics import host_store_lags

    now = int(time.time() * 1000)
    engine = ctx.engine
    membership = ctx.membership
    if membership is None or not membership.remote:
        per_query = {}
        for qid, q in list(engine.queries.items()):
            per_query[qid] = {"activeStores": [], "standByStores": [], "standByPartitions": [],
                              "activePartitions": [{"topic": t.topic, "partition": t.partition} for t in q.tasks]}
        return {"clusterStatus": {ctx.host: {
            "hostAlive": True, "lastStatusUpdateMs": now, "activeStandbyPerQuery": per_query,
            "hostStoreLags": {"stateStoreLags": host_store_lags(engine), "updateTimeMs": now}}}}
    hosts = {}
    for url, view in sorted(membership.views().items()):
        per_query = {}
        for qid, placement in view.queries.items():
            per_query[qid] = {
                "activeStores": placement.stores if placement.active else [],
                "activePartitions": [{"topic": t, "partition": p} for t in placement.topics for p in placement.active],
                "standByStores": placement.stores if placement.standby else [],
                "standByPartitions": [{"topic": t, "partition": p} for t in placement.topics
                                      for p in placement.standby]}
        hosts[host_key(url)] = {"hostAlive": membership.alive(url), "lastStatusUpdateMs": view.timestamp,
                                "activeStandbyPerQuery": per_query,
                                "hostStoreLags": {"stateStoreLags": view.store_lags, "updateTimeMs": view.lag_update}}
    return {"clusterStatus": hosts}


def take_heartbeat(ctx: ServerContext, message: HeartbeatMessage) -> None:
    """A ``/heartbeat`` from another server (read by the one request rule of models.py)."""
    if ctx.membership is not None:
        ctx.membership.heartbeat(message.model_dump(exclude_none=True))


def take_lag(ctx: ServerContext, message: LagReportingMessage) -> None:
    """A ``/lag`` report from another server."""
    if ctx.membership is not None:
        ctx.membership.lag_report(message.model_dump(exclude_none=True))
