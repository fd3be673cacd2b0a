"""The data directory is private: created 0700, every file in it 0600-or-tighter for the group and others
(log, state stores, the lock file, worker ids), whatever the process umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ksqlpy.engine import Engine


def _modes(root: Path) -> dict[str, int]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            out[os.path.relpath(p, root)] = stat.S_IMODE(os.lstat(p).st_mode)
    return out


def test_the_data_directory_and_its_files_are_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        data = tmp_path / "data"
        e = Engine(str(data), {"auto.offset.reset": "earliest"})
        try:
            e.execute("CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', partitions=1, value_format='JSON');")
            e.execute("CREATE TABLE T AS SELECT ID, COUNT(*) AS N FROM S GROUP BY ID;")
            e.execute("INSERT INTO S (ID, V) VALUES (1, 2);")
            e.drain()
        finally:
            e.close()
    finally:
        os.umask(old)
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    modes = _modes(data)
    assert any(name.endswith(".mdb") for name in modes)  # the log and the state store were written
    open_to_others = {name: oct(mode) for name, mode in modes.items() if mode & 0o077}
    assert open_to_others == {}


def test_an_existing_world_readable_data_directory_is_tightened(tmp_path: Path) -> None:
    data = tmp_path / "shared"
    data.mkdir(mode=0o755)
    os.chmod(data, 0o755)
    Engine(str(data)).close()
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
