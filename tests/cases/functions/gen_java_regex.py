"""ksqlDB's regex functions run java.util.regex: REGEXP_EXTRACT(_ALL) and REGEXP_REPLACE loop on Matcher.find,
REGEXP_SPLIT_TO_ARRAY uses Pattern.split (a pattern matching '') or Guava's Splitter.on(pattern). The rules
of Java's engine over their scope: line terminators for '.', '^', '$' and \\Z (\\r, \\r\\n, U+0085, U+2028,
U+2029 as well as \\n; (?s), (?m), (?d)); the find loop moves one UTF-16 unit on after an empty match (between
an emoji's surrogates too, and never takes a non-empty match where an empty one was found); '{' only as a
bound; back references to groups not matched fail the match, never the pattern; replacement syntax ($n as
many digits as groups exist, ${name}, \\ escapes); class intersections; Unicode categories and binary properties whatever the
flags, POSIX classes and \\w \\d \\s ASCII, \\b Unicode (Java before 19); invalid patterns NULL per record.
Expected values are written out from Java's behaviour, never computed by ours.

Writes tests/cases/functions/java-regex.json: ``python tests/cases/functions/gen_java_regex.py
tests/cases/functions/java-regex.json`` after changing this file.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

EMOJI = "\U0001f600"  # units D83D DE00
HIGH, LOW = "\ud83d", "\ude00"
COLUMNS = ("CR STRING, CRLF STRING, LF STRING, NEL STRING, LS STRING, LINES STRING, CRLINES STRING, "
           "E STRING, AE STRING, W STRING, ACC STRING, AR STRING, NS STRING")
ROW = {"CR": "a\rb", "CRLF": "a\r\n", "LF": "a\n", "NEL": "a\x85b", "LS": "a\u2028b", "LINES": "a\nb\n",
       "CRLINES": "a\r\nb", "E": EMOJI, "AE": f"a{EMOJI}b", "W": "Hello World", "ACC": "Éé1", "AR": "١٢3"}

# family -> [(expression, expected JSON value)]
FAMILIES: dict[str, list[tuple[str, object]]] = {
    "'.' stops at every Java line terminator, not only \\n; (?s) takes them, (?d) leaves only \\n": [
        ("REGEXP_EXTRACT('a.b', CR)", None),
        ("REGEXP_EXTRACT('a.b', NEL)", None),
        ("REGEXP_EXTRACT('a.b', LS)", None),
        ("REGEXP_EXTRACT('(?s)a.b', CR)", "a\rb"),
        ("REGEXP_EXTRACT('(?s:a.b)', LS)", "a\u2028b"),
        ("REGEXP_EXTRACT('(?d)a.b', CR)", "a\rb"),
        ("REGEXP_EXTRACT('(?d)a.b', 'a' + LF + 'b')", None),
        ("REGEXP_REPLACE(CRLINES, '.', '-')", "-\r\n-"),
        ("REGEXP_REPLACE(CR, '(?s).', '-')", "---"),
    ],
    "'$' and \\Z: the input's end or before one final terminator (\\r\\n is one); (?m) before each": [
        ("REGEXP_EXTRACT('a$', CRLF)", "a"),
        ("REGEXP_EXTRACT('a$', 'a' + CR)", None),
        ("REGEXP_EXTRACT('b$', CR)", "b"),
        ("REGEXP_EXTRACT('a$', LF)", "a"),
        ("REGEXP_REPLACE(CRLF, '$', 'X')", "aX\r\nX"),
        ("REGEXP_REPLACE(LF, '$', 'X')", "aX\nX"),
        ("REGEXP_REPLACE(CRLF, '\\Z', 'X')", "aX\r\nX"),
        ("REGEXP_REPLACE(CRLF, '\\z', 'X')", "a\r\nX"),
        ("REGEXP_REPLACE(LINES, '(?m)$', 'X')", "aX\nbX\nX"),
        ("REGEXP_REPLACE(CRLINES, '(?m)$', 'X')", "aX\r\nbX"),
        ("REGEXP_EXTRACT('(?m)a$', CR)", "a"),
        ("REGEXP_EXTRACT('(?m)a$', NEL)", "a"),
        ("REGEXP_EXTRACT('(?d)a$', CRLF)", None),
    ],
    "'^' is the input's start; with (?m) also after a terminator, not at the input's end, not inside \\r\\n": [
        ("REGEXP_EXTRACT('^b', CR)", None),
        ("REGEXP_EXTRACT('(?m)^b', CR)", "b"),
        ("REGEXP_EXTRACT('(?m)^b', LS)", "b"),
        ("REGEXP_REPLACE(CRLINES, '(?m)^', 'X')", "Xa\r\nXb"),
        ("REGEXP_REPLACE(LINES, '(?m)^', 'X')", "Xa\nXb\n"),
        ("REGEXP_EXTRACT_ALL('(?m)^', LF)", [""]),
        ("REGEXP_EXTRACT('(?d)(?m)^b', CR)", None),
    ],
    "the find loop: after an empty match the next search starts one UTF-16 unit on, between surrogates too": [
        ("REGEXP_REPLACE('a', '|a', '-')", "-a-"),
        ("REGEXP_EXTRACT_ALL('|a', 'a')", ["", ""]),
        ("REGEXP_REPLACE('baaac', 'a*', '-')", "-b--c-"),
        ("REGEXP_REPLACE(AE, 'x*', '-')", f"-a-{HIGH}-{LOW}-b-"),
        ("REGEXP_EXTRACT_ALL('x*', AE)", ["", "", "", "", ""]),
        ("REGEXP_REPLACE('ab' + E, 'b*', '-')", f"-a--{HIGH}-{LOW}-"),
        ("REGEXP_SPLIT_TO_ARRAY(AE, 'x*')", ["a", HIGH, LOW, "b"]),
        ("REGEXP_REPLACE(E, '(?=b)|x*', '-')", f"-{HIGH}-{LOW}-"),
        ("REGEXP_REPLACE(AE, '.', '-')", "---"),
        ("REGEXP_REPLACE(E + E, '[^a]', '-')", "--"),
        ("REGEXP_REPLACE(E, '\\W', '-')", "-"),
        ("REGEXP_SPLIT_TO_ARRAY(AE, '(?=b)')", [f"a{EMOJI}", "b"]),
        ("REGEXP_SPLIT_TO_ARRAY('a,b', '(?<=,)')", ["a,", "b"]),
        ("REGEXP_SPLIT_TO_ARRAY('abc', '(?=b)|(?=c)')", ["a", "b", "c"]),
        ("REGEXP_SPLIT_TO_ARRAY('a,,b,', ',')", ["a", "", "b", ""]),
        ("REGEXP_SPLIT_TO_ARRAY('1a2', '\\d*')", ["", "", "a"]),
    ],
    "'{' is only a bound: a lone or unfinished one is an invalid pattern (NULL); '}' alone is literal": [
        ("REGEXP_EXTRACT('{', 'a{')", None),
        ("REGEXP_EXTRACT('a{', 'a{')", None),
        ("REGEXP_EXTRACT('a{1', 'a{1')", None),
        ("REGEXP_EXTRACT('x{,2}', 'xx')", None),
        ("REGEXP_REPLACE('a{b}', '{b}', '')", None),
        ("REGEXP_REPLACE('a{b}', '\\{b\\}', '')", "a"),
        ("REGEXP_EXTRACT('}', 'a}')", "}"),
        ("REGEXP_EXTRACT('a{2}', 'aaa')", "aa"),
        ("REGEXP_EXTRACT('a{2,}', 'aaa')", "aaa"),
        ("REGEXP_EXTRACT('a{1,2}?', 'aaa')", "a"),
    ],
    "other invalid patterns are NULL for the record; the query runs on": [
        ("REGEXP_EXTRACT('[', 'a[')", None),
        ("REGEXP_EXTRACT('(?', 'a')", None),
        ("REGEXP_EXTRACT('a**', 'a')", None),
        ("REGEXP_EXTRACT('\\y', 'y')", None),
        ("REGEXP_EXTRACT('(?<n>a)(?<n>b)', 'ab')", None),
        ("REGEXP_REPLACE('abc', '(', 'x')", None),
        ("REGEXP_SPLIT_TO_ARRAY('abc', '[')", None),
        ("REGEXP_EXTRACT_ALL('*', 'a')", None),
        ("REGEXP_EXTRACT('[b-a]', 'a')", None),
    ],
    "back references: a group not matched (later, or not defined) fails the match, not the pattern; \\11 "
    "takes the second digit only while such a group exists": [
        ("REGEXP_REPLACE('abc', '(a)\\2', 'x')", "abc"),
        ("REGEXP_REPLACE('a', '\\1(a)', 'x')", "a"),
        ("REGEXP_REPLACE('aab', '(a)\\1', 'x')", "xb"),
        ("REGEXP_REPLACE('aa1', '(a)\\11', 'x')", "x"),
        ("REGEXP_REPLACE('abab', '(a)(b)\\1\\2', 'x')", "x"),
        ("REGEXP_EXTRACT('(?<y>a)\\k<y>', 'baa')", "aa"),
        ("REGEXP_EXTRACT('\\8', '8')", None),
    ],
    "replacement strings: $n takes as many digits as groups exist, ${name}, a backslash escapes the next "
    "character; a missing group or a trailing '$' or '\\' is an error (NULL)": [
        ("REGEXP_REPLACE('abc', '(b)', '[$1]')", "a[b]c"),
        ("REGEXP_REPLACE('abc', '(b)', '[$12]')", "a[b2]c"),
        ("REGEXP_REPLACE('abc', '(b)', '[$0]')", "a[b]c"),
        ("REGEXP_REPLACE('abc', '(?<nm>b)', '[${nm}]')", "a[b]c"),
        ("REGEXP_REPLACE('abc', '(b)', '[\\1]')", "a[1]c"),
        ("REGEXP_REPLACE('abc', '(b)', '[\\$1]')", "a[$1]c"),
        ("REGEXP_REPLACE('abc', '(b)', '\\\\')", "a\\c"),
        ("REGEXP_REPLACE('abc', '(b)', '[$2]')", None),
        ("REGEXP_REPLACE('abc', '(b)', '$')", None),
        ("REGEXP_REPLACE('abc', '(b)', '\\')", None),
        ("REGEXP_REPLACE('abc', '(b)', '$a')", None),
        ("REGEXP_REPLACE('abc', '(b)', '${x}')", None),
        ("REGEXP_REPLACE('abc', 'x', '$9')", "abc"),
    ],
    "groups of REGEXP_EXTRACT and REGEXP_EXTRACT_ALL: a group that took no part is NULL; a group number "
    "beyond the pattern's is an error when there is a match": [
        ("REGEXP_EXTRACT('(a)|(b)', 'b', 1)", None),
        ("REGEXP_EXTRACT('(a)|(b)', 'b', 2)", "b"),
        ("REGEXP_EXTRACT_ALL('(a)(x)?', 'aa', 2)", [None, None]),
        ("REGEXP_EXTRACT_ALL('(a)', 'bb', 2)", []),
        ("REGEXP_EXTRACT_ALL('(a)', 'aa', 2)", None),
        ("REGEXP_EXTRACT('(a)', 'bb', 2)", None),
        ("REGEXP_EXTRACT('(a)', 'aa', 2)", None),
        ("REGEXP_EXTRACT('(?<x>a)(b)', 'ab', 2)", "b"),
        ("REGEXP_EXTRACT_ALL('(\\w)(\\d)?', 'a1b', 2)", ["1", None]),
    ],
    "flags: (?i) folds ASCII only (Unicode case with u, which leaves \\w ASCII), mid-pattern from where it "
    "stands, scoped in (?i:..); (?x) drops blanks, in classes too": [
        ("REGEXP_EXTRACT('(?i)AB', 'xaby')", "ab"),
        ("REGEXP_EXTRACT('(?i)É', ACC)", "É"),
        ("REGEXP_EXTRACT('(?i)é', 'É')", None),
        ("REGEXP_EXTRACT('a(?i)b', 'aB')", "aB"),
        ("REGEXP_EXTRACT('a(?i)b', 'AB')", None),
        ("REGEXP_EXTRACT('a(?i:b)c', 'aBc')", "aBc"),
        ("REGEXP_EXTRACT('a(?i:b)c', 'aBC')", None),
        ("REGEXP_EXTRACT('(a(?i)b)c', 'aBC')", None),
        ("REGEXP_EXTRACT('(?i)straße', 'STRASSE')", None),
        ("REGEXP_EXTRACT('(?iu)é', 'É')", "É"),
        ("REGEXP_EXTRACT('(?ui)[é]+', ACC)", "Éé"),
        ("REGEXP_EXTRACT('(?u)é', 'É')", None),
        ("REGEXP_EXTRACT('(?iu)\\w+', ACC)", "1"),
        ("REGEXP_EXTRACT('(?x) a b ', 'ab')", "ab"),
        ("REGEXP_EXTRACT_ALL('(?x)[a b]+', 'a b')", ["a", "b"]),
        ("REGEXP_EXTRACT_ALL('[a b]+', 'a b')", ["a b"]),
        ("REGEXP_EXTRACT_ALL('(?x)[\\ ]', 'a b')", [" "]),
    ],
    "character classes: \\w \\d \\s and POSIX names are ASCII, Unicode categories and binary properties "
    "are not; \\v and \\h are Java's vertical and horizontal blanks; \\b is Unicode-aware (Java before 19)": [
        ("REGEXP_EXTRACT('\\w+', ACC)", "1"),
        ("REGEXP_EXTRACT('\\d+', AR)", "3"),
        ("REGEXP_EXTRACT('\\p{L}+', ACC)", "Éé"),
        ("REGEXP_EXTRACT('\\p{Lu}', ACC)", "É"),
        ("REGEXP_EXTRACT('\\p{IsLu}', ACC)", "É"),
        ("REGEXP_EXTRACT('\\pL+', ACC)", "Éé"),
        ("REGEXP_EXTRACT('\\P{L}+', ACC)", "1"),
        ("REGEXP_EXTRACT('[\\P{L}]+', ACC)", "1"),
        ("REGEXP_EXTRACT('[\\p{L}1]+', ACC)", "Éé1"),
        ("REGEXP_EXTRACT('\\p{Nd}+', AR)", "١٢3"),
        ("REGEXP_EXTRACT('\\p{IsDigit}+', AR)", "١٢3"),
        ("REGEXP_EXTRACT('\\p{Digit}+', AR)", "3"),
        ("REGEXP_EXTRACT('\\p{Alpha}+', ACC)", None),
        ("REGEXP_EXTRACT('\\p{IsAlphabetic}+', ACC)", "Éé"),
        ("REGEXP_EXTRACT('\\p{javaLowerCase}', ACC)", "é"),
        ("REGEXP_EXTRACT('\\p{Lower}', ACC)", None),
        ("REGEXP_EXTRACT('\\p{IsPunctuation}', 'a¿b')", "¿"),
        ("REGEXP_EXTRACT('\\v', LS)", "\u2028"),
        ("REGEXP_EXTRACT('a\\v', CRLF)", "a\r"),
        ("REGEXP_EXTRACT('\\h', 'a\u00a0b')", "\u00a0"),
        ("REGEXP_EXTRACT('\\s', 'a\u00a0b')", None),
        ("REGEXP_EXTRACT('\\bé', 'é')", "é"),
        ("REGEXP_REPLACE(W, '\\b', '|')", "|Hello| |World|"),
        ("REGEXP_REPLACE('éa b', '\\B', '|')", "é|a b"),
        ("REGEXP_EXTRACT('(?U)\\w+', ACC)", "Éé1"),
    ],
    "class intersection: [A&&B] is a character in every operand, operands nested or not, an empty one "
    "ignored": [
        ("REGEXP_EXTRACT_ALL('[a-z&&[^aeiou]]+', W)", ["ll", "rld"]),
        ("REGEXP_EXTRACT_ALL('[a-z&&[^aeiou]&&[^l]]+', W)", ["r", "d"]),
        ("REGEXP_EXTRACT_ALL('[\\w&&\\D]+', 'ab12cd')", ["ab", "cd"]),
        ("REGEXP_EXTRACT_ALL('[a-z&&def]', 'abcdefg')", ["d", "e", "f"]),
        ("REGEXP_EXTRACT_ALL('x[a-c&&b-d]y', 'xby xay')", ["xby"]),
        ("REGEXP_EXTRACT_ALL('[&&a]', 'a&')", ["a"]),
        ("REGEXP_REPLACE(ACC, '[\\p{L}&&\\p{Ll}]', '-')", "É-1"),
        ("REGEXP_EXTRACT('[a&&', 'a')", None),
    ],
    "nested classes and intersections are one set, a leading '^' negates all of it (JDK 9+): [a[^b]] is "
    "a or not b, [^a[^b]] b but not a, [^A&&B] outside the intersection; '^' after && is a literal": [
        ("REGEXP_EXTRACT_ALL('[a[^b]]', 'abc')", ["a", "c"]),
        ("REGEXP_EXTRACT_ALL('[^a[^b]]', 'abc')", ["b"]),
        ("REGEXP_EXTRACT_ALL('[^a[b]]', 'abcd')", ["c", "d"]),
        ("REGEXP_EXTRACT_ALL('[^a-z&&[aeiou]]', 'abz1')", ["b", "z", "1"]),
        ("REGEXP_EXTRACT_ALL('[^a-z&&[^aeiou]]', 'abz1')", ["a", "1"]),
        ("REGEXP_EXTRACT_ALL('[^&&b]', 'abc')", ["a", "c"]),
        ("REGEXP_EXTRACT_ALL('(?i)[^a&&[a-c]]', 'AbC')", ["b", "C"]),
        ("REGEXP_EXTRACT_ALL('[[a-c]&&[b-d]]+', 'abcde')", ["bc"]),
        ("REGEXP_EXTRACT_ALL('[a&&^b]', 'a^b')", []),
        ("REGEXP_EXTRACT_ALL('[a&&]b]', 'ab]')", ["ab]"]),
        ("REGEXP_REPLACE('x[y', '[\\Q[\\E]', '-')", "x-y"),
        ("REGEXP_EXTRACT('[^[]]', 'a')", None),
    ],
    "scripts and blocks: Is<script> (after binary properties and categories), In<block>, sc=/script=, "
    "blk=/block= with Unicode's names, ISO 15924 codes or Java's constants, any case; an unknown one is no "
    "pattern": [
        ("REGEXP_EXTRACT_ALL('\\p{IsLatin}+', 'abcαβ dé')", ["abc", "dé"]),
        ("REGEXP_EXTRACT_ALL('\\p{IsGreek}+', 'aαβἀ')", ["αβἀ"]),
        ("REGEXP_EXTRACT_ALL('\\p{InGreek}+', 'aαβἀ')", ["αβ"]),
        ("REGEXP_EXTRACT_ALL('\\p{InGreekandCoptic}+', 'aα')", ["α"]),
        ("REGEXP_EXTRACT_ALL('\\p{block=Greek Extended}', 'ἀα')", ["ἀ"]),
        ("REGEXP_EXTRACT_ALL('\\p{blk=Basic_Latin}+', 'abé')", ["ab"]),
        ("REGEXP_EXTRACT_ALL('\\p{script=Cyrl}', 'aбx')", ["б"]),
        ("REGEXP_EXTRACT_ALL('\\p{sc=greek}', 'aα')", ["α"]),
        ("REGEXP_EXTRACT_ALL('\\p{IsLatn}', 'aα')", ["a"]),
        ("REGEXP_EXTRACT_ALL('\\P{IsLatin}+', 'ab12')", ["12"]),
        ("REGEXP_EXTRACT_ALL('[\\p{IsCyrillic}a]+', 'aбx')", ["aб"]),
        ("REGEXP_EXTRACT_ALL('\\p{IsHan}', '中x')", ["中"]),
        ("REGEXP_EXTRACT_ALL('\\p{IsCommon}+', '1 a')", ["1 "]),
        ("REGEXP_EXTRACT('\\p{IsFoo}', 'x')", None),
        ("REGEXP_EXTRACT('\\p{InFoo}', 'x')", None),
    ],
    "\\X is one extended grapheme cluster: a character with its combining marks, CR LF, a regional "
    "indicator pair, a Hangul syllable sequence, an emoji with its modifier or ZWJ sequence": [
        ("REGEXP_EXTRACT_ALL('\\X', 'e\u0301x')", ["e\u0301", "x"]),
        ("ARRAY_LENGTH(REGEXP_EXTRACT_ALL('\\X', CRLINES))", 3),
        ("REGEXP_EXTRACT_ALL('\\X', '\U0001f1eb\U0001f1f7\U0001f1e9')", ["\U0001f1eb\U0001f1f7", "\U0001f1e9"]),
        ("REGEXP_EXTRACT_ALL('\\X', '\U0001f44d\U0001f3fdk')", ["\U0001f44d\U0001f3fd", "k"]),
        ("ARRAY_LENGTH(REGEXP_EXTRACT_ALL('\\X', '\U0001f468\u200d\U0001f469\u200d\U0001f467!'))", 2),
        ("REGEXP_EXTRACT_ALL('\\X', '\u1100\u1161\u11a8\ud55c')", ["\u1100\u1161\u11a8", "\ud55c"]),
        ("REGEXP_EXTRACT_ALL('\\X', '\u0915\u093fa')", ["\u0915\u093f", "a"]),
        ("REGEXP_REPLACE('ae\u0301', '\\X', '.')", ".."),
    ],
    "a look-behind of bounded variable width (alternatives of different lengths, ?, {m,n}) is accepted; an "
    "unbounded one (+, *, {m,}) is no pattern": [
        ("REGEXP_REPLACE('abx cx dx', '(?<=ab|c)x', '-')", "ab- c- dx"),
        ("REGEXP_REPLACE('abx cx dx', '(?<!ab|c)x', '-')", "abx cx d-"),
        ("REGEXP_REPLACE('ab aab b', '(?<=a{1,2})b', '-')", "a- aa- b"),
        ("REGEXP_REPLACE('yz xyz z', '(?<=x?y)z', '-')", "y- xy- z"),
        ("REGEXP_REPLACE('cabd ccd d', '(?<=(?:ab|c){1,2})d', '-')", "cab- cc- d"),
        ("REGEXP_EXTRACT_ALL('(?<=\\d{2,3})-', '12- 1- 123-')", ["-", "-"]),
        ("REGEXP_EXTRACT('ab', '(?<=a+)b')", None),
        ("REGEXP_EXTRACT('aab', '(?<=a{2,})b')", None),
    ],
    "NULL in any position is NULL": [
        ("REGEXP_EXTRACT(NS, 'a')", None),
        ("REGEXP_EXTRACT('a', NS)", None),
        ("REGEXP_EXTRACT('(a)', 'a', CAST(NULL AS INT))", None),
        ("REGEXP_EXTRACT_ALL(NS, 'a')", None),
        ("REGEXP_REPLACE(NS, 'a', 'b')", None),
        ("REGEXP_REPLACE('a', NS, 'b')", None),
        ("REGEXP_REPLACE('a', 'a', NS)", None),
        ("REGEXP_SPLIT_TO_ARRAY(NS, 'a')", None),
        ("REGEXP_SPLIT_TO_ARRAY('a', NS)", None),
    ],
}


def case(title: str, probes: list[tuple[str, object]]) -> dict:  # type: ignore[type-arg]
    return probe_case(title, probes, COLUMNS, ROW)


tests = [case(title, probes) for title, probes in FAMILIES.items()]

if __name__ == "__main__":
    write_cases(sys.argv[1], __doc__, tests)
