"""A sandbox of the engine: statements run against copies, so a request can be validated as a whole.

ksqlDB validates every statement of a ``/ksql`` request, in order, against one sandbox engine that
accumulates their effects - a stream created by the first statement is there for the second - before any
of them runs for real (rules §1.1). A later statement that fails therefore fails the request with nothing
executed.

``Sandbox`` stands in for the ``Engine`` the statement handlers (dispatched by ``statements.py``) are
given: a copy of the catalog (sources, types, query records), stand-ins for the persistent and transient queries, the
properties, the variables; a log that records topic creation and deletion without touching the real one
and drops produced records; a schema registry that keeps registrations to itself. Planning runs in full
(analysis, sink schemas, serdes); building and starting a query's runtime does not.

The sandbox also holds the request to the server's cap on persistent queries (``check_capacity``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ksqlpy.catalog import QueryInfo, Source
from ksqlpy.engine.config import DEFAULT_PROPERTIES, Properties, resolve
from ksqlpy.engine.results import StatementResult
from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar import ast as A
from ksqlpy.log.base import TopicInfo
from ksqlpy.log.topic_names import check_config, check_counts, resolved_counts
from ksqlpy.runtime.serdes import SerdeFactory
from ksqlpy.schema_registry import is_configured

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine


class SandboxLog:
    """The real log for reads; topic creation and deletion recorded here; produced records dropped."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.created: dict[str, TopicInfo] = {}
        self.deleted: set[str] = set()

    def partition_count(self, topic: str) -> int | None:
        """As ``Log.partition_count``, counting the topics the request created and not those it deleted."""
        info = self.describe_topic(topic)
        return info.partitions if info is not None else None

    def describe_topic(self, name: str) -> TopicInfo | None:
        if name in self.created:
            return self.created[name]
        if name in self.deleted:
            return None
        return self.real.describe_topic(name)  # type: ignore[no-any-return]

    def topic_exists(self, name: str) -> bool:
        return self.describe_topic(name) is not None

    def list_topics(self) -> list[TopicInfo]:
        real = [t for t in self.real.list_topics() if t.name not in self.deleted and t.name not in self.created]
        return real + list(self.created.values())

    def create_topic(self, name: str, partitions: int = 1, replicas: int = 1,
                     config: dict[str, str] | None = None) -> None:
        # ksqlDB's sandboxed topic client records the topic only after asking the broker to validate its
        # creation (SandboxedKafkaTopicClient.createTopic -> KafkaTopicClientImpl.validateCreateTopic, a
        # createTopics with validateOnly; from memory): a count the broker refuses fails the request's
        # validation - 'Failed to guarantee existence of topic' - and no statement of the request runs
        check_config({str(k): str(v) for k, v in (config or {}).items()})
        check_counts(partitions, replicas)
        partitions, replicas = resolved_counts(partitions, replicas)
        self.created[name] = TopicInfo(name, partitions, replicas, dict(config or {}))
        self.deleted.discard(name)

    def delete_topic(self, name: str) -> None:
        self.created.pop(name, None)
        self.deleted.add(name)

    def produce(self, record: Any) -> None:
        return None

    def produce_many(self, records: Any) -> None:
        return None

    def __getattr__(self, name: str) -> Any:  # reads (offsets, fetch...) are the real log's
        return getattr(self.real, name)


class SandboxRegistry:
    """The real schema registry for reads; registrations and deletions kept here."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.schemas: dict[int, Any] = {}
        self.latest_of: dict[str, Any] = {}
        self.deleted: set[str] = set()
        self.next_id = 1 << 30  # ids no real registry hands out in a test's lifetime

    def register(self, subject: str, schema: str, schema_type: str = "AVRO", schema_id: int | None = None) -> int:
        from ksqlpy.schema_registry import RegisteredSchema

        found = self.latest(subject)
        if found is not None and found.schema == schema and found.schema_type == schema_type:
            return int(found.id)
        sid = schema_id if schema_id is not None else self.next_id
        version = (found.version + 1) if found is not None else 1
        rs = RegisteredSchema(sid, schema, schema_type, subject, version)
        self._check(subject, rs, found)
        self.next_id += 1
        self.schemas[sid] = rs
        self.latest_of[subject] = rs
        self.deleted.discard(subject)
        return sid

    def _check(self, subject: str, rs: Any, found: Any) -> None:
        """The real registry's compatibility rule, over the versions the sandbox sees (its own latest last)."""
        from ksqlpy.schema_registry.compatibility import check

        level = getattr(self.real, "compatibility", None)
        if found is None or level is None:
            return
        earlier = [] if subject in self.deleted or subject in self.latest_of else list(
            getattr(self.real, "versions", lambda _s: [found])(subject))
        if subject in self.latest_of:
            earlier.append(found)
        check(subject, rs, earlier or [found], level(subject), getattr(self.real, "_loader", None))

    def by_id(self, schema_id: int) -> Any:
        if schema_id in self.schemas:
            return self.schemas[schema_id]
        return self.real.by_id(schema_id) if self.real is not None else None

    def latest(self, subject: str) -> Any:
        if subject in self.latest_of:
            return self.latest_of[subject]
        if subject in self.deleted or self.real is None:
            return None
        return self.real.latest(subject)

    def subjects(self, include_deleted: bool = False) -> list[str]:
        real = [s for s in (self.real.subjects() if self.real is not None else []) if s not in self.deleted]
        return sorted(set(real) | set(self.latest_of))

    def delete_subject(self, subject: str, permanent: bool = False) -> list[int]:
        self.latest_of.pop(subject, None)
        self.deleted.add(subject)
        return []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


@dataclass
class QueryStandIn:
    """A persistent or push query as the sandbox knows it: what statements read, nothing that runs."""

    query_id: str
    sql: str
    plan: Any
    sink: Any = None
    sink_name: str | None = None
    source_names: list[str] = field(default_factory=list)
    state: str = "RUNNING"
    limit: int | None = None
    tasks: list[Any] = field(default_factory=list)
    resources: list[Any] = field(default_factory=list)
    aggregation: Any = None
    materialization: Any = None
    done: bool = False
    statement_text: str = ""  # as PersistentQuery's: the stored text (the text sent until a statement sets it)

    def __post_init__(self) -> None:
        self.statement_text = self.statement_text or self.sql

    @staticmethod
    def of(q: Any) -> QueryStandIn:
        return QueryStandIn(q.query_id, getattr(q, "sql", ""), getattr(q, "plan", None), getattr(q, "sink", None),
                            getattr(q, "sink_name", None), list(getattr(q, "source_names", []) or []),
                            getattr(q, "state", "RUNNING"), getattr(q, "limit", None),
                            statement_text=getattr(q, "statement_text", ""))

    def close(self) -> None:
        self.state = "TERMINATED"
        self.done = True

    def cleanup(self) -> None:
        return None

    def poll(self) -> int:
        return 0


class Sandbox:
    """Stands in for an ``Engine`` while statements are validated (see the module docstring)."""

    sandbox = True

    def __init__(self, engine: Engine) -> None:
        self.real = engine
        self.data_dir = engine.data_dir
        self.lock = engine.lock
        self.plog = engine.plog
        self.functions = engine.functions
        self.config = engine.config
        self.properties = engine.properties
        self.session_properties: dict[str, Any] = dict(engine.session_properties)
        self.request_properties: dict[str, Any] = {}
        self.variables = dict(engine.variables)
        self.query_counter = engine.query_counter
        self.transient_counter = engine.transient_counter
        self.generation = 0
        self.log = SandboxLog(engine.log)
        real_registry = getattr(engine, "schema_registry", None)
        # no registry configured: the sandbox refuses as the engine would (nothing to keep to itself)
        self.schema_registry = (SandboxRegistry(real_registry) if is_configured(real_registry)
                                else real_registry)
        self.serdes = SerdeFactory(self.prop, self.schema_registry)  # schemas registered here stay here
        self.catalog = engine.catalog.sandbox_copy(partitions=self.log.partition_count)
        self.queries: dict[str, Any] = {qid: QueryStandIn.of(q) for qid, q in engine.queries.items()}
        self.transient: dict[str, Any] = {qid: QueryStandIn.of(q) for qid, q in engine.transient.items()}

    # --------------------------------------------------------------- what statement handlers call
    def effective_properties(self) -> Properties:
        return Properties(DEFAULT_PROPERTIES, self.config, self.session_properties, self.request_properties)

    def overrides(self) -> Properties:
        return Properties(self.session_properties, self.request_properties)

    def session_state(self) -> Any:
        from ksqlpy.session_state import SessionState

        return SessionState(self.functions, self.effective_properties(), self.catalog.types())

    def prop(self, name: str, default: Any = None) -> Any:
        return resolve(name, self.config, self.session_properties, self.request_properties, default=default)

    def configured(self, name: str, default: Any = None) -> Any:
        return resolve(name, self.config, default=default)

    def next_query_id(self, kind: str, sink: str | None) -> str:
        from ksqlpy.engine.engine import Engine

        return Engine.next_query_id(self, kind, sink)  # type: ignore[arg-type]

    def key_serde(self, source: Source) -> Any:
        from ksqlpy.engine.engine import Engine

        return Engine.key_serde(self, source)  # type: ignore[arg-type]

    def value_serde(self, source: Source) -> Any:
        from ksqlpy.engine.engine import Engine

        return Engine.value_serde(self, source)  # type: ignore[arg-type]

    def build_persistent(self, plan: Any, sink: Source, query_id: str, sql: str) -> QueryStandIn:
        sources = list(dict.fromkeys(scan.source.name for scan in plan.scans))
        return QueryStandIn(query_id, sql, plan, sink, sink.name, sources)

    def start_persistent(self, query: Any) -> None:
        self.queries[query.query_id] = query
        self.catalog.add_query(QueryInfo(query.query_id, query.sql, query.sink_name, query.source_names))

    def stop_persistent(self, query_id: str, cleanup: bool = True) -> None:
        """As ``Engine.stop_persistent`` (``cleanup`` has nothing to delete here)."""
        self.queries.pop(query_id, None)
        self.catalog.remove_query(query_id)

    def execute_statement(self, stmt: A.Statement, properties: dict[str, Any] | None = None) -> StatementResult:
        from ksqlpy.engine import statements as S

        saved = self.request_properties
        self.request_properties = dict(properties or {})
        try:
            self.catalog.config = self.effective_properties()  # type: ignore[attr-defined]
            result = S.dispatch(self, stmt)  # type: ignore[arg-type]
        finally:
            self.request_properties = saved
        if isinstance(stmt, A.CreateAsSelect | A.InsertInto):
            check_capacity(self)
        return result


    def push_query(self, sql: str, properties: dict[str, Any] | None = None) -> QueryStandIn:
        """A push query of a script, planned and not run (as ``Engine.push_query`` until it builds tasks):
        its stand-in is listed among the transient queries."""
        from ksqlpy.analysis.query import analyze_query
        from ksqlpy.grammar import parse

        stmt = parse(sql, None)[0]
        assert isinstance(stmt, A.SelectStatement)
        plan = analyze_query(stmt.query, self.catalog, self.session_state(), sink_name=None, persistent=False,
                             sql=stmt.text, implicit_group=True)
        if plan.limit is not None and plan.limit < 0:  # as queries.build_transient refuses it
            raise KsqlStatementError(f"limit must be positive, was:{plan.limit}")
        self.transient_counter += 1
        qid = f"transient_{plan.scans[0].alias}_{self.transient_counter}"
        standin = QueryStandIn(qid, sql, plan, limit=plan.limit)
        self.transient[qid] = standin
        return standin


ACTIVE_LIMIT = "ksql.query.persistent.active.limit"


class CapacityRefusal(KsqlStatementError):
    """``check_capacity``'s refusal. ksqlDB's RequestValidator.validate hands QueryCapacityUtil's
    throwTooManyActivePersistentQueriesException the request's whole text (``request.getUnmaskedKsql()``),
    so a server names the request, not the statement, as its ``statementText`` (from memory)."""


def check_capacity(box: Sandbox) -> None:
    """``ksql.query.persistent.active.limit`` (the server's configuration; a request cannot change it): a
    statement that runs a persistent query (CREATE ... AS SELECT, INSERT INTO ... SELECT) is refused when the
    sandbox then holds more persistent queries than the limit - every kind counts (CST_ queries of SOURCE
    tables, paused and failed ones), and the count named includes the new one. From memory of ksqlDB's
    RequestValidator.validate (per statement: persistent queries > 0 and
    QueryCapacityUtil.exceedsPersistentQueryCapacity(sandbox) -> throwTooManyActivePersistentQueriesException)."""
    try:
        limit = int(str(box.configured(ACTIVE_LIMIT, 2**31 - 1)).strip())
    except ValueError:
        return  # a bad value is the configuration's error, named where the server reads it
    count = len(box.queries)
    if count > limit:
        raise CapacityRefusal(
            "Not executing query(ies) as it would cause the number of active, persistent queries to exceed the "
            f"configured limit. Use the TERMINATE command to terminate existing queries, or increase the "
            f"'{ACTIVE_LIMIT}' setting via the 'ksql-server.properties' file. Current persistent query count: "
            f"{count}. Configured limit: {limit}.")


def validate(engine: Engine, statements: list[A.Statement], properties: dict[str, Any],
             next_offset: int | None = None) -> Sandbox:
    """Run ``statements`` in order against one sandbox of ``engine`` (SET/UNSET change the properties
    of the statements after them); raises the first statement's error, with the statement attached as
    ``sandbox_statement``. Returns the sandbox, in the state the statements left it.

    Not validated, as ksqlDB's CustomValidators give them NO_VALIDATION: DEFINE/UNDEFINE (applied while
    parsing), ASSERT (it may wait for its timeout), every SHOW/LIST, DESCRIBE (a source, STREAMS/TABLES
    EXTENDED, a FUNCTION, a CONNECTOR), EXPLAIN and DROP CONNECTOR - they change nothing a later statement
    sees, and one that fails does so when it runs, after the statements before it ran.

    ``next_offset``: the command topic's next offset. Each distributed statement then runs as the command
    it will be - its queries numbered by that offset, the next one's by the following offset (one not
    written, IF NOT EXISTS on an existing object, takes none) - so a PAUSE, RESUME, TERMINATE or EXPLAIN
    later in the request finds a query an earlier statement made under the id it will really have.
    Without it, the ids continue from the engine's last one."""
    from ksqlpy.engine.command_log import is_distributed
    from ksqlpy.engine.session_statements import check_override, set_override, unset_override

    with engine.lock:
        box = Sandbox(engine)
    props = dict(properties)
    for stmt in statements:
        if isinstance(stmt, A.UnsetProperty):
            unset_override(props, stmt.name)
            continue
        if isinstance(stmt, A.DefineVariable | A.UndefineVariable | A.AssertTopic | A.AssertSchema):
            continue  # variables are applied while parsing; an assertion is checked when it runs
        if isinstance(stmt, A.Show | A.Describe | A.Explain):
            continue  # NO_VALIDATION in ksqlDB's CustomValidators: a listing fails (if at all) when it runs
        try:
            if isinstance(stmt, A.SetProperty):
                check_override(stmt.name, stmt.value)  # SET's own checks, where the statement stands
                set_override(props, stmt.name, stmt.value)
                continue
            if isinstance(stmt, A.CreateConnector | A.DropConnector):
                # as ksqlDB's CustomValidators: CREATE ... CONNECTOR is validated against the Connect cluster
                # (it must be reachable, the connector new unless IF NOT EXISTS); DROP is not validated
                if isinstance(stmt, A.CreateConnector):
                    from ksqlpy.engine.connectors import validate_create

                    box.request_properties = dict(props)
                    validate_create(box, stmt)  # type: ignore[arg-type]
                continue
            distributed = next_offset is not None and is_distributed(stmt, set(box.transient))
            if distributed:
                box.query_counter = next_offset  # type: ignore[assignment]
            result = box.execute_statement(stmt, props)
            if distributed and not result.unchanged:
                next_offset += 1  # type: ignore[operator]
        except Exception as e:
            e.sandbox_statement = stmt  # type: ignore[attr-defined]
            raise
    return box

