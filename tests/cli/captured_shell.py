"""The shell's Session in this process, over an in-memory console: what a user would see, as text, from the
embedded engine or a server - for tests that compare both modes without a pseudo-terminal."""

from __future__ import annotations

import io
from typing import Any

from ksqlpy.cli.console import Console
from ksqlpy.cli.session import Session


class CapturedShell:
    """Runs entries that must succeed and hands back what each printed."""

    def __init__(self, backend: Any, **options: Any) -> None:
        self.out, self.err = io.StringIO(), io.StringIO()
        self.session = Session(backend, Console(self.out, self.err, color=False), **options)

    def run(self, text: str) -> str:
        assert self.session.run_entry(text), self.err.getvalue()
        out = self.out.getvalue()
        self.out.seek(0), self.out.truncate()
        return out
