"""ksqlDB variable substitution: ``${name}`` in the statement text becomes the variable's value.

This module owns variables for every entry point - DEFINE/UNDEFINE/SHOW VARIABLES in the engine, the REST
server (``sessionVariables`` and a request's DEFINEs), the shell (DEFINE, ``-d``, RUN SCRIPT) and the
migrations tool: names are case-insensitive and kept in lower case (``name_key``), as the ksql CLI lists
them (its documentation's SHOW VARIABLES shows ``format | JSON`` after ``DEFINE format = 'JSON'``), so
``DEFINE x``, ``${X}``, ``UNDEFINE X`` and ``{"X": ...}`` name one variable and SHOW VARIABLES lists it
the same way whichever entry point defined it.

Rules (ksqlDB reference 3.7): names are case-insensitive; ``$${x}`` is an escape that leaves the
literal text ``${x}``; inside a string literal a reference to an undefined variable is left as written
(it is text), anywhere else it is an error that names the variable (``undefined_reference``). Inside a single-quoted string literal the value's own single quotes are doubled, so
a value can never end the literal early; elsewhere the value is inserted as is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .script import CODE, STRING, scan

NAME = r"[A-Za-z_][A-Za-z0-9_@]*"  # ksqlDB's IDENTIFIER: a letter or '_', then also digits, '@'
NAME_PATTERN = re.compile(NAME)  # a name DEFINE / UNDEFINE accept is one a ``${...}`` can reference
_REFERENCE = re.compile(r"\$?\$\{(" + NAME + r")\}")
_TOKEN = re.compile(r"\$\{(" + NAME + r")\}")


def name_key(name: str) -> str:
    """The one spelling a variable is kept under: lower case."""
    return name.strip().lower()


def define(variables: dict[str, str], name: str, value: str) -> None:
    """DEFINE (or ``-d name=value``, or one ``sessionVariables`` entry)."""
    variables[name_key(name)] = value


def undefine(variables: dict[str, str], name: str) -> str | None:
    """UNDEFINE: None when it was not defined, else the warning-free removal's old value."""
    return variables.pop(name_key(name), None)


def undefine_warning(name: str) -> str:
    """What UNDEFINE of an unknown variable says (a warning, not an error), with the name as written."""
    return f"Cannot undefine variable '{name}' which was never defined"


def from_json(raw: Mapping[str, Any] | None) -> dict[str, str]:
    """REST ``sessionVariables`` (or the migrations tool's ``--define``s) as variables: names as DEFINE keeps
    them, values as Java's ``String.valueOf`` writes them (``true``, ``null``), never Python's spelling."""
    out: dict[str, str] = {}
    for k, v in (raw or {}).items():
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif v is None:
            v = "null"
        define(out, str(k), v if isinstance(v, str) else str(v))
    return out


def references(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, name)`` of every VARIABLE token of ``text``: a ``${name}`` outside string literals,
    quoted names and comments (ksqlDB's lexer rule ``VARIABLE: '${' IDENTIFIER '}'``), not escaped as ``$${``."""
    if "${" not in text:
        return []
    out = []
    for kind, s, e in scan(text):
        if kind != CODE:
            continue
        for match in _TOKEN.finditer(text, s, e):
            if match.start() > 0 and text[match.start() - 1] == "$":
                continue
            out.append((match.start(), match.end(), match.group(1)))
    return out


def substitute_variables(text: str, variables: dict[str, str] | None) -> str:
    """Replace the VARIABLE tokens of ``text`` and the ``${name}`` references inside its string literals
    with their values (ksqlDB's VariableSubstitutor, from memory: it visits the variable identifiers and
    literals and the string literals of the parsed statement, so a ``${x}`` inside a quoted name or a
    comment is text). A token without a value stays as written; ``$${x}`` in a literal is ``${x}``."""
    if "${" not in text:
        return text
    lookup = {name_key(k): v for k, v in (variables or {}).items()}
    pieces: list[str] = []
    done = 0
    for kind, s, e in scan(text):
        if kind == STRING:
            pieces.append(text[done:s])
            pieces.append(_REFERENCE.sub(lambda m: _in_string(m, lookup), text[s:e]))
            done = e
        elif kind == CODE:
            for start, end, name in references(text[s:e]):
                value = lookup.get(name_key(name))
                if value is not None:
                    pieces.append(text[done:s + start])
                    pieces.append(value)
                    done = s + end
    pieces.append(text[done:])
    return "".join(pieces)


def _in_string(match: re.Match[str], lookup: Mapping[str, str]) -> str:
    """A reference inside a single-quoted literal: the value with its quotes doubled, so it cannot end the
    literal early; an escaped or undefined one is text."""
    ref = match.group(0)
    if ref.startswith("$$"):
        return ref[1:]
    value = lookup.get(name_key(match.group(1)))
    return ref if value is None else value.replace("'", "''")


def undefined_reference(text: str, variables: dict[str, str] | None) -> tuple[int, str] | None:
    """(offset, reference) of the first VARIABLE token with no value, else None.

    Left in the text it would be read as a name ``${X}``; naming the undefined variable tells the user
    what is actually wrong (our own message: ksqlDB's is not known)."""
    defined = {name_key(k) for k in (variables or {})}
    for start, end, name in references(text):
        if name_key(name) not in defined:
            return start, text[start:end]
    return None
