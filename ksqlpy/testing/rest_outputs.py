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


def codec_options(desc: dict[str, Any], n_values: int, config: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(key, value) codec options of a source the server describes, as the QTT executor takes them from the
    catalog: the full schema name, PROTOBUF nullable representation and value wrapping its statement set.

    ksqlDB's harness builds its serdes from the source's formats in the metastore (TopicInfoCache, from
    memory): the format properties (``fullSchemaName``, ``nullableRepresentation``) and features. The REST
    runner sees the server only through REST, so they come from the WITH clause of DESCRIBE's
    ``statement`` - the clause that set them (a C*AS does not inherit WRAP_SINGLE_VALUE or a nullable
    representation) - with ``ksql.persistence.wrap.single.values`` of ``config`` (the server's properties
    and the case's) as the wrapping default, as the statement met it."""
    from ksqlpy import grammar
    from ksqlpy.serde.capabilities import value_wrapping

    try:
        stmts = grammar.parse(str(desc.get("statement") or ""), None)
        props = {str(k).upper(): v for k, v in (getattr(stmts[0], "properties", None) or {}).items()}
    except Exception:  # noqa: BLE001 - a statement we cannot read: the formats' defaults
        props = {}

    def text(name: str) -> str | None:
        v = props.get(name)
        return None if v is None else str(v).strip()

    def nullable(side: str) -> str | None:
        v = text(f"{side}_PROTOBUF_NULLABLE_REPRESENTATION")
        return v.upper() if v else None

    explicit = props.get("WRAP_SINGLE_VALUE")
    explicit = None if explicit is None else str(explicit).strip().lower() == "true"
    default = config.get("ksql.persistence.wrap.single.values")
    default = None if default is None or str(default).strip() == "" else str(default).strip().lower() == "true"
    try:
        wrap = value_wrapping(str(desc.get("valueFormat") or "").upper(), n_values, explicit, default)
    except Exception:  # noqa: BLE001 - the server took the statement: keep the format's shape
        wrap = None
    key = {"full_name": text("KEY_SCHEMA_FULL_NAME"), "nullable": nullable("KEY")}
    value = {"full_name": text("VALUE_SCHEMA_FULL_NAME") or text("VALUE_AVRO_SCHEMA_FULL_NAME"),
             "nullable": nullable("VALUE"), "wrap_single_value": wrap}
    return key, value


def check_outputs(log: Any, registry: Any, case: Any, sources: dict[str, dict[str, Any]], columns: Any,
                  config: dict[str, Any] | None = None) -> None:
    """Raise ``Done(FAILED)`` at the first topic whose records differ from the case's outputs.

    ``sources``: topic -> the server's source description; ``columns(fields, kind)`` turns its ``fields``
    into the key (``"KEY"``) or value (None) columns; ``config``: the properties the statements ran with
    (``codec_options``)."""
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
        key_opts, value_opts = codec_options(desc, len(values), config or {})
        kc = codec(desc["keyFormat"], keys, registry=registry, topic=topic, is_key=True, **key_opts)
        vc = codec(desc["valueFormat"], values, registry=registry, topic=topic, **value_opts)
        window = (desc.get("windowType") or "").upper() or None
        kind = window_kind(window) if window else "time"
        partitions = read_partitions(log, topic, info.partitions, kc, vc, kind if window else None)
        # ksqlDB's REST harness compares key, value and timestamp: never headers
        expected = [replace(r, key=resolve_row(r.key, keys), value=resolve_row(r.value, values), headers=None)
                    for r in expected]
        m: Mismatch | None = topic_diff(topic, expected, partitions, window is not None)
        if m:
            raise Done(FAILED, m.message, f"output mismatch: {m.field}")
