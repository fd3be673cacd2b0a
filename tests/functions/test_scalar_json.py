"""JSON functions: Jackson-like parsing and output, JSONPath subset, TO_JSON_STRING by type."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from function_family import family_registry, scalar_caller

from ksqlpy.functions import json as json_fns
from ksqlpy.functions.json import MISSING, json_path_tokens, parse_json, write_json
from ksqlpy.functions.signatures import FunctionError
from ksqlpy.types import (
    BIGINT,
    BOOLEAN,
    BYTES,
    DATE,
    DOUBLE,
    INTEGER,
    NULL,
    STRING,
    TIME,
    TIMESTAMP,
    Array,
    Decimal,
    Map,
    Struct,
)

REG = family_registry(json_fns)
call = scalar_caller(REG)
S = STRING


DOC = '{"user": {"name": "Ann", "tags": ["a", "b"], "age": 41, "score": 9.50, "nil": null}, "odd key": true}'


def test_parse_reads_the_first_value_only():
    assert parse_json("  [1, 2] trailing") == [1, 2]
    assert parse_json("") is MISSING and parse_json(" \n") is MISSING
    assert parse_json("2.50") == D("2.50")
    with pytest.raises(FunctionError):
        parse_json("{bad")
    with pytest.raises(FunctionError):
        parse_json("NaN")


def test_write_is_compact_and_keeps_number_text():
    assert (
        write_json(parse_json('{ "a" : [ 1 , 2.10 , -0.0 , 1e3 ] , "b" : "x" }'))
        == '{"a":[1,2.10,0.0,1E+3],"b":"x"}'
    )
    assert write_json("tab\there \u0001 é") == '"tab\\there \\u0001 é"'


def test_path_tokens():
    assert json_path_tokens("$.a.b[0]") == ("a", "b", "0")
    assert json_path_tokens("$['odd key'][\"x\"]") == ("odd key", "x")
    assert json_path_tokens("$") == ()
    for bad in ("a.b", "$..a", "$[0", "$x"):
        with pytest.raises(FunctionError):
            json_path_tokens(bad)


def test_extractjsonfield():
    f = [S, S]
    assert call("EXTRACTJSONFIELD", f, DOC, "$.user.name") == "Ann"
    assert call("EXTRACTJSONFIELD", f, DOC, "$.user.tags[1]") == "b"
    assert call("EXTRACTJSONFIELD", f, DOC, "$.user.tags") == '["a","b"]'
    assert call("EXTRACTJSONFIELD", f, DOC, "$.user.age") == "41"
    assert call("EXTRACTJSONFIELD", f, DOC, "$.user.score") == "9.50"
    assert call("EXTRACTJSONFIELD", f, DOC, "$.user.nil") == "null"
    assert call("EXTRACTJSONFIELD", f, DOC, "$['odd key']") == "true"
    assert call("EXTRACTJSONFIELD", f, DOC, "$.user.tags[2]") is None
    assert call("EXTRACTJSONFIELD", f, DOC, "$.user.tags[-1]") is None
    assert call("EXTRACTJSONFIELD", f, DOC, "$.missing.deeper") is None
    assert call("EXTRACTJSONFIELD", f, DOC, "$.user.name.first") is None
    assert call("EXTRACTJSONFIELD", f, "", "$.a") is None
    assert call("EXTRACTJSONFIELD", f, None, "$.a") is None
    with pytest.raises(FunctionError):
        call("EXTRACTJSONFIELD", f, "not json", "$.a")


def test_is_json_string():
    assert [call("IS_JSON_STRING", [S], v) for v in ("0", '"s"', "[]", "{}", "null")] == [True] * 5
    assert [call("IS_JSON_STRING", [S], v) for v in ("", "nope", "{", None)] == [False] * 4


def test_json_array_functions():
    assert call("JSON_ARRAY_LENGTH", [S], "[1, [2, 3], {}]") == 3
    assert call("JSON_ARRAY_LENGTH", [S], '{"a": 1}') is None
    assert call("JSON_ARRAY_LENGTH", [S], "") is None
    assert call("JSON_ITEMS", [S], '[{"k": 1}, "s", null]') == ['{"k":1}', '"s"', "null"]
    assert call("JSON_ITEMS", [S], "5") is None


def test_json_array_contains_matches_scalars_by_kind():
    arr = '[1, 2.5, "two", true, null, [7], {"x": 7}]'
    contains = REG.scalars["JSON_ARRAY_CONTAINS"]
    assert contains.resolve([S, INTEGER]).impl(arr, 1) is True
    assert contains.resolve([S, BIGINT]).impl(arr, 1) is True
    assert contains.resolve([S, DOUBLE]).impl(arr, 2.5) is True
    assert contains.resolve([S, DOUBLE]).impl(arr, 1.0) is False  # an int token is not a DOUBLE
    assert contains.resolve([S, S]).impl(arr, "two") is True
    assert contains.resolve([S, BOOLEAN]).impl(arr, True) is True
    assert contains.resolve([S, NULL]).impl(arr, None) is True
    assert contains.resolve([S, INTEGER]).impl(arr, 7) is False  # nested values are skipped
    assert contains.resolve([S, S]).impl("not json", "x") is False
    with pytest.raises(FunctionError):  # Jackson cannot parse a NULL text: the call fails (NULL, logged)
        contains.resolve([S, S]).impl(None, "x")
    assert contains.resolve([S, S]).impl('{"a": "a"}', "a") is False


def test_keys_records_concat():
    assert call("JSON_KEYS", [S], '{"b": 1, "a": {"c": 2}}') == ["b", "a"]
    assert call("JSON_KEYS", [S], "[1]") is None
    assert call("JSON_RECORDS", [S], '{"n": 1.0, "o": {"p": [true]}}') == {"n": "1.0", "o": '{"p":[true]}'}
    # a string value is its text, unquoted and unescaped; other values stay JSON
    assert call("JSON_RECORDS", [S], '{"s": "a \\"b\\"", "e": "", "z": null, "b": false, "a": ["x"]}') == {
        "s": 'a "b"', "e": "", "z": "null", "b": "false", "a": '["x"]'}
    assert call("JSON_RECORDS", [S], "{}") == {}
    assert call("JSON_RECORDS", [S], '"text"') is None
    assert call("JSON_RECORDS", [S], "") is None
    assert call("JSON_RECORDS", [S], "[]") is None
    assert call("JSON_CONCAT", [S, S], '{"a": 1, "b": 2}', '{"b": 3}') == '{"a":1,"b":3}'
    assert call("JSON_CONCAT", [S, S], "[1, 2]", "[3]") == "[1,2,3]"
    assert call("JSON_CONCAT", [S, S], '{"a": 1}', "[2]") == '[{"a":1},2]'
    assert call("JSON_CONCAT", [S, S], "[1]", None) is None
    assert call("JSON_CONCAT", [S, S], "[1]", "") is None


def test_to_json_string_follows_the_sql_type():
    t = Struct(
        (("ID", BIGINT), ("TAGS", Array(S)), ("M", Map(S, Decimal(4, 2))), ("RAW", BYTES), ("D", DOUBLE))
    )
    value = {"ID": 7, "TAGS": ["x", None], "M": {"k": D("1.50")}, "RAW": b"\x00\xff", "D": 2.0e-5}
    out = REG.scalars["TO_JSON_STRING"].resolve([t]).impl(value)
    assert out == '{"ID":7,"TAGS":["x",null],"M":{"k":1.50},"RAW":"AP8=","D":2.0E-5}'
    assert call("TO_JSON_STRING", [S], 'say "hi"') == '"say \\"hi\\""'
    assert call("TO_JSON_STRING", [BOOLEAN], False) == "false"
    assert call("TO_JSON_STRING", [DOUBLE], float("inf")) == '"Infinity"'
    assert call("TO_JSON_STRING", [INTEGER], None) == "null"
    assert call("TO_JSON_STRING", [NULL], None) == "null"


def test_to_json_string_writes_time_types_as_iso_text():
    assert call("TO_JSON_STRING", [TIMESTAMP], 1_000_000_000_123) == '"2001-09-09T01:46:40.123"'
    assert call("TO_JSON_STRING", [TIMESTAMP], 0) == '"1970-01-01T00:00:00.000"'
    assert call("TO_JSON_STRING", [DATE], 18_000) == '"2019-04-14"'
    assert call("TO_JSON_STRING", [TIME], 37_230_500) == '"10:20:30.500"'
    assert call("TO_JSON_STRING", [TIME], 36_000_000) == '"10:00"'
    assert call("TO_JSON_STRING", [TIME], None) == "null"
    nested = Struct((("AT", TIMESTAMP), ("DAYS", Array(DATE)), ("BY", Map(S, TIME))))
    out = REG.scalars["TO_JSON_STRING"].resolve([nested]).impl({"AT": 1, "DAYS": [1, None], "BY": {"k": 1000}})
    assert out == '{"AT":"1970-01-01T00:00:00.001","DAYS":["1970-01-02",null],"BY":{"k":"00:00:01"}}'


def test_to_json_string_of_every_other_type():
    assert call("TO_JSON_STRING", [INTEGER], -5) == "-5"
    assert call("TO_JSON_STRING", [BIGINT], 2**62) == str(2**62)
    assert call("TO_JSON_STRING", [DOUBLE], 1.0) == "1.0"
    assert call("TO_JSON_STRING", [DOUBLE], 1e21) == "1.0E21"
    assert call("TO_JSON_STRING", [DOUBLE], float("nan")) == '"NaN"'
    assert call("TO_JSON_STRING", [Decimal(5, 3)], D("-1.250")) == "-1.250"
    assert call("TO_JSON_STRING", [BYTES], b"hi") == '"aGk="'
    assert call("TO_JSON_STRING", [S], "tab\there \u00e9 \x01") == '"tab\\there \u00e9 \\u0001"'
    # map keys are written as Java text
    assert call("TO_JSON_STRING", [Map(BOOLEAN, INTEGER)], {True: 1}) == '{"true":1}'
    assert call("TO_JSON_STRING", [Map(DOUBLE, INTEGER)], {1.5: 1}) == '{"1.5":1}'
    assert call("TO_JSON_STRING", [Array(Array(INTEGER))], [[1], [], None]) == "[[1],[],null]"
    assert call("TO_JSON_STRING", [Struct((("A", S), ("B", INTEGER)))], {"A": None, "B": 1}) == '{"A":null,"B":1}'


@pytest.mark.parametrize("text, expected", [
    ("{'a': 1}", {"a": 1}),  # single-quoted names and strings
    ("{'a': 'x\"y'}", {"a": 'x"y'}),
    ("{'a': 'it\\'s'}", {"a": "it's"}),
    ('{"a": "it\\\'s"}', {"a": "it's"}),
    ("{a: 1, $b_2: [true, {c: null}]}", {"a": 1, "$b_2": [True, {"c": None}]}),  # unquoted names
    ('{"a": 1 /* block */, // line\n "b": "//not/*a comment*/"}', {"a": 1, "b": "//not/*a comment*/"}),
    ("// only a comment", MISSING),
    ("  /* c */ 'top'", "top"),
])  # fmt: skip
def test_parsing_accepts_what_ksqldbs_udf_mapper_enables(text, expected):
    # ksqlDB's UdfJsonMapper enables ALLOW_COMMENTS, ALLOW_SINGLE_QUOTES and ALLOW_UNQUOTED_FIELD_NAMES
    assert parse_json(text) == expected


@pytest.mark.parametrize("text", ["{a b: 1}", "{'a: 1}", "{a: }", "/* open", "{\"a\": 1,, }", "abc"])
def test_lenient_parsing_still_rejects_invalid_text(text):
    with pytest.raises(FunctionError, match="Invalid JSON format"):
        parse_json(text)


def test_functions_read_the_lenient_forms():
    assert call("EXTRACTJSONFIELD", [S, S], "{a: {'b': 'x'}}", "$.a.b") == "x"
    assert call("IS_JSON_STRING", [S], "{'a': 1}") is True
    assert call("IS_JSON_STRING", [S], "/* nothing */") is False
    assert call("JSON_KEYS", [S], "{a: 1, 'b': 2, \"c\": 3}") == ["a", "b", "c"]
    assert call("JSON_RECORDS", [S], "{a: 'x', b: [1, 'y']}") == {"a": "x", "b": '[1,"y"]'}
    assert call("JSON_CONCAT", [S, S], "{a: 1}", "{'b': 2}") == '{"a":1,"b":2}'
    assert call("JSON_ARRAY_LENGTH", [S], "[1, /* two */ 2]") == 2
