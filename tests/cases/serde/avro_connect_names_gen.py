"""AVRO fields typed by Kafka Connect's ``connect.name`` alone (no Avro ``logicalType``), as schemas written by
Connect's AvroConverter or by hand carry them: Confluent's AvroData.toConnectSchema names the Connect schema
after ``connect.name`` (its ``connect.parameters`` as the schema's parameters) and ksqlDB reads a Connect
logical type by that name - an ``int`` named ``org.apache.kafka.connect.data.Date`` is a DATE, ``...Time`` a
TIME, a ``long`` named ``...Timestamp`` a TIMESTAMP, a ``bytes`` (or ``fixed``) named ``...Decimal`` a
DECIMAL of the ``scale`` parameter and the ``connect.decimal.precision`` one (64 without it). A name on
another base type (a ``long`` named Date, a ``string`` named Decimal) is no logical type.

Scope: inference of value columns (required, in a nullable union, nested in a record, array items, map
values), of an unwrapped key, values read into each type, a sink whose VALUE_SCHEMA_ID names such a schema
(the DECIMAL written as the schema's bytes at its scale), and the same with ``logicalType`` beside the name.

Writes tests/cases/serde/avro-connect-names.json: ``python tests/cases/serde/avro_connect_names_gen.py
tests/cases/serde/avro-connect-names.json`` after changing this file.
"""
import json
import sys
from typing import Any

P = "org.apache.kafka.connect.data."
DATE = {"type": "int", "connect.version": 1, "connect.name": P + "Date"}
TIME = {"type": "int", "connect.version": 1, "connect.name": P + "Time"}
TS = {"type": "long", "connect.version": 1, "connect.name": P + "Timestamp"}
DEC = {"type": "bytes", "connect.version": 1, "connect.name": P + "Decimal",
       "connect.parameters": {"scale": "2", "connect.decimal.precision": "6"}}
DEC_NO_PRECISION = {"type": "bytes", "connect.name": P + "Decimal", "connect.parameters": {"scale": "3"}}
DEC_FIXED = {"type": "fixed", "name": "Money", "size": 4, "connect.name": P + "Decimal",
             "connect.parameters": {"scale": "1", "connect.decimal.precision": "8"}}


def record(fields: list[tuple[str, Any]], name: str = "Row") -> dict[str, Any]:
    return {"type": "record", "name": name, "fields": [{"name": n, "type": t} for n, t in fields]}


def inferred(name: str, schema: Any, value: Any, out: Any, columns: str, *, key: Any = None,
             key_schema: Any = None, key_columns: str = "", out_key: Any = None) -> dict[str, Any]:
    topic: dict[str, Any] = {"name": "input", "valueFormat": "AVRO", "valueSchema": schema}
    fmt = "value_format='AVRO'"
    if key_schema is not None:
        topic.update(keyFormat="AVRO", keySchema=key_schema)
        fmt = "format='AVRO'"
    inp: dict[str, Any] = {"topic": "input", "value": value}
    outp: dict[str, Any] = {"topic": "OUTPUT", "value": out}
    if key is not None:
        inp["key"], outp["key"] = key, out_key
    schema_text = ", ".join(c for c in (key_columns, columns) if c)
    return {"name": name,
            "statements": [f"CREATE STREAM INPUT WITH (kafka_topic='input', {fmt});",
                           "CREATE STREAM OUTPUT WITH (value_format='JSON'"
                           + (", key_format='JSON'" if key is not None else "") + ") AS SELECT * FROM INPUT;"],
            "topics": [topic], "inputs": [inp], "outputs": [outp],
            "post": {"sources": [{"name": "INPUT", "type": "stream", "schema": schema_text}]}}


CASES = [
    inferred("a required int, long and bytes named by connect.name alone are DATE, TIME, TIMESTAMP, DECIMAL",
             record([("d", DATE), ("t", TIME), ("ts", TS), ("dec", DEC)]),
             {"d": 19000, "t": 3723000, "ts": 1700000000123, "dec": 1234.56},
             {"D": 19000, "T": 3723000, "TS": 1700000000123, "DEC": 1234.56},
             "D DATE, T TIME, TS TIMESTAMP, DEC DECIMAL(6, 2)"),
    inferred("a connect.name inside a nullable union types the column; null reads NULL",
             record([("ts", ["null", TS]), ("dec", ["null", DEC]), ("n", "int")]),
             {"ts": None, "dec": None, "n": 1}, {"TS": None, "DEC": None, "N": 1},
             "TS TIMESTAMP, DEC DECIMAL(6, 2), N INT"),
    inferred("a Decimal without connect.decimal.precision has ksqlDB's default precision 64",
             record([("dec", DEC_NO_PRECISION)]), {"dec": -0.125}, {"DEC": -0.125}, "DEC DECIMAL(64, 3)"),
    inferred("a fixed named Decimal is a DECIMAL of its parameters",
             record([("m", DEC_FIXED)]), {"m": -12.5}, {"M": -12.5}, "M DECIMAL(8, 1)"),
    inferred("connect.name types a nested field, array items and map values",
             record([("r", record([("ts", TS)], "Inner")), ("dates", {"type": "array", "items": DATE}),
                     ("amounts", {"type": "map", "values": DEC})]),
             {"r": {"ts": 5}, "dates": [1, 2], "amounts": {"a": 0.25}},
             {"R": {"TS": 5}, "DATES": [1, 2], "AMOUNTS": {"a": 0.25}},
             "R STRUCT<TS TIMESTAMP>, DATES ARRAY<DATE>, AMOUNTS MAP<STRING, DECIMAL(6, 2)>"),
    inferred("a name on another base type is no logical type",
             record([("a", {"type": "long", "connect.name": P + "Date"}),
                     ("b", {"type": "int", "connect.name": P + "Timestamp"}),
                     ("c", {"type": "string", "connect.name": P + "Decimal"})]),
             {"a": 7, "b": 8, "c": "x"}, {"A": 7, "B": 8, "C": "x"}, "A BIGINT, B INT, C STRING"),
    inferred("logicalType beside connect.name, as Connect writes both, reads the same",
             record([("ts", {**TS, "logicalType": "timestamp-millis"}),
                     ("dec", {**DEC, "logicalType": "decimal", "precision": 6, "scale": 2})]),
             {"ts": 9, "dec": 1.55}, {"TS": 9, "DEC": 1.55}, "TS TIMESTAMP, DEC DECIMAL(6, 2)"),
    inferred("an unwrapped key named Timestamp is a TIMESTAMP key",
             record([("v", "int")]), {"v": 1}, {"V": 1}, "V INT",
             key=1700000000000, key_schema=TS, key_columns="ROWKEY TIMESTAMP KEY", out_key=1700000000000),
    {"name": "a sink whose VALUE_SCHEMA_ID names connect.name types writes DECIMAL bytes at the schema's scale",
     "statements": ["CREATE STREAM INPUT (ID INT KEY, TS TIMESTAMP, DEC DECIMAL(6, 2)) WITH (kafka_topic='input', "
                    "value_format='JSON', partitions=1);",
                    "CREATE STREAM OUTPUT WITH (kafka_topic='output', value_format='AVRO', VALUE_SCHEMA_ID=1) "
                    "AS SELECT * FROM INPUT;"],
     "topics": [{"name": "output", "valueFormat": "AVRO", "valueSchemaId": 1, "partitions": 1,
                 "valueSchema": record([("TS", ["null", TS]), ("DEC", ["null", DEC])])}],
     "inputs": [{"topic": "input", "key": 1, "value": {"TS": 1000, "DEC": 12.34}},
                {"topic": "input", "key": 2, "value": {"TS": None, "DEC": -0.75}}],
     "outputs": [{"topic": "output", "key": 1, "value": {"TS": 1000, "DEC": 12.34}},
                 {"topic": "output", "key": 2, "value": {"TS": None, "DEC": -0.75}}],
     "post": {"sources": [{"name": "OUTPUT", "type": "stream",
                           "schema": "ID INT KEY, TS TIMESTAMP, DEC DECIMAL(6, 2)"}]}},
]

text = json.dumps({"comments": [__doc__.split("\n\n")[0].replace("\n", " ")], "tests": CASES}, indent=1) + "\n"

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        f.write(text)
