"""REGULAR EXPRESSION functions and the Java-to-Python pattern translation."""

from __future__ import annotations

import re

import pytest
from function_family import family_registry, scalar_caller

from ksqlpy.functions import regex
from ksqlpy.functions.regex import compile_java_regex, java_replacement, translate_java_regex
from ksqlpy.functions.signatures import FunctionError
from ksqlpy.types import INTEGER, STRING

REG = family_registry(regex)
call = scalar_caller(REG)
S = STRING


def test_extract_first_match_or_group():
    assert call("REGEXP_EXTRACT", [S, S], r"\d+", "order 66 of 99") == "66"
    assert call("REGEXP_EXTRACT", [S, S], r"\d+", "none") is None
    assert call("REGEXP_EXTRACT", [S, S, INTEGER], r"(\w+)@(\w+)", "mail bob@host now", 2) == "host"
    assert call("REGEXP_EXTRACT", [S, S, INTEGER], r"(a)|(b)", "b", 1) is None  # group did not take part
    assert call("REGEXP_EXTRACT", [S, S], None, "x") is None
    with pytest.raises(FunctionError):
        call("REGEXP_EXTRACT", [S, S, INTEGER], r"(a)", "a", 3)


def test_extract_all():
    assert call("REGEXP_EXTRACT_ALL", [S, S], r"[0-9]", "a1b2c3") == ["1", "2", "3"]
    assert call("REGEXP_EXTRACT_ALL", [S, S], r"[0-9]", "abc") == []
    assert call("REGEXP_EXTRACT_ALL", [S, S, INTEGER], r"(\w)=(\w*)", "a=1 b= c=3", 2) == ["1", "", "3"]


def test_replace_with_java_replacement_syntax():
    assert call("REGEXP_REPLACE", [S, S, S], "2024-01-31", r"(\d+)-(\d+)-(\d+)", "$3/$2/$1") == "31/01/2024"
    assert call("REGEXP_REPLACE", [S, S, S], "cost 5", r"\d", r"\$$0") == "cost $5"
    assert call("REGEXP_REPLACE", [S, S, S], "ab", "(?<first>a)", "[${first}]") == "[a]b"
    assert call("REGEXP_REPLACE", [S, S, S], "aaa", "a*", "-") == "--"
    assert call("REGEXP_REPLACE", [S, S, S], "x\\y", r"\\", "/") == "x/y"
    assert call("REGEXP_REPLACE", [S, S, S], "abc", "b", None) is None


def test_replacement_group_numbers_take_as_many_digits_as_exist():
    assert java_replacement("$10", 1) == "\\g<1>0"
    assert java_replacement("$10", 10) == "\\g<10>"
    with pytest.raises(FunctionError):
        java_replacement("$2", 1)
    with pytest.raises(FunctionError):
        java_replacement("cost $", 0)


def test_split_to_array():
    assert call("REGEXP_SPLIT_TO_ARRAY", [S, S], "a1b22c", r"\d+") == ["a", "b", "c"]
    assert call("REGEXP_SPLIT_TO_ARRAY", [S, S], "1a1", r"\d") == ["", "a", ""]
    assert call("REGEXP_SPLIT_TO_ARRAY", [S, S], "x(y)z", r"\((y)\)") == ["x", "z"]  # groups not included
    assert call("REGEXP_SPLIT_TO_ARRAY", [S, S], "abc", "") == ["a", "b", "c"]
    assert call("REGEXP_SPLIT_TO_ARRAY", [S, S], "plain", ",") == ["plain"]
    assert call("REGEXP_SPLIT_TO_ARRAY", [S, S], None, ",") is None


def test_java_defaults_are_ascii():
    assert call("REGEXP_EXTRACT", [S, S], r"\w+", "é-abc") == "abc"
    assert call("REGEXP_EXTRACT", [S, S], r"(?i)straße", "STRASSE") is None


def test_translation_of_java_only_constructs():
    assert translate_java_regex(r"(?<y>\d{4})\k<y>")[0] == r"(?P<y>\d{4})(?P=y)"
    assert translate_java_regex(r"(?<=a)b(?<!c)")[0] == r"(?<=a)b(?<!c)"
    assert translate_java_regex(r"\Q1+1\E")[0] == r"1\+1"
    assert translate_java_regex(r"[a-c[x-z]]")[0] == "[a-cx-z]"
    assert translate_java_regex(r"\p{Upper}\P{Digit}")[0] == "[A-Z][^0-9]"
    p = compile_java_regex(r"ab(?i)cd")
    assert p.fullmatch("abCD") and not p.fullmatch("ABcd")
    assert compile_java_regex(r"end\z").search("the end") and not compile_java_regex(r"end\z").search("end\n")
    assert compile_java_regex(r"end\Z").search("end\n")
    assert compile_java_regex(r"a*+a") and compile_java_regex(r"(?>ab)")  # possessive and atomic
    assert compile_java_regex(r"x") is compile_java_regex(r"x")  # compiled once


def test_invalid_pattern_is_a_function_error():
    with pytest.raises(FunctionError, match="Invalid regular expression"):
        call("REGEXP_EXTRACT", [S, S], "(unclosed", "x")
    assert isinstance(compile_java_regex("a|b"), re.Pattern)


def test_line_terminators_are_javas():
    assert call("REGEXP_EXTRACT", [S, S], "a.b", "a\rb") is None
    assert call("REGEXP_EXTRACT", [S, S], "(?s)a.b", "a\u2028b") == "a\u2028b"
    assert call("REGEXP_REPLACE", [S, S, S], "a\r\n", "$", "X") == "aX\r\nX"
    assert call("REGEXP_REPLACE", [S, S, S], "a\r\nb", "(?m)^", "X") == "Xa\r\nXb"
    assert call("REGEXP_EXTRACT_ALL", [S, S], "(?m)^", "a\n") == [""]


def test_find_loop_moves_one_unit_after_an_empty_match():
    assert call("REGEXP_REPLACE", [S, S, S], "a", "|a", "-") == "-a-"  # Python's finditer also takes 'a' at 0
    assert call("REGEXP_REPLACE", [S, S, S], "a\U0001f600", "x*", "-") == "-a-\ud83d-\ude00-"
    assert call("REGEXP_SPLIT_TO_ARRAY", [S, S], "1a2", r"\d*") == ["", "", "a"]
    assert call("REGEXP_SPLIT_TO_ARRAY", [S, S], "abc", "(?=b)|(?=c)") == ["a", "b", "c"]  # Guava's Splitter


def test_brace_is_only_a_bound_and_back_references_never_fail_the_pattern():
    for bad in ("{", "a{", "a{1", "x{,2}"):
        with pytest.raises(FunctionError, match="Illegal repetition"):
            compile_java_regex(bad)
    assert call("REGEXP_REPLACE", [S, S, S], "abc", r"(a)\2", "x") == "abc"
    assert call("REGEXP_REPLACE", [S, S, S], "aa1", r"(a)\11", "x") == "x"
    assert call("REGEXP_REPLACE", [S, S, S], "abc", "x", "$9") == "abc"  # replacement read only on a match


def test_unicode_properties_and_word_boundaries():
    assert call("REGEXP_EXTRACT", [S, S], r"\p{L}+", "Éé1") == "Éé"
    assert call("REGEXP_EXTRACT", [S, S], r"[\P{L}]+", "Éé1") == "1"
    assert call("REGEXP_EXTRACT", [S, S], r"\p{Alpha}+", "Éé1") is None
    assert call("REGEXP_EXTRACT", [S, S], r"\p{IsDigit}+", "١٢3") == "١٢3"
    assert call("REGEXP_EXTRACT", [S, S], r"\bé", "é") == "é"
    assert call("REGEXP_EXTRACT", [S, S], r"\v", "a\u2028") == "\u2028"
    with pytest.raises(FunctionError, match="Unknown character property"):
        compile_java_regex(r"\p{Nope}")


def test_class_intersection():
    assert call("REGEXP_EXTRACT_ALL", [S, S], "[a-z&&[^aeiou]]+", "hello world") == ["h", "ll", "w", "rld"]
    assert call("REGEXP_EXTRACT_ALL", [S, S], r"[\w&&\D]+", "ab12cd") == ["ab", "cd"]
    # the negation applies to the whole intersection (Pattern.clazz since JDK 9)
    assert call("REGEXP_EXTRACT_ALL", [S, S], "[^a-z&&[aeiou]]", "abz1") == ["b", "z", "1"]


def test_nested_classes_are_a_union_negated_as_a_whole():
    assert call("REGEXP_EXTRACT_ALL", [S, S], "[a[^b]]", "abc") == ["a", "c"]
    assert call("REGEXP_EXTRACT_ALL", [S, S], "[^a[^b]]", "abc") == ["b"]
    assert call("REGEXP_EXTRACT_ALL", [S, S], "[^a[b]]", "abcd") == ["c", "d"]
    assert call("REGEXP_EXTRACT_ALL", [S, S], "[a&&^b]", "a^b") == []  # '^' after && is a literal
    with pytest.raises(FunctionError):
        compile_java_regex("[a&&")


def test_unicode_case_only_with_u():
    assert call("REGEXP_EXTRACT", [S, S], "(?iu)é", "É") == "É"
    assert call("REGEXP_EXTRACT", [S, S], "(?i)é", "É") is None
    assert call("REGEXP_EXTRACT_ALL", [S, S], "(?iu)[É-Ö]", "éÉÖ") == ["É", "Ö"]  # range ends kept as written


def test_comments_mode_drops_blanks_inside_classes():
    assert call("REGEXP_EXTRACT_ALL", [S, S], "(?x)[a b]+", "a b") == ["a", "b"]
    assert call("REGEXP_EXTRACT_ALL", [S, S], "[a b]+", "a b") == ["a b"]


def test_scripts_and_blocks():
    assert call("REGEXP_EXTRACT_ALL", [S, S], r"\p{IsGreek}+", "a\u03b1\u1f00") == ["\u03b1\u1f00"]  # script
    assert call("REGEXP_EXTRACT_ALL", [S, S], r"\p{InGreek}+", "a\u03b1\u1f00") == ["\u03b1"]  # block
    assert call("REGEXP_EXTRACT_ALL", [S, S], r"\p{sc=LATN}+", "ab\u03b1") == ["ab"]
    assert call("REGEXP_EXTRACT_ALL", [S, S], r"\p{blk=CYRILLIC}", "a\u0431") == ["\u0431"]
    with pytest.raises(FunctionError):
        compile_java_regex(r"\p{IsNoSuchScript}")


def test_grapheme_clusters():
    assert call("REGEXP_EXTRACT_ALL", [S, S], r"\X", "e\u0301x\r\n") == ["e\u0301", "x", "\r\n"]
    assert call("REGEXP_EXTRACT_ALL", [S, S], r"\X", "\U0001f44d\U0001f3fd") == ["\U0001f44d\U0001f3fd"]


def test_bounded_variable_width_lookbehind():
    assert call("REGEXP_REPLACE", [S, S, S], "abx cx dx", "(?<=ab|c)x", "-") == "ab- c- dx"
    assert call("REGEXP_REPLACE", [S, S, S], "abx cx dx", "(?<!ab|c)x", "-") == "abx cx d-"
    assert call("REGEXP_EXTRACT_ALL", [S, S], r"(?<=\d{2,3})-", "12- 1- 123-") == ["-", "-"]
    with pytest.raises(FunctionError):
        compile_java_regex("(?<=a+)b")


def test_property_tables_match_their_per_code_point_definitions():
    """The ``\\p{..}`` tables are built from byte masks; each equals its definition read per code point."""
    import unicodedata

    from ksqlpy.functions import regex_properties as P

    def runs(pred):
        out, start = [], -1
        for cp in range(0x110000):
            if pred(chr(cp)):
                start = cp if start < 0 else start
            elif start >= 0:
                out.append((start, cp - 1))
                start = -1
        return out + ([(start, 0x10FFFF)] if start >= 0 else [])

    cat = unicodedata.category
    nbsp = "\xa0\u2007\u202f"
    definitions = {
        ("category", "L"): lambda c: cat(c) in ("Lu", "Ll", "Lt", "Lm", "Lo"),
        ("binary", "UPPERCASE"): str.isupper,
        ("binary", "ALNUM"): lambda c: cat(c) in ("Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Nd"),
        ("java", "javaWhitespace"): lambda c: c in "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"
        or (cat(c) in ("Zs", "Zl", "Zp") and c not in nbsp),
        ("java", "javaISOControl"): lambda c: ord(c) <= 0x1F or 0x7F <= ord(c) <= 0x9F,
    }
    for (kind, name), pred in definitions.items():
        assert P._unicode_ranges(kind, name) == runs(pred), (kind, name)
    assert P._ascii_ranges(P.POSIX["Punct"]) == [(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)]
