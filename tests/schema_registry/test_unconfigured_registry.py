"""No schema registry configured (``ksql.schema.registry.url`` set empty): every statement that needs one -
for a key or a value in AVRO, PROTOBUF or JSON_SR, through KEY_FORMAT, VALUE_FORMAT or FORMAT - is refused
with ksqlDB's KsqlSchemaRegistryNotConfiguredException (HTTP 428, error code 42801), before its topic is
created; other formats (PROTOBUF_NOSR included) are not affected. Unset, the URL means the embedded
registry: ksqlpy's default start-up counts as configured."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest
from app_client import serving
from statement_errors import raised

from ksqlpy.engine.engine import Engine
from ksqlpy.errors import KsqlSchemaRegistryUnconfigured, KsqlStatementError
from ksqlpy.schema_registry import (
    EmbeddedSchemaRegistry,
    HttpSchemaRegistry,
    UnconfiguredSchemaRegistry,
    open_registry,
)

SR = ["AVRO", "PROTOBUF", "JSON_SR"]
CREATE_TOPIC = "Cannot create topic '{topic}' with format {fmt} without configuring 'ksql.schema.registry.url'"
NOT_CONFIGURED = ("KSQL is not configured to use a schema registry. To enable it, please set "
                  "ksql.schema.registry.url")


@pytest.fixture
def engine(tmp_path) -> Iterator[Engine]:  # type: ignore[no-untyped-def]
    with Engine(str(tmp_path), {"ksql.schema.registry.url": ""}) as e:
        e.execute("CREATE STREAM J (ID INT KEY, V INT) WITH (kafka_topic='j', partitions=1, format='JSON');")
        yield e


def refused(engine: Engine, sql: str) -> str:
    got = raised(engine, sql, KsqlSchemaRegistryUnconfigured)
    assert got.error_code == 42801
    return got.message


@pytest.mark.parametrize("fmt", SR)
@pytest.mark.parametrize("kind", ["STREAM", "TABLE"])
@pytest.mark.parametrize("which", ["FORMAT", "KEY_FORMAT", "VALUE_FORMAT"])
def test_create_with_columns(engine: Engine, fmt: str, kind: str, which: str) -> None:
    key = "PRIMARY KEY" if kind == "TABLE" else "KEY"
    other = "" if which == "FORMAT" else (", value_format='JSON'" if which == "KEY_FORMAT" else "")
    sql = (f"CREATE {kind} S (ID INT {key}, V INT) WITH (kafka_topic='t_{fmt.lower()}', partitions=1, "
           f"{which}='{fmt}'{other});")
    assert refused(engine, sql) == CREATE_TOPIC.format(topic=f"t_{fmt.lower()}", fmt=fmt)
    assert engine.catalog.source("S") is None
    assert not engine.log.topic_exists(f"t_{fmt.lower()}")  # refused before the topic was created


@pytest.mark.parametrize("fmt", SR)
@pytest.mark.parametrize("kind", ["STREAM", "TABLE"])
def test_create_without_columns_asks_the_registry(engine: Engine, fmt: str, kind: str) -> None:
    engine.log.create_topic("inferred", 1)
    sql = f"CREATE {kind} S WITH (kafka_topic='inferred', key_format='KAFKA', value_format='{fmt}');"
    assert refused(engine, sql) == NOT_CONFIGURED


@pytest.mark.parametrize("fmt", SR)
def test_create_with_a_schema_id(engine: Engine, fmt: str) -> None:
    engine.log.create_topic("by_id", 1)
    sql = f"CREATE STREAM S WITH (kafka_topic='by_id', value_format='{fmt}', value_schema_id=1);"
    assert refused(engine, sql) == NOT_CONFIGURED


@pytest.mark.parametrize("fmt", SR)
def test_create_as_select(engine: Engine, fmt: str) -> None:
    assert refused(engine, f"CREATE STREAM S WITH (value_format='{fmt}') AS SELECT * FROM J;") == \
        CREATE_TOPIC.format(topic="S", fmt=fmt)
    assert refused(engine, f"CREATE TABLE T WITH (key_format='{fmt}', value_format='JSON') AS "
                           "SELECT ID, COUNT(*) AS C FROM J GROUP BY ID;") == CREATE_TOPIC.format(topic="T", fmt=fmt)
    assert refused(engine, f"CREATE STREAM K WITH (format='{fmt}') AS SELECT * FROM J PARTITION BY V;") == \
        CREATE_TOPIC.format(topic="K", fmt=fmt)
    assert engine.catalog.source("S") is None and not engine.queries
    assert not any(engine.log.topic_exists(t) for t in ("S", "T", "K"))  # refused before its topic was created


COUNTS = ("A Kafka topic with the name '{topic}' already exists, with different partition/replica configuration "
          "than required. KSQL expects {want} partitions (topic has {has}), 1 replication factor (topic has 1).")


@pytest.mark.parametrize("fmt", SR)
@pytest.mark.parametrize("which", ["FORMAT", "KEY_FORMAT", "VALUE_FORMAT"])
def test_create_as_select_topic_counts_come_before_the_registry(engine: Engine, fmt: str, which: str) -> None:
    """ksqlDB's Injectors run the TopicCreateInjector before the SchemaRegisterInjector: a sink topic at other
    counts than the C*AS expects is the error, whatever the registry; the counts right, the registry's."""
    other = "" if which == "FORMAT" else (", value_format='JSON'" if which == "KEY_FORMAT" else "")
    engine.log.create_topic("wide", 3)
    for kind, select in (("STREAM", "SELECT * FROM J"), ("TABLE", "SELECT ID, COUNT(*) AS C FROM J GROUP BY ID")):
        sql = f"CREATE {kind} W_{kind} WITH (kafka_topic='wide', {which}='{fmt}'{other}) AS {select};"
        with pytest.raises(KsqlStatementError) as got:
            engine.execute(sql)
        assert got.value.message == COUNTS.format(topic="wide", want=1, has=3)
        sql = f"CREATE {kind} W_{kind} WITH (kafka_topic='wide', partitions=3, {which}='{fmt}'{other}) AS {select};"
        assert refused(engine, sql) == CREATE_TOPIC.format(topic="wide", fmt=fmt)
    assert not engine.queries


@pytest.mark.parametrize("fmt", SR)
@pytest.mark.parametrize("kind", ["STREAM", "TABLE"])
def test_create_topic_checks_come_before_the_registry(engine: Engine, fmt: str, kind: str) -> None:
    """A plain CREATE with columns: a missing topic without PARTITIONS, or an existing one at other counts, is
    the TopicCreateInjector's error before the SchemaRegisterInjector's."""
    key = "PRIMARY KEY" if kind == "TABLE" else "KEY"
    with pytest.raises(KsqlStatementError) as got:
        engine.execute(f"CREATE {kind} S (ID INT {key}, V INT) WITH (kafka_topic='missing', format='{fmt}');")
    assert got.value.message.startswith("Topic 'missing' does not exist. If you want to create a new topic")
    engine.log.create_topic("two", 2)
    with pytest.raises(KsqlStatementError) as got:
        engine.execute(f"CREATE {kind} S (ID INT {key}, V INT) WITH (kafka_topic='two', partitions=4, format='{fmt}');")
    assert got.value.message == COUNTS.format(topic="two", want=4, has=2)
    assert refused(engine, f"CREATE {kind} S (ID INT {key}, V INT) WITH (kafka_topic='two', format='{fmt}');") == \
        CREATE_TOPIC.format(topic="two", fmt=fmt)
    assert engine.catalog.source("S") is None and not engine.log.topic_exists("missing")


def test_assert_schema_needs_a_registry(engine: Engine) -> None:
    assert refused(engine, "ASSERT SCHEMA SUBJECT 'x' TIMEOUT 0 SECONDS;") == NOT_CONFIGURED


@pytest.mark.parametrize("fmt", ["JSON", "DELIMITED", "KAFKA", "PROTOBUF_NOSR"])
def test_other_formats_need_no_registry(engine: Engine, fmt: str) -> None:
    value = "V INT" if fmt != "KAFKA" else "V INT"
    engine.execute(f"CREATE STREAM S_{fmt} (ID INT KEY, {value}) WITH (kafka_topic='o_{fmt.lower()}', "
                   f"partitions=1, format='{fmt}');")
    engine.execute(f"INSERT INTO S_{fmt} (ID, V) VALUES (1, 2);")
    engine.execute(f"CREATE STREAM C_{fmt} AS SELECT * FROM S_{fmt};")
    assert engine.catalog.source(f"C_{fmt}") is not None


def test_a_keyless_stream_never_needs_a_key_registry(engine: Engine) -> None:
    """A key format only matters with key columns: no key columns, no key schema to register."""
    engine.execute("CREATE STREAM NK (V INT) WITH (kafka_topic='nk', partitions=1, value_format='JSON');")
    engine.execute("CREATE STREAM NK2 AS SELECT * FROM NK;")


@pytest.mark.parametrize(("url", "kind"), [
    (None, EmbeddedSchemaRegistry), ("embedded", EmbeddedSchemaRegistry), ("mock://x", EmbeddedSchemaRegistry),
    ("", UnconfiguredSchemaRegistry), ("  ", UnconfiguredSchemaRegistry),
    ("http://localhost:1", HttpSchemaRegistry),
])
def test_which_registry_the_url_configures(url: str | None, kind: type) -> None:
    props = {} if url is None else {"ksql.schema.registry.url": url}
    assert isinstance(open_registry(props), kind)


def test_the_default_start_up_is_configured(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with Engine(str(tmp_path), {}) as e:
        e.execute("CREATE STREAM A (ID INT KEY, V INT) WITH (kafka_topic='a', partitions=1, format='AVRO');")
        assert e.schema_registry.latest("a-value") is not None


# ---------------------------------------------------------------------------------------------- over REST
pytest.importorskip("fastapi")
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")


@pytest.fixture(scope="module")
def rest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:

    from ksqlpy.server.app import create_app
    from ksqlpy.server.config import build_config

    config = build_config(data_dir=str(tmp_path_factory.mktemp("nosr")),
                          overrides={"ksql.logging.processing.stream.auto.create": "false",
                                     "ksql.schema.registry.url": ""})
    with serving(create_app(config)) as c:
        c.post("/ksql", json={"ksql": "CREATE STREAM RJ (ID INT KEY, V INT) WITH (kafka_topic='rj', partitions=1, "
                                      "format='JSON');"})
        yield c


@pytest.mark.parametrize(("sql", "message"), [
    ("CREATE STREAM RA (ID INT KEY, V INT) WITH (kafka_topic='ra', partitions=1, value_format='AVRO');",
     CREATE_TOPIC.format(topic="ra", fmt="AVRO")),
    ("CREATE TABLE RT (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='rt', partitions=1, format='PROTOBUF');",
     CREATE_TOPIC.format(topic="rt", fmt="PROTOBUF")),
    ("CREATE STREAM RS WITH (key_format='JSON_SR', value_format='JSON') AS SELECT * FROM RJ;",
     CREATE_TOPIC.format(topic="RS", fmt="JSON_SR")),
    ("CREATE STREAM RI WITH (kafka_topic='rj', value_format='AVRO');", NOT_CONFIGURED),
    # a multi-statement request: validated as a whole, so the first statement does not run either
    ("CREATE STREAM OK1 (ID INT KEY, V INT) WITH (kafka_topic='ok1', partitions=1, format='JSON'); "
     "CREATE STREAM RB WITH (value_format='AVRO') AS SELECT * FROM OK1;", CREATE_TOPIC.format(topic="RB", fmt="AVRO")),
])
def test_rest_answers_428(rest, sql: str, message: str) -> None:  # type: ignore[no-untyped-def]
    r = rest.post("/ksql", json={"ksql": sql})  # type: ignore[attr-defined]
    assert r.status_code == 428, r.text
    assert r.json() == {"@type": "generic_error", "error_code": 42801, "message": message}
    listed = rest.post("/ksql", json={"ksql": "SHOW STREAMS;"}).json()[0]["streams"]  # type: ignore[attr-defined]
    assert [s["name"] for s in listed] == ["RJ"]  # nothing of the request ran


def test_query_endpoints_over_other_formats(rest) -> None:  # type: ignore[no-untyped-def]
    """Reading a JSON source needs no registry on any query endpoint."""
    assert rest.post("/ksql", json={"ksql": "INSERT INTO RJ (ID, V) VALUES (1, 2);"}).status_code == 200  # type: ignore[attr-defined]
    r = rest.post("/query-stream", json={"sql": "SELECT * FROM RJ;"})  # type: ignore[attr-defined]
    assert r.status_code == 200 and "[1,2]" in r.text
