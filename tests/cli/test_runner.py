"""Non-interactive use: -e, -f and piped stdin, with exit statuses scripts can rely on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CREATE = ("CREATE STREAM pv (id INT KEY, page STRING) "
          "WITH (kafka_topic='pv', value_format='JSON', partitions=1);")


@pytest.fixture
def ksqlpy(tmp_path: Path):  # type: ignore[no-untyped-def]
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path / "state"), XDG_DATA_HOME=str(tmp_path / "xdg"),
               HOME=str(tmp_path))
    env.pop("KSQLPY_DATA_DIR", None)

    def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ksqlpy", "--data-dir", str(tmp_path / "data"), *args],
                              input=stdin if stdin is not None else "", capture_output=True, text=True,
                              env=env, timeout=60)

    return run


def test_execute_success_and_failure(ksqlpy) -> None:  # type: ignore[no-untyped-def]
    ok = ksqlpy("-e", CREATE + " INSERT INTO pv (id, page) VALUES (1, 'a'); SELECT * FROM pv;")
    assert ok.returncode == 0, ok.stderr
    assert "Stream created" in ok.stdout and "|1 |a   |" in ok.stdout
    # one request, validated whole (DROP is checked in the sandbox; a DESCRIBE, as in ksqlDB, is not): nothing runs
    bad = ksqlpy("-e", "SHOW STREAMS; DROP STREAM nope; SHOW TOPICS;")
    assert bad.returncode == 1 and "Stream NOPE does not exist." in bad.stderr
    assert "Stream Name" not in bad.stdout and "Partition Replicas" not in bad.stdout
    # a SELECT is the shell's own: the request before it has run, the one after it does not
    bad = ksqlpy("-e", "SHOW STREAMS; SELECT * FROM nope; SHOW TOPICS;")
    assert bad.returncode == 1
    assert "Stream Name" in bad.stdout and "Partition Replicas" not in bad.stdout  # stopped at the error
    assert "\x1b[" not in bad.stderr  # no colour when not on a terminal
    bad = ksqlpy("-e", "SHOW STREAMS; SELECT * FRM pv; SHOW TOPICS;")  # parsed whole first: nothing runs
    assert bad.returncode == 1
    assert "line 1:24" in bad.stderr and "^" in bad.stderr
    assert "Stream Name" not in bad.stdout and "Partition Replicas" not in bad.stdout


def test_file(ksqlpy, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    script = tmp_path / "s.sql"
    script.write_text("-- a script\n" + CREATE + "\nINSERT INTO pv (id, page)\n  VALUES (2, 'b');\n"
                      "SET 'auto.offset.reset'='earliest';\nSELECT * FROM pv EMIT CHANGES LIMIT 1;\n")
    r = ksqlpy("-f", str(script))
    assert r.returncode == 0, r.stderr
    assert "|2 " in r.stdout and "Query terminated" in r.stdout
    assert "Press CTRL-C" not in r.stdout
    missing = ksqlpy("-f", str(tmp_path / "nope.sql"))
    assert missing.returncode == 1 and "Cannot read" in missing.stderr


def test_piped_stdin(ksqlpy) -> None:  # type: ignore[no-untyped-def]
    r = ksqlpy(stdin=CREATE + "\nSHOW\n STREAMS;\nhelp\nINSERT INTO pv (id, page) VALUES (3, 'c');\nSELECT * FROM pv;")
    assert r.returncode == 0, r.stderr
    assert "PV " in r.stdout and "CLI commands" in r.stdout and "|3 |c   |" in r.stdout
    assert "ksqlpy v" in r.stdout and "|_|" not in r.stdout  # the welcome, without the logo
    # piped input is ksqlDB's interactive loop: the error printed, the next entry run, status 0 at the end
    bad = ksqlpy(stdin="DESCRIBE missing;\nSHOW STREAMS;\n")
    assert bad.returncode == 0 and "MISSING" in bad.stderr and "Stream Name" in bad.stdout
    assert bad.stdout.endswith("Exiting ksqlDB.\n")
    # a statement left without its ';' at the end of the input is refused, not run (nor dropped silently)
    cut = ksqlpy(stdin="SHOW STREAMS;\nSHOW TOPICS\n")
    assert cut.returncode == 0 and "missing ';' at '<EOF>'" in cut.stderr and "Stream Name" in cut.stdout
    assert "Partition Replicas" not in cut.stdout


def test_json_output_defines_and_row_limit(ksqlpy) -> None:  # type: ignore[no-untyped-def]
    r = ksqlpy("--output", "json", "-d", "topic=pv", "--query-row-limit", "1", "-e",
               CREATE.replace("'pv'", "'${topic}'") + " INSERT INTO pv (id, page) VALUES (1, 'a');"
               "INSERT INTO pv (id, page) VALUES (2, 'b'); SET 'auto.offset.reset'='earliest';"
               "SELECT * FROM pv EMIT CHANGES;")
    assert r.returncode == 0, r.stderr
    assert '  "header" : {' in r.stdout and '    "schema" : "`ID` INTEGER, `PAGE` STRING"' in r.stdout, r.stdout
    lines = r.stdout.splitlines()
    assert '    "columns" : [ 1, "a" ]' in lines and '    "columns" : [ 2, "b" ]' not in lines
    assert "Query terminated" in r.stdout


def test_exit_statement_ends_the_run(ksqlpy) -> None:  # type: ignore[no-untyped-def]
    r = ksqlpy("-e", "SHOW STREAMS; exit; SHOW TOPICS;")
    assert r.returncode == 0 and "Partition Replicas" not in r.stdout


def test_bad_arguments(ksqlpy) -> None:  # type: ignore[no-untyped-def]
    assert ksqlpy("not-a-url").returncode == 2
    assert ksqlpy("--output", "xml").returncode == 2


@pytest.mark.parametrize("line,message", [
    ("ksql.foo.bar=1", "invalid property found: Not recognizable as ksql, streams, consumer, or producer property: "
                       "'ksql.foo.bar'"),
    ("no.such.setting=1", "invalid property found: Not recognizable as ksql, streams, consumer, or producer "
                          "property: 'no.such.setting'"),
    ("ksql.streams.auto.offset.reset=sideways", "invalid property found: Invalid value sideways for configuration "
                                                "auto.offset.reset: String must be one of: latest, "
                                                "earliest, none"),
])
def test_config_file_properties_are_checked_as_ksqldb_checks_them(ksqlpy, tmp_path: Path, line: str,  # type: ignore[no-untyped-def]
                                                                  message: str) -> None:
    """ksqlDB's shell parses each --config-file property as a SET and does not start on a bad one."""
    cfg = tmp_path / "shell.properties"
    cfg.write_text(f"# a comment\n{line}\n")
    r = ksqlpy("--config-file", str(cfg), "-e", "SHOW STREAMS;")
    assert r.returncode == 1 and r.stderr.strip() == message and "Stream Name" not in r.stdout
    cfg.write_text("ksql.streams.auto.offset.reset=earliest\nksql.functions.collect_list.limit=5\n"
                   "ksql.any.key.name.enabled=true\nksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__=0\n")
    assert ksqlpy("--config-file", str(cfg), "-e", "SHOW STREAMS;").returncode == 0


@pytest.mark.parametrize("text, where", [
    ("SHOW STREAMS", "line 1:13"),
    (CREATE + " SHOW TOPICS", "line 1:115"),
    ("SHOW STREAMS;\nSHOW\n  TOPICS ", "line 3:10"),
])
def test_unterminated_last_statement_refused(ksqlpy, tmp_path: Path, text: str, where: str) -> None:  # type: ignore[no-untyped-def]
    """Every statement ends in ';', the last one too (ksqlDB's grammar; its shell parses a script whole): the
    embedded shell refuses an unterminated last statement before anything runs, as a server does - through
    -e, --file and RUN SCRIPT - with the position in the whole text. The shell's own commands need no ';'."""
    r = ksqlpy("-e", text)
    assert r.returncode == 1
    assert where in r.stderr and "missing ';' at '<EOF>'" in r.stderr, r.stderr
    assert "Stream created" not in r.stdout and "Stream Name" not in r.stdout  # nothing ran
    script = tmp_path / "s.sql"
    script.write_text(text)
    assert ksqlpy("--file", str(script)).returncode == 1
    runner = tmp_path / "run.sql"
    runner.write_text(f"RUN SCRIPT '{script}';\nSHOW STREAMS;\n")
    r = ksqlpy("--file", str(runner))
    assert r.returncode == 1 and "missing ';' at '<EOF>'" in r.stderr
    assert ksqlpy("-e", "SHOW STREAMS; version").returncode == 0


@pytest.mark.parametrize("how", ["-e", "--file", "RUN SCRIPT"])
def test_a_later_statements_syntax_error_refuses_the_whole_entry(ksqlpy, tmp_path: Path, how: str) -> None:  # type: ignore[no-untyped-def]
    """ksqlDB's shell parses a whole entry before it runs any statement of it (Cli.handleStatements): a
    syntax error in the third statement is shown with its place in the whole text and nothing runs. The
    consecutive statements the shell does not handle itself go as one request (RUN SCRIPT's file too), which
    the server validates whole: an error only running a statement finds (an unknown source) runs none of
    them either; a statement the shell handles (SET, DEFINE, a SELECT...) splits the entry in two requests."""
    def run(text: str) -> subprocess.CompletedProcess[str]:
        script = tmp_path / "s.sql"
        script.write_text(text)
        if how == "-e":
            return ksqlpy("-e", text)
        if how == "--file":
            return ksqlpy("--file", str(script))
        runner = tmp_path / "run.sql"
        runner.write_text(f"RUN SCRIPT '{script}';\n")
        return ksqlpy("--file", str(runner))

    r = run(CREATE + "\nSHOW STREAMS;\nCREATE STREAMS x (a INT) WITH (kafka_topic='x', value_format='JSON');\n")
    assert r.returncode == 1
    assert "line 3:8: Syntax Error" in r.stderr, r.stderr
    assert "Stream created" not in r.stdout and "Stream Name" not in r.stdout  # nothing ran
    r = run(CREATE + "\nCREATE STREAM c AS SELECT * FROM nope;\nCREATE STREAM q (a INT) WITH (kafka_topic='q', value_format='JSON', "
            "partitions=1);\n")
    assert r.returncode == 1 and "nope" in r.stderr.lower(), r.stderr
    assert "Stream created" not in r.stdout  # validated whole: none ran
    assert " PV " not in ksqlpy("-e", "SHOW STREAMS;").stdout
    if how == "RUN SCRIPT":
        return
    # a DEFINE between them: the first request runs before the shell defines the variable, the second fails
    r = run(CREATE + "\nDEFINE v = 'x';\nCREATE STREAM c AS SELECT * FROM nope;\nCREATE STREAM q (a INT) WITH (kafka_topic='q', "
            "value_format='JSON', partitions=1);\n")
    assert r.returncode == 1 and "nope" in r.stderr.lower(), r.stderr
    assert r.stdout.count("Stream created") == 1, r.stdout
    assert "Q " not in ksqlpy("-e", "SHOW STREAMS;").stdout
