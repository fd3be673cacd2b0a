"""Non-interactive runs: ``-e "statements"``, ``-f script.sql`` and statements piped on stdin.

The first failing statement stops the run and the process exits non-zero, so scripts can be
chained in shells and CI. Piped input is executed statement by statement as lines arrive (a
producer feeding the shell does not have to close the pipe before anything happens).
"""

from __future__ import annotations

from collections.abc import Iterable

from ksqlpy.cli.lexer import statement_complete
from ksqlpy.cli.session import ExitShell, Session, is_cli_command


def run_text(session: Session, text: str) -> int:
    """Run a whole script; 0 if every statement succeeded, 1 otherwise."""
    if session.refuse_unterminated(text):
        return 1
    try:
        return 0 if session.run_entry(text) else 1
    except ExitShell:
        return 0


def run_lines(session: Session, lines: Iterable[str]) -> int:
    """Run statements from a stream of lines, each as soon as its ';' has been read."""
    buffer = ""
    try:
        for line in lines:
            buffer += line
            stripped = buffer.strip()
            if not stripped:
                buffer = ""
                continue
            is_command = is_cli_command(stripped) and "\n" not in stripped
            if is_command or statement_complete(buffer):
                if not session.run_entry(buffer):
                    return 1
                buffer = ""
        if buffer.strip() and (session.refuse_unterminated(buffer) or not session.run_entry(buffer)):
            return 1
    except ExitShell:
        return 0
    return 0
