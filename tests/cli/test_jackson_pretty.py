"""OUTPUT JSON's layout (cli/jackson_pretty.py): Jackson's DefaultPrettyPrinter, as ksqlDB's Console prints
entities and StreamedRows - objects one entry a line with `` : ``, arrays inline, empty ones ``{ }``/``[ ]``,
Java's number texts."""

from __future__ import annotations

import decimal
import json
from typing import Any

import pytest

from ksqlpy.cli import render
from ksqlpy.cli.jackson_pretty import pretty


@pytest.mark.parametrize(("value", "text"), [
    ([], "[ ]"), ({}, "{ }"), ([1, "a", None, True], '[ 1, "a", null, true ]'),
    ({"a": 1}, '{\n  "a" : 1\n}'),
    ({"a": {"b": [1, {"c": []}]}}, '{\n  "a" : {\n    "b" : [ 1, {\n      "c" : [ ]\n    } ]\n  }\n}'),
    ([{"a": 1}, {"b": {}}], '[ {\n  "a" : 1\n}, {\n  "b" : { }\n} ]'),
    ([1.0, 1e20, 0.0001, decimal.Decimal("1.50")], "[ 1.0, 1.0E20, 1.0E-4, 1.50 ]"),
    (["q\"\\\n\u00e9"], '[ "q\\"\\\\\\n\u00e9" ]'),
])
def test_layout(value: Any, text: str) -> None:
    assert pretty(value) == text
    assert json.loads(text.replace("1.0E20", "1e20").replace("1.0E-4", "1e-4")) is not None


def test_streamed_rows() -> None:
    assert render.query_header_json("q1", ["ID", "V"], ["INTEGER", "STRING"]) == (
        '{\n  "header" : {\n    "queryId" : "q1",\n    "schema" : "`ID` INTEGER, `V` STRING"\n  }\n}')
    assert render.query_header_json("q1", [], [], "`ID` INTEGER KEY") .endswith('"schema" : "`ID` INTEGER KEY"\n  }\n}')
    assert render.row_json([1, {"A": [2]}]) == '{\n  "row" : {\n    "columns" : [ 1, {\n      "A" : [ 2 ]\n    } ]\n  }\n}'
    assert render.row_json([1, None], tombstone=True) == (
        '{\n  "row" : {\n    "columns" : [ 1, null ],\n    "tombstone" : true\n  }\n}')
    assert render.final_message_json("Query Completed") == '{\n  "finalMessage" : "Query Completed"\n}'
