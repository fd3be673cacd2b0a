"""``ksql.server.command.topic.rate.limit``: how many statements a second this server writes to the command
topic."""

from __future__ import annotations

from typing import Any

from ksqlpy.server.errors import ServerError
from ksqlpy.server.pull_limits import TOO_MANY_REQUESTS, RateLimiter

COMMAND_RATE = "ksql.server.command.topic.rate.limit"
COMMAND_RATE_MESSAGE = "DDL/DML rate is crossing the configured rate limit of statements/second"


def command_rate_limiter(config: Any) -> RateLimiter | None:
    """``ksql.server.command.topic.rate.limit``: the statements a second this server writes to the command
    topic (default Double.MAX_VALUE: no limiter). ksqlDB's DistributingExecutor takes a permit before it
    writes each distributed statement, waiting up to a second for one; none within the second refuses the
    statement with 429/42900 ``DDL/DML rate is crossing ...`` (``Errors.tooManyRequests``; from memory)."""
    value = config.get(COMMAND_RATE)
    if value is None or str(value).strip() == "":
        return None
    rate = float(str(value).strip())
    return None if rate >= 1.7e308 else RateLimiter(rate)


def take_command_permit(limiter: RateLimiter | None) -> None:
    if limiter is not None and not limiter.try_acquire(1.0):
        raise ServerError(TOO_MANY_REQUESTS, COMMAND_RATE_MESSAGE)
