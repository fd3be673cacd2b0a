"""ksqlDB's hint for a source name that does not exist but differs from one that does only in case
(``MetaStoreImpl.checkAlternatives``): quoting made the name case-sensitive, or its absence upper-cased it."""

from __future__ import annotations

from typing import Any

CASE_HINT = "Hint: wrap the source name in double quotes to make it case-sensitive."
UNQUOTE_HINT = "Hint: try removing double quotes from the source name."


def did_you_mean(catalog: Any, name: str) -> str:
    """``\\nDid you mean ...? Hint: ...`` for ``name``, or "" when no source matches it ignoring case."""
    sources = getattr(catalog, "sources", None)
    matches = [s for s in (sources() if sources else []) if s.name.upper() == name.upper() and s.name != name]
    if not matches:
        return ""
    if len(matches) == 1:
        only = matches[0].name
        if only == only.upper():
            return f"\nDid you mean {only}? {UNQUOTE_HINT}"
        return f'\nDid you mean "{only}"? {CASE_HINT}'
    named = [f'"{s.name}" ({s.kind})' for s in matches]
    listed = f"{named[0]} or {named[1]}" if len(named) == 2 else f"{', '.join(named[:-1])}, or {named[-1]}"
    return f"\nDid you mean {listed}? {CASE_HINT}"
