"""Java strings are UTF-16 units, and ksqlDB's string functions index, split and mask them by unit: a character
outside the BMP (an emoji) is two positions and can be cut in half. The halves join again when concatenated;
a half left alone is written by Jackson's JSON writer as its escape (read back as the same lone surrogate) and
by every other writer (String.getBytes(UTF_8)) as '?'. Order is String.compareTo's,
by unit too. Expected values are written out from the Java implementations (String.substring/indexOf/
compareTo, Pattern.compile("").split, Masker's codePointAt(i) per index, InitCap's substring(0, 1)
.toUpperCase()), never computed by ours.

Writes tests/cases/functions/utf16-units.json: ``python tests/cases/functions/gen_utf16_units.py
tests/cases/functions/utf16-units.json`` after changing this file.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

EMOJI = "\U0001f600"  # U+1F600: units D83D DE00
HIGH, LOW = "\ud83d", "\ude00"
DESERET = "\U00010428"  # a lower-case letter outside the BMP; its upper case is U+10400
FULLWIDTH_F = "\uff46"  # U+FF46: above a high surrogate (U+D83D) as a unit, below U+1F600 as a code point
COLUMNS = "S STRING, E STRING, D STRING, N STRING, F STRING, A ARRAY<STRING>"
ROW = {"S": f"a{EMOJI}b", "E": EMOJI, "D": f"{DESERET}x y", "F": FULLWIDTH_F, "A": [FULLWIDTH_F, EMOJI, "a"]}

# family -> [(expression, expected JSON value)]
FAMILIES: dict[str, list[tuple[str, object]]] = {
    "lengths and positions count UTF-16 units; a cut half stays and joins its other half again": [
        ("LEN(S)", 4),
        ("LEN(E)", 2),
        ("SUBSTRING(S, 2, 2)", EMOJI),
        ("SUBSTRING(S, 2, 1)", HIGH),
        ("SUBSTRING(S, 3)", f"{LOW}b"),
        ("SUBSTRING(S, -2)", f"{LOW}b"),
        ("LEN(SUBSTRING(S, 2, 1))", 1),
        ("CONCAT(SUBSTRING(S, 1, 2), SUBSTRING(S, 3))", f"a{EMOJI}b"),
        ("SUBSTRING(S, 1, 2) || SUBSTRING(S, 3)", f"a{EMOJI}b"),
        ("CONCAT_WS('', SUBSTRING(E, 1, 1), SUBSTRING(E, 2))", EMOJI),
        ("CONCAT(SUBSTRING(S, 1, 2), SUBSTRING(S, 3)) = S", True),
        ("INSTR(S, 'b')", 4),
        ("INSTR(S, E)", 2),
        ("INSTR(S, SUBSTRING(E, 2))", 3),
        ("LPAD(S, 2, '-')", f"a{HIGH}"),
        ("LPAD(E, 3, E)", f"{HIGH}{EMOJI}"),
        ("RPAD(S, 3, '-')", f"a{EMOJI}"),
        ("RPAD('a', 2, E)", f"a{HIGH}"),
        ("REPLACE(S, SUBSTRING(E, 1, 1), 'x')", f"ax{LOW}b"),
        ("UCASE(S)", f"A{EMOJI}B"),
        ("TRIM(CONCAT(' ', E, ' '))", EMOJI),
        ("MD5(E)", "2a02eac39d716a70ecf37579185927b6"),
        ("MD5(SUBSTRING(E, 1, 1))", "d1457b72c3fb323a2671125aef3eab5d"),  # getBytes(UTF_8) writes a half as '?'
    ],
    "the empty delimiter splits between every two units, a character's surrogates too; ARRAY_JOIN joins them": [
        ("SPLIT(S, '')", ["a", HIGH, LOW, "b"]),
        ("SPLIT(E, '')", [HIGH, LOW]),
        ("ARRAY_LENGTH(SPLIT(S, ''))", 4),
        ("ARRAY_JOIN(SPLIT(S, ''), '')", f"a{EMOJI}b"),
        ("SPLIT(S, E)", ["a", "b"]),
        ("SPLIT(S, SUBSTRING(E, 2))", [f"a{HIGH}", "b"]),
        ("REGEXP_SPLIT_TO_ARRAY(S, '')", ["a", HIGH, LOW, "b"]),
        ("REGEXP_REPLACE(E, '', '-')", f"-{HIGH}-{LOW}-"),
        ("REGEXP_REPLACE(S, '.', '-')", "---"),
        ("REGEXP_EXTRACT('.b', S)", f"{EMOJI}b"),
    ],
    "masks go by index with the code point at it: the high unit is the character, the low unit a surrogate": [
        ("MASK(S)", "x--x"),
        ("MASK(E)", "--"),
        ("MASK(S, NULL, NULL, NULL, NULL)", f"a{EMOJI}{LOW}b"),
        ("MASK(S, 'U', 'L', 'D', '*')", "L**L"),
        ("MASK_LEFT(S, 2)", f"x-{LOW}b"),
        ("MASK_RIGHT(S, 2)", f"a{HIGH}-x"),
        ("MASK_KEEP_LEFT(S, 2)", f"a{HIGH}-x"),
        ("MASK_KEEP_RIGHT(S, 2)", f"x-{LOW}b"),
        ("MASK_LEFT(S, 3)", "x--b"),
        ("MASK(D)", "x-x-x"),
    ],
    "case: UCASE and LCASE map whole characters, INITCAP upper-cases one unit, so a word starting outside the "
    "BMP keeps its case": [
        ("UCASE(D)", "\U00010400X Y"),
        ("LCASE(UCASE(D))", f"{DESERET}x y"),
        ("INITCAP(D)", f"{DESERET}x Y"),
        ("INITCAP(CONCAT('a', D))", f"A{DESERET}x Y"),
    ],
    "order is String.compareTo's, by unit: a character outside the BMP sorts below U+E000 to U+FFFF": [
        ("E < F", True),
        ("F > E", True),
        ("E >= F", False),
        ("E BETWEEN 'a' AND F", True),
        ("F BETWEEN E AND 'z'", False),
        ("E < 'a'", False),
        ("GREATEST(E, F)", FULLWIDTH_F),
        ("LEAST(E, F)", EMOJI),
        ("ARRAY_SORT(A)", ["a", EMOJI, FULLWIDTH_F]),
        ("ARRAY_SORT(A, 'DESC')", [FULLWIDTH_F, EMOJI, "a"]),
        ("ARRAY_MAX(A)", FULLWIDTH_F),
        ("ARRAY_MIN(ARRAY[E, F])", EMOJI),
        ("ENTRIES(MAP(F := 1, E := 2, 'a' := 3), true)",
         [{"K": "a", "V": 3}, {"K": EMOJI, "V": 2}, {"K": FULLWIDTH_F, "V": 1}]),
    ],
    "CHR of a surrogate code point or escape is a lone surrogate; two join": [
        ("CHR(55357)", HIGH),
        ("CHR('\\ud83d')", HIGH),
        ("CONCAT(CHR(55357), CHR(56832))", EMOJI),
        ("CHR(128512)", EMOJI),
        ("LEN(CHR(128512))", 2),
    ],
}


def case(title: str, probes: list[tuple[str, object]]) -> dict:  # type: ignore[type-arg]
    return probe_case(title, probes, COLUMNS, ROW)


def sink_case(fmt: str, value: object) -> dict:  # type: ignore[type-arg]
    """A half character written by a sink of ``fmt``: Jackson escapes it, String.getBytes writes '?'."""
    return {
        "name": f"a lone surrogate in a {fmt} sink",
        "statements": [
            f"CREATE STREAM S (K STRING KEY, {COLUMNS}) WITH (kafka_topic='s', value_format='JSON');",
            f"CREATE STREAM O WITH (value_format='{fmt}') AS SELECT K, SUBSTRING(S, 1, 2) AS C FROM S;",
        ],
        "inputs": [{"topic": "s", "key": "k", "value": ROW}],
        "outputs": [{"topic": "O", "key": "k", "value": value}],
    }


AGGREGATE_CASE = {
    "name": "MIN, MAX, TOPK and TOPKDISTINCT of strings order them by UTF-16 unit, as String.compareTo",
    "statements": [
        "CREATE STREAM S (K STRING KEY, V STRING) WITH (kafka_topic='s', value_format='JSON');",
        "CREATE TABLE O AS SELECT K, MIN(V) AS LO, MAX(V) AS HI, TOPK(V, 2) AS TOP, TOPKDISTINCT(V, 3) AS TOPD, "
        "TOPK(V, V, 2) AS TOPS FROM S GROUP BY K;",
    ],
    "inputs": [{"topic": "s", "key": "k", "value": {"V": v}} for v in (FULLWIDTH_F, EMOJI, "a")],
    "outputs": [
        {"topic": "O", "key": "k", "value": {"LO": FULLWIDTH_F, "HI": FULLWIDTH_F, "TOP": [FULLWIDTH_F],
                                             "TOPD": [FULLWIDTH_F],
                                             "TOPS": [{"SORT_COL": FULLWIDTH_F, "COL0": FULLWIDTH_F}]}},
        {"topic": "O", "key": "k", "value": {"LO": EMOJI, "HI": FULLWIDTH_F, "TOP": [FULLWIDTH_F, EMOJI],
                                             "TOPD": [FULLWIDTH_F, EMOJI],
                                             "TOPS": [{"SORT_COL": FULLWIDTH_F, "COL0": FULLWIDTH_F},
                                                      {"SORT_COL": EMOJI, "COL0": EMOJI}]}},
        {"topic": "O", "key": "k", "value": {"LO": "a", "HI": FULLWIDTH_F, "TOP": [FULLWIDTH_F, EMOJI],
                                             "TOPD": [FULLWIDTH_F, EMOJI, "a"],
                                             "TOPS": [{"SORT_COL": FULLWIDTH_F, "COL0": FULLWIDTH_F},
                                                      {"SORT_COL": EMOJI, "COL0": EMOJI}]}},
    ],
}

tests = [case(title, probes) for title, probes in FAMILIES.items()] + [AGGREGATE_CASE] + [
    sink_case("JSON", {"C": f"a{HIGH}"}),
    sink_case("DELIMITED", "a?"),
    sink_case("KAFKA", "a?"),
    sink_case("AVRO", {"C": "a?"}),
    sink_case("PROTOBUF", {"C": "a?"}),
]

if __name__ == "__main__":
    write_cases(sys.argv[1], __doc__, tests)
