"""LIKE and its ESCAPE character over their whole scope, as ksqlDB's LikeEvaluator reads a pattern (from memory of
LikeEvaluator.likeToRegex): ``%`` is any run and ``_`` one character, the value must match as a whole (line
breaks included); an escape character makes the next one literal - ``%``, ``_``, itself, a character special to
Java's regular expressions or an ordinary one - and adds nothing itself, so a pattern ending in its escape
character just ends there. Characters special to regular expressions are literal in a pattern with or without
an escape. Every escape character family is probed (``%`` and ``_`` as the escape, regex metacharacters, a
letter, a blank), with constant patterns and patterns read from the record (both code paths), in a projection
and in WHERE, plus NULL values and patterns (the record's expression fails: NULL, or dropped by WHERE).

The expected values come from a small matcher written here from the rule (no regular expressions), not from the
engine. Writes tests/cases/functions/like-escape.json: ``python tests/cases/functions/gen_like_escape.py``.
"""
from __future__ import annotations

import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

ANY_RUN, ANY_ONE = object(), object()


def tokens(pattern: str, escape: str | None) -> list[object]:
    """The pattern as LikeEvaluator reads it: an escape character sets a flag and is dropped."""
    out: list[object] = []
    escaped = False
    for c in pattern:
        if escape is not None and c == escape and not escaped:
            escaped = True
            continue
        out.append(c if escaped or c not in "%_" else (ANY_RUN if c == "%" else ANY_ONE))
        escaped = False
    return out


def like(value: str, pattern: str, escape: str | None) -> bool:
    toks = tokens(pattern, escape)

    def match(i: int, j: int) -> bool:
        if j == len(toks):
            return i == len(value)
        t = toks[j]
        if t is ANY_RUN:
            return any(match(k, j + 1) for k in range(i, len(value) + 1))
        if i == len(value):
            return False
        return (t is ANY_ONE or t == value[i]) and match(i + 1, j + 1)

    return match(0, 0)


def sql(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def pairs_for(e: str) -> list[tuple[str, str]]:
    """(value, pattern) pairs that tell the escape's rule for escape character ``e``."""
    other = "x" if e != "x" else "y"
    return [
        ("a%", f"a{e}%"), ("ab", f"a{e}%"),            # an escaped % is a literal percent sign
        ("a_", f"a{e}_"), ("ab", f"a{e}_"),            # an escaped _ is a literal underscore
        (f"a{e}", f"a{e}{e}"), ("a", f"a{e}{e}"),      # the escape escapes itself
        (f"{e}{e}", f"{e}{e}{e}{e}"), (e, f"{e}{e}{e}{e}"),
        ("ab", f"ab{e}"), (f"ab{e}", f"ab{e}"),        # a trailing escape adds nothing
        ("a", f"a{e}{e}{e}"), (f"a{e}", f"a{e}{e}{e}"),
        ("", e), (e, e),
        (other, f"{e}{other}"), (f"{e}{other}", f"{e}{other}"),  # an escaped ordinary character is itself
        (f"z{e}z", f"%{e}{e}%"), ("zz", f"%{e}{e}%"),
        ("q", f"{e}"), ("q.", f"_{e}."), ("qq", f"_{e}."),
    ]


ESCAPES = ["!", "%", "_", "\\", ".", "*", "+", "?", "^", "$", "[", "]", "(", ")", "{", "}", "|", "x", " ", "#", "é",
           "日"]

# patterns without an escape: metacharacters of regular expressions are themselves; % and _ match line breaks
PLAIN = [
    ("a.c", "a.c"), ("abc", "a.c"), ("a*", "a*"), ("aaa", "a*"), ("(x)", "(x)"), ("x", "(x)"),
    ("[ab]", "[ab]"), ("a", "[ab]"), ("a|b", "a|b"), ("a", "a|b"), ("^a$", "^a$"), ("a", "^a$"),
    ("a\\b", "a\\b"), ("a\\\\b", "a\\b"), ("{1}", "{1}"), ("a+?", "a+?"), ("aa", "a+?"),
    ("a\nb", "a%b"), ("a\nb", "a_b"), ("\n", "%"), ("\n\n", "_"), ("", "%"), ("", "_"), ("", ""),
    ("abc", "%"), ("ABC", "abc"), ("abc", "%b%"), ("abc", "%B%"), ("abc", "a%c%"), ("ab", "a__"),
    ("héllo", "h_llo"), ("日本語", "__語"), ("\U0001F600x", "_x"),
]

CASES_PER_FILE = 40


def constant_probes(pairs: list[tuple[str, str, str | None]]) -> list[tuple[str, object]]:
    return [(f"{sql(v)} LIKE {sql(p)}" + (f" ESCAPE {sql(e)}" if e is not None else ""), like(v, p, e))
            for v, p, e in pairs]


def column_case(title: str, pairs: list[tuple[str, str, str | None]]) -> dict[str, Any]:
    """The values and patterns as record columns (the per-record path): ``V<i> LIKE P<i>``."""
    columns = ", ".join(f"V{i} STRING, P{i} STRING" for i in range(len(pairs)))
    row: dict[str, Any] = {}
    probes: list[tuple[str, object]] = []
    for i, (v, p, e) in enumerate(pairs):
        row[f"V{i}"], row[f"P{i}"] = v, p
        probes.append((f"V{i} LIKE P{i}" + (f" ESCAPE {sql(e)}" if e is not None else ""), like(v, p, e)))
    return probe_case(title, probes, columns, row)


def chunks(items: list[Any], n: int) -> list[list[Any]]:
    return [items[i:i + n] for i in range(0, len(items), n)]


def where_case() -> dict[str, Any]:
    """WHERE keeps the records whose LIKE is true; a trailing escape fails no record, a NULL drops it."""
    rows = [(1, "ab", "ab!"), (2, "ab!", "ab!"), (3, "a%", "a!%"), (4, "ab", "a!%"), (5, None, "a%"),
            (6, "ab", None), (7, "a!", "a!!!"), (8, "a_b", "a!_%")]
    return {
        "name": "LIKE ESCAPE in WHERE: true keeps the record, false or a NULL operand drops it; a trailing escape "
                "fails nothing",
        "statements": [
            "CREATE STREAM S (ID INT KEY, V STRING, P STRING) WITH (kafka_topic='s', value_format='JSON');",
            "CREATE STREAM O AS SELECT ID, V FROM S WHERE V LIKE P ESCAPE '!';",
            "CREATE STREAM C AS SELECT ID, V FROM S WHERE V LIKE 'a!%' ESCAPE '!' OR V LIKE 'ab!' ESCAPE '!';",
        ],
        "inputs": [{"topic": "s", "key": k, "value": {"V": v, "P": p}} for k, v, p in rows],
        "outputs": [{"topic": "O", "key": k, "value": {"V": v}} for k, v, p in rows
                    if v is not None and p is not None and like(v, p, "!")]
                   + [{"topic": "C", "key": k, "value": {"V": v}} for k, v, _ in rows
                      if v is not None and (like(v, "a!%", "!") or like(v, "ab!", "!"))],
    }


def null_case() -> dict[str, Any]:
    """A NULL value or pattern fails the expression (LikeEvaluator meets a null): the column is NULL, the query
    goes on; NOT LIKE alike."""
    probes: list[tuple[str, object]] = [
        ("V LIKE 'a%'", None), ("V LIKE 'a!' ESCAPE '!'", None), ("W LIKE P", None), ("W LIKE P ESCAPE '!'", None),
        ("W NOT LIKE P ESCAPE '!'", None), ("W LIKE CAST(NULL AS STRING)", None),
        ("W LIKE 'ab!' ESCAPE '!'", True), ("W NOT LIKE 'ab!' ESCAPE '!'", False), ("W LIKE W", True),
    ]
    return probe_case("LIKE with a NULL value or pattern: the expression fails, its column is NULL", probes,
                      "V STRING, W STRING, P STRING", {"V": None, "W": "ab", "P": None})


def escape_length_cases() -> list[dict[str, Any]]:
    """The ESCAPE text must be one Java character: one UTF-16 unit, so a character outside the BMP (two units)
    is refused like two characters, when the statement is prepared."""
    out = []
    for esc in ["\U0001F600", "ab", ""]:
        out.append({
            "name": f"LIKE ESCAPE of {len(esc.encode('utf-16-le')) // 2} UTF-16 units is refused: {esc!r}",
            "statements": [
                "CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='s', value_format='JSON');",
                f"CREATE STREAM O AS SELECT ID, V LIKE 'a%' ESCAPE {sql(esc)} AS M FROM S;",
            ],
            "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException",
                                  "message": f"Expected single character escape but got: {esc}"},
        })
    return out


def main() -> None:
    escaped = [(v, p, e) for e in ESCAPES for v, p in pairs_for(e)]
    plain = [(v, p, None) for v, p in PLAIN]
    tests: list[dict[str, Any]] = []
    for n, part in enumerate(chunks(plain + escaped, CASES_PER_FILE)):
        escapes = sorted({e for _, _, e in part if e is not None})
        title = f"LIKE constant patterns {n + 1}: escapes {' '.join(repr(e) for e in escapes) or 'none'}"
        tests.append(probe_case(title, constant_probes(part), "X INT", {"X": 1}))
    for n, part in enumerate(chunks(plain + escaped, CASES_PER_FILE)):
        escapes = sorted({e for _, _, e in part if e is not None})
        tests.append(column_case(f"LIKE patterns from the record {n + 1}: escapes "
                                 f"{' '.join(repr(e) for e in escapes) or 'none'}", part))
    tests.append(where_case())
    tests.append(null_case())
    tests.extend(escape_length_cases())
    write_cases(str(pathlib.Path(__file__).with_name("like-escape.json")), __doc__ or "", tests)


if __name__ == "__main__":
    main()
