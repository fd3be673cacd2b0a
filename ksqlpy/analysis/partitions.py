"""How many partitions a source's topic has, as analysis sees it: the catalog's host (the engine) answers
for its log; a catalog without one (tests of analysis alone) and a topic that does not exist answer None."""

from __future__ import annotations

from typing import Any


def topic_partitions(catalog: Any, topic: str) -> int | None:
    counter = getattr(catalog, "partition_count", None)
    if counter is None:
        return None
    n = counter(topic)
    return int(n) if n is not None else None
