"""Where a pull query meets the host's limits: a hook the server sets around running one (its rate,
concurrency and bandwidth limits, server/pull_limits.py), called by the engine at the point ksqlDB's
QueryExecutor checks them - after the statement's analysis (its sources and columns resolved, the pull-query
clause rules, ``ksql.pull.queries.enable``), before the table's plan is built and run (the WHERE's key or scan,
``ksql.query.pull.table.scan.enabled``, a table nothing materializes) or a stream's pull query is created
(``ksql.query.pull.stream.enabled``). From memory of ksqlDB's QueryExecutor.handleStatement,
handleTablePullQuery and handleStreamPullQuery (the limits, then KsqlEngine.executeTablePullQuery /
createStreamPullQuery)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ksqlpy.errors import KsqlError

_hook: ContextVar[Callable[[], None] | None] = ContextVar("pull_admission", default=None)


@contextmanager
def admission(hook: Callable[[], None]) -> Iterator[None]:
    """Pull queries run in this context call ``hook`` (which may raise the refusal) when admitted."""
    token = _hook.set(hook)
    try:
        yield
    finally:
        _hook.reset(token)


def waiting() -> bool:
    """Whether a hook waits for this pull query (the embedded engine and the sandbox set none)."""
    return _hook.get() is not None


class Refused(KsqlError):
    """The hook's refusal carried through the engine (which takes any other exception for a bug):
    ``refusal`` is what the hook raised, for the caller to raise again."""

    def __init__(self, refusal: Exception) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal


def admit() -> None:
    """The point of admission: the hook, once (a second call does nothing)."""
    hook = _hook.get()
    if hook is None:
        return
    _hook.set(None)
    try:
        hook()
    except KsqlError:
        raise
    except Exception as e:  # noqa: BLE001 - the server's refusal (its own error type)
        raise Refused(e) from e
