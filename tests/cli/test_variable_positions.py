"""One rule for where ``${name}`` may stand, at every entry point (grammar/variables.py): the engine, the
shell (a statement and RUN SCRIPT), REST ``/ksql``, ``/query`` and ``/query-stream`` (the migrations tool sends
its ``--define``s as ``sessionVariables`` to ``/ksql``). A reference where only a keyword may stand is a syntax
error at that reference, before and whatever the substitution; one standing for a name works."""

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
from ksqlpy.errors import KsqlParseError

CREATE = "CREATE STREAM VP (ID INT KEY, V STRING) WITH (kafka_topic='vp', format='JSON', partitions=1);"
BAD = "SELECT * FROM VP EMIT ${word};"  # EMIT takes the keyword CHANGES (or FINAL), never an identifier
BAD_AT = "1:23"


def test_engine(tmp_path: Path) -> None:
    with Engine(str(tmp_path), {}) as e:
        e.execute(CREATE + " DEFINE word = 'CHANGES'; DEFINE src = 'VP';")
        with pytest.raises(KsqlParseError, match=f"line {BAD_AT}: Syntax Error"):
            e.execute(BAD)
        (shown,) = e.execute("DESCRIBE ${src};")
        assert shown.data is not None


@pytest.fixture
def shell(tmp_path: Path) -> Iterator[tuple[Session, io.StringIO]]:
    out = io.StringIO()
    backend = EmbeddedBackend(str(tmp_path / "data"))
    try:
        yield Session(backend, Console(out, out, color=False)), out
    finally:
        backend.close()


def test_shell_statement_and_run_script(shell: tuple[Session, io.StringIO], tmp_path: Path) -> None:
    session, out = shell
    session.run_entry(CREATE + " DEFINE word = 'CHANGES';")
    session.run_entry(BAD)
    said = out.getvalue()
    assert f"line {BAD_AT}: Syntax Error" in said and "Internal error" not in said
    script = tmp_path / "s.sql"
    script.write_text("DEFINE src = 'VP';\nDESCRIBE ${src};\n" + BAD + "\n")
    out.seek(0), out.truncate()
    session.run_entry(f"RUN SCRIPT '{script}';")
    said = out.getvalue()
    # the CLI parses the whole script before it runs a statement of it: the reference on line 3 stops it all
    assert "line 3:23: Syntax Error" in said and "Name" not in said and "Internal error" not in said


pytest.importorskip("fastapi")
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")


@pytest.fixture(scope="module")
def rest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:

    from ksqlpy.server.app import create_app
    from ksqlpy.server.config import build_config

    config = build_config(data_dir=str(tmp_path_factory.mktemp("varpos")),
                          overrides={"ksql.logging.processing.stream.auto.create": "false"})
    with serving(create_app(config)) as c:
        c.post("/ksql", json={"ksql": CREATE})
        yield c


@pytest.mark.parametrize("variables", [{"word": "CHANGES"}, {}], ids=["defined", "undefined"])
@pytest.mark.parametrize("path", ["/ksql", "/query", "/query-stream"])
def test_rest(rest, path: str, variables: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    key = "sql" if path == "/query-stream" else "ksql"
    r = rest.post(path, json={key: BAD, "sessionVariables": variables},  # type: ignore[attr-defined]
                  headers={"Accept": "application/vnd.ksql.v1+json"})
    assert r.status_code == 400, r.text
    assert r.json()["error_code"] == 40001 and f"line {BAD_AT}: Syntax Error" in r.json()["message"]


def test_rest_names(rest) -> None:  # type: ignore[no-untyped-def]
    r = rest.post("/ksql", json={"ksql": "DESCRIBE ${Src};", "sessionVariables": {"SRC": "VP"}})  # type: ignore
    assert r.status_code == 200 and r.json()[0]["sourceDescription"]["name"] == "VP", r.text
