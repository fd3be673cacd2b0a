"""ASSERT [NOT EXISTS] TOPIC and ASSERT [NOT EXISTS] SCHEMA: wait until the topic or schema is there (or
gone), up to the statement's TIMEOUT or ``ksql.assert.topic|schema.default.timeout.ms``.

As ksqlDB's ``AssertExecutor``: the check is tried every 100 ms until it holds or the time is up; the last
failure is the statement's error (``KsqlAssertionError``, HTTP 417 on the REST API). The engine's lock is
held for each check only, so what the assertion waits for (a topic another request creates) can happen
meanwhile. The messages are ksqlDB's ``AssertTopicExecutor`` / ``AssertSchemaExecutor`` texts.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ksqlpy.engine.results import StatementResult
from ksqlpy.errors import KsqlAssertionError
from ksqlpy.grammar import ast as A

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

RETRY_S = 0.1
DEFAULT_TIMEOUT_MS = 1000
TIMEOUT_PROPERTY = {A.AssertTopic: "ksql.assert.topic.default.timeout.ms",
                    A.AssertSchema: "ksql.assert.schema.default.timeout.ms"}

Assertion = A.AssertTopic | A.AssertSchema


def run_assertion(engine: Engine, stmt: Assertion, properties: dict[str, Any] | None = None) -> StatementResult:
    """Check ``stmt`` until it holds or its timeout passes; its ``assert_topic``/``assert_schema`` result."""
    from ksqlpy.engine.config import Properties

    timeout_ms = stmt.timeout_ms
    if timeout_ms is None:
        props = Properties(engine.effective_properties(), properties or {})
        timeout_ms = int(props.get(TIMEOUT_PROPERTY[type(stmt)]) or DEFAULT_TIMEOUT_MS)
    deadline = time.monotonic() + max(0, timeout_ms) / 1000
    while True:
        try:
            with engine.lock:
                check(engine, stmt)
            return result(stmt)
        except KsqlAssertionError:
            if time.monotonic() + RETRY_S > deadline:
                raise
        time.sleep(RETRY_S)


def assert_once(engine: Engine, stmt: Assertion) -> StatementResult:
    """ASSERT checked once, as it stands now (``Engine.execute_statement`` waits for it: ``run_assertion``)."""
    check(engine, stmt)
    return result(stmt)


def result(stmt: Assertion) -> StatementResult:
    if isinstance(stmt, A.AssertTopic):
        return StatementResult("assert_topic", stmt.text, data={"topicName": stmt.topic, "exists": stmt.exists})
    return StatementResult("assert_schema", stmt.text,
                           data={"subject": stmt.subject, "id": stmt.schema_id, "exists": stmt.exists})


def check(engine: Engine, stmt: Assertion) -> None:
    """One try: raises ``KsqlAssertionError`` while the assertion does not hold."""
    if isinstance(stmt, A.AssertTopic):
        check_topic(engine, stmt)
    else:
        check_schema(engine, stmt)


def check_topic(engine: Engine, stmt: A.AssertTopic) -> None:
    info = engine.log.describe_topic(stmt.topic)
    if not stmt.exists:  # the WITH clause is not checked for a topic that must not exist
        if info is not None:
            raise KsqlAssertionError(f"Topic {stmt.topic} exists")
        return
    if info is None:
        raise KsqlAssertionError(f"Topic {stmt.topic} does not exist")
    errors = []
    actual = {"PARTITIONS": info.partitions, "REPLICAS": info.replicas}
    for key, value in stmt.properties.items():
        name = str(key).upper()
        if name not in actual:
            errors.append(f"Cannot assert unknown topic property: {name}")
        elif _int(value) != actual[name]:
            errors.append(f"Mismatched configuration for topic {stmt.topic}: For config {name.lower()}, "
                          f"expected {_int(value)} got {actual[name]}")
    if errors:
        raise KsqlAssertionError("\n".join(errors))


def check_schema(engine: Engine, stmt: A.AssertSchema) -> None:
    registry = engine.schema_registry
    exists = registry is not None and schema_exists(registry, stmt.subject, stmt.schema_id)
    subject = f" subject name {stmt.subject}" if stmt.subject is not None else ""
    schema_id = f" id {stmt.schema_id}" if stmt.schema_id is not None else ""
    if stmt.exists and not exists:
        raise KsqlAssertionError(f"Schema with{subject}{schema_id} does not exist")
    if not stmt.exists and exists:
        raise KsqlAssertionError(f"Schema with{subject}{schema_id} exists")


def schema_exists(registry: Any, subject: str | None, schema_id: int | None) -> bool:
    """A subject with any version, a schema id, or a subject one of whose versions has that id."""
    if subject is None:
        return schema_id is not None and registry.by_id(schema_id) is not None
    versions = registry.versions(subject) if hasattr(registry, "versions") else [registry.latest(subject)]
    versions = [v for v in versions if v is not None]
    return bool(versions) if schema_id is None else any(v.id == schema_id for v in versions)


def _int(value: Any) -> Any:
    try:
        return int(value)
    except (TypeError, ValueError):
        return value
