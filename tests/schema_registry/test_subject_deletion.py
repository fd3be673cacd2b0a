"""Subject deletion as Confluent's registry does it: soft first (versions hidden, numbers and ids kept),
then permanent (versions and unheld ids forgotten), over the embedded registry, its HTTP API, a restart,
and the engine's statements (DROP ... DELETE TOPIC soft; TERMINATE's internal subjects for good)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from ksqlpy.engine.engine import Engine
from ksqlpy.schema_registry import EmbeddedSchemaRegistry, HttpSchemaRegistry, NotSoftDeletedError
from ksqlpy.schema_registry.http_server import RegistryServer

A, B, C = '"string"', '"long"', '"int"'


def test_soft_delete_hides_versions_but_keeps_their_numbers_and_ids() -> None:
    reg = EmbeddedSchemaRegistry()
    a, b = reg.register("s-value", A), reg.register("s-value", B)
    assert reg.delete_subject("s-value") == [1, 2]
    assert reg.latest("s-value") is None and reg.versions("s-value") == [] and reg.subjects() == []
    assert reg.subjects(include_deleted=True) == ["s-value"]
    assert reg.by_id(a).schema == A and reg.by_id(b).schema == B  # still readable by id
    assert reg.delete_subject("s-value") == []  # nothing live is left to delete softly
    c = reg.register("s-value", C)
    assert reg.latest("s-value").version == 3 and c not in (a, b)
    assert [v.version for v in reg.versions("s-value", include_deleted=True)] == [1, 2, 3]


def test_a_soft_deleted_schema_registered_again_keeps_its_id_under_a_new_version() -> None:
    reg = EmbeddedSchemaRegistry()
    a = reg.register("s-value", A)
    reg.register("s-value", B)
    reg.delete_subject("s-value")
    assert reg.register("s-value", A) == a
    latest = reg.latest("s-value")
    assert (latest.id, latest.version) == (a, 3)
    # the deleted version that the new one repeats is gone; the other stays soft-deleted
    assert [(v.version, v.schema) for v in reg.versions("s-value", include_deleted=True)] == [(2, B), (3, A)]


def test_permanent_delete_needs_a_soft_delete_first_and_forgets_the_ids() -> None:
    reg = EmbeddedSchemaRegistry()
    a = reg.register("p-value", A)
    with pytest.raises(NotSoftDeletedError, match="Subject 'p-value' was not deleted first") as e:
        reg.delete_subject("p-value", permanent=True)
    assert e.value.error_code == 40405 and reg.latest("p-value").id == a
    assert reg.delete_subject("p-value") == [1] and reg.delete_subject("p-value", permanent=True) == [1]
    assert reg.subjects(include_deleted=True) == [] and reg.by_id(a) is None
    again = reg.register("p-value", A)
    assert again != a and reg.latest("p-value").version == 1  # a new id, numbering from the start


def test_an_id_another_subject_holds_survives_a_permanent_delete() -> None:
    reg = EmbeddedSchemaRegistry()
    a = reg.register("x-value", A)
    assert reg.register("y-value", A) == a
    reg.delete_subject("x-value")
    reg.delete_subject("x-value", permanent=True)
    assert reg.by_id(a).schema == A and reg.latest("y-value").id == a


def test_one_version_deleted_softly_then_permanently() -> None:
    reg = EmbeddedSchemaRegistry()
    reg.register("v-value", A)
    b = reg.register("v-value", B)
    with pytest.raises(NotSoftDeletedError, match="Subject 'v-value' Version 2 was not deleted first") as e:
        reg.delete_version("v-value", 2, permanent=True)
    assert e.value.error_code == 40407
    assert reg.delete_version("v-value", 2) == [2] and reg.latest("v-value").version == 1
    assert reg.register("v-value", C) and reg.latest("v-value").version == 3  # 2 is still counted
    assert reg.delete_version("v-value", 2, permanent=True) == [2] and reg.by_id(b) is None
    assert [v.version for v in reg.versions("v-value", include_deleted=True)] == [1, 3]


def test_deletions_survive_a_restart(tmp_path) -> None:
    with Engine(str(tmp_path), {}) as e:
        reg = e.schema_registry
        a = reg.register("r-value", A)
        b = reg.register("q-value", B)
        reg.delete_subject("r-value")
        reg.delete_subject("q-value")
        reg.delete_subject("q-value", permanent=True)
    with Engine(str(tmp_path), {}) as e:
        reg = e.schema_registry
        assert reg.subjects() == [] and reg.subjects(include_deleted=True) == ["r-value"]
        assert reg.by_id(a).schema == A and reg.by_id(b) is None
        assert reg.register("r-value", C) not in (a, b) and reg.latest("r-value").version == 2


def _call(url: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data, method=method,
                                 headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
    try:
        with urllib.request.urlopen(req) as resp:  # noqa: S310 - a loopback test server
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_the_http_api_deletes_as_confluents_does() -> None:
    with RegistryServer(EmbeddedSchemaRegistry()) as srv:
        url = srv.url
        for schema in (A, B):
            assert _call(url, "POST", "/subjects/h-value/versions", {"schema": schema})[0] == 200
        assert _call(url, "DELETE", "/subjects/h-value?permanent=true") == (404, {
            "error_code": 40405, "message": "Subject 'h-value' was not deleted first before being permanently deleted"})
        assert _call(url, "DELETE", "/subjects/h-value/versions/2?permanent=true")[1]["error_code"] == 40407
        assert _call(url, "DELETE", "/subjects/h-value/versions/2") == (200, 2)
        assert _call(url, "DELETE", "/subjects/h-value/versions/2") == (404, {
            "error_code": 40406, "message": "Subject 'h-value' Version 2 was soft deleted.Set permanent=true to "
                                            "delete permanently"})
        assert _call(url, "DELETE", "/subjects/h-value/versions/7") == (404, {
            "error_code": 40402, "message": "Version 7 not found."})
        assert _call(url, "GET", "/subjects/h-value/versions") == (200, [1])
        assert _call(url, "GET", "/subjects/h-value/versions?deleted=true") == (200, [1, 2])
        assert _call(url, "GET", "/subjects/h-value/versions/2?deleted=true")[1]["schema"] == B
        assert _call(url, "DELETE", "/subjects/h-value") == (200, [1])
        assert _call(url, "DELETE", "/subjects/h-value")[1] == {
            "error_code": 40404, "message": "Subject 'h-value' was soft deleted.Set permanent=true to delete "
                                            "permanently"}
        assert _call(url, "GET", "/subjects") == (200, [])
        assert _call(url, "GET", "/subjects?deleted=true") == (200, ["h-value"])
        assert _call(url, "GET", "/subjects/h-value/versions")[1]["error_code"] == 40401
        assert _call(url, "POST", "/subjects/h-value", {"schema": A})[1]["error_code"] == 40401
        found = _call(url, "POST", "/subjects/h-value?deleted=true", {"schema": A})[1]
        assert (found["version"], found["subject"]) == (1, "h-value")
        assert _call(url, "POST", "/subjects/h-value/versions", {"schema": C}) == (200, {"id": 3})
        assert _call(url, "GET", "/subjects/h-value/versions/latest")[1]["version"] == 3
        assert _call(url, "POST", "/subjects/h-value", {"schema": A})[1] == {
            "error_code": 40403, "message": "Schema not found"}
        assert _call(url, "DELETE", "/subjects/nope")[1]["error_code"] == 40401


def test_the_http_client_deletes_permanently() -> None:
    with RegistryServer(EmbeddedSchemaRegistry()) as srv:
        client = HttpSchemaRegistry(srv.url)
        sid = client.register("c-value", A)
        assert client.delete_subject("c-value") == [1] and client.subjects(include_deleted=True) == ["c-value"]
        assert client.delete_subject("c-value", permanent=True) == [1]
        assert client.subjects(include_deleted=True) == [] and client.by_id(sid) is None


def test_drop_delete_topic_deletes_softly_and_a_new_source_continues_the_versions(tmp_path) -> None:
    with Engine(str(tmp_path), {}) as e:
        e.execute("CREATE STREAM S (K INT KEY, V STRING) WITH (kafka_topic='t', format='AVRO', partitions=1);")
        reg = e.schema_registry
        value_id = reg.latest("t-value").id
        e.execute("DROP STREAM S DELETE TOPIC;")
        assert reg.subjects() == [] and sorted(reg.subjects(include_deleted=True)) == ["t-key", "t-value"]
        assert reg.by_id(value_id) is not None
        e.execute("CREATE STREAM S (K INT KEY, V STRING) WITH (kafka_topic='t', format='AVRO', partitions=1);")
        latest = reg.latest("t-value")
        assert (latest.id, latest.version) == (value_id, 2)


def test_terminate_deletes_the_internal_subjects_for_good(tmp_path) -> None:
    with Engine(str(tmp_path), {}) as e:
        e.execute("CREATE STREAM S (K INT KEY, V STRING) WITH (kafka_topic='t', format='AVRO', partitions=1);")
        e.execute("CREATE TABLE T AS SELECT V, COUNT(*) AS N FROM S GROUP BY V;")
        e.execute("INSERT INTO S (K, V) VALUES (1, 'a');")
        e.drain()
        reg = e.schema_registry
        internal = [s for s in reg.subjects() if s.startswith("_confluent-ksql-")]
        assert any(s.endswith("-repartition-value") for s in internal)
        assert any(s.endswith("-changelog-value") for s in internal)
        ids = [reg.latest(s).id for s in internal]
        query = next(iter(e.queries))
        e.execute(f"TERMINATE {query};")
        left = reg.subjects(include_deleted=True)
        assert not [s for s in left if s.startswith("_confluent-ksql-")]
        assert "T-value" in left and "t-value" in left  # the sink's and the source's stay
        held = {v.id for s in left for v in reg.versions(s, include_deleted=True)}
        assert [i for i in ids if i not in held] and all(reg.by_id(i) is None for i in ids if i not in held)


def _raw(url: str, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url + path) as resp:  # noqa: S310 - a loopback test server
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def test_the_http_api_answers_which_subjects_hold_an_id_and_the_bare_schema() -> None:
    proto = 'syntax = "proto3"; message M { int32 a = 1; }'
    with RegistryServer(EmbeddedSchemaRegistry()) as srv:
        url = srv.url
        sid = _call(url, "POST", "/subjects/a-value/versions", {"schema": A})[1]["id"]
        assert _call(url, "POST", "/subjects/b-key/versions", {"schema": A})[1]["id"] == sid
        pid = _call(url, "POST", "/subjects/p-value/versions", {"schema": proto, "schemaType": "PROTOBUF"})[1]["id"]
        assert _call(url, "GET", f"/schemas/ids/{sid}/subjects") == (200, ["a-value", "b-key"])
        assert _call(url, "GET", f"/schemas/ids/{sid}/versions") == (200, [
            {"subject": "a-value", "version": 1}, {"subject": "b-key", "version": 1}])
        assert _raw(url, f"/schemas/ids/{sid}/schema") == (200, A)
        assert _raw(url, f"/schemas/ids/{pid}/schema") == (200, proto)
        assert _raw(url, "/subjects/p-value/versions/latest/schema") == (200, proto)
        assert _call(url, "GET", "/subjects/p-value/versions/2/schema")[1]["error_code"] == 40402
        assert _call(url, "GET", "/schemas/ids/99/subjects")[1]["error_code"] == 40403
        assert _call(url, "GET", "/schemas/types") == (200, ["JSON", "PROTOBUF", "AVRO"])
        _call(url, "DELETE", "/subjects/b-key")  # a soft-deleted subject holds the id only with ?deleted=true
        assert _call(url, "GET", f"/schemas/ids/{sid}/subjects") == (200, ["a-value"])
        assert _call(url, "GET", f"/schemas/ids/{sid}/subjects?deleted=true") == (200, ["a-value", "b-key"])


@pytest.mark.parametrize("fmt", ["AVRO", "PROTOBUF", "JSON_SR"])
@pytest.mark.parametrize("query", [
    "CREATE TABLE W AS SELECT V, COUNT(*) AS N FROM S WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY V;",
    "CREATE STREAM J AS SELECT S.K AS K, S.V, R.V AS RV FROM S JOIN R WITHIN 1 MINUTE ON S.V = R.V;",
])
def test_every_internal_subject_of_a_dropped_query_goes(tmp_path, fmt: str, query: str) -> None:
    with Engine(str(tmp_path), {}) as e:
        for name in ("S", "R"):
            e.execute(f"CREATE STREAM {name} (K INT KEY, V STRING) WITH (kafka_topic='{name.lower()}', "
                      f"format='{fmt}', partitions=1);")
        e.execute(query)
        e.execute("INSERT INTO S (K, V) VALUES (1, 'a');")
        e.execute("INSERT INTO R (K, V) VALUES (2, 'a');")
        e.drain()
        reg = e.schema_registry
        assert [s for s in reg.subjects() if s.startswith("_confluent-ksql-")]
        sink = query.split()[2]
        e.execute(f"DROP {query.split()[1]} {sink};")  # a DROP terminates the query: its cleanup runs too
        assert not [s for s in reg.subjects(include_deleted=True) if s.startswith("_confluent-ksql-")]
        assert f"{sink}-value" in reg.subjects()  # DROP without DELETE TOPIC keeps the sink's


def test_the_http_client_lists_every_version_and_assert_schema_finds_an_older_one(tmp_path) -> None:
    with RegistryServer(EmbeddedSchemaRegistry()) as srv:
        client = HttpSchemaRegistry(srv.url)
        first = client.register("v-value", A)
        client.register("v-value", B)
        assert [(v.version, v.id, v.schema) for v in client.versions("v-value")][0] == (1, first, A)
        assert len(client.versions("v-value")) == 2 and client.versions("nope") == []
        client.delete_subject("v-value")
        assert client.versions("v-value") == [] and len(client.versions("v-value", include_deleted=True)) == 2
        srv.registry.register("w-value", A)
        srv.registry.register("w-value", C)
        with Engine(str(tmp_path), {"ksql.schema.registry.url": srv.url}) as e:
            e.execute(f"ASSERT SCHEMA SUBJECT 'w-value' ID {first};")  # held by version 1, not the latest
