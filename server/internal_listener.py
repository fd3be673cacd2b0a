"""``ksql.internal.listener``: a second listener for the traffic between the servers of a cluster.

As ksqlDB's (from memory of ServerVerticle / InternalEndpointHandler and KsqlRestConfig.getInterNodeListener):

* the server listens on it besides ``listeners`` (main.py), and serves every endpoint there;
* it is where the other servers reach this one - the advertised listener written in the host status and
  used to forward pull queries - unless ``ksql.advertised.listener`` names another (membership.py);
* the internal endpoints, ``POST /heartbeat`` and ``POST /lag``, are served only on it: on any other
  listener they are refused with 400 and error code 40005 (``ERROR_CODE_INTERNAL_ONLY``). With no internal
  listener set, every listener serves them.
"""

from __future__ import annotations

from typing import Any

from ksqlpy.server.errors import INTERNAL_ONLY, ServerError

INTERNAL_PATHS = frozenset({"/heartbeat", "/lag"})
ON_PUBLIC_LISTENER = "Can't call internal endpoint on public listener"


def check_internal(config: Any, scope: dict[str, Any]) -> None:
    """Refuse an internal endpoint reached on a public listener while an internal listener is set."""
    internal = config.internal_listener
    if internal is None or any(lst.bind == internal.bind for lst in config.listeners):
        return  # no internal listener, or one of the public ones: every listener is internal
    server = scope.get("server")
    if server is None or len(server) < 2 or server[1] != internal.port:
        raise ServerError(INTERNAL_ONLY, ON_PUBLIC_LISTENER)
