"""The function reference page (docs/functions.md), rendered from the registry so it cannot drift."""

from __future__ import annotations

from ksqlpy.functions.registry import FunctionRegistry

HEADER = """# Built-in functions

Generated from the function registry by `python -m ksqlpy.functions.docs > docs/functions.md`;
`DESCRIBE FUNCTION name;` shows the same signatures. A test keeps this page in step with the registry.

Strings are Java's: sequences of UTF-16 units. Lengths and positions (LEN, SUBSTRING, INSTR, LPAD, RPAD,
the MASK family), SPLIT and REGEXP_SPLIT_TO_ARRAY by '' and REPLACE work by unit, so a character outside
the BMP (an emoji) counts twice and can be cut in half. A half joins its other half again when
concatenated (CONCAT, `||`, ARRAY_JOIN, padding); a half left alone is written to JSON as its escape
(`"\\ud83d"`, as Jackson writes it) and by the other formats as `?`. Strings order by unit too
(`String.compareTo`: comparisons, BETWEEN, GREATEST/LEAST, ARRAY_SORT/MAX/MIN, MIN/MAX, TOPK, TOPKDISTINCT),
so an emoji sorts below the characters U+E000 to U+FFFF.

Regular expressions (REGEXP_*) are java.util.regex's: `.` stops at every line terminator (`\\n`, `\\r`,
U+0085, U+2028, U+2029; `(?s)` takes them, `(?d)` keeps only `\\n`), `$` matches before a final terminator
(`\\r\\n` counts as one) and with `(?m)` before each, `^` with `(?m)` after each but not at the end; `\\w \\d
\\s`, POSIX classes (`\\p{Alpha}`) and `(?i)` are ASCII, Unicode categories and properties (`\\p{L}`, `\\p{Lu}`,
`\\p{IsDigit}`, `\\p{javaLowerCase}`) are not, and `\\b` sees Unicode letters; `{` is only a bound. Matches are
found as `Matcher.find` does: after an empty match the search goes on one UTF-16 unit further, so `x*`
matches between an emoji's surrogates. A back reference to a group that has not matched fails the match; a
replacement's `$n` takes as many digits as there are groups, and is read only when something matched. An
invalid pattern or replacement makes the result NULL for that record. Nested classes and intersections
(`[a-z&&[^aeiou]]`, negated: `[^a-z&&[^aeiou]]`), scripts and blocks (`\\p{IsLatin}`, `\\p{InGreek}`,
`\\p{sc=Greek}`), `\\X` (one grapheme cluster) are supported, and `(?iu)` folds the case of non-ASCII letters.

PARSE_TIMESTAMP reads text with a java.time pattern (Locale.US: weeks start on Sunday) as ksqlDB does: a full
date (year-month-day, year-day of year, year-month-week of month (`W`)-day of week, week-based year (`Y`)-week
(`w`)-day of week) is resolved and must agree with the other fields given; otherwise each field is set on
1970-01-01T00:00 in java.time's field order - a day of week alone moves to that day of 1970-01-01's ISO week
(Monday first), then day, month and year overwrite - and week-based fields or a quarter without a full date
are ignored; `a` alone means noon. A local time the zone passes twice (clocks going back) takes the offset
that time of day had on the same day of the year in 1970 where it is one of the two (`2024-11-03 01:30` in
America/New_York is the later, standard-time instant), else the earlier; with a zone in the text, the earlier.
A local time the clocks skip is moved later by the gap. Zone ids are Java's: case-sensitive, the JDK's SystemV
zones included, the tz database's Factory, localtime, posixrules, posix/ and right/ not. EST, MST and HST are
zones of a fixed offset (-05:00, -07:00, -10:00), as in the tz data of the JDKs ksqlDB ran on (newer JDKs
refuse them).

FORMAT_TIMESTAMP and TIMESTAMPTOSTRING print zone texts as java.time does in Locale.US, from the JDK's locale
data: `z` and `zzzz` a region's standard or daylight name (`PST`, `Pacific Daylight Time`, `BRT`, `NPT`), the
GMT format of its offset for a zone without names (`Etc/GMT+5` is `GMT-05:00`), the id itself for a fixed
offset (`+05:30`, `UTC+05:30`); `v` and `vvvv` the generic name (`PT`, `Pacific Time`); `VV` the id.

The day-period letter `B` (as in JDK 17) prints `midnight` (00:00), `noon` (12:00), `in the morning`
(06:00-12:00), `in the afternoon`, `in the evening` (18:00-21:00) or `at night` (21:00-06:00); `BBBBB` prints
`mi` and `n` for midnight and noon. Parsed alone it means the period's mid-point (`at night` is 01:30); with
`h` it tells morning from afternoon (`3 in the afternoon` is 15:00); beside `H` it must contain the time, else
the value is NULL.
"""


# kept in step with the aggregates' undo by tests/functions/test_aggregates.py
TABLE_AGGREGATES = """Over a TABLE source (`GROUP BY` on a table) an aggregate must take back a row's old value when the row
changes or goes, so only ATTR, AVG, COLLECT_LIST, CORRELATION, COUNT, HISTOGRAM, STDDEV_SAMP, STDDEV_SAMPLE,
SUM and SUM_LIST apply; the others (COLLECT_SET, COUNT_DISTINCT, EARLIEST_BY_OFFSET, LATEST_BY_OFFSET, MAX, MIN,
TOPK, TOPKDISTINCT) are refused as ksqlDB refuses them: `The aggregation function MIN cannot be applied to a
table source, only to a stream source.`

The arguments after an aggregate's columns (TOPK's k, the n and ignoreNulls of EARLIEST/LATEST_BY_OFFSET) are
fixed when the query starts, so each must be written as a literal: a parenthesised or negative number is one,
a CAST, arithmetic, a function call or a column is not, whatever its value (`Parameter 2 passed to function TOPK
must be a literal constant, but was expression: 'CAST(2 AS INTEGER)'`).

A call is matched against the signatures above as a scalar function's is: an INT, BIGINT or DECIMAL column
widens to a DOUBLE parameter when no signature takes it as it is (`CORRELATION(INT, INT)`), and a `NULL`
written as a column argument fits any parameter. So `SUM(NULL)` fits four signatures alike and is refused as
ambiguous (`Function 'SUM' cannot be resolved due to ambiguous method parameters (null).`, then the signatures),
as are AVG, MIN, MAX, STDDEV_SAMP, STDDEV_SAMPLE and SUM_LIST; `HISTOGRAM(NULL)` and `CORRELATION(NULL, x)` fit
their one signature and run (an empty map, NaN), as do `COUNT(NULL)` and `COUNT_DISTINCT(NULL)` (0); and where
only the `NULL` could tell the `T` of a signature (`COLLECT_LIST(NULL)`, `LATEST_BY_OFFSET(NULL)`, `TOPK(NULL, 2)`,
`ATTR(NULL)`) the result has no type, refused wherever the call stands: `Can't infer a type of null. Please
explicitly cast it to a required type, e.g. CAST(null AS VARCHAR).` Write `CAST(NULL AS <type>)` instead.

Their ranges are the functions' own. EARLIEST/LATEST_BY_OFFSET refuse an n below 1 when the query is built
(`latestN must be 1 or greater`). TOPK and TOPKDISTINCT check no range, as ksqlDB's do: the list is full when
its size equals k, so a negative k keeps every value (largest first), and with k = 0 the first non-NULL value
stops the query (`Index -1 out of bounds for length 0`), as does a record that joins a session window when k
is negative (`Illegal Capacity: -1`).

In a SESSION window every record that reaches existing sessions merges them into a fresh aggregate before it is
added (Kafka Streams' session merge): for TOPK and TOPKDISTINCT the merge keeps the k largest of the lists,
all of them when they hold fewer than k, and on a tie of TOPK's sort column the rows of the earlier session
(by end) come first, as ksqlDB's merger takes the running aggregate's head on a tie.

DOUBLE values are told apart and ordered as Java's `Double.equals`/`compareTo` do, also inside an ARRAY, MAP
or STRUCT: -0.0 is below 0.0 and not equal to it, NaN equals NaN and is above everything, +Infinity included.
So MIN and MAX, TOPK and TOPKDISTINCT order that way, COLLECT_SET, TOPKDISTINCT, COUNT_DISTINCT and ATTR keep
-0.0 and 0.0 apart and every NaN together, and COLLECT_LIST over a table takes back exactly the value that
went (a NaN too)."""


TABLE_FUNCTIONS = """Table functions belong in the SELECT list of a query over a stream (a join's too, when its FROM source is a
stream). Several of them in one SELECT are zipped: a record gives as many rows as the longest result, the
shorter results NULL past their end; a NULL or empty array gives no rows. The SELECT items are checked one by one,
before any column name is resolved: a table function inside another (`Table functions cannot be nested:
EXPLODE(EXPLODE())`) or inside CASE (`Table functions cannot be used in CASE: ...`) is refused even when the
expression names an unknown column. Beside an aggregate or GROUP BY: `Table functions cannot be used with
aggregations.`; over a table (persistent, push or pull query): `Table source is not supported with table
functions`. Anywhere else (WHERE, PARTITION BY, an aggregate's argument in HAVING) the call is typed as its
result - a WHERE that is no BOOLEAN is refused as such - and fails where the expression is compiled, as in
ksqlDB: `Invalid Predicate: Can't find any functions with the name 'EXPLODE'.` (`Invalid SelectKey: ...` for
PARTITION BY)."""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(title: str, fns: list) -> list[str]:  # type: ignore[type-arg]
    lines = [f"## {title}", "", "| function | signatures | description |", "|---|---|---|"]
    for name, fn in sorted(fns, key=lambda p: p[0]):
        sigs = "<br>".join(_cell(s) for s in fn.signatures())
        lines.append(f"| `{name}` | {sigs} | {_cell(fn.description or '')} |")
    return lines + [""]


def render_markdown(registry: FunctionRegistry) -> str:
    lines = [HEADER]
    by_category: dict[str, list] = {}  # type: ignore[type-arg]
    for name, fn in registry.scalars.items():
        by_category.setdefault((fn.category or "OTHER").title(), []).append((name, fn))
    for cat in sorted(by_category):
        lines += _table(cat, by_category[cat])
    lines += _table("Aggregate functions", list(registry.aggregates.items()))
    lines += [TABLE_AGGREGATES, ""]
    lines += _table("Table functions", list(registry.tables.items()))
    lines += [TABLE_FUNCTIONS, ""]
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    from ksqlpy.functions import builtin_registry

    print(render_markdown(builtin_registry()), end="")
