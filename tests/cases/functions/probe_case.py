"""One case of many expression probes over one input row, for the function generators (gen_*.py here): each
probe ``(expression, expected)`` becomes a column ``C<i>`` of one CSAS over a JSON stream."""

from __future__ import annotations

import json
from typing import Any


def probe_case(title: str, probes: list[tuple[str, object]], columns: str, row: dict[str, Any]) -> dict[str, Any]:
    """``columns``: the stream's value columns (after ``K STRING KEY``); ``row``: the one input's value."""
    select = ", ".join(f"{e} AS C{i}" for i, (e, _) in enumerate(probes))
    return {
        "name": title,
        "statements": [
            f"CREATE STREAM S (K STRING KEY, {columns}) WITH (kafka_topic='s', value_format='JSON');",
            f"CREATE STREAM O AS SELECT K, {select} FROM S;",
        ],
        "inputs": [{"topic": "s", "key": "k", "value": row}],
        "outputs": [{"topic": "O", "key": "k", "value": {f"C{i}": v for i, (_, v) in enumerate(probes)}}],
    }


def write_cases(path: str, doc: str, tests: list[dict[str, Any]], ensure_ascii: bool = True) -> None:
    """The generator's file: its docstring's first paragraph as the comment, then the cases."""
    with open(path, "w") as f:
        json.dump({"comments": [doc.split("\n\n")[0].replace("\n", " ")], "tests": tests}, f, indent=1,
                  ensure_ascii=ensure_ascii)
        f.write("\n")
