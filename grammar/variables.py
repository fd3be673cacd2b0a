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
from collections.abc import Callable, Mapping
from typing import Any

from .script import STRING, scan

_REFERENCE = re.compile(r"\$?\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


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


def substitute_variables(text: str, variables: dict[str, str] | None) -> str:
    """Replace ``${name}`` references in ``text`` with their values from ``variables``."""
    if "${" not in text:
        return text
    lookup = {name_key(k): v for k, v in (variables or {}).items()}
    in_string = _string_spans(text)

    def replace(match: re.Match[str]) -> str:
        ref = match.group(0)
        if ref.startswith("$$"):
            return ref[1:]
        value = lookup.get(name_key(match.group(1)))
        if value is None:
            return ref
        return value.replace("'", "''") if in_string(match.start()) else value

    return _REFERENCE.sub(replace, text)


def _string_spans(text: str) -> Callable[[int], bool]:
    """A predicate telling whether an offset lies inside a single-quoted literal of ``text``."""
    spans = [(s, e) for kind, s, e in scan(text) if kind == STRING]
    return lambda offset: any(start < offset < end for start, end in spans)


def undefined_reference(text: str, variables: dict[str, str] | None) -> tuple[int, str] | None:
    """(offset, reference) of the first ``${name}`` outside string literals with no value, else None.

    Left in the text it could only fail to parse, with a message about a '$' character; naming the
    undefined variable tells the user what is actually wrong."""
    if "${" not in text:
        return None
    defined = {name_key(k) for k in (variables or {})}
    in_string = None
    for match in _REFERENCE.finditer(text):
        ref = match.group(0)
        if ref.startswith("$$") or name_key(match.group(1)) in defined:
            continue
        in_string = in_string or _string_spans(text)
        if not in_string(match.start()):
            return match.start(), ref
    return None
