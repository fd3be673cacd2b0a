"""The key format of a stream-stream join whose two sides are both re-keyed by a value expression: writes
tests/cases/joins/rekey-key-types.json (``python tests/cases/joins/rekey_key_types_gen.py``).

The rule (from memory of ksqlDB's JoinNode.resolveKeyFormats, SchemaKStream.selectKey and
SerdeFeaturesFactory.sanitizeKeyFormat): with both sides re-keyed the join takes the first non-NONE source key
format (else ksql.persistence.default.format.key); re-keying a stream then moves it to JSON when that format
cannot write the new key - KAFKA: anything but INT, BIGINT, DOUBLE, STRING and BYTES; DELIMITED: a STRUCT,
ARRAY or MAP - so the repartition topics and the join's stores are keyed in JSON. Before, ksqlpy kept the
chosen format and wrote such keys in an encoding of its own. The sink still takes the FROM source's key format
(so a STRUCT key needs the sink's own KEY_FORMAT).
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

APP = "_confluent-ksql-some.ksql.service.idquery_CSAS_J_0-"


def streams(key_format: str, col_type: str) -> list[str]:
    key = "" if key_format == "NONE" else "ID INT KEY, "
    return [f"CREATE STREAM L ({key}C {col_type}, V INT) WITH (kafka_topic='l', key_format='{key_format}', "
            "value_format='JSON', partitions=1);",
            f"CREATE STREAM R ({key}C {col_type}, W INT) WITH (kafka_topic='r', key_format='{key_format}', "
            "value_format='JSON', partitions=1);"]


def topics(fmt: str, changelog_numbers: tuple[int, int] = (16, 17)) -> dict[str, Any]:
    names = ["Join-left-repartition", "Join-right-repartition",
             f"KSTREAM-JOINTHIS-{changelog_numbers[0]:010d}-store-changelog",
             f"KSTREAM-JOINOTHER-{changelog_numbers[1]:010d}-store-changelog"]
    return {"topics": [{"name": APP + n, "keyFormat": {"format": fmt}, "valueFormat": {"format": "JSON"}}
                       for n in names]}


# (name, source key format, column type, value, sink key format, expected internal key format, props)
CASES: list[tuple[str, str, str, Any, str, str, dict[str, str]]] = [
    ("KAFKA keys, joined on a STRUCT", "KAFKA", "STRUCT<F INT>", {"F": 5}, "JSON", "JSON", {}),
    ("KAFKA keys, joined on a BOOLEAN", "KAFKA", "BOOLEAN", True, "JSON", "JSON", {}),
    ("KAFKA keys, joined on a DECIMAL", "KAFKA", "DECIMAL(4, 2)", 1.25, "JSON", "JSON", {}),
    ("KAFKA keys, joined on an ARRAY", "KAFKA", "ARRAY<INT>", [1, 2], "JSON", "JSON", {}),
    ("DELIMITED keys, joined on a STRUCT", "DELIMITED", "STRUCT<F INT>", {"F": 5}, "JSON", "JSON", {}),
    ("DELIMITED keys, joined on a BOOLEAN: DELIMITED writes it", "DELIMITED", "BOOLEAN", True, "DELIMITED",
     "DELIMITED", {}),
    ("KAFKA keys, joined on a STRING: KAFKA writes it", "KAFKA", "STRING", "x", "KAFKA", "KAFKA", {}),
    ("KAFKA keys, joined on a BIGINT: KAFKA writes it", "KAFKA", "BIGINT", 7, "KAFKA", "KAFKA", {}),
    ("key-less streams, the default KAFKA, joined on a STRUCT", "NONE", "STRUCT<F INT>", {"F": 5}, "JSON", "JSON",
     {}),
    ("key-less streams, the default DELIMITED, joined on a STRUCT", "NONE", "STRUCT<F INT>", {"F": 5}, "JSON",
     "JSON", {"ksql.persistence.default.format.key": "DELIMITED"}),
    ("key-less streams, the default DELIMITED, joined on an INT", "NONE", "INT", 3, "DELIMITED", "DELIMITED",
     {"ksql.persistence.default.format.key": "DELIMITED"}),
]


def _key(fmt: str, value: Any) -> Any:
    """The record key as the case file writes it: DELIMITED keys as text, others as values."""
    if fmt == "DELIMITED":
        return str(value).lower() if isinstance(value, bool) else str(value)
    return value


def main() -> None:
    tests: list[dict[str, Any]] = []
    for name, key_format, col_type, value, sink_fmt, internal, props in CASES:
        with_key = "" if sink_fmt == (key_format if key_format != "NONE" else props.get(
            "ksql.persistence.default.format.key", "KAFKA")) else f" WITH (KEY_FORMAT='{sink_fmt}')"
        src_key = None if key_format == "NONE" else 1
        t: dict[str, Any] = {"name": f"{name}: the join's topics keyed in {internal}"}
        if props:
            t["properties"] = props
        t["statements"] = streams(key_format, col_type) + [
            f"CREATE STREAM J{with_key} AS SELECT L.C, V, W FROM L JOIN R WITHIN 1 MINUTE ON L.C = R.C;"]
        t["inputs"] = [{"topic": "r", "key": src_key, "value": {"C": value, "W": 2}, "timestamp": 0},
                       {"topic": "l", "key": src_key, "value": {"C": value, "V": 3}, "timestamp": 1}]
        t["outputs"] = [{"topic": "J", "key": _key(sink_fmt, value), "value": {"V": 3, "W": 2}, "timestamp": 1}]
        t["post"] = {"sources": [{"name": "J", "type": "stream", "keyFormat": {"format": sink_fmt}}],
                     "topics": topics(internal)}
        tests.append(t)
    tests.append({
        "name": "KAFKA keys joined on a STRUCT: the sink inherits KAFKA, which cannot write the key",
        "statements": streams("KAFKA", "STRUCT<F INT>") + [
            "CREATE STREAM J AS SELECT L.C, V, W FROM L JOIN R WITHIN 1 MINUTE ON L.C = R.C;"],
        "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException",
                              "message": "The 'KAFKA' format does not support type 'STRUCT'"}})
    doc = {"comments": [" ".join((__doc__ or "").split("\n\n")[1].split())], "tests": tests}
    (pathlib.Path(__file__).parent / "rekey-key-types.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
