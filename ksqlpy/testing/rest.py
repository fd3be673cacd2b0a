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
   message contained); when nothing failed it fails the case only if queries returned results.

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
from ksqlpy.testing.compare import value_diff
from ksqlpy.testing.executor import CaseTimeout, deadline
from ksqlpy.testing.extension import with_test_functions
from ksqlpy.testing.harness_topics import create_harness_topics, register_topic_schemas
from ksqlpy.testing.model import Case
from ksqlpy.testing.report import FAILED, PASSED, SKIPPED, CaseResult, normalize
from ksqlpy.testing.rest_outputs import check_outputs
from ksqlpy.testing.rest_protobuf import compare_proto_query, element_of
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
# ksqlDB's REST error entities by class: an expected class matches its subclasses too
ERROR_TYPES: dict[str, frozenset[str]] = {
    "KsqlErrorMessage": frozenset({"generic_error", "statement_error"}),
    "KsqlStatementErrorMessage": frozenset({"statement_error"}),
}
PROTOBUF_MEDIA = "application/vnd.ksql.v1+protobuf"
_SELECT = re.compile(r"^\s*(SELECT|PRINT)\b", re.IGNORECASE)
_EMIT = re.compile(r"\bEMIT\s+(CHANGES|FINAL)\b", re.IGNORECASE)


class Done(Exception):
    def __init__(self, status: str, reason: str = "", group: str = "") -> None:
        super().__init__(reason)
        self.status, self.reason, self.group = status, reason, group


def rest_skip_reason(case: Case) -> str | None:
    """Static skip reasons for REST mode (the engine-mode reason "needs --rest" no longer applies)."""
    reason = static_skip_reason(replace(case, rest=False))
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
                 registry: Any = None) -> None:
        """``registry``: the schema registry the server is configured with, if the runner owns it."""
        import httpx

        from ksqlpy.log.embedded import EmbeddedLog

        self.server = server
        self.timeout_s = timeout_s
        self.query_timeout_s = query_timeout_s
        self.client = httpx.Client(base_url=server.url, timeout=httpx.Timeout(30.0))
        self.log = EmbeddedLog(os.path.join(server.data_dir, "log"))
        self.registry = registry

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
            kc = codec(desc["keyFormat"], keys, registry=registry, topic=topic, is_key=True)
            vc = codec(desc["valueFormat"], values, registry=registry, topic=topic)
            records = []
            for r in group:
                key = kc.encode(r.key)
                if r.window is not None:
                    key = encode_windowed(key, r.window)
                records.append(ProducerRecord(topic, key, vc.encode(r.value), r.timestamp,
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
        CSAS meeting one at another count fails as it would on Kafka), then the ``topics`` schemas."""
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
            for subject in self.registry.subjects():
                self.registry.delete_subject(subject)

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
        split = len(stmts)
        while split > 0 and _SELECT.match(stmts[split - 1]):
            split -= 1
        admin, queries = stmts[:split], stmts[split:]
        expected = list(case.responses or [])
        self.create_topics(case)
        actual: list[Any] = []
        if admin:
            status, body = self.ksql("\n".join(admin), props)
            if status != 200:
                self.judge_error(case, status, body, "admin statements")
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
                self.judge_error(case, status, body, "query")
            actual.append({"query": body})
        if case.expected_error is not None and queries:
            # ksqlDB's harness holds an unmet expected error against query results only
            raise Done(FAILED, f"expected error {case.expected_error.get('message')!r}, but the queries "
                       "returned results", "expected error not raised")
        if any(isinstance(r, dict) and "queryProto" in r for r in expected):
            # ksqlDB's harness asks each pull query again in the protobuf media type
            sizes = [len(r["queryProto"]) for r in expected if isinstance(r, dict) and "queryProto" in r]
            for q in [q for q in queries if not _EMIT.search(q)]:
                status, body = self.query(q, props, sizes.pop(0) if sizes else 1, accept=PROTOBUF_MEDIA)
                if status != 200:
                    self.judge_error(case, status, body, "protobuf query")
                schemas: dict[str, Any] = {}
                actual.append({"queryProto": [element_of(e, schemas) for e in body], "schemas": schemas})
        self.compare(expected, actual, stmts)
        if case.outputs:
            self.wait_processed()
            check_outputs(self.log, self.schemas(), case, self.sources(),
                          lambda fields, kind: [_Col(f["name"], sql_type(f["schema"])) for f in fields
                                                if f.get("type") == kind])

    def judge_error(self, case: Case, status: int, body: Any, what: str) -> None:
        message = body.get("message", "") if isinstance(body, dict) else str(body)
        exp = case.expected_error
        if exp is None:
            raise Done(FAILED, f"{what} failed: HTTP {status}: {message}",
                       f"{what} error: {normalize(message)}")
        problems = []
        if exp.get("status") is not None and int(exp["status"]) != status:
            problems.append(f"status {status}, expected {exp['status']}")
        want_type = str(exp.get("type") or "").rsplit(".", 1)[-1]
        got_type = body.get("@type") if isinstance(body, dict) else None
        if want_type and not error_type_matches(want_type, got_type):
            problems.append(f"error type {got_type or '?'}, expected {want_type} or a subclass")
        if exp.get("message") and exp["message"] not in message:
            problems.append(f"message {message!r} does not contain {exp['message']!r}")
        if problems:
            raise Done(FAILED, "; ".join(problems), f"expected error not matched: {normalize(exp.get('message', ''))}")
        raise Done(PASSED)

    def compare(self, expected: list[Any], actual: list[Any], statements: list[str] | None = None) -> None:
        """``expected`` is a prefix: at least as many responses came back, and each listed one matches."""
        statements = statements or []
        if len(actual) < len(expected):
            raise Done(FAILED, f"{len(actual)} responses, expected at least {len(expected)}: {_show(actual)}",
                       "response count mismatch")
        for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
            if "admin" in e:
                if "admin" not in a:
                    raise Done(FAILED, f"response {i}: expected an admin entity, got {_show(a)}", "response kind")
                problem = admin_diff(e["admin"], a["admin"], statements[i] if i < len(statements) else "")
                if problem:
                    raise Done(FAILED, f"response {i}: {problem}", "admin entity mismatch")
            elif "query" in e:
                if "query" not in a or not isinstance(a["query"], list):
                    raise Done(FAILED, f"response {i}: expected query output, got {_show(a)}", "response kind")
                self.compare_query(i, e["query"], a["query"])
            elif "queryProto" in e:
                if "queryProto" not in a:
                    raise Done(FAILED, f"response {i}: expected protobuf query output, got {_show(a)}",
                               "response kind")
                compare_proto_query(i, e["queryProto"], a["queryProto"], a["schemas"])
            else:
                raise Done(SKIPPED, f"Unsupported: response kind {sorted(e)}")

    def compare_query(self, i: int, expected: list[Any], actual: list[Any]) -> None:
        """As many elements; the others than rows (header, final message) in their order, the rows as a
        multiset: no query defines an order of its rows (a scan visits partitions in store order, a push
        query's rows interleave partitions)."""
        if len(expected) != len(actual):
            raise Done(FAILED, f"query {i}: {len(actual)} elements, expected {len(expected)}: got {_show(actual)}; "
                       f"expected {_show(expected)}", "query element count mismatch")
        others_e = [e for e in expected if not _is_row(e)]
        others_a = [a for a in actual if not _is_row(a)]
        if len(others_e) != len(others_a):
            raise Done(FAILED, f"query {i}: expected {_show(others_e)} besides the rows, got {_show(others_a)}",
                       "query element mismatch")
        for j, (e, a) in enumerate(zip(others_e, others_a, strict=True)):
            problem = _subset_diff(e, a, f"query[{j}]", exact_rows=True)
            if problem:
                raise Done(FAILED, f"query {i}: {problem}", f"query {next(iter(e), '?')} mismatch")
        rows_e = [e for e in expected if _is_row(e)]
        rows_a = [a for a in actual if _is_row(a)]
        unmatched = unmatched_rows(rows_e, rows_a, lambda e, a: _subset_diff(e, a, "row") is None)
        if unmatched:
            raise Done(FAILED, f"query {i}: no row matches {_show(unmatched[0])} among {_show(rows_a)}",
                       "query row mismatch")


# ---------------------------------------------------------------------------------------------- helpers


def error_type_matches(expected_class: str, got_type: str | None) -> bool:
    """Does an error entity of ``@type`` ``got_type`` satisfy an expected error class (short name)?"""
    known = ERROR_TYPES.get(expected_class)
    if known is not None:
        return got_type in known
    return bool(got_type) and str(got_type).lower() == expected_class.lower()


def admin_diff(expected: Any, actual: Any, statement: str) -> str | None:
    """ksqlDB's admin check: each top-level field the case gives is in the entity and equal to it, the
    whole value (``{STATEMENT}`` in an expected string stands for the statement the response is for)."""
    if not isinstance(expected, dict) or not isinstance(actual, dict):
        return f"admin: expected an object {_show(expected)}, got {_show(actual)}"
    for k, want in expected.items():
        if k not in actual:
            return f"admin: missing {k!r} in {_show(actual)}"
        d = value_diff(_macros(want, statement), actual[k], f"admin.{k}")
        if d:
            return d
    return None


def _macros(value: Any, statement: str) -> Any:
    if isinstance(value, str):
        return value.replace("{STATEMENT}", statement)
    if isinstance(value, list):
        return [_macros(v, statement) for v in value]
    if isinstance(value, dict):
        return {k: _macros(v, statement) for k, v in value.items()}
    return value


def _is_row(element: Any) -> bool:
    return isinstance(element, dict) and "row" in element


def unmatched_rows(expected: list[Any], actual: list[Any], matches: Callable[[Any, Any], bool]) -> list[Any]:
    """The expected rows left over by the best one-to-one matching with ``actual`` (a multiset comparison
    that an expected row matching several actual ones cannot fool: augmenting paths, as in bipartite
    matching)."""
    edges = [[k for k, a in enumerate(actual) if matches(e, a)] for e in expected]
    owner: dict[int, int] = {}

    def place(j: int, seen: set[int]) -> bool:
        for k in edges[j]:
            if k in seen:
                continue
            seen.add(k)
            if k not in owner or place(owner[k], seen):
                owner[k] = j
                return True
        return False

    placed = {j for j in range(len(expected)) if place(j, set())}
    return [e for j, e in enumerate(expected) if j not in placed]


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


def _show(v: Any, limit: int = 400) -> str:
    try:
        text = exactjson.dumps(v)
    except Exception:  # noqa: BLE001
        text = repr(v)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _subset_diff(expected: Any, actual: Any, path: str, exact_rows: bool = False) -> str | None:
    """Fields given in ``expected`` must match ``actual``; ``name|starts_with`` compares a prefix.
    Row ``columns`` compare exactly (values by compare.value_diff)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected an object, got {_show(actual)}"
        for k, ev in expected.items():
            if "|" in k:
                name, op = k.split("|", 1)
                av = actual.get(name)
                if op == "starts_with":
                    if not isinstance(av, str) or not av.startswith(str(ev)):
                        return f"{path}.{name}: {av!r} does not start with {ev!r}"
                    continue
                return f"{path}.{name}: unknown matcher {op}"
            if k not in actual:
                return f"{path}: missing {k!r} in {_show(actual)}"
            if k in ("columns", "tombstone") or not isinstance(ev, dict | list):
                d = value_diff(ev, actual[k], f"{path}.{k}")
                if d:
                    return f"{d} (actual {_show(actual)})"
            else:
                d = _subset_diff(ev, actual[k], f"{path}.{k}")
                if d:
                    return d
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{path}: expected {_show(expected)}, got {_show(actual)}"
        for j, (e, a) in enumerate(zip(expected, actual, strict=True)):
            d = _subset_diff(e, a, f"{path}[{j}]")
            if d:
                return d
        return None
    return value_diff(expected, actual, path)


# ---------------------------------------------------------------------------------------------- many cases


def run_rest(cases: list[Case], *, timeout_s: float = 60.0, progress: Callable[[int, int, CaseResult], None]
             | None = None, server_properties: dict[str, Any] | None = None) -> list[CaseResult]:
    """Run ``cases`` against one real server (restarted if a reset fails); results in case order."""
    from ksqlpy.schema_registry.http_server import RegistryServer

    results: list[CaseResult] = []
    # the runner owns the schema registry (over HTTP, as ksqlDB's tests own theirs): it reads what the server
    # registered and empties the subjects between cases, which a registry inside the server would not allow
    with tempfile.TemporaryDirectory(prefix="ksqlpy-rest-qtt-") as tmp, RegistryServer() as sr:
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
                    if runner is None:
                        n += 1
                        properties = {**SERVER_PROPERTIES, "ksql.schema.registry.url": sr.url,
                                      **(server_properties or {})}
                        server = ServerProcess(os.path.join(tmp, f"server{n}"),
                                               with_test_functions(properties)).start()
                        runner = RestRunner(server, timeout_s, registry=sr.registry)
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
