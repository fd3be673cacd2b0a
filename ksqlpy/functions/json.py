"""JSON functions over JSON text, matching ksqlDB's Jackson usage: the first JSON value of the text is read
(trailing text is ignored, empty text is "missing"), floating point numbers keep their written digits
(BigDecimal), comments, single quotes and unquoted field names are accepted (UdfJsonMapper's parser
features), and JSON is written back compactly (``{"a":1,"b":[true,null]}``) with Jackson's escapes."""

from __future__ import annotations

import base64
import json as _json
import math
from collections.abc import Callable
from decimal import Decimal as PyDecimal
from functools import lru_cache
from typing import Any

from ksqlpy.functions.isotime import format_date_iso, format_time_iso, format_timestamp_iso
from ksqlpy.functions.map import java_map_items
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import FunctionError, Overload, registrar
from ksqlpy.javatext import decimal_to_string as java_decimal_str
from ksqlpy.javatext import double_to_string as java_double_str
from ksqlpy.javatext import java_str
from ksqlpy.types import Array, Decimal, Map, Primitive, SqlType, Struct

CATEGORY = "JSON"


class _Missing:
    """Jackson's MissingNode: what empty (or blank) JSON text reads as."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


def _no_constants(name: str) -> Any:
    raise ValueError(f"invalid JSON token {name}")


_DECODER = _json.JSONDecoder(parse_float=PyDecimal, parse_constant=_no_constants)
_WS = " \t\n\r"


def parse_json(text: str) -> Any:
    """The first JSON value in ``text`` as Python values (floats as Decimal); MISSING for blank text.

    Raises FunctionError for text that does not start with a JSON value (ksqlDB: "Invalid JSON format")."""
    i = 0
    n = len(text)
    while i < n and text[i] in _WS:
        i += 1
    if i == n:
        return MISSING
    try:
        return _DECODER.raw_decode(text, i)[0]
    except (ValueError, RecursionError):
        pass
    try:  # the rarer lenient forms, only after strict parsing failed
        strict = _strict_json(text, i)
        if not strict.strip(_WS):
            return MISSING  # nothing but comments
        return _DECODER.raw_decode(strict, len(strict) - len(strict.lstrip(_WS)))[0]
    except (ValueError, RecursionError):
        raise FunctionError(f"Invalid JSON format: {text}") from None


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")


def _strict_json(text: str, i: int) -> str:
    """``text`` from ``i`` rewritten as strict JSON where it uses what ksqlDB's UDF mapper (UdfJsonMapper)
    enables in Jackson: comments (``//``, ``/* */``), single-quoted strings and names, unquoted names
    (letters, digits, ``_`` and ``$``). Anything else is copied for the strict parser to judge."""
    out: list[str] = []
    stack: list[str] = []  # '{' / '[' of the open containers
    expect_name = False
    n = len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            body: list[str] = []
            while j < n and text[j] != c:
                if text[j] == "\\" and j + 1 < n:
                    if text[j + 1] == "'":  # Jackson reads \' as ' once single quotes are allowed
                        body.append("'")
                    else:
                        body.append(text[j:j + 2])
                    j += 2
                    continue
                body.append('\\"' if text[j] == '"' else text[j])
                j += 1
            out.append('"' + "".join(body) + '"')
            i = j + 1
            expect_name = False
            continue
        if c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            out.append(" ")
            continue
        if c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                out.append(text[i:])  # an unclosed comment is an error, as in Jackson
                break
            i = end + 2
            out.append(" ")
            continue
        if expect_name and c in _NAME_CHARS:
            j = i
            while j < n and text[j] in _NAME_CHARS:
                j += 1
            out.append('"' + text[i:j] + '"')
            i = j
            expect_name = False
            continue
        if c in "{[":
            stack.append(c)
            expect_name = c == "{"
        elif c in "}]":
            if stack:
                stack.pop()
            expect_name = False
        elif c == ",":
            expect_name = bool(stack) and stack[-1] == "{"
        elif c not in _WS:
            expect_name = False
        out.append(c)
        i += 1
    return "".join(out)


# ------------------------------------------------------------------------------------------- writing

_ESCAPES = {i: f"\\u{i:04X}" for i in range(0x20)}
_ESCAPES.update({0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r", 0x22: '\\"', 0x5C: "\\\\"})


def json_quote(s: str) -> str:
    """A JSON string literal with Jackson's escaping (control chars as \\u00XX, non-ASCII kept)."""
    return '"' + s.translate(_ESCAPES) + '"'


def _double_json(d: float) -> str:
    if math.isfinite(d):
        return java_double_str(d)
    return '"' + java_double_str(d) + '"'  # Jackson quotes non-numeric numbers


def write_json(v: Any) -> str:
    """Compact JSON text of a parsed value (or of plain SQL values when no type is known)."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, str):
        return json_quote(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, PyDecimal):
        return java_decimal_str(v)
    if isinstance(v, float):
        return _double_json(v)
    if isinstance(v, dict):
        return "{" + ",".join(json_quote(str(k)) + ":" + write_json(x) for k, x in v.items()) + "}"
    if isinstance(v, list | tuple):
        return "[" + ",".join(write_json(x) for x in v) + "]"
    if isinstance(v, bytes | bytearray):
        return json_quote(base64.b64encode(bytes(v)).decode("ascii"))
    if v is MISSING:
        return ""
    return json_quote(str(v))


def _node_text(v: Any) -> str:
    """JsonNode.asText for text nodes, toString otherwise (EXTRACTJSONFIELD's result)."""
    return v if isinstance(v, str) else write_json(v)


_ISO_TEXT: dict[str, Callable[[int], str]] = {
    "TIMESTAMP": format_timestamp_iso, "DATE": format_date_iso, "TIME": format_time_iso}


def json_writer(t: SqlType) -> Callable[[Any], str]:
    """A serializer for values of SQL type ``t`` (TO_JSON_STRING): structs as objects in field order,
    BYTES as base64, DOUBLE in Java's format, DATE/TIME/TIMESTAMP as ISO text (``2021-03-04``,
    ``10:20:30.5`` as ``LocalTime.toString``, ``2021-03-04T10:20:30.000`` in UTC: the forms ksqlDB's REST
    API writes too), map keys as Java text."""
    if isinstance(t, Primitive):
        iso = _ISO_TEXT.get(t.name)
        if iso is not None:
            return lambda v: "null" if v is None else json_quote(iso(v))
        if t.name == "STRING":
            return lambda v: "null" if v is None else json_quote(v)
        if t.name == "BOOLEAN":
            return lambda v: "null" if v is None else ("true" if v else "false")
        if t.name == "DOUBLE":
            return lambda v: "null" if v is None else _double_json(float(v))
        if t.name == "BYTES":
            return lambda v: "null" if v is None else json_quote(base64.b64encode(v).decode("ascii"))
        return lambda v: "null" if v is None else str(v)
    if isinstance(t, Decimal):
        return lambda v: "null" if v is None else java_decimal_str(v)
    if isinstance(t, Array):
        el = json_writer(t.element)
        return lambda v: "null" if v is None else "[" + ",".join(el(x) for x in v) + "]"
    if isinstance(t, Map):
        val = json_writer(t.value)
        return lambda v: (
            "null"
            if v is None
            else "{" + ",".join(json_quote(java_str(k)) + ":" + val(x) for k, x in java_map_items(v)) + "}"
        )
    if isinstance(t, Struct):
        fields = [(json_quote(name) + ":", name, json_writer(ft)) for name, ft in t.fields]

        def struct(v: Any) -> str:
            if v is None:
                return "null"
            get = v.get
            return "{" + ",".join(prefix + w(get(name)) for prefix, name, w in fields) + "}"

        return struct
    return write_json


# ---------------------------------------------------------------------------------------- JSONPath


@lru_cache(maxsize=256)
def json_path_tokens(path: str) -> tuple[str, ...]:
    """Tokens of ksqlDB's JSONPath subset: ``$.a.b``, ``$.a[0]``, ``$['a b']``, ``$["a"]``."""
    if not path.startswith("$"):
        raise FunctionError(f"Invalid JSON path: '{path}' (must start with '$')")
    tokens: list[str] = []
    i = 1
    n = len(path)
    while i < n:
        c = path[i]
        if c == ".":
            j = i + 1
            while j < n and path[j] not in ".[":
                j += 1
            if j == i + 1:
                raise FunctionError(f"Invalid JSON path: '{path}'")
            tokens.append(path[i + 1 : j])
            i = j
        elif c == "[":
            if i + 1 < n and path[i + 1] in "'\"":
                quote = path[i + 1]
                end = path.find(quote, i + 2)
                if end < 0 or end + 1 >= n or path[end + 1] != "]":
                    raise FunctionError(f"Invalid JSON path: '{path}'")
                tokens.append(path[i + 2 : end])
                i = end + 2
            else:
                end = path.find("]", i + 1)
                if end < 0:
                    raise FunctionError(f"Invalid JSON path: '{path}'")
                tokens.append(path[i + 1 : end].strip())
                i = end + 1
        else:
            raise FunctionError(f"Invalid JSON path: '{path}'")
    return tuple(tokens)


def _extract_json_field(text: str, path: str) -> Any:
    tokens = json_path_tokens(path)
    node = parse_json(text)
    if node is MISSING:
        return None
    for tok in tokens:
        if isinstance(node, list):
            try:
                idx = int(tok)
            except ValueError:
                return None
            if idx < 0 or idx >= len(node):
                return None
            node = node[idx]
        elif isinstance(node, dict):
            if tok not in node:
                return None
            node = node[tok]
        else:
            return None
    return _node_text(node)


# ------------------------------------------------------------------------------------------ others


def _is_json_string(text: Any) -> bool:
    if text is None:
        return False
    try:
        return parse_json(text) is not MISSING
    except FunctionError:
        return False


def _array_length(text: str) -> Any:
    node = parse_json(text)
    return len(node) if isinstance(node, list) else None


def _json_keys(text: str) -> Any:
    node = parse_json(text)
    return list(node) if isinstance(node, dict) else None


def _json_records(text: str) -> Any:
    """Each field's value as text: a JSON string's own text (unquoted), any other value as JSON."""
    node = parse_json(text)
    if not isinstance(node, dict):
        return None
    return {k: v if isinstance(v, str) else write_json(v) for k, v in node.items()}


def _json_items(text: str) -> Any:
    node = parse_json(text)
    return [write_json(v) for v in node] if isinstance(node, list) else None


def _json_concat(*texts: Any) -> Any:
    """Objects merge (later keys win); otherwise every value is made an array and the arrays concatenate."""
    if not texts:
        return None
    nodes = []
    for t in texts:
        if t is None:
            return None
        node = parse_json(t)
        if node is MISSING:
            return None
        nodes.append(node)
    if all(isinstance(n, dict) for n in nodes):
        merged: dict[str, Any] = {}
        for n in nodes:
            merged.update(n)
        return write_json(merged)
    out: list[Any] = []
    for n in nodes:
        if isinstance(n, list):
            out.extend(n)
        else:
            out.append(n)
    return write_json(out)


def _json_array_contains(text: Any, value: Any) -> bool:
    """True if a top-level scalar of the JSON array equals ``value`` (ints match INT/BIGINT, floats DOUBLE).

    ksqlDB reads the array with Jackson's streaming parser and answers at the first match: elements before
    a syntax error count (``'[1, 2'`` contains 1), and the error itself is ``false``, as is text that is
    not an array. A NULL text fails the call (NULL, logged): Jackson's ``createParser`` dereferences it, a
    NullPointerException the UDF does not catch (it catches only IOException)."""
    if text is None:
        raise FunctionError("Failed to invoke function JSON_ARRAY_CONTAINS: a NULL JSON text cannot be parsed")
    n = len(text)
    i = _skip_ws(text, 0)
    if i >= n or text[i] != "[":
        return False
    i = _skip_ws(text, i + 1)
    if i < n and text[i] == "]":
        return False
    while i < n:
        try:
            item, i = _DECODER.raw_decode(text, i)
        except (ValueError, RecursionError):
            return False
        if _array_item_equals(item, value):
            return True
        i = _skip_ws(text, i)
        if i >= n or text[i] != ",":
            return False  # the end of the array, or a syntax error
        i = _skip_ws(text, i + 1)
    return False


def _skip_ws(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in _WS:
        i += 1
    return i


def _array_item_equals(item: Any, value: Any) -> bool:
    """Jackson's token compatibility in JSON_ARRAY_CONTAINS: a JSON null matches NULL; a number, string or
    boolean matches a value of its own kind; an object or array never matches."""
    if item is None:
        return value is None
    if value is None or isinstance(item, dict | list):
        return False
    if isinstance(item, bool):
        return isinstance(value, bool) and item == value
    if isinstance(item, int):
        return isinstance(value, int) and not isinstance(value, bool) and item == value
    if isinstance(item, PyDecimal):
        return isinstance(value, float) and float(item) == value
    if isinstance(item, str):
        return isinstance(value, str) and item == value
    return False


def _make_to_json(params: list[SqlType], ret: SqlType) -> Callable[[Any], str]:
    return json_writer(params[0])


# ---------------------------------------------------------------------------------------- register


def register(registry: FunctionRegistry) -> None:
    add = registrar(registry, CATEGORY)

    add(
        "EXTRACTJSONFIELD",
        "The value at a JSONPath ('$.a.b[0]') in a JSON string: text for JSON strings, JSON for anything else.",
        [("STRING, STRING", "STRING", _extract_json_field)],
    )
    add(
        "IS_JSON_STRING",
        "True if a string parses as JSON. Like every JSON function it reads comments, single-quoted strings and unquoted field names, as ksqlDB does.",
        [("STRING", "BOOLEAN", _is_json_string)],
        null_on_null=False,
    )
    add(
        "JSON_ARRAY_CONTAINS",
        "True if a JSON array string contains a value at its top level; a NULL array string fails the call.",
        [("STRING, T", "BOOLEAN", _json_array_contains)],
        null_on_null=False,
    )
    add(
        "JSON_ARRAY_LENGTH",
        "The number of elements of a JSON array string; NULL if it is not an array.",
        [("STRING", "INT", _array_length)],
    )
    add(
        "JSON_CONCAT",
        "Merges JSON objects, or concatenates JSON values as arrays.",
        [("STRING...", "STRING", _json_concat)],
        null_on_null=False,
    )
    add(
        "JSON_ITEMS",
        "The elements of a JSON array string, each as a JSON string.",
        [("STRING", "ARRAY<STRING>", _json_items)],
    )
    add("JSON_KEYS", "The keys of a JSON object string.", [("STRING", "ARRAY<STRING>", _json_keys)])
    add(
        "JSON_RECORDS",
        "The entries of a JSON object string as a map: a string value as its text, any other value as JSON.",
        [("STRING", "MAP<STRING, STRING>", _json_records)],
    )
    add(
        "TO_JSON_STRING",
        "Any value as JSON text; DATE, TIME and TIMESTAMP as ISO strings, BYTES as base64.",
        [Overload("ANY", "STRING", make_impl=_make_to_json)],
        null_on_null=False,
    )
