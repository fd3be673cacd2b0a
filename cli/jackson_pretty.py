"""JSON as ksqlDB's shell prints it with ``OUTPUT JSON``: Jackson's ``writerWithDefaultPrettyPrinter()``.

ksqlDB's Console writes every entity list and every StreamedRow through its ObjectMapper's default pretty
printer (from memory of Console.printAsJson and Jackson's DefaultPrettyPrinter), whose layout is a rule of
its own, not Python's ``indent=2``:

- an object's entries each on a line, indented two spaces per object level, ``"name" : value``;
  its closing brace on a line at the level of the object; an empty object is ``{ }``;
- an array stays inline (FixedSpaceIndenter): ``[ 1, "a" ]``, ``[ ]``, and does not add a level, so an
  array of objects reads ``[ {`` ... ``}, {`` ... ``} ]``;
- numbers as Java writes them (a double ``1.0``, ``1.0E20``; a decimal ``BigDecimal.toString``); strings
  escaped as Jackson escapes them (quote, backslash, control characters), other characters as they are.
"""

from __future__ import annotations

import base64
import decimal
import json
from typing import Any

from ksqlpy import javatext

INDENT = "  "


def pretty(value: Any) -> str:
    """``value`` (JSON-like: dict, list, str, numbers, bool, None) as Jackson's default pretty printer writes it."""
    out: list[str] = []
    _write(value, 0, out)
    return "".join(out)


def _write(value: Any, level: int, out: list[str]) -> None:
    if isinstance(value, dict):
        if not value:
            out.append("{ }")
            return
        out.append("{")
        for i, (k, v) in enumerate(value.items()):
            out.append(("," if i else "") + "\n" + INDENT * (level + 1) + _string(str(k)) + " : ")
            _write(v, level + 1, out)
        out.append("\n" + INDENT * level + "}")
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[ ]")
            return
        out.append("[ ")
        for i, v in enumerate(value):
            if i:
                out.append(", ")
            _write(v, level, out)
        out.append(" ]")
    else:
        out.append(_scalar(value))


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return _string(javatext.double_to_string(value))  # Jackson's QUOTE_NON_NUMERIC_NUMBERS
        return javatext.double_to_string(value)
    if isinstance(value, decimal.Decimal):
        return javatext.decimal_to_string(value)
    if isinstance(value, bytes | bytearray):
        return _string(base64.b64encode(bytes(value)).decode("ascii"))
    return _string(str(value))


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)
