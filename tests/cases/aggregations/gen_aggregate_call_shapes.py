"""Writes tests/cases/aggregations/aggregate-call-shapes.json: SQL's aggregate shapes that ksqlDB's grammar does
not have, refused where ANTLR refuses them, in ksqlDB's SyntaxErrorValidator wording (rules reference §1.3).

From memory of SqlBase.g4 (no case shows these): a call is one of three primaryExpression alternatives
(``name(*)``, ``name(functionArgument, ...)``, ``name(lambda, ...)``), chosen at the name by looking past the
bracket. So a token right after ``(`` that begins none of them - ``DISTINCT``, ``ALL`` - leaves no viable
alternative at that token (``Syntax error at or near 'DISTINCT' at line L:C``), whatever the function, the
clause or the statement kind. ``ORDER BY`` inside a call: after a lone name (an argument or a lambda's
parameter) the same prediction fails at ``ORDER``; after a longer argument the arguments' loop wants
``{',', ')'}``. ``FILTER`` and ``OVER`` are no keywords: after a select item they are its alias, and the ``(``
after them is a mismatch against ``{',', 'FROM'}``. ``SELECT DISTINCT``/``SELECT ALL`` delete the reserved word
as extraneous (a select item follows) and name it as reserved. ``GROUP BY GROUPING SETS``/``... WITH ROLLUP``
fail at the word after the grouping expression against the long set of what may follow an expression (no
detail). ``ROLLUP(K)``/``CUBE(K)`` parse as calls of unknown functions, and ``GROUP BY 1`` groups by the
literal 1 (no ordinals): the columns it leaves ungrouped are refused by the aggregate analysis.

Run ``python tests/cases/aggregations/gen_aggregate_call_shapes.py`` after changing it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

Case = dict[str, Any]
PARSE = "io.confluent.ksql.parser.exception.ParseFailedException"
STATEMENT = "io.confluent.ksql.util.KsqlStatementException"
SOURCE = ("CREATE STREAM S (K STRING KEY, A INT, B STRING) "
          "WITH (kafka_topic='s', value_format='JSON', partitions=1);")
MARK = "@"  # where the failing token begins (removed from the statement)

# one-argument calls of aggregate functions (and one scalar: the rule is the grammar's, not the registry's)
FUNCTIONS = ["COUNT", "SUM", "AVG", "MIN", "MAX", "COUNT_DISTINCT", "COLLECT_LIST", "COLLECT_SET",
             "EARLIEST_BY_OFFSET", "LATEST_BY_OFFSET", "HISTOGRAM", "ABS"]
QUANTIFIERS = ["DISTINCT", "ALL"]
# where a call stands in an aggregate query: {c} is the call
PLACES: list[tuple[str, str]] = [
    ("a select item", "SELECT K, {c} FROM S GROUP BY K"),
    ("an aliased select item", "SELECT K, {c} AS X FROM S GROUP BY K"),
    ("HAVING", "SELECT K, COUNT(*) AS N FROM S GROUP BY K HAVING {c} > 1"),
    ("a call's argument", "SELECT K, ABS({c}) AS X FROM S GROUP BY K"),
    ("an arithmetic operand", "SELECT K, 1 + {c} AS X FROM S GROUP BY K"),
]
WRAPS: list[tuple[str, str]] = [("SELECT", "{q} EMIT CHANGES;"), ("CTAS", "CREATE TABLE OUT AS {q};"),
                                ("CREATE OR REPLACE TABLE", "CREATE OR REPLACE TABLE OUT AS {q};")]
NO_VIABLE = None  # detail: ANTLR's no-viable-alternative form at MARK

# (what, query with MARK, detail: None no viable alternative, "" none, else the line)
OTHER_SHAPES: list[tuple[str, str, str | None]] = [
    ("COUNT(DISTINCT *)", "SELECT K, COUNT(@DISTINCT *) FROM S GROUP BY K", NO_VIABLE),
    ("TOPK(DISTINCT x, k)", "SELECT K, TOPK(@DISTINCT A, 2) FROM S GROUP BY K", NO_VIABLE),
    # past the first argument the call's form is chosen: functionArgument's own sync deletes the word as
    # extraneous (an expression follows it) and names it as reserved
    ("a quantifier after the first argument", "SELECT K, TOPK(A, @DISTINCT 2) FROM S GROUP BY K",
     "reserved DISTINCT"),
    # COUNT(x.*): the call's form is chosen at the dot (x.name), x's own forms fail at the star
    ("a source's star in a call", "SELECT K, COUNT(S.@*) FROM S GROUP BY K", NO_VIABLE),
    ("a source's star in a call's second argument", "SELECT K, TOPK(A, S.@*, 2) FROM S GROUP BY K", NO_VIABLE),
    # name(*) is chosen at the star: its ')' is missing before a ',' (a ',' may follow the call), extraneous
    # before a ')'
    ("a second argument after *", "SELECT K, COUNT(*@, 1) FROM S GROUP BY K", "missing ')' at ','"),
    ("two stars", "SELECT K, COUNT(*@*) FROM S GROUP BY K", "Expecting ')'"),
    ("ORDER BY after a lone name", "SELECT K, COLLECT_LIST(A @ORDER BY A) FROM S GROUP BY K", NO_VIABLE),
    ("ORDER BY after a name in brackets", "SELECT K, COLLECT_LIST((A) @ORDER BY A) FROM S GROUP BY K", NO_VIABLE),
    ("ORDER BY after an expression", "SELECT K, COLLECT_LIST(A * 2 @ORDER BY A) FROM S GROUP BY K",
     "Expecting {',', ')'}"),
    ("ORDER BY after a literal", "SELECT K, COLLECT_LIST('x' @ORDER BY A) FROM S GROUP BY K",
     "Expecting {',', ')'}"),
    ("ORDER BY DESC after a second argument", "SELECT K, TOPK(A, 2 @ORDER BY A DESC) FROM S GROUP BY K",
     "Expecting {',', ')'}"),
    ("FILTER (WHERE ...)", "SELECT K, COUNT(*) FILTER @(WHERE A > 1) FROM S GROUP BY K", "Expecting {',', 'FROM'}"),
    ("FILTER (WHERE ...) on SUM", "SELECT K, SUM(A) FILTER @(WHERE A > 1) AS X FROM S GROUP BY K",
     "Expecting {',', 'FROM'}"),
    ("OVER (PARTITION BY ...)", "SELECT K, COUNT(*) OVER @(PARTITION BY K) FROM S GROUP BY K",
     "Expecting {',', 'FROM'}"),
    ("WITHIN GROUP (ORDER BY ...)", "SELECT K, COLLECT_LIST(A) @WITHIN GROUP (ORDER BY A) FROM S GROUP BY K",
     "Expecting {',', 'FROM'}"),
    ("SELECT DISTINCT", "SELECT @DISTINCT K, COUNT(*) FROM S GROUP BY K", "reserved DISTINCT"),
    ("SELECT ALL", "SELECT @ALL K, COUNT(*) FROM S GROUP BY K", "reserved ALL"),
    ("GROUP BY GROUPING SETS", "SELECT K, COUNT(*) FROM S GROUP BY GROUPING @SETS ((K), ())", ""),
    ("GROUP BY ... WITH ROLLUP", "SELECT K, COUNT(*) FROM S GROUP BY K @WITH ROLLUP", ""),
    ("GROUP BY DISTINCT", "SELECT K, COUNT(*) FROM S GROUP BY @DISTINCT K", "reserved DISTINCT"),
    ("GROUP BY ALL", "SELECT K, COUNT(*) FROM S GROUP BY @ALL K", "reserved ALL"),
]
# clauses out of ksqlDB's fixed order (WINDOW, WHERE, GROUP BY, PARTITION BY, HAVING, EMIT, LIMIT): the text after a
# complete query fails at singleStatement's ';'. Two or more tokens there are a mismatch against what the first
# optional point since the last sure token allowed: after LIMIT n nothing (only ';'), after EMIT CHANGES the
# LIMIT clause, after an expression or a name every operator and later clause (no detail). The wraps have no
# ';' of their own, so each statement here is complete before MARK.
CLAUSE_ORDER: list[tuple[str, str, str | None]] = [
    ("EMIT CHANGES after LIMIT", "SELECT K, COUNT(*) FROM S GROUP BY K LIMIT 1 @EMIT CHANGES", "Expecting ';'"),
    ("HAVING after EMIT", "SELECT K, COUNT(*) FROM S GROUP BY K EMIT CHANGES @HAVING COUNT(*) > 1",
     "Expecting {';', 'LIMIT'}"),
    ("GROUP BY after EMIT", "SELECT K, COUNT(*) FROM S EMIT CHANGES @GROUP BY K", "Expecting {';', 'LIMIT'}"),
    ("WINDOW after GROUP BY", "SELECT K, COUNT(*) FROM S GROUP BY K @WINDOW TUMBLING (SIZE 1 SECOND)", ""),
    ("WHERE after GROUP BY", "SELECT K, COUNT(*) FROM S GROUP BY K @WHERE A > 1", ""),
    ("GROUP BY after HAVING", "SELECT K, COUNT(*) FROM S HAVING COUNT(*) > 1 @GROUP BY K", ""),
    ("ORDER BY after GROUP BY", "SELECT K, COUNT(*) FROM S GROUP BY K @ORDER BY K", ""),
    ("a second HAVING", "SELECT K, COUNT(*) FROM S GROUP BY K HAVING COUNT(*) > 1 @HAVING COUNT(*) < 5", ""),
]
CLAUSE_WRAPS: list[tuple[str, str]] = [("SELECT", "{q};"), ("CTAS", "CREATE TABLE OUT AS {q};"),
                                       ("CREATE OR REPLACE TABLE", "CREATE OR REPLACE TABLE OUT AS {q};")]
# shapes that parse and are refused later: (what, query, message contained)
LATER: list[tuple[str, str, str]] = [
    ("GROUP BY ROLLUP(...)", "SELECT K, COUNT(*) FROM S GROUP BY ROLLUP(K)",
     "Can't find any functions with the name 'ROLLUP'"),
    ("GROUP BY CUBE(...)", "SELECT K, COUNT(*) FROM S GROUP BY CUBE(K, A)",
     "Can't find any functions with the name 'CUBE'"),
    ("GROUP BY an ordinal", "SELECT K, COUNT(*) FROM S GROUP BY 1",
     "Non-aggregate SELECT expression(s) not part of GROUP BY: K"),
    ("GROUP BY two ordinals", "SELECT K, A, COUNT(*) FROM S GROUP BY 1, 2",
     "Non-aggregate SELECT expression(s) not part of GROUP BY: K, A"),
]


def _tokens(text: str) -> list[str]:
    return re.findall(r"'[^']*'|\w+|\S", text)


def _reserved(word: str) -> str:
    return (f'"{word}" is a reserved keyword and it can\'t be used as an identifier. '
            f"You can use it as an identifier by escaping it as '{word}' ")


def _case(name: str, statement: str, detail: str | None) -> Case:
    col = statement.index(MARK) + 1
    sql = statement.replace(MARK, "", 1)
    line = 2  # after SOURCE
    if detail is None:
        detail = f"Syntax error at or near '{_tokens(sql[col - 1:])[0]}' at line {line}:{col}"
    elif detail.startswith("reserved "):
        detail = _reserved(detail.split(" ", 1)[1])
    return {"name": name, "statements": [SOURCE, sql],
            "expectedException": {"type": PARSE,
                                  "message": f"line {line}:{col}: Syntax Error\n{detail}\nStatement: {sql}"}}


def cases() -> list[Case]:
    out: list[Case] = []
    for kind, wrap in WRAPS:
        for where, query in PLACES:
            for fn in FUNCTIONS:
                for word in QUANTIFIERS:
                    call = f"{fn}({MARK}{word} A)"
                    out.append(_case(f"{kind}: {fn}({word} x) in {where}", wrap.format(q=query.format(c=call)),
                                     NO_VIABLE))
        for what, query, detail in OTHER_SHAPES:
            out.append(_case(f"{kind}: {what}", wrap.format(q=query), detail))
        for what, query, message in LATER:
            out.append({"name": f"{kind}: {what}", "statements": [SOURCE, wrap.format(q=query)],
                        "expectedException": {"type": STATEMENT, "message": message}})
    for kind, wrap in CLAUSE_WRAPS:
        for what, query, detail in CLAUSE_ORDER:
            out.append(_case(f"{kind}: {what}", wrap.format(q=query), detail))
    return out


def main() -> None:
    doc = {"comments": ["Generated by gen_aggregate_call_shapes.py: aggregate shapes ksqlDB's grammar lacks "
                        "(DISTINCT/ALL in a call, ORDER BY in a call, FILTER, OVER, WITHIN GROUP, SELECT "
                        "DISTINCT, GROUPING SETS, ROLLUP, CUBE, ordinals, clauses out of order), refused as "
                        "ksqlDB refuses them."],
           "tests": cases()}
    path = Path(__file__).with_name("aggregate-call-shapes.json")
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {path} ({len(doc['tests'])} cases)")


if __name__ == "__main__":
    main()
