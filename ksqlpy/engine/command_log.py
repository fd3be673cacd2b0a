"""The command topic: every distributed statement, in order, on the engine's own log.

The catalog lives only in memory; this topic is its source of truth (ksqlDB's
``_confluent-ksql-<service.id>_command_topic``, one partition). A restarted server replays it: the catalog
is rebuilt and persistent queries come back under the same ids, resuming from their committed input
positions with their state stores, so nothing is processed twice.

Record key: the command id as a JSON string (``"stream/S2/create"``). Value: ``{"statement",
"streamsProperties", "originalProperties", "version", "planRules"}``, and ``origin``: the server that wrote it
(see ``command_runner.py``). ``planRules`` is the plan rule revision the statement ran under
(``plan.rules``; absent: 1); a replayed query is planned under its own, so its state keeps its layout. Query ids are ``<KIND>_<SINK>_<n>`` where ``n`` is the
offset of the creating command, on the first run and on every replay alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from ksqlpy import grammar
from ksqlpy.engine.secrets import SecretStore, restore, split
from ksqlpy.errors import KsqlError
from ksqlpy.grammar import ast as A
from ksqlpy.log.base import Log, ProducerRecord
from ksqlpy.plan.rules import PLAN_RULES, UNRECORDED

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine
    from ksqlpy.engine.results import StatementResult

COMMAND_VERSION = 1

# The configuration a statement's result depends on beyond its prepared text: ksqlDB's command carries the
# plan, which holds the serde features and formats these chose; ours records their values in force when it
# was accepted (``planConfig``, beside ``originalProperties``: that one's values pass the secret filter, which
# hides a name ending in ``.key``) and runs again under them. A ``None`` value: unset then.
PLAN_CONFIGS = ("ksql.persistence.wrap.single.values", "ksql.persistence.default.format.key",
                "ksql.persistence.default.format.value", "ksql.output.topic.name.prefix", "ksql.sink.partitions",
                "ksql.sink.replicas")


def plan_config(engine: Engine) -> dict[str, Any]:
    """The ``PLAN_CONFIGS`` as the engine's configuration sets them now (None: unset)."""
    return {name: engine.configured(name) for name in PLAN_CONFIGS}

# statements that change shared state: written to the command topic, replayed on start
DISTRIBUTED = (A.CreateSource, A.CreateAsSelect, A.InsertInto, A.Drop, A.CreateType, A.DropType,
               A.AlterSource, A.PauseResume, A.Terminate)


def command_topic_name(service_id: str) -> str:
    return f"_confluent-ksql-{service_id}_command_topic"


def is_distributed(stmt: A.Statement, transient_ids: set[str] | frozenset[str] = frozenset()) -> bool:
    """TERMINATE of a transient push query is answered locally; everything in DISTRIBUTED else is shared."""
    if isinstance(stmt, A.Terminate) and stmt.query_id is not None and stmt.query_id.upper() in transient_ids:
        return False
    return isinstance(stmt, DISTRIBUTED)


def command_id(stmt: A.Statement) -> str:
    """ksqlDB's ``<type>/<entity>/<action>``."""
    if isinstance(stmt, A.CreateSource | A.CreateAsSelect):
        return f"{stmt.kind.lower()}/{stmt.name}/create"
    if isinstance(stmt, A.InsertInto):
        return f"stream/{stmt.target}/create"
    if isinstance(stmt, A.Drop):
        return f"{stmt.kind.lower()}/{stmt.name}/drop"
    if isinstance(stmt, A.CreateType):
        return f"type/{stmt.name}/create"
    if isinstance(stmt, A.DropType):
        return f"type/{stmt.name}/drop"
    if isinstance(stmt, A.AlterSource):
        return f"{stmt.kind.lower()}/{stmt.name}/alter"
    if isinstance(stmt, A.PauseResume):
        return f"{stmt.action.lower()}/{(stmt.query_id or 'ALL').upper()}/execute"
    if isinstance(stmt, A.Terminate):
        return f"terminate/{(stmt.query_id or 'ALL').upper()}/execute"
    return f"unknown/{type(stmt).__name__}/execute"


@dataclass
class Command:
    offset: int
    command_id: str
    statement: str
    streams_properties: dict[str, Any] = field(default_factory=dict)
    original_properties: dict[str, Any] = field(default_factory=dict)
    version: int = COMMAND_VERSION
    origin: str = ""  # the server instance that wrote it (command_runner.py); empty for older commands
    plan_rules: int = PLAN_RULES  # the plan rule revision it ran under (``plan.rules``)
    # the statement is the prepared one (``injected``: as ksqlDB's injectors left it), run as it stands;
    # False: a command of an older version, stored as the user wrote it, whose injectors run again on replay
    prepared: bool = False
    plan_config: dict[str, Any] = field(default_factory=dict)  # ``PLAN_CONFIGS`` when written (empty: older)
    injected: tuple[str, ...] = ()  # the WITH properties of ``statement`` its injectors added (``Prepared``)


def _jsonable(props: dict[str, Any]) -> dict[str, Any]:
    return {str(k): v if isinstance(v, str | int | float | bool) or v is None else str(v) for k, v in props.items()}


class CommandLog:
    """Appends commands to, and reads them back from, the single-partition command topic."""

    def __init__(self, log: Log, service_id: str, secrets: SecretStore | None = None) -> None:
        """``secrets``: where secret property values go instead of the topic (secrets.py); without one they
        are written hidden and replayed without their values."""
        self.log = log
        self.topic = command_topic_name(service_id)
        self.secrets = secrets

    def ensure_topic(self) -> None:
        info = self.log.describe_topic(self.topic)
        if info is None:
            self.log.create_topic(self.topic, 1, 1, {"retention.ms": "-1", "cleanup.policy": "delete"})
        elif info.partitions != 1:
            raise KsqlError(f"The command topic {self.topic} has {info.partitions} partitions; it must have exactly 1")

    def next_offset(self) -> int:
        return self.log.end_offset(self.topic, 0)

    def append(self, cid: str, statement: str, streams_properties: dict[str, Any],
               original_properties: dict[str, Any], origin: str = "", *, prepared: bool = True,
               plan_config: dict[str, Any] | None = None, injected: tuple[str, ...] = ()) -> int:
        """Write one command; returns its offset (the command sequence number). ``statement``: the prepared
        statement (``prepared_text``), which every server and every replay runs as it stands."""
        shown, hidden = split(_jsonable(streams_properties))
        value: dict[str, Any] = {"statement": statement, "streamsProperties": shown,
                                 "originalProperties": split(_jsonable(original_properties))[0],
                                 "version": COMMAND_VERSION, "planRules": PLAN_RULES}
        if prepared:
            value["prepared"] = True
        if plan_config:
            value["planConfig"] = _jsonable(plan_config)
        if injected:
            value["injectedProperties"] = list(injected)
        if hidden and self.secrets is not None:
            value["secretsRef"] = self.secrets.put(hidden)  # the values in a 0600 file, not on the topic
        if origin:
            value["origin"] = origin
        _, offset = self.log.produce(ProducerRecord(self.topic, orjson.dumps(cid), orjson.dumps(value), partition=0))
        return offset

    def read_all(self) -> list[Command]:
        commands: list[Command] = []
        offset, end = self.log.start_offset(self.topic, 0), self.log.end_offset(self.topic, 0)
        while offset < end:
            batch = self.fetch_from(offset)
            if not batch:
                break
            commands.extend(c for c in batch if c.offset < end and c.statement)
            offset = batch[-1].offset + 1
        return commands

    def fetch_from(self, offset: int, max_records: int = 10000) -> list[Command]:
        """The commands from ``offset`` on that the topic holds now (empty: none yet). A record without a
        value is returned with an empty statement, so readers step over its offset."""
        batch = self.log.fetch(self.topic, 0, offset, max_records)
        out: list[Command] = []
        for off, key, value in zip(batch.offsets, batch.keys, batch.values, strict=True):
            cid = orjson.loads(key) if key else ""
            if value is None:
                out.append(Command(off, cid, ""))
                continue
            body = orjson.loads(value)
            props = restore(dict(body.get("streamsProperties") or {}), body.get("secretsRef"), self.secrets,
                            f"command {cid} (offset {off})")
            out.append(Command(off, cid, body.get("statement", ""), props,
                               dict(body.get("originalProperties") or {}),
                               int(body.get("version", COMMAND_VERSION)), str(body.get("origin") or ""),
                               int(body.get("planRules", UNRECORDED)), bool(body.get("prepared", False)),
                               dict(body.get("planConfig") or {}),
                               tuple(str(k) for k in body.get("injectedProperties") or ())))
        return out


def run_and_record(log: CommandLog, engine: Engine, stmt: A.Statement, properties: dict[str, Any],
                   original_properties: dict[str, Any] | None = None) -> tuple[StatementResult, int]:
    """Execute a distributed statement as the next command and write it; returns (result, offset).

    The statement runs first and is written only if it succeeded (there is no sandbox to validate it in).
    The engine lock, held until the command is written, keeps a new query from processing anything before
    its command is durable. IF NOT EXISTS on an existing object is not written (offset -1).
    """
    with engine.lock:
        offset = log.next_offset()
        result = execute_command(engine, stmt, offset, properties)
        if result.unchanged:  # IF NOT EXISTS on an existing source: nothing to replay
            return result, -1
        stored = prepared_text(stmt, result)
        seq = log.append(command_id(stmt), stored.text, properties, original_properties or {},
                         prepared=stored.prepared, plan_config=plan_config(engine), injected=stored.injected)
    return result, seq


@dataclass(frozen=True)
class Prepared:
    """What a command stores of a statement: ``text`` (``prepared``: as the injectors left it) and the WITH
    properties the injectors added to it (``injected``), which are theirs and not the user's."""

    text: str
    prepared: bool
    injected: tuple[str, ...] = ()


def prepared_text(stmt: A.Statement, result: StatementResult | None) -> Prepared:
    """The text a command stores: the statement as ksqlDB's injectors left it (``injected_text``: a CREATE
    STREAM/TABLE with its registry columns, schema names and filled-in formats, a CREATE ... AS SELECT with
    its sink topic's name, counts and policy), else as sent - variables are substituted before parsing, so
    ``stmt.text`` holds none. From memory of ksqlDB's ValidatedCommandFactory / Command.of: the command's
    ``statement`` is the KsqlPlan's statement text, that of the injected ConfiguredStatement. A restart or
    another server then rebuilds what was accepted, whatever the registry or the defaults say by then.

    An injected text that does not read back as one statement of the same kind (a printing gap) is not
    stored; the statement as sent is, unprepared, so a replay prepares it again."""
    injected = result.injected_text if result is not None else None
    if not injected or injected == stmt.text:
        return Prepared(stmt.text, True)
    try:
        again = grammar.parse(injected, None)
    except Exception:  # noqa: BLE001 - any parse failure: keep what was sent
        again = []
    if len(again) != 1 or type(again[0]) is not type(stmt):
        return Prepared(stmt.text, False)
    written = {str(k).upper() for k in getattr(stmt, "properties", {}) or {}}
    added = sorted({str(k).upper() for k in getattr(again[0], "properties", {}) or {}} - written)
    return Prepared(injected, True, tuple(added))


class DurableStatements:
    """Statement execution that survives restarts, for an engine without a server in front (the shell).

    Opening replays the command topic (catalog, query ids, positions and state come back); afterwards
    every distributed statement is recorded there, exactly as the server does it.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.commands = CommandLog(engine.log, str(engine.prop("ksql.service.id", "default_")),
                                   SecretStore(engine.data_dir))
        self.commands.ensure_topic()
        self.replay_errors: list[str] = []

        def note(cmd: Command, result: StatementResult | None, error: BaseException | None) -> None:
            if error is not None:
                self.replay_errors.append(f"{cmd.command_id} (offset {cmd.offset}): {error}")

        replay(engine, self.commands.read_all(), note)

    def execute(self, sql: str, properties: dict[str, Any] | None = None) -> list[StatementResult]:
        return self.engine.execute(sql, properties, run=self.run, command_offset=self.commands.next_offset())

    def run(self, stmt: A.Statement, properties: dict[str, Any] | None) -> StatementResult:
        transient = set(self.engine.transient)
        if is_distributed(stmt, transient):
            return run_and_record(self.commands, self.engine, stmt, properties or {})[0]
        return self.engine.execute_statement(stmt, properties)


def execute_command(engine: Engine, stmt: A.Statement, offset: int, properties: dict[str, Any],
                    plan_rules: int | None = None, *, rerun: bool = False, prepared: bool = False,
                    config: dict[str, Any] | None = None, injected: tuple[str, ...] = ()) -> StatementResult:
    """Run a distributed statement as command ``offset``: query ids take the offset as their number, its
    queries are planned under ``plan_rules`` (a replayed command's own revision; None: the current).
    ``rerun``: a command its writer ran already (``Engine.rerunning_command``). ``prepared``: the statement
    is a command's prepared text (``Engine.prepared_command``): the injectors' own refusals of what they
    add (columns beside ``*_SCHEMA_ID``, a sink's CLEANUP_POLICY) are not judged again. ``config``: the
    command's ``planConfig``: the ``PLAN_CONFIGS`` it names are configured as they were then while it runs
    (a command without them runs under the configuration of now). ``injected``: the WITH properties the
    injectors added (``Engine.injected_properties``): a sink topic is created, and the WITH clause judged, as
    from the properties the user wrote."""
    frozen = {k: v for k, v in (config or {}).items() if k in PLAN_CONFIGS}
    with engine.lock:
        engine.query_counter = offset
        engine.plan_rules = PLAN_RULES if plan_rules is None else plan_rules
        engine.rerunning_command = rerun
        engine.prepared_command = prepared
        engine.injected_properties = frozenset(injected)
        saved = dict(engine.config)
        for name, value in frozen.items():
            engine.config.pop(name, None)
            if value is not None:
                engine.config[name] = value
        try:
            return engine.execute_statement(stmt, properties)
        finally:
            if frozen:
                engine.config.clear()
                engine.config.update(saved)
            engine.plan_rules = PLAN_RULES
            engine.rerunning_command = False
            engine.prepared_command = False
            engine.injected_properties = frozenset()


def replay(engine: Engine, commands: list[Command],
           on_result: Callable[[Command, StatementResult | None, BaseException | None], None] | None = None) -> None:
    """Re-execute ``commands`` in order, without their side effects on topics.

    Statement text is stored prepared (``prepared_text``: injected, variables substituted), so it is parsed
    without variables and its registry columns, formats and sink topic are those it was accepted with; an
    older command (``Command.prepared`` False) holds the text as sent and is prepared again. A DROP ...
    DELETE TOPIC is replayed as a plain DROP: the topic was deleted the first time, and a later command may
    have created a new one under the same name whose records must survive the restart. A command that fails
    now (it succeeded when written) is reported and skipped; the rest go on.
    """
    for cmd in commands:
        if cmd.version > COMMAND_VERSION:
            if on_result:
                on_result(cmd, None, KsqlError(f"Command version {cmd.version} is newer than this server's "
                                               f"({COMMAND_VERSION}); skipped"))
            continue
        try:
            stmts = grammar.parse(cmd.statement, None)
            result = None
            for stmt in stmts:
                if isinstance(stmt, A.Drop):
                    stmt.delete_topic = False
                result = execute_command(engine, stmt, cmd.offset, cmd.streams_properties, cmd.plan_rules,
                                         rerun=True, prepared=cmd.prepared, config=cmd.plan_config,
                                         injected=cmd.injected)
        except Exception as e:  # noqa: BLE001 - one bad command must not stop the restore
            if on_result:
                on_result(cmd, None, e)
            continue
        if on_result:
            on_result(cmd, result, None)
