"""Admission for counted resources: a slot is taken atomically before the thing starts.

A check of the count followed later by a registration lets every request that checks before the first
registers through (200 concurrent push queries with a limit of 100 ran 139). A ``Slots`` takes the slot
under one lock, in the same step as the check; the slot is given back when the thing ends, or at once if
it fails to start. Push queries (``ksql.max.push.queries``) and connections (``ksqlpy.server.connections.max``)
are admitted this way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class Slots:
    """Up to ``limit()`` holders at once; ``limit`` is read at each admission (settings may change)."""

    def __init__(self, limit: Callable[[], int]) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._taken = 0

    def try_take(self) -> bool:
        """Take a slot if one is free (check and take are one step)."""
        with self._lock:
            if self._taken >= self._limit():
                return False
            self._taken += 1
            return True

    def give_back(self) -> None:
        with self._lock:
            if self._taken > 0:
                self._taken -= 1

    @property
    def in_use(self) -> int:
        with self._lock:
            return self._taken

    @property
    def limit(self) -> int:
        return self._limit()
