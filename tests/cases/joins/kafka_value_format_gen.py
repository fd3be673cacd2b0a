"""JOIN and GROUP BY over a source whose value format is KAFKA, refused by ksqlDB's Analyzer with one message:
``Source(s) <aliases> are using the 'KAFKA' value format. This format does not yet support JOIN.`` (or ``GROUP
BY.``) and its fixed explanation on the lines after. The sources are named by their aliases in the query
(the source's own name when it has none), every KAFKA-valued source of the join in FROM order; the refusal
comes from analysis, so a later step's rule (the join's key types here) is not reached. From memory of
ksqlDB's Analyzer (KAFKA_VALUE_FORMAT_LIMITATION_DETAILS) and ../shared/reference/ksqldb-rules.md 1.8.

Writes tests/cases/joins/kafka-value-format.json: ``python tests/cases/joins/kafka_value_format_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

Case = dict[str, Any]
# written out here, not imported: the cases pin the text
LIMITATION_DETAILS = (
    "The KAFKA format is primarily intended for use as a key format.\n"
    "It can be used as a value format, but can not be used in any operation that requires a repartition or "
    "changelog topic.\n"
    "Removing this limitation requires enhancements to the core of KSQL. This will come in a future release. "
    "Until then, avoid using the KAFKA format for values.\n"
    "If you have an existing topic with KAFKA formatted values you can duplicate the data and serialize using "
    "Avro or JSON with a statement such as: \n\n"
    "'CREATE STREAM <new-stream-name> WITH(VALUE_FORMAT='Avro') AS SELECT * FROM "
    "<existing-kafka-formatted-stream-name>;'\n"
    "For more info see https://github.com/confluentinc/ksql/issues/3060"
)


def ddl(kind: str, name: str, fmt: str, key_type: str = "INT") -> str:
    key = "KEY" if kind == "STREAM" else "PRIMARY KEY"
    return (f"CREATE {kind} {name} (ID {key_type} {key}, V INT) WITH (kafka_topic='{name.lower()}', "
            f"value_format='{fmt}', partitions=1);")


def message(aliases: list[str], op: str) -> str:
    return (f"Source(s) {', '.join(aliases)} are using the 'KAFKA' value format. This format does not yet support "
            f"{op}.\n{LIMITATION_DETAILS}")


def case(name: str, statements: list[str], error: str) -> Case:
    return {"name": name, "statements": statements,
            "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException", "message": error}}


SHAPES = {  # (left kind, right kind, criteria, WITHIN)
    "stream-stream": ("STREAM", "STREAM", "WITHIN 1 MINUTE "),
    "stream-table": ("STREAM", "TABLE", ""),
    "table-table": ("TABLE", "TABLE", ""),
}


def cases() -> list[Case]:
    out: list[Case] = []
    for shape, (lk, rk, within) in SHAPES.items():
        sink = "TABLE" if rk == lk == "TABLE" else "STREAM"
        for lf, rf in (("KAFKA", "JSON"), ("JSON", "KAFKA"), ("KAFKA", "KAFKA")):
            kafka = [a for a, f in (("L", lf), ("R", rf)) if f == "KAFKA"]
            stmts = [ddl(lk, "LEFT_SRC", lf), ddl(rk, "RIGHT_SRC", rf)]
            out.append(case(f"{shape} join, {lf} and {rf} values, aliased: the aliases",
                            [*stmts, f"CREATE {sink} OUT AS SELECT L.ID, L.V, R.V AS RV FROM LEFT_SRC L JOIN "
                                     f"RIGHT_SRC R {within}ON L.ID = R.ID;"],
                            message(kafka, "JOIN")))
            names = [n for n, f in (("LEFT_SRC", lf), ("RIGHT_SRC", rf)) if f == "KAFKA"]
            out.append(case(f"{shape} join, {lf} and {rf} values, not aliased: the source names",
                            [*stmts, f"CREATE {sink} OUT AS SELECT LEFT_SRC.ID, LEFT_SRC.V, RIGHT_SRC.V AS RV FROM "
                                     f"LEFT_SRC JOIN RIGHT_SRC {within}ON LEFT_SRC.ID = RIGHT_SRC.ID;"],
                            message(names, "JOIN")))
    out.append(case("foreign-key join, KAFKA values on the right: refused as a JOIN",
                    [ddl("TABLE", "LEFT_SRC", "JSON"), ddl("TABLE", "RIGHT_SRC", "KAFKA"),
                     "CREATE TABLE OUT AS SELECT L.ID, R.V AS RV FROM LEFT_SRC L JOIN RIGHT_SRC R ON L.V = R.ID;"],
                    message(["R"], "JOIN")))
    out.append(case("three-way join: the KAFKA-valued sources in FROM order, before the key types are checked",
                    [ddl("STREAM", "A", "KAFKA"), ddl("STREAM", "B", "JSON"), ddl("TABLE", "C", "KAFKA", "STRING"),
                     "CREATE STREAM OUT AS SELECT X.ID, X.V FROM A X JOIN B Y WITHIN 1 MINUTE ON X.ID = Y.ID "
                     "JOIN C Z ON X.ID = Z.ID;"],
                    message(["X", "Z"], "JOIN")))
    out.append(case("GROUP BY over an aliased KAFKA-valued stream: the alias",
                    [ddl("STREAM", "S", "KAFKA"), "CREATE TABLE OUT AS SELECT X.V, COUNT(*) AS C FROM S X GROUP BY X.V;"],
                    message(["X"], "GROUP BY")))
    out.append(case("GROUP BY over a KAFKA-valued table, not aliased: the source name",
                    [ddl("TABLE", "T", "KAFKA"), "CREATE TABLE OUT AS SELECT V, COUNT(*) AS C FROM T GROUP BY V;"],
                    message(["T"], "GROUP BY")))
    return out


def main() -> None:
    path = pathlib.Path(__file__).with_name("kafka-value-format.json")
    path.write_text(json.dumps({"tests": cases()}, indent=2) + "\n")


if __name__ == "__main__":
    main()
