"""CREATE STREAM/TABLE AS SELECT and INSERT INTO: a query planned into its sink (created, upgraded by CREATE
OR REPLACE, or an existing stream) and started as a persistent query."""

from __future__ import annotations

import math
import re
from decimal import Decimal as PyDecimal
from typing import TYPE_CHECKING, Any

from ksqlpy import types as T
from ksqlpy.analysis import new_planner
from ksqlpy.analysis.aggregates import NoGroupByError
from ksqlpy.analysis.ddl import (
    check_format_choice,
    check_nullable_representation,
    check_timestamp_column,
    check_topic_properties,
    finish_formats,
    inherited_schema_names,
    normalize_properties,
    parse_delimiter,
    parse_format,
    single_value_wrapping,
    timestamp_column_name,
    topic_config,
)
from ksqlpy.analysis.query import analyze_query
from ksqlpy.analysis.sql_formatter import create_as_text, sink_topic_properties, stored_create_as
from ksqlpy.catalog import Column, Source
from ksqlpy.engine.results import StatementResult, status
from ksqlpy.engine.source_statements import ensure_topic, exists_warning, replace_enabled
from ksqlpy.errors import KsqlStatementError, name_location
from ksqlpy.expr.bound import Cast, Literal
from ksqlpy.expr.lists import decimal_type_of
from ksqlpy.grammar import ast as A
from ksqlpy.javatext import double_to_string, parse_big_decimal
from ksqlpy.plan.logical import Aggregate, OutputColumn, ResultKind, Sink
from ksqlpy.plan.rules import INSERT_KEEPS_ROWTIME, JOIN_SINK_FORMATS_FROM_SOURCE
from ksqlpy.plan.source_topics import check_source_topics

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine



# ksqlDB's message for aggregates without GROUP BY in any persistent query (CSAS and INSERT INTO too: the
# text is fixed, the check comes before the result type's)
PERSISTENT_NO_GROUP_BY = "CREATE TABLE AS SELECT"


def create_as_select(engine: Engine, stmt: A.CreateAsSelect) -> StatementResult:
    props = normalize_properties(stmt.properties)
    existing = engine.catalog.source(stmt.name)
    if existing is not None and stmt.if_not_exists:
        return exists_warning(stmt, stmt.kind, existing)
    check_sink_topic_first(engine, stmt, props)
    plan, props = _plan_for_schema_ids(engine, stmt)
    sink = plan.target
    assert sink is not None
    from ksqlpy.schema_registry.sources import (
        check_sink_schema_ids,
        register_source_schemas,
        require_source_registry,
    )

    # ksqlDB's injectors run before the statement executes, in their order: DefaultSchemaInjector (schema ids),
    # TopicCreateInjector (the counts of a sink topic that exists; a new one is created below, once every check
    # passed); then the sink's name and the upgrade
    check_sink_schema_ids(engine, sink)
    ensure_topic(engine, sink.topic, props, {}, creating=False, source_topic=plan.input_source.topic, create=False)
    check_create_as_sink(engine, stmt, existing)
    upgraded = _upgrade_target(engine, stmt.name, existing, sink, plan)
    # building the topology refuses it (``lower`` checks again): before the sink's topic and schemas exist
    check_source_topics(plan)
    from ksqlpy.backfill.mode import Choice, admissible, choose

    admissible(engine, plan, upgrade=upgraded is not None)  # ksqlpy.backfill=spark: refused before creating
    # the sink inherits the source's partition count (a source whose topic is gone: one)
    aggregate = plan.find(Aggregate)
    window = aggregate.window if aggregate is not None else None
    config = topic_config(stmt.kind, written_properties(engine, props), windowed_sink=window is not None,
                          window_retention_ms=window.retention_ms if window is not None else None,
                          inherited_retention_ms=_retention_of(engine, plan.input_source.topic))
    # TopicCreateInjector's topic, then SchemaRegisterInjector (a registry to register in)
    ensure_topic(engine, sink.topic, props, config, creating=False, source_topic=plan.input_source.topic,
                 before_create=lambda: require_source_registry(engine, sink))

    register_source_schemas(engine, sink, sink=True)
    # the statement as ksqlDB's TopicCreateInjector stores it: reprinted with the sink topic's properties
    topic = engine.log.describe_topic(sink.topic)
    sink.sql = stored_create_as(stmt, plan, sink_topic_properties(
        stmt.kind, sink.topic, topic.partitions if topic is not None else 1, topic.replicas if topic is not None else 1,
        config, _retention_of(engine, plan.input_source.topic)))
    if upgraded is not None:
        # the query keeps its id, so its consumer group, state and internal topics: the old one stops
        # without cleanup and the new one resumes from its committed positions (new logic, new records)
        query_id = upgraded.query_id
        paused = upgraded.state == "PAUSED"
        plan.plan_rules = getattr(upgraded.plan, "plan_rules", None)  # its state's layout
        engine.stop_persistent(query_id, cleanup=False)
    else:
        kind = "CSAS" if stmt.kind == "STREAM" else "CTAS"
        query_id = engine.next_query_id(kind, stmt.name)
        paused = False
    sink.created_by_query = query_id
    backfill = choose(engine, plan, query_id, stmt.text, upgrade=upgraded is not None)
    if backfill is Choice.NONE:
        query = engine.build_persistent(plan, sink, query_id, stmt.text)
    else:  # the backfill computes the history (the query starts at the end), or streaming replays it
        saved = engine.request_properties
        engine.request_properties = {**saved, "auto.offset.reset":
                                     "latest" if backfill is Choice.SPARK else "earliest"}
        try:
            query = engine.build_persistent(plan, sink, query_id, stmt.text)
        finally:
            engine.request_properties = saved
    query.statement_text = sink.sql
    sink.read_from = tuple(query.source_names)
    engine.catalog.add_source(sink, replace=existing is not None)
    engine.start_persistent(query)
    if backfill is Choice.SPARK:
        from ksqlpy.runtime.context import topic_partitions

        engine.backfills.begin(query, topic_partitions(engine, plan.input_source.topic))
    if paused:
        query.state = "PAUSED"
        info = engine.catalog.query(query_id)
        if info is not None:
            info.state = "PAUSED"
    return status(stmt, f"Created query with ID {query_id}", query_id, injected_text=sink.sql)


def written_properties(engine: Engine, props: dict[str, Any]) -> dict[str, Any]:
    """A statement's WITH properties less those a command's injectors added (``Engine.injected_properties``:
    TopicCreateInjector's CLEANUP_POLICY and RETENTION_MS of a C*AS are not the user's to be refused, and the
    sink topic is configured as from what the user wrote)."""
    injected = getattr(engine, "injected_properties", frozenset())
    return {k: v for k, v in props.items() if k not in injected} if injected else props


def check_sink_topic_first(engine: Engine, stmt: A.CreateAsSelect, props: dict[str, Any]) -> None:
    """The counts of a sink topic that exists, judged before the query is analysed: ksqlDB's TopicCreateInjector
    runs on the prepared statement, after its sources were found (AstSanitizer) and before the engine plans it
    (from memory of its injectForCreateAsSelect: the sink's name from KAFKA_TOPIC or the output prefix and the
    sink's name, the counts from the WITH clause, ksql.sink.*, else the topic of the first FROM source as
    SourceTopicsExtractor finds it). So a sink topic at other counts is reported before an unknown column, a
    type error or a wrong result type. With KEY_SCHEMA_ID/VALUE_SCHEMA_ID, DefaultSchemaInjector plans the
    query first (its errors come first): the topic is then judged after the plan, as before. A FROM source
    that does not exist is the sanitizer's error, reported by the analysis; so is, in a join, an unqualified
    column more than one source has ('Column 'X' is ambiguous. ...', AstSanitizer's rewriter) and a qualifier
    no source has (AstBuilder): both are judged here, before the topic."""
    if any(p in props for p in SCHEMA_ID_PROPERTIES):
        return
    refs = [stmt.query.source] + [j.right for j in stmt.query.joins]
    sources = [engine.catalog.source(r.name) for r in refs]
    if any(s is None for s in sources):
        return
    if stmt.query.joins and len({r.name for r in refs}) == len(refs):  # a self join: the analysis refuses it
        from ksqlpy.analysis.join_scope import JoinScope
        from ksqlpy.analysis.joins import sanitized_expressions
        from ksqlpy.analysis.pseudo_columns import offsets_enabled

        scope = JoinScope([(s, r.alias or s.name) for s, r in zip(sources, refs, strict=True) if s is not None],
                          offsets=offsets_enabled(engine.effective_properties()))
        scope.check_ambiguity(sanitized_expressions(stmt.query))
    topic = str(props.get("KAFKA_TOPIC", f"{engine.prop('ksql.output.topic.name.prefix', '')}{stmt.name}"))
    ensure_topic(engine, topic, props, {}, creating=False, source_topic=sources[0].topic, create=False)


def check_create_as_sink(engine: Engine, stmt: A.CreateAsSelect, existing: Source | None) -> None:
    """The sink's name, checked once the query is planned (from memory of ksqlDB's
    EngineExecutor.maybeCreateSinkDdl, which runs on the logical plan's output node): a name taken is refused
    unless OR REPLACE names a sink that is no SOURCE stream/table - so a fault of the query itself (an unknown
    column, a wrong result type) is reported first, as it is for a new name. EXPLAIN runs it too."""
    if existing is not None and not (stmt.or_replace and replace_enabled(engine)):
        raise KsqlStatementError(f"Cannot add {stmt.kind.lower()} '{stmt.name}': A {existing.kind.lower()} with "
                                 "the same name already exists")
    if existing is not None and existing.is_source:
        raise KsqlStatementError(f"Cannot add {stmt.kind.lower()} '{stmt.name}': CREATE OR REPLACE is not "
                                 f"supported on source {existing.kind.lower()}s.")


def check_create_as_upgrade(engine: Engine, stmt: A.CreateAsSelect, existing: Source | None, plan: Sink) -> None:
    """The CREATE OR REPLACE checks of a planned statement (``_upgrade_target``'s), for EXPLAIN."""
    assert plan.target is not None
    _upgrade_target(engine, stmt.name, existing, plan.target, plan)


def _retention_of(engine: Engine, topic: str) -> int | None:
    """A source topic's own retention.ms, which a sink created from it inherits (ksqlDB's TopicProperties)."""
    info = engine.log.describe_topic(topic)
    value = info.config.get("retention.ms") if info is not None else None
    return int(value) if value is not None else None


SCHEMA_ID_PROPERTIES = ("KEY_SCHEMA_ID", "VALUE_SCHEMA_ID")


def _plan_for_schema_ids(engine: Engine, stmt: A.CreateAsSelect) -> tuple[Sink, dict[str, Any]]:
    """``plan_create_as``; with a ``KEY_SCHEMA_ID`` or ``VALUE_SCHEMA_ID`` ksqlDB's DefaultSchemaInjector
    plans the statement first to learn the columns it compares with the registered schemas, and words any
    failure of that plan 'Could not determine output schema for query due to error: <message>'."""
    if not any(p in normalize_properties(stmt.properties) for p in SCHEMA_ID_PROPERTIES):
        return plan_create_as(engine, stmt)
    try:
        return plan_create_as(engine, stmt)
    except KsqlStatementError as e:
        name_location(e)
        e.set_message(f"Could not determine output schema for query due to error: {e.message}")
        raise


def plan_create_as(engine: Engine, stmt: A.CreateAsSelect) -> tuple[Sink, dict[str, Any]]:
    """The plan of a CREATE ... AS SELECT with its sink resolved (``Sink.target``), and the WITH properties."""
    props = normalize_properties(stmt.properties)
    ts_col = timestamp_column_name(props["TIMESTAMP"]) if "TIMESTAMP" in props else None
    try:
        _new_planner(engine, stmt.query)
        plan = analyze_query(stmt.query, engine.catalog, engine.session_state(), sink_name=stmt.name, persistent=True,
                             sql=stmt.text, sink_timestamp=ts_col)
    except NoGroupByError as e:
        raise e.for_statement(PERSISTENT_NO_GROUP_BY) from None
    if ts_col is not None:
        col = next(c for c in plan.project.key + plan.project.value if c.name == ts_col)
        check_timestamp_column(ts_col, col.type, props.get("TIMESTAMP_FORMAT"))
    if stmt.kind != plan.result_kind:
        raise KsqlStatementError(f"Invalid result type. Your SELECT query produces a {plan.result_kind}. Please use "
                                 f"CREATE {plan.result_kind} AS SELECT statement instead.")
    try:
        sink = _sink_source(engine, stmt.name, stmt.kind, plan, props, stmt.text)
    except KsqlStatementError as e:
        if not e.message.startswith(("Key format does not support schema.", "Value format does not support schema.")):
            raise
        # found while planning the physical form: ksqlDB quotes the statement it planned
        raise KsqlStatementError(f"{e.message}\nStatement: {create_as_text(stmt, plan)}") from None
    plan.target = sink
    return plan, props


def _upgrade_target(engine: Engine, name: str, existing: Source | None, sink: Source, plan: Any) -> Any:
    """The running query a CREATE OR REPLACE upgrades (None: a new query), after ksqlDB's checks in its
    order: one writer at most (query id), the sink's compatibility (metastore), the plans' (registry)."""
    if existing is None:
        return None
    from ksqlpy.engine.upgrades import check_plan_upgrade, check_source_upgrade, plan_steps

    writers = sorted(engine.catalog.queries_writing(name))
    if len(writers) > 1:
        raise KsqlStatementError(f"REPLACE for sink `{name}` is not supported because there are multiple queries "
                                 f"writing into it: [{', '.join(writers)}]")
    check_source_upgrade(existing, sink)
    old = engine.queries.get(writers[0]) if writers else None
    if old is None:
        return None
    check_plan_upgrade(plan_steps(old.plan, old.sink), plan_steps(plan, sink))
    return old


def _new_planner(engine: Engine, query: A.Query) -> None:
    """With ``ksql.new.query.planner.enabled`` the query must fit ksqlDB's new planner (once its sources are
    known: an unknown one is reported as usual)."""
    if not new_planner.enabled(engine.effective_properties()):
        return
    sources = [query.source.name] + [j.right.name for j in query.joins]
    if all(engine.catalog.source(n) is not None for n in sources):
        new_planner.check_new_planner(query, engine.catalog.source(query.source.name).kind)


def _sink_source(engine: Engine, name: str, kind: str, plan: Any, props: dict[str, Any], sql: str) -> Source:
    # the formats the sink inherits: the FROM source's as written; a sink created under an earlier plan rule
    # revision keeps the ones its records were written in (the join's result as the query reads it)
    rules = getattr(engine, "plan_rules", None)
    src: Source = plan.format_source if rules is None or rules >= JOIN_SINK_FORMATS_FROM_SOURCE else plan.input_source
    key, value = plan.project.key, plan.project.value
    check_topic_properties(kind, written_properties(engine, props), windowed=plan.windowed is not None)
    check_format_choice(props)
    key_fmt = parse_format(props.get("KEY_FORMAT", props.get("FORMAT", src.key_format)), "KEY_FORMAT")
    value_fmt = parse_format(props.get("VALUE_FORMAT", props.get("FORMAT", src.value_format)), "VALUE_FORMAT")
    if not key:
        if ("KEY_FORMAT" in props or "FORMAT" in props) and key_fmt != "NONE":
            raise KsqlStatementError("Key format specified for stream without key columns.")
        key_fmt = "NONE"
    elif key_fmt == "NONE" and "KEY_FORMAT" not in props and "FORMAT" not in props:
        # an inherited NONE only: a NONE the statement names is checked against the key columns as any format
        key_fmt = str(engine.prop("ksql.persistence.default.format.key", "KAFKA")).upper()
    check_nullable_representation(key_fmt, value_fmt, props)
    for c in key:
        if T.contains_map(c.type):
            raise KsqlStatementError(
                "Map keys, including types that contain maps, are not supported as they may lead to unexpected "
                f"behavior due to inconsistent serialization. Key column name: `{c.name}`. Column type: {c.type}. "
                "See https://github.com/confluentinc/ksql/issues/6621 for more.")
    columns = [Column(c.name, c.type, key=True) for c in key] + [Column(c.name, c.type) for c in value]
    wrap = single_value_wrapping(props, len(value), engine.effective_properties(), value_fmt)
    topic = str(props.get("KAFKA_TOPIC", f"{engine.prop('ksql.output.topic.name.prefix', '')}{name}"))
    sink = Source(
        name=name, kind=kind, topic=topic, columns=columns, key_format=key_fmt, value_format=value_fmt,
        key_delimiter=parse_delimiter(props["KEY_DELIMITER"]) if "KEY_DELIMITER" in props else None,
        value_delimiter=parse_delimiter(props["VALUE_DELIMITER"]) if "VALUE_DELIMITER" in props else (
            src.value_delimiter if value_fmt == src.value_format == "DELIMITED" else None),
        wrap_single_value=wrap, windowed=plan.windowed, sql=sql,
        properties={**inherited_schema_names(src, value_fmt, props), **props},
        timestamp_column=timestamp_column_name(props["TIMESTAMP"]) if "TIMESTAMP" in props else None,
        timestamp_format=props.get("TIMESTAMP_FORMAT"),
    )
    finish_formats(sink)
    return sink


def insert_into(engine: Engine, stmt: A.InsertInto) -> StatementResult:
    props = normalize_properties(stmt.properties)
    target = engine.catalog.source(stmt.target)
    if target is None:
        where = f"Line: {stmt.target_line}, Col: {stmt.target_column}: " if stmt.target_line else ""
        raise KsqlStatementError(f"{where}Source `{stmt.target}` does not exist.")
    plan = plan_insert(engine, stmt, target)
    from ksqlpy.engine.internal_topics import is_read_only

    if is_read_only(engine, target.topic):  # after planning, as ksqlDB's DistributingExecutor checks it
        raise KsqlStatementError(f"Cannot insert into read-only topic: {target.topic}")
    query_id = props.get("QUERY_ID")
    if query_id is not None:
        query_id = str(query_id).upper()
        check_query_id(query_id)
        if query_id in engine.queries:
            raise KsqlStatementError(f"Query ID '{query_id}' already exists.")
    else:
        query_id = engine.next_query_id("INSERT", None)
    query = engine.build_persistent(plan, target, query_id, stmt.text)
    engine.start_persistent(query)
    return status(stmt, f"Created query with ID {query_id}", query_id)


def plan_insert(engine: Engine, stmt: A.InsertInto, target: Source) -> Sink:
    """The plan of an INSERT INTO ``target``, its values cast to the stream's types where ksqlDB does."""
    # ksqlDB's order (from memory): the sanitizer refuses a table or a stream with header columns as the target
    # before the query is analysed; EngineExecutor.validateExistingSink then refuses a SOURCE stream, a result
    # of the other kind, and a schema that differs
    if target.kind != "STREAM":
        raise KsqlStatementError(f"INSERT INTO can only be used to insert into a stream. {target.name} is a table.")
    if target.header_columns:
        raise KsqlStatementError(f"Cannot insert into {target.name} because it has header columns")
    _new_planner(engine, stmt.query)
    try:
        plan = analyze_query(stmt.query, engine.catalog, engine.session_state(), sink_name=target.name,
                             persistent=True, sql=stmt.text)
    except NoGroupByError as e:
        raise e.for_statement(PERSISTENT_NO_GROUP_BY) from None
    if target.is_source:
        raise KsqlStatementError(f"Cannot insert into read-only stream: {target.name}")
    if plan.result_kind is not ResultKind.STREAM:
        raise KsqlStatementError(f"Incompatible data sink and query result. Data sink ({target.name}) type is KSTREAM "
                                 f"but select query result is K{plan.result_kind}.")
    result_cols = ([(c.name, c.type, True) for c in plan.project.key]
                   + [(c.name, c.type, False) for c in plan.project.value])
    sink_cols = [(c.name, c.type, c.key) for c in target.columns]
    if result_cols != sink_cols:
        _decimal_literals(plan, {n: t for n, t, k in sink_cols if not k})
        result_cols = ([(c.name, c.type, True) for c in plan.project.key]
                       + [(c.name, c.type, False) for c in plan.project.value])
    if result_cols != sink_cols and _compatible_schema(result_cols, sink_cols):
        # a DECIMAL value column the sink's DECIMAL holds without loss (DECIMAL(2, 1) into DECIMAL(5, 2)) is
        # cast on the way (ksqlDB passes the value on as it is, from memory)
        sink_types = {n: t for n, t, k in sink_cols if not k}
        plan.with_values([c if c.type == sink_types[c.name] else
                          OutputColumn(c.name, sink_types[c.name], Cast(c.expr, type=sink_types[c.name], implicit=True))
                          for c in plan.project.value])
        result_cols = sink_cols
    if result_cols != sink_cols:
        def fmt(cols: list[tuple[str, Any, bool]]) -> str:
            return ", ".join(f"`{n}` {t}{' KEY' if k else ''}" for n, t, k in cols)

        raise KsqlStatementError(f"Incompatible schema between results and sink.\nResult schema is {fmt(result_cols)}"
                                 f"\nSink schema is {fmt(sink_cols)}")
    if plan.windowed != target.windowed:
        # the sink's keys keep their windowing (type and size): ksqlDB's SchemaKStream.into refuses to change it
        # while the physical plan is built, after the schema check (message from memory)
        raise KsqlStatementError("Into can't change windowing")
    plan.target = target
    rules = getattr(engine, "plan_rules", None)
    plan.keeps_rowtime = rules is None or rules >= INSERT_KEEPS_ROWTIME
    return plan


RESERVED_QUERY_ID_PREFIXES = ("INSERTQUERY_", "CTAS_", "CSAS_", "CST_")


def check_query_id(query_id: str) -> None:
    """ksqlDB's ``QueryIdUtil``: a chosen query id is a plain name outside the prefixes ksqlDB generates."""
    if not re.fullmatch(r"[A-Za-z0-9_]+", query_id):
        raise KsqlStatementError(f"Query IDs may contain only alphanumeric characters and '_'. Got: '{query_id}'")
    if query_id.startswith(RESERVED_QUERY_ID_PREFIXES):
        raise KsqlStatementError("Query IDs must not start with a reserved query ID prefix (INSERTQUERY_, CTAS_, "
                                 f"CSAS_, CST_). Got '{query_id}'.")


def _decimal_literals(plan: Sink, sink_types: dict[str, T.SqlType]) -> None:
    """ksqlDB's ``ImplicitlyCastResolver`` (from memory): a numeric literal - INT, BIGINT, DOUBLE or DECIMAL -
    projected into a DECIMAL column of the sink becomes a DECIMAL literal of that column's type when its value
    fits that DECIMAL's digits without rounding (``DecimalUtil.canImplicitlyCast`` of the value's own DECIMAL
    type; a DOUBLE's value is ``BigDecimal.valueOf``: its Java text). ``1`` and ``123`` go into DECIMAL(5, 2),
    ``1234`` and ``1.234`` do not, nor ``1.5e0`` into DECIMAL(1, 0); a column is never rewritten."""
    values = []
    changed = False
    for c in plan.project.value:
        target = sink_types.get(c.name)
        value = _literal_decimal(c.expr) if isinstance(target, T.Decimal) else None
        if value is not None and isinstance(target, T.Decimal) and T.can_implicitly_cast(decimal_type_of(value),
                                                                                          target):
            scaled = value.quantize(PyDecimal(1).scaleb(-target.scale))
            values.append(OutputColumn(c.name, target, Literal(scaled, type=target, pos=c.expr.pos)))
            changed = True
            continue
        values.append(c)
    if changed:
        plan.with_values(values)


def _literal_decimal(e: object) -> PyDecimal | None:
    """The value of a numeric literal as a BigDecimal (None for anything else)."""
    if not isinstance(e, Literal) or e.value is None:
        return None
    if e.type == T.DOUBLE:
        return parse_big_decimal(double_to_string(e.value)) if math.isfinite(e.value) else None
    if e.type in (T.INTEGER, T.BIGINT) or isinstance(e.type, T.Decimal):
        return PyDecimal(e.value)
    return None


def _compatible_schema(result: list[tuple[str, Any, bool]], sink: list[tuple[str, Any, bool]]) -> bool:
    """ksqlDB's ``LogicalSchema.compatibleSchema`` (from memory): the same columns in order, each of the sink's
    type or - a value column - a DECIMAL that widens into the sink's DECIMAL (``SqlDecimal.canImplicitlyCast``).
    No other implicit cast: INT into BIGINT, DOUBLE or DECIMAL is refused (a CAST in the query says it)."""
    if [(n, k) for n, _, k in result] != [(n, k) for n, _, k in sink]:
        return False
    return all(rt == st or (not k and isinstance(rt, T.Decimal) and isinstance(st, T.Decimal)
                            and T.can_implicitly_cast(rt, st))
               for (_, rt, k), (_, st, _) in zip(result, sink, strict=True))
