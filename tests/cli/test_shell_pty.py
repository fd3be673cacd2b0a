"""Acceptance tests: the real shell in a pseudo-terminal, typed at like a user would.

Each test runs against every target of the ``target`` fixture (embedded now; the server when it
exists), so the remote shell gets the same checks by a fixture swap.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import termios
import time
import uuid

import pytest

pexpect = pytest.importorskip("pexpect")


@pytest.fixture
def name() -> str:
    return f"PV_{uuid.uuid4().hex[:6].upper()}"


def create(sh, name: str) -> None:  # type: ignore[no-untyped-def]
    """CREATE over two lines: the first Enter must open a continuation line, not run anything."""
    sh.send_line(f"CREATE STREAM {name} (id INT KEY, page STRING)")
    sh.expect(r"> ")  # continuation prompt
    sh.send_line(f"  WITH (kafka_topic='{name.lower()}', value_format='JSON', partitions=1);")
    sh.expect("Stream created")
    sh.wait_prompt()


def insert(sh, name: str, rows: list[tuple[int, str]]) -> None:  # type: ignore[no-untyped-def]
    """Several INSERT VALUES on one line."""
    line = " ".join(f"INSERT INTO {name} (id, page) VALUES ({i}, '{p}');" for i, p in rows)
    sh.run(line)


def test_create_two_lines_insert_and_push_query_with_limit(spawn_shell, name) -> None:  # type: ignore[no-untyped-def]
    sh = spawn_shell()
    create(sh, name)
    insert(sh, name, [(1, "home"), (2, "about"), (3, "blog")])
    sh.run("SET 'auto.offset.reset'='earliest';", "Successfully changed local property")
    out = sh.run(f"SELECT * FROM {name} EMIT CHANGES LIMIT 2;", r"\|ID +\|PAGE", r"\|1 +\|home", r"\|2 +\|about",
                 "Limit Reached", r"Query terminated")
    assert "blog" not in out
    sh.run("SHOW STREAMS;", name)


def _inherit(state: str) -> None:
    """Run in the shell's process before exec: the SIGINT state it inherits from whoever started it."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_IGN if state == "ignored" else signal.SIG_DFL)
    if state == "blocked":
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _signal_state(pid: int | str) -> str:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            return " ".join(" ".join(ln.split()) for ln in f if ln.startswith(("SigBlk", "SigIgn", "SigCgt")))
    except OSError as e:
        return f"({e})"


def _interrupt_state(sh) -> str:  # type: ignore[no-untyped-def]
    """What decides whether Ctrl-C on the pty reaches the shell as SIGINT, for a failure message: the
    shell's and this process's signal masks and dispositions (/proc), and the pty's ISIG flag (off in raw
    mode: ^C is then read as a byte, not a signal)."""
    try:
        isig: object = bool(termios.tcgetattr(sh.child.child_fd)[3] & termios.ISIG)
    except (termios.error, OSError) as e:
        isig = f"unknown ({e})"
    return f"shell pid {sh.child.pid}: {_signal_state(sh.child.pid)}; pytest: {_signal_state('self')}; pty ISIG: {isig}"


# "ignored": what a process started from a background job of a non-interactive shell (``cmd &``, nohup)
# inherits - the CI ran this way and Ctrl-C was lost; "blocked": a mask some launchers leave set
@pytest.mark.parametrize("inherited", ["default", "ignored", "blocked"])
def test_push_query_interrupted_with_ctrl_c(spawn_shell, name, inherited: str) -> None:  # type: ignore[no-untyped-def]
    sh = spawn_shell(preexec_fn=lambda: _inherit(inherited))
    create(sh, name)
    insert(sh, name, [(1, "home"), (2, "about")])
    sh.run("SET 'auto.offset.reset'='earliest';")
    sh.send_line(f"SELECT * FROM {name} EMIT CHANGES;")
    sh.expect("Press CTRL-C to interrupt")
    sh.expect(r"\|2 +\|about")
    time.sleep(0.3)  # the query is now waiting for more rows
    state = _interrupt_state(sh)
    sh.child.sendintr()
    try:
        sh.expect(r"Query terminated")
    except pexpect.TIMEOUT:
        pytest.fail(f"Ctrl-C did not end the push query. At sendintr: {state}; now: {_interrupt_state(sh)}")
    sh.wait_prompt()
    # the shell survived and the query is gone
    out = sh.run("SHOW QUERIES;", "Query ID")
    assert "transient_" not in out
    sh.run(f"SELECT * FROM {name} EMIT CHANGES LIMIT 1;", r"Query terminated")


def test_syntax_error_shows_line_and_column_in_red(spawn_shell, name) -> None:  # type: ignore[no-untyped-def]
    sh = spawn_shell()
    sh.send_line("SELECT *")
    sh.send_line(f"  FRM {name};")
    out = sh.expect(r"\^")
    sh.wait_prompt()
    assert "line 2:3" in out
    assert "\x1b[31m" in out  # red
    assert re.search(r"2 \| +FRM", out)
    caret_line = [ln for ln in out.replace("\r", "").split("\n") if ln.strip().endswith("^")][-1]
    source_line = [ln for ln in out.replace("\r", "").split("\n") if "2 | " in ln][-1]
    clean = re.sub(r"\x1b\[[0-9;]*m", "", caret_line)
    src = re.sub(r"\x1b\[[0-9;]*m", "", source_line)
    assert src[clean.index("^")] == "F"
    # the shell goes on
    sh.run("SHOW STREAMS;", "Stream Name")


def test_completion_of_a_stream_name(spawn_shell, name) -> None:  # type: ignore[no-untyped-def]
    sh = spawn_shell()
    create(sh, name)
    sh.child.send(f"DESCRIBE {name[:5].lower()}")
    sh.child.send("\t")
    sh.expect(name)  # the completion was inserted
    sh.child.send(";\r")
    sh.expect(rf"Name +: {name}")
    sh.wait_prompt()


def test_history_across_restarts_and_ctrl_r(spawn_shell) -> None:  # type: ignore[no-untyped-def]
    sh = spawn_shell()
    sh.run("DEFINE marker = 'first';")
    sh.run("DEFINE other = 'second';")
    sh.send_line("exit")
    sh.expect("Exiting ksqlDB")
    sh.child.expect(pexpect.EOF)

    sh2 = spawn_shell()
    sh2.child.send("\x1b[A")  # Up: the last entry of the previous session
    sh2.expect("other")
    sh2.child.send("\r")
    sh2.wait_prompt()
    sh2.run("SHOW VARIABLES;", r"other +\| second")  # a round trip: the shell is reading input again
    sh2.child.send("\x12")  # Ctrl-R: reverse search
    sh2.expect("I-search backward")  # let the search prompt open before typing (slow under load)
    sh2.child.send("marker")
    sh2.expect("first")
    sh2.child.send("\r")  # accept the search result into the buffer
    time.sleep(0.2)
    sh2.child.send("\r")  # run it
    sh2.wait_prompt()
    sh2.run("SHOW VARIABLES;", r"other +\| second", r"marker +\| first")


def test_ctrl_d_exits_and_ctrl_c_discards_input(spawn_shell) -> None:  # type: ignore[no-untyped-def]
    sh = spawn_shell()
    sh.child.send("SELECT * FROM half_typed")
    sh.child.sendintr()
    sh.expect(r"\^C")  # as the ksql CLI shows a discarded line
    sh.wait_prompt()
    sh.run("SHOW TOPICS;", "Kafka Topic")
    sh.child.sendeof()
    sh.expect("Exiting ksqlDB")
    sh.child.expect(pexpect.EOF)
    sh.child.close()
    assert sh.child.exitstatus == 0


def test_help_output_json_and_print(spawn_shell, name) -> None:  # type: ignore[no-untyped-def]
    sh = spawn_shell()
    sh.run("help", "CLI commands")
    create(sh, name)
    insert(sh, name, [(7, "x")])
    sh.run(f"PRINT '{name.lower()}' FROM BEGINNING LIMIT 1;", "Value format: JSON", r"key: 7, value: \{",
           "Topic printing ceased")
    sh.run("output json", "Output format set to JSON")
    # Jackson's default pretty printer, as ksqlDB's Console: `[ {`, `"name" : value`, inline arrays
    sh.run("SHOW STREAMS;", r'\[ \{\r?\n  "@type" : "streams",\r?\n  "statementText" : "SHOW STREAMS;"')
    # a query prints its StreamedRows: the header, each row, the final message; then the shell's own line
    sh.run(f"SELECT * FROM {name};", r'\{\r?\n  "header" : \{\r?\n    "queryId" : "[^"]*",\r?\n    "schema" : "`ID` ',
           r'\{\r?\n  "row" : \{\r?\n    "columns" : \[ 7, "x" \]\r?\n  \}\r?\n\}', "Query terminated")
    sh.run("output tabular", "Output format set to TABULAR")


def test_startup_reaches_the_prompt(spawn_shell, record_property) -> None:  # type: ignore[no-untyped-def]
    """The shell reaches a usable prompt each time; the time it took is recorded, not asserted (a timed
    assertion fails on a loaded machine; what keeps start-up short is checked below, deterministically)."""
    times = []
    for _ in range(3):
        sh = spawn_shell()
        times.append(sh.startup_s)
        sh.run("SHOW STREAMS;", "KSQL_PROCESSING_LOG")
        sh.close()
    record_property("startup_s", round(min(times), 3))
    print(f"startup to prompt: {[round(t, 3) for t in times]}")


# what the embedded shell must not load to start and run a statement: each costs 0.2-2 s of imports
HEAVY_MODULES = ("pyspark", "pandas", "pyarrow", "numpy", "matplotlib", "fastapi", "starlette", "hypercorn",
                 "httpx", "confluent_kafka", "fastavro", "google")


def test_startup_imports_nothing_heavy(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Start-up time is import time: the embedded shell runs a statement without importing Spark, the server
    stack, the Kafka client or the schema-registry formats (they load when a statement needs them)."""
    probe = (
        "import sys, atexit\n"
        f"heavy = {HEAVY_MODULES!r}\n"
        "atexit.register(lambda: print('LOADED', sorted({m.split('.')[0] for m in sys.modules} & set(heavy))))\n"
        f"sys.argv = ['ksqlpy', '--data-dir', {str(tmp_path / 'data')!r}, '-e', 'SHOW STREAMS;']\n"
        "from ksqlpy.__main__ import main\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert "KSQL_PROCESSING_LOG" in done.stdout, done.stderr
    assert "LOADED []" in done.stdout, done.stdout[-500:]


def test_set_cli_and_request_pipelining_need_no_semicolon(spawn_shell, name) -> None:  # type: ignore[no-untyped-def]
    """The shell's own commands run on Enter without ';': ``set cli`` changes how the next result is drawn,
    ``request-pipelining`` shows and sets its mode."""
    sh = spawn_shell()
    create(sh, name)
    insert(sh, name, [(7, "a rather long page")])
    sh.run("set cli COLUMN-WIDTH 9")
    sh.run("set cli WRAP OFF")
    sh.run("SET 'auto.offset.reset'='earliest';", "Successfully changed local property")
    sh.run(f"SELECT page FROM {name} EMIT CHANGES LIMIT 1;", re.escape("|a rath...|"), "Limit Reached")
    sh.run("request-pipelining", "Current request-pipelining value: OFF")
    sh.run("request-pipelining ON", "request-pipelining set to ON")


def test_a_line_of_comments_is_an_entry_of_its_own(spawn_shell) -> None:  # type: ignore[no-untyped-def]
    """ksqlDB's line reader accepts a line whose text without comments is empty at once (KsqlLineParser, from
    memory), as an empty line: a new prompt, not a continuation line; the next statement's positions count
    from its own first line. An unclosed block comment still reads on."""
    sh = spawn_shell()
    for comment in ("-- a note", "/* a block */", "/* two */ -- kinds"):
        sh.send_line(comment)
        sh.child.expect(r"ksql>", timeout=5)
    sh.run("SELECT * FRM nowhere;", r"line 1:10: Syntax Error")
    sh.send_line("/* still")
    sh.child.expect(r"\s>", timeout=5)  # the continuation line
    sh.run("open */ SHOW TOPICS;", "Kafka Topic")
