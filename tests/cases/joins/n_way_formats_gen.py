"""N-way joins mixing stream-stream, stream-table and table-table steps, each source in its own key format:
the result key is the FROM source's key format, a table step on a re-keyed stream, tombstones through two
table-table steps.

Writes tests/cases/joins/n-way-formats.json: ``python tests/cases/joins/n_way_formats_gen.py
tests/cases/joins/n-way-formats.json`` after changing this file.
"""
import json
import sys

from case_keys import key

FORMATS = ["KAFKA", "JSON", "AVRO", "PROTOBUF", "JSON_SR", "DELIMITED"]


tests = []
combos = [("JSON", "AVRO", "KAFKA"), ("AVRO", "PROTOBUF", "JSON_SR"), ("KAFKA", "KAFKA", "KAFKA"), ("DELIMITED", "JSON", "AVRO"),
          ("PROTOBUF", "KAFKA", "DELIMITED"), ("JSON_SR", "JSON_SR", "JSON_SR")]
for fa, fb, fc in combos:
    tag = f"{fa}/{fb}/{fc}"
    # stream - stream - table
    tests.append({
        "name": f"{tag} stream-stream then stream-table",
        "statements": [
            f"CREATE STREAM A (ID INT KEY, X STRING) WITH (kafka_topic='a', key_format='{fa}', value_format='JSON');",
            f"CREATE STREAM B (ID INT KEY, Y STRING) WITH (kafka_topic='b', key_format='{fb}', value_format='JSON');",
            f"CREATE TABLE C (ID INT PRIMARY KEY, Z STRING) WITH (kafka_topic='c', key_format='{fc}', value_format='JSON');",
            "CREATE STREAM OUTPUT AS SELECT A.ID AS ID, X, Y, Z FROM A JOIN B WITHIN 1 MINUTE ON A.ID = B.ID LEFT JOIN C ON A.ID = C.ID;"],
        "inputs": [
            {"topic": "c", "key": key(fc, "ID", 1), "value": {"Z": "z1"}, "timestamp": 0},
            {"topic": "a", "key": key(fa, "ID", 1), "value": {"X": "x1"}, "timestamp": 10},
            {"topic": "b", "key": key(fb, "ID", 1), "value": {"Y": "y1"}, "timestamp": 20},
            {"topic": "a", "key": key(fa, "ID", 2), "value": {"X": "x2"}, "timestamp": 30},
            {"topic": "b", "key": key(fb, "ID", 2), "value": {"Y": "y2"}, "timestamp": 40}],
        "outputs": [
            {"topic": "OUTPUT", "key": key(fa, "ID", 1), "value": {"X": "x1", "Y": "y1", "Z": "z1"}, "timestamp": 20},
            {"topic": "OUTPUT", "key": key(fa, "ID", 2), "value": {"X": "x2", "Y": "y2", "Z": None}, "timestamp": 40}],
        "post": {"sources": [{"name": "OUTPUT", "type": "stream", "schema": "ID INT KEY, X STRING, Y STRING, Z STRING",
                              "keyFormat": {"format": fa}}]}})
    # table - table - table, the last on a value column of the first via the key
    tests.append({
        "name": f"{tag} three tables on their keys",
        "statements": [
            f"CREATE TABLE A (ID INT PRIMARY KEY, X STRING) WITH (kafka_topic='a', key_format='{fa}', value_format='JSON');",
            f"CREATE TABLE B (ID INT PRIMARY KEY, Y STRING) WITH (kafka_topic='b', key_format='{fb}', value_format='JSON');",
            f"CREATE TABLE C (ID INT PRIMARY KEY, Z STRING) WITH (kafka_topic='c', key_format='{fc}', value_format='JSON');",
            "CREATE TABLE OUTPUT AS SELECT A.ID AS ID, X, Y, Z FROM A JOIN B ON A.ID = B.ID LEFT JOIN C ON B.ID = C.ID;"],
        "inputs": [
            {"topic": "a", "key": key(fa, "ID", 1), "value": {"X": "x1"}, "timestamp": 0},
            {"topic": "b", "key": key(fb, "ID", 1), "value": {"Y": "y1"}, "timestamp": 10},
            {"topic": "c", "key": key(fc, "ID", 1), "value": {"Z": "z1"}, "timestamp": 20},
            {"topic": "c", "key": key(fc, "ID", 1), "value": None, "timestamp": 30},
            {"topic": "b", "key": key(fb, "ID", 1), "value": None, "timestamp": 40}],
        "outputs": [
            {"topic": "OUTPUT", "key": key(fa, "ID", 1), "value": {"X": "x1", "Y": "y1", "Z": None}, "timestamp": 10},
            {"topic": "OUTPUT", "key": key(fa, "ID", 1), "value": {"X": "x1", "Y": "y1", "Z": "z1"}, "timestamp": 20},
            {"topic": "OUTPUT", "key": key(fa, "ID", 1), "value": {"X": "x1", "Y": "y1", "Z": None}, "timestamp": 30},
            {"topic": "OUTPUT", "key": key(fa, "ID", 1), "value": None, "timestamp": 40}],
        "post": {"sources": [{"name": "OUTPUT", "type": "table", "schema": "ID INT KEY, X STRING, Y STRING, Z STRING",
                              "keyFormat": {"format": fa}}]}})
    # stream - table on a value column (repartition) - table
    tests.append({
        "name": f"{tag} stream re-keyed to a table, then another table on the new key",
        "statements": [
            f"CREATE STREAM A (ID INT KEY, R INT, X STRING) WITH (kafka_topic='a', key_format='{fa}', value_format='JSON');",
            f"CREATE TABLE B (ID INT PRIMARY KEY, Y STRING) WITH (kafka_topic='b', key_format='{fb}', value_format='JSON');",
            f"CREATE TABLE C (ID INT PRIMARY KEY, Z STRING) WITH (kafka_topic='c', key_format='{fc}', value_format='JSON');",
            "CREATE STREAM OUTPUT AS SELECT B.ID AS BID, X, Y, Z FROM A JOIN B ON A.R = B.ID JOIN C ON B.ID = C.ID;"],
        "inputs": [
            {"topic": "b", "key": key(fb, "ID", 7), "value": {"Y": "y7"}, "timestamp": 0},
            {"topic": "c", "key": key(fc, "ID", 7), "value": {"Z": "z7"}, "timestamp": 0},
            {"topic": "a", "key": key(fa, "ID", 1), "value": {"R": 7, "X": "x1"}, "timestamp": 10},
            {"topic": "a", "key": key(fa, "ID", 2), "value": {"R": 8, "X": "x2"}, "timestamp": 20}],
        "outputs": [
            {"topic": "OUTPUT", "key": key(fa, "BID", 7), "value": {"X": "x1", "Y": "y7", "Z": "z7"}, "timestamp": 10}],
        "post": {"sources": [{"name": "OUTPUT", "type": "stream", "schema": "BID INT KEY, X STRING, Y STRING, Z STRING",
                              "keyFormat": {"format": fa}}]}})
if __name__ == "__main__":
    json.dump({"comments": ["ksqlpy's own cases, generated by tests/cases/joins/n_way_formats_gen.py (edit that): n-way joins mixing stream-stream, stream-table and table-table steps with a different key format per source"], "tests": tests}, open(sys.argv[1], "w"), indent=1)
    print(len(tests))
