"""ksqlDB variable substitution: ``${name}`` in the statement text becomes the variable's value.

Rules (ksqlDB reference 3.7): names are case-insensitive; ``$${x}`` is an escape that leaves the
literal text ``${x}``; inside a string literal a reference to an undefined variable is left as written
(it is text), anywhere else it is an error that names the variable (``undefined_reference``). Inside a single-quoted string literal the value's own single quotes are doubled, so
a value can never end the literal early; elsewhere the value is inserted as is.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .script import STRING, scan

_REFERENCE = re.compile(r"\$?\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def substitute_variables(text: str, variables: dict[str, str] | None) -> str:
    """Replace ``${name}`` references in ``text`` with their values from ``variables``."""
    if "${" not in text:
        return text
    lookup = {k.upper(): v for k, v in (variables or {}).items()}
    in_string = _string_spans(text)

    def replace(match: re.Match[str]) -> str:
        ref = match.group(0)
        if ref.startswith("$$"):
            return ref[1:]
        value = lookup.get(match.group(1).upper())
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
    defined = {k.upper() for k in (variables or {})}
    in_string = None
    for match in _REFERENCE.finditer(text):
        ref = match.group(0)
        if ref.startswith("$$") or match.group(1).upper() in defined:
            continue
        in_string = in_string or _string_spans(text)
        if not in_string(match.start()):
            return match.start(), ref
    return None
