"""Statements piped into the shell run as ksqlDB's interactive loop runs typed ones (Cli.runInteractively, from
memory of ksqlDB's Ksql.run: only ``-e`` and ``-f`` take the one-text paths): the welcome (without the logo),
each entry's error printed and the next entry run, ``Exiting ksqlDB.`` at EXIT or at the end of the input, and
status 0. ``-e`` and ``-f`` still stop at the first error with status 1.

Each test runs embedded and against a ``ksqlpy server`` (the ``target`` fixture of conftest), through a real
pipe (``subprocess`` with ``stdin=PIPE``, fed a line at a time) and, where the terminal matters, a shell
pipeline whose output is a pseudo-terminal.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

CREATE = ("CREATE STREAM pv (id INT KEY, page STRING) "
          "WITH (kafka_topic='pv', value_format='JSON', partitions=1);")


def _shell(target: list[str], env: dict[str, str], *extra: str) -> subprocess.Popen[str]:
    env = dict(env, NO_COLOR="1")
    return subprocess.Popen([sys.executable, "-m", "ksqlpy", *target, *extra], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, bufsize=1)


def _read_until(proc: subprocess.Popen[str], needle: str, timeout: float = 30) -> str:
    """stdout read until ``needle`` shows, with the pipe still open (nothing waits for its end). Read from the
    descriptor, not the text wrapper: a wrapper's buffer can hold what select() no longer sees."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    seen = b""
    deadline = time.monotonic() + timeout
    while needle.encode() not in seen:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            pytest.fail(f"{needle!r} not printed in {timeout}s; printed: {seen!r}")
        chunk = os.read(fd, 65536)
        if not chunk:
            pytest.fail(f"output ended before {needle!r}; printed: {seen!r}")
        seen += chunk
    return seen.decode()


def _finish(proc: subprocess.Popen[str], rest: str = "") -> tuple[int, str, str]:
    out, err = proc.communicate(rest, timeout=60)
    return proc.returncode, out, err


def test_errors_are_printed_and_the_next_entry_runs(target: list[str], shell_env: dict[str, str]) -> None:
    proc = _shell(target, shell_env)
    assert proc.stdin is not None
    proc.stdin.write("SHOW FOO;\n")  # a syntax error
    proc.stdin.write("version\n")
    proc.stdin.flush()
    # the entry after the error ran while the pipe is still open: entries run as their lines arrive
    head = _read_until(proc, "Version: ")
    proc.stdin.write(CREATE + "\nDESCRIBE nope;\n")  # an error the engine finds
    proc.stdin.write("SHOW STREAMS; DESCRIBE nope; SHOW TOPICS;\n")  # within one entry the error still stops it
    proc.stdin.write("INSERT INTO pv (id, page) VALUES (1, 'a');\nSET 'auto.offset.reset'='earliest';\n")
    proc.stdin.write("SELECT * FROM pv EMIT CHANGES LIMIT 1;\n")
    code, out, err = _finish(proc)
    out = head + out
    assert code == 0, err
    assert "Syntax Error" in err and "DESCRIBE nope" not in out
    assert err.count("Could not find STREAM/TABLE 'NOPE' in the Metastore") == 2, err
    assert "Stream created" in out and "|1 " in out and "Limit Reached" in out
    assert "PV " in out and "Partition Replicas" not in out  # the entry stopped at its DESCRIBE
    assert out.endswith("Query terminated\nExiting ksqlDB.\n"), out
    assert "Press CTRL-C" not in out


def test_welcome_without_the_logo(target: list[str], shell_env: dict[str, str]) -> None:
    code, out, err = _finish(_shell(target, shell_env), "SHOW STREAMS;\n")
    assert code == 0, err
    first = out.splitlines()[0]
    remote = "--server" in target
    assert first.startswith("CLI v" if remote else "ksqlpy v"), out
    assert ("Server Status: RUNNING" in out) == remote
    assert "Having trouble? Type 'help' (case-insensitive) for a rundown of how things work!" in out
    assert "|_|" not in out  # no logo without a terminal's width
    assert out.index("Having trouble") < out.index("Stream Name")
    code, out, err = _finish(_shell(target, shell_env, "--no-banner"), "SHOW STREAMS;\n")
    assert code == 0 and out.startswith("\n Stream Name"), out


def test_exit_and_end_of_input(target: list[str], shell_env: dict[str, str]) -> None:
    code, out, err = _finish(_shell(target, shell_env, "--no-banner"), "SHOW STREAMS;\nexit\nSHOW TOPICS;\n")
    assert code == 0 and "Stream Name" in out and "Partition Replicas" not in out
    assert out.endswith("Exiting ksqlDB.\n") and out.count("Exiting ksqlDB.") == 1
    # nothing piped at all: the welcome, then the end of the input
    code, out, err = _finish(_shell(target, shell_env, "--no-banner"))
    assert (code, out, err) == (0, "Exiting ksqlDB.\n", "")
    # a statement cut off by the end of the input is refused with its error (not dropped unseen), then the end
    code, out, err = _finish(_shell(target, shell_env, "--no-banner"), "SHOW STREAMS;\nSHOW TOPICS\n")
    assert code == 0 and "missing ';' at '<EOF>'" in err and "Stream Name" in out
    assert out.endswith("Exiting ksqlDB.\n")


def test_a_failing_last_entry_still_exits_0(target: list[str], shell_env: dict[str, str]) -> None:
    code, out, err = _finish(_shell(target, shell_env, "--no-banner"), "SHOW STREAMS;\nDROP STREAM nope;\n")
    assert code == 0 and "does not exist" in err and out.endswith("Exiting ksqlDB.\n")


def test_execute_and_file_stop_at_the_first_error(target: list[str], shell_env: dict[str, str],
                                                  tmp_path: Path) -> None:
    """-e and -f keep the one-text paths: the first error ends the run, status 1, no 'Exiting ksqlDB.'."""
    code, out, err = _finish(_shell(target, shell_env, "-e", "SHOW STREAMS; DESCRIBE nope; SHOW TOPICS;"))
    assert code == 1 and "Stream Name" in out and "Partition Replicas" not in out and "Exiting" not in out
    script = tmp_path / "stop.sql"
    script.write_text("SHOW STREAMS;\nDESCRIBE nope;\nSHOW TOPICS;\n")
    code, out, err = _finish(_shell(target, shell_env, "-f", str(script)))
    assert code == 1 and "Stream Name" in out and "Partition Replicas" not in out and "Exiting" not in out
    assert "ksqlpy v" not in out and "CLI v" not in out  # and no welcome


def test_piped_into_a_shell_writing_to_a_terminal(target: list[str], shell_env: dict[str, str],
                                                  tmp_path: Path) -> None:
    """``printf ... | ksqlpy`` at a terminal: stdin is a pipe, so the loop is the piped one although the output
    is a terminal - every entry runs, errors (red there) and all, and the process ends with status 0."""
    pexpect = pytest.importorskip("pexpect")
    feed = tmp_path / "feed.sql"
    feed.write_text("SHOW FOO;\nSHOW STREAMS;\nDESCRIBE nope;\nversion\n")
    argv = " ".join([sys.executable, "-m", "ksqlpy", *target])
    child = pexpect.spawn("/bin/sh", ["-c", f"cat {feed} | {argv}"], env=shell_env, cwd=str(tmp_path),
                          dimensions=(40, 120), encoding="utf-8", timeout=30)
    child.expect(pexpect.EOF)
    child.close()
    text = child.before.replace("\r\n", "\n")
    assert child.exitstatus == 0, text
    assert "Syntax Error" in text and "Stream Name" in text and "Version: " in text
    assert "\x1b[31m" in text  # the errors are red on a terminal
    assert text.rstrip().endswith("Exiting ksqlDB.")


def test_an_empty_execute_runs_nothing_and_reads_no_input(target: list[str], shell_env: dict[str, str]) -> None:
    """``-e ""`` is an -e all the same (ksqlDB's Ksql.run asks whether the option is present): nothing runs, the
    input is not read as statements (it was: an empty -e fell through to the piped loop), status 0."""
    code, out, err = _finish(_shell(target, shell_env, "-e", ""), "SHOW STREAMS;\n")
    assert (code, out, err) == (0, "", "")


def test_a_line_of_comments_is_an_entry_of_its_own_when_piped(target: list[str], shell_env: dict[str, str]) -> None:
    """As at the prompt: a line that is only comments ends its entry, so the statement after it is placed from its
    own first line (it was joined to the comment: 'line 3:10')."""
    code, out, err = _finish(_shell(target, shell_env, "--no-banner"),
                             "-- a note\n/* a block */\nSELECT * FRM nowhere;\nSHOW TOPICS;\n")
    assert code == 0 and err.startswith("line 1:10: Syntax Error\n"), err
    assert "Kafka Topic" in out
