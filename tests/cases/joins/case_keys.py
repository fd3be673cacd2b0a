"""How the case generators of this directory write a record's key for a key format (one place for all).

The generators run as scripts (``python tests/cases/joins/<name>_gen.py <out>.json``), so they import this
module as ``case_keys``."""

from __future__ import annotations

from typing import Any


def key(fmt: str, column: str, value: Any) -> Any:
    """A single-column key as a case writes it: DELIMITED keys are text, PROTOBUF keys a message with the key
    column as its one field (ksqlDB never unwraps a PROTOBUF key); other formats the value itself (an
    unwrapped single key)."""
    if fmt == "DELIMITED":
        return str(value)
    if fmt == "PROTOBUF":
        return {column: value}
    return value
