"""The topics and schemas ksqlDB's harnesses set up before a case's statements run.

Both harnesses (the statement-level TestExecutor and the RestTestExecutor) collect a case's topics the same
way: the ``topics`` section, the topics of plain CREATE STREAM/TABLE statements, and the topics its
``inputs``/``outputs`` name; each is created with its declared partition count, else 4 (the harness's
default), and the schemas of the ``topics`` section are registered - with their ids when the case gives
them, and with the schemas they reference only then.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import ast as A
from ksqlpy.grammar import parse
from ksqlpy.grammar.variables import define, substitute_variables, undefine
from ksqlpy.testing import exactjson

# what ksqlDB's harnesses give a topic the case does not declare a count for (its Topic default)
HARNESS_PARTITIONS = 4

CREATE_SOURCE = re.compile(r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:SOURCE\s+)?(?:STREAM|TABLE)\b", re.IGNORECASE)
AS_SELECT = re.compile(r"\bAS\s+SELECT\b", re.IGNORECASE)
KAFKA_TOPIC = re.compile(r"\bKAFKA_TOPIC\s*=\s*'((?:[^']|'')*)'", re.IGNORECASE)
_DECLARES_COLUMNS = re.compile(r"^[^(]*?\b(?:STREAM|TABLE)\s+(?:IF\s+NOT\s+EXISTS\s+)?[^\s(]+\s*\(",
                               re.IGNORECASE)
_FORMAT_PROP = re.compile(r"(?<![_\w])FORMAT\s*=\s*'(\w+)'", re.IGNORECASE)
_PARTITIONS_N = re.compile(r"\bPARTITIONS\s*=\s*'?(-?\d+)", re.IGNORECASE)  # any count: the CREATE judges it

# Registers a schema (subject, text, schema type, id or None) and returns its id.
Register = Callable[[str, str, str, "int | None"], int]


def plain_creates(statements: list[str]) -> list[tuple[str, int | None]]:
    """(topic, PARTITIONS or None) of every CREATE STREAM/TABLE that is not AS SELECT, in order."""
    out: list[tuple[str, int | None]] = []
    for sql in substituted(statements):
        if not CREATE_SOURCE.match(sql) or AS_SELECT.search(sql):
            continue
        m = KAFKA_TOPIC.search(sql)
        if m:
            n = _PARTITIONS_N.search(sql)
            out.append((m.group(1).replace("''", "'"), int(n.group(1)) if n else None))
    return out


def substituted(statements: list[str]) -> list[str]:
    """The statements as the engine will run them: the variables their DEFINEs (and UNDEFINEs) set so far
    substituted, so ``KAFKA_TOPIC='${t}', PARTITIONS=${n}`` names the topic and count it will have.

    A DEFINE/UNDEFINE is read by the grammar's parser with the variables defined before it, as the engine
    reads it (a value's ``${x}`` substituted, comments, quoting and case as the grammar has them); a
    statement the parser refuses sets nothing here - the engine reports it when the case runs."""
    variables: dict[str, str] = {}
    out = []
    for sql in statements:
        out.append(substitute_variables(sql, variables))
        if "DEFINE" not in sql.upper():  # neither a DEFINE nor an UNDEFINE: no need to parse it here
            continue
        try:
            parsed = parse(sql, variables)
        except KsqlParseError:
            continue
        for stmt in parsed:
            if isinstance(stmt, A.DefineVariable):
                define(variables, stmt.name, stmt.value)
            elif isinstance(stmt, A.UndefineVariable):
                undefine(variables, stmt.name)
    return out


def harness_partitions(topic: Any, statements: list[str]) -> int:
    """The count a ``topics`` entry is created with: its ``partitions``, else the PARTITIONS a plain CREATE
    over it names (the CREATE would otherwise meet the topic at another count), else 4."""
    if topic.partitions:
        return int(topic.partitions)
    declared = next((n for name, n in plain_creates(statements) if name == topic.name and n and n > 0), None)
    return declared or HARNESS_PARTITIONS


def create_harness_topics(log: Any, case: Any, *, records: bool) -> None:
    """Create the case's ``topics`` entries and the topics of its plain CREATEs without PARTITIONS that do not
    exist yet; with ``records`` also those only its ``inputs``/``outputs`` name."""
    for t in case.topics:
        if not log.topic_exists(t.name):
            log.create_topic(t.name, harness_partitions(t, case.statements), t.replicas or 1)
    for name, partitions in plain_creates(case.statements):
        # a CREATE naming PARTITIONS creates its topic itself (and judges the value)
        if partitions is None and not log.topic_exists(name):
            log.create_topic(name, HARNESS_PARTITIONS)
    if records:
        create_record_topics(log, case)


def create_record_topics(log: Any, case: Any) -> None:
    """Topics only ``inputs``/``outputs`` name, at 4 partitions (a topic a plain CREATE names is the
    statement's, at the count it gives)."""
    declared = {name for name, _ in plain_creates(case.statements)}
    for r in [*case.inputs, *case.outputs]:
        if r.topic not in declared and not log.topic_exists(r.topic):
            log.create_topic(r.topic, HARNESS_PARTITIONS)


def register_topic_schemas(register: Register, topic: Any, statements: list[str],
                           default_id: Callable[[], int | None]) -> None:
    """Register a ``topics`` entry's key schema, then its value schema (``schema`` is the value schema),
    under ``<topic>-key|value``. With ``keySchemaId``/``valueSchemaId`` the schema gets that id and the
    schemas it references (``...SchemaReferences``) are registered first, under their names; without one
    it gets ``default_id()`` (None: the registry's next id) and no references."""
    sql = " ".join(statements).upper()
    for is_key in (True, False):
        side = "key" if is_key else "value"
        schema = topic.schemas.get(f"{side}Schema")
        if schema is None and not is_key:
            schema = topic.schemas.get("schema")
        if schema is None:
            continue
        fmt = schema_format(schema, topic.key_format if is_key else topic.value_format, sql)
        text = schema if isinstance(schema, str) and fmt in ("JSON_SR", "PROTOBUF") else exactjson.dumps(schema)
        sid = topic.schemas.get(f"{side}SchemaId")
        if sid is not None:
            for ref in topic.schemas.get(f"{side}SchemaReferences") or []:
                ref_schema = ref["schema"]
                ref_format = str(ref.get("format") or fmt).upper()
                register(str(ref["name"]), ref_schema if isinstance(ref_schema, str) else exactjson.dumps(ref_schema),
                         "JSON" if ref_format in ("JSON", "JSON_SR") else ref_format, None)
        else:
            sid = default_id()
        register(f"{topic.name}-{side}", text, {"AVRO": "AVRO", "PROTOBUF": "PROTOBUF"}.get(fmt, "JSON"),
                 int(sid) if sid is not None else None)


def schema_format(schema: Any, fmt_spec: Any, sql: str) -> str:
    """The format a registered schema is in: the topic's, else guessed from the schema and the statements."""
    fmt = fmt_spec.format if fmt_spec is not None else None
    if fmt in ("AVRO", "JSON_SR", "PROTOBUF"):
        return str(fmt)
    json_schema = isinstance(schema, dict) and ("properties" in schema or schema.get("type") in (
        "object", "integer", "number"))
    fmt = "JSON_SR" if json_schema or ("JSON_SR" in sql and "AVRO" not in sql) else "AVRO"
    if "PROTOBUF" in sql and not isinstance(schema, dict | list):
        fmt = "PROTOBUF"
    return fmt


def statement_subjects(statements: list[str], exclude: str) -> int:
    """How many subjects plain CREATE statements over other topics declare, with columns, in a schema-registry
    format: ``<topic>-value`` for such a value format, ``<topic>-key`` for such a key format with a KEY column
    (a CREATE without columns infers its schema: ksqlDB's harness has none to register for it). The
    statement-level harness registers those first, so a ``topics`` schema without an id comes after them."""
    subjects = set()
    for sql in statements:
        if not (CREATE_SOURCE.match(sql) and not AS_SELECT.search(sql) and _DECLARES_COLUMNS.match(sql)):
            continue
        m = KAFKA_TOPIC.search(sql)
        if not m or m.group(1) == exclude:
            continue
        both = _FORMAT_PROP.search(sql)
        for side in ("KEY", "VALUE"):
            fmt = re.search(rf"\b{side}_FORMAT\s*=\s*'(\w+)'", sql, re.IGNORECASE) or both
            keyed = side == "VALUE" or re.search(r"\bKEY\b\s*[,)]", sql, re.IGNORECASE)
            if fmt and fmt.group(1).upper() in ("AVRO", "JSON_SR", "PROTOBUF") and keyed:
                subjects.add((m.group(1), side))
    return len(subjects)
