"""Secret request properties (passwords, SASL/JAAS, keys, tokens) are never written to the command topic in
clear text: it carries ``[hidden]`` and a reference, the values live in the data directory's 0600
``command-secrets.json``, and replay puts them back; other properties are stored as given."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import orjson
import pytest

from ksqlpy import grammar
from ksqlpy.engine import Engine
from ksqlpy.engine.command_log import CommandLog, command_id
from ksqlpy.engine.secrets import HIDDEN, SECRETS_FILE, SecretStore, is_secret

SECRETS = {
    "sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required password="p4ss";',
    "ssl.key.password": "k3y",
    "ksql.streams.ssl.keystore.password": "st0re",
    "schema.registry.basic.auth.user.info": "fred:letmein",
    "sasl.oauthbearer.client.secret": "s3cret",
    "ssl.keystore.key": "-----BEGIN PRIVATE KEY-----",
}
PLAIN = {"auto.offset.reset": "earliest", "key.format": "JSON", "ksql.streams.num.stream.threads": 2,
         "ssl.keystore.type": "PEM", "cache.max.bytes.buffering": 0, "ksql.persistence.default.format.key": "JSON"}


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_secret_names(name: str) -> None:
    assert is_secret(name)


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_plain_names(name: str) -> None:
    assert not is_secret(name)


def test_the_topic_holds_no_secret_and_replay_gets_them_back(tmp_path: Path) -> None:
    with Engine(str(tmp_path / "d")) as engine:
        log = CommandLog(engine.log, "default_", SecretStore(engine.data_dir))
        log.ensure_topic()
        stmt = grammar.parse("CREATE STREAM S (ID INT KEY) WITH (kafka_topic='s', partitions=1, value_format='JSON');")[0]
        log.append(command_id(stmt), stmt.text, {**SECRETS, **PLAIN}, {"ksql.schema.registry.basic.auth.user.info": "a:b"})
        raw = engine.log.fetch(log.topic, 0, 0, 10).values[0]
        for value in [*SECRETS.values(), "a:b"]:
            assert value.encode() not in raw
        body = orjson.loads(raw)
        assert body["streamsProperties"]["sasl.jaas.config"] == HIDDEN
        assert body["streamsProperties"]["auto.offset.reset"] == "earliest"
        assert body["originalProperties"] == {"ksql.schema.registry.basic.auth.user.info": HIDDEN}
        [cmd] = log.read_all()
        assert cmd.streams_properties == {**SECRETS, **PLAIN}
        path = os.path.join(engine.data_dir, SECRETS_FILE)
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        # a server without the file replays without the secrets (and says so), never with "[hidden]"
        [bare] = CommandLog(engine.log, "default_").read_all()
        assert bare.streams_properties == PLAIN


def test_through_the_engine_command_runner(tmp_path: Path) -> None:
    from ksqlpy.engine.command_log import DurableStatements

    with Engine(str(tmp_path / "e")) as engine:
        runner = DurableStatements(engine)
        runner.execute("CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', partitions=1, value_format='JSON');")
        runner.execute("CREATE STREAM S2 AS SELECT * FROM S;", {"ssl.key.password": "hunter2",
                                                                "auto.offset.reset": "earliest"})
        topic = runner.commands.topic
        raw = b"".join(engine.log.fetch(topic, 0, 0, 10).values)
        assert b"hunter2" not in raw and b"earliest" in raw
