"""Generates ``row-partitions.json``: where a record lands in a topic of several partitions, seen through
ROWPARTITION and ROWOFFSET in push queries (ksqlDB's REST harness creates a topic at 4 partitions unless the
case declares a count, and produces through a KafkaProducer).

The rule is Kafka's DefaultPartitioner: a record with a key goes to ``toPositive(murmur2(key bytes)) %
partitions`` - the bytes the key format writes (KAFKA: 4-byte big-endian INT, 8-byte BIGINT / DOUBLE, UTF-8
STRING; JSON: the compact JSON text, an object in column order for several key columns; DELIMITED: the text). ROWOFFSET counts per partition from 0. It holds
for what the harness produces and for what a query writes (a PARTITION BY sink places each row by its new
key). The partitions below come from this file's own murmur2 (Kafka's Utils.murmur2, checked against Kafka's
published test values), not from ksqlpy's.

Run ``python tests/cases/rest/gen_row_partitions.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
PARTITIONS = 4  # the harness's count for a topic a case does not declare


def murmur2(data: bytes) -> int:
    """Kafka's Utils.murmur2 (seed 0x9747b28c), as an unsigned 32-bit value."""
    m, r = 0x5BD1E995, 24
    h = (0x9747B28C ^ len(data)) & 0xFFFFFFFF
    for i in range(len(data) // 4):
        k = int.from_bytes(data[i * 4:i * 4 + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> r
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
    tail = data[len(data) & ~3:]
    if len(tail) == 3:
        h ^= tail[2] << 16
    if len(tail) >= 2:
        h ^= tail[1] << 8
    if len(tail) >= 1:
        h ^= tail[0]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h


def _signed(v: int) -> int:
    return v - (1 << 32) if v >= 1 << 31 else v


# Kafka's own checks of Utils.murmur2 (UtilsTest.testMurmur2): the generator refuses to run if they fail
for _text, _want in (("21", -973932308), ("foobar", -790332482), ("a-little-bit-long-string", -985981536),
                     ("a-little-bit-longer-string", -1486304829), ("abc", 479470107)):
    assert _signed(murmur2(_text.encode())) == _want, _text


def partition_of(key_bytes: bytes) -> int:
    return (murmur2(key_bytes) & 0x7FFFFFFF) % PARTITIONS


def _placed(keys: list[Any], encode: Any) -> list[tuple[Any, int, int]]:
    """(key, partition, offset) of each record produced in order."""
    counts: dict[int, int] = {}
    out = []
    for key in keys:
        p = partition_of(encode(key))
        out.append((key, p, counts.get(p, 0)))
        counts[p] = counts.get(p, 0) + 1
    return out


KINDS: list[tuple[str, str, str, list[Any], Any]] = [
    ("a KAFKA INTEGER key", "INT", "KAFKA", [1, 2, 3, 4, 5, 6, 7, 8], lambda k: struct.pack(">i", k)),
    ("a KAFKA BIGINT key", "BIGINT", "KAFKA", [1, 2, 3, 10000000000, -5], lambda k: struct.pack(">q", k)),
    ("a KAFKA DOUBLE key", "DOUBLE", "KAFKA", [0.5, 1.5, 2.25, -3.0], lambda k: struct.pack(">d", k)),
    ("a KAFKA STRING key", "STRING", "KAFKA", ["a", "b", "c", "alice", "bob", "carol"], lambda k: k.encode()),
    ("a JSON INTEGER key", "INT", "JSON", [1, 2, 3, 4, 5], lambda k: json.dumps(k).encode()),
    ("a JSON STRING key", "STRING", "JSON", ["a", "b", "alice"], lambda k: json.dumps(k).encode()),
    ("a DELIMITED STRING key", "STRING", "DELIMITED", ["a", "b", "alice", "bob"], lambda k: k.encode()),
]


def cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for what, sql_type, key_format, keys, encode in KINDS:
        placed = _placed(keys, encode)
        out.append({
            "name": f"{what} places each record by murmur2 of its bytes; offsets count per partition",
            "statements": [
                f"CREATE STREAM S (K {sql_type} KEY, V INT) WITH (kafka_topic='s', key_format='{key_format}', "
                "value_format='JSON');",
                f"SELECT K, ROWPARTITION AS P, ROWOFFSET AS O FROM S EMIT CHANGES LIMIT {len(keys)};",
            ],
            "inputs": [{"topic": "s", "key": k, "value": {"V": i}, "timestamp": 1000 + i} for i, k in enumerate(keys)],
            "responses": [
                {"admin": {"@type": "currentStatus"}},
                {"query": [{"header": {"schema": f"`K` {'INTEGER' if sql_type == 'INT' else sql_type}, "
                                                 "`P` INTEGER, `O` BIGINT"}},
                           *({"row": {"columns": [k, p, o]}} for k, p, o in placed),
                           {"finalMessage": "Limit Reached"}]},
            ],
        })
    # a JSON key of several columns is one JSON object, written compactly in column order
    pairs = [(1, "x"), (2, "y"), (3, "alice"), (4, "bob")]
    placed2 = _placed(pairs, lambda k: json.dumps({"A": k[0], "B": k[1]}, separators=(",", ":")).encode())
    out.append({
        "name": "a JSON key of two columns places each record by murmur2 of its compact JSON object",
        "statements": [
            "CREATE STREAM S (A INT KEY, B STRING KEY, V INT) WITH (kafka_topic='s', key_format='JSON', "
            "value_format='JSON');",
            f"SELECT A, B, ROWPARTITION AS P FROM S EMIT CHANGES LIMIT {len(pairs)};",
        ],
        "inputs": [{"topic": "s", "key": {"A": a, "B": b}, "value": {"V": i}, "timestamp": 1000 + i}
                   for i, (a, b) in enumerate(pairs)],
        "responses": [
            {"admin": {"@type": "currentStatus"}},
            {"query": [{"header": {"schema": "`A` INTEGER, `B` STRING, `P` INTEGER"}},
                       *({"row": {"columns": [a, b, p]}} for (a, b), p, _ in placed2),
                       {"finalMessage": "Limit Reached"}]},
        ],
    })
    # a query's sink: PARTITION BY a STRING value writes each row where its new key hashes
    values = ["alice", "bob", "carol", "dave", "erin"]
    placed = _placed(values, lambda k: k.encode())
    out.append({
        "name": "a PARTITION BY sink places each row by murmur2 of its new key's bytes",
        "statements": [
            "CREATE STREAM S (K INT KEY, NAME STRING) WITH (kafka_topic='s', value_format='JSON');",
            "CREATE STREAM BY_NAME AS SELECT * FROM S PARTITION BY NAME;",
            f"SELECT NAME, ROWPARTITION AS P, ROWOFFSET AS O FROM BY_NAME EMIT CHANGES LIMIT {len(values)};",
        ],
        "inputs": [{"topic": "s", "key": 1, "value": {"NAME": v}, "timestamp": 1000 + i} for i, v in enumerate(values)],
        "responses": [
            {"admin": {"@type": "currentStatus"}},
            {"admin": {"@type": "currentStatus"}},
            {"query": [{"header": {"schema": "`NAME` STRING, `P` INTEGER, `O` BIGINT"}},
                       *({"row": {"columns": [k, p, o]}} for k, p, o in placed),
                       {"finalMessage": "Limit Reached"}]},
        ],
    })
    return out


if __name__ == "__main__":
    (HERE / "row-partitions.json").write_text(json.dumps({"comments": ["Generated by gen_row_partitions.py, in "
                                                                       "ksqlDB's REST test format, written for "
                                                                       "ksqlpy."],
                                                          "tests": cases()}, indent=1) + "\n")
