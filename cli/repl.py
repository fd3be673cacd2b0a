"""The interactive loop: prompt_toolkit line editing over a Session.

Enter submits only a finished entry (code ending with ';' or a CLI command); otherwise it opens a
continuation line, so a statement can span lines and is recalled from history as one entry.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from ksqlpy.cli.lexer import make_prompt_lexer, only_comments, statement_complete
from ksqlpy.cli.session import CLI_COMMANDS, ExitShell, Session, is_cli_command

PROMPT = "ksql> "

STYLE = {
    "sql.keyword": "bold ansiblue",
    "sql.function": "ansicyan",
    "sql.string": "ansigreen",
    "sql.quoted": "ansiyellow",
    "sql.number": "ansimagenta",
    "sql.comment": "italic ansibrightblack",
    "sql.variable": "bold ansiyellow",
    "sql.operator": "",
    "prompt": "bold",
    "continuation": "ansibrightblack",
}


def should_submit(text: str) -> bool:
    """Whether Enter finishes the entry (as ksqlDB's line reader decides)."""
    if not text.strip() or only_comments(text):
        return True
    if is_cli_command(text) and "\n" not in text.strip():
        return True
    return statement_complete(text)


def make_history(path: str) -> Any:
    """A FileHistory that skips consecutive duplicates (like ksqlDB) and EXIT, and tolerates an
    unwritable file."""
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    class DedupFileHistory(FileHistory):
        def append_string(self, string: str) -> None:
            if not string.strip() or string.strip().rstrip(";").strip().lower() in ("exit", "quit"):
                return  # recalling EXIT by accident would end the next session
            recent = self.get_strings()
            if recent and recent[-1] == string:
                return
            super().append_string(string)

        def store_string(self, string: str) -> None:
            try:
                super().store_string(string)
            except OSError:
                pass  # history is a convenience; never fail a statement over it

    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        return DedupFileHistory(path)
    except OSError:
        return InMemoryHistory()


def _key_bindings() -> Any:
    from prompt_toolkit.enums import DEFAULT_BUFFER
    from prompt_toolkit.filters import has_focus
    from prompt_toolkit.key_binding import KeyBindings

    kb = KeyBindings()
    editing = has_focus(DEFAULT_BUFFER)  # not while Ctrl-R search has the focus

    @kb.add("enter", filter=editing)
    def _enter(event: Any) -> None:
        buf = event.current_buffer
        state = buf.complete_state
        if state is not None and state.current_completion is not None:
            buf.apply_completion(state.current_completion)
            return
        text = buf.text
        if text.rstrip().endswith("\\") and buf.document.is_cursor_at_the_end:
            buf.text = text.rstrip()[:-1]
            buf.insert_text("\n")
            return
        if buf.document.is_cursor_at_the_end and should_submit(text):
            buf.validate_and_handle()
        elif not buf.document.is_cursor_at_the_end and should_submit(text) and "\n" not in text:
            buf.validate_and_handle()
        else:
            buf.insert_text("\n")

    @kb.add("escape", "enter", filter=editing)
    def _force(event: Any) -> None:
        """Alt-Enter submits whatever is there (an unfinished statement reports its error)."""
        event.current_buffer.validate_and_handle()

    return kb


def _prewarm(session: Session) -> None:
    """Import the parser and load function names after the prompt shows, so the first statement and
    the first Tab do not pay for it."""
    def work() -> None:
        try:
            import ksqlpy.grammar  # noqa: F401

            session.backend.functions()
        except Exception:
            pass

    threading.Thread(target=work, name="ksqlpy-prewarm", daemon=True).start()


def run_repl(session: Session, history_path: str) -> int:
    """Prompt, run, repeat until EXIT or Ctrl-D. Returns the process exit status."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
    from prompt_toolkit.styles import Style

    from ksqlpy.cli.completer import CompletionSource, make_completer

    history = make_history(history_path)
    session.history = lambda: list(history.get_strings())
    source = CompletionSource(session.backend, CLI_COMMANDS)
    session.backend_changed = lambda backend: setattr(source, "backend", backend)
    completer = make_completer(source)

    def continuation(width: int, line_number: int, wrap_count: int) -> Any:
        return [("class:continuation", ">".rjust(width - 1) + " ")]

    prompt = PromptSession(
        message=[("class:prompt", PROMPT)],
        multiline=True,
        prompt_continuation=continuation,
        history=history,
        lexer=make_prompt_lexer(),
        completer=completer,
        complete_while_typing=False,
        auto_suggest=AutoSuggestFromHistory(),
        key_bindings=_key_bindings(),
        style=Style.from_dict(STYLE),
        include_default_pygments_style=False,
        enable_history_search=False,
        mouse_support=False,
    )
    _prewarm(session)
    console = session.console
    while True:
        try:
            text = prompt.prompt()
        except KeyboardInterrupt:
            console.print("^C")  # Ctrl-C at the prompt discards the input, as the ksql CLI shows it
            continue
        except EOFError:
            console.print("Exiting ksqlDB.")
            return 0
        if not text.strip():
            continue
        console.record_input(text)
        try:
            session.run_entry(text)
        except ExitShell:
            console.print("Exiting ksqlDB.")
            return 0
        except KeyboardInterrupt:
            console.error("Interrupted.")
