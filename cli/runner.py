"""Non-interactive runs: ``-e "statements"``, ``-f script.sql`` and statements piped on stdin.

The two differ as ksqlDB's shell makes them differ (from memory of ksqlDB's Ksql.run and Cli):
``-e`` and ``-f`` run one text (Cli.runCommand / runScript) and the first failing statement stops it,
with exit status 1 so scripts can be chained in shells and CI. Anything else - input piped on stdin,
as ksqlDB's docs feed ``ksql URL <<EOF`` - goes through the interactive loop (Cli.runInteractively):
each entry's error is printed and the next entry runs, and the end of the input is the Ctrl-D of a
terminal (``Exiting ksqlDB.``, status 0). Piped input is executed entry by entry as lines arrive (a
producer feeding the shell does not have to close the pipe before anything happens).
"""

from __future__ import annotations

from collections.abc import Iterable

from ksqlpy.cli.lexer import only_comments, statement_complete
from ksqlpy.cli.session import ExitShell, Session, is_cli_command

EXITING = "Exiting ksqlDB."  # the ksql CLI's words at EXIT and at the end of its input


def run_text(session: Session, text: str) -> int:
    """Run a whole script (``-e``, ``-f``); 0 if every statement succeeded, 1 at the first failure."""
    if session.refuse_unterminated(text):
        return 1
    try:
        return 0 if session.run_entry(text) else 1
    except ExitShell:
        return 0


def run_lines(session: Session, lines: Iterable[str]) -> int:
    """Run entries from a stream of lines, each as soon as its ';' has been read, as the interactive loop
    does: a failing entry prints its error and the next one runs; EXIT or the end of the input prints
    ``Exiting ksqlDB.`` and the status is 0. A statement left without its ';' at the end is refused
    (its error printed) rather than dropped unseen."""
    buffer = ""
    try:
        for line in lines:
            buffer += line
            stripped = buffer.strip()
            if not stripped:
                buffer = ""
                continue
            is_command = is_cli_command(stripped) and "\n" not in stripped
            if is_command or statement_complete(buffer) or only_comments(buffer):
                entry, buffer = buffer, ""
                session.console.record_input(entry)
                session.run_entry(entry)  # its error is printed; the loop carries on
        if buffer.strip():
            session.console.record_input(buffer)
            if not session.refuse_unterminated(buffer):
                session.run_entry(buffer)
    except ExitShell:
        pass
    session.console.print(EXITING)
    return 0
