"""CREATE STREAM/TABLE, DROP, ALTER and CREATE/DROP TYPE: sources and types in the catalog, their topics
created where the statement asks for them."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ksqlpy.analysis.ddl import check_columns, resolve_type, source_from_create, topic_config
from ksqlpy.analysis.pseudo_columns import reserved_names
from ksqlpy.analysis.sql_formatter import create_source_sql, stored_create_source, with_formats
from ksqlpy.catalog import Column, Source
from ksqlpy.engine.results import StatementResult, status
from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar import ast as A
from ksqlpy.log.topic_names import BROKER_DEFAULT, TopicCreationRefused, TopicNotGuaranteed

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine


LOG = logging.getLogger(__name__)


def exists_warning(stmt: A.Statement, kind: str, existing: Source) -> StatementResult:
    """IF NOT EXISTS on an existing source: nothing happens, and the user is told so. ksqlDB's
    ``DistributingExecutor`` words it with the statement's kind twice (whatever the existing source is) and
    the name as a SourceName prints itself, back-quoted."""
    msg = f"Cannot add {kind.lower()} `{stmt.name}`: A {kind.lower()} with the same name already exists."  # type: ignore[attr-defined]
    return StatementResult("warning_entity", stmt.text, message=msg, warnings=[msg], unchanged=True)


def create_source(engine: Engine, stmt: A.CreateSource) -> StatementResult:
    existing = engine.catalog.source(stmt.name)
    if existing is not None and stmt.if_not_exists:
        return exists_warning(stmt, stmt.kind, existing)
    from ksqlpy.schema_registry.sources import infer_columns, register_source_schemas, require_source_registry

    written = stmt
    stmt = infer_columns(stmt, engine.schema_registry, engine.effective_properties(),
                         rerun=bool(getattr(engine, "rerunning_command", False)),
                         prepared=bool(getattr(engine, "prepared_command", False)))

    def name_taken() -> None:
        if existing is not None and not (stmt.or_replace and replace_enabled(engine)):
            raise KsqlStatementError(f"Cannot add {stmt.kind.lower()} '{stmt.name}': A {existing.kind.lower()} with "
                                     "the same name already exists")

    def example() -> str:
        with_partitions = {**with_formats(stmt.properties, engine.effective_properties()), "PARTITIONS": 2}
        return create_source_sql(stmt, with_partitions)

    def topic_check(props: dict[str, Any]) -> None:
        ensure_topic(engine, str(props["KAFKA_TOPIC"]), props, {}, creating=True, example=example, create=False)

    src = source_from_create(stmt, engine.effective_properties(), engine.catalog.types(), name_taken, topic_check)
    # what DESCRIBE EXTENDED shows: the statement as ksqlDB's injectors leave it (formats, registry columns)
    src.sql = stored_create_source(written, stmt, engine.effective_properties())
    if existing is not None:
        if existing.is_source or stmt.is_source:  # either side a SOURCE: CreateSourceFactory refuses it
            raise KsqlStatementError(f"Cannot add {stmt.kind.lower()} '{stmt.name}': CREATE OR REPLACE is not "
                                     f"supported on source {stmt.kind.lower()}s.")
        from ksqlpy.engine.upgrades import check_source_upgrade

        # another kind is one of the differences the metastore's upgrade check lists (type = KSTREAM ...), as
        # for CREATE OR REPLACE ... AS SELECT (MetaStoreImpl.putSource, from memory)

        check_source_upgrade(existing, src)
        src.created_by_query = existing.created_by_query
    # TopicCreateInjector (judged above: now the topic is created), then SchemaRegisterInjector
    ensure_topic(engine, src.topic, src.properties, topic_config(src.kind, src.properties), creating=True,
                 before_create=lambda: require_source_registry(engine, src), example=example)
    register_source_schemas(engine, src, sink=False)
    engine.catalog.add_source(src, replace=existing is not None)
    if src.is_source and src.kind == "TABLE":
        from ksqlpy.engine.materialized import start_source_table_query

        start_source_table_query(engine, src, src.sql)
        if src.created_by_query:  # its CST_ query materializes it: ksqlDB answers with the query
            return status(stmt, f"Created query with ID {src.created_by_query}", src.created_by_query,
                          injected_text=src.sql)
    return status(stmt, f"{stmt.kind.capitalize()} created", injected_text=src.sql)


def ensure_topic(engine: Engine, topic: str, props: dict[str, Any], config: dict[str, str], *, creating: bool,
                  source_topic: str | None = None, before_create: Callable[[], None] | None = None,
                  example: Callable[[], str] | None = None, create: bool = True) -> None:
    """The statement's topic with the partition and replica counts ksqlDB's TopicCreateInjector asks for (from
    memory of its injectForCreateSource / injectForCreateAsSelect, TopicProperties.Builder and
    TopicValidationUtil): PARTITIONS / REPLICAS from the WITH clause, else - for a CREATE ... AS SELECT - the
    legacy ``ksql.sink.partitions`` / ``ksql.sink.replicas``, else the counts of the topic the statement reads
    (a CREATE: its own topic; a CREATE ... AS SELECT: the topic of its first source, ``source_topic``). The
    topic is then created with those counts, or - when it exists - must have them: the partition count exactly,
    and at least the replica count unless it is -1 (the broker's default). So a CREATE ... AS SELECT naming no counts
    into an existing topic needs that topic at its source topic's partition and replica counts.

    ``before_create`` runs once the counts are judged, before a new topic is created: the checks of the
    injectors after ksqlDB's TopicCreateInjector (its SchemaRegisterInjector's 'Cannot create topic ... without
    configuring ksql.schema.registry.url'), which fire after a count error yet leave no topic behind (ksqlDB
    validates the statement on a sandbox first).

    ``example``: a CREATE's refusal for a topic that does not exist without ``PARTITIONS`` ends with the
    statement as it would run with ``PARTITIONS=2`` (``sql_formatter.create_source_sql``).

    ``create=False`` only judges: the counts of a topic that exists, a missing topic without PARTITIONS (ksqlDB's
    TopicCreateInjector runs before the statement is executed: the name, schema and upgrade checks of a CREATE
    and a CREATE ... AS SELECT come after it); the topic is created by a later call, once they passed."""
    info = engine.log.describe_topic(topic)
    partitions = _count(props.get("PARTITIONS"))
    replicas = _count(props.get("REPLICAS"))
    if not creating:
        if partitions is None:
            partitions = _count(engine.prop("ksql.sink.partitions"))
        if replicas is None:
            replicas = _count(engine.prop("ksql.sink.replicas"))
    source = engine.log.describe_topic(source_topic) if source_topic and not creating else None
    if source is not None:  # TopicProperties.Builder.withSource: what neither the WITH clause nor ksql.sink.* give
        partitions = source.partitions if partitions is None else partitions
        replicas = source.replicas if replicas is None else replicas
    if info is not None:
        wanted_partitions = info.partitions if partitions is None else partitions
        wanted_replicas = info.replicas if replicas is None else replicas
        # a command rerun was judged when first run (a PARTITIONS=-1 asked for the count the topic now has)
        rerun = getattr(engine, "rerunning_command", False)
        # TopicValidationUtil (from memory): the partition count exactly; the replica count only as a floor
        # (a topic replicated more often than asked is fine) and not at all for -1, the broker's default
        short_of_replicas = wanted_replicas != BROKER_DEFAULT and info.replicas < wanted_replicas
        if not rerun and (wanted_partitions != info.partitions or short_of_replicas):
            raise KsqlStatementError(
                f"A Kafka topic with the name '{topic}' already exists, with different partition/replica "
                f"configuration than required. KSQL expects {wanted_partitions} partitions (topic has "
                f"{info.partitions}), {wanted_replicas} replication factor (topic has {info.replicas}).")
        if before_create is not None and create:
            before_create()
        return
    if partitions is None and not creating:
        partitions = 1  # a source whose topic is gone: one
    if partitions is None:
        raise KsqlStatementError(f"Topic '{topic}' does not exist. If you want to create a new topic for the "
                                 "stream/table please re-run the statement providing the required 'PARTITIONS' "
                                 "configuration in the WITH clause (and optionally 'REPLICAS'). For example: "
                                 + (example() if example is not None else ""))
    if not create:
        return
    if before_create is not None:
        before_create()
    try:  # REPLICAS unset: the broker's default (ksqlDB's TopicProperties.DEFAULT_REPLICAS)
        engine.log.create_topic(topic, partitions, BROKER_DEFAULT if replicas is None else replicas, config)
    except TopicCreationRefused as refused:
        raise TopicNotGuaranteed(topic, refused) from refused


def _count(value: Any) -> int | None:
    return None if value is None or value == "" else int(value)


def replace_enabled(engine: Engine) -> bool:
    return str(engine.prop("ksql.create.or.replace.enabled", "true")).lower() != "false"


def drop_source(engine: Engine, stmt: A.Drop) -> StatementResult:
    src = engine.catalog.source(stmt.name)
    if src is None and stmt.delete_topic and not stmt.if_exists:
        # ksqlDB's TopicDeleteInjector runs before the drop is planned and names the statement as its AST prints
        raise KsqlStatementError(f"Could not find source to delete topic for: {_drop_repr(stmt)}")
    if src is None:
        if stmt.if_exists:
            return status(stmt, f"Source `{stmt.name}` does not exist.")
        raise KsqlStatementError(f"{stmt.kind.capitalize()} {stmt.name} does not exist.")
    if stmt.delete_topic:
        check_topic_delete(engine, src)
    if src.kind != stmt.kind:
        raise KsqlStatementError(f"Incompatible data source type is {src.kind}, but statement was DROP {stmt.kind}")
    readers = [q for q in engine.catalog.queries_reading(stmt.name)]
    writers = [q for q in engine.catalog.queries_writing(stmt.name) if q != src.created_by_query]
    if readers or writers:
        raise KsqlStatementError(
            f"Cannot drop {stmt.name}.\nThe following queries read from this source: [{', '.join(sorted(readers))}]."
            f"\nThe following queries write into this source: [{', '.join(sorted(writers))}].\n"
            "You need to terminate them before dropping " + stmt.name + ".")
    constraints = engine.catalog.constraints(stmt.name)
    if constraints:
        raise KsqlStatementError(
            f"Cannot drop {stmt.name}.\nThe following streams and/or tables read from this source: "
            f"[{', '.join(constraints)}].\nYou need to drop them before dropping {stmt.name}.")
    if stmt.delete_topic:
        # ksqlDB's TopicDeleteInjector deletes the topic, then the subjects, before the DROP itself runs: a
        # subject it cannot delete fails the statement with the topic gone and the source (and the query
        # writing it) still there
        if engine.log.topic_exists(src.topic):
            engine.log.delete_topic(src.topic)
        delete_subjects(engine, src)
    if src.created_by_query:
        engine.stop_persistent(src.created_by_query)
    engine.catalog.remove_source(stmt.name)
    return status(stmt, f"Source `{stmt.name}` (topic: {src.topic}) was dropped.")


def _drop_repr(stmt: A.Drop) -> str:
    """A DROP STREAM/TABLE as ksqlDB's AST node prints itself (Guava's toStringHelper over its name - a
    SourceName prints back-quoted - and its two flags), from memory of its DropStream / DropTable."""
    flag = "true" if stmt.delete_topic else "false"
    exists = "true" if stmt.if_exists else "false"
    return f"Drop{stmt.kind.capitalize()}{{name=`{stmt.name}`, ifExists={exists}, deleteTopic={flag}}}"


def check_topic_delete(engine: Engine, src: Source) -> None:
    """DROP ... DELETE TOPIC, checked before the drop itself is (ksqlDB's TopicDeleteInjector runs ahead of the
    engine, from memory): a SOURCE stream/table's topic is never deleted, nor a topic another source reads -
    those are named in order."""
    if src.is_source:
        raise KsqlStatementError(f"Cannot delete topic for read-only source: {src.name}")
    others = sorted(o.name for o in engine.catalog.sources_for_topic(src.topic) if o.name != src.name)
    if others:
        raise KsqlStatementError(f"Refusing to delete topic. Found other data sources ({', '.join(others)}) "
                                 f"using topic {src.topic}")


def delete_subjects(engine: Engine, src: Source) -> None:
    """DROP ... DELETE TOPIC also deletes the topic's key and value subjects of a schema-registry format
    (``<topic>-key`` / ``<topic>-value``; none registered - the registry's 404 - is nothing to delete), as
    ksqlDB's TopicDeleteInjector does after deleting the topic (from memory: deleteKeySubject and
    deleteValueSubject both run, then checkSchemaError turns any failure but a 404 into 'Could not clean up
    the schema registry for topic: <topic>', failing the statement)."""
    from ksqlpy.schema_registry import is_configured, subject
    from ksqlpy.schema_registry.sources import SR_FORMATS

    registry = getattr(engine, "schema_registry", None)
    if registry is None or not is_configured(registry):
        return
    failed = False
    for is_key, fmt in ((True, src.key_format), (False, src.value_format)):
        if str(fmt).upper() in SR_FORMATS:
            try:
                registry.delete_subject(subject(src.topic, is_key))
            except Exception:  # noqa: BLE001 - any refusal or failure to answer (a missing subject is no error)
                LOG.warning("could not delete the schema subject of %s", src.topic, exc_info=True)
                failed = True
    if failed:
        raise KsqlStatementError(f"Could not clean up the schema registry for topic: {src.topic}")


def create_type(engine: Engine, stmt: A.CreateType) -> StatementResult:
    if engine.catalog.type(stmt.name) is not None:
        if stmt.if_not_exists:  # nothing registered: ksqlDB's DdlCommandExec says what the name already is
            return status(stmt, f"{stmt.name} is already registered with type {engine.catalog.type(stmt.name)}")
        raise KsqlStatementError(f"Cannot register custom type '{stmt.name}' since it is already registered with "
                                 f"type: {engine.catalog.type(stmt.name)}")
    t = resolve_type(stmt.type, engine.catalog.types())
    engine.catalog.add_type(stmt.name, t)
    return status(stmt, f"Registered custom type with name '{stmt.name}' and SQL type {t}")


def drop_type(engine: Engine, stmt: A.DropType) -> StatementResult:
    if engine.catalog.type(stmt.name) is None and not stmt.if_exists:
        raise KsqlStatementError(f"Type {stmt.name} does not exist.")
    if not engine.catalog.remove_type(stmt.name):  # IF EXISTS of an unknown type: nothing dropped
        return status(stmt, f"Type '{stmt.name}' does not exist")
    return status(stmt, f"Dropped type '{stmt.name}'")


def alter_source(engine: Engine, stmt: A.AlterSource) -> StatementResult:
    src = engine.catalog.source(stmt.name)
    # ksqlDB's order (from memory): AlterSourceFactory refuses a SOURCE stream/table in the statement's words,
    # then DdlCommandExec checks existence, the kind (as DROP does) and a CREATE ... AS sink
    if src is not None and src.is_source:
        raise KsqlStatementError(f"Cannot alter {stmt.kind.lower()} '{stmt.name}': ALTER operations are not "
                                 f"supported on source {stmt.kind.lower()}s.")
    if src is None:
        raise KsqlStatementError(f"Source {stmt.name} does not exist.")
    if src.kind != stmt.kind:
        raise KsqlStatementError(f"Incompatible data source type is {src.kind}, but statement was ALTER {stmt.kind}")
    if src.created_by_query:
        raise KsqlStatementError("ALTER command is not supported for CREATE ... AS statements.")
    # DdlCommandExec (from memory): each new column in turn against the source's schema, then into the new
    # schema's builder - which refuses a name the statement itself adds twice as LogicalSchema does
    reserved = reserved_names(engine.effective_properties())
    added: list[Column] = []
    for written in stmt.columns:
        [c] = check_columns(src.kind, [written], engine.catalog.types(), reserved)
        if src.column(c.name) is not None:
            raise KsqlStatementError(f"Cannot add column `{c.name}` to schema. A column with the same name already "
                                     "exists.")
        if any(a.name == c.name for a in added):
            raise KsqlStatementError(f"Duplicate value columns found in schema: `{c.name}` {c.type}")
        added.append(c)
    src.columns.extend(added)
    # the source's statement grows by the ALTER (ksqlDB's DataSource.with(sql, schema), from memory: the new
    # source's sqlExpression is the old one, a newline and the ALTER's text), so DESCRIBE shows how it was made
    src.sql = f"{src.sql}\n{stmt.text}" if src.sql else stmt.text
    return status(stmt, f"{src.kind.capitalize()} altered")
