"""REST cases with topic ``outputs``: the sink topics the server wrote, read back from its log.

ksqlDB's REST harness checks a case's ``outputs`` like the statement-level harness does: every record of
each named topic, decoded with the topic's formats (the source the server describes over it), compared
per partition with the expected records (``compare.topic_diff``) - except headers, which it never compares. Here the runner reads the server's log
directly (the same log it produces inputs into) once the queries caught up.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from ksqlpy.testing.coerce import resolve_row
from ksqlpy.testing.compare import Mismatch, topic_diff
from ksqlpy.testing.rest_responses import Done
from ksqlpy.testing.specserde import codec, window_kind
from ksqlpy.testing.topic_reader import read_partitions


def check_outputs(log: Any, registry: Any, case: Any, sources: dict[str, dict[str, Any]], columns: Any) -> None:
    """Raise ``Done(FAILED)`` at the first topic whose records differ from the case's outputs.

    ``sources``: topic -> the server's source description; ``columns(fields, kind)`` turns its ``fields``
    into the key (``"KEY"``) or value (None) columns."""
    from ksqlpy.testing.report import FAILED

    for topic, group in itertools.groupby(sorted(case.outputs, key=lambda r: r.topic), key=lambda r: r.topic):
        expected = list(group)
        info = log.describe_topic(topic)
        if info is None:
            raise Done(FAILED, f"{topic}: expected {len(expected)} records, but the topic does not exist",
                       "output mismatch: sink topic missing")
        desc = sources.get(topic)
        if desc is None:
            raise Done(FAILED, f"{topic}: no source describes the topic", "output mismatch: no source")
        keys, values = columns(desc["fields"], "KEY"), columns(desc["fields"], None)
        kc = codec(desc["keyFormat"], keys, registry=registry, topic=topic, is_key=True)
        vc = codec(desc["valueFormat"], values, registry=registry, topic=topic)
        window = (desc.get("windowType") or "").upper() or None
        kind = window_kind(window) if window else "time"
        partitions = read_partitions(log, topic, info.partitions, kc, vc, kind if window else None)
        # ksqlDB's REST harness compares key, value and timestamp: never headers
        expected = [replace(r, key=resolve_row(r.key, keys), value=resolve_row(r.value, values), headers=None)
                    for r in expected]
        m: Mismatch | None = topic_diff(topic, expected, partitions, window is not None)
        if m:
            raise Done(FAILED, m.message, f"output mismatch: {m.field}")
