"""Hypothesis strategies for ksql statements: a grammar of the dialect (expressions of every kind over the
columns of the fuzz schema, every statement kind), mutations of well-formed text (tokens dropped, repeated
or swapped), deep nesting, and random text. Used in-process (``test_fuzz_statements.py``) and over HTTP
(``test_fuzz_http.py``)."""

from __future__ import annotations

import random
import re

from hypothesis import strategies as st

from ksqlpy.functions import builtin_registry

# the fuzz sources: a stream and a table with a column of every type (fixtures create them)
TYPES = {"I": "INT", "L": "BIGINT", "D": "DOUBLE", "DEC": "DECIMAL(10, 2)", "S": "STRING", "B": "BOOLEAN",
         "BYT": "BYTES", "DT": "DATE", "TM": "TIME", "TS": "TIMESTAMP", "A": "ARRAY<INT>",
         "M": "MAP<STRING, INT>", "ST": "STRUCT<X INT, Y STRING>"}
COLUMNS = ", ".join(f"{n} {t}" for n, t in TYPES.items())
SETUP = [
    f"CREATE STREAM FS (K STRING KEY, {COLUMNS}) WITH (kafka_topic='fs', partitions=2, value_format='JSON');",
    f"CREATE TABLE FT (K STRING PRIMARY KEY, {COLUMNS}) WITH (kafka_topic='ft', partitions=2, value_format='JSON');",
    "CREATE TABLE FAGG AS SELECT K, COUNT(*) AS N, SUM(I) AS SI FROM FS GROUP BY K;",
]
SOURCES = ["FS", "FT", "FAGG", "NOPE", "fs"]
NAMES = [*TYPES, "K", "N", "SI", "ROWTIME", "ROWPARTITION", "ROWOFFSET", "WINDOWSTART", "NOPE", "`s`"]
_registry = builtin_registry()
SCALARS = sorted(_registry.scalars)
AGGREGATES = sorted(_registry.aggregates)
TABLES = sorted(_registry.tables)
KEYWORDS = ["SELECT", "FROM", "WHERE", "GROUP", "BY", "EMIT", "CHANGES", "FINAL", "CREATE", "STREAM", "TABLE",
            "AS", "WITH", "(", ")", ",", ";", "'", "`", "[", "]", "->", "=>", "CASE", "WHEN", "THEN", "END",
            "AND", "OR", "NOT", "NULL", "LIMIT", "WINDOW", "TUMBLING", "SIZE", "1", "-", "*", "INSERT", "INTO",
            "VALUES", "PARTITION", "HAVING", "JOIN", "ON", "WITHIN", "DROP", "DESCRIBE", "EXPLAIN", "${x}"]

literals = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["1e30", "-1e308", "1e309", "0.000", "1.5E-3", "2147483648", "-9223372036854775809", "00"]),
    st.text(max_size=12).map(lambda s: "'" + s.replace("'", "''") + "'"),
    st.sampled_from(["NULL", "TRUE", "FALSE", "ARRAY[]", "MAP()", "STRUCT()", "X'0A'", "'2020-01-01'",
                     "DATE '2020-02-30'", "TIMESTAMP '2020-01-01T00:00:00'", "INTERVAL 1 DAY"]),
)
types = st.sampled_from([*TYPES.values(), "VARCHAR", "DECIMAL(2, 1)", "DECIMAL(38, 38)", "DECIMAL(0, 0)",
                         "ARRAY<ARRAY<STRING>>", "MAP<INT, STRING>", "STRUCT<>", "NOPE", "INTEGER"])
operators = st.sampled_from(["+", "-", "*", "/", "%", "||", "=", "<>", "!=", "<", "<=", ">", ">=", "AND", "OR",
                             "IS DISTINCT FROM", "LIKE", "->"])


def expressions(max_leaves: int = 12) -> st.SearchStrategy[str]:
    leaves = st.one_of(literals, st.sampled_from(NAMES), st.sampled_from(NAMES).map(lambda n: f"FS.{n}"))

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, operators, inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(st.sampled_from(["-", "NOT "]), inner).map(lambda t: f"{t[0]}{t[1]}"),
            st.tuples(st.sampled_from(SCALARS + AGGREGATES + TABLES), st.lists(inner, max_size=4)).map(
                lambda t: f"{t[0]}({', '.join(t[1])})"),
            st.tuples(inner, types).map(lambda t: f"CAST({t[0]} AS {t[1]})"),
            st.tuples(st.lists(st.tuples(inner, inner), min_size=1, max_size=3), inner).map(
                lambda t: "CASE " + " ".join(f"WHEN {w} THEN {v}" for w, v in t[0]) + f" ELSE {t[1]} END"),
            st.tuples(inner, inner, inner).map(lambda t: f"{t[0]} BETWEEN {t[1]} AND {t[2]}"),
            st.tuples(inner, st.lists(inner, min_size=1, max_size=3)).map(lambda t: f"{t[0]} IN ({', '.join(t[1])})"),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
            inner.map(lambda e: f"{e} IS NOT NULL"),
            st.lists(inner, max_size=3).map(lambda xs: "ARRAY[" + ", ".join(xs) + "]"),
            st.tuples(st.sampled_from(["TRANSFORM", "FILTER", "REDUCE"]), inner, inner).map(
                lambda t: f"{t[0]}({t[1]}, x => {t[2]})"),
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def deep(expr: str, depth: int, kind: str) -> str:
    if kind == "paren":
        return "(" * depth + expr + ")" * depth
    if kind == "plus":
        return expr + " + 1" * depth
    if kind == "call":
        return "ABS(" * depth + expr + ")" * depth
    if kind == "case":
        return "CASE WHEN B THEN 1 ELSE " * depth + "0" + " END" * depth
    return " AND ".join([f"({expr}) IS NULL"] * depth)


EXPR = expressions()
"""Built once: building a recursive strategy (and hypothesis validating it) costs more than drawing from it."""
SMALL_EXPR = expressions(4)
# mostly shallow; a quarter around Python's and the grammar's limits (200, 1000, 2000 levels) and past them
depths = st.one_of(st.integers(1, 64), st.integers(1, 64), st.integers(1, 64),
                   st.sampled_from([199, 200, 201, 500, 999, 1000, 1001, 1999, 2000, 2001, 2500, 4000]))
deep_expressions = st.tuples(expressions(3), depths,
                             st.sampled_from(["paren", "plus", "call", "case", "and"])).map(lambda t: deep(*t))


FORMATS = ["JSON", "DELIMITED", "KAFKA", "AVRO", "PROTOBUF", "JSON_SR", "PROTOBUF_NOSR", "NONE", "NOPE"]
JOINS = ["JOIN", "INNER JOIN", "LEFT JOIN", "LEFT OUTER JOIN", "RIGHT JOIN", "FULL OUTER JOIN", "OUTER JOIN"]
WITHINS = ["", " WITHIN 10 SECONDS", " WITHIN (1 SECOND, 2 HOURS)", " WITHIN 1 HOUR GRACE PERIOD 0 SECONDS",
           " WITHIN 0 DAYS"]


@st.composite
def sources(draw: st.DrawFn) -> str:
    """A FROM clause: one source (aliased or not), or a join of two or three."""
    first = draw(st.sampled_from(SOURCES))
    if draw(st.integers(0, 2)):
        return first + draw(st.sampled_from(["", " A"]))
    out = f"{first} A"
    for alias in draw(st.sampled_from([["B"], ["B", "C"]])):
        cond = draw(st.one_of(st.sampled_from([f"A.K = {alias}.K", f"A.S = {alias}.K", f"{alias}.K = A.K",
                                               f"A.I = {alias}.I", f"A.K = {alias}.K AND A.I = 1"]),
                              SMALL_EXPR))
        out += (f" {draw(st.sampled_from(JOINS))} {draw(st.sampled_from(SOURCES))} {alias}"
                f"{draw(st.sampled_from(WITHINS))} ON {cond}")
    return out


@st.composite
def selects(draw: st.DrawFn, expr: st.SearchStrategy[str] | None = None) -> str:
    e = expr or EXPR
    items = draw(st.lists(st.tuples(e, st.sampled_from(["", " AS X", " AS Y", " X"])), min_size=1, max_size=4))
    sql = "SELECT " + ", ".join(a + b for a, b in items) + " FROM " + draw(sources())
    if draw(st.booleans()):
        sql += draw(st.sampled_from([" WINDOW TUMBLING (SIZE 1 MINUTE)", " WINDOW HOPPING (SIZE 2 SECONDS, ADVANCE BY 1 "
                                     "SECOND)", " WINDOW SESSION (30 SECONDS)", " WINDOW TUMBLING (SIZE 0 DAYS)"]))
    if draw(st.booleans()):
        sql += " WHERE " + draw(e)
    if draw(st.booleans()):
        sql += " GROUP BY " + ", ".join(draw(st.lists(e, min_size=1, max_size=2)))
        if draw(st.booleans()):
            sql += " HAVING " + draw(e)
    elif draw(st.booleans()):
        sql += " PARTITION BY " + draw(e)
    sql += draw(st.sampled_from(["", " EMIT CHANGES", " EMIT FINAL"]))
    if draw(st.booleans()):
        sql += f" LIMIT {draw(st.integers(-1, 5))}"
    return sql + ";"


@st.composite
def statements(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 15))
    name = draw(st.sampled_from(["F1", "F2", "FS", "FT", "`f x`", "F" * 300]))
    if kind <= 3:
        return draw(selects())
    if kind == 4:
        return f"CREATE {draw(st.sampled_from(['STREAM', 'TABLE', 'OR REPLACE STREAM']))} {name} AS " + draw(selects())
    if kind == 5:
        cols = draw(st.lists(st.tuples(st.sampled_from(["C1", "C2", "K", "`c`"]), types,
                                       st.sampled_from(["", " KEY", " PRIMARY KEY", " HEADERS"])), max_size=4))
        props = draw(st.lists(st.tuples(st.sampled_from(["KAFKA_TOPIC", "VALUE_FORMAT", "KEY_FORMAT", "PARTITIONS",
                                                         "TIMESTAMP", "WRAP_SINGLE_VALUE", "FORMAT", "NOPE"]),
                                        literals), max_size=4))
        props += draw(st.lists(st.tuples(st.sampled_from(["VALUE_FORMAT", "KEY_FORMAT", "FORMAT"]),
                                         st.sampled_from(FORMATS).map(lambda f: f"'{f}'")), max_size=2))
        props.append(("kafka_topic", draw(st.sampled_from(["'t1'", "'a b'", "''", "'..'", "'" + "t" * 300 + "'"]))))
        return (f"CREATE {draw(st.sampled_from(['STREAM', 'TABLE', 'SOURCE TABLE']))} {name} ("
                + ", ".join(f"{c} {t}{k}" for c, t, k in cols) + ") WITH ("
                + ", ".join(f"{k}={v}" for k, v in props) + ");")
    if kind == 6:
        values = draw(st.lists(SMALL_EXPR, min_size=1, max_size=4))
        return f"INSERT INTO {draw(st.sampled_from(SOURCES))} (K, I, S) VALUES ({', '.join(values)});"
    if kind == 7:
        return draw(st.sampled_from(["SHOW STREAMS;", "SHOW TABLES EXTENDED;", "SHOW QUERIES;", "SHOW TOPICS;",
                                     "SHOW FUNCTIONS;", "SHOW PROPERTIES;", "SHOW TYPES;", "LIST VARIABLES;",
                                     f"DESCRIBE {name};", f"DESCRIBE {name} EXTENDED;", "DESCRIBE FUNCTION ABS;",
                                     f"DROP STREAM IF EXISTS {name};", f"DROP TABLE {name} DELETE TOPIC;",
                                     "TERMINATE NOPE;", "EXPLAIN NOPE;", "PRINT 'fs' LIMIT 1;"]))
    if kind == 8:
        return f"SET '{draw(st.sampled_from(['auto.offset.reset', 'ksql.nope', 'processing.guarantee']))}'=" \
               f"{draw(literals)};"
    if kind == 9:
        return "SELECT " + draw(deep_expressions) + " FROM FS EMIT CHANGES;"
    if kind == 10:
        return f"CREATE TYPE {name} AS {draw(types)};"
    if kind == 12:
        return f"INSERT INTO {draw(st.sampled_from(SOURCES))} " + draw(selects())
    if kind == 13:
        return (f"ALTER {draw(st.sampled_from(['STREAM', 'TABLE']))} {draw(st.sampled_from(SOURCES))} "
                + ", ".join(f"ADD COLUMN {c} {t}" for c, t in draw(st.lists(
                    st.tuples(st.sampled_from(["N1", "I", "`x`"]), types), min_size=1, max_size=2))) + ";")
    if kind == 14:
        return draw(st.sampled_from(["PAUSE ALL;", "RESUME ALL;", "TERMINATE ALL;", "DEFINE v = 'FS';",
                                     "UNDEFINE v;", "SELECT * FROM ${v} EMIT CHANGES;", "SHOW VARIABLES;",
                                     "ASSERT TOPIC 'fs' TIMEOUT 0 SECONDS;", "ASSERT NOT EXISTS TOPIC 'x';",
                                     "ASSERT SCHEMA ID 1 TIMEOUT 0 SECONDS;", "LIST TOPICS EXTENDED;",
                                     "DESCRIBE STREAMS EXTENDED;", "SHOW QUERIES EXTENDED;", "SHOW CONNECTORS;"]))
    if kind == 15:
        return f"CREATE {draw(st.sampled_from(['STREAM', 'TABLE']))} {name} WITH (" + ", ".join(
            f"{k}={v}" for k, v in draw(st.lists(st.tuples(
                st.sampled_from(["KAFKA_TOPIC", "VALUE_FORMAT", "KEY_FORMAT", "PARTITIONS", "VALUE_SCHEMA_ID"]),
                st.one_of(literals, st.sampled_from(FORMATS).map(lambda f: f"'{f}'"))), max_size=4))) + ");"
    return "EXPLAIN " + draw(selects())


_TOKEN = re.compile(r"'(?:[^']|'')*'?|`[^`]*`?|[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\s+|.")
_PUNCTUATION = "(),;'`[]{}.:=<>-+*/%|$\\\"\n\t\x00\u00e9\U0001f600"


def mutate(sql: str, rnd: random.Random) -> str:
    """``sql`` with one to three tokens dropped, repeated, swapped, replaced (by a keyword or another token
    of the statement), a character inserted, or the text cut short. Cheap next to drawing from the grammar:
    most fuzzed statements are such variants of a grammar statement, which also keeps them close to valid."""
    tokens = _TOKEN.findall(sql)
    for _ in range(rnd.randint(1, 3)):
        if not tokens:
            break
        i = rnd.randrange(len(tokens))
        op = rnd.randrange(7)
        if op == 0:
            del tokens[i]
        elif op == 1:
            tokens.insert(i, tokens[i])
        elif op == 2:
            j = rnd.randrange(len(tokens))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif op == 3:
            tokens[i] = f" {rnd.choice(KEYWORDS)} "
        elif op == 4:
            tokens[i] = rnd.choice(tokens)
        elif op == 5:
            tokens.insert(i, rnd.choice(_PUNCTUATION))
        else:
            tokens = tokens[:i]
    return "".join(tokens)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A grammar statement mutated (``mutate``) by a drawn seed."""
    return mutate(draw(statements()), random.Random(draw(st.integers(0, 2**32 - 1))))


random_text = st.one_of(st.text(max_size=200), st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
                        st.lists(st.sampled_from(KEYWORDS), max_size=30).map(" ".join))

any_statement = st.one_of(statements(), statements(), mutated(), random_text)


@st.composite
def fuzz_batches(draw: st.DrawFn, grammar: int, variants: int, noise: int) -> list[str]:
    """``grammar`` statements from the grammar, each followed by ``variants`` mutations of it, then ``noise``
    random texts: ``grammar * (1 + variants) + noise`` statements for one draw's cost of the grammar."""
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    out: list[str] = []
    for sql in draw(st.lists(statements(), min_size=grammar, max_size=grammar)):
        out.append(sql)
        if len(sql) < 4000:
            out.extend(mutate(sql, rnd) for _ in range(variants))
        else:  # a deep statement's variants would only cost time: keyword soup instead
            out.extend(" ".join(rnd.choices(KEYWORDS + NAMES, k=rnd.randint(1, 30))) for _ in range(variants))
    out.extend(draw(st.lists(random_text, min_size=noise, max_size=noise)))
    return out
