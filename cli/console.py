"""Where the shell writes: stdout with optional colour, plus a SPOOL copy of everything.

Colour is plain ANSI and only used on a terminal (and not when NO_COLOR is set), so scripts and
pipes get clean text; the spool file never gets colour. Output does not go through prompt_toolkit:
results are printed between prompts, and -e/-f runs never import it.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import IO

RED, YELLOW, GREEN, DIM, BOLD, RESET = "\x1b[31m", "\x1b[33m", "\x1b[32m", "\x1b[2m", "\x1b[1m", "\x1b[0m"


class Console:
    """Writes results, warnings and errors; tees to a spool file when SPOOL is on."""

    def __init__(self, out: IO[str] | None = None, err: IO[str] | None = None,
                 color: bool | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        if color is None:
            color = _isatty(self.out) and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"
        self.color = color
        self.spool: IO[str] | None = None
        self.spool_path: str | None = None

    # ------------------------------------------------------------------ spool
    def start_spool(self, path: str) -> None:
        self.stop_spool()
        self.spool = open(os.path.expanduser(path), "a", encoding="utf-8")  # noqa: SIM115 - closed in stop_spool
        self.spool_path = path

    def stop_spool(self) -> None:
        if self.spool is not None:
            self.spool.close()
        self.spool = None
        self.spool_path = None

    def record_input(self, text: str) -> None:
        """Copy what the user typed into the spool file (prefixed with the prompt, as ksqlDB does)."""
        if self.spool is not None:
            self.spool.write("ksql> " + text.rstrip("\n") + "\n")
            self.spool.flush()

    # ------------------------------------------------------------------ writing
    def _write(self, stream: IO[str], text: str, style: str = "", end: str = "\n") -> None:
        if self.color and style:
            stream.write(style + text + RESET + end)
        else:
            stream.write(text + end)
        stream.flush()
        if self.spool is not None:
            self.spool.write(text + end)
            self.spool.flush()

    def print(self, text: str = "", end: str = "\n") -> None:
        self._write(self.out, text, end=end)

    def info(self, text: str) -> None:
        self._write(self.out, text, DIM)

    def success(self, text: str) -> None:
        self._write(self.out, text, GREEN)

    def warning(self, text: str) -> None:
        self._write(self.out, text, YELLOW)

    def error(self, text: str) -> None:
        """Errors go to stderr in non-interactive runs (so pipes keep clean data) and are red."""
        self.out.flush()
        self._write(self.err, text, RED)

    @property
    def is_tty(self) -> bool:
        return _isatty(self.out)

    def width(self, unbounded: int | None = None) -> int:
        """Terminal width in columns; when not writing to a terminal, ``unbounded`` if given (a
        file or pipe has no width to wrap at) else $COLUMNS or 80."""
        if unbounded is not None and not self.is_tty:
            return unbounded
        try:
            return shutil.get_terminal_size((80, 24)).columns or 80
        except (OSError, ValueError):
            return 80

    def close(self) -> None:
        self.stop_spool()


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
