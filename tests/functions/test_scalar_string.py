"""STRING functions: positions, NULL handling, padding, splitting, masks and encodings."""

from __future__ import annotations

import re

import pytest
from function_family import family_registry, scalar_caller

from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions import string
from ksqlpy.functions.signatures import FunctionError
from ksqlpy.types import BIGINT, BYTES, INTEGER, NULL, STRING, Array, Map

REG = family_registry(string)
call = scalar_caller(REG)
S = STRING


def test_case_and_trim():
    assert call("UCASE", [S], "Mixed 1") == "MIXED 1"
    assert call("LCASE", [S], "Mixed 1") == "mixed 1"
    assert call("TRIM", [S], "\t\n  padded \x01") == "padded"
    assert call("TRIM", [S], "\u00a0nbsp\u00a0") == "\u00a0nbsp\u00a0"  # Java trim keeps Unicode spaces
    assert call("UCASE", [S], None) is None


def test_initcap():
    assert call("INITCAP", [S], "the qUICK  brown") == "The Quick  Brown"
    assert call("INITCAP", [S], "   lead") == "Lead"
    assert call("INITCAP", [S], "") == ""


def test_len_counts_utf16_units_and_bytes():
    assert call("LEN", [S], "abc") == 3
    assert call("LEN", [S], "é") == 1
    assert call("LEN", [S], "\U0001f600") == 2
    assert call("LEN", [BYTES], b"\x00\x01") == 2
    assert call("LEN", [S], None) is None


def test_positions_count_utf16_units_as_java_does():
    e = "a\U0001f600b"  # the emoji is two UTF-16 units: positions 2 and 3
    assert call("SUBSTRING", [S, INTEGER, INTEGER], e, 2, 2) == "\U0001f600"
    assert call("SUBSTRING", [S, INTEGER], e, 3) == "\ude00b"  # a split pair: a lone surrogate stays
    assert call("CONCAT", [S, S], call("SUBSTRING", [S, INTEGER, INTEGER], e, 1, 2), "\ude00") == "a\U0001f600"
    assert call("SUBSTRING", [S, INTEGER], e, -1) == "b"
    assert call("INSTR", [S, S], e, "b") == 4
    assert call("INSTR", [S, S, INTEGER], e, "\U0001f600", -1) == 2
    assert call("LPAD", [S, INTEGER, S], e, 6, "-") == "--" + e
    assert call("RPAD", [S, INTEGER, S], e, 5, "xy") == e + "x"
    assert call("RPAD", [S, INTEGER, S], e, 2, "x") == "a\ud83d"


def test_substring_positions():
    word = "streaming"
    assert call("SUBSTRING", [S, INTEGER], word, 3) == "reaming"
    assert call("SUBSTRING", [S, INTEGER, INTEGER], word, 1, 6) == "stream"
    assert call("SUBSTRING", [S, INTEGER, INTEGER], word, 0, 3) == "str"  # 0 behaves like 1
    assert call("SUBSTRING", [S, INTEGER], word, -3) == "ing"
    assert call("SUBSTRING", [S, INTEGER, INTEGER], word, -6, 2) == "ea"
    assert call("SUBSTRING", [S, INTEGER, INTEGER], word, 20, 2) == ""
    assert call("SUBSTRING", [S, INTEGER, INTEGER], word, 2, -1) == ""
    assert call("SUBSTRING", [S, INTEGER, INTEGER], word, -50, 3) == "str"
    assert call("SUBSTRING", [S, INTEGER], word, None) is None
    assert call("SUBSTRING", [BYTES, INTEGER, INTEGER], b"abcdef", 2, 2) == b"bc"
    with pytest.raises(KsqlTypeError):
        REG.scalars["SUBSTRING"].resolve([S, BIGINT])


def test_concat_skips_nulls():
    assert call("CONCAT", [S, NULL, S], "a", None, "b") == "ab"
    assert call("CONCAT", [S, S], None, None) == ""
    assert call("CONCAT", [BYTES, BYTES], b"\x01", b"\x02") == b"\x01\x02"
    assert call("CONCAT_WS", [S, S, S, S], "-", "x", None, "y") == "x-y"
    assert call("CONCAT_WS", [S, S, S], None, "x", "y") is None
    assert call("CONCAT_WS", [S, S], "-", None) == ""
    assert call("CONCAT_WS", [BYTES, BYTES, BYTES], b"|", b"a", b"b") == b"a|b"
    # one variadic parameter, as in ksqlDB: a separator alone resolves and fails for the record
    assert REG.scalars["CONCAT_WS"].resolve([S]).return_type == S
    with pytest.raises(FunctionError, match="Concat_WS expects at least two input arguments"):
        call("CONCAT_WS", [S], "-")
    with pytest.raises(FunctionError, match="Concat_WS expects at least two input arguments"):
        call("CONCAT_WS", [BYTES], b"-")
    with pytest.raises(KsqlTypeError, match="does not accept parameters \\(STRING, INTEGER\\)"):
        REG.scalars["CONCAT_WS"].resolve([S, INTEGER])


def test_elt_and_field():
    assert call("ELT", [INTEGER, S, S, S], 3, "a", "b", "c") == "c"
    assert call("ELT", [INTEGER, S, S], 0, "a", "b") is None
    assert call("ELT", [INTEGER, S, S], 5, "a", "b") is None
    with pytest.raises(FunctionError):  # n is a Java int: a NULL fails the call
        call("ELT", [INTEGER, S], None, "a")
    assert call("ELT", [INTEGER, S, S], 2, "a", None) is None
    assert call("FIELD", [S, S, S, S], "b", "a", "b", "b") == 2
    assert call("FIELD", [S, S], "z", "a") == 0
    assert call("FIELD", [S, S], None, None) == 0


def test_instr():
    text = "banana bandana"
    assert call("INSTR", [S, S], text, "an") == 2
    assert call("INSTR", [S, S], text, "xyz") == 0
    assert call("INSTR", [S, S, INTEGER], text, "an", 3) == 4
    assert call("INSTR", [S, S, INTEGER, INTEGER], text, "an", 1, 3) == 9
    assert call("INSTR", [S, S, INTEGER, INTEGER], text, "an", 1, 9) == 0
    assert call("INSTR", [S, S, INTEGER], text, "an", -1) == 12
    assert call("INSTR", [S, S, INTEGER, INTEGER], text, "an", -1, 2) == 9
    assert call("INSTR", [S, S, INTEGER], text, "an", 0) == 0
    assert call("INSTR", [S, S, INTEGER], text, "an", 99) == 0
    # ksqlDB's INSTR returns a Java int: a NULL string or substring is 0; a NULL position fails the call
    assert call("INSTR", [S, S], None, "an") == 0
    assert call("INSTR", [S, S, INTEGER, INTEGER], text, None, 1, 1) == 0
    for args in ((text, "an", None), (None, "an", None)):
        with pytest.raises(FunctionError):
            call("INSTR", [S, S, INTEGER], *args)


def test_pad():
    assert call("LPAD", [S, INTEGER, S], "7", 3, "0") == "007"
    assert call("RPAD", [S, INTEGER, S], "ab", 7, "xyz") == "abxyzxy"
    assert call("LPAD", [S, INTEGER, S], "abcdef", 4, "-") == "abcd"
    assert call("RPAD", [S, INTEGER, S], "abcdef", 0, "-") == ""
    assert call("LPAD", [S, INTEGER, S], "a", 3, "") is None
    assert call("RPAD", [S, INTEGER, S], "a", -2, "x") is None
    assert call("LPAD", [S, INTEGER, S], None, 3, "x") is None
    assert call("LPAD", [BYTES, INTEGER, BYTES], b"\x01", 3, b"\x00") == b"\x00\x00\x01"


def test_split():
    assert call("SPLIT", [S, S], "k1=v1&&k2=v2", "&&") == ["k1=v1", "k2=v2"]
    assert call("SPLIT", [S, S], "|a||", "|") == ["", "a", "", ""]
    assert call("SPLIT", [S, S], "xyz", "") == ["x", "y", "z"]
    assert call("SPLIT", [S, S], "", "") == [""]
    assert call("SPLIT", [S, S], "a.b", ".") == ["a", "b"]  # literal, not a regex
    assert call("SPLIT", [BYTES, BYTES], b"a,b", b",") == [b"a", b"b"]
    assert call("SPLIT", [S, S], None, ",") is None
    assert REG.scalars["SPLIT"].resolve([BYTES, BYTES]).return_type == Array(BYTES)


def test_split_to_map():
    assert call("SPLIT_TO_MAP", [S, S, S], "a=1;b=2;;c", ";", "=") == {"a": "1", "b": "2"}
    assert call("SPLIT_TO_MAP", [S, S, S], "a=1;a=2", ";", "=") == {"a": "2"}
    assert call("SPLIT_TO_MAP", [S, S, S], "a=1=x", ";", "=") == {"a": "1"}
    assert call("SPLIT_TO_MAP", [S, S, S], "", ";", "=") == {}
    assert call("SPLIT_TO_MAP", [S, S, S], "a=1", ";", ";") is None
    assert call("SPLIT_TO_MAP", [S, S, S], "a=1", "", "=") is None
    assert REG.scalars["SPLIT_TO_MAP"].resolve([S, S, S]).return_type == Map(S, S)


def test_replace():
    assert call("REPLACE", [S, S, S], "a.b.c", ".", "::") == "a::b::c"
    assert call("REPLACE", [S, S, S], "abc", "", "-") == "-a-b-c-"
    assert call("REPLACE", [S, S, S], "abc", "b", None) is None


def test_masks():
    assert call("MASK", [S], "Ab3 z!") == "Xxn-x-"
    assert call("MASK", [S, S, S, S, S], "Ab3 z!", "U", None, "#", None) == "Ub# z!"
    assert call("MASK_KEEP_LEFT", [S, INTEGER], "Secret42", 2) == "Sexxxxnn"
    assert call("MASK_KEEP_RIGHT", [S, INTEGER], "Secret42", 2) == "Xxxxxx42"
    assert call("MASK_LEFT", [S, INTEGER], "Secret42", 3) == "Xxxret42"
    assert call("MASK_RIGHT", [S, INTEGER, S, S, S, S], "Secret42", 3, "*", "*", "*", "*") == "Secre***"
    assert call("MASK_LEFT", [S, INTEGER], "ab", 10) == "xx"
    assert call("MASK", [S], None) is None
    with pytest.raises(FunctionError):
        call("MASK_LEFT", [S, INTEGER], "ab", -1)
    # a mask argument's first character is the mask (ksqlDB's Masker takes codePointAt(0))
    assert call("MASK", [S, S, S, S, S], "aB", "XY", "yz", None, None) == "yX"
    assert call("MASK_LEFT", [S, INTEGER, S, S, S, S], "aB1", 3, "**", "#!", "--", None) == "#*-"
    with pytest.raises(FunctionError):
        call("MASK", [S, S, S, S, S], "ab", "", None, None, None)


def test_md5_chr_uuid():
    assert call("MD5", [S], "") == "d41d8cd98f00b204e9800998ecf8427e"
    assert call("CHR", [INTEGER], 97) == "a"
    assert call("CHR", [INTEGER], 0x1F600) == "\U0001f600"
    assert call("CHR", [INTEGER], -1) is None
    assert call("CHR", [S], "\\u0041") == "A"
    assert call("CHR", [S], "0041") is None
    u = call("UUID", [])
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", u)
    assert REG.scalars["UUID"].resolve([]).deterministic is False
    assert call("UUID", [BYTES], bytes(range(16))) == "00010203-0405-0607-0809-0a0b0c0d0e0f"
    assert call("UUID", [BYTES], bytes(range(15))) is None  # exactly 16 bytes, else NULL
    assert call("UUID", [BYTES], bytes(range(17))) is None


def test_hex_output_case_per_function():
    """FROM_BYTES writes hex as Guava's base16 (upper-case); ENCODE as commons-codec's Hex (lower-case);
    MD5 and UUID as their Java helpers (lower-case). Hex input is read in either case everywhere."""
    raw = bytes([0x00, 0xAB, 0xCD, 0xEF, 0x7F])
    assert call("FROM_BYTES", [BYTES, S], raw, "hex") == "00ABCDEF7F"
    assert call("FROM_BYTES", [BYTES, S], raw, "HEX") == "00ABCDEF7F"
    assert call("FROM_BYTES", [BYTES, S], b"", "hex") == ""
    assert call("TO_BYTES", [S, S], "00abCDef7f", "hex") == raw
    assert call("FROM_BYTES", [BYTES, S], call("TO_BYTES", [S, S], "abcdef", "hex"), "hex") == "ABCDEF"
    assert call("ENCODE", [S, S, S], "ABCDEF", "hex", "hex") == "abcdef"
    assert call("MD5", [S], "a") == "0cc175b9c0f1b6a831c399e269772661"


def test_chr_unescapes_java_escapes():
    assert call("CHR", [S], "\\u004b") == "K"
    assert call("CHR", [S], "\\u004B") == "K"
    assert call("CHR", [S], "\\ud83d\\ude00") == "\U0001f600"  # a surrogate pair is one character
    assert call("CHR", [S], "\\uD83D\\uDE02") == "\U0001f602"
    assert call("CHR", [S], "\\u004bxyz") == "Kxyz"  # the whole text is unescaped
    assert call("CHR", [S], "\\u0041\\n\\t\\101\\\\") == "A\n\tA\\"
    assert call("CHR", [S], "\\uuu0041") == "A"
    assert call("CHR", [S], "\\ud83d") == "\ud83d"  # a lone surrogate stays (the sink decides its bytes)
    for short in ("\\u004", "u004b0", "", "\\n\\u0041"):
        assert call("CHR", [S], short) is None
    with pytest.raises(FunctionError, match="Unable to parse unicode value: 00zz"):
        call("CHR", [S], "\\u00zz")
    with pytest.raises(FunctionError, match="Less than 4 hex digits"):
        call("CHR", [S], "\\u0041\\u12")


def test_chr_of_code_points():
    assert call("CHR", [INTEGER], 0) == "\x00"
    assert call("CHR", [INTEGER], 0x10FFFF) == "\U0010ffff"
    assert call("CHR", [INTEGER], 0x110000) is None
    assert call("CHR", [INTEGER], 0xD800) == "\ud800"  # a lone surrogate: JSON escapes it, other sinks write "?"
    assert call("CHR", [INTEGER], None) is None


def test_encode():
    assert call("ENCODE", [S, S, S], "6b73716c", "hex", "utf8") == "ksql"
    assert call("ENCODE", [S, S, S], "0x6B73716C", "hex", "base64") == "a3NxbA=="
    assert call("ENCODE", [S, S, S], "X'6b73'", "hex", "ascii") == "ks"
    assert call("ENCODE", [S, S, S], "0x973", "hex", "hex") == "0973"  # 0x form may be odd-length
    assert call("ENCODE", [S, S, S], "ksql", "utf8", "hex") == "6b73716c"
    assert call("ENCODE", [S, S, S], "ñ", "ascii", "hex") == "3f"
    assert call("ENCODE", [S, S, S], "a3NxbA", "base64", "utf8") == "ksql"  # padding optional
    assert call("ENCODE", [S, S, S], "c3a9", "hex", "ascii") == "\ufffd\ufffd"
    for bad in ("973", "X'973'", "0xzz", "x'6b"):
        with pytest.raises(FunctionError):
            call("ENCODE", [S, S, S], bad, "hex", "utf8")
    with pytest.raises(FunctionError):
        call("ENCODE", [S, S, S], "ksql", "utf16", "hex")


def test_to_and_from_bytes():
    assert call("TO_BYTES", [S, S], "AAE=", "base64") == b"\x00\x01"
    assert call("FROM_BYTES", [BYTES, S], b"\xffA", "hex") == "FF41"
    assert call("FROM_BYTES", [BYTES, S], "héllo".encode(), "utf8") == "héllo"
    assert call("TO_BYTES", [S, S], None, "utf8") is None
