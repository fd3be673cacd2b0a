"""What every page family's scenarios share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

EARLIEST_Q = {"properties": {"auto.offset.reset": "earliest"}}
EARLIEST_K = {"streamsProperties": {"ksql.streams.auto.offset.reset": "earliest"}}
CS = "currentStatus"


def _has(path: list[Any], want: Any) -> Callable[[Any], str | None]:
    def check(answer: Any) -> str | None:
        x = answer
        for p in path:
            try:
                x = x[p]
            except (KeyError, IndexError, TypeError):
                return f"no {path} in {str(answer)[:300]}"
        return None if (want(x) if callable(want) else x == want) else f"{path} = {str(x)[:300]}"
    return check
