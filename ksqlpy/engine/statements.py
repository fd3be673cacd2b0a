"""Statement execution, one handler per statement type (dispatch by table, not by if-chains)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ksqlpy import types as T
from ksqlpy.analysis import new_planner
from ksqlpy.analysis.aggregates import NoGroupByError
from ksqlpy.analysis.ddl import (
    check_columns,
    check_format_choice,
    check_nullable_representation,
    check_timestamp_column,
    check_topic_properties,
    finish_formats,
    inherited_schema_names,
    normalize_properties,
    parse_delimiter,
    parse_format,
    resolve_type,
    single_value_wrapping,
    source_from_create,
    topic_config,
)
from ksqlpy.analysis.pseudo_columns import reserved_names
from ksqlpy.analysis.query import analyze_query
from ksqlpy.analysis.statement_text import create_as_text
from ksqlpy.catalog import Column, Source
from ksqlpy.engine import connectors
from ksqlpy.engine.describe import describe_source, source_summary
from ksqlpy.engine.results import StatementResult
from ksqlpy.errors import KsqlError, KsqlParseError, KsqlStatementError, name_location
from ksqlpy.expr.bound import Cast
from ksqlpy.grammar import ast as A
from ksqlpy.grammar import limits
from ksqlpy.plan.logical import Aggregate, Join, OutputColumn, ResultKind, Sink

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

_LOG = logging.getLogger("ksqlpy.statements")

# ksqlDB's message for aggregates without GROUP BY in any persistent query (CSAS and INSERT INTO too: the
# text is fixed, the check comes before the result type's)
PERSISTENT_NO_GROUP_BY = "CREATE TABLE AS SELECT"


def _status(stmt: A.Statement, message: str, query_id: str | None = None) -> StatementResult:
    return StatementResult("currentStatus", stmt.text, message=message, query_id=query_id)


# ---------------------------------------------------------------------- DDL


def _exists_warning(stmt: A.Statement, kind: str, existing: Source) -> StatementResult:
    """IF NOT EXISTS on an existing source: nothing happens, and the user is told so. ksqlDB's
    ``DistributingExecutor`` words it with the statement's kind twice (whatever the existing source is) and
    the name as a SourceName prints itself, back-quoted."""
    msg = f"Cannot add {kind.lower()} `{stmt.name}`: A {kind.lower()} with the same name already exists."  # type: ignore[attr-defined]
    return StatementResult("warning_entity", stmt.text, message=msg, warnings=[msg])


def create_source(engine: Engine, stmt: A.CreateSource) -> StatementResult:
    existing = engine.catalog.source(stmt.name)
    if existing is not None and stmt.if_not_exists:
        return _exists_warning(stmt, stmt.kind, existing)
    from ksqlpy.schema_registry.sources import infer_columns, register_source_schemas, require_source_registry

    stmt = infer_columns(stmt, engine.schema_registry, engine.effective_properties())
    src = source_from_create(stmt, engine.effective_properties(), engine.catalog.types())
    if existing is not None:
        if not (stmt.or_replace and _replace_enabled(engine)):
            raise KsqlStatementError(f"Cannot add {stmt.kind.lower()} '{stmt.name}': A {existing.kind.lower()} with "
                                     "the same name already exists")
        if existing.kind != stmt.kind:
            raise KsqlStatementError(f"Cannot add {stmt.kind.lower()} '{stmt.name}': A {existing.kind.lower()} with "
                                     "the same name already exists")
        if existing.is_source:
            raise KsqlStatementError(f"Cannot add {stmt.kind.lower()} '{stmt.name}': CREATE OR REPLACE is not "
                                     f"supported on source {stmt.kind.lower()}s.")
        from ksqlpy.engine.upgrades import check_source_upgrade

        check_source_upgrade(existing, src)
        src.created_by_query = existing.created_by_query
    require_source_registry(engine, src)
    _ensure_topic(engine, src.topic, src.properties, topic_config(src.kind, src.properties), creating=True)
    register_source_schemas(engine, src, sink=False)
    engine.catalog.add_source(src, replace=existing is not None)
    if src.is_source and src.kind == "TABLE":
        from ksqlpy.engine.materialized import start_source_table_query

        start_source_table_query(engine, src, stmt.text)
        if src.created_by_query:  # its CST_ query materializes it: ksqlDB answers with the query
            return _status(stmt, f"Created query with ID {src.created_by_query}", src.created_by_query)
    return _status(stmt, f"{stmt.kind.capitalize()} created")


def _ensure_topic(engine: Engine, topic: str, props: dict[str, Any], config: dict[str, str], *, creating: bool,
                  default_partitions: int | None = None, default_replicas: int = 1) -> None:
    info = engine.log.describe_topic(topic)
    partitions = props.get("PARTITIONS")
    if info is not None:
        if partitions is not None and int(partitions) != info.partitions:
            raise KsqlStatementError(
                f"A Kafka topic with the name '{topic}' already exists, with different partition/replica "
                f"configuration than required. KSQL expects {int(partitions)} partitions (topic has "
                f"{info.partitions}), 1 replication factor (topic has 1).")
        return
    if partitions is None:
        partitions = default_partitions
    if partitions is None:
        raise KsqlStatementError(f"Topic '{topic}' does not exist. If you want to create a new topic for the "
                                 "stream/table please re-run the statement providing the required 'PARTITIONS' "
                                 "configuration in the WITH clause (and optionally 'REPLICAS'). For example: "
                                 f"CREATE STREAM S (ID INT) WITH (KAFKA_TOPIC='{topic}', PARTITIONS=2, "
                                 "REPLICAS=1, VALUE_FORMAT='JSON');")
    engine.log.create_topic(topic, int(partitions), int(props.get("REPLICAS", default_replicas)), config)


def create_as_select(engine: Engine, stmt: A.CreateAsSelect) -> StatementResult:
    props = normalize_properties(stmt.properties)
    existing = engine.catalog.source(stmt.name)
    if existing is not None and stmt.if_not_exists:
        return _exists_warning(stmt, stmt.kind, existing)
    if existing is not None and not (stmt.or_replace and _replace_enabled(engine)):
        raise KsqlStatementError(f"Cannot add {stmt.kind.lower()} '{stmt.name}': A {existing.kind.lower()} with "
                                 "the same name already exists")
    if existing is not None and existing.is_source:
        raise KsqlStatementError(f"Cannot add {stmt.kind.lower()} '{stmt.name}': CREATE OR REPLACE is not "
                                 f"supported on source {existing.kind.lower()}s.")
    if stmt.query.limit is not None:
        raise KsqlStatementError(f"CREATE {stmt.kind} AS SELECT statements don't support LIMIT clause.")
    plan, props = plan_create_as(engine, stmt)
    sink = plan.target
    assert sink is not None
    upgraded = _upgrade_target(engine, stmt.name, existing, sink, plan)
    from ksqlpy.backfill.mode import Choice, admissible, choose

    admissible(engine, plan, upgrade=upgraded is not None)  # ksqlpy.backfill=spark: refused before creating
    # the sink inherits the source's partition count (a source whose topic is gone: one)
    aggregate = plan.find(Aggregate)
    window = aggregate.window if aggregate is not None else None
    config = topic_config(stmt.kind, props, windowed_sink=window is not None,
                          window_retention_ms=window.retention_ms if window is not None else None,
                          inherited_retention_ms=_retention_of(engine, plan.input_source.topic))
    from ksqlpy.schema_registry.sources import register_source_schemas, require_source_registry

    require_source_registry(engine, sink)
    _ensure_topic(engine, sink.topic, props, config, creating=False,
                  default_partitions=engine.log.partition_count(plan.input_source.topic) or 1)

    register_source_schemas(engine, sink, sink=True)
    if upgraded is not None:
        # the query keeps its id, so its consumer group, state and internal topics: the old one stops
        # without cleanup and the new one resumes from its committed positions (new logic, new records)
        query_id = upgraded.query_id
        paused = upgraded.state == "PAUSED"
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
    return _status(stmt, f"Created query with ID {query_id}", query_id)


def _retention_of(engine: Engine, topic: str) -> int | None:
    """A source topic's own retention.ms, which a sink created from it inherits (ksqlDB's TopicProperties)."""
    info = engine.log.describe_topic(topic)
    value = info.config.get("retention.ms") if info is not None else None
    return int(value) if value is not None else None


def plan_create_as(engine: Engine, stmt: A.CreateAsSelect) -> tuple[Sink, dict[str, Any]]:
    """The plan of a CREATE ... AS SELECT with its sink resolved (``Sink.target``), and the WITH properties."""
    props = normalize_properties(stmt.properties)
    ts_col = str(props["TIMESTAMP"]).upper() if "TIMESTAMP" in props else None
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
        if not e.message.startswith("Key format does not support schema.") or isinstance(plan.bottom, Join):
            raise
        # found while planning the physical form: ksqlDB quotes the statement it planned
        raise KsqlStatementError(f"{e.message}\nStatement: {create_as_text(stmt, plan)}") from None
    plan.target = sink
    return plan, props


def _replace_enabled(engine: Engine) -> bool:
    return str(engine.prop("ksql.create.or.replace.enabled", "true")).lower() != "false"


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
    src: Source = plan.input_source
    key, value = plan.project.key, plan.project.value
    check_topic_properties(kind, props, windowed=plan.windowed is not None)
    check_format_choice(props)
    key_fmt = parse_format(props.get("KEY_FORMAT", props.get("FORMAT", src.key_format)), "KEY_FORMAT")
    value_fmt = parse_format(props.get("VALUE_FORMAT", props.get("FORMAT", src.value_format)), "VALUE_FORMAT")
    if not key:
        if ("KEY_FORMAT" in props or "FORMAT" in props) and key_fmt != "NONE":
            raise KsqlStatementError("Key format specified for stream without key columns.")
        key_fmt = "NONE"
    elif key_fmt == "NONE":
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
        key_delimiter=parse_delimiter(props["KEY_DELIMITER"]) if "KEY_DELIMITER" in props else (
            src.key_delimiter if key_fmt == src.key_format == "DELIMITED" else None),
        value_delimiter=parse_delimiter(props["VALUE_DELIMITER"]) if "VALUE_DELIMITER" in props else (
            src.value_delimiter if value_fmt == src.value_format == "DELIMITED" else None),
        wrap_single_value=wrap, windowed=plan.windowed, sql=sql,
        properties={**inherited_schema_names(src, key_fmt, value_fmt, props), **props},
        timestamp_column=str(props["TIMESTAMP"]).upper() if "TIMESTAMP" in props else None,
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
    return _status(stmt, f"Created query with ID {query_id}", query_id)


def plan_insert(engine: Engine, stmt: A.InsertInto, target: Source) -> Sink:
    """The plan of an INSERT INTO ``target``, its values cast to the stream's types where ksqlDB does."""
    if target.kind != "STREAM":
        raise KsqlStatementError(f"INSERT INTO can only be used to insert into a stream. {target.name} is a table.")
    if target.is_source:
        raise KsqlStatementError(f"Cannot insert into read-only stream: {target.name}")
    _new_planner(engine, stmt.query)
    try:
        plan = analyze_query(stmt.query, engine.catalog, engine.session_state(), sink_name=target.name,
                             persistent=True, sql=stmt.text)
    except NoGroupByError as e:
        raise e.for_statement(PERSISTENT_NO_GROUP_BY) from None
    if plan.result_kind is not ResultKind.STREAM:
        raise KsqlStatementError(f"INSERT INTO can only be used to insert into a stream. The query produces a "
                                 f"{plan.result_kind.lower()}.")
    if target.header_columns:
        raise KsqlStatementError(f"Cannot insert into {target.name} because it has header columns")
    result_cols = ([(c.name, c.type, True) for c in plan.project.key]
                   + [(c.name, c.type, False) for c in plan.project.value])
    sink_cols = [(c.name, c.type, c.key) for c in target.columns]
    if result_cols != sink_cols and _castable_into(result_cols, sink_cols):
        # value columns the sink types can hold without loss (INT into DECIMAL(5, 2), DECIMAL(2, 1) into
        # DECIMAL(5, 2), INT into BIGINT...) are cast on the way, as ksqlDB does
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
    plan.target = target
    return plan


RESERVED_QUERY_ID_PREFIXES = ("INSERTQUERY_", "CTAS_", "CSAS_", "CST_")


def check_query_id(query_id: str) -> None:
    """ksqlDB's ``QueryIdUtil``: a chosen query id is a plain name outside the prefixes ksqlDB generates."""
    if not re.fullmatch(r"[A-Za-z0-9_]+", query_id):
        raise KsqlStatementError(f"Query IDs may contain only alphanumeric characters and '_'. Got: '{query_id}'")
    if query_id.startswith(RESERVED_QUERY_ID_PREFIXES):
        raise KsqlStatementError("Query IDs must not start with a reserved query ID prefix (INSERTQUERY_, CTAS_, "
                                 f"CSAS_, CST_). Got '{query_id}'.")


def _castable_into(result: list[tuple[str, Any, bool]], sink: list[tuple[str, Any, bool]]) -> bool:
    """Same columns, keys identical, every value column implicitly castable to the sink's type."""
    if [(n, k) for n, _, k in result] != [(n, k) for n, _, k in sink]:
        return False
    return all(rt == st or (not k and T.can_implicitly_cast(rt, st))
               for (_, rt, k), (_, st, _) in zip(result, sink, strict=True))


def insert_values(engine: Engine, stmt: A.InsertValues) -> StatementResult:
    from ksqlpy.engine.insert_values import insert_values as run

    run(engine, stmt)
    return StatementResult("message", stmt.text, message="")


def drop_source(engine: Engine, stmt: A.Drop) -> StatementResult:
    src = engine.catalog.source(stmt.name)
    if src is None:
        if stmt.if_exists:
            return _status(stmt, f"Source `{stmt.name}` does not exist.")
        raise KsqlStatementError(f"{stmt.kind.capitalize()} {stmt.name} does not exist.")
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
    if stmt.delete_topic and src.is_source:
        raise KsqlStatementError(f"Cannot delete topic for read-only source: {stmt.name}")
    if src.created_by_query:
        engine.stop_persistent(src.created_by_query)
    engine.catalog.remove_source(stmt.name)
    if stmt.delete_topic and engine.log.topic_exists(src.topic):
        engine.log.delete_topic(src.topic)
    return _status(stmt, f"Source `{stmt.name}` (topic: {src.topic}) was dropped.")


def create_type(engine: Engine, stmt: A.CreateType) -> StatementResult:
    if engine.catalog.type(stmt.name) is not None:
        if stmt.if_not_exists:  # nothing registered: ksqlDB's DdlCommandExec says what the name already is
            return _status(stmt, f"{stmt.name} is already registered with type {engine.catalog.type(stmt.name)}")
        raise KsqlStatementError(f"Cannot register custom type '{stmt.name}' since it is already registered with "
                                 f"type: {engine.catalog.type(stmt.name)}")
    t = resolve_type(stmt.type, engine.catalog.types())
    engine.catalog.add_type(stmt.name, t)
    return _status(stmt, f"Registered custom type with name '{stmt.name}' and SQL type {t}")


def drop_type(engine: Engine, stmt: A.DropType) -> StatementResult:
    if engine.catalog.type(stmt.name) is None and not stmt.if_exists:
        raise KsqlStatementError(f"Type {stmt.name} does not exist.")
    if not engine.catalog.remove_type(stmt.name):  # IF EXISTS of an unknown type: nothing dropped
        return _status(stmt, f"Type '{stmt.name}' does not exist")
    return _status(stmt, f"Dropped type '{stmt.name}'")


def alter_source(engine: Engine, stmt: A.AlterSource) -> StatementResult:
    src = engine.catalog.source(stmt.name)
    if src is None:
        raise KsqlStatementError(f"Source {stmt.name} does not exist.")
    if src.is_source:
        raise KsqlStatementError(f"Cannot alter {src.kind.lower()} '{src.name}': ALTER operations are not supported "
                                 f"on source {src.kind.lower()}s.")
    if src.created_by_query:
        raise KsqlStatementError("ALTER command is not supported for CREATE ... AS statements.")
    new = check_columns(src.kind, stmt.columns, engine.catalog.types(), reserved_names(engine.effective_properties()))
    for c in new:
        if src.column(c.name) is not None:
            raise KsqlStatementError(f"Cannot add column `{c.name}` to schema. A column with the same name already "
                                     "exists.")
        src.columns.append(c)
    return _status(stmt, f"{src.kind.capitalize()} altered")


# ---------------------------------------------------------------------- queries


def terminate(engine: Engine, stmt: A.Terminate) -> StatementResult:
    if stmt.query_id is None:
        for qid in list(engine.queries):
            engine.stop_persistent(qid)
        return _status(stmt, "Query terminated.")  # ksqlDB's one success text for every TERMINATE
    qid = stmt.query_id.upper()
    if qid in engine.transient:
        engine.transient[qid].close()
        return _status(stmt, "Query terminated.")
    if qid not in engine.queries:
        raise KsqlStatementError(f"Unknown queryId: {stmt.query_id}")
    engine.stop_persistent(qid)
    return _status(stmt, "Query terminated.")


def reset_query(engine: Engine, stmt: A.ResetQuery) -> StatementResult:
    """``RESET QUERY``: ksqlpy's own statement (reset.py); runs locally, its effect is in the log."""
    from ksqlpy.engine.reset import parse_time, reset_running_query

    to = parse_time(stmt.to_timestamp) if stmt.to_timestamp is not None else None
    result = reset_running_query(engine, stmt.query_id, to)
    where = "the earliest offsets" if to is None else f"timestamp {to}"
    return _status(stmt, f"Query {result.query_id} reset to {where}: its state and internal topics were deleted "
                         "and it recomputes from there.", result.query_id)


def pause_resume(engine: Engine, stmt: A.PauseResume) -> StatementResult:
    ids = list(engine.queries) if stmt.query_id is None else [stmt.query_id.upper()]
    for qid in ids:
        q = engine.queries.get(qid)
        if q is None:
            raise KsqlStatementError(f"Unknown queryId: {qid}")
        q.state = "PAUSED" if stmt.action == "PAUSE" else "RUNNING"
        info = engine.catalog.query(qid)
        if info:
            info.state = q.state
    return _status(stmt, f"Query {'paused' if stmt.action == 'PAUSE' else 'resumed'}.")


def select(engine: Engine, stmt: A.SelectStatement) -> StatementResult:
    if stmt.query.emit is not None:
        tq = engine.push_query(stmt.text)
        return StatementResult("push", stmt.text, data=tq, query_id=tq.query_id)
    from ksqlpy.engine.pull import pull_result

    # data: {"columns": [(name, type)], "rows": [tuple], "keys": [names of the key columns selected]}
    return StatementResult("rows", stmt.text, data=pull_result(engine, stmt))


# ---------------------------------------------------------------------- metadata


def show(engine: Engine, stmt: A.Show) -> StatementResult:
    what = stmt.what.upper()
    if what in ("STREAMS", "TABLES"):
        kind = what[:-1]
        items = [source_summary(engine, s) for s in engine.catalog.sources() if s.kind == kind]
        return StatementResult(what.lower(), stmt.text, data=sorted(items, key=lambda d: d["name"]))
    if what in ("TOPICS", "ALL_TOPICS", "ALLTOPICS"):
        from ksqlpy.engine.describe import list_topics

        topics = list_topics(engine, show_all=what != "TOPICS", extended=stmt.extended)
        return StatementResult("kafka_topics_extended" if stmt.extended else "kafka_topics", stmt.text, data=topics)
    if what == "QUERIES" and stmt.extended:
        from ksqlpy.engine.describe import query_details

        return StatementResult("query_descriptions", stmt.text,
                               data=[query_details(engine, q) for q in engine.queries.values()])
    if what == "QUERIES":
        qs = [{"queryString": q.sql, "sinks": [q.sink_name], "sinkKafkaTopics": [q.sink.topic], "id": q.query_id,
               "queryType": "PERSISTENT", "state": q.state, "statusCount": {q.state: 1}}
              for q in engine.queries.values()]
        qs += [{"queryString": t.plan.sql, "sinks": [], "sinkKafkaTopics": [], "id": t.query_id,
                "queryType": "PUSH", "state": "RUNNING", "statusCount": {"RUNNING": 1}}
               for t in engine.transient.values()]
        return StatementResult("queries", stmt.text, data=qs)
    if what == "PROPERTIES":
        return StatementResult("properties", stmt.text, data=properties_listing(engine))
    if what == "FUNCTIONS":
        reg = engine.functions
        kinds = (("SCALAR", reg.scalars), ("AGGREGATE", reg.aggregates), ("TABLE", reg.tables))
        fns = [{"name": n, "type": kind, "category": f.category} for kind, fns_ in kinds for n, f in fns_.items()]
        return StatementResult("function_names", stmt.text, data=sorted(fns, key=lambda d: d["name"]))
    if what == "TYPES":
        return StatementResult("type_list", stmt.text, data={n: str(t) for n, t in engine.catalog.types().items()})
    if what == "VARIABLES":
        return StatementResult("variables", stmt.text, data=dict(engine.variables))
    if "CONNECTOR" in what:
        return connectors.list_connectors(engine, stmt)
    raise KsqlStatementError(f"Unsupported: SHOW {stmt.what}")


def describe(engine: Engine, stmt: A.Describe) -> StatementResult:
    if stmt.what == "FUNCTION":
        from ksqlpy.engine.describe import describe_function

        return StatementResult("describe_function", stmt.text, data=describe_function(engine.functions, stmt.name or ""))
    if stmt.what in ("STREAMS", "TABLES"):
        kind = stmt.what[:-1]
        data = [describe_source(engine, s, stmt.extended) for s in engine.catalog.sources() if s.kind == kind]
        return StatementResult("source_descriptions", stmt.text, data=data)
    if stmt.what == "CONNECTOR":
        return connectors.describe_connector(engine, stmt)
    src = engine.catalog.source(stmt.name or "")
    if src is None:
        raise KsqlStatementError(f"Could not find STREAM/TABLE '{stmt.name}' in the Metastore")
    return StatementResult("sourceDescription", stmt.text, data=describe_source(engine, src, stmt.extended))


def explain(engine: Engine, stmt: A.Explain) -> StatementResult:
    from ksqlpy.engine.describe import explain_query

    return StatementResult("queryDescription", stmt.text, data=explain_query(engine, stmt))


def properties_listing(engine: Engine) -> dict[str, Any]:
    """SHOW PROPERTIES: every property as it resolves for this statement, under its canonical name
    (``ksql.streams.<name>`` for Kafka settings, whichever spelling set it); ``overwrittenProperties``:
    what the session or request changed from the configuration; ``defaultProperties``: what nobody set."""
    from ksqlpy.engine import config as C
    from ksqlpy.engine import property_names as N

    effective = engine.effective_properties()
    configured = C.Properties(C.DEFAULT_PROPERTIES, engine.config)
    explicit = C.Properties(engine.config, engine.session_properties, engine.request_properties)
    listing = [{"name": k, "scope": "KSQL", "value": N.shown_value(k, v), "editable": k in N.QUERY_LEVEL,
                "level": "QUERY" if k in N.QUERY_LEVEL else "SERVER"} for k, v in sorted(effective.items())]
    overwritten = sorted(k for k, v in engine.overrides().items() if str(configured.get(k)) != str(v))
    defaults = sorted(k for k in effective if k in C.DEFAULT_PROPERTIES and k not in explicit)
    return {"properties": listing, "overwrittenProperties": overwritten, "defaultProperties": defaults}


def set_property(engine: Engine, stmt: A.SetProperty) -> StatementResult:
    check_override(stmt.name, stmt.value)  # now, naming the setting - not when a query trips on it
    set_override(engine.session_properties, stmt.name, stmt.value)
    return StatementResult("message", stmt.text, message=f"Successfully changed local property '{stmt.name}' to "
                                                         f"'{stmt.value}'.")


def check_override(name: str, value: Any) -> None:
    """SET's checks (``PropertyOverrider``): a known property, a value its config accepts."""
    from ksqlpy.engine import property_names as N
    from ksqlpy.engine.property_values import check_property

    if not N.recognized(name):
        raise KsqlStatementError(N.unknown_property(name))
    check_property(name, value)


def set_override(overrides: dict[str, Any], name: str, value: Any) -> None:
    """SET in a map of overrides: the latest SET of a property wins, whichever spelling it used."""
    unset_override(overrides, name)
    overrides[name] = value


def unset_override(overrides: dict[str, Any], name: str) -> Any:
    """UNSET under either spelling; the value it had, or None."""
    from ksqlpy.engine.config import canonical

    old = None
    for k in [k for k in overrides if canonical(k) == canonical(name)]:
        old = overrides.pop(k)
    return old


def unset_property(engine: Engine, stmt: A.UnsetProperty) -> StatementResult:
    unset_override(engine.session_properties, stmt.name)
    return StatementResult("message", stmt.text, message=f"Successfully unset local property '{stmt.name}'.")


def define(engine: Engine, stmt: A.DefineVariable) -> StatementResult:
    from ksqlpy.grammar.variables import define as define_variable

    define_variable(engine.variables, stmt.name, stmt.value)
    return StatementResult("message", stmt.text)


def undefine(engine: Engine, stmt: A.UndefineVariable) -> StatementResult:
    from ksqlpy.grammar.variables import undefine as undefine_variable
    from ksqlpy.grammar.variables import undefine_warning

    if undefine_variable(engine.variables, stmt.name) is None:
        return StatementResult("message", stmt.text, warnings=[undefine_warning(stmt.name)])
    return StatementResult("message", stmt.text)


def assert_once(engine: Engine, stmt: A.AssertTopic | A.AssertSchema) -> StatementResult:
    """ASSERT checked once, as it stands now (``Engine.execute_statement`` waits for it: asserts.py)."""
    from ksqlpy.engine.asserts import check, result

    check(engine, stmt)
    return result(stmt)


def alter_system(engine: Engine, stmt: A.AlterSystem) -> StatementResult:
    """ALTER SYSTEM changes a property of every server of a Confluent Cloud cluster; a self-managed ksqlDB
    (and ksqlpy) takes server properties from its configuration."""
    raise KsqlStatementError(f"ALTER SYSTEM is only available in Confluent Cloud. Set '{stmt.name}' in the server "
                             "configuration, or use SET for the current session.")


def unsupported(engine: Engine, stmt: A.Statement) -> StatementResult:
    raise KsqlStatementError(f"Unsupported: {type(stmt).__name__} statements are not supported yet")


HANDLERS: dict[type, Callable[[Any, Any], StatementResult]] = {
    A.CreateSource: create_source,
    A.CreateAsSelect: create_as_select,
    A.InsertInto: insert_into,
    A.InsertValues: insert_values,
    A.Drop: drop_source,
    A.CreateType: create_type,
    A.DropType: drop_type,
    A.AlterSource: alter_source,
    A.Terminate: terminate,
    A.PauseResume: pause_resume,
    A.ResetQuery: reset_query,
    A.SelectStatement: select,
    A.Show: show,
    A.Describe: describe,
    A.Explain: explain,
    A.SetProperty: set_property,
    A.UnsetProperty: unset_property,
    A.DefineVariable: define,
    A.UndefineVariable: undefine,
    A.AssertTopic: assert_once,
    A.AssertSchema: assert_once,
    A.CreateConnector: connectors.create_connector,
    A.DropConnector: connectors.drop_connector,
    A.AlterSystem: alter_system,
}


def dispatch(engine: Engine, stmt: A.Statement) -> StatementResult:
    handler = HANDLERS.get(type(stmt), unsupported)
    try:
        with limits.guard():  # a statement within the nesting limit that still overflows is too large
            return handler(engine, stmt)
    except KsqlParseError:
        raise
    except KsqlError as e:
        name_location(e)  # every SQL error says where it is when the analysis knows
        raise
    except Exception as e:  # noqa: BLE001 - no Python exception text reaches a user
        raise unexpected_error(stmt, e) from e


def unexpected_error(stmt: A.Statement, e: Exception) -> KsqlStatementError:
    """A failure that is not a user error is a bug: logged with its traceback; the user reads which kind
    of statement failed and where the details are - never a Python exception's text. (The lower layers'
    rules a statement can break - topic names and partitions, format capabilities - raise KsqlErrors of
    their own where the rule lives: ``log.topic_names``, ``serde.base.FormatRuleError``.)"""
    _LOG.error("statement failed unexpectedly: %s", stmt.text, exc_info=e)
    what = type(stmt).__name__
    return KsqlStatementError(f"Could not execute the statement ({what}): ksqlpy failed unexpectedly. The details "
                              "are in the engine's log; please report this as a bug.")

