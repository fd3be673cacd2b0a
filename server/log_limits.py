"""Repeated log lines, rate-limited: a failure that repeats in a loop must not fill the disk.

With every descriptor in use, asyncio logs "socket.accept() out of system resource" with a traceback for each
attempt - 40 MB in 20 s. ``RepeatFilter`` (on the server's log handlers) lets ``burst`` records of one origin
(logger, level, message template) through per ``interval_s``; the rest are counted, and the first record of
that origin after the interval carries how many were left out.
"""

from __future__ import annotations

import logging
import threading
import time

EXEMPT = frozenset({"ksqlpy.server.requests"})  # the request log: a line per request, limits of its own


class RepeatFilter(logging.Filter):
    def __init__(self, burst: int = 5, interval_s: float = 60.0, clock: type[time.monotonic] | None = None) -> None:
        super().__init__()
        self.burst = burst
        self.interval_s = interval_s
        self._clock = clock or time.monotonic
        self._lock = threading.Lock()
        self._seen: dict[tuple[str, int, str], list[float]] = {}  # origin -> [window start, passed, dropped]

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name in EXEMPT:
            return True  # rate-limited by its own settings (request_log.py)
        key = (record.name, record.levelno, str(record.msg))
        now = self._clock()
        with self._lock:
            seen = self._seen.get(key)
            if seen is None or now - seen[0] >= self.interval_s:
                dropped = int(seen[2]) if seen is not None else 0
                self._seen[key] = [now, 1, 0]
                if len(self._seen) > 10_000:  # bounded: forget the oldest origins
                    for old in sorted(self._seen, key=lambda k: self._seen[k][0])[:5_000]:
                        del self._seen[old]
                if dropped:
                    record.msg = f"{record.msg} [{dropped} more like this in the last {self.interval_s:.0f} s " \
                                 "were not logged]"
                return True
            if seen[1] < self.burst:
                seen[1] += 1
                return True
            seen[2] += 1
            return False


def install(burst: int = 5, interval_s: float = 60.0) -> RepeatFilter:
    """Rate-limit every handler of the root logger (asyncio's and Hypercorn's loggers propagate to it)."""
    flt = RepeatFilter(burst, interval_s)
    for handler in logging.getLogger().handlers:
        handler.addFilter(flt)
    return flt
