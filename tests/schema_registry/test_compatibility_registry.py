"""The compatibility rule where versions are registered: the embedded registry, its HTTP API and client, the
statements that register (C*AS sinks, CREATE OR REPLACE, INSERT VALUES), the sandbox, and the harness."""

from __future__ import annotations

import json
import urllib.request

import pytest

from ksqlpy.engine.engine import Engine
from ksqlpy.errors import KsqlStatementError
from ksqlpy.schema_registry import (
    COMPATIBILITY_PROPERTY,
    EmbeddedSchemaRegistry,
    HttpSchemaRegistry,
    SchemaRegistryError,
    open_registry,
)
from ksqlpy.schema_registry.compatibility import IncompatibleSchemaError, Level
from ksqlpy.schema_registry.http_server import RegistryServer

INT_A = json.dumps({"type": "record", "name": "R", "fields": [{"name": "A", "type": "int"}]})
STR_A = json.dumps({"type": "record", "name": "R", "fields": [{"name": "A", "type": "string"}]})
REQ_B = json.dumps({"type": "record", "name": "R", "fields": [{"name": "A", "type": "int"},
                                                              {"name": "B", "type": "int"}]})
REFUSED = 'Schema being registered is incompatible with an earlier schema for subject "{}"'


def test_embedded_registry_refuses_an_incompatible_version_under_backward() -> None:
    reg = EmbeddedSchemaRegistry(default_compatibility="BACKWARD")
    assert reg.compatibility() is Level.BACKWARD and reg.compatibility("s-value") is Level.BACKWARD
    first = reg.register("s-value", INT_A)
    with pytest.raises(IncompatibleSchemaError, match=REFUSED.format("s-value")):
        reg.register("s-value", STR_A)
    assert [v.id for v in reg.versions("s-value")] == [first]
    # another subject is unaffected; an earlier version is looked up, not checked
    assert reg.register("t-value", STR_A) != first
    reg.set_compatibility("NONE", "s-value")
    second = reg.register("s-value", STR_A)
    assert reg.register("s-value", INT_A) == first and len(reg.versions("s-value")) == 2 and second != first


def test_subject_level_beats_global_and_can_be_removed() -> None:
    reg = EmbeddedSchemaRegistry()
    reg.set_compatibility(Level.NONE)
    reg.set_compatibility("forward", "s-value")
    assert reg.compatibility("s-value") is Level.FORWARD and reg.compatibility("x") is Level.NONE
    reg.register("s-value", INT_A)
    reg.register("s-value", REQ_B)  # forward: the old schema ignores B
    with pytest.raises(IncompatibleSchemaError):
        reg.register("s-value", STR_A)
    reg.set_compatibility(None, "s-value")
    assert reg.subject_compatibility("s-value") is None and reg.compatibility("s-value") is Level.NONE


def test_levels_are_durable_and_the_property_sets_the_global_one(tmp_path) -> None:
    with Engine(str(tmp_path), {}) as e:
        e.schema_registry.set_compatibility("FULL", "a-value")
        e.schema_registry.set_compatibility("FORWARD")
    with Engine(str(tmp_path), {}) as e:
        assert e.schema_registry.compatibility("a-value") is Level.FULL
        assert e.schema_registry.compatibility() is Level.FORWARD
    with Engine(str(tmp_path), {COMPATIBILITY_PROPERTY: "none"}) as e:
        assert e.schema_registry.compatibility() is Level.NONE and e.schema_registry.compatibility("a-value") is Level.FULL
    assert open_registry({COMPATIBILITY_PROPERTY: "FULL_TRANSITIVE"}).compatibility() is Level.FULL_TRANSITIVE


def _http(url: str, method: str, body: object = None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_http_api_speaks_confluents_config_and_409() -> None:
    with RegistryServer() as srv:
        assert _http(f"{srv.url}/config", "GET") == (200, {"compatibilityLevel": "BACKWARD"})
        status, body = _http(f"{srv.url}/config/s-value", "GET")
        assert status == 404 and body["error_code"] == 40408
        assert _http(f"{srv.url}/config/s-value?defaultToGlobal=true", "GET") == (200, {"compatibilityLevel": "BACKWARD"})
        assert _http(f"{srv.url}/subjects/s-value/versions", "POST", {"schema": INT_A})[0] == 200
        status, body = _http(f"{srv.url}/subjects/s-value/versions", "POST", {"schema": STR_A})
        assert status == 409 and body["error_code"] == 409 and body["message"].startswith(REFUSED.format("s-value"))
        assert _http(f"{srv.url}/compatibility/subjects/s-value/versions/latest", "POST", {"schema": STR_A}) == (
            200, {"is_compatible": False})
        assert _http(f"{srv.url}/compatibility/subjects/s-value/versions/1", "POST", {"schema": INT_A}) == (
            200, {"is_compatible": True})
        assert _http(f"{srv.url}/config/s-value", "PUT", {"compatibility": "NONE"}) == (200, {"compatibility": "NONE"})
        assert _http(f"{srv.url}/config/s-value", "GET") == (200, {"compatibilityLevel": "NONE"})
        assert _http(f"{srv.url}/subjects/s-value/versions", "POST", {"schema": STR_A})[0] == 200
        assert _http(f"{srv.url}/config/s-value", "DELETE") == (200, {"compatibilityLevel": "NONE"})
        status, body = _http(f"{srv.url}/config", "PUT", {"compatibility": "SIDEWAYS"})
        assert status == 422 and body["error_code"] == 42203


def test_http_client_reads_the_refusal_as_confluents_client_does() -> None:
    with RegistryServer() as srv:
        client = HttpSchemaRegistry(srv.url)
        assert client.compatibility("s-value") is Level.BACKWARD
        client.register("s-value", INT_A)
        with pytest.raises(SchemaRegistryError) as info:
            client.register("s-value", STR_A)
        assert info.value.error_code == 409 and str(info.value).startswith(REFUSED.format("s-value"))
        assert str(info.value).endswith("; error code: 409")
        assert client.set_compatibility("NONE", "s-value") is Level.NONE
        assert client.compatibility("s-value") is Level.NONE and client.compatibility("other") is Level.BACKWARD
        client.register("s-value", STR_A)


FORMATS = ["AVRO", "PROTOBUF", "JSON_SR"]


def _engine(tmp_path, **props) -> Engine:
    """An engine whose registry checks as a real one does by default."""
    return Engine(str(tmp_path), {COMPATIBILITY_PROPERTY: "BACKWARD", **props})


@pytest.mark.parametrize("fmt", FORMATS)
def test_csas_into_a_subject_it_cannot_follow_is_refused(tmp_path, fmt: str) -> None:
    with _engine(tmp_path) as e:
        e.execute(f"CREATE STREAM I (K STRING KEY, A INT, B STRING) WITH (kafka_topic='i', partitions=1, format='{fmt}');")
        e.execute("CREATE STREAM O1 WITH (kafka_topic='o') AS SELECT K, A, B FROM I;")
        with pytest.raises(KsqlStatementError) as info:
            e.execute("CREATE STREAM O2 WITH (kafka_topic='o') AS SELECT K, B AS A FROM I;")
        assert str(info.value).startswith("Could not register schema for topic: " + REFUSED.format("o-value"))
        assert str(info.value).endswith("; error code: 409") and e.catalog.source("O2") is None
        # a compatible change is registered as the subject's next version (the key schema is unchanged)
        e.execute("CREATE STREAM O3 WITH (kafka_topic='o') AS SELECT K, CAST(A AS BIGINT) AS A, B FROM I;")
        assert len(e.schema_registry.versions("o-value")) == 2 and len(e.schema_registry.versions("o-key")) == 1


@pytest.mark.parametrize("fmt", FORMATS)
def test_key_schemas_are_checked_too(tmp_path, fmt: str) -> None:
    with _engine(tmp_path) as e:
        e.execute(f"CREATE STREAM I (K STRING KEY, N INT) WITH (kafka_topic='i', partitions=1, format='{fmt}');")
        e.execute("CREATE STREAM O1 WITH (kafka_topic='o') AS SELECT * FROM I;")
        with pytest.raises(KsqlStatementError, match=r'Could not register schema for topic: .*subject "o-key"'):
            e.execute("CREATE STREAM O2 WITH (kafka_topic='o') AS SELECT N, K AS V FROM I PARTITION BY N;")


@pytest.mark.parametrize(("fmt", "added_ok"), [("AVRO", True), ("PROTOBUF", True), ("JSON_SR", False)])
def test_create_or_replace_registers_under_the_rule(tmp_path, fmt: str, added_ok: bool) -> None:
    """ksqlDB's generated schemas: an AVRO field is optional with a default and a PROTOBUF field is new by its
    number, so a column added at the end follows BACKWARD; a JSON_SR object is an open content model, to which
    a registry refuses a new property."""
    with _engine(tmp_path) as e:
        e.execute(f"CREATE STREAM I (K STRING KEY, A INT) WITH (kafka_topic='i', partitions=1, format='{fmt}');")
        e.execute("CREATE STREAM O AS SELECT K, A FROM I;")
        replace = "CREATE OR REPLACE STREAM O AS SELECT K, A, A + 1 AS B FROM I;"
        if added_ok:
            e.execute(replace)
            assert len(e.schema_registry.versions("O-value")) == 2
        else:
            with pytest.raises(KsqlStatementError, match="PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"):
                e.execute(replace)
            e.schema_registry.set_compatibility("NONE", "O-value")
            e.execute(replace)


def test_plain_create_never_registers_over_an_existing_subject(tmp_path) -> None:
    with _engine(tmp_path) as e:
        e.schema_registry.register("t-value", INT_A)
        e.execute("CREATE STREAM S (A STRING) WITH (kafka_topic='t', partitions=1, value_format='AVRO');")
        assert len(e.schema_registry.versions("t-value")) == 1


def test_insert_values_registering_an_incompatible_schema_is_refused(tmp_path) -> None:
    with _engine(tmp_path) as e:
        e.schema_registry.register("t-value", INT_A)
        e.execute("CREATE STREAM S (A STRING) WITH (kafka_topic='t', partitions=1, value_format='AVRO');")
        with pytest.raises(KsqlStatementError, match=r"Failed to insert values into 'S'\. Could not serialize value: "
                                                     + REFUSED.format("t-value")):
            e.execute("INSERT INTO S (A) VALUES ('x');")


def test_the_sandbox_applies_the_rule_before_anything_runs(tmp_path) -> None:
    from ksqlpy.engine.sandbox import SandboxRegistry

    real = EmbeddedSchemaRegistry(default_compatibility="BACKWARD")
    real.register("o-value", INT_A)
    box = SandboxRegistry(real)
    with pytest.raises(IncompatibleSchemaError):
        box.register("o-value", STR_A)
    box.register("n-value", STR_A)
    with pytest.raises(IncompatibleSchemaError):  # its own registrations are earlier versions too
        box.register("n-value", INT_A)
    assert real.versions("n-value") == []


def test_an_engines_own_registry_registers_as_ksqldbs_mock_registry(tmp_path) -> None:
    """Unset, the embedded registry is where ksqlDB's ``mock://`` registry stands (ksqlDB's test harnesses
    run on it): no check. A registry served over HTTP starts at BACKWARD, as Confluent's."""
    with Engine(str(tmp_path), {}) as e:
        assert e.schema_registry.compatibility() is Level.NONE
        e.schema_registry.register("t-value", INT_A)
        e.schema_registry.register("t-value", STR_A)
        assert len(e.schema_registry.versions("t-value")) == 2
        e.execute("CREATE STREAM S (A INT) WITH (kafka_topic='s', partitions=1, value_format='AVRO');")
        e.execute("CREATE STREAM O WITH (kafka_topic='t') AS SELECT * FROM S;")
    with RegistryServer() as srv:
        assert srv.registry.compatibility() is Level.BACKWARD


def test_an_engine_on_a_registry_over_http_reports_its_refusal(tmp_path) -> None:
    """The registry at ``ksql.schema.registry.url`` applies its own level (BACKWARD): the statement reports the
    client's reading of the 409, as ksqlDB's SchemaRegisterInjector reports a RestClientException."""
    with RegistryServer() as srv, Engine(str(tmp_path), {"ksql.schema.registry.url": srv.url}) as e:
        e.execute("CREATE STREAM I (K STRING KEY, A INT, B STRING) WITH (kafka_topic='i', partitions=1, "
                  "format='AVRO');")
        e.execute("CREATE STREAM O1 WITH (kafka_topic='o') AS SELECT K, A FROM I;")
        with pytest.raises(KsqlStatementError) as info:
            e.execute("CREATE STREAM O2 WITH (kafka_topic='o') AS SELECT K, B AS A FROM I;")
        assert str(info.value).startswith("Could not register schema for topic: " + REFUSED.format("o-value"))
        assert str(info.value).endswith("; error code: 409")
        e.execute("CREATE STREAM P (A STRING) WITH (kafka_topic='p', partitions=1, value_format='AVRO');")
        srv.registry.set_compatibility("NONE", "p-value")
        srv.registry.register("p-value", INT_A)  # another writer's version: the insert's is not compatible
        srv.registry.set_compatibility(None, "p-value")
        with pytest.raises(KsqlStatementError, match=r"Failed to insert values into 'P'\. Could not serialize value: "
                                                     + REFUSED.format("p-value")):
            e.execute("INSERT INTO P (A) VALUES ('x');")
