"""Running one case against an engine, the way ksqlDB's TestExecutor drives a TopologyTestDriver.

1. A fresh engine over a fresh data directory, with the case's properties; under ``Placement.TTD`` its
   log puts every record in partition 0, as ksqlDB's TopologyTestDriver does (see ``partitioning``).
2. The topics ksqlDB's harness creates, with its counts (``harness_partitions``): those of the ``topics``
   section, then those of plain CREATE STREAM/TABLE statements.
3. Statements run in order; an error stops the case and is judged against ``expectedException``.
4. Topics named only by ``inputs``/``outputs`` that no statement created get the harness's 4 partitions.
5. Queries read a topic the case feeds from what is fed, any other topic whole (``HARNESS_INPUT_TOPICS``:
   TestExecutor's ``pipeRecordsFromProvidedInput`` / ``pipeRecordsFromKafka``, whatever ``auto.offset.reset``).
   Inputs are produced in file order. The queries are then fed one by one as ksqlDB feeds its drivers
   (``piping``): a query's inputs in order, each processed to completion before the next (as
   TopologyTestDriver.pipeInput), then its other topics whole.
6. Sink topics of ``outputs`` are read in full and compared (``compare``; absent headers expect none, an
   expected timestamp 0 is not compared in a case without inputs: ``as_checked``), then ``post`` (``post``).

An engine error the case does not expect fails it, ``Unsupported: ...`` included; only what the harness
itself cannot set up (a format its serdes cannot write) skips it.
"""

from __future__ import annotations

import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from typing import Any, NoReturn

from ksqlpy import types as T
from ksqlpy.errors import KsqlError, KsqlParseError
from ksqlpy.log.base import ProducerRecord
from ksqlpy.properties import HARNESS_FROZEN_CLOCK, HARNESS_INPUT_TOPICS
from ksqlpy.testing.coerce import resolve_row
from ksqlpy.testing.compare import ActualRecord, Mismatch, topic_diff
from ksqlpy.testing.harness_topics import (
    create_harness_topics,
    create_record_topics,
    register_topic_schemas,
    statement_subjects,
)
from ksqlpy.testing.model import Case, TestRecord
from ksqlpy.testing.partitioning import PartitionZeroLog, Placement
from ksqlpy.testing.piping import GatedLog, Group, pipe_by_driver, settle_query
from ksqlpy.testing.post import post_diff
from ksqlpy.testing.report import FAILED, PASSED, SKIPPED, CaseResult, normalize
from ksqlpy.testing.specserde import (
    Codec,
    GuessCodec,
    UnsupportedFeature,
    codec,
    encode_windowed,
    window_kind,
)
from ksqlpy.testing.topic_reader import read_partitions

EngineFactory = Callable[[str, dict[str, Any]], Any]

# What ksqlDB's TestExecutor configures for every case; case properties override these. The service id
# shows in internal topic names that ``post.topics`` expects (``_confluent-ksql-some.ksql.service.id...``);
# the record cache is off, so every aggregation update is an expected output.
HARNESS_PROPERTIES: dict[str, Any] = {"ksql.service.id": "some.ksql.service.id",
                                      "ksql.streams.cache.max.bytes.buffering": 0}

# what Kafka Streams' StreamTask says around an exception a processor raised (ksqlDB's StreamsException)
STREAMS_WRAPPER = "Exception caught in process"


@dataclass(frozen=True)
class _Field:
    """A field of a registered sink schema, shaped like a catalog column for ``resolve_row``."""

    name: str
    type: Any


class CaseTimeout(BaseException):
    """BaseException so engine code catching Exception cannot swallow the deadline."""


class _Done(Exception):
    """Ends a run early with its result."""

    def __init__(self, status: str, reason: str = "", group: str = "") -> None:
        super().__init__(reason)
        self.status, self.reason, self.group = status, reason, group


def run_case(case: Case, factory: EngineFactory, *, timeout_s: float = 60.0, drain_timeout_s: float = 10.0,
             extra_properties: dict[str, Any] | None = None, cleanup_topics: bool = False,
             placement: Placement = Placement.TTD) -> CaseResult:
    """Run ``case`` on a fresh engine from ``factory(data_dir, properties)``; never raises."""
    start = time.monotonic()
    if case.error:
        outcome = _Done(FAILED, case.error, "malformed case")
    elif case.skip_reason:
        outcome = _Done(SKIPPED, case.skip_reason)
    else:
        with tempfile.TemporaryDirectory(prefix="ksqlpy-qtt-") as data_dir:
            run = _Run(case, factory, data_dir, extra_properties or {}, drain_timeout_s, cleanup_topics,
                       placement)
            try:
                with deadline(timeout_s):
                    run.run()
                outcome = _Done(PASSED)
            except _Done as done:
                outcome = done
            except CaseTimeout:
                outcome = _Done(FAILED, f"timed out after {timeout_s:g}s ({run.stage})", "timeout")
            except Exception as e:  # noqa: BLE001 - a harness bug must not stop the whole run
                outcome = _Done(FAILED, f"harness error ({run.stage}): {type(e).__name__}: {e}",
                                f"harness error: {type(e).__name__}")
            finally:
                run.close()
    return CaseResult(case.file, case.name, outcome.status, outcome.reason, outcome.group,
                      round(time.monotonic() - start, 3))


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise CaseTimeout in the main thread after ``seconds`` (no-op elsewhere or if <= 0)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def fire(signum: int, frame: Any) -> None:
        raise CaseTimeout()

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class _Run:
    """The state of one case run; every step either returns or raises _Done."""

    def __init__(self, case: Case, factory: EngineFactory, data_dir: str, extra: dict[str, Any],
                 drain_timeout_s: float, cleanup_topics: bool, placement: Placement = Placement.TTD) -> None:
        self.case = case
        self.factory = factory
        self.data_dir = data_dir
        self.extra = extra
        self.drain_timeout_s = drain_timeout_s
        self.cleanup_topics = cleanup_topics
        self.placement = placement
        self.engine: Any = None
        self.stage = "starting engine"
        self.seen_sources: dict[str, Any] = {}  # topic -> last source seen over it (survives DROP)
        self.topics_before: set[str] = set()

    # -- steps
    def run(self) -> None:
        props = {**HARNESS_PROPERTIES, **self.case.properties, **self.extra,
                 HARNESS_INPUT_TOPICS: ",".join(sorted({r.topic for r in self.case.inputs})),
                 HARNESS_FROZEN_CLOCK: "true"}
        try:
            self.engine = self.factory(self.data_dir, props)
        except Exception as e:  # noqa: BLE001
            self.judge_error(e, "statement")
        if self.placement is Placement.TTD:
            self.engine.log = PartitionZeroLog(self.engine.log)
        self.gate = GatedLog(self.engine.log)
        self.engine.log = self.gate
        if self.pollable():
            # the queries the statements create read a fed topic from where its driver starts numbering
            for topic in sorted({r.topic for r in self.case.inputs}):
                self.gate.hold(topic)
        self.topics_before = {t.name for t in self.engine.log.list_topics()}
        self.stage = "creating topics"
        self.create_topics()
        line = 0
        for i, sql in enumerate(self.case.statements):
            self.stage = f"statement {i + 1}"
            try:
                # ksqlDB runs a case's statements as one script, one per line: pad so that error
                # positions ("line 2:40") name the same line
                self.engine.execute("\n" * line + sql)
            except Exception as e:  # noqa: BLE001
                self.judge_error(e, "statement", last=i == len(self.case.statements) - 1, sql=sql)
            line += sql.count("\n") + 1
            self.snapshot_sources()
        self.create_record_topics()
        self.stage = "processing inputs"
        self.feed_inputs()
        exc = self.case.expected_exception
        if exc is not None:
            # ksqlDB's matcher sees only what was thrown: an error the engine logged and skipped stopped
            # nothing (Kafka Streams' StreamsException stops the query)
            logged = next((m for m in processing_errors(self.engine)
                           if error_matches(exc.type, exc.message, exc.cause_message, m, None, "processing")), None)
            if logged is not None:
                raise _Done(FAILED, f"expected {exc.type or 'an error'} containing {exc.message!r}: the engine logged "
                            f"{logged!r} to the processing log and went on, where the query must stop",
                            f"expected error not raised: {short_type(exc.type)} (logged and skipped)")
            raise _Done(FAILED, f"expected {exc.type or 'an error'} containing {exc.message!r}, but nothing failed",
                        f"expected error not raised: {short_type(exc.type)}")
        self.stage = "checking outputs"
        self.check_outputs()
        if self.case.post is not None:
            self.stage = "checking post conditions"
            m = post_diff(self.case.post, self.engine)
            if m:
                raise _Done(FAILED, m.message, f"{m.field} mismatch")
        if not self.case.outputs and self.case.post is None:
            # ksqlDB passes these too (``"outputs": []`` is not checked there); say so in the report
            raise _Done(PASSED, "nothing checked: no outputs, expected error or post conditions")

    def close(self) -> None:
        if self.engine is None:
            return
        if self.cleanup_topics:
            with suppress(Exception):
                for t in self.engine.log.list_topics():
                    if t.name not in self.topics_before:
                        self.engine.log.delete_topic(t.name)
        with suppress(Exception):
            self.engine.close()

    def create_topics(self) -> None:
        """As ksqlDB's harness, except for topics only records name: those come after the statements
        (``create_record_topics``)."""
        create_harness_topics(self.engine.log, self.case, records=False)
        registry = getattr(self.engine, "schema_registry", None)
        for t in self.case.topics:
            if not t.schemas:
                continue
            if registry is None:
                raise _Done(SKIPPED, "Unsupported: the engine has no schema registry")

            def after_statement_subjects(t: Any = t) -> int:
                # the statement-level harness registers the schemas of the statements' topics first
                return len(registry.subjects()) + 1 + statement_subjects(self.case.statements, t.name)

            register_topic_schemas(registry.register, t, self.case.statements, after_statement_subjects)

    def create_record_topics(self) -> None:
        """Topics only ``inputs``/``outputs`` name, at the harness's count. After the statements: a CSAS
        creates its own sink with the count it inherits (ksqlDB's stub topic client accepts a CREATE over
        a topic it holds at another count; a real log would refuse it)."""
        create_record_topics(self.engine.log, self.case)

    def snapshot_sources(self) -> None:
        for source in self.engine.catalog.sources():
            self.seen_sources[source.topic] = source

    def feed_inputs(self) -> None:
        """Produce the inputs, then feed the queries as ksqlDB feeds its drivers (``piping``), each input
        processed to completion before the next, as TopologyTestDriver.pipeInput processes it; an engine
        without in-process queries to poll one by one (worker processes, a stand-in) is drained after each
        input instead."""
        log = self.engine.log
        queries = self.driver_queries()
        input_topics = {r.topic for r in self.case.inputs}
        before = {t: self.gate.ends(t) for t in input_topics}
        groups: list[Group] = []
        for n, r in enumerate(self.case.inputs, 1):
            record = self.serialize_input(n, r)
            with log.transaction() as tx:
                tx.produce_many([record])
            if queries is None:
                self.drain()
            else:
                groups.append(Group(record.topic, self.gate.ends(record.topic)))
        if queries is None:
            if not self.case.inputs:
                self.drain()
            return
        try:
            pipe_by_driver(self.gate, queries, groups, before, input_topics,
                           lambda q: settle_query(q, self.drain_timeout_s))
        except TimeoutError as e:
            raise _Done(FAILED, f"engine did not finish processing within {self.drain_timeout_s:g}s: {e}",
                        "drain timeout") from e
        except Exception as e:  # noqa: BLE001
            self.judge_error(e, "processing")

    def pollable(self) -> bool:
        """Whether the engine's queries run here, to be polled one by one (not in worker processes)."""
        return (isinstance(getattr(self.engine, "queries", None), dict)
                and getattr(self.engine, "worker_manager", None) is None)

    def driver_queries(self) -> list[Any] | None:
        """The persistent queries in the order they were started (ksqlDB's drivers), or None when the
        engine cannot poll them one by one here."""
        if not self.pollable():
            return None
        return [q for q in self.engine.queries.values() if hasattr(q, "topology") and hasattr(q, "poll")]

    def drain(self) -> None:
        try:
            self.engine.drain(self.drain_timeout_s)
        except TimeoutError as e:
            raise _Done(FAILED, f"engine did not finish processing within {self.drain_timeout_s:g}s: {e}",
                        "drain timeout") from e
        except Exception as e:  # noqa: BLE001
            self.judge_error(e, "processing")

    def check_outputs(self) -> None:
        by_topic: dict[str, list[TestRecord]] = {}
        for r in self.case.outputs:
            by_topic.setdefault(r.topic, []).append(as_checked(r, ran_with_inserts=not self.case.inputs))
        for topic, expected in by_topic.items():
            partitions, source = self.read_topic(topic)
            if partitions is None:
                raise self.output_failure(Mismatch("sink topic missing", f"{topic}: expected {len(expected)} "
                                                   "records, but the topic does not exist"))
            if source is not None:
                keys = [c for c in source.columns if c.key]
                values = self.written_fields(source, [c for c in source.columns
                                                      if not c.key and not c.headers and c.header_key is None])
                expected = [replace(r, key=resolve_row(r.key, keys), value=resolve_row(r.value, values))
                            for r in expected]
            m = topic_diff(topic, expected, partitions, source is not None and source.windowed is not None)
            if m:
                raise self.output_failure(m)

    def written_fields(self, source: Any, columns: list[Any]) -> list[Any]:
        """The value fields a sink's records hold: its columns, or with a ``VALUE_SCHEMA_ID`` the fields of
        that schema (ksqlDB writes the fields the query does not produce too, with defaults or NULL)."""
        from ksqlpy.schema_registry.sources import serde_options, sql_type_of

        opts = serde_options(source, False)
        registry = getattr(self.engine, "schema_registry", None)
        rs = registry.by_id(opts["schema_id"]) if registry is not None and opts["schema_id"] is not None else None
        if rs is None or (len(columns) == 1 and source.wrap_single_value is False):
            return columns
        try:
            t = sql_type_of(rs, upper=False, full_name=opts["full_name"], registry=registry,
                            nullable=opts["nullable"])
        except Exception:  # noqa: BLE001 - a schema we cannot read: compare against the columns
            return columns
        if not isinstance(t, T.Struct):
            return columns
        return [_Field(n, ft) for n, ft in t.fields]

    def output_failure(self, m: Mismatch) -> _Done:
        """A failed output check; the engine's first processing-log error, if any, is the likely cause."""
        first = processing_errors(self.engine)[:1]
        if not first:
            return _Done(FAILED, m.message, f"output mismatch: {m.field}")
        return _Done(FAILED, f"{m.message} [processing log: {first[0]}]",
                     f"output mismatch: {m.field} (processing log: {normalize(first[0])})")

    # -- serdes
    def source_for(self, topic: str, sink: bool) -> Any:
        live = [s for s in self.engine.catalog.sources() if s.topic == topic]
        if sink:
            live.sort(key=lambda s: getattr(s, "created_by_query", None) is None)
        return live[0] if live else self.seen_sources.get(topic)

    def codecs(self, topic: str, sink: bool) -> tuple[Codec, Codec, Any]:
        """(key codec, value codec, source or None) for a topic, from the source registered over it."""
        source = self.source_for(topic, sink)
        registry = getattr(self.engine, "schema_registry", None)
        try:
            if source is not None:
                from ksqlpy.schema_registry.sources import serde_options

                value_columns = [c for c in source.columns
                                 if not c.key and not c.headers and c.header_key is None]
                key_opts, value_opts = serde_options(source, True), serde_options(source, False)
                return (codec(source.key_format, [c for c in source.columns if c.key], registry=registry,
                              topic=topic, is_key=True, full_name=key_opts["full_name"],
                              nullable=key_opts["nullable"]),
                        codec(source.value_format, value_columns, registry=registry, topic=topic,
                              full_name=value_opts["full_name"], nullable=value_opts["nullable"],
                              wrap_single_value=getattr(source, "wrap_single_value", None)), source)
            spec = next((t for t in self.case.topics if t.name == topic), None)
            key = (codec(spec.key_format.format, [], registry=registry, topic=topic, is_key=True)
                   if spec and spec.key_format else GuessCodec())
            value = (codec(spec.value_format.format, [], registry=registry, topic=topic)
                     if spec and spec.value_format else GuessCodec())
            return key, value, None
        except UnsupportedFeature as e:
            raise _Done(SKIPPED, str(e)) from e

    def serialize(self, r: TestRecord) -> ProducerRecord:
        key_codec, value_codec, _ = self.codecs(r.topic, sink=False)
        key = key_codec.encode(r.key)
        if r.window is not None:
            key = encode_windowed(key, r.window)
        return ProducerRecord(topic=r.topic, key=key, value=value_codec.encode(r.value),
                              timestamp=r.timestamp, headers=list(r.headers) if r.headers is not None else None)

    def serialize_input(self, n: int, r: TestRecord) -> ProducerRecord:
        """Input ``n`` as bytes; one the harness's serdes cannot write fails the case, whatever it expects
        (ksqlDB's harness coerces a record to the topic's schema before writing it and stops with an
        AssertionError, not a RuntimeException its expectedException could match - from memory)."""
        try:
            return self.serialize(r)
        except _Done:
            raise
        except Exception as e:  # noqa: BLE001 - a codec's refusal, whatever its type
            raise _Done(FAILED, f"input {n} ({r.topic}): the harness cannot write it with the topic's formats: "
                        f"{type(e).__name__}: {e}", "input not serializable") from e

    def read_topic(self, topic: str) -> tuple[list[list[ActualRecord]] | None, Any]:
        """All records of ``topic`` per partition, decoded, and the source that describes them."""
        log = self.engine.log
        info = log.describe_topic(topic)
        if info is None:
            return None, None
        key_codec, value_codec, source = self.codecs(topic, sink=True)
        windowed = source is not None and source.windowed is not None
        kind = window_kind(source.windowed.type) if windowed else "time"
        size = source.windowed.size_ms if windowed else None
        partitions = read_partitions(log, topic, info.partitions, key_codec, value_codec,
                                     kind if windowed else None, size)
        return partitions, source

    # -- errors
    def judge_error(self, e: BaseException, phase: str, last: bool = True, sql: str | None = None) -> NoReturn:
        """Raise the _Done an error leads to: pass if expected, else fail - an engine refusing something it
        does not support yet fails the case as ksqlDB's harness would see it (only what the harness itself
        cannot set up is skipped). ``last``:
        the statement that failed is the case's last one; ``sql``: its text."""
        if isinstance(e, CaseTimeout | _Done):
            raise e
        msg = str(e)
        exc = self.case.expected_exception
        text = java_message(e, sql) if phase == "statement" else msg
        if exc is not None and error_matches(exc.type, exc.message, exc.cause_message, text, e, phase, last):
            raise _Done(PASSED)
        got = f"{type(e).__name__}: {msg}"
        crashed = not isinstance(e, KsqlError) and phase == "statement"
        if exc is not None:
            where = "" if last or phase != "statement" else f" of {self.stage}, not of the last statement"
            reason = f"expected {short_type(exc.type)} containing {exc.message!r}, got {phase} error{where} {got}"
        else:
            reason = f"{phase} error ({self.stage}): {got}"
        if crashed:
            raise _Done(FAILED, f"engine crashed: {reason}", f"engine crash: {type(e).__name__}: {normalize(msg)}")
        if exc is not None:
            raise _Done(FAILED, reason,
                        f"expected error not matched: {short_type(exc.type)}: {normalize(exc.message or '')}")
        raise _Done(FAILED, reason, f"{phase} error: {type(e).__name__}: {normalize(msg)}")


def as_checked(expected: TestRecord, ran_with_inserts: bool) -> TestRecord:
    """An expected output as ksqlDB's TestExecutor checks it (``validateCreatedMessage``, from memory):
    absent ``headers`` expect none (``headers().orElse(ImmutableList.of())``; a record the engine wrote with
    headers fails); a case without inputs (its records come from INSERT VALUES, stamped with the wall
    clock) does not compare an expected ``timestamp`` of 0 (``!ranWithInsertStatements || expected != 0``).
    An absent ``timestamp`` is never compared (``timestamp().orElse(actualTimestamp)``)."""
    timestamp = None if ran_with_inserts and expected.timestamp == 0 else expected.timestamp
    headers = [] if expected.headers is None else expected.headers
    if timestamp == expected.timestamp and headers is expected.headers:
        return expected
    return replace(expected, timestamp=timestamp, headers=headers)


def short_type(java_class: str | None) -> str:
    """The class's simple name; no class (an expectedException with a message only): any Throwable."""
    return java_class.rsplit(".", 1)[-1] if java_class else "Throwable"


def java_message(e: BaseException, sql: str | None) -> str:
    """The message ksqlDB's harness matches for a statement's error: ksqlDB's engine rethrows whatever
    preparing, planning or executing a statement raises as a KsqlStatementException of that statement,
    whose getMessage() is the message, a line break and ``Statement: <the statement's text>`` (from memory
    of KsqlEngine.prepare / EngineExecutor and KsqlStatementException.buildMessage). An error that names its
    statement already (a syntax error; one about a rewritten statement) keeps its text."""
    text = str(e)
    if sql is None or not isinstance(e, KsqlError) or "\nStatement: " in text:
        return text
    return f"{text}\nStatement: {sql.strip()}"


def error_matches(java_type: str | None, message: str | None, cause_message: str | None, text: str,
                  e: BaseException | None, phase: str, last: bool = True) -> bool:
    """Does an error (message ``text``, exception ``e`` if raised) of ``phase`` satisfy expectedException?

    Categories, as ksqlDB's matcher is ``instanceOf``: ParseFailedException -> KsqlParseError;
    KsqlStatementException -> any KsqlError a statement raised (a parse error is one), KsqlException too;
    for ParseFailedException and KsqlStatementException the statement must be the case's last one
    (``last``: ksqlDB's matcher compares the exception's statement text with the last statement);
    StreamsException -> any error while processing records, raised
    by ``drain`` or written to the engine's processing log; no type: any error (its ``causeMessage``, when given, may stand
    in for the Kafka Streams wrapper text "Exception caught in process", then the message must be part of
    that wrapper text). The message check is
    ksqlDB's containsString; nothing is normalized.
    """
    kind = short_type(java_type)
    if java_type is None:
        category = True  # no instanceOf matcher: whatever the case threw, in whichever phase
    elif kind == "ParseFailedException":
        category = isinstance(e, KsqlParseError) and last
    elif kind == "KsqlStatementException":
        category = isinstance(e, KsqlError) and phase == "statement" and last
    elif kind == "KsqlException":
        category = isinstance(e, KsqlError) and phase == "statement"
    elif kind == "StreamsException":
        category = phase == "processing"
        if category and cause_message and cause_message in text:
            # the outer message is then Kafka Streams' task wrapper, which our engine does not write
            return message is None or message in STREAMS_WRAPPER or message in text
    else:
        category = isinstance(e, KsqlError)
    return category and (message is None or message in text)


def processing_errors(engine: Any) -> list[str]:
    """Error messages the engine wrote to its processing log (``engine.plog.entries``), if it has one."""
    entries = getattr(getattr(engine, "plog", None), "entries", None) or []
    out: list[str] = []
    for entry in list(entries):
        message = entry.get("message") if isinstance(entry, dict) else None
        if isinstance(message, dict):
            for detail in message.values():
                if isinstance(detail, dict) and detail.get("errorMessage"):
                    out.append(str(detail["errorMessage"]))
    return out
