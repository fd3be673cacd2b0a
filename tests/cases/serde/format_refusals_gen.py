"""A format that cannot carry the columns it is given is refused for the key and for the value alike, in the
words of ksqlDB's GenericSerdeFactory.createFormatSerde (from memory): ``<Key|Value> format does not support
schema.``, ``format: <FORMAT>``, ``schema: Persistence{columns=[...], features=[...]}`` - the serde features
of the side: UNWRAP_SINGLES for a single key the format could also wrap, the value's WRAP_SINGLE_VALUE as
given - then ``reason: <the format's own reason>``; over CREATE STREAM/TABLE and CREATE STREAM/TABLE ... AS SELECT.

Writes tests/cases/serde/format-refusals.json: ``python tests/cases/serde/format_refusals_gen.py
tests/cases/serde/format-refusals.json`` after changing this file.
"""
import json
import sys

ERROR = "io.confluent.ksql.util.KsqlStatementException"

# (format, value columns, WITH extras, the columns as ksqlDB prints them, features, reason)
VALUES = [
    ("KAFKA", "V BOOLEAN", "", "`V` BOOLEAN", "[]", "The 'KAFKA' format does not support type 'BOOLEAN'"),
    ("KAFKA", "V DECIMAL(4, 2)", "", "`V` DECIMAL(4, 2)", "[]", "The 'KAFKA' format does not support type 'DECIMAL'"),
    ("KAFKA", "V TIMESTAMP", "", "`V` TIMESTAMP", "[]", "The 'KAFKA' format does not support type 'TIMESTAMP'"),
    ("KAFKA", "V STRUCT<A INT>", "", "`V` STRUCT<`A` INTEGER>", "[]", "The 'KAFKA' format does not support type 'STRUCT'"),
    ("KAFKA", "V INT, W STRING", "", "`V` INTEGER, `W` STRING", "[]",
     "The 'KAFKA' format only supports a single field. Got: [`V` INTEGER, `W` STRING]"),
    ("DELIMITED", "V ARRAY<INT>", "", "`V` ARRAY<INTEGER>", "[]",
     "The 'DELIMITED' format does not support type 'ARRAY', column: `V`"),
    ("DELIMITED", "W INT, V MAP<STRING, INT>", "", "`W` INTEGER, `V` MAP<STRING, INTEGER>", "[]",
     "The 'DELIMITED' format does not support type 'MAP', column: `V`"),
    ("NONE", "V INT", "", "`V` INTEGER", "[]",
     "The 'NONE' format can only be used when no columns are defined. Got: [`V` INTEGER]"),
    ("JSON", "V MAP<INT, STRING>", "", "`V` MAP<INTEGER, STRING>", "[]", "JSON only supports MAP types with STRING keys"),
    ("JSON", "V MAP<INT, STRING>", ", wrap_single_value=false", "`V` MAP<INTEGER, STRING>", "[UNWRAP_SINGLES]",
     "JSON only supports MAP types with STRING keys"),
    ("JSON", "V MAP<INT, STRING>", ", wrap_single_value=true", "`V` MAP<INTEGER, STRING>", "[WRAP_SINGLES]",
     "JSON only supports MAP types with STRING keys"),
    ("PROTOBUF_NOSR", "V ARRAY<MAP<BIGINT, INT>>", "", "`V` ARRAY<MAP<BIGINT, INTEGER>>", "[]",
     "PROTOBUF format only supports MAP types with STRING keys. See https://github.com/confluentinc/ksql/issues/6177."),
]


BUILT = {"JSON": ("INT", "MAP(X := 'x')"), "PROTOBUF_NOSR": ("BIGINT", "ARRAY[MAP(X := 1)]")}


def message(side: str, fmt: str, printed: str, features: str, reason: str) -> str:
    return (f"{side} format does not support schema.\nformat: {fmt}\n"
            f"schema: Persistence{{columns=[{printed}], features={features}}}\nreason: {reason}")


def value_cases() -> list[dict]:  # type: ignore[type-arg]
    tests = []
    for fmt, cols, extra, printed, features, reason in VALUES:
        msg = message("Value", fmt, printed, features, reason)
        for kind, key in (("STREAM", "K STRING KEY"), ("TABLE", "K STRING PRIMARY KEY")):
            tests.append({
                "name": f"CREATE {kind} value {fmt} ({cols}{extra})",
                "statements": [f"CREATE {kind} S ({key}, {cols}) WITH (kafka_topic='s', key_format='KAFKA', "
                               f"value_format='{fmt}'{extra});"],
                "expectedException": {"type": ERROR, "message": msg},
            })
        if fmt == "NONE":
            continue
        sink_extra = extra.replace(", ", "", 1)
        with_clause = f"value_format='{fmt}'" + (f", {sink_extra}" if sink_extra else "")
        built = BUILT.get(fmt)  # a map key JSON cannot read: the query builds the column
        source = f"X {built[0]}" if built else cols
        select = f"K, {built[1]} AS V" if built else "*"
        tests.append({
            "name": f"CREATE STREAM AS SELECT value {fmt} ({cols}{extra})",
            "statements": [f"CREATE STREAM S (K STRING KEY, {source}) WITH (kafka_topic='s', format='JSON');",
                           f"CREATE STREAM O WITH ({with_clause}) AS SELECT {select} FROM S;"],
            "expectedException": {"type": ERROR, "message": msg + "\nStatement: CREATE STREAM O"},
        })
        if built is None:
            tests.append({
                "name": f"CREATE TABLE AS SELECT value {fmt} ({cols}{extra})",
                "statements": [f"CREATE TABLE T (K STRING PRIMARY KEY, {cols}) WITH (kafka_topic='t', format='JSON');",
                               f"CREATE TABLE O WITH ({with_clause}) AS SELECT * FROM T;"],
                "expectedException": {"type": ERROR, "message": msg + "\nStatement: CREATE TABLE O"},
            })
    return tests


def key_cases() -> list[dict]:  # type: ignore[type-arg]
    tests = []
    for fmt, features in (("PROTOBUF_NOSR", "[UNWRAP_SINGLES]"), ("AVRO", "[UNWRAP_SINGLES]")):
        col = "K STRUCT<`a-b` INT>"
        reason = ("Schema is not compatible with Avro: Illegal character in: a-b" if fmt == "AVRO" else None)
        tests.append({
            "name": f"CREATE STREAM single key {fmt} struct with a name the format cannot hold: features {features}",
            "statements": [f"CREATE STREAM S ({col} KEY, V INT) WITH (kafka_topic='s', key_format='{fmt}', "
                           "value_format='JSON', partitions=1);"],
            "expectedException": {"type": ERROR, "message":
                                  f"Key format does not support schema.\nformat: {fmt}\n"
                                  f"schema: Persistence{{columns=[`K` STRUCT<`a-b` INTEGER> KEY], features={features}}}\n"
                                  + (f"reason: {reason}" if reason else "reason: ")},
        })
    tests.append({
        "name": "CREATE STREAM two key columns in KAFKA: no feature",
        "statements": ["CREATE STREAM S (K INT KEY, K2 INT KEY, V INT) WITH (kafka_topic='s', key_format='KAFKA', "
                       "value_format='JSON');"],
        "expectedException": {"type": ERROR, "message": message(
            "Key", "KAFKA", "`K` INTEGER KEY, `K2` INTEGER KEY", "[]",
            "The 'KAFKA' format only supports a single field. Got: [`K` INTEGER KEY, `K2` INTEGER KEY]")},
    })
    return tests


def main(path: str) -> None:
    doc = __doc__.split("\n\n")[0].replace("\n", " ")
    with open(path, "w") as f:
        json.dump({"comments": [doc], "tests": value_cases() + key_cases()}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
