"""The session over an in-process embedded engine: what the user sees for each kind of statement."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ksqlpy.cli.backend import BackendError
from ksqlpy.cli.console import Console
from ksqlpy.cli.embedded import EmbeddedBackend
from ksqlpy.cli.session import ExitShell, Session

CREATE = ("CREATE STREAM pv (id INT KEY, page STRING) "
          "WITH (kafka_topic='pv', value_format='JSON', partitions=1);")


class Captured:
    def __init__(self, session: Session, out: io.StringIO, err: io.StringIO) -> None:
        self.session, self._out, self._err = session, out, err

    def run(self, text: str) -> bool:
        return self.session.run_entry(text)

    def take(self) -> tuple[str, str]:
        out, err = self._out.getvalue(), self._err.getvalue()
        self._out.seek(0), self._out.truncate()
        self._err.seek(0), self._err.truncate()
        return out, err


@pytest.fixture
def sh(tmp_path: Path) -> Iterator[Captured]:
    out, err = io.StringIO(), io.StringIO()
    backend = EmbeddedBackend(str(tmp_path / "data"))
    session = Session(backend, Console(out, err, color=False))
    try:
        yield Captured(session, out, err)
    finally:
        backend.close()


def test_create_insert_and_pull_query(sh: Captured) -> None:
    assert sh.run(CREATE)
    assert "Stream created" in sh.take()[0]
    assert sh.run("INSERT INTO pv (id, page) VALUES (1, 'home'); INSERT INTO pv (id, page) VALUES (2, 'blog');")
    assert sh.take() == ("", "")
    assert sh.run("SELECT * FROM pv;")
    out, _ = sh.take()
    # as ksqlDB's shell prints a pull query: no closing rule, a stream's "Query Completed", "Query terminated"
    assert out.splitlines() == ["+--+----+", "|ID|PAGE|", "+--+----+", "|1 |home|", "|2 |blog|", "Query Completed",
                                "Query terminated"]


def test_push_query_with_limit_uses_session_properties(sh: Captured) -> None:
    sh.run(CREATE + "INSERT INTO pv (id, page) VALUES (1, 'a'); INSERT INTO pv (id, page) VALUES (2, 'b');")
    sh.run("SET 'auto.offset.reset' = 'earliest';")
    assert "Successfully changed local property 'auto.offset.reset' to 'earliest'" in sh.take()[0]
    assert sh.run("SELECT id FROM pv EMIT CHANGES LIMIT 2;")
    out = sh.take()[0].splitlines()
    assert out[-2:] == ["Limit Reached", "Query terminated"]
    assert [ln.split()[0] for ln in out if ln.startswith("|")] == ["|ID", "|1", "|2"]


def test_syntax_error_marks_line_and_column(sh: Captured) -> None:
    assert not sh.run("SELECT *\n  FRM pv;")
    _, err = sh.take()
    lines = err.splitlines()
    assert lines[0].startswith("line 2:3")
    assert lines[-2] == "2 |   FRM pv;"
    assert lines[-1].index("^") == lines[-2].index("FRM")


def test_statement_errors_stop_the_entry(sh: Captured) -> None:
    assert not sh.run("DESCRIBE nope; SHOW STREAMS;")
    out, err = sh.take()
    assert "NOPE" in err.upper() and "Stream Name" not in out


def test_set_unset_define_and_substitution(sh: Captured) -> None:
    sh.run(CREATE + "INSERT INTO pv (id, page) VALUES (1, 'it''s'); INSERT INTO pv (id, page) VALUES (2, 'x');")
    assert not sh.run("UNSET 'auto.offset.reset';")
    assert "never set" in sh.take()[1]
    sh.run("SET 'auto.offset.reset'='earliest'; SET 'auto.offset.reset'='latest';")
    # ksqlDB's shell: the UNSET hint after a first SET only; a SET over an earlier one names the value it replaced
    assert sh.take()[0].splitlines() == [
        "Successfully changed local property 'auto.offset.reset' to 'earliest'. Use the UNSET command to revert "
        "your change.",
        "Successfully changed local property 'auto.offset.reset' from 'earliest' to 'latest'."]
    sh.run("UNSET 'auto.offset.reset';")
    assert "(value was 'latest')" in sh.take()[0]
    sh.run("DEFINE src = 'pv'; DEFINE page = 'it''s';")
    assert sh.run("SELECT id FROM ${src} WHERE page = '${page}';")
    out = sh.take()[0]
    assert "|1 |" in out and out.splitlines()[-1] == "Query terminated"
    sh.run("SHOW VARIABLES;")
    assert "src           | pv" in sh.take()[0]
    sh.run("UNDEFINE nothing;")
    # ksqlDB's shell prints the sentence as it is, with its full stop (the REST warning entity has none)
    assert sh.take()[0].strip() == "Cannot undefine variable 'nothing' which was never defined."


def test_set_refuses_what_a_server_fixes_at_start(sh: Captured) -> None:
    """ksqlDB's shell validates SET with LocalPropertyValidator: immutable properties are refused under the name
    their definition resolves to, after the value is parsed; the rest are set."""
    for name, shown, value in (("ksql.extension.dir", "ksql.extension.dir", "/x"),
                               ("bootstrap.servers", "bootstrap.servers", "h:9092"),
                               ("ksql.streams.bootstrap.servers", "bootstrap.servers", "h:9092"),
                               ("ksql.query.persistent.active.limit", "ksql.query.persistent.active.limit", "1"),
                               ("ksql.pull.queries.enable", "ksql.pull.queries.enable", "false"),
                               ("ksql.headers.columns.enabled", "ksql.headers.columns.enabled", "false"),
                               ("ssl.truststore.location", "ssl.truststore.location", "/t"),
                               ("consumer.ssl.keystore.password", "ssl.keystore.password", "p")):
        assert not sh.run(f"SET '{name}'='{value}';"), name
        assert f"Cannot override property '{shown}'" in sh.take()[1], name
    assert not sh.run("SET 'ksql.query.persistent.active.limit'='x';")  # the value is parsed first
    assert "Invalid value x for configuration ksql.query.persistent.active.limit" in sh.take()[1]
    assert sh.run("SET 'ksql.streams.num.stream.threads'='2';")
    assert "Successfully changed local property 'ksql.streams.num.stream.threads'" in sh.take()[0]


def test_if_not_exists_is_a_warning(sh: Captured) -> None:
    sh.run(CREATE)
    sh.take()
    assert sh.run(CREATE.replace("CREATE STREAM", "CREATE STREAM IF NOT EXISTS"))
    out = sh.take()[0]
    # printed once: the warning entity's message (its ``warnings`` list does not repeat it)
    assert out.splitlines() == ["WARNING: Cannot add stream `PV`: A stream with the same name already exists."]


def test_output_json(sh: Captured) -> None:
    sh.run("output JSON")
    assert sh.take()[0] == "Output format set to JSON\n"
    sh.run(CREATE + "SHOW STREAMS;")  # one request (the shell gathers consecutive statements): one document
    text = sh.take()[0]
    assert text.startswith('[ {\n  "@type" : "currentStatus",\n'), text  # Jackson's layout, not Python's
    first = json.loads(text)
    assert first[0]["@type"] == "currentStatus"
    # the shell declares KSQL_PROCESSING_LOG too
    assert [s["name"] for s in first[1]["streams"]] == ["KSQL_PROCESSING_LOG", "PV"]
    sh.run("INSERT INTO pv (id, page) VALUES (1, 'a'); SELECT * FROM pv;")
    out = sh.take()[0]
    # each StreamedRow as Jackson's pretty printer writes it (ksqlDB's Console.printAsJson), then the shell's line
    header, rest = out.split("}\n}\n", 1)
    assert json.loads(header + "}\n}") == {"header": {"queryId": json.loads(header + "}\n}")["header"]["queryId"],
                                                      "schema": "`ID` INTEGER, `PAGE` STRING"}}
    assert rest.startswith('{\n  "row" : {\n    "columns" : [ 1, "a" ]\n  }\n}\n'), out
    assert rest.rstrip().endswith("Query terminated")
    assert not sh.run("output xml")


def test_run_script_and_spool(sh: Captured, tmp_path: Path) -> None:
    script = tmp_path / "setup.sql"
    script.write_text(CREATE + "\nINSERT INTO pv (id, page) VALUES (5, 'five');\n")
    spool = tmp_path / "spool.txt"
    sh.run(f"spool {spool}")
    sh.session.console.record_input(f"RUN SCRIPT '{script}';")
    assert sh.run(f"RUN SCRIPT '{script}';")
    sh.run("SELECT * FROM pv;")
    sh.run("spool off")
    text = spool.read_text()
    assert f"ksql> RUN SCRIPT '{script}';" in text
    assert "Stream created" in text and "|5 |five|" in text
    assert not sh.run("RUN SCRIPT '/no/such/file.sql';")
    assert "Failed to read file" in sh.take()[1]


def test_run_script_is_one_request(sh: Captured, tmp_path: Path) -> None:
    """RUN SCRIPT sends the file as one /ksql request (ksqlDB's shell): a SELECT in it is refused before
    anything runs, and a SET in it lasts for the rest of the file only."""
    script = tmp_path / "with_select.sql"
    script.write_text(CREATE + "\nSELECT * FROM pv;\n")
    assert not sh.run(f"RUN SCRIPT '{script}';")
    out, err = sh.take()
    assert err.splitlines()[0] == "The following statement types should be issued to the websocket endpoint '/query':"
    sh.run("SHOW STREAMS;")
    assert " PV " not in sh.take()[0]  # nothing ran
    script.write_text(CREATE + "\nSET 'auto.offset.reset'='earliest';\n"
                      "INSERT INTO pv (id, page) VALUES (1, 'one');\nCREATE STREAM pv2 AS SELECT * FROM pv;\n")
    assert sh.run(f"RUN SCRIPT '{script}';")
    assert sh.session.properties == {}
    sh.take()
    sh.run("SHOW PROPERTIES;")
    [line] = [ln for ln in sh.take()[0].splitlines() if "auto.offset.reset" in ln]
    assert line.split("|")[-1].strip() == "latest" and line.split("|")[2].strip() == ""
    sh.session.backend.engine.drain()
    sh.run("SELECT * FROM pv2;")  # the script's SET applied to its own CREATE ... AS SELECT
    assert "|1 |one |" in sh.take()[0]


def test_print_topic(sh: Captured) -> None:
    sh.run(CREATE + "".join(f"INSERT INTO pv (id, page) VALUES ({i}, 'p{i}');" for i in range(5)))
    sh.take()
    assert sh.run("PRINT 'pv' FROM BEGINNING INTERVAL 2 LIMIT 2;")
    lines = sh.take()[0].splitlines()
    assert lines[0] == "Key format: KAFKA_INT"
    assert lines[1] == "Value format: JSON or KAFKA_STRING"
    assert "key: 0, value: {\"PAGE\":\"p0\"}, partition: 0" in lines[2]
    assert "key: 2," in lines[3]
    assert lines[-1] == "Topic printing ceased"
    assert not sh.run("PRINT 'PV';")
    assert "Could not find topic 'PV'" in sh.take()[1]


def test_cli_commands(sh: Captured) -> None:
    sh.run("help")
    assert "CLI commands" in sh.take()[0]
    sh.run("version;")
    assert "Version: " in sh.take()[0]
    sh.run("output")
    assert "Current output format: TABULAR" in sh.take()[0]
    with pytest.raises(ExitShell):
        sh.run("SHOW STREAMS; exit")


def test_unexpected_engine_errors_do_not_end_the_session(sh: Captured, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(sql: str, properties: dict) -> list:
        raise RuntimeError("kaput")

    monkeypatch.setattr(sh.session.backend, "execute", boom)
    assert not sh.run("SHOW STREAMS;")
    shown = sh.take()[1]
    assert "Internal error: the shell failed unexpectedly" in shown
    assert "RuntimeError" not in shown and "kaput" not in shown  # no Python exception text


def test_backend_error_position_from_message() -> None:
    e = BackendError("line 3:7: Syntax Error", statement="a\nb\nc")
    assert (e.line, e.column) == (3, 7)
    e = BackendError("Line: 2, Col: 4: SELECT column 'X' cannot be resolved.", statement="a\nbcde")
    assert (e.line, e.column) == (2, 4)
    e = BackendError("Failed to prepare statement: line 1:9: Invalid numeric literal: 99999999999999999999")
    assert (e.line, e.column) == (1, 9)


def test_insert_values_errors_and_struct_values_in_the_shell(sh: Captured) -> None:
    assert sh.run("CREATE STREAM parcels (id INT KEY, dest STRUCT<city STRING, zip INT>) WITH (kafka_topic='parcels', "
                  "value_format='JSON', partitions=1);")
    sh.take()
    assert not sh.run("INSERT INTO parcels (id, dest) VALUES (1, 'Oslo');")
    _, err = sh.take()
    assert ("Failed to insert values into 'PARCELS'. Expected type STRUCT<`CITY` STRING, `ZIP` INTEGER> for field "
            "`DEST` but got STRING(Oslo)") in err
    assert not sh.run("INSERT INTO parcels (id, rowpartition) VALUES (1, 0);")
    assert "Inserting into column `ROWPARTITION` is not allowed." in sh.take()[1]
    assert sh.run("INSERT INTO parcels VALUES (2, STRUCT(city := 'Oslo', extra := true));")
    assert sh.run("SET 'auto.offset.reset' = 'earliest'; SELECT dest FROM parcels EMIT CHANGES LIMIT 1;")
    assert "{CITY=Oslo, ZIP=null}" in sh.take()[0]  # the struct's fields the value did not name are NULL


@pytest.mark.parametrize("entry", [";", "  ;  ", "-- nothing but a comment\n;", "123;"])
def test_text_that_is_no_statement_is_refused_by_the_parser(sh: Captured, entry: str) -> None:
    """ksqlDB's shell parses what it is given: an empty statement or a bare value is a syntax error, not silence."""
    assert not sh.run(entry)
    out, err = sh.take()
    assert out == ""
    assert err.startswith("line ") and "Syntax Error" in err


def test_blank_entries_are_nothing(sh: Captured) -> None:
    assert sh.run("   \n")
    assert sh.take() == ("", "")


def test_set_cli_wrap_and_column_width(sh: Captured) -> None:
    """``set cli COLUMN-WIDTH n`` fixes every column's width; ``set cli WRAP OFF`` clips a longer value to one
    line ending in '...', ON (the default) continues it on the next lines; bad values are refused."""
    sh.run(CREATE + " INSERT INTO pv (id, page) VALUES (1, 'a long page name');")
    sh.take()
    query = "SELECT page, id FROM pv EMIT CHANGES LIMIT 1;"
    sh.session.properties["auto.offset.reset"] = "earliest"
    assert sh.run("set cli COLUMN-WIDTH 8") and sh.run("SET CLI wrap off;")
    assert sh.run(query)
    out = sh.take()[0].splitlines()
    assert out[:4] == ["+--------+--------+", "|PAGE    |ID      |", "+--------+--------+", "|a lon...|1       |"]
    assert sh.run("set cli WRAP ON") and sh.run(query)
    out = sh.take()[0].splitlines()
    assert out[3:5] == ["|a long p|1       |", "|age name|        |"]
    for bad, message in (("set cli WRAP maybe", "Invalid value maybe for configuration WRAP: String must be one of: "
                                                "ON, OFF"),
                         ("set cli COLUMN-WIDTH -1", "Invalid value -1 for configuration COLUMN-WIDTH: Value must "
                                                     "be at least 0"),
                         ("set cli COLUMN-WIDTH x", "Not a number of type INT"),
                         ("set cli COLOR red", "Undefined property: COLOR"),
                         ("set cli WRAP", "set cli takes a property and a value")):
        assert not sh.run(bad)
        assert message in sh.take()[1], bad
    assert sh.run("set cli COLUMN-WIDTH 0") and sh.session.column_width == 0


def test_server_command_in_an_embedded_shell(sh: Captured) -> None:
    assert sh.run("server")
    assert sh.take()[0].strip()  # the data directory
    assert not sh.run("server http://localhost:8088")
    assert "An embedded shell has no server to switch" in sh.take()[1]


def test_run_script_is_a_shell_command(sh: Captured, tmp_path: Path) -> None:
    """``run script <path>`` is one of the shell's own commands (case-insensitive, ';' optional): the path may
    be quoted (read as a SQL string) or the rest of the line; a pipe or file feeding the shell submits it
    without ';'."""
    from ksqlpy.cli.runner import run_lines
    from ksqlpy.cli.session import is_cli_command

    script = tmp_path / "it's.sql"
    script.write_text(CREATE)
    plain = tmp_path / "plain.sql"
    plain.write_text("CREATE STREAM pv3 (id INT KEY) WITH (kafka_topic='pv3', value_format='JSON', partitions=1);")
    assert is_cli_command(f"run script {plain}") and is_cli_command("RUN SCRIPT 'x.sql';")
    assert sh.run(f"RUN SCRIPT '{str(script).replace(chr(39), chr(39) * 2)}';")
    assert "Stream created" in sh.take()[0]
    assert run_lines(sh.session, [f"run script {plain}\n", "SHOW STREAMS;\n"]) == 0
    out = sh.take()[0]
    assert "Stream created" in out and "PV3" in out
    assert not sh.run("run script /no/such/file.sql")
    assert "Failed to read file: /no/such/file.sql" in sh.take()[1]


def test_a_failing_statement_of_a_request_prints_the_ones_that_ran_before_its_error(tmp_path: Path) -> None:
    """A request's statement_error carries the entities of the statements before the failing one; the shell
    prints them, then the error (ksqlDB's Console.printErrorMessage). RUN SCRIPT's one request to the
    embedded engine is validated whole first, as a server's: a statement that fails there (a DROP of an
    unknown source) or a syntax error anywhere in it runs nothing; a DESCRIBE is not validated (ksqlDB's
    CustomValidators: NO_VALIDATION), so the statements before it run and are printed before its error."""
    both = io.StringIO()  # stdout and stderr in one stream: the order the user sees
    backend = EmbeddedBackend(str(tmp_path / "data"))
    try:
        session = Session(backend, Console(both, both, color=False))
        script = tmp_path / "s.sql"
        script.write_text(CREATE + "\nDROP STREAM nope;\nCREATE STREAM q (a INT) WITH (kafka_topic='q', "
                          "value_format='JSON', partitions=1);\n")
        assert not session.run_entry(f"RUN SCRIPT '{script}';")
        text = both.getvalue()
        assert text.count("Stream created") == 0 and "NOPE does not exist" in text
        assert not session.run_entry("DESCRIBE pv;")  # the CREATE before the failing statement did not run
        both.seek(0), both.truncate()
        script.write_text(CREATE + "\nDESCRIBE nope;\nCREATE STREAM q (a INT) WITH (kafka_topic='q', "
                          "value_format='JSON', partitions=1);\n")
        assert not session.run_entry(f"RUN SCRIPT '{script}';")
        text = both.getvalue()
        assert text.count("Stream created") == 1
        assert text.index("Stream created") < text.index("Could not find STREAM/TABLE 'NOPE'")
        assert session.run_entry("DESCRIBE pv;") and not session.run_entry("DESCRIBE q;")  # up to the failure
        assert session.run_entry("DROP STREAM pv;")
        both.seek(0), both.truncate()
        session.show_error(BackendError("boom", entities=[{"@type": "currentStatus", "statementText": "x;",
                                                           "commandStatus": {"status": "SUCCESS",
                                                                             "message": "Table created"}}]))
        assert both.getvalue().index("Table created") < both.getvalue().index("boom")
        both.seek(0), both.truncate()
        assert session.run_entry(CREATE)
        both.seek(0), both.truncate()
        script.write_text("SHOW STREAMS;\nDROP STREAM pv;\nSHOW STREAMX;\n")
        assert not session.run_entry(f"RUN SCRIPT '{script}';")
        assert "line 3:6: Syntax Error" in both.getvalue() and "Stream Name" not in both.getvalue()
        assert session.run_entry("DESCRIBE pv;")  # the DROP before the syntax error did not run
    finally:
        backend.close()
