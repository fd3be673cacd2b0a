"""Tab completion from the live catalog: keywords, functions, streams/tables, columns, properties.

The context is read from the lexer's tokens before the cursor, not from a parse (the statement is
unfinished): after FROM/JOIN/INTO/DESCRIBE... sources come first; inside ``SET '`` property names;
after PRINT topic names; at the start of a statement the statement keywords and CLI commands.
``candidates()`` is plain Python so it is testable; ``make_completer()`` wraps it for prompt_toolkit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ksqlpy.cli.lexer import (
    COMMENT,
    KEYWORDS,
    PUNCT,
    QUOTED,
    SPACE,
    STRING,
    Token,
    is_unterminated,
    tokenize,
)

STATEMENT_STARTS = ("CREATE", "SELECT", "INSERT", "DROP", "SHOW", "LIST", "DESCRIBE", "EXPLAIN", "TERMINATE",
                    "PRINT", "SET", "UNSET", "DEFINE", "UNDEFINE", "RUN SCRIPT", "PAUSE", "RESUME", "ALTER",
                    "ASSERT")
SOURCE_CONTEXT = {"FROM", "JOIN", "INTO", "DESCRIBE", "EXTENDED", "STREAM", "TABLE", "EXISTS"}
AFTER_SHOW = ("STREAMS", "TABLES", "TOPICS", "QUERIES", "PROPERTIES", "FUNCTIONS", "TYPES", "VARIABLES",
              "ALL TOPICS", "STREAMS EXTENDED", "TABLES EXTENDED")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Candidate:
    text: str  # what replaces the prefix
    meta: str  # shown next to it: keyword, stream, table, column, function, property...
    display: str = ""


def _current_statement(tokens: list[Token]) -> list[Token]:
    """Tokens after the last ';' - the statement being typed."""
    for i in range(len(tokens) - 1, -1, -1):
        if tokens[i].kind == PUNCT and tokens[i].text == ";":
            return tokens[i + 1:]
    return tokens


def _match_case(word: str, prefix: str) -> str:
    return word.lower() if prefix and prefix.islower() else word


class CompletionSource:
    """What completion draws from; the backend answers, the lists are cached for one request."""

    def __init__(self, backend: Any, cli_commands: tuple[str, ...]) -> None:
        self.backend = backend
        self.cli_commands = cli_commands

    def candidates(self, text_before_cursor: str) -> tuple[str, list[Candidate]]:
        """(prefix being completed, candidates whose text starts with it, case-insensitively)."""
        tokens = _current_statement(tokenize(text_before_cursor))
        last = tokens[-1] if tokens else None
        code = [t for t in tokens if t.kind not in (SPACE, COMMENT)]

        if last is not None and last.kind == STRING and is_unterminated(last):
            prefix = last.text[1:]
            before = [t.text.upper() for t in code[:-1]]
            if before and before[-1] in ("SET", "UNSET"):
                pool = [Candidate(p + "'", "property", p) for p in self.backend.property_names()]
            elif before and before[-1] == "PRINT":
                pool = [Candidate(p + "'", "topic", p) for p in self.backend.topics()]
            else:
                return prefix, []
            return prefix, _filter(pool, prefix)
        if last is not None and (last.kind in (STRING, COMMENT) and is_unterminated(last)):
            return "", []
        if last is not None and last.kind == QUOTED and is_unterminated(last):
            prefix = last.text[1:]
            pool = [Candidate(s.name + last.text[0], s.kind.lower(), s.name) for s in self.backend.sources()]
            return prefix, _filter(pool, prefix)

        m = _WORD.search(text_before_cursor)
        prefix = m.group() if m and (last is not None and last.kind not in (SPACE,)) else ""
        prior = code[:-1] if prefix and code else code
        prev = prior[-1].text.upper() if prior else None

        if not prior:  # the statement's first word
            pool = [Candidate(_match_case(w, prefix), "statement") for w in STATEMENT_STARTS]
            pool += [Candidate(c, "command") for c in self.cli_commands]
            return prefix, _filter(pool, prefix)
        if prev in ("SHOW", "LIST"):
            return prefix, _filter([Candidate(_match_case(w, prefix), "keyword") for w in AFTER_SHOW], prefix)
        if prev == "PRINT":
            return prefix, _filter([Candidate(t, "topic") for t in self.backend.topics()], prefix)
        if prev == "FUNCTION":
            return prefix, _filter([Candidate(f, "function") for f in self.backend.functions()], prefix)

        sources = self.backend.sources()
        source_pool = [Candidate(s.name, s.kind.lower()) for s in sources]
        if prev in SOURCE_CONTEXT:
            return prefix, _filter(source_pool, prefix)

        used = {t.text.upper() for t in code}
        columns: dict[str, str] = {}
        for s in sources:
            if s.name.upper() in used:
                for c in s.columns:
                    columns.setdefault(c, f"column of {s.name}")
        if not columns:  # nothing referenced yet (SELECT before FROM): every column
            for s in sources:
                for c in s.columns:
                    columns.setdefault(c, f"column of {s.name}")
        pool = [Candidate(c, meta) for c, meta in columns.items()]
        pool += source_pool
        pool += [Candidate(f, "function") for f in self.backend.functions()]
        pool += [Candidate(_match_case(k, prefix), "keyword") for k in sorted(KEYWORDS)]
        return prefix, _filter(pool, prefix)


def _filter(pool: list[Candidate], prefix: str) -> list[Candidate]:
    p = prefix.upper()
    seen: set[str] = set()
    out = []
    for c in pool:
        key = (c.display or c.text).upper()
        if key.startswith(p) and key not in seen and key != p:
            seen.add(key)
            out.append(c)
    return out


def make_completer(source: CompletionSource) -> Any:
    """A prompt_toolkit Completer over ``source`` (prompt_toolkit imported lazily)."""
    from prompt_toolkit.completion import Completer, Completion

    class KsqlCompleter(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Any:
            try:
                prefix, cands = source.candidates(document.text_before_cursor)
            except Exception:  # completion must never break typing
                return
            for c in cands:
                yield Completion(c.text, start_position=-len(prefix), display=c.display or c.text,
                                 display_meta=c.meta)

    return KsqlCompleter()
