"""Generates REST cases for the size of a windowed CREATE STREAM/TABLE (our own cases).

Run ``python tests/cases/rest/gen_windowed_source_sizes.py`` to rewrite ``windowed-source-sizes.json``.

The WITH clause only parses ``WINDOW_SIZE``; ksqlDB's ``WindowInfo`` (made by ``CreateSourceFactory``) then
requires a TUMBLING/HOPPING size to be a positive duration, so ``/ksql`` answers a statement error
``Size must be positive`` (status 400) for zero and negative sizes and creates the source otherwise - a
duration under a millisecond is positive.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
SIZES = ("0 SECONDS", "-1 MILLISECOND", "-2 days", "+0 MINUTES", "1 NANOSECOND", "30 seconds")


def _case(kind: str, window_type: str, size: str) -> dict[str, Any]:
    key = "PRIMARY KEY" if kind == "TABLE" else "KEY"
    statement = (f"CREATE {kind} W (ID STRING {key}, V INT) WITH (kafka_topic='w', value_format='JSON', "
                 f"partitions=1, WINDOW_TYPE='{window_type}', WINDOW_SIZE='{size}');")
    name = f"{kind} {window_type} WINDOW_SIZE '{size}'"
    amount = int(size.split(" ")[0])
    if amount <= 0:
        return {"name": name, "statements": [statement],
                "expectedError": {"type": "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage",
                                  "message": "Size must be positive", "status": 400}}
    return {"name": name, "statements": [statement],
            "responses": [{"admin": {"@type": "currentStatus",
                                     "commandStatus": {"status": "SUCCESS", "message": f"{kind.title()} created", "queryId": None}}}]}


def cases() -> list[dict[str, Any]]:
    return [_case(kind, window_type, size)
            for kind in ("STREAM", "TABLE") for window_type in ("TUMBLING", "HOPPING") for size in SIZES]


if __name__ == "__main__":
    (HERE / "windowed-source-sizes.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n")
