"""Values of the properties a session sets, checked when they are set - not when a query later trips on
them with a Python error that names neither the setting nor the value.

Types and messages are those of the configs ksqlDB resolves the names against (Kafka's ``ConfigDef``:
``Invalid value <v> for configuration <name>: <reason>``). Names are accepted bare or with the
``ksql.streams.`` prefix, as everywhere else; properties not listed here are not checked.
"""

from __future__ import annotations

from typing import Any

from ksqlpy.errors import KsqlStatementError

_LONG = "LONG"
_INT = "INT"
_BOOLEAN = "BOOLEAN"

TYPES: dict[str, str | tuple[str, ...]] = {
    "auto.offset.reset": ("latest", "earliest", "none"),
    "processing.guarantee": ("at_least_once", "exactly_once", "exactly_once_beta", "exactly_once_v2"),
    "commit.interval.ms": _LONG,
    "cache.max.bytes.buffering": _LONG,
    "statestore.cache.max.bytes": _LONG,
    "num.stream.threads": _INT,
    "ksql.query.pull.max.allowed.offset.lag": _LONG,
    "ksql.query.retry.backoff.initial.ms": _LONG,
    "ksql.query.retry.backoff.max.ms": _LONG,
    "ksql.functions.collect_list.limit": _INT,
    "ksql.functions.collect_set.limit": _INT,
    "ksql.max.push.queries": _INT,
    "ksql.create.or.replace.enabled": _BOOLEAN,
    "ksql.variable.substitution.enable": _BOOLEAN,
    "ksql.query.pull.table.scan.enabled": _BOOLEAN,
    # the pull and push query switches and limits (KsqlConfig's types)
    "ksql.pull.queries.enable": _BOOLEAN,
    "ksql.query.pull.range.scan.enabled": _BOOLEAN,
    "ksql.query.pull.stream.enabled": _BOOLEAN,
    "ksql.query.pull.limit.clause.enabled": _BOOLEAN,
    "ksql.query.pull.interpreter.enabled": _BOOLEAN,
    "ksql.query.pull.enable.standby.reads": _BOOLEAN,
    "ksql.query.pull.consistency.token.enabled": _BOOLEAN,
    "ksql.query.pull.metrics.enabled": _BOOLEAN,
    "ksql.query.pull.max.qps": _INT,
    "ksql.query.pull.max.concurrent.requests": _INT,
    "ksql.query.pull.max.hourly.bandwidth.megabytes": _INT,
    "ksql.query.pull.thread.pool.size": _INT,
    "ksql.query.pull.router.thread.pool.size": _INT,
    "ksql.query.pull.forwarding.timeout.ms": _LONG,
    "ksql.query.push.v2.enabled": _BOOLEAN,
    "ksql.endpoint.migrate.query": _BOOLEAN,
    "ksql.logging.processing.rows.include": _BOOLEAN,
    "ksql.insert.into.values.enabled": _BOOLEAN,
    "ksql.lambdas.enabled": _BOOLEAN,
    "ksql.fail.on.deserialization.error": _BOOLEAN,
    "ksql.fail.on.production.error": _BOOLEAN,
    "ksqlpy.backfill": ("off", "spark", "auto"),  # a new persistent query's history on Spark (docs/backfill.md)
    "ksqlpy.backfill.tier": ("python", "native"),  # the fused Python tier or the native one (docs/backfill.md)
    "ksqlpy.backfill.writes": ("auto", "tasks", "driver"),  # who writes a backfill's output (docs/backfill.md)
}

_LIMITS = {_LONG: 2**63, _INT: 2**31}


def _reason(kind: str | tuple[str, ...], text: str) -> str | None:
    if isinstance(kind, tuple):
        return None if text.lower() in kind else f"String must be one of: {', '.join(kind)}"
    if kind == _BOOLEAN:
        return None if text.lower() in ("true", "false") else "Expected value to be either true or false"
    try:
        n = int(text)
    except ValueError:
        return f"Not a number of type {kind}"
    return None if -_LIMITS[kind] <= n < _LIMITS[kind] else f"Not a number of type {kind}"


def check_property(name: str, value: Any) -> None:
    """Raise the statement error ksqlDB gives for a value its config would not accept."""
    bare = name[len("ksql.streams."):] if name.startswith("ksql.streams.") else name
    kind = TYPES.get(bare) or TYPES.get(name)
    if kind is None or value is None:
        return
    text = str(value).strip()
    reason = _reason(kind, text)
    if reason is not None:
        raise KsqlStatementError(f"Invalid value {value} for configuration {name}: {reason}")
    if bare == "auto.offset.reset" and text.lower() == "none":
        raise KsqlStatementError("'none' is not valid for this property within KSQL")


def check_properties(properties: dict[str, Any]) -> None:
    for name, value in properties.items():
        check_property(name, value)
