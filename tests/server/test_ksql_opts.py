"""``KSQL_OPTS``: the server-configuration page sets server properties as JVM system properties
(``KSQL_OPTS="-Dksql.streams.num.stream.threads=1" ksql-server-start ksql-server.properties``); ksqlDB's server
applies them over its properties file. ``ksqlpy server`` reads the same variable: its ``-D`` settings come
after the file and before the command line's own ``-D``."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from ksqlpy.server.config import ConfigError, build_config, ksql_opts_properties
from ksqlpy.testing.server_process import ServerProcess


@pytest.mark.parametrize(("text", "props"), [
    ("-Dksql.streams.num.stream.threads=1", {"ksql.streams.num.stream.threads": "1"}),
    ("-Dksql.streams.auto.offset.reset=earliest -Dksql.streams.num.stream.threads=1",
     {"ksql.streams.auto.offset.reset": "earliest", "ksql.streams.num.stream.threads": "1"}),
    # JVM options and the JVM's own properties are not configuration; quotes group a value with spaces
    ("-Xmx2g -server -Djava.io.tmpdir=/tmp -Duser.timezone=UTC -Dksql.service.id=a_", {"ksql.service.id": "a_"}),
    ("'-Dksql.extension.dir=/opt/my udfs' -Dksql.query.pull.table.scan.enabled",
     {"ksql.extension.dir": "/opt/my udfs", "ksql.query.pull.table.scan.enabled": ""}),
    ("-Da=1=2 -D", {"a": "1=2"}),
    ("", {}),
])
def test_the_d_settings_are_the_properties(text: str, props: dict[str, str]) -> None:
    assert ksql_opts_properties(text) == props


def test_unbalanced_quotes_name_the_variable() -> None:
    with pytest.raises(ConfigError, match="KSQL_OPTS"):
        ksql_opts_properties("-Dksql.service.id='a_")


def test_over_the_file_under_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = tmp_path / "ksql-server.properties"
    file.write_text("ksql.service.id=file_\nksql.max.push.queries=5\nksql.streams.num.stream.threads=4\n")
    monkeypatch.setenv("KSQL_OPTS", "-Dksql.service.id=opts_ -Dksql.max.push.queries=7")
    config = build_config(str(file), data_dir=str(tmp_path), overrides={"ksql.max.push.queries": "9"})
    assert config.get("ksql.service.id") == "opts_"
    assert str(config.get("ksql.max.push.queries")) == "9"
    assert str(config.get("ksql.streams.num.stream.threads")) == "4"
    monkeypatch.delenv("KSQL_OPTS")
    assert build_config(str(file), data_dir=str(tmp_path)).get("ksql.service.id") == "file_"


def test_a_server_started_with_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KSQL_OPTS", "-Xmx1g -Dksql.service.id=from_opts_")
    server = ServerProcess(str(tmp_path), {}).start()
    try:
        info = httpx.get(server.url + "/info", timeout=10).json()["KsqlServerInfo"]
        assert info["ksqlServiceId"] == "from_opts_"
    finally:
        server.stop()
