"""The host's pull-query limits: ``ksql.query.pull.max.qps``, ``ksql.query.pull.max.concurrent.requests`` and
``ksql.query.pull.max.hourly.bandwidth.megabytes``, one ``PullLimits`` per server, checked for every pull query
(a table's or a stream's) whatever endpoint brings it (/query, /query-stream, /ws/query).

From memory of ksqlDB's QueryStreamEndpoint / StreamedQueryResource and the limiters they share:

* the rate: Guava's ``RateLimiter.create(qps)`` and ``tryAcquire()`` (``PullQueryExecutionUtil.checkRateLimit``):
  a request is let through when the limiter's next free ticket is due; one let through moves it
  ``1/qps`` seconds on, and an idle second stores up to ``qps`` permits for a burst (SmoothBursty);
* the concurrency: a semaphore of ``max.concurrent.requests`` permits (``ConcurrencyLimiter.increment``),
  held until the response ends;
* the bandwidth: the bytes of the pull-query responses of the last hour (``SlidingWindowRateLimiter``):
  a query is refused while they are more than the limit (megabytes of 1,048,576 bytes); each response's
  bytes are added when it ends.

The first two are checked only at the host the client asked (a pull query forwarded by another server of
the cluster was counted there); the bandwidth at every host. A refusal is HTTP 429 with error code 42900
(``KsqlRateLimitException`` -> ``Errors.tooManyRequests``). These are the server's settings: a request's
properties do not change them. The defaults (Integer.MAX_VALUE) mean no limit, and no limiter is built.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ksqlpy.server.errors import ServerError

TOO_MANY_REQUESTS = 42900
UNLIMITED = 2 ** 31 - 1
QPS = "ksql.query.pull.max.qps"
CONCURRENT = "ksql.query.pull.max.concurrent.requests"
BANDWIDTH = "ksql.query.pull.max.hourly.bandwidth.megabytes"
SETTINGS = (QPS, CONCURRENT, BANDWIDTH)
WINDOW_S = 3600.0


class RateLimiter:
    """Guava's SmoothBursty RateLimiter as ``tryAcquire()`` uses it (one permit, no waiting)."""

    def __init__(self, qps: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = float(qps)
        self.interval = 1.0 / self.rate if self.rate > 0 else float("inf")  # 0: nothing is let through
        self.max_permits = self.rate  # maxBurstSeconds = 1
        self.stored = 0.0
        self.clock = clock
        self.next_free = clock()
        self.lock = threading.Lock()

    def try_acquire(self, timeout_s: float = 0.0, sleep: Callable[[float], None] = time.sleep) -> bool:
        """One permit if it is due within ``timeout_s`` (then waited for), else False at once."""
        with self.lock:
            now = self.clock()
            if self.next_free - timeout_s > now or self.rate <= 0:
                return False
            if now > self.next_free:  # resync: the idle time since the next free ticket is stored
                self.stored = min(self.max_permits, self.stored + (now - self.next_free) / self.interval)
                self.next_free = now
            available = self.next_free
            spent = min(1.0, self.stored)
            self.next_free += (1.0 - spent) * self.interval
            self.stored -= spent
        if available > now:
            sleep(available - now)
        return True


class ConcurrencyLimiter:
    """At most ``limit`` pull queries in progress at once."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.semaphore = threading.Semaphore(limit)

    def increment(self) -> Callable[[], None]:
        if not self.semaphore.acquire(blocking=False):
            raise ServerError(TOO_MANY_REQUESTS, f"Host is at concurrency limit for pull queries. Currently set to "
                                                 f"{self.limit} maximum concurrent operations.")
        released = threading.Event()

        def decrement() -> None:
            if not released.is_set():
                released.set()
                self.semaphore.release()

        return decrement


class BandwidthLimiter:
    """The response bytes of the last hour against a limit (SlidingWindowRateLimiter)."""

    def __init__(self, megabytes: int, clock: Callable[[], float] = time.monotonic, kind: str = "pull") -> None:
        self.kind = kind  # "pull", or "push" for scalable push queries' limiter
        self.limit_bytes = megabytes * 1024 * 1024
        self.clock = clock
        self.sent: deque[tuple[float, int]] = deque()
        self.in_window = 0
        self.lock = threading.Lock()

    def _expire(self, now: float) -> None:
        while self.sent and now - self.sent[0][0] >= WINDOW_S:
            self.in_window -= self.sent.popleft()[1]

    def allow(self) -> None:
        with self.lock:
            self._expire(self.clock())
            if self.in_window > self.limit_bytes:
                raise ServerError(TOO_MANY_REQUESTS, f"Host is at bandwidth rate limit for {self.kind} queries.")

    def add(self, nbytes: int) -> None:
        with self.lock:
            now = self.clock()
            self._expire(now)
            self.sent.append((now, nbytes))
            self.in_window += nbytes


@dataclass
class Ticket:
    """One admitted pull query: ``finish(nbytes)`` ends it (its concurrency permit back, its bytes counted);
    a second call does nothing."""

    decrement: Callable[[], None] | None = None
    bandwidth: BandwidthLimiter | None = None
    done: list[bool] = field(default_factory=list)

    def finish(self, nbytes: int = 0) -> None:
        if self.done:
            return
        self.done.append(True)
        if self.decrement is not None:
            self.decrement()
        if self.bandwidth is not None:
            self.bandwidth.add(nbytes)


class PullLimits:
    """The server's three pull-query limiters (None: that limit is not set)."""

    def __init__(self, qps: int = UNLIMITED, concurrent: int = UNLIMITED, megabytes: int = UNLIMITED) -> None:
        self.rate = RateLimiter(max(qps, 0)) if qps < UNLIMITED else None
        self.concurrency = ConcurrencyLimiter(max(concurrent, 0)) if concurrent < UNLIMITED else None
        self.bandwidth = BandwidthLimiter(max(megabytes, 0)) if megabytes < UNLIMITED else None

    @classmethod
    def from_config(cls, config: Any) -> PullLimits:
        return cls(*(int(config.get(name, UNLIMITED)) for name in SETTINGS))

    @property
    def active(self) -> bool:
        return self.rate is not None or self.concurrency is not None or self.bandwidth is not None

    def admit(self, forwarded: bool = False) -> Ticket | None:
        """Let one pull query in, or raise the 429. The order is ksqlDB's: rate, concurrency, bandwidth."""
        if not self.active:
            return None
        decrement = None
        if not forwarded:
            if self.rate is not None and not self.rate.try_acquire():
                raise ServerError(TOO_MANY_REQUESTS, f"Host is at rate limit for pull queries. Currently set to "
                                                     f"{_java_double(self.rate.rate)} qps.")
            if self.concurrency is not None:
                decrement = self.concurrency.increment()
        try:
            if self.bandwidth is not None:
                self.bandwidth.allow()
        except ServerError:
            if decrement is not None:
                decrement()
            raise
        return Ticket(decrement, self.bandwidth)


PUSH_V2_BANDWIDTH = "ksql.query.push.v2.max.hourly.bandwidth.megabytes"


def push_bandwidth(config: Any) -> BandwidthLimiter | None:
    """``ksql.query.push.v2.max.hourly.bandwidth.megabytes``: the same sliding hour for the responses of
    scalable push queries (ksqlDB's scalablePushBandRateLimiter, checked as such a query starts, its bytes
    added when its response ends: ``Host is at bandwidth rate limit for push queries.``)."""
    megabytes = int(config.get(PUSH_V2_BANDWIDTH, UNLIMITED))
    return BandwidthLimiter(max(megabytes, 0), kind="push") if megabytes < UNLIMITED else None


def admit_scalable_push(limiter: BandwidthLimiter | None) -> Ticket | None:
    if limiter is None:
        return None
    limiter.allow()
    return Ticket(None, limiter)


def _java_double(value: float) -> str:
    """A whole-number double as Java's ``String.valueOf`` writes it: ``5.0``, from 10^7 on ``1.0E7``."""
    if value < 1e7:
        return repr(float(value))
    mantissa, exponent = f"{Decimal(int(value)).normalize():E}".split("E")
    return f"{mantissa if '.' in mantissa else mantissa + '.0'}E{int(exponent)}"

