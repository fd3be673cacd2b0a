"""One rule for variable names at every entry point (grammar/variables.py): case-insensitive, kept and
listed in lower case - the engine's DEFINE/UNDEFINE/SHOW VARIABLES, REST ``sessionVariables`` and a
request's DEFINEs, the shell's DEFINE, ``-d``, RUN SCRIPT, and the migrations tool's ``--define``."""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from app_client import serving  # noqa: E402

from ksqlpy.cli.console import Console
from ksqlpy.cli.embedded import EmbeddedBackend
from ksqlpy.cli.session import Session
from ksqlpy.engine.engine import Engine
from ksqlpy.grammar.variables import define, from_json, name_key, substitute_variables, undefine

CREATE = "CREATE STREAM {name} (ID INT KEY, V STRING) WITH (kafka_topic='{topic}', format='JSON', partitions=1);"


@pytest.mark.parametrize("written", ["src", "SRC", "Src", "sRc"])
def test_every_spelling_names_one_variable(written: str) -> None:
    variables: dict[str, str] = {}
    define(variables, written, "one")
    assert variables == {"src": "one"} and name_key(written) == "src"
    for ref in ("${src}", "${SRC}", "${Src}"):
        assert substitute_variables(f"SELECT * FROM {ref};", variables) == "SELECT * FROM one;"
    define(variables, "SRC", "two")  # redefined, not a second variable
    assert variables == {"src": "two"}
    assert undefine(variables, "Src") == "two" and variables == {}
    assert undefine(variables, "src") is None


def test_json_session_variables() -> None:
    assert from_json({"Name": "x", "B": True, "N": None, "D": 1.5, "I": 3}) == \
        {"name": "x", "b": "true", "n": "null", "d": "1.5", "i": "3"}


def test_engine(tmp_path: Path) -> None:
    with Engine(str(tmp_path), {}) as e:
        e.execute("DEFINE Topic_Name = 'eng_t';")
        e.execute(CREATE.format(name="ENG", topic="${TOPIC_NAME}"))
        assert e.catalog.source("ENG").topic == "eng_t"  # type: ignore[union-attr]
        (shown,) = e.execute("SHOW VARIABLES;")
        assert shown.data == {"topic_name": "eng_t"}
        (gone,) = e.execute("UNDEFINE TOPIC_name;")
        assert not gone.warnings and e.variables == {}
        (again,) = e.execute("UNDEFINE Topic_Name;")
        assert again.warnings == ["Cannot undefine variable 'Topic_Name' which was never defined"]


class Shell:
    def __init__(self, session: Session, out: io.StringIO, err: io.StringIO) -> None:
        self.session, self.out, self.err = session, out, err

    def run(self, text: str) -> str:
        self.session.run_entry(text)
        got = self.out.getvalue() + self.err.getvalue()
        for s in (self.out, self.err):
            s.seek(0), s.truncate()
        return got


@pytest.fixture
def shell(tmp_path: Path) -> Iterator[Shell]:
    out, err = io.StringIO(), io.StringIO()
    backend = EmbeddedBackend(str(tmp_path / "data"))
    try:
        yield Shell(Session(backend, Console(out, err, color=False)), out, err)
    finally:
        backend.close()


def test_shell_define_show_undefine(shell: Shell) -> None:
    shell.run("DEFINE Topic_Name = 'sh_t';")
    assert "Stream created" in shell.run(CREATE.format(name="SH", topic="${TOPIC_NAME}"))
    assert " topic_name    | sh_t" in shell.run("SHOW VARIABLES;")
    assert shell.run("UNDEFINE TOPIC_NAME;") == ""
    assert shell.run("UNDEFINE topic_name;").strip() == "Cannot undefine variable 'topic_name' which was never defined."


def test_shell_run_script(shell: Shell, tmp_path: Path) -> None:
    script = tmp_path / "s.sql"
    script.write_text("DEFINE Script_Topic = 'rs_t';\n" + CREATE.format(name="RS", topic="${SCRIPT_TOPIC}") + "\n")
    assert "Stream created" in shell.run(f"RUN SCRIPT '{script}';")
    assert "rs_t" in shell.run("DESCRIBE RS EXTENDED;")


def test_shell_define_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ksqlpy.cli.main import main

    status = main(["--data-dir", str(tmp_path / "d"), "-d", "Topic_Name=opt_t", "-e",
                   CREATE.format(name="OPT", topic="${topic_NAME}") + " SHOW VARIABLES;"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "Stream created" in out and " topic_name    | opt_t" in out


# ---------------------------------------------------------------------------------------------- REST
pytest.importorskip("fastapi")
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")


@pytest.fixture(scope="module")
def rest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:

    from ksqlpy.server.app import create_app
    from ksqlpy.server.config import build_config

    config = build_config(data_dir=str(tmp_path_factory.mktemp("vars")),
                          overrides={"ksql.logging.processing.stream.auto.create": "false"})
    with serving(create_app(config)) as c:
        yield c


def test_rest_ksql(rest) -> None:  # type: ignore[no-untyped-def]
    r = rest.post("/ksql", json={  # type: ignore[attr-defined]
        "ksql": "DEFINE Value_Format = 'JSON'; "
                "CREATE STREAM RV (ID INT KEY, V STRING) WITH (kafka_topic='${TOPIC}', format='${value_format}', "
                "partitions=1); SHOW VARIABLES; UNDEFINE VALUE_FORMAT; SHOW VARIABLES;",
        "sessionVariables": {"Topic": "rv_t"}})
    assert r.status_code == 200, r.text
    shown = [e["variables"] for e in r.json() if e["@type"] == "variables"]
    assert shown == [[{"name": "topic", "value": "rv_t"}, {"name": "value_format", "value": "JSON"}],
                     [{"name": "topic", "value": "rv_t"}]]


@pytest.mark.parametrize("path", ["/query", "/query-stream"])
def test_rest_query_endpoints(rest, path: str) -> None:  # type: ignore[no-untyped-def]
    rest.post("/ksql", json={"ksql": CREATE.format(name="RQ", topic="rq_t")})  # type: ignore[attr-defined]
    rest.post("/ksql", json={"ksql": "INSERT INTO RQ (ID, V) VALUES (1, 'x');"})  # type: ignore[attr-defined]
    key = "ksql" if path == "/query" else "sql"
    r = rest.post(path, json={key: "SELECT * FROM ${Src} WHERE ID = ${WANTED};",  # type: ignore[attr-defined]
                              "sessionVariables": {"SRC": "RQ", "wanted": 1}},
                  headers={"Accept": "application/vnd.ksql.v1+json"})
    assert r.status_code == 200, r.text
    assert '"x"' in r.text

