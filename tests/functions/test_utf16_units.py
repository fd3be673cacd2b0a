"""ksqlpy.utf16: Python strings holding Java's UTF-16 unit sequences (see the module's docstring)."""

from __future__ import annotations

from ksqlpy import utf16

EMOJI = "\U0001f600"  # units D83D DE00
HIGH, LOW = "\ud83d", "\ude00"


def test_units_and_joining() -> None:
    assert utf16.as_units(f"a{EMOJI}") == f"a{HIGH}{LOW}"
    assert utf16.as_units("plain") == "plain"
    assert utf16.joined(f"a{HIGH}{LOW}") == f"a{EMOJI}"  # the halves of a cut character join again
    assert utf16.joined(f"{HIGH}{HIGH}{LOW}") == f"{HIGH}{EMOJI}"  # a high unit alone stays alone
    assert utf16.joined(f"{LOW}{HIGH}") == f"{LOW}{HIGH}"  # in the wrong order they are no pair


def test_code_point_at_is_javas() -> None:
    units = utf16.as_units(f"a{EMOJI}")
    assert [utf16.code_point_at(units, i) for i in range(3)] == [0x61, 0x1F600, 0xDE00]
    assert utf16.code_point_at(HIGH, 0) == 0xD83D  # a high unit at the end is itself


def test_utf8_writes_a_lone_surrogate_as_a_question_mark() -> None:
    assert utf16.utf8(f"a{HIGH}") == b"a?"
    assert utf16.utf8(EMOJI) == EMOJI.encode()


def test_order_is_string_compare_to() -> None:
    fullwidth = "\uff46"
    assert utf16.compare(EMOJI, fullwidth) < 0 < utf16.compare(fullwidth, EMOJI)  # code points say the opposite
    assert utf16.compare("a", EMOJI) < 0 and utf16.compare("b", "b") == 0
    assert sorted([fullwidth, EMOJI, "a", HIGH], key=utf16.order_key) == ["a", HIGH, EMOJI, fullwidth]


def test_from_utf8_replaces_malformed_input_as_java():
    from ksqlpy import utf16

    assert utf16.from_utf8(b"\xed\xa0\x80A") == "\ufffdA"  # an encoded surrogate is one malformed character
    assert utf16.from_utf8(b"\xe0\x82\xac") == "\ufffd" * 3  # overlong: part by part
    assert utf16.from_utf8(b"\xe2\x82") == "\ufffd"  # truncated at the end
    assert utf16.from_utf8("é😀".encode()) == "é😀"
