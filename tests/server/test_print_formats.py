"""PRINT guesses every format it can read - the schema-registry ones (AVRO, PROTOBUF, JSON_SR), JSON, the
KAFKA ones and the windowed layouts of keys - narrowing by every record of a poll, and prints each record
in the first format left (server/printing.py; the shell's embedded PRINT uses the same formatter)."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator

import pytest
from app_client import serving  # noqa: E402

from ksqlpy.cli.printer import print_topic
from ksqlpy.engine.engine import Engine
from ksqlpy.schema_registry import EmbeddedSchemaRegistry
from ksqlpy.server.printing import MIXED, NO_DATA, RecordFormatter

TS = 1700000000000


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine(str(tmp_path_factory.mktemp("print")), {}) as e:
        yield e


def printed(e: Engine, topic: str, limit: int) -> list[str]:
    lines: list[str] = []
    for line in print_topic(e.log, topic, from_beginning=True, interval=None, limit=limit,
                            registry=e.schema_registry, poll_s=0.01):
        if line is not None:
            lines.append(line)
    return [ln.partition(", key: ")[2] if ln.startswith("rowtime: ") else ln for ln in lines]


def test_protobuf_records_print_as_text_format(engine: Engine) -> None:
    engine.execute("CREATE STREAM PB (ID INT KEY, NAME STRING, N DOUBLE, TAGS ARRAY<STRING>, M MAP<STRING, INT>, "
                   "ST STRUCT<A INT, B STRING>, F BOOLEAN) WITH (kafka_topic='pb', format='PROTOBUF', partitions=1);")
    engine.execute("INSERT INTO PB (ID, NAME, N, TAGS, M, ST, F) VALUES (300, 'a\"bé', 1.5, ARRAY['x', 'y'], "
                   "MAP('k' := 1), STRUCT(A := 2, B := 'q'), true);")
    engine.execute("INSERT INTO PB (ID, NAME, N) VALUES (-1, '', 0.0);")  # defaults are no set fields
    assert printed(engine, "pb", 2) == [
        "Key format: PROTOBUF", "Value format: PROTOBUF",
        'ID: 300, value: NAME: "a\\"b\\303\\251" N: 1.5 TAGS: "x" TAGS: "y" M { key: "k" value: 1 } '
        'ST { A: 2 B: "q" } F: true, partition: 0',
        "ID: -1, value: , partition: 0"]


def test_json_sr_records_print_as_compact_json(engine: Engine) -> None:
    engine.execute("CREATE STREAM JS (ID STRING KEY, N DOUBLE, L ARRAY<BIGINT>) "
                   "WITH (kafka_topic='js', format='JSON_SR', partitions=1);")
    engine.execute("INSERT INTO JS (ID, N, L) VALUES ('k1', 10000000.0, ARRAY[1, 2]);")
    assert printed(engine, "js", 1) == ["Key format: JSON_SR", "Value format: JSON_SR",
                                        '"k1", value: {"N":1.0E7,"L":[1,2]}, partition: 0']


def test_an_avro_string_key_prints_bare_and_the_record_as_generic_data(engine: Engine) -> None:
    engine.execute("CREATE STREAM AV (ID STRING KEY, V INT) WITH (kafka_topic='av', format='AVRO', partitions=1);")
    engine.execute("INSERT INTO AV (ID, V) VALUES ('key1', 7);")
    assert printed(engine, "av", 1) == ["Key format: AVRO", "Value format: AVRO",
                                        'key1, value: {"V": 7}, partition: 0']


def test_windowed_keys_print_with_their_window(engine: Engine) -> None:
    engine.execute("CREATE STREAM CLICKS (U STRING KEY, P INT) WITH (kafka_topic='clicks', format='JSON', "
                   "partitions=1);")
    engine.execute("CREATE TABLE TUMBLED AS SELECT U, COUNT(*) C FROM CLICKS WINDOW TUMBLING (SIZE 1 MINUTE) "
                   "GROUP BY U;")
    engine.execute("CREATE TABLE SESSIONS WITH (key_format='KAFKA') AS SELECT U, COUNT(*) C FROM CLICKS "
                   "WINDOW SESSION (1 MINUTE) GROUP BY U;")
    engine.execute("CREATE TABLE HOPPED_AVRO WITH (format='AVRO') AS SELECT P, COUNT(*) C FROM CLICKS "
                   "WINDOW HOPPING (SIZE 1 MINUTE, ADVANCE BY 30 SECONDS) GROUP BY P;")
    for i in range(2):
        engine.execute(f"INSERT INTO CLICKS (U, P, ROWTIME) VALUES ('user{i}', {i}, {TS + i * 1000});")
    engine.drain()
    start = TS - TS % 60000
    assert printed(engine, "TUMBLED", 2) == [
        "Key format: HOPPING(JSON) or TUMBLING(JSON) or HOPPING(KAFKA_STRING) or TUMBLING(KAFKA_STRING)",
        "Value format: JSON or KAFKA_STRING",
        f'["user0"@{start}/Infinity], value: {{"C":1}}, partition: 0',
        f'["user1"@{start}/Infinity], value: {{"C":1}}, partition: 0']
    assert printed(engine, "SESSIONS", 2) == [
        "Key format: SESSION(KAFKA_STRING)", "Value format: JSON or KAFKA_STRING",
        f'[user0@{TS}/{TS}], value: {{"C":1}}, partition: 0',
        f'[user1@{TS + 1000}/{TS + 1000}], value: {{"C":1}}, partition: 0']
    assert printed(engine, "HOPPED_AVRO", 2) == [
        "Key format: HOPPING(AVRO) or TUMBLING(AVRO)", "Value format: AVRO",
        f'[0@{start - 30000}/Infinity], value: {{"C": 1}}, partition: 0',
        f'[0@{start}/Infinity], value: {{"C": 1}}, partition: 0']


def _one_poll(keys: list[bytes | None], values: list[bytes | None], registry: object = None) -> list[str]:
    f = RecordFormatter(registry)
    lines = f.format([(TS, k, v, 0) for k, v in zip(keys, values, strict=True)])
    return f.header() + [ln.partition(", key: ")[2] for ln in lines]


def test_every_record_of_a_poll_narrows_the_formats_before_any_is_printed() -> None:
    # 'abcdefgh' alone could be a BIGINT, a DOUBLE or text; the second record leaves text only
    assert _one_poll([b"abcdefgh", b"abc"], [b"1", b"[1]"]) == [
        "Key format: KAFKA_STRING", "Value format: JSON or KAFKA_STRING",
        "abcdefgh, value: 1, partition: 0", "abc, value: [1], partition: 0"]
    assert _one_poll([b"abcdefgh"], [struct.pack(">i", 5)])[:2] == [
        "Key format: KAFKA_BIGINT or KAFKA_DOUBLE or KAFKA_STRING", "Value format: KAFKA_INT"]


def test_null_and_mixed_sides() -> None:
    assert _one_poll([None, None], [struct.pack(">i", 7), b"texts"]) == [
        f"Key format: {NO_DATA}", f"Value format: {MIXED}",
        "<null>, value: 7, partition: 0", "<null>, value: texts, partition: 0"]
    assert _one_poll([b"\x00\x01\x02"], [struct.pack(">d", 2.5)]) == [
        f"Key format: {MIXED}", "Value format: KAFKA_BIGINT or KAFKA_DOUBLE",
        "<Failed to deserialize>, value: 4612811918334230528, partition: 0"]


def test_framed_bytes_whose_id_the_registry_lacks_or_holds_as_another_type_are_not_that_format() -> None:
    reg = EmbeddedSchemaRegistry()
    sid = reg.register("t-value", json.dumps({"type": "object", "properties": {"A": {"type": "integer"}}}), "JSON")
    framed = b"\x00" + struct.pack(">I", sid) + b'{"A":1}'
    assert _one_poll([None], [framed], reg)[1:] == ["Value format: JSON_SR", '<null>, value: {"A":1}, partition: 0']
    other = b"\x00" + struct.pack(">I", sid + 1) + b'{"A":1}'
    assert _one_poll([None], [other], reg)[1] == f"Value format: {MIXED}"


def test_a_time_window_needs_key_bytes_and_a_time() -> None:
    key = struct.pack(">i", 9) + struct.pack(">q", TS)
    assert _one_poll([key], [b"{}"])[0] == "Key format: HOPPING(KAFKA_INT) or TUMBLING(KAFKA_INT)"
    # a negative window start is no time: not windowed
    assert _one_poll([struct.pack(">i", 9) + struct.pack(">q", -5)], [b"{}"])[0] == f"Key format: {MIXED}"
    # session: key, end, start - an end before its start is no window
    assert _one_poll([b"k" + struct.pack(">qq", TS + 5, TS)], [b"{}"])[0] == "Key format: SESSION(KAFKA_STRING)"
    assert _one_poll([b"k" + struct.pack(">qq", TS, TS + 5)], [b"{}"])[0] == f"Key format: {MIXED}"


def test_print_over_rest_query_reads_protobuf_and_windowed_keys(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("fastapi")
    import warnings

    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")

    from ksqlpy.server.app import create_app
    from ksqlpy.server.config import build_config

    config = build_config(data_dir=str(tmp_path), overrides={"ksql.logging.processing.stream.auto.create": "false",
                                                              "ksql.streams.auto.offset.reset": "earliest"})
    with serving(create_app(config)) as c:
        r = c.post("/ksql", json={"ksql": "CREATE STREAM P (ID INT KEY, NAME STRING) WITH (kafka_topic='p', "
                                          "format='PROTOBUF', partitions=1); "
                                          "INSERT INTO P (ID, NAME, ROWTIME) VALUES (1000, 'x', 1700000000000); "
                                          "CREATE TABLE W AS SELECT ID, COUNT(*) AS C FROM P "
                                          "WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY ID;"})
        assert r.status_code == 200, r.text
        lines = c.post("/query", json={"ksql": "PRINT 'p' FROM BEGINNING LIMIT 1;"}).text.splitlines()
        assert lines == ["Key format: PROTOBUF", "Value format: PROTOBUF",
                         'rowtime: 2023/11/14 22:13:20.000 Z, key: ID: 1000, value: NAME: "x", partition: 0']
        lines = c.post("/query", json={"ksql": "PRINT 'W' FROM BEGINNING LIMIT 1;"}).text.splitlines()
        # the value 'C: 1' is 8 bytes framed: a BIGINT or DOUBLE too, but printed in the registry format
        assert lines[:2] == ["Key format: HOPPING(PROTOBUF) or TUMBLING(PROTOBUF)",
                             "Value format: PROTOBUF or KAFKA_BIGINT or KAFKA_DOUBLE"]
        assert lines[2] == ("rowtime: 2023/11/14 22:13:20.000 Z, key: [ID: 1000@1699999980000/Infinity], value: C: 1, "
                            "partition: 0")


def test_print_clauses_want_integers_and_interval_prints_every_nth_record(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """PRINT's ``INTERVAL``/``SAMPLE`` and ``LIMIT`` take the grammar's ``number``; one that is not an integer
    literal is refused naming its clause (ksqlDB's ParserUtil.processIntegerNumber: 'Value must be integer for
    command: INTERVAL'); INTERVAL n prints the 1st, (n+1)th... record, LIMIT counts the records printed."""
    pytest.importorskip("fastapi")
    import warnings

    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")

    from ksqlpy.server.app import create_app
    from ksqlpy.server.config import build_config

    config = build_config(data_dir=str(tmp_path), overrides={"ksql.logging.processing.stream.auto.create": "false"})
    with serving(create_app(config)) as c:
        r = c.post("/ksql", json={"ksql": "CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', "
                                          "format='JSON', partitions=1); " + " ".join(
                                              f"INSERT INTO S (K, V, ROWTIME) VALUES ('key{i}', {i}, 0);"
                                              for i in range(5))})
        assert r.status_code == 200, r.text
        for sql, clause in (("PRINT 's' FROM BEGINNING INTERVAL 1.5 LIMIT 2;", "INTERVAL"),
                            ("PRINT 's' SAMPLE 2.0;", "INTERVAL"), ("PRINT s INTERVAL 1E3 LIMIT 1;", "INTERVAL"),
                            ("PRINT 's' FROM BEGINNING LIMIT 1.5;", "LIMIT"),
                            ("PRINT 's' INTERVAL 2 LIMIT -0.5;", "LIMIT")):
            r = c.post("/query", json={"ksql": sql})
            assert r.status_code == 400, (sql, r.text)
            assert r.json()["message"] == f"Failed to prepare statement: Value must be integer for command: {clause}"
        for sql, keys in (("PRINT 's' FROM BEGINNING INTERVAL 2 LIMIT 3;", ["k0", "k2", "k4"]),
                          ("PRINT 's' FROM BEGINNING SAMPLE 3 LIMIT 2;", ["k0", "k3"]),
                          ("PRINT 's' FROM BEGINNING LIMIT 2;", ["k0", "k1"])):
            lines = c.post("/query", json={"ksql": sql}).text.splitlines()
            assert lines[:2] == ["Key format: JSON or KAFKA_STRING", "Value format: JSON or KAFKA_STRING"], sql
            assert [line.split("key: ")[1].split(",")[0] for line in lines[2:]] == [f'"key{k[1:]}"' for k in keys], sql


def test_an_idle_print_over_http_writes_a_newline_each_second_and_the_websocket_does_not(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """ksqlDB's TopicStreamWriter writes a newline for each poll (1 s) that brought no record; a record ends
    the quiet. PRINT over /ws/query sends text frames of records only."""
    import asyncio

    from ksqlpy.engine.engine import Engine
    from ksqlpy.grammar import parse_one
    from ksqlpy.server.printing import TopicPrinter

    engine = Engine(str(tmp_path / "e"), {})
    try:
        engine.execute("CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', format='JSON', partitions=1);")

        async def collect(idle_s: float | None, websocket: bool = False) -> list[str]:
            printer = TopicPrinter.open(engine, parse_one("PRINT 's' LIMIT 1;"))
            out: list[str] = []

            async def read() -> None:
                async for line in printer.lines(idle_s=idle_s, websocket=websocket):
                    out.append(line)

            task = asyncio.ensure_future(read())
            await asyncio.sleep(0.75)
            engine.execute("INSERT INTO S (K, V) VALUES ('key1', 1);")
            await asyncio.wait_for(task, 10)
            return out

        lines = asyncio.run(collect(0.2))
        assert lines[:2] == ["", ""] and lines[-3:-1] == ["Key format: JSON or KAFKA_STRING",
                                                          "Value format: JSON or KAFKA_STRING"]
        assert set(lines[:-3]) == {""} and lines[-1].startswith("rowtime: ")
        lines = asyncio.run(collect(None))
        assert len(lines) == 3 and lines[0].startswith("Key format: ")
        lines = asyncio.run(collect(None, websocket=True))  # PrintPublisher: the record alone
        assert len(lines) == 1 and lines[0].startswith("rowtime: ")
    finally:
        engine.close()
