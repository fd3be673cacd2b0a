"""SHOW / DESCRIBE / EXPLAIN payloads, shaped like ksqlDB's REST entities."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ksqlpy import types as T
from ksqlpy.analysis.ddl import normalize_properties
from ksqlpy.analysis.query import analyze_query
from ksqlpy.catalog import Source
from ksqlpy.engine.metrics import offset_summaries, source_statistics, tasks_metadata
from ksqlpy.engine.queries import overridden_properties, partition_counts
from ksqlpy.errors import KsqlStatementError
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.grammar import ast as A
from ksqlpy.plan.describe import topology_text
from ksqlpy.plan.explain import plan_text
from ksqlpy.plan.logical import QueryKind, Sink
from ksqlpy.plan.lower import lower
from ksqlpy.plan.pull_access import decide_access
from ksqlpy.plan.topology import Topology

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine


def _schema_type(t: Any) -> dict[str, Any]:
    """A SQL type as ksqlDB's SchemaInfo (type, memberSchema, fields, parameters)."""
    if isinstance(t, T.Array):
        return {"type": "ARRAY", "memberSchema": _schema_type(t.element)}
    if isinstance(t, T.Map):
        return {"type": "MAP", "memberSchema": _schema_type(t.value)}
    if isinstance(t, T.Struct):
        return {"type": "STRUCT", "fields": [{"name": n, "schema": _schema_type(ft)} for n, ft in t.fields]}
    if isinstance(t, T.Decimal):
        return {"type": "DECIMAL", "parameters": {"precision": t.precision, "scale": t.scale}}
    name = {"INTEGER": "INTEGER", "STRING": "STRING"}.get(t.name, t.name)
    return {"type": name}


schema_type = _schema_type


def fields(source: Source) -> list[dict[str, Any]]:
    out = []
    for c in source.columns:
        f: dict[str, Any] = {"name": c.name, "schema": _schema_type(c.type)}
        if c.key:
            f["type"] = "KEY"
        elif c.headers or c.header_key is not None:
            f["type"] = "HEADER"
            if c.header_key is not None:
                f["headerKey"] = c.header_key
        out.append(f)
    return out


def source_summary(engine: Engine, s: Source) -> dict[str, Any]:
    return {"type": s.kind, "name": s.name, "topic": s.topic, "keyFormat": s.key_format,
            "valueFormat": s.value_format, "isWindowed": s.windowed is not None}


def describe_source(engine: Engine, s: Source, extended: bool, warnings: list[str] | None = None) -> dict[str, Any]:
    # the topic is described for EXTENDED only (ksqlDB's ListSourceExecutor): partitions and replication
    # read 0 otherwise; a topic Kafka cannot describe (gone) is a warning of the entity, not an error
    info = engine.log.describe_topic(s.topic) if extended else None
    if extended and info is None and warnings is not None:
        warnings.append(f"Error from Kafka: Failed to Describe Kafka Topic(s): [{s.topic}]")
    # each as ksqlDB's RunningQuery: its state (getState(), the aggregate of its status count) is what the
    # shell prints beside its id
    readq = [{"queryString": engine.queries[q].statement_text, "id": q, "state": engine.queries[q].state}
             for q in engine.catalog.queries_reading(s.name) if q in engine.queries]
    writeq = [{"queryString": engine.queries[q].statement_text, "id": q, "state": engine.queries[q].state}
              for q in engine.catalog.queries_writing(s.name) if q in engine.queries]
    # a sandbox validating a request runs no query: it has no statistics (its answer is not sent)
    counted = extended and not getattr(engine, "sandbox", False)
    statistics, error_stats = source_statistics(engine, s.name) if counted else ("", "")
    return {
        "name": s.name, "windowType": s.windowed.type if s.windowed else None, "readQueries": readq,
        "writeQueries": writeq, "fields": fields(s), "type": s.kind, "timestamp": s.timestamp_column or "",
        "statistics": statistics, "errorStats": error_stats, "extended": extended,
        "keyFormat": s.key_format,
        "valueFormat": s.value_format, "topic": s.topic, "partitions": info.partitions if info else 0,
        "replication": info.replicas if info else 0, "statement": s.sql,
        "queryOffsetSummaries": offset_summaries(engine, s.name) if counted else [],
        "sourceConstraints": engine.catalog.constraints(s.name),
    }


def describe_function(reg: FunctionRegistry, name: str) -> dict[str, Any]:
    """DESCRIBE FUNCTION against the engine's registry ``reg``: ksqlDB's FunctionDescriptionList."""
    name = name.upper()
    fn = reg.get(name)
    if fn is None:
        raise KsqlStatementError(f"Can't find any functions with the name '{name}'")
    kind = "SCALAR" if name in reg.scalars else ("AGGREGATE" if name in reg.aggregates else "TABLE")
    variations = [{"arguments": v.arguments, "returnType": v.return_type, "description": v.description}
                  for v in fn.variations()]
    # a built-in is written by "Confluent" (ksqlDB's built-in UDFs say author = KsqlConstants.CONFLUENT_AUTHOR
    # and no version); a user function says its own author and version, "" if it gives none
    author = fn.author or ("Confluent" if fn.path == "internal" else "")
    return {"name": name, "description": fn.description, "author": author, "version": fn.version,
            "path": fn.path, "type": kind, "functions": variations}


def explain_query(engine: Engine, stmt: A.Explain) -> dict[str, Any]:
    """EXPLAIN <query id> (a running persistent or push query; ids compare case-insensitively, as ksqlDB's
    QueryId) or EXPLAIN <statement> (the query it would run)."""
    if stmt.query_id is not None:
        qid = stmt.query_id.upper()
        q = engine.queries.get(qid)
        if q is None:
            from ksqlpy.engine.query_statements import transient_id

            push = transient_id(engine, stmt.query_id)  # a running push query (ExplainExecutor: any live query)
            tq = engine.transient.get(push) if push is not None else None
            if tq is not None:
                return push_query_details(engine, tq)
            raise KsqlStatementError(f"Query with id:{qid} does not exist, use SHOW QUERIES to view the "
                                     "full set of queries.")
        return query_details(engine, q)
    return explain_statement(engine, stmt)


def explain_statement(engine: Engine, stmt: A.Explain) -> dict[str, Any]:
    """EXPLAIN <statement>: ksqlDB plans the statement in a sandbox and describes the query it would run -
    the id it would get, its schema, sources, sink, plan and topology - with no host running it. Its
    ``statementText`` is the outer text after ``EXPLAIN `` (ksqlDB cuts it so, the ``;`` kept)."""
    inner = stmt.statement
    if not isinstance(inner, (A.CreateAsSelect, A.InsertInto, A.SelectStatement)):
        # ExplainExecutor (from memory, and its test shouldFailOnNonQueryExplain): a statement that is neither
        # a Query nor a QueryContainer "does not run" one; a query statement that ran none (IF NOT EXISTS of an
        # existing name, below) "did not run" one
        raise KsqlStatementError("The provided statement does not run a ksql query")
    existing = None
    if isinstance(inner, A.CreateAsSelect):
        # ksqlDB's ExplainExecutor executes the statement in a sandbox: its errors are the statement's own,
        # and an IF NOT EXISTS of an existing name runs no query
        existing = engine.catalog.source(inner.name)
        if existing is not None and inner.if_not_exists:
            raise KsqlStatementError("The provided statement did not run a ksql query")
    text = stmt.text[len("EXPLAIN "):] if len(stmt.text) > len("EXPLAIN ") else inner.text
    persistent = not isinstance(inner, A.SelectStatement)
    sink_name = inner.name if isinstance(inner, A.CreateAsSelect) else getattr(inner, "target", None)
    plan = explained_plan(engine, inner)
    if isinstance(inner, A.CreateAsSelect):
        from ksqlpy.engine.persistent_statements import check_create_as_sink, check_create_as_upgrade

        check_create_as_sink(engine, inner, existing)
        check_create_as_upgrade(engine, inner, existing, plan)
    qid = would_be_id(engine, inner, plan)
    service = engine.prop("ksql.service.id", "default_")
    if persistent:
        group = f"_confluent-ksql-{service}{engine.prop('ksql.persistent.prefix', 'query_')}{qid}"
        fields = ([_field(c.name, c.type, key=True) for c in plan.project.key]
                  + [_field(c.name, c.type) for c in plan.project.value])
    else:
        group = f"_confluent-ksql-{service}transient_{qid}"
        fields = [_field(c.name, c.type) for c in plan.project.value]
    topology = would_run(engine, plan, qid)
    return {"id": qid, "queryString": text, "sinks": [sink_name] if persistent else [],
            "sources": list(dict.fromkeys(s.source.name for s in plan.scans)),
            "fields": fields, "executionPlan": plan_text(plan, qid),
            "topology": topology_text(topology) if topology is not None else "",
            # ksqlDB's QueryDescriptionFactory.forQueryMetadata (from memory): a persistent query's window type
            # is its result topic's; any other query's is empty (null), windowed or not
            "windowType": plan.windowed.type if persistent and plan.windowed is not None else None,
            # the sandbox runs the statement with the session's and request's overrides, which it lists
            "queryType": "PERSISTENT" if persistent else plan.query_kind.value,
            "overriddenProperties": overridden_properties(engine),
            "consumerGroupId": group, "state": "UNKNOWN", "_hostless": True}


def _field(name: str, t: Any, key: bool = False) -> dict[str, Any]:
    f: dict[str, Any] = {"name": name, "schema": _schema_type(t)}
    if key:
        f["type"] = "KEY"
    return f


def explained_plan(engine: Engine, stmt: A.CreateAsSelect | A.InsertInto | A.SelectStatement) -> Sink:
    """The logical plan of a statement that is not run: a SELECT without EMIT on a table is a pull query,
    with the access it would use."""
    from ksqlpy.engine.persistent_statements import plan_create_as, plan_insert

    if isinstance(stmt, A.CreateAsSelect):
        return plan_create_as(engine, stmt)[0]
    if isinstance(stmt, A.InsertInto):
        target = engine.catalog.source(stmt.target)
        if target is None:
            raise KsqlStatementError(f"Source `{stmt.target}` does not exist.")
        return plan_insert(engine, stmt, target)
    source = engine.catalog.source(stmt.query.source.name)
    pull = (stmt.query.emit is None and not stmt.query.joins and source is not None and source.kind == "TABLE")
    plan = analyze_query(stmt.query, engine.catalog, engine.session_state(), sink_name=None, persistent=False,
                         sql=stmt.text, pull=pull, implicit_group=stmt.query.emit is not None)
    if pull:
        decide_access(plan, stmt.query.where, engine.effective_properties(), engine.config)
    return plan


def would_be_id(engine: Engine, stmt: A.Statement, plan: Sink) -> str:
    """The id the statement's query would get if it ran now."""
    n = engine.query_counter
    if isinstance(stmt, A.InsertInto):
        given = normalize_properties(stmt.properties).get("QUERY_ID")
        return str(given).upper() if given is not None else f"INSERTQUERY_{n}"
    if isinstance(stmt, A.CreateAsSelect):
        existing = engine.catalog.queries_writing(stmt.name)
        if stmt.or_replace and existing:  # an upgrade keeps the query's id
            return sorted(existing)[0]
        return f"{'CSAS' if stmt.kind == 'STREAM' else 'CTAS'}_{stmt.name}_{n}".upper()
    return f"transient_{plan.input_source.name}_{engine.transient_counter + 1}"


def query_details(engine: Engine, q: Any) -> dict[str, Any]:
    """EXPLAIN <id> and SHOW QUERIES EXTENDED: the query, its plan and topology, and per task its state and lag."""
    if getattr(engine, "sandbox", False):
        # a sandbox validating a request holds stand-ins that run nothing: no topology, tasks or errors
        # (the sandbox's answer is not sent; what it checks is that the query exists)
        return {"queryString": q.statement_text, "id": q.query_id, "sinks": [q.sink_name], "sources": q.source_names,
                "state": q.state, "queryType": "PERSISTENT"}
    error = getattr(q, "error", None)
    service = engine.prop("ksql.service.id", "default_")
    group = f"_confluent-ksql-{service}{engine.prop('ksql.persistent.prefix', 'query_')}{q.query_id}"
    run = getattr(q, "backfill", None)
    extra = {"backfill": run.status()} if run is not None else {}  # a running Spark backfill's progress
    return {**extra, "queryString": q.statement_text, "id": q.query_id, "sinks": [q.sink_name], "sources": q.source_names,
            "fields": fields(q.sink), "executionPlan": plan_text(q.plan, q.query_id),
            # QueryDescriptionFactory.forQueryMetadata (from memory): the result topic's window type
            "windowType": q.sink.windowed.type if getattr(q.sink, "windowed", None) is not None else None,
            "topology": topology_text(q.topology),
            "state": q.state, "queryType": "PERSISTENT",
            "overriddenProperties": dict(getattr(q, "overridden_properties", None) or {}),
            "tasksMetadata": tasks_metadata(engine, q),
            "queryErrors": [query_error(q, error)] if error and q.state == "ERROR" else [],
            "consumerGroupId": group}


def query_error(q: Any, error: str) -> dict[str, Any]:
    """ksqlDB's QueryError entity: when it happened (epoch ms), the message, its type (UNKNOWN: no error
    classifier says USER or SYSTEM)."""
    return {"timestamp": int(getattr(q, "error_at", 0) or 0), "errorMessage": error, "type": "UNKNOWN"}


def push_query_details(engine: Engine, tq: Any) -> dict[str, Any]:
    """SHOW QUERIES EXTENDED of a running push query, as ksqlDB describes every live query: no sink, its
    projection as value columns, its plan and topology, its transient consumer group."""
    plan = tq.plan
    topology = getattr(tq, "topology", None)
    try:
        tasks = tasks_metadata(engine, tq)
    except Exception:  # noqa: BLE001 - positions of a query that is closing meanwhile: none to report
        tasks = []
    service = engine.prop("ksql.service.id", "default_")
    return {"queryString": plan.sql, "id": tq.query_id, "sinks": [],
            "sources": list(dict.fromkeys(s.source.name for s in plan.scans)),
            "fields": [_field(c.name, c.type) for c in plan.project.value],
            "executionPlan": plan_text(plan, tq.query_id),
            "topology": topology_text(topology) if topology is not None else "",
            "windowType": None,  # (QueryDescriptionFactory: only a persistent query's result has one)
            "state": "RUNNING", "queryType": "PUSH",
            "overriddenProperties": dict(getattr(tq, "overridden_properties", None) or {}), "tasksMetadata": tasks,
            "consumerGroupId": f"_confluent-ksql-{service}transient_{tq.query_id}", "queryErrors": []}


def would_run(engine: Engine, plan: Sink, query_id: str) -> Topology | None:
    """The topology the plan of a statement that is not run would run as ``query_id`` (nothing is created);
    None for a pull query, which reads state and runs none."""
    if plan.query_kind is QueryKind.PULL:
        return None
    return lower(plan, query_id, engine, sink=plan.target, persistent=plan.persistent,
                 partitions=partition_counts(engine))


# what ``ksql.hidden.topics`` hides by default (ksqlDB's ReservedInternalTopics): Confluent's and Kafka's own
# topics, ksqlDB's internal ones (``_confluent-ksql-...``), the schema registry's and Kafka Connect's
DEFAULT_HIDDEN_TOPICS = ("_confluent.*,__confluent.*,_schemas,__consumer_offsets,__transaction_state,"
                         "connect-configs,connect-offsets,connect-status,connect-statuses")


def hidden_topic_patterns(engine: Engine) -> list[re.Pattern[str]]:
    text = str(engine.prop("ksql.hidden.topics", DEFAULT_HIDDEN_TOPICS) or "")
    return [re.compile(p.strip()) for p in text.split(",") if p.strip()]


def list_topics(engine: Engine, *, show_all: bool, extended: bool) -> list[dict[str, Any]]:
    """SHOW [ALL] TOPICS [EXTENDED]: every topic by name, one replica count per partition; without ALL the
    hidden ones are left out; EXTENDED adds how many consumers (one per consumed partition and group) and
    consumer groups read each topic."""
    hidden = [] if show_all else hidden_topic_patterns(engine)
    counts = topic_consumers(engine) if extended else {}
    out = []
    for t in sorted(engine.log.list_topics(), key=lambda t: t.name):
        if any(p.fullmatch(t.name) for p in hidden):
            continue
        entry: dict[str, Any] = {"name": t.name, "replicaInfo": [t.replicas] * t.partitions}
        if extended:
            consumers, groups = counts.get(t.name, (0, 0))
            entry.update(consumerCount=consumers, consumerGroupCount=groups)
        out.append(entry)
    return out


def topic_consumers(engine: Engine) -> dict[str, tuple[int, int]]:
    """topic -> (consumers, consumer groups): each running query is one group consuming every partition of
    its input topics (persistent queries their repartition topics too; push queries their sources')."""
    from ksqlpy.engine.metrics import input_topics

    groups: dict[str, set[str]] = {}
    for q in engine.queries.values():
        if q.state != "RUNNING":
            continue
        for topic in input_topics(engine, q):
            groups.setdefault(topic, set()).add(q.query_id)
    for qid, tq in engine.transient.items():
        for scan in tq.plan.scans:
            groups.setdefault(scan.source.topic, set()).add(qid)
    out = {}
    for topic, members in groups.items():
        info = engine.log.describe_topic(topic)
        out[topic] = ((info.partitions if info else 0) * len(members), len(members))
    return out
