"""The data directory is private to the user running ksqlpy: directories 0700, files 0600.

The log and state stores hold every record and the command log every statement (with its properties):
nothing there is for other users of the machine. Directories are created (or tightened) 0700 and LMDB files
created 0600 (``FILE_MODE``); the server also sets its umask to 077 for whatever else it writes.
"""

from __future__ import annotations

import contextlib
import os

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: str) -> str:
    """``path`` as a directory only its owner can enter (created - with every missing parent - or its mode
    tightened if it is ours)."""
    missing = []
    p = os.path.abspath(path)
    while not os.path.isdir(p) and os.path.dirname(p) != p:
        missing.append(p)
        p = os.path.dirname(p)
    for d in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by another thread
            os.mkdir(d, DIR_MODE)
    with contextlib.suppress(OSError):  # not ours to change: left as it is
        if os.stat(path).st_mode & 0o777 != DIR_MODE:
            os.chmod(path, DIR_MODE)
    return path


def open_private(path: str, flags: int = os.O_RDWR | os.O_CREAT) -> int:
    """A file descriptor for ``path``, the file created 0600."""
    return os.open(path, flags, FILE_MODE)
