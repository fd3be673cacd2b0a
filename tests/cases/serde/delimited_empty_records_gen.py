"""DELIMITED records with no CSV record in them - zero bytes, or only line breaks - fail to deserialize
(ksqlDB's KsqlDelimitedDeserializer, from memory: ``No fields in record`` when CSVParser finds no record,
before the column count is compared): the record is dropped, for a stream or a table, a value or a key, one
column or several - it is not a row of NULLs nor a tombstone. Empty lines before the record are skipped. A
row whose only column is NULL writes zero bytes, which a query reading that topic drops in turn.

Writes tests/cases/serde/delimited-empty-records.json: ``python tests/cases/serde/delimited_empty_records_gen.py
tests/cases/serde/delimited-empty-records.json`` after changing this file.
"""
import json
import sys


def stream(cols: str, key_format: str = "KAFKA") -> str:
    return (f"CREATE STREAM S (K STRING KEY, {cols}) WITH (kafka_topic='s', key_format='{key_format}', "
            "value_format='DELIMITED');")


def cases() -> list[dict]:  # type: ignore[type-arg]
    return [
        {"name": "one STRING column: zero bytes are no record, dropped; a blank is a value",
         "statements": [stream("A STRING"), "CREATE STREAM O AS SELECT K, A, A IS NULL AS N FROM S;"],
         "inputs": [{"topic": "s", "key": "a", "value": ""}, {"topic": "s", "key": "b", "value": " "},
                    {"topic": "s", "key": "c", "value": "x"}],
         "outputs": [{"topic": "O", "key": "b", "value": "\" \",false"}, {"topic": "O", "key": "c", "value": "x,false"}]},
        {"name": "two columns: zero bytes are no record (not a column count mismatch either way), a lone delimiter "
                 "is a record of two NULLs",
         "statements": [stream("A STRING, B INT"), "CREATE STREAM O AS SELECT K, A IS NULL AS AN, B IS NULL AS BN FROM S;"],
         "inputs": [{"topic": "s", "key": "a", "value": ""}, {"topic": "s", "key": "b", "value": ","},
                    {"topic": "s", "key": "c", "value": "\"\",1"}],
         "outputs": [{"topic": "O", "key": "b", "value": "true,true"}, {"topic": "O", "key": "c", "value": "true,false"}]},
        {"name": "only line breaks are no record; empty lines before a record are skipped",
         "statements": [stream("A STRING, B INT"), "CREATE STREAM O AS SELECT * FROM S;"],
         "inputs": [{"topic": "s", "key": "a", "value": "\n"}, {"topic": "s", "key": "b", "value": "\r\n\r\n"},
                    {"topic": "s", "key": "c", "value": "\nx,1"}, {"topic": "s", "key": "d", "value": "\r\n\"y,z\",2\r\n"}],
         "outputs": [{"topic": "O", "key": "c", "value": "x,1"}, {"topic": "O", "key": "d", "value": "\"y,z\",2"}]},
        {"name": "a table: a value with no record is dropped, not a tombstone - the row stays",
         "statements": ["CREATE TABLE T (K STRING PRIMARY KEY, A STRING) WITH (kafka_topic='t', key_format='KAFKA', "
                        "value_format='DELIMITED');", "CREATE TABLE O AS SELECT * FROM T;"],
         "inputs": [{"topic": "t", "key": "a", "value": "x"}, {"topic": "t", "key": "a", "value": ""},
                    {"topic": "t", "key": "a", "value": None}],
         "outputs": [{"topic": "O", "key": "a", "value": "x"}, {"topic": "O", "key": "a", "value": None}]},
        {"name": "a DELIMITED key with no record is dropped; a key of one empty quoted field is a NULL key",
         "statements": [stream("A INT", key_format="DELIMITED"), "CREATE STREAM O AS SELECT * FROM S;"],
         "inputs": [{"topic": "s", "key": "", "value": "1"}, {"topic": "s", "key": "\"\"", "value": "2"},
                    {"topic": "s", "key": "k", "value": "3"}],
         "outputs": [{"topic": "O", "key": "", "value": "2"}, {"topic": "O", "key": "k", "value": "3"}]},
        {"name": "a row whose only column is NULL writes zero bytes, which a query reading the topic drops",
         "statements": ["CREATE STREAM S (K STRING KEY, A STRING) WITH (kafka_topic='s', format='JSON');",
                        "CREATE STREAM D WITH (kafka_topic='d', value_format='DELIMITED') AS SELECT * FROM S;",
                        "CREATE STREAM O WITH (value_format='JSON') AS SELECT * FROM D;"],
         "inputs": [{"topic": "s", "key": "a", "value": {"A": None}}, {"topic": "s", "key": "b", "value": {"A": "x"}}],
         "outputs": [{"topic": "d", "key": "a", "value": ""}, {"topic": "d", "key": "b", "value": "x"},
                     {"topic": "O", "key": "b", "value": {"A": "x"}}]},
    ]


def main(path: str) -> None:
    doc = __doc__.split("\n\n")[0].replace("\n", " ")
    with open(path, "w") as f:
        json.dump({"comments": [doc], "tests": cases()}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
