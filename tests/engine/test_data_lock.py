"""One engine per data directory: a second one (shell, server, backfill; another process or this one) is
refused at once with the directory and the process holding it, and never runs the queries a second time."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine.data_lock import DataDirectoryInUse

HOLDER = textwrap.dedent("""
    import sys, time
    from ksqlpy.engine import Engine
    from ksqlpy.engine.command_log import DurableStatements
    e = Engine(sys.argv[1], {"auto.offset.reset": "earliest"})
    DurableStatements(e).execute("CREATE STREAM s (id INT KEY, v INT) WITH (kafka_topic='s', value_format='JSON', "
                                 "partitions=1); CREATE STREAM copy AS SELECT * FROM s;")
    e.start()
    print("ready", flush=True)
    for line in sys.stdin:  # a statement to run while holding the directory, or an empty line: stop
        if not line.strip():
            break
        DurableStatements(e).execute(line)
        print("done", flush=True)
    e.drain()
    e.close()
""")


@pytest.fixture
def holder(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A real process whose engine holds ``tmp_path`` and runs a copying query until told to stop."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    yield proc
    if proc.poll() is None:
        proc.stdin.write("\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        proc.wait(20)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ksqlpy", *args], capture_output=True, text=True, timeout=60)


def test_a_second_shell_is_refused_and_names_the_directory_and_holder(tmp_path: Path, holder) -> None:  # type: ignore[no-untyped-def]
    started = time.monotonic()
    out = _run("--data-dir", str(tmp_path), "-e", "SHOW STREAMS;")
    assert out.returncode != 0
    text = out.stdout + out.stderr
    assert f"The data directory {tmp_path} is in use by process {holder.pid} " in text
    assert "Error" not in text.replace("error", "")  # no Python exception name
    assert time.monotonic() - started < 30  # at once, not after waiting for the holder


def test_a_server_and_a_backfill_are_refused_too(tmp_path: Path, holder) -> None:  # type: ignore[no-untyped-def]
    server = _run("server", "--data-dir", str(tmp_path), "--listeners", "http://127.0.0.1:0")
    assert server.returncode == 1
    assert f"ksqlpy server: The data directory {tmp_path} is in use by process {holder.pid}" in server.stderr
    backfill = _run("backfill", "--data-dir", str(tmp_path), "CREATE STREAM x AS SELECT * FROM s;")
    assert backfill.returncode == 1
    assert f"The data directory {tmp_path} is in use by process {holder.pid}" in backfill.stderr


def test_records_are_written_once_and_the_directory_is_free_after_the_holder_exits(tmp_path: Path, holder) -> None:  # type: ignore[no-untyped-def]
    _run("--data-dir", str(tmp_path), "-e", "SHOW STREAMS;")  # refused: must not run the copying query
    holder.stdin.write("\n")
    holder.stdin.flush()
    assert holder.wait(20) == 0
    out = _run("--data-dir", str(tmp_path), "-e", "INSERT INTO s (id, v) VALUES (1, 1); SELECT * FROM copy;")
    assert out.returncode == 0, out.stderr
    # the shell may exit before its copying query has read the insert (it resumes from its committed
    # position when the directory is opened again): let it catch up, then count the copies
    from ksqlpy.engine.command_log import DurableStatements
    from ksqlpy.log.embedded import EmbeddedLog

    with Engine(str(tmp_path)) as e:
        DurableStatements(e)
        e.drain()

    with EmbeddedLog(os.path.join(tmp_path, "log")) as log:
        assert log.end_offset("COPY", 0) == 1


def test_a_killed_holder_leaves_no_stale_lock(tmp_path: Path, holder) -> None:  # type: ignore[no-untyped-def]
    holder.kill()
    holder.wait(20)
    with Engine(str(tmp_path)) as e:
        assert e.data_lock is not None


def test_a_second_engine_in_the_same_process_is_refused(tmp_path: Path) -> None:
    with Engine(str(tmp_path)):
        with pytest.raises(DataDirectoryInUse, match=f"in use by process {os.getpid()} "):
            Engine(str(tmp_path))
    Engine(str(tmp_path)).close()  # released on close


def test_while_a_second_engine_is_refused_every_record_is_copied_once(tmp_path: Path, holder) -> None:  # type: ignore[no-untyped-def]
    """The holder writes while a second shell, server and backfill try to open the directory: they are refused
    before they run anything, and the holder's query copies each input record exactly once."""
    def holder_runs(sql: str) -> None:
        holder.stdin.write(sql + "\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "done"

    holder_runs(" ".join(f"INSERT INTO s (id, v) VALUES ({i}, {i});" for i in range(5)))
    others = [_run("--data-dir", str(tmp_path), "-e", "INSERT INTO s (id, v) VALUES (99, 99);"),
              _run("server", "--data-dir", str(tmp_path), "--listeners", "http://127.0.0.1:0"),
              _run("backfill", "--data-dir", str(tmp_path), "CREATE STREAM x AS SELECT * FROM s;")]
    assert all(o.returncode != 0 and "is in use by process" in o.stdout + o.stderr for o in others)
    holder_runs(" ".join(f"INSERT INTO s (id, v) VALUES ({i}, {i});" for i in range(5, 8)))
    holder.stdin.write("\n")
    holder.stdin.flush()
    assert holder.wait(30) == 0
    from ksqlpy.log.embedded import EmbeddedLog

    with EmbeddedLog(os.path.join(tmp_path, "log")) as log:
        assert log.end_offset("s", 0) == 8
        copied = log.fetch("COPY", 0, 0, 100)
        assert sorted(orjson.loads(v)["V"] for v in copied.values) == list(range(8))
