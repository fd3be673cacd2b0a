"""``ksqlpy test --rest``: REST QTT cases (``rest-query-validation-tests``) through a real ``ksqlpy server``.

Like ksqlDB's RestTestExecutor: one server process (started here, on a free loopback port) serves every
case; between cases everything is terminated and dropped, so each case starts from an empty catalog. For a
case:

1. every topic the case names is created, at 4 partitions unless it declares a count, and the schemas of
   its ``topics`` section are registered (``harness_topics``);
2. the leading non-query statements go to ``POST /ksql`` in one request;
3. with ``inputConditions.waitForActivePushQuery`` the query statements start first and inputs are produced
   once they stream; otherwise inputs are produced, the runner waits until every persistent query has
   consumed them, then each query goes to ``POST /query`` (StreamedRow JSON);
4. ``responses`` is the expected prefix of what came back: at least that many responses, each listed one
   compared (``admin`` entities: the fields given must match; ``query``: as many elements, the header and
   final message in place, ``key|starts_with`` supported, the rows in any order - a multiset).
   ``expectedError`` must match the first failed request (its type or a subclass of it, the status, the
   message contained); when nothing failed it fails the case only if queries returned results, as ksqlDB's
   harness does (``strict_errors`` fails it in every case: our own files use it, so an error case of ours
   cannot pass by running nothing that fails). These comparisons are ``rest_responses``.

A case that names schema ids (``VALUE_SCHEMA_ID=1``, a topic's ``valueSchemaId``) runs against a new registry and
a new server, as each of ksqlDB's cases meets a new mock registry; the others share one (ids keep counting).

The server runs as ksqlDB's REST test server does: ``ksql.streams.auto.offset.reset=earliest``, so push
queries and new persistent queries read topics from the start.

Inputs are produced straight into the server's embedded log (the harness opens the same LMDB directory, as
ksqlDB's harness produces to Kafka). Cases that need what this runner cannot check are skipped, saying why.
"""

from __future__ import annotations

import itertools
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ksqlpy import types as T
from ksqlpy.testing import exactjson
from ksqlpy.testing.executor import CaseTimeout, deadline
from ksqlpy.testing.extension import with_test_functions
from ksqlpy.testing.harness_topics import create_harness_topics, register_topic_schemas
from ksqlpy.testing.model import Case
from ksqlpy.testing.report import FAILED, PASSED, SKIPPED, CaseResult
from ksqlpy.testing.rest_outputs import check_outputs, codec_options
from ksqlpy.testing.rest_protobuf import element_of
from ksqlpy.testing.rest_responses import Done, compare_responses, judge_error
from ksqlpy.testing.server_process import ServerProcess
from ksqlpy.testing.specserde import UnsupportedFeature, codec, encode_windowed
from ksqlpy.testing.support import static_skip_reason

KSQL_V1_JSON = "application/vnd.ksql.v1+json"
SERVICE_ID = "some.ksql.service.id"

# what ksqlDB's REST QTT server runs with (its RestQueryTranslationTest config)
SERVER_PROPERTIES = {
    "ksql.service.id": SERVICE_ID,
    "ksql.query.push.v2.enabled": "true",
    "ksql.logging.processing.topic.auto.create": "false",
    "ksql.logging.processing.stream.auto.create": "false",
    "ksql.server.command.response.timeout.ms": "10000",
    "ksql.streams.cache.max.bytes.buffering": "0",  # as ksqlDB's REST tests: every aggregation update goes out
    "ksql.streams.auto.offset.reset": "earliest",
}
PROTOBUF_MEDIA = "application/vnd.ksql.v1+protobuf"
_SELECT = re.compile(r"^\s*SELECT\b", re.IGNORECASE)
_EMIT = re.compile(r"\bEMIT\s+(CHANGES|FINAL)\b", re.IGNORECASE)


def rest_skip_reason(case: Case) -> str | None:
    """Static skip reasons for REST mode (the engine-mode reason "needs --rest" no longer applies). A case's
    properties are no reason: ksqlDB's harness sets them on its REST client, which sends them with every
    request, so the server judges them - it refuses one it does not recognize, as ksqlDB's does."""
    reason = static_skip_reason(replace(case, rest=False, properties={}))
    if reason:
        return reason
    return None


# ---------------------------------------------------------------------------------------------- types


_PRIMITIVES = {"BOOLEAN": T.BOOLEAN, "INTEGER": T.INTEGER, "BIGINT": T.BIGINT, "DOUBLE": T.DOUBLE,
               "STRING": T.STRING, "BYTES": T.BYTES, "DATE": T.DATE, "TIME": T.TIME, "TIMESTAMP": T.TIMESTAMP}


def sql_type(schema: dict[str, Any]) -> T.SqlType:
    """A SQL type from a DESCRIBE SchemaInfo."""
    name = schema.get("type")
    if name in _PRIMITIVES:
        return _PRIMITIVES[name]
    if name == "DECIMAL":
        p = schema.get("parameters") or {}
        return T.Decimal(int(p.get("precision", 10)), int(p.get("scale", 0)))
    if name == "ARRAY":
        return T.Array(sql_type(schema["memberSchema"]))
    if name == "MAP":
        return T.Map(T.STRING, sql_type(schema["memberSchema"]))
    if name == "STRUCT":
        return T.Struct(tuple((f["name"], sql_type(f["schema"])) for f in schema.get("fields") or []))
    raise UnsupportedFeature(f"column type {name}")


class _Col:
    def __init__(self, name: str, type: T.SqlType) -> None:
        self.name, self.type = name, type


# ---------------------------------------------------------------------------------------------- one case


class RestRunner:
    def __init__(self, server: ServerProcess, timeout_s: float = 60.0, query_timeout_s: float = 10.0,
                 registry: Any = None, *, strict_errors: bool = False) -> None:
        """``registry``: the schema registry the server is configured with, if the runner owns it;
        ``strict_errors``: an expected error that never came fails the case even when no query ran."""
        import httpx

        from ksqlpy.log.embedded import EmbeddedLog

        self.server = server
        self.timeout_s = timeout_s
        self.query_timeout_s = query_timeout_s
        self.client = httpx.Client(base_url=server.url, timeout=httpx.Timeout(30.0))
        self.log = EmbeddedLog(os.path.join(server.data_dir, "log"))
        self.registry = registry
        self.strict_errors = strict_errors

    def close(self) -> None:
        self.client.close()
        self.log.close()

    # -- REST
    def ksql(self, sql: str, props: dict[str, Any]) -> tuple[int, Any]:
        r = self.client.post("/ksql", json={"ksql": sql, "streamsProperties": props})
        return r.status_code, _json(r.content)

    def query(self, sql: str, props: dict[str, Any], expected_elements: int,
              started: threading.Event | None = None, accept: str = KSQL_V1_JSON) -> tuple[int, Any]:
        """POST /query; returns (status, list of elements | error body). Push queries are read until the
        expected number of elements arrived, the stream ended, or the query timeout."""
        body = {"ksql": sql, "streamsProperties": props}
        end = time.monotonic() + self.query_timeout_s
        with self.client.stream("POST", "/query", json=body, headers={"Accept": accept},
                                timeout=self.query_timeout_s) as r:
            if r.status_code != 200:
                r.read()
                if started:
                    started.set()
                return r.status_code, _json(r.content)
            elements: list[Any] = []
            buf = b""
            try:
                for chunk in r.iter_bytes():
                    buf += chunk
                    *lines, buf = buf.split(b"\n")
                    for line in lines:
                        _element(line, elements)
                    if buf.strip() and _element(buf, elements):  # ksqlDB ends a chunk after a whole element
                        buf = b""
                    if started is not None and elements:
                        started.set()
                    if len(elements) >= expected_elements and _element_ends(elements) or time.monotonic() > end:
                        break
            except Exception:  # noqa: BLE001 - a read timeout ends a push query with what arrived
                pass
            _element(buf, elements)
            if started:
                started.set()
            return 200, elements

    # -- topics and inputs
    def sources(self) -> dict[str, dict[str, Any]]:
        """topic -> source description (first source found over it)."""
        status, body = self.ksql("SHOW STREAMS; SHOW TABLES;", {})
        out: dict[str, dict[str, Any]] = {}
        if status != 200:
            return out
        names = [s["name"] for e in body for s in e.get("streams", e.get("tables", []))]
        for name in names:
            status, d = self.ksql(f"DESCRIBE `{name}`;", {})
            if status == 200 and d:
                desc = d[0]["sourceDescription"]
                out.setdefault(desc["topic"], desc)
        return out

    def schemas(self) -> Any:
        """The registry the server registers in: the runner's, else the embedded one on the server's log."""
        if self.registry is not None:
            return self.registry
        from ksqlpy.schema_registry import EmbeddedSchemaRegistry

        # the server's embedded registry lives on its log: read the schemas its statements registered
        return EmbeddedSchemaRegistry(self.log)

    def config(self, case: Case) -> dict[str, Any]:
        """The properties the case's statements ran with: the server's, then the case's own."""
        return {**self.server.properties, **{k: _prop_text(v) for k, v in case.properties.items()}}

    def produce_inputs(self, case: Case) -> None:
        from ksqlpy.log.base import ProducerRecord

        if not case.inputs:
            return
        sources = self.sources()
        for topic, group in itertools.groupby(case.inputs, key=lambda r: r.topic):
            desc = sources.get(topic)
            if desc is None:
                raise Done(SKIPPED, f"no source over input topic {topic}")
            keys = [_Col(f["name"], sql_type(f["schema"])) for f in desc["fields"] if f.get("type") == "KEY"]
            values = [_Col(f["name"], sql_type(f["schema"])) for f in desc["fields"] if f.get("type") is None]
            registry = self.schemas() if {desc["keyFormat"], desc["valueFormat"]} & {
                "AVRO", "JSON_SR", "PROTOBUF"} else self.registry
            key_opts, value_opts = codec_options(desc, len(values), self.config(case))
            kc = codec(desc["keyFormat"], keys, registry=registry, topic=topic, is_key=True, **key_opts)
            vc = codec(desc["valueFormat"], values, registry=registry, topic=topic, **value_opts)
            records = []
            for r in group:
                try:
                    key = kc.encode(r.key)
                    value = vc.encode(r.value)
                except Exception as e:  # noqa: BLE001 - a codec's refusal fails the case (executor.serialize_input)
                    raise Done(FAILED, f"input ({topic}): the harness cannot write it with the topic's formats: "
                               f"{type(e).__name__}: {e}", "input not serializable") from e
                if r.window is not None:
                    key = encode_windowed(key, r.window)
                records.append(ProducerRecord(topic, key, value, r.timestamp,
                                              list(r.headers) if r.headers is not None else None))
            with self.log.transaction() as tx:
                tx.produce_many(records)

    def wait_processed(self, timeout_s: float = 10.0) -> None:
        """Until every persistent query's committed positions reach the end of its input partitions."""
        end = time.monotonic() + timeout_s
        stable = 0
        while time.monotonic() < end:
            r = self.client.get("/clusterStatus")
            hosts = r.json().get("clusterStatus", {}) if r.status_code == 200 else {}
            behind = False
            for host in hosts.values():
                for qid, info in host.get("activeStandbyPerQuery", {}).items():
                    group = f"_confluent-ksql-{SERVICE_ID}query_{qid}"
                    for p in info.get("activePartitions", []):
                        topic, part = p["topic"], p["partition"]
                        if not self.log.topic_exists(topic):
                            continue
                        done = self.log.committed(group, topic, part)
                        if (done or self.log.start_offset(topic, part)) < self.log.end_offset(topic, part):
                            behind = True
            stable = 0 if behind else stable + 1
            if stable >= 2:
                return
            time.sleep(0.05)

    def create_topics(self, case: Case) -> None:
        """As ksqlDB's REST harness, before the statements: every topic the case names (on a real log, so a
        CSAS meeting one at another count fails as it would on Kafka), then the ``topics`` schemas.

        From memory of ksqlDB's RestTestExecutor.initializeTopics over TestCaseBuilderUtil.getAllTopics: the
        ``topics`` section, the topic of each plain CREATE STREAM/TABLE (not AS SELECT) and then every topic
        an ``inputs`` or ``outputs`` record names are all created on the cluster before the first statement -
        a sink that only ``outputs`` names included, so a CREATE ... AS SELECT from a source at another count
        than the harness's meets it and is refused, as on ksqlDB."""
        create_harness_topics(self.log, case, records=True)
        for t in case.topics:
            if not t.schemas:
                continue
            if self.registry is None:
                raise Done(SKIPPED, "Unsupported: topics[] schemas need the runner's schema registry")
            register_topic_schemas(self.registry.register, t, case.statements, lambda: None)

    # -- reset between cases
    def reset(self) -> None:
        self.ksql("TERMINATE ALL;", {})
        # a source made by a CREATE ... AS SELECT goes before the sources it read (they may not be dropped
        # while it exists): drop what can be dropped, round after round
        for _ in range(20):
            status, body = self.ksql("SHOW STREAMS; SHOW TABLES;", {})
            left = [s for e in body for s in e.get("streams", []) + e.get("tables", [])] if status == 200 else []
            dropped = [self.ksql(f"DROP {s['type']} IF EXISTS `{s['name']}`;", {})[0] == 200 for s in left]
            if not any(dropped):
                break
        status, body = self.ksql("SHOW TYPES;", {})
        if status == 200:
            for entity in body:
                for name in (entity.get("types") or {}):
                    self.ksql(f"DROP TYPE IF EXISTS `{name}`;", {})
        for t in self.log.list_topics():
            if not t.name.startswith("_confluent-ksql-"):
                self.log.delete_topic(t.name)
        if self.registry is not None:  # every case starts with empty subjects, as on a fresh registry
            for subject in self.registry.subjects(include_deleted=True):  # soft, then permanently: no
                self.registry.delete_subject(subject)                    # version numbers left to count on
                self.registry.delete_subject(subject, permanent=True)

    # -- the case
    def run(self, case: Case) -> CaseResult:
        start = time.monotonic()
        try:
            with deadline(self.timeout_s):
                self._run(case)
            outcome = Done(PASSED)
        except Done as d:
            outcome = d
        except CaseTimeout:
            outcome = Done(FAILED, f"timed out after {self.timeout_s:g}s", "timeout")
        except Exception as e:  # noqa: BLE001 - a harness bug must not stop the run
            outcome = Done(FAILED, f"harness error: {type(e).__name__}: {e}", f"harness error: {type(e).__name__}")
        return CaseResult(case.file, case.name, outcome.status, outcome.reason, outcome.group,
                          round(time.monotonic() - start, 3))

    def _run(self, case: Case) -> None:
        props = {k: _prop_text(v) for k, v in case.properties.items()}
        stmts = list(case.statements)
        admin, queries = split_statements(stmts)
        expected = list(case.responses or [])
        self.create_topics(case)
        actual: list[Any] = []
        if admin:
            status, body = self.ksql("\n".join(admin), props)
            if status != 200:
                judge_error(case, status, body, "admin statements")
            actual.extend({"admin": e} for e in body)
        wait_push = bool((case.input_conditions or {}).get("waitForActivePushQuery"))
        want = [len(r["query"]) if isinstance(r, dict) and "query" in r else 1 for r in expected[len(actual):]]
        if wait_push and queries:
            results: list[Any] = [None] * len(queries)
            started = [threading.Event() for _ in queries]

            def go(i: int, sql: str) -> None:
                try:
                    results[i] = self.query(sql, props, want[i] if i < len(want) else 1, started[i])
                except Exception as e:  # noqa: BLE001
                    results[i] = (0, f"{type(e).__name__}: {e}")
                    started[i].set()

            threads = [threading.Thread(target=go, args=(i, q), daemon=True) for i, q in enumerate(queries)]
            for t in threads:
                t.start()
            for ev in started:
                ev.wait(self.query_timeout_s)
            time.sleep(0.1)
            self.produce_inputs(case)
            for t in threads:
                t.join(self.query_timeout_s + 5)
            query_results = results
        else:
            self.produce_inputs(case)
            self.wait_processed()
            query_results = [self.query(q, props, want[i] if i < len(want) else 1) for i, q in enumerate(queries)]
        for status, body in query_results:
            if status != 200:
                judge_error(case, status, body, "query")
            actual.append({"query": body})
        if case.expected_error is not None and queries:
            # ksqlDB's harness holds an unmet expected error against query results only
            raise Done(FAILED, f"expected error {case.expected_error.get('message')!r}, but the queries "
                       "returned results", "expected error not raised")
        if case.expected_error is not None and self.strict_errors:
            raise Done(FAILED, f"expected error {case.expected_error.get('message')!r}, but every statement "
                       "succeeded", "expected error not raised")
        if any(isinstance(r, dict) and "queryProto" in r for r in expected):
            # ksqlDB's harness asks each pull query again in the protobuf media type
            sizes = [len(r["queryProto"]) for r in expected if isinstance(r, dict) and "queryProto" in r]
            for q in [q for q in queries if not _EMIT.search(q)]:
                status, body = self.query(q, props, sizes.pop(0) if sizes else 1, accept=PROTOBUF_MEDIA)
                if status != 200:
                    judge_error(case, status, body, "protobuf query")
                schemas: dict[str, Any] = {}
                actual.append({"queryProto": [element_of(e, schemas) for e in body], "schemas": schemas})
        compare_responses(expected, actual, stmts)
        if case.outputs:
            self.wait_processed()
            check_outputs(self.log, self.schemas(), case, self.sources(),
                          lambda fields, kind: [_Col(f["name"], sql_type(f["schema"])) for f in fields
                                                if f.get("type") == kind], self.config(case))


def split_statements(statements: list[str]) -> tuple[list[str], list[str]]:
    """(admin statements, queries) as ksqlDB's RestTestExecutor splits a case (``splitStatements``, from
    memory): everything before the first SELECT goes to /ksql as one request, the first SELECT and every
    statement after it - whatever its kind - to /query, one request each (a non-query there is refused
    by /query)."""
    first = next((i for i, s in enumerate(statements) if _SELECT.match(s)), len(statements))
    return statements[:first], statements[first:]


_SCHEMA_ID = re.compile(r"\b(KEY|VALUE)_SCHEMA_ID\b", re.IGNORECASE)


def names_schema_ids(case: Case) -> bool:
    """Does the case name schema ids (``KEY_SCHEMA_ID``/``VALUE_SCHEMA_ID`` in a statement, or a ``topics``
    entry's ``keySchemaId``/``valueSchemaId``)? Such a case counts ids from a new registry's first one."""
    return any(_SCHEMA_ID.search(s) for s in case.statements) or any(
        "keySchemaId" in t.schemas or "valueSchemaId" in t.schemas for t in case.topics)


def _json(data: bytes) -> Any:
    try:
        return exactjson.loads(data) if data else None
    except ValueError:
        return data.decode("utf-8", "replace")


def _element(line: bytes, out: list[Any]) -> bool:
    """One StreamedRow line: strip the array's ``[``, ``,`` and ``]`` as ksqlDB's clients do.
    Returns False when the text is not (yet) a whole JSON element."""
    text = line.strip()
    if text.startswith(b"["):
        text = text[1:]
    if text.endswith(b"]"):
        text = text[:-1]
    text = text.strip().rstrip(b",").strip()
    if not text:
        return True
    try:
        out.append(exactjson.loads(text))
    except ValueError:
        return False
    return True


def _element_ends(elements: list[Any]) -> bool:
    last = elements[-1]
    return not isinstance(last, dict) or "row" in last or "finalMessage" in last or "errorMessage" in last


def _prop_text(v: Any) -> Any:
    if isinstance(v, bool):
        return "true" if v else "false"
    return v if isinstance(v, str) else str(v)


# ---------------------------------------------------------------------------------------------- many cases


def run_rest(cases: list[Case], *, timeout_s: float = 60.0, progress: Callable[[int, int, CaseResult], None]
             | None = None, server_properties: dict[str, Any] | None = None,
             strict_errors: bool = False) -> list[CaseResult]:
    """Run ``cases`` against one real server (restarted if a reset fails); results in case order.
    ``strict_errors``: see ``RestRunner``."""
    from ksqlpy.schema_registry.http_server import RegistryServer

    results: list[CaseResult] = []
    # the runner owns the schema registry (over HTTP, as ksqlDB's tests own theirs): it reads what the server
    # registered and empties the subjects between cases, which a registry inside the server would not allow
    with tempfile.TemporaryDirectory(prefix="ksqlpy-rest-qtt-") as tmp, RegistryServer() as sr:
        # ksqlDB's REST tests register on Confluent's MockSchemaRegistryClient: no compatibility check
        sr.registry.set_compatibility("NONE")
        server: ServerProcess | None = None
        runner: RestRunner | None = None
        n = 0
        try:
            for i, case in enumerate(cases):
                reason = case.error and f"malformed case: {case.error}"
                skip = None if reason else (rest_skip_reason(case) if case.rest
                                            else "not a REST case (run it without --rest)")
                if reason:
                    result = CaseResult(case.file, case.name, FAILED, reason, "malformed case")
                elif skip:
                    result = CaseResult(case.file, case.name, SKIPPED, skip)
                else:
                    if names_schema_ids(case) and not sr.registry.is_empty():
                        # ksqlDB's harness gives each case a new (mock) registry, so the ids a case names count
                        # from the first; ours keeps ids over the run (subjects emptied between cases), and the
                        # server caches schemas by id: a new registry, and a new server that has seen none of it
                        if runner is not None:
                            runner.close()
                            assert server is not None
                            server.stop()
                            runner = None
                        sr.registry.clear()
                        sr.registry.set_compatibility("NONE")
                    if runner is None:
                        n += 1
                        properties = {**SERVER_PROPERTIES, "ksql.schema.registry.url": sr.url,
                                      **(server_properties or {})}
                        server = ServerProcess(os.path.join(tmp, f"server{n}"),
                                               with_test_functions(properties)).start()
                        runner = RestRunner(server, timeout_s, registry=sr.registry, strict_errors=strict_errors)
                    result = runner.run(case)
                    try:
                        runner.reset()
                    except Exception:  # noqa: BLE001 - start afresh
                        runner.close()
                        assert server is not None
                        server.stop()
                        runner = None
                results.append(result)
                if progress:
                    progress(i + 1, len(cases), result)
        finally:
            if runner is not None:
                runner.close()
            if server is not None:
                server.stop()
    return results
