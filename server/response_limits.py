"""A bound on the size of a /ksql response (``ksqlpy.server.response.max.bytes``).

A request may list many statements, and SHOW and DESCRIBE entities grow with the catalog: a thousand
SHOW QUERIES EXTENDED could build a response of a gigabyte in memory. ``ResponseBudget`` counts each
entity's encoded size as it is added and refuses the request once the total passes the limit, before the
rest are built; the client gets a 400 naming the setting instead of a server out of memory.
"""

from __future__ import annotations

from typing import Any

from ksqlpy.server.errors import BAD_REQUEST, ServerError
from ksqlpy.server.values import dumps


class ResponseBudget:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def add(self, entity: dict[str, Any]) -> None:
        if self.limit <= 0:
            return
        self.used += len(dumps(entity))
        if self.used > self.limit:
            raise ServerError(BAD_REQUEST, f"Response too large: the statements' results exceed {self.limit} "
                              "bytes (ksqlpy.server.response.max.bytes). Send fewer statements per request.")
