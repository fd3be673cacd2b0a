"""Properties: ksqlDB's names and defaults, and the one resolver every reader of a property uses (the
engine, the runtime and its worker processes, lowering).

A Kafka Streams, consumer or producer setting may be written bare (``auto.offset.reset``) or with the
``ksql.streams.`` prefix (``ksql.streams.auto.offset.reset``): both are the same property, as in ksqlDB's
``KsqlConfig``. Properties are kept under one *canonical* name - the prefixed one, which is also what
SHOW PROPERTIES prints - and looked up by either spelling.

Precedence, lowest first: built-in defaults < server configuration (properties file, ``-D``,
``--config-file`` of the shell) < session overrides (SET) < request overrides (REST ``streamsProperties``,
``/query-stream`` ``properties``). Within one layer the prefixed spelling wins over the bare one
(``originalsWithPrefixOverride``). A value set explicitly in any layer therefore beats every default.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

STREAMS_PREFIX = "ksql.streams."
_OWN_NAMESPACES = ("ksql.", "ksqlpy.")  # names that are not Kafka client settings

# Set only by the test harness (``ksqlpy.testing.executor``): the topics a case feeds through its ``inputs``,
# comma-separated. ksqlDB's TestExecutor pipes those records into each query's TopologyTestDriver and, for
# a source topic the case gives no inputs for, every record the topic holds (``pipeRecordsFromKafka``: rows
# of an INSERT VALUES run before the query included) - so under the harness a query reads a fed topic from
# what is fed after the statements and any other topic whole, whatever ``auto.offset.reset`` says.
HARNESS_INPUT_TOPICS = "ksqlpy.testing.input.topics"
# Set only by the test harness: its wall clock never moves. ksqlDB's TopologyTestDriver reads a mock clock
# that stays where the case started, so a look Kafka Streams throttles on wall-clock time (EMIT FINAL's, an
# outer join's) runs once and its interval never elapses: a positive interval means "the first look only",
# however long the case takes here (``plan.lowering.emit_interval_ms``).
HARNESS_FROZEN_CLOCK = "ksqlpy.testing.wall.clock.frozen"

DEFAULT_PROPERTIES: dict[str, Any] = {
    "ksql.service.id": "default_",
    "ksql.persistent.prefix": "query_",
    "ksql.transient.prefix": "transient_",
    "ksql.output.topic.name.prefix": "",
    "ksql.persistence.default.format.key": "KAFKA",
    # ksql.persistence.wrap.single.values has no default (KsqlConfig defines it null): only a value someone set
    # gives a single value column a wrapping feature (SerdeFeaturesFactory); unset is the format's own shape
    "ksql.variable.substitution.enable": "true",
    "ksql.insert.into.values.enabled": "true",
    "ksql.create.or.replace.enabled": "true",
    "ksql.query.pull.table.scan.enabled": "true",
    "ksql.logging.processing.rows.include": "false",
    "ksql.logging.processing.stream.name": "KSQL_PROCESSING_LOG",
    "ksql.max.push.queries": 100,
    "ksql.streams.auto.offset.reset": "latest",
    "ksql.streams.processing.guarantee": "at_least_once",
    "ksql.streams.cache.max.bytes.buffering": 10_000_000,
    "ksql.streams.commit.interval.ms": 2000,
    "ksql.streams.num.stream.threads": 1,
}


def canonical(name: str) -> str:
    """The one name a property is kept under: ``ksql.*`` and ``ksqlpy.*`` names as they are, every other
    name (a Kafka Streams, consumer or producer setting) with the ``ksql.streams.`` prefix."""
    name = name.strip()
    return name if name.startswith(_OWN_NAMESPACES) else STREAMS_PREFIX + name


def bare(name: str) -> str:
    """The name without ``ksql.streams.`` (what Kafka Streams and its clients call it)."""
    name = name.strip()
    return name[len(STREAMS_PREFIX):] if name.startswith(STREAMS_PREFIX) else name


def layer(props: Mapping[str, Any] | None) -> dict[str, Any]:
    """One layer of properties under canonical names; where both spellings of a name are given, the
    ``ksql.streams.``-prefixed one wins, whatever their order."""
    out: dict[str, Any] = {}
    prefixed: dict[str, Any] = {}
    for name, value in (props or {}).items():
        key = canonical(name)
        (prefixed if name.strip().startswith(STREAMS_PREFIX) else out)[key] = value
    out.update(prefixed)
    return out


def merge_layers(*layers: Mapping[str, Any] | None) -> dict[str, Any]:
    """Layers (lowest first) merged into one mapping that keeps the spelling of each winning entry: a
    higher layer's value replaces the lower one's under either spelling (a configuration file's
    ``ksql.streams.x`` loses to ``-D x=...``)."""
    out: dict[str, Any] = {}
    for props in layers:
        for key, value in layer(props).items():
            short = bare(key)
            given = key if (props or {}).get(key, _MISSING) is not _MISSING else short
            out.pop(key, None)
            out.pop(short, None)
            out[given] = value
    return out


class Properties(dict[str, Any]):
    """Resolved properties under canonical names; ``get``, ``[]`` and ``in`` accept either spelling.

    ``Properties(a, b, c)`` layers ``a`` < ``b`` < ``c`` (each a mapping in any spelling)."""

    def __init__(self, *layers: Mapping[str, Any] | None) -> None:
        super().__init__()
        for props in layers:
            self.update(layer(props))

    def __getitem__(self, name: str) -> Any:
        return super().__getitem__(canonical(name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and super().__contains__(canonical(name))

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        return super().get(canonical(name), default)

    def __reduce__(self) -> Any:  # pickles (worker processes) as the canonical dict it holds
        return (Properties, (dict(self),))


_MISSING = object()


def _find(props: Mapping[str, Any], key: str) -> Any:
    """``key`` (canonical) in one layer of any spelling: the prefixed spelling first, it wins."""
    if dict.__contains__(props, key) if isinstance(props, dict) else key in props:
        return props[key]
    if key.startswith(STREAMS_PREFIX):
        short = key[len(STREAMS_PREFIX):]
        if dict.__contains__(props, short) if isinstance(props, dict) else short in props:
            return props[short]
    return _MISSING


def resolve(name: str, *layers: Mapping[str, Any] | None, default: Any = None) -> Any:
    """The value of ``name`` over ``layers`` (lowest first), else its built-in default, else ``default``."""
    key = canonical(name)
    for props in reversed(layers):
        if props:
            found = _find(props, key)
            if found is not _MISSING:
                return found
    return DEFAULT_PROPERTIES.get(key, default)


def explicitly_set(name: str, layers: Iterable[Mapping[str, Any] | None]) -> bool:
    """Whether ``name`` is given (in either spelling) in any of ``layers`` - not only defaulted."""
    key = canonical(name)
    return any(key in layer(props) for props in layers if props)


def as_bool(v: Any) -> bool:
    return v is True or str(v).strip().lower() == "true"
