"""Which characters the MASK family treats as upper case, lower case, digit or other: ksqlDB's Masker asks Java's
Character.isUpperCase, isLowerCase and isDigit in that order (from memory of ksqlDB's Masker). Java's case tests
are Unicode's Uppercase / Lowercase properties - the letter categories Lu / Ll plus the contributory
Other_Uppercase / Other_Lowercase characters: Roman numerals (U+2160..), circled letters (U+24B6..), modifier
and subscript letters (U+02B0.., U+1D2C.., U+2090..), the ordinal indicators ª º, the iota subscript U+0345. A
title-case letter (ǅ), a letter without case (あ, א), a number that is not a decimal digit (², ½), a combining
mark are other; any decimal digit (Arabic-Indic, full-width) is a digit. Over MASK, MASK_LEFT/RIGHT and
MASK_KEEP_LEFT/RIGHT, default and chosen masks, a NULL mask keeping its class.

Writes tests/cases/functions/mask-classes.json: ``python tests/cases/functions/gen_mask_classes.py
tests/cases/functions/mask-classes.json`` after changing this file.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

UPPER = "A\u00c9\u2160\u216b\u24b6\u24cf"           # A É Ⅰ Ⅻ Ⓐ Ⓩ
LOWER = "a\u00df\u2170\u24d0\u02b0\u1d2c\u1d43\u2090\u00aa\u00ba\u0345"  # a ß ⅰ ⓐ ʰ ᴬ ᵃ ₐ ª º iota subscript
DIGIT = "7\u0661\uff15"                            # 7 ١ ５
OTHER = "\u01c5\u3042\u05d0\u00b2\u00bd\u0301 -"   # ǅ あ א ² ½ combining acute, space, hyphen
COLUMNS = "U STRING, L STRING, D STRING, O STRING, MIX STRING"
ROW = {"U": UPPER, "L": LOWER, "D": DIGIT, "O": OTHER, "MIX": "\u216b\u02b0\u0661\u01c5"}


def probes() -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = [
        ("MASK(U)", "X" * len(UPPER)),
        ("MASK(L)", "x" * len(LOWER)),
        ("MASK(D)", "n" * len(DIGIT)),
        ("MASK(O)", "-" * len(OTHER)),
        ("MASK(MIX, 'U', 'l', '#', '.')", "Ul#."),
        ("MASK(MIX, NULL, 'l', NULL, NULL)", "\u216bl\u0661\u01c5"),
        ("MASK(MIX, 'U', NULL, NULL, NULL)", "U\u02b0\u0661\u01c5"),
        ("MASK_LEFT(MIX, 2)", "Xx\u0661\u01c5"),
        ("MASK_RIGHT(MIX, 2)", "\u216b\u02b0n-"),
        ("MASK_KEEP_LEFT(MIX, 1)", "\u216bxn-"),
        ("MASK_KEEP_RIGHT(MIX, 3)", "X\u02b0\u0661\u01c5"),
        ("MASK_LEFT(U, 3, '*', 'l', 'd', 'o')", "***" + UPPER[3:]),
        ("MASK_RIGHT(L, 4, 'U', '_', 'd', 'o')", LOWER[:-4] + "____"),
        ("MASK_KEEP_LEFT(D, 1, 'U', 'l', '0', 'o')", DIGIT[:1] + "00"),
        ("MASK_KEEP_RIGHT(O, 2, 'U', 'l', 'd', '~')", "~" * (len(OTHER) - 2) + OTHER[-2:]),
    ]
    return out


tests = [probe_case("Java's character classes: Other_Uppercase and Other_Lowercase count as cased", probes(),
                    COLUMNS, ROW)]

if __name__ == "__main__":
    write_cases(sys.argv[1], __doc__, tests, ensure_ascii=False)
