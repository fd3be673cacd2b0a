"""A multi-statement ``/ksql`` request is validated as a whole before anything runs (against a sandbox that
keeps each statement's effects for the next); if a statement fails when it runs for real, the error lists
the entities of the statements that ran before it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from app_client import serving  # noqa: E402
from server_helpers import ksql

from ksqlpy.engine import Engine
from ksqlpy.engine.sandbox import Sandbox, validate
from ksqlpy.errors import KsqlError
from ksqlpy.grammar import ast as A
from ksqlpy.grammar import parse


def _names(c: httpx.Client, what: str) -> set[str]:
    return {x["name"] for x in ksql(c, f"SHOW {what};")[0][what.lower()]}


def _topics(c: httpx.Client) -> set[str]:
    return {t["name"] for t in ksql(c, "SHOW TOPICS;")[0]["topics"]}


@pytest.mark.parametrize("failing", [
    "CREATE STREAM {s}_C AS SELECT * FROM NOPE;",                     # unknown source
    "CREATE STREAM {s}_C AS SELECT NOPE FROM {s};",                   # unknown column of the new stream
    "CREATE TABLE {s}_C AS SELECT ID, COUNT(*) FROM {s};",            # aggregate without GROUP BY
    "INSERT INTO {s} (ID, V) VALUES ('x', 'y');",                     # a value of the wrong type
    "DROP STREAM {s};",                                               # a query created above reads it
    "CREATE STREAM {s} (ID INT KEY) WITH (kafka_topic='{t}', value_format='JSON');",  # exists already
    # the topic the request's first statement creates in the sandbox, at other counts
    "CREATE STREAM {s}_D (ID INT KEY) WITH (kafka_topic='{t}', partitions=3, value_format='JSON');",
    "CREATE STREAM {s}_D WITH (kafka_topic='{t}', partitions=2) AS SELECT * FROM {s};",
])
def test_a_later_failure_runs_nothing(client: Any, unique: Callable[[str], str], failing: str) -> None:
    s = unique("VAL")
    t = s.lower()
    sql = (f"CREATE STREAM {s} (ID INT KEY, V STRING) WITH (kafka_topic='{t}', partitions=1, value_format='JSON');"
           f" CREATE STREAM {s}_B AS SELECT * FROM {s}; " + failing.format(s=s, t=t))
    r = client.post("/ksql", json={"ksql": sql})
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["@type"] == "statement_error" and body["entities"] == []
    assert body["statementText"] == failing.format(s=s, t=t)
    assert not {s, f"{s}_B"} & _names(client, "STREAMS")
    assert not {t, f"{s}_B"} & _topics(client)
    assert not [q for q in ksql(client, "SHOW QUERIES;")[0]["queries"] if s in q["queryString"]]


@pytest.mark.parametrize("fmt", ["PROTOBUF", "PROTOBUF_NOSR"])
@pytest.mark.parametrize("side", ["key", "value"])
def test_a_value_no_serializer_writes_fails_the_request_before_anything_runs(
        client: Any, unique: Callable[[str], str], fmt: str, side: str) -> None:
    """The sandbox serializes an INSERT VALUES record as the real insert does (ksqlDB's RequestValidator runs
    InsertValuesExecutor against a sandboxed producer): a record its serializer refuses - here a NULL element
    of a protobuf repeated field, in the key or the value - fails the request with nothing run. (The
    serializer's own exception under the user error is no sandbox bug.)"""
    s = unique(f"SER{side[0]}{fmt[-4:]}")
    t = s.lower()
    key = "K ARRAY<INT> KEY" if side == "key" else "K INT KEY"
    key_value = "ARRAY[1, NULL]" if side == "key" else "1"
    failing = f"INSERT INTO {s} (K, A) VALUES ({key_value}, ARRAY[2, NULL]);" if side == "value" else \
        f"INSERT INTO {s} (K, A) VALUES ({key_value}, ARRAY[2]);"
    sql = (f"CREATE STREAM {s} ({key}, A ARRAY<INT>) WITH (kafka_topic='{t}', partitions=1, format='{fmt}'); "
           f"CREATE STREAM {s}_B AS SELECT * FROM {s}; " + failing)
    r = client.post("/ksql", json={"ksql": sql})
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["@type"] == "statement_error" and body["entities"] == [], body
    assert body["statementText"] == failing
    assert body["message"].startswith(f"Failed to insert values into '{s}'. Could not serialize {side}")
    assert not {s, f"{s}_B"} & _names(client, "STREAMS")
    assert not {t, f"{s}_B"} & _topics(client)


# a statement whose new topic has a count the broker refuses; {s} names the request's own sources, {b} the base's
_REFUSED_COUNTS = [
    ("CREATE STREAM {s}_N (ID INT KEY, V STRING) WITH (kafka_topic='{t}_n', partitions=0, value_format='JSON');",
     "{t}_n", "Number of partitions was set to an invalid non-positive value."),
    ("CREATE TABLE {s}_N (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='{t}_n', partitions=1, replicas=0, "
     "value_format='JSON');", "{t}_n", "Replication factor must be larger than 0, or -1 to use the default\n\tvalue."),
    ("CREATE SOURCE STREAM {s}_N (ID INT KEY, V STRING) WITH (kafka_topic='{t}_n', partitions=-2, "
     "value_format='JSON');", "{t}_n", "Number of partitions was set to an invalid non-positive value."),
    ("CREATE SOURCE TABLE {s}_N (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='{t}_n', partitions=1, "
     "replicas=-2, value_format='JSON');", "{t}_n",
     "Replication factor must be larger than 0, or -1 to use the default\n\tvalue."),
    ("CREATE STREAM {s}_N WITH (partitions=0) AS SELECT * FROM {b};", "{s}_N",
     "Number of partitions was set to an invalid non-positive value."),
    ("CREATE TABLE {s}_N WITH (kafka_topic='{t}_n', replicas=0) AS SELECT ID, COUNT(*) AS C FROM {b} GROUP BY ID;",
     "{t}_n", "Replication factor must be larger than 0, or -1 to use the default\n\tvalue."),
    ("CREATE STREAM {s}_N WITH (partitions=-5) AS SELECT * FROM {s}_A;", "{s}_N",
     "Number of partitions was set to an invalid non-positive value."),
]


@pytest.mark.parametrize("failing, topic, cause", _REFUSED_COUNTS)
def test_a_refused_topic_count_runs_nothing_of_the_request(client: Any, unique: Callable[[str], str], failing: str,
                                                           topic: str, cause: str) -> None:
    """A later statement whose new topic has a count the broker refuses fails the whole request before any of it
    runs: ksqlDB's sandboxed topic client asks the broker to validate each topic it would create
    (SandboxedKafkaTopicClient.createTopic -> validateCreateTopic, a createTopics with validateOnly; from memory),
    so the refusal comes from RequestValidator - a plain KsqlException: generic_error 40000, no statementText or
    entities. Nothing of the request ran: no CREATE, CREATE ... AS SELECT, INSERT INTO ... SELECT, INSERT VALUES,
    CREATE TYPE before it, no statement after it."""
    s = unique("CNT")
    t = s.lower()
    b = f"{s}_BASE"
    ksql(client, f"CREATE STREAM {b} (ID INT KEY, V STRING) WITH (kafka_topic='{t}_base', partitions=1, "
                 "value_format='JSON');")
    before = (_names(client, "STREAMS"), _names(client, "TABLES"), _topics(client),
              {q["id"] for q in ksql(client, "SHOW QUERIES;")[0]["queries"]})
    failing = failing.format(s=s, t=t, b=b)
    sql = (f"CREATE TYPE {s}_TY AS STRUCT<A INT>; "
           f"CREATE STREAM {s}_A (ID INT KEY, V STRING) WITH (kafka_topic='{t}_a', partitions=1, value_format='JSON'); "
           f"CREATE TABLE {s}_T (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='{t}_t', partitions=1, "
           "value_format='JSON'); "
           f"INSERT INTO {b} (ID, V) VALUES (1, 'x'); "
           f"CREATE STREAM {s}_C AS SELECT * FROM {b}; "
           f"CREATE TABLE {s}_G AS SELECT ID, COUNT(*) AS C FROM {b} GROUP BY ID; "
           f"INSERT INTO {s}_C SELECT * FROM {s}_A; "
           f"{failing} "
           f"CREATE STREAM {s}_Z (ID INT KEY) WITH (kafka_topic='{t}_z', partitions=1, value_format='JSON'); "
           "SHOW STREAMS;")
    r = client.post("/ksql", json={"ksql": sql})
    assert r.status_code == 400, r.text
    assert r.json() == {"@type": "generic_error", "error_code": 40000,
                        "message": f"Failed to guarantee existence of topic {topic.format(s=s, t=t)}\n"
                                   f"Caused by: {cause}"}
    after = (_names(client, "STREAMS"), _names(client, "TABLES"), _topics(client),
             {q["id"] for q in ksql(client, "SHOW QUERIES;")[0]["queries"]})
    assert after == before
    assert f"{s}_TY" not in ksql(client, "SHOW TYPES;")[0]["types"]
    rows = client.post("/query-stream", json={"sql": f"SELECT * FROM {b};"}).text.strip().splitlines()
    assert len(rows) == 1, rows  # the header only: the INSERT VALUES wrote nothing
    # the same statements without the refused one run, each with its entity
    body = ksql(client, sql.replace(failing + " ", ""))
    assert [e["@type"] for e in body] == ["currentStatus"] * 7 + ["streams"]


@pytest.mark.parametrize("assertion", ["ASSERT TOPIC {t}_absent TIMEOUT 0 SECONDS;",
                                       "ASSERT NOT EXISTS TOPIC {t} TIMEOUT 0 SECONDS;",
                                       "ASSERT SCHEMA SUBJECT '{t}-nothing' TIMEOUT 0 SECONDS;"])
def test_an_assertion_is_checked_when_it_runs(client: Any, unique: Callable[[str], str], assertion: str) -> None:
    """ASSERT TOPIC/SCHEMA is not validated with the request (ksqlDB's CustomValidators: NO_VALIDATION - it
    may wait for its timeout): the statements before a failing assertion have run. Its 417 is a plain error
    (a KsqlRestException, which KsqlResource passes on as it is), so it lists nothing."""
    s = unique("ASRT")
    t = s.lower()
    failing = assertion.format(t=t)
    r = client.post("/ksql", json={"ksql": f"CREATE STREAM {s} (ID INT KEY, V STRING) WITH (kafka_topic='{t}', "
                                           f"partitions=1, value_format='JSON'); {failing}"})
    assert r.status_code == 417, r.text
    body = r.json()
    assert body["@type"] == "generic_error" and body["error_code"] == 41700 and "entities" not in body, body
    assert s in _names(client, "STREAMS")


@pytest.mark.parametrize("failing, message", [
    ("DESCRIBE {s}_NOPE;", "Could not find STREAM/TABLE '{s}_NOPE' in the Metastore"),
    ("DESCRIBE {s}_NOPE EXTENDED;", "Could not find STREAM/TABLE '{s}_NOPE' in the Metastore"),
    ("EXPLAIN {s}_NOPE_1;", "Query with id:{s}_NOPE_1 does not exist, use SHOW QUERIES to view the full set of "
                            "queries."),
    ("EXPLAIN SELECT * FROM {s}_NOPE EMIT CHANGES;", "{s}_NOPE does not exist."),
    ("DESCRIBE FUNCTION {s}_NOPE;", "Can't find any functions with the name '{s}_NOPE'"),
])
def test_a_listing_is_checked_when_it_runs(client: Any, unique: Callable[[str], str], failing: str,
                                           message: str) -> None:
    """SHOW/LIST, DESCRIBE and EXPLAIN are not validated with the request (ksqlDB's CustomValidators: SHOW_COLUMNS,
    DESCRIBE_FUNCTION, EXPLAIN, LIST_* are NO_VALIDATION, from memory): the statements before a failing one run,
    and its error lists their entities."""
    s = unique("LSTV")
    t = s.lower()
    failing = failing.format(s=s)
    r = client.post("/ksql", json={"ksql": f"CREATE STREAM {s} (ID INT KEY, V STRING) WITH (kafka_topic='{t}', "
                                           f"partitions=1, value_format='JSON'); "
                                           f"CREATE STREAM {s}_B AS SELECT * FROM {s}; {failing}"})
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["@type"] == "statement_error" and body["statementText"] == failing, body
    assert message.format(s=s) in body["message"]
    assert [e["@type"] for e in body["entities"]] == ["currentStatus", "currentStatus"], body
    assert {s, f"{s}_B"} <= _names(client, "STREAMS")


def test_earlier_statements_are_visible_to_later_ones(client: Any, unique: Callable[[str], str]) -> None:
    s = unique("VIS")
    body = ksql(client, f"CREATE TYPE {s}_T AS STRUCT<A INT>; "
                        f"CREATE STREAM {s} (ID INT KEY, V {s}_T) WITH (kafka_topic='{s.lower()}', partitions=2, "
                        "value_format='JSON'); "
                        f"INSERT INTO {s} (ID, V) VALUES (1, STRUCT(A := 5)); "
                        f"ALTER STREAM {s} ADD COLUMN W STRING; "
                        f"CREATE STREAM {s}_B AS SELECT ID, V->A AS A, W FROM {s}; "
                        f"CREATE TABLE {s}_C AS SELECT ID, COUNT(*) AS N FROM {s}_B GROUP BY ID; "
                        f"DESCRIBE {s}_C;")
    assert [e["@type"] for e in body] == ["currentStatus"] * 5 + ["sourceDescription"]  # INSERT yields none
    assert [f["name"] for f in body[-1]["sourceDescription"]["fields"]] == ["ID", "N"]
    assert {s, f"{s}_B"} <= _names(client, "STREAMS") and f"{s}_C" in _names(client, "TABLES")


def test_set_applies_to_the_statements_after_it_in_the_sandbox_too(client: Any, unique: Callable[[str], str]) -> None:
    s = unique("SETV")
    r = client.post("/ksql", json={"ksql": f"CREATE STREAM {s} (ID INT KEY, V STRING) WITH (kafka_topic='{s.lower()}', "
                                           "partitions=1, value_format='JSON'); "
                                           "SET 'ksql.lambdas.enabled'='false'; "
                                           f"CREATE STREAM {s}_L AS SELECT ID, TRANSFORM(ARRAY[1], x => x + 1) A "
                                           f"FROM {s};"})
    assert r.status_code == 400 and s not in _names(client, "STREAMS")


def test_an_execution_failure_lists_what_ran(tmp_path: Any, monkeypatch: Any) -> None:
    """Validation passed and the third statement fails when it runs: the error lists the two that ran."""
    import warnings

    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")

    from ksqlpy.server import ksql as K
    from ksqlpy.server.app import create_app
    from ksqlpy.server.config import build_config
    from ksqlpy.server.errors import ServerError

    real = K.run_statement

    def failing(ctx: Any, stmt: Any, props: Any) -> Any:
        if stmt.text.startswith("CREATE STREAM C"):
            raise ServerError(40001, "the command topic could not be written", stmt.text)
        return real(ctx, stmt, props)

    monkeypatch.setattr(K, "run_statement", failing)
    config = build_config(data_dir=str(tmp_path), overrides={"ksql.logging.processing.stream.auto.create": "false"})
    with serving(create_app(config)) as c:
        r = c.post("/ksql", json={"ksql": "CREATE STREAM A (ID INT KEY, V INT) WITH (kafka_topic='a', partitions=1, "
                                          "value_format='JSON'); SHOW STREAMS; "
                                          "CREATE STREAM C AS SELECT * FROM A; SHOW TOPICS;"})
        assert r.status_code == 400
        body = r.json()
        assert body["statementText"] == "CREATE STREAM C AS SELECT * FROM A;"
        assert [e["@type"] for e in body["entities"]] == ["currentStatus", "streams"], body
        assert body["entities"][0]["commandStatus"]["message"] == "Stream created"
        assert "A" in {x["name"] for x in c.post("/ksql", json={"ksql": "SHOW STREAMS;"}).json()[0]["streams"]}


def test_a_sandbox_bug_does_not_refuse_the_request(tmp_path: Any, monkeypatch: Any) -> None:
    """A statement the sandbox fails on unexpectedly (a bug of the stand-in, not a user error) does not refuse
    the request: it runs; a user error before it still refuses the request with nothing run."""
    import warnings

    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")

    from ksqlpy.engine import metadata_statements as M
    from ksqlpy.engine import statements as S
    from ksqlpy.server.app import create_app
    from ksqlpy.server.config import build_config

    real = M.show

    def broken_in_sandbox(engine: Any, stmt: Any) -> Any:
        if getattr(engine, "sandbox", False):
            raise AttributeError("the stand-in lacks something")
        return real(engine, stmt)

    monkeypatch.setitem(S.HANDLERS, A.Show, broken_in_sandbox)
    config = build_config(data_dir=str(tmp_path), overrides={"ksql.logging.processing.stream.auto.create": "false"})
    with serving(create_app(config)) as c:
        r = c.post("/ksql", json={"ksql": "CREATE STREAM A (ID INT KEY, V INT) WITH (kafka_topic='a', partitions=1, "
                                          "value_format='JSON'); SHOW STREAMS;"})
        assert r.status_code == 200, r.text
        assert [e["@type"] for e in r.json()] == ["currentStatus", "streams"]
        r = c.post("/ksql", json={"ksql": "CREATE STREAM B AS SELECT * FROM A; DROP STREAM NOPE; SHOW STREAMS;"})
        assert r.status_code == 400 and r.json()["statementText"] == "DROP STREAM NOPE;"
        assert "B" not in {x["name"] for x in c.post("/ksql", json={"ksql": "SHOW STREAMS;"}).json()[0]["streams"]}


# ---------------------------------------------------------------------------------------------- the sandbox
@pytest.fixture
def engine(tmp_path: Any) -> Any:
    e = Engine(str(tmp_path))
    yield e
    e.close()


def test_the_sandbox_leaves_the_engine_untouched(engine: Any) -> None:
    engine.execute("CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='s', partitions=1, value_format='JSON');"
                   "CREATE STREAM S2 AS SELECT * FROM S;")
    before = ({s.name: list(s.columns) for s in engine.catalog.sources()}, set(engine.queries),
              {t.name for t in engine.log.list_topics()}, engine.query_counter)
    statements = parse("CREATE STREAM S3 (ID INT KEY) WITH (kafka_topic='s3', partitions=4, value_format='JSON');"
                       "ALTER STREAM S ADD COLUMN W INT; CREATE TABLE T AS SELECT ID, COUNT(*) AS N FROM S3 GROUP BY ID;"
                       "PAUSE ALL; TERMINATE ALL; DROP STREAM S2 DELETE TOPIC; DROP STREAM S DELETE TOPIC;"
                       "INSERT INTO S3 (ID) VALUES (1); CREATE TYPE X AS INT;", None)
    validate(engine, statements, {})
    after = ({s.name: list(s.columns) for s in engine.catalog.sources()}, set(engine.queries),
             {t.name for t in engine.log.list_topics()}, engine.query_counter)
    assert after == before
    assert all(q.state == "RUNNING" for q in engine.queries.values())
    assert engine.catalog.type("X") is None
    assert engine.log.end_offset("s3", 0) == 0 if engine.log.topic_exists("s3") else True


def test_the_sandbox_reports_the_failing_statement(engine: Any) -> None:
    statements = parse("CREATE STREAM S (ID INT KEY) WITH (kafka_topic='s', partitions=1, value_format='JSON');"
                       "CREATE STREAM S (ID INT KEY) WITH (kafka_topic='s', partitions=1, value_format='JSON');", None)
    with pytest.raises(KsqlError) as e:
        validate(engine, statements, {})
    assert e.value.sandbox_statement is statements[1]  # type: ignore[attr-defined]
    assert engine.catalog.source("S") is None and not engine.log.topic_exists("s")


def test_a_sandbox_sees_its_own_topics_and_schemas(engine: Any) -> None:
    box = Sandbox(engine)
    box.log.create_topic("fresh", 3)
    assert box.log.describe_topic("fresh").partitions == 3 and not engine.log.topic_exists("fresh")
    sid = box.schema_registry.register("fresh-value", '{"type":"string"}')
    assert box.schema_registry.by_id(sid).schema == '{"type":"string"}'
    assert box.schema_registry.latest("fresh-value").version == 1
    assert engine.schema_registry.latest("fresh-value") is None


@pytest.mark.parametrize("fmt", ["AVRO", "PROTOBUF", "JSON_SR", "JSON"])
def test_schema_registry_formats_are_validated_against_the_sandboxs_schemas(engine: Any, fmt: str) -> None:
    """Serdes built in the sandbox register and read schemas in the sandbox's registry: a join of two tables
    in a schema-registry format validates, and nothing reaches the engine's registry or topics."""
    statements = parse(
        f"CREATE TABLE L (ID BIGINT PRIMARY KEY, NAME STRING) WITH (kafka_topic='l', partitions=1, value_format='{fmt}');"
        f"CREATE TABLE R (ID BIGINT PRIMARY KEY, F1 STRING) WITH (kafka_topic='r', partitions=1, value_format='{fmt}');"
        "CREATE TABLE J AS SELECT L.ID, NAME, F1 FROM L JOIN R ON L.ID = R.ID;", None)
    validate(engine, statements, {})
    assert engine.catalog.source("J") is None and not engine.log.topic_exists("J")
    assert engine.schema_registry is None or engine.schema_registry.latest("J-value") is None


# every metadata statement a request may hold, after a statement that engages the sandbox
_METADATA = ["DESCRIBE S EXTENDED;", "DESCRIBE S2 EXTENDED;", "DESCRIBE STREAMS EXTENDED;", "SHOW STREAMS EXTENDED;",
             "LIST TABLES EXTENDED;", "SHOW QUERIES;", "SHOW QUERIES EXTENDED;", "EXPLAIN {qid};",
             "EXPLAIN SELECT * FROM S EMIT CHANGES;", "EXPLAIN CREATE STREAM S9 AS SELECT * FROM S;",
             "SHOW TOPICS EXTENDED;", "SHOW ALL TOPICS;", "DESCRIBE FUNCTION SUM;", "SHOW FUNCTIONS;",
             "SHOW PROPERTIES;", "SHOW TYPES;", "SHOW VARIABLES;", "DESCRIBE S;"]


@pytest.mark.parametrize("stmt", _METADATA)
def test_metadata_statements_validate_in_the_sandbox(engine: Any, stmt: str) -> None:
    """The sandbox's stand-in queries run nothing: DESCRIBE EXTENDED (statistics), SHOW QUERIES EXTENDED and
    EXPLAIN of a running query (topology, tasks) validate there without failing (they raised AttributeError,
    answered as 'failed unexpectedly'), before and after a statement of the same request made a query."""
    engine.execute("CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='s', partitions=1, value_format='JSON');"
                   "CREATE STREAM S2 AS SELECT * FROM S;")
    qid = next(iter(engine.queries))
    text = stmt.format(qid=qid)
    validate(engine, parse(f"CREATE STREAM S3 AS SELECT * FROM S; {text} CREATE STREAM S4 AS SELECT * FROM S3; {text}",
                           None), {})
    # not validated (NO_VALIDATION in ksqlDB): EXPLAIN of an unknown query fails when it runs, not here ...
    validate(engine, parse("CREATE STREAM S3 AS SELECT * FROM S; EXPLAIN NOPE; DESCRIBE NOPE;", None), {})
    # ... while a statement that is validated still fails the request after it
    with pytest.raises(KsqlError, match="does not exist"):
        validate(engine, parse("CREATE STREAM S3 AS SELECT * FROM S; EXPLAIN NOPE; DROP STREAM NOPE;", None), {})


def test_create_or_replace_of_a_query_validates_in_the_sandbox(engine: Any) -> None:
    """CREATE OR REPLACE of a CREATE ... AS SELECT stops the old query without cleanup; the sandbox took no
    ``cleanup`` argument, so a request upgrading a query failed 'unexpectedly' (TypeError)."""
    engine.execute("CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', partitions=1, value_format='JSON');"
                   "CREATE STREAM S2 AS SELECT * FROM S;")
    validate(engine, parse("CREATE STREAM S3 AS SELECT * FROM S;"
                           "CREATE OR REPLACE STREAM S2 AS SELECT ID, V + 1 AS V FROM S;"
                           "CREATE OR REPLACE STREAM S3 AS SELECT ID, V + 2 AS V FROM S;", None), {})
    assert set(engine.catalog.queries_writing("S2")) == set(engine.queries)


def test_concurrent_requests_racing_for_one_name(client: Any, unique: Callable[[str], str]) -> None:
    """Requests validated at the same time, each in its own sandbox, then run one statement at a time: of the
    ones creating the same name only the first to run it succeeds. Each other one fails there: in validation
    when the name was taken before its sandbox looked (nothing of it runs, entities []), else when it runs -
    after its earlier statements ran, so its error lists them. Every command has its own sequence number,
    every query its own id, and what a request's answer says ran is there."""
    s = unique("RACE")
    shared = f"{s}_SAME"

    def request(i: int) -> str:
        return (f"CREATE STREAM {s}_{i} (ID INT KEY, V STRING) WITH (kafka_topic='{s.lower()}_{i}', partitions=1, "
                f"value_format='JSON'); CREATE STREAM {s}_{i}_B AS SELECT * FROM {s}_{i}; "
                f"CREATE STREAM {shared} (ID INT KEY, V STRING) WITH (kafka_topic='{s.lower()}_same', partitions=1, "
                "value_format='JSON');")

    results: dict[int, Any] = {}

    def run(i: int) -> None:
        r = client.post("/ksql", json={"ksql": request(i)})
        results[i] = (r.status_code, r.json())

    threads = [threading.Thread(target=run, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    won = [i for i, (status, _) in results.items() if status == 200]
    assert len(won) == 1 and len(results) == 6, results
    streams = _names(client, "STREAMS")
    statuses = list(results[won[0]][1])
    for i, (status, body) in results.items():
        if i in won:
            continue
        assert status == 400 and body["@type"] == "statement_error", body
        assert body["statementText"].startswith(f"CREATE STREAM {shared} ")
        assert body["message"] == f"Cannot add stream '{shared}': A stream with the same name already exists"
        ran = body["entities"]
        if ran:  # failed when it ran: its first two statements had run
            assert [e["commandStatus"]["message"] for e in ran] == [
                "Stream created", f"Created query with ID {ran[1]['commandStatus']['queryId']}"]
            assert {f"{s}_{i}", f"{s}_{i}_B"} <= streams
        else:  # failed in validation: nothing of it ran
            assert not {f"{s}_{i}", f"{s}_{i}_B"} & streams
        statuses += ran
    numbers = [e["commandSequenceNumber"] for e in statuses]
    assert len(set(numbers)) == len(numbers)
    ids = [e["commandStatus"]["queryId"] for e in statuses if e["commandStatus"]["queryId"]]
    assert len(set(ids)) == len(ids) == len(statuses) // 2
    assert shared in streams
    assert set(ids) <= {q["id"] for q in ksql(client, "SHOW QUERIES;")[0]["queries"]}
