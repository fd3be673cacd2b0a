"""URL, CONVERSIONS and OTHER functions, and the EXPLODE / CUBE_EXPLODE table functions."""

from __future__ import annotations

import math
import struct

import pytest
from function_family import family_registry, scalar_caller

from ksqlpy.functions import conversions, other, table, url
from ksqlpy.functions.signatures import FunctionError
from ksqlpy.javatext import double_to_string as java_double_str
from ksqlpy.javatext import java_str
from ksqlpy.types import BYTES, DOUBLE, INTEGER, STRING, Array, Struct

REG = family_registry(url, conversions, other, table)
call = scalar_caller(REG)
S = STRING


URL = "https://alice:pw@shop.example.com:8443/a%20b/c?item=tea%20pot&empty&q=x=y#sec%202"


def test_url_components():
    assert call("URL_EXTRACT_PROTOCOL", [S], URL) == "https"
    assert call("URL_EXTRACT_HOST", [S], URL) == "shop.example.com"
    assert call("URL_EXTRACT_PORT", [S], URL) == 8443
    assert call("URL_EXTRACT_PATH", [S], URL) == "/a b/c"
    assert call("URL_EXTRACT_QUERY", [S], URL) == "item=tea pot&empty&q=x=y"
    assert call("URL_EXTRACT_FRAGMENT", [S], URL) == "sec 2"
    assert call("URL_EXTRACT_PARAMETER", [S, S], URL, "item") == "tea pot"
    assert call("URL_EXTRACT_PARAMETER", [S, S], URL, "empty") == ""
    assert call("URL_EXTRACT_PARAMETER", [S, S], URL, "q") == "x=y"
    assert call("URL_EXTRACT_PARAMETER", [S, S], URL, "nope") is None


def test_url_missing_parts_are_null():
    bare = "http://example.com"
    assert call("URL_EXTRACT_PORT", [S], bare) is None
    assert call("URL_EXTRACT_PATH", [S], bare) == ""
    assert call("URL_EXTRACT_QUERY", [S], bare) is None
    assert call("URL_EXTRACT_FRAGMENT", [S], bare) is None
    assert call("URL_EXTRACT_QUERY", [S], "http://example.com/?") == ""
    assert call("URL_EXTRACT_HOST", [S], "http://bad_host.com/") is None  # not a valid host name
    assert call("URL_EXTRACT_HOST", [S], "mailto:someone@example.com") is None
    assert call("URL_EXTRACT_PROTOCOL", [S], "/relative/path") is None
    assert call("URL_EXTRACT_HOST", [S], None) is None


def test_invalid_url_is_a_function_error():
    for bad in ("http://exa mple.com", "http://x.com/%zz", "http://x.com/<tag>"):
        with pytest.raises(FunctionError, match="invalid syntax"):
            call("URL_EXTRACT_HOST", [S], bad)


def test_param_encoding_is_form_encoding():
    assert call("URL_ENCODE_PARAM", [S], "a b&c/ü~*") == "a+b%26c%2F%C3%BC%7E*"
    assert call("URL_DECODE_PARAM", [S], "a+b%26c%2F%C3%BC") == "a b&c/ü"
    with pytest.raises(FunctionError):
        call("URL_DECODE_PARAM", [S], "50%")


def test_numbers_from_bytes():
    assert call("INT_FROM_BYTES", [BYTES], b"\x00\x00\x01\x00") == 256
    assert call("INT_FROM_BYTES", [BYTES, S], b"\x00\x01\x00\x00", "LITTLE_ENDIAN") == 256
    assert call("INT_FROM_BYTES", [BYTES], b"\xff\xff\xff\xff") == -1
    assert call("BIGINT_FROM_BYTES", [BYTES], (2**40).to_bytes(8, "big")) == 2**40
    assert call("DOUBLE_FROM_BYTES", [BYTES], struct.pack(">d", 1.5)) == 1.5
    assert call("INT_FROM_BYTES", [BYTES], None) is None
    with pytest.raises(FunctionError, match="equal to 4"):
        call("INT_FROM_BYTES", [BYTES], b"\x01")
    with pytest.raises(FunctionError, match="BIG_ENDIAN"):
        call("INT_FROM_BYTES", [BYTES, S], b"\x00\x00\x00\x01", "MIDDLE")


def test_java_text_forms():
    assert [java_double_str(v) for v in (0.0, -0.0, 12.5, 1e7, 1.5e-4, 123456789.0)] == [
        "0.0",
        "-0.0",
        "12.5",
        "1.0E7",
        "1.5E-4",
        "1.23456789E8",
    ]
    assert java_double_str(math.nan) == "NaN" and java_double_str(-math.inf) == "-Infinity"
    assert java_str([1, None, True, 2.0]) == "[1, null, true, 2.0]"
    assert java_str({"a": 1}) == "{a=1}"


def test_geo_distance():
    london, paris = (51.5074, -0.1278), (48.8566, 2.3522)
    km = call("GEO_DISTANCE", [DOUBLE] * 4, *london, *paris)
    assert km == pytest.approx(343.5, abs=1.0)
    mi = call("GEO_DISTANCE", [DOUBLE] * 4 + [S], *london, *paris, "miles")
    assert mi == pytest.approx(km * 3959 / 6371)
    assert call("GEO_DISTANCE", [DOUBLE] * 4 + [S], *london, *paris, "KM") == km
    assert call("GEO_DISTANCE", [DOUBLE] * 4, *london, *london) == 0.0
    with pytest.raises(FunctionError, match="NULL argument for a double"):
        call("GEO_DISTANCE", [DOUBLE] * 4, None, 0.0, 0.0, 0.0)
    assert math.isnan(call("GEO_DISTANCE", [DOUBLE] * 4, math.nan, 0.0, 0.0, 0.0))
    with pytest.raises(FunctionError, match="units"):
        call("GEO_DISTANCE", [DOUBLE] * 4 + [S], *london, *paris, "furlongs")
    with pytest.raises(FunctionError, match="latitude"):
        call("GEO_DISTANCE", [DOUBLE] * 4, 91.0, 0.0, 0.0, 0.0)
    assert (
        REG.scalars["GEO_DISTANCE"].resolve([INTEGER, INTEGER, INTEGER, INTEGER]).param_types == [DOUBLE] * 4
    )


def test_as_value_is_identity():
    t = Struct((("F", S),))
    r = REG.scalars["AS_VALUE"].resolve([t])
    assert r.return_type == t and r.impl({"F": "x"}) == {"F": "x"}


def test_explode():
    r = REG.tables["EXPLODE"].resolve([Array(S)])
    assert r.return_type == S
    assert r.impl(["a", None, "b"]) == ["a", None, "b"]
    assert r.impl([]) == [] and r.impl(None) == []


def test_cube_explode():
    r = REG.tables["CUBE_EXPLODE"].resolve([Array(INTEGER)])
    assert r.return_type == Array(INTEGER)
    assert r.impl([7, 8]) == [[None, None], [None, 8], [7, None], [7, 8]]
    assert r.impl([7, None]) == [[None, None], [7, None]]
    assert len(r.impl(["a", "b", "c"])) == 8
    assert r.impl(None) == []
