"""Writes tests/cases/analysis/reserved-select.json: reserved column names as the names of a persistent
query's result columns, over every persistent shape, and which error fires first when the query has another.

ksqlDB's rule (Analyzer.validateSelect, from memory; rules reference §1.8): once the FROM clause is read
(sources, join criteria, windowing), the Analyzer visits the SELECT items; in a persistent query an item whose
result column would take a pseudo or window column's name (ROWTIME, ROWPARTITION, ROWOFFSET, WINDOWSTART,
WINDOWEND) is refused - before any clause's column references are validated, before the logical planner
(join keys and types, non-aggregate items, WINDOW without GROUP BY, WHERE typing) and code generation.
* the pseudo column itself as the item (un-aliased, aliased to its own name):
  ``Reserved column name in select: `<N>`. Please remove or alias the column.``
* another expression aliased to the name, or a struct field of that name (un-aliased: the sanitizer names it
  by the field; SingleColumn.checkForReservedToken passes an item only when its text after the qualifier is
  the name, which ``ST->ROWTIME`` is not): ``` `<N>` is a reserved column name. You cannot use it as an alias
  for a column.```
With ``ksql.rowpartition.rowoffset.enabled=false`` ROWPARTITION and ROWOFFSET are ordinary names.

Run ``python tests/cases/analysis/gen_reserved_select.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Case = dict[str, Any]
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
NAMES = ("ROWTIME", "ROWPARTITION", "ROWOFFSET", "WINDOWSTART", "WINDOWEND")
S = ("CREATE STREAM S (K STRING KEY, A INT, C STRING, ST STRUCT<ROWTIME INT, WINDOWEND INT>) "
     "WITH (kafka_topic='s', value_format='JSON', partitions=1);")
R = "CREATE STREAM R (K STRING KEY, B INT) WITH (kafka_topic='r', value_format='JSON', partitions=1);"
T = "CREATE TABLE T (K STRING PRIMARY KEY, V INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);"
OUT = "CREATE STREAM OUT AS SELECT * FROM S;"


def reserved(name: str) -> str:
    return f"Reserved column name in select: `{name}`. Please remove or alias the column."


def alias(name: str) -> str:
    return f"`{name}` is a reserved column name. You cannot use it as an alias for a column."


# persistent shapes: (label, statements before, template with {item} and {fault} slots, qualifier of the
# FROM source's columns, an expression aliased to the name, the faults that apply)
SHAPES: list[tuple[str, list[str], str, str, str, tuple[str, ...]]] = [
    ("CSAS", [S], "CREATE STREAM OUT AS SELECT K, {item} FROM S{fault};", "", "A",
     ("where-column", "select-column", "where-type", "partition-column", "window", "function")),
    ("INSERT INTO", [S, OUT], "INSERT INTO OUT SELECT K, {item} FROM S{fault};", "", "A",
     ("where-column", "select-column", "where-type")),
    ("CTAS aggregate", [S], "CREATE TABLE OUT AS SELECT K, COUNT(*) AS N, {item} FROM S{fault} GROUP BY K;", "",
     "COUNT(*)", ("where-column", "non-aggregate", "having-column")),
    ("CTAS windowed aggregate", [S],
     "CREATE TABLE OUT AS SELECT K, COUNT(*) AS N, {item} FROM S WINDOW TUMBLING (SIZE 1 SECOND){fault} GROUP BY K;",
     "", "MAX(A)", ("where-column", "non-aggregate")),
    ("CTAS over a table", [T], "CREATE TABLE OUT AS SELECT K, {item} FROM T{fault};", "", "V",
     ("where-column", "select-column")),
    ("stream-stream join", [S, R],
     "CREATE STREAM OUT AS SELECT S.K, {item} FROM S JOIN R WITHIN 1 SECOND ON S.K = R.K{fault};", "S.", "S.A",
     ("where-column", "select-column", "where-type")),
    ("stream-table join", [S, T], "CREATE STREAM OUT AS SELECT S.K, {item} FROM S JOIN T ON {on}{fault};", "S.",
     "T.V", ("where-column", "key-type")),
]

FAULTS: dict[str, str] = {
    "where-column": " WHERE ZZ = 1",
    "select-column": "",  # a later select item, added to the item
    "where-type": " WHERE {q}A = 'x'",
    "partition-column": " PARTITION BY ZZ",
    "window": " WINDOW TUMBLING (SIZE 1 SECOND)",
    "function": "",  # a later select item calling an unknown function
    "non-aggregate": "",  # a later select item neither aggregated nor grouped
    "having-column": "",  # HAVING after GROUP BY: written into the statement below
    "key-type": "",  # the join criteria compare an INT with the table's STRING key
}


def _statement(template: str, q: str, item: str, fault: str | None) -> str:
    text = FAULTS.get(fault or "", "").format(q=q)
    if fault == "select-column":
        item += ", ZZ"
    elif fault == "function":
        item += ", NOFUNC(A) AS Q"
    elif fault == "non-aggregate":
        item += ", C"
    on = "S.A = T.K" if fault == "key-type" else "S.K = T.K"
    sql = template.format(item=item, fault=text, on=on)
    if fault == "having-column":
        sql = sql[:-1] + " HAVING ZZ > 1;"
    return sql


def _items(shape: str, q: str, other: str, name: str) -> list[tuple[str, str, str]]:
    """(form, select item, expected message) of each way an item can take ``name``."""
    items = [("another expression aliased", f"{other} AS {name}", alias(name))]
    pseudo = name in ("ROWTIME", "ROWPARTITION", "ROWOFFSET") or shape.startswith("CTAS windowed")
    if not shape.endswith("join"):
        # un-aliased: the pseudo column (or a window bound the source lacks); in a join, a column reference
        # is named <SOURCE>_<COL> and takes no reserved name
        items.append(("un-aliased", name, reserved(name)))
    if pseudo and not shape.startswith("CTAS"):
        items.append(("aliased to its own name", f"{q}{name} AS {name}", reserved(name)))
    if name in ("ROWTIME", "WINDOWEND") and not shape.startswith("CTAS"):
        items.append(("a struct field of that name", f"{q}ST->{name}", alias(name)))
        items.append(("a struct field of that name aliased to it", f"{q}ST->{name} AS {name}", alias(name)))
    return items


def cases() -> list[Case]:
    out: list[Case] = []
    for shape, before, template, q, other, faults in SHAPES:
        for name in NAMES:
            for form, item, message in _items(shape, q, other, name):
                for fault in (None, *faults):
                    label = f"{shape} - {name} {form}" + (f" - before {fault}" if fault else "")
                    out.append({"name": label, "statements": [*before, _statement(template, q, item, fault)],
                                "expectedException": {"type": EXCEPTION, "message": message}})
    # pseudo columns off: ROWPARTITION and ROWOFFSET are names like any other
    off = {"ksql.rowpartition.rowoffset.enabled": "false"}
    out.append({
        "name": "ROWPARTITION and ROWOFFSET as aliases with the pseudo columns off",
        "properties": off,
        "statements": [S, "CREATE STREAM OUT AS SELECT K, A AS ROWPARTITION, C AS ROWOFFSET FROM S;"],
        "inputs": [{"topic": "s", "key": "k", "value": {"A": 1, "C": "c"}}],
        "outputs": [{"topic": "OUT", "key": "k", "value": {"ROWPARTITION": 1, "ROWOFFSET": "c"}}],
    })
    out.append({
        "name": "ROWTIME stays reserved with the pseudo columns off",
        "properties": off,
        "statements": [S, "CREATE STREAM OUT AS SELECT K, A AS ROWTIME FROM S;"],
        "expectedException": {"type": EXCEPTION, "message": alias("ROWTIME")},
    })
    # a struct field of a reserved name aliased to another name is an ordinary column
    out.append({
        "name": "a struct field of a reserved name aliased to another name",
        "statements": [S, "CREATE STREAM OUT AS SELECT K, ST->ROWTIME AS RT, ST->WINDOWEND AS WE FROM S;"],
        "inputs": [{"topic": "s", "key": "k", "value": {"ST": {"ROWTIME": 1, "WINDOWEND": 2}}}],
        "outputs": [{"topic": "OUT", "key": "k", "value": {"RT": 1, "WE": 2}}],
    })
    # a name that differs in case only (quoted) is not reserved
    out.append({
        "name": "a quoted lower-case alias is not reserved",
        "statements": [S, "CREATE STREAM OUT AS SELECT K, A AS `rowtime`, C AS `windowstart` FROM S;"],
        "inputs": [{"topic": "s", "key": "k", "value": {"A": 1, "C": "c"}}],
        "outputs": [{"topic": "OUT", "key": "k", "value": {"rowtime": 1, "windowstart": "c"}}],
    })
    return out


if __name__ == "__main__":
    path = Path(__file__).with_name("reserved-select.json")
    path.write_text(json.dumps({"comments": ["Generated by gen_reserved_select.py - do not edit."], "tests": cases()},
                               indent=2) + "\n")
    print(f"{len(cases())} cases -> {path}")
