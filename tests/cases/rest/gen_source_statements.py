"""Generates ``source-statements.json``: every statement that names an existing source by kind (ALTER STREAM/TABLE,
DROP STREAM/TABLE with and without IF EXISTS, CREATE OR REPLACE [SOURCE] STREAM/TABLE) against every kind of target - a stream, a table, a SOURCE stream, a
SOURCE table, the sink of a CREATE STREAM/TABLE AS SELECT, and a name that is no source - with the ``/ksql``
answer ksqlDB gives (from memory of its rules, written in our words):

- ALTER: ``AlterSourceFactory`` refuses a SOURCE stream/table in the statement's own words, then
  ``DdlCommandExec`` checks that the source exists, that its kind is the statement's, and that no
  CREATE ... AS SELECT made it; success is ``<Kind> altered`` under ``<kind>/<NAME>/alter``.
- CREATE OR REPLACE: a SOURCE on either side is refused, another kind is the upgrade check's ``type``
  difference, the same kind and columns replace the source.
- DROP: a missing source is ``<Kind> <NAME> does not exist.`` (IF EXISTS: a command status saying so); another
  kind is ``Incompatible data source type is <KIND>, but statement was DROP <KIND>``; success names the topic;
  a sink's query is terminated with it.
- DROP ... DELETE TOPIC: the TopicDeleteInjector's checks first (a SOURCE; a missing source without IF EXISTS:
  ``Could not find source to delete topic for: DropStream{name=`X`, ifExists=false, deleteTopic=true}``),
  then the drop's; a dropped source's topic is gone.

Run ``python tests/cases/rest/gen_source_statements.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

STATEMENT_ERROR = "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage"
STATUS = {"admin": {"@type": "currentStatus"}}

PARENT = {
    "STREAM": "CREATE STREAM P (ID INT KEY, V STRING) WITH (kafka_topic='p', value_format='JSON', partitions=1);",
    "TABLE": "CREATE TABLE P (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='p', value_format='JSON', "
             "partitions=1);",
}

# a target: its kind, the statements that make it X, its topic, whether it is a SOURCE, whether a query made it
Target = tuple[str, list[str], str, bool, bool]
TARGETS: dict[str, Target] = {
    "a stream": ("STREAM", ["CREATE STREAM X (ID INT KEY, V STRING) WITH (kafka_topic='x', value_format='JSON', "
                            "partitions=1);"], "x", False, False),
    "a table": ("TABLE", ["CREATE TABLE X (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='x', value_format='JSON', "
                          "partitions=1);"], "x", False, False),
    "a SOURCE stream": ("STREAM", ["CREATE SOURCE STREAM X (ID INT KEY, V STRING) WITH (kafka_topic='x', "
                                   "value_format='JSON', partitions=1);"], "x", True, False),
    "a SOURCE table": ("TABLE", ["CREATE SOURCE TABLE X (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='x', "
                                 "value_format='JSON', partitions=1);"], "x", True, True),
    "the sink of a CREATE STREAM AS SELECT": ("STREAM", [PARENT["STREAM"], "CREATE STREAM X AS SELECT * FROM P;"],
                                              "X", False, True),
    "the sink of a CREATE TABLE AS SELECT": ("TABLE", [PARENT["TABLE"], "CREATE TABLE X AS SELECT * FROM P;"],
                                             "X", False, True),
}


def _error(name: str, setup: list[str], statement: str, message: str) -> dict[str, Any]:
    return {"name": name, "statements": [*setup, statement],
            "expectedError": {"type": STATEMENT_ERROR, "message": message, "status": 400}}


def _status(name: str, setup: list[str], statement: str, command_id: str, message: str,
            text: str = "{STATEMENT}") -> dict[str, Any]:
    """``text``: the statementText, the statement as ksqlDB's injectors left it (``{STATEMENT}``: as sent)."""
    return {"name": name, "statements": [*setup, statement],
            "responses": [STATUS] * len(setup) + [{"admin": {
                "@type": "currentStatus", "statementText": text, "commandId": command_id,
                "commandStatus": {"status": "SUCCESS", "message": message, "queryId": None}}}]}


def alter_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for kind in ("STREAM", "TABLE"):
        statement = f"ALTER {kind} X ADD COLUMN W INT;"
        for what, (src_kind, setup, _topic, is_source, by_query) in TARGETS.items():
            name = f"ALTER {kind} of {what}"
            if is_source:  # refused in the statement's words, whatever the source's kind
                out.append(_error(name, setup, statement, f"Cannot alter {kind.lower()} 'X': ALTER operations are "
                                                          f"not supported on source {kind.lower()}s."))
            elif src_kind != kind:  # the kind is checked before the query that made it
                out.append(_error(name, setup, statement,
                                  f"Incompatible data source type is {src_kind}, but statement was ALTER {kind}"))
            elif by_query:
                out.append(_error(name, setup, statement, "ALTER command is not supported for CREATE ... AS "
                                                          "statements."))
            else:
                out.append(_status(name, setup, statement, f"{kind.lower()}/X/alter", f"{kind.capitalize()} altered"))
        out.append(_error(f"ALTER {kind} of a name that is no source", [], statement, "Source X does not exist."))
    return out


def drop_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for kind in ("STREAM", "TABLE"):
        for if_exists in (False, True):
            statement = f"DROP {kind} {'IF EXISTS ' if if_exists else ''}X;"
            label = f"DROP {kind}{' IF EXISTS' if if_exists else ''}"
            for what, (src_kind, setup, topic, _is_source, _by_query) in TARGETS.items():
                name = f"{label} of {what}"
                if src_kind != kind:  # IF EXISTS does not excuse another kind
                    out.append(_error(name, setup, statement,
                                      f"Incompatible data source type is {src_kind}, but statement was DROP {kind}"))
                else:
                    out.append(_status(name, setup, statement, f"{kind.lower()}/X/drop",
                                       f"Source `X` (topic: {topic}) was dropped."))
            name = f"{label} of a name that is no source"
            if if_exists:
                out.append(_status(name, [], statement, f"{kind.lower()}/X/drop", "Source `X` does not exist."))
            else:
                out.append(_error(name, [], statement, f"{kind.capitalize()} X does not exist."))
    return out


def drop_delete_topic_cases() -> list[dict[str, Any]]:
    """DROP ... DELETE TOPIC: ksqlDB's TopicDeleteInjector runs before the drop is planned - a SOURCE is refused in
    its words whatever the statement's kind, a missing source without IF EXISTS is its 'Could not find source to
    delete topic for: <the statement as its AST prints>'; then the drop's own rules (another kind, IF EXISTS)."""
    out: list[dict[str, Any]] = []
    for kind in ("STREAM", "TABLE"):
        for if_exists in (False, True):
            statement = f"DROP {kind} {'IF EXISTS ' if if_exists else ''}X DELETE TOPIC;"
            label = f"DROP {kind}{' IF EXISTS' if if_exists else ''} ... DELETE TOPIC"
            for what, (src_kind, setup, topic, is_source, _by_query) in TARGETS.items():
                name = f"{label} of {what}"
                if is_source:
                    out.append(_error(name, setup, statement, "Cannot delete topic for read-only source: X"))
                elif src_kind != kind:
                    out.append(_error(name, setup, statement,
                                      f"Incompatible data source type is {src_kind}, but statement was DROP {kind}"))
                else:
                    out.append({"name": name, "statements": [*setup, statement, f"ASSERT NOT EXISTS TOPIC {topic};"],
                                "responses": [STATUS] * len(setup) + [{"admin": {
                                    "@type": "currentStatus", "commandId": f"{kind.lower()}/X/drop",
                                    "commandStatus": {"status": "SUCCESS", "queryId": None,
                                                      "message": f"Source `X` (topic: {topic}) was dropped."}}},
                                    {"admin": {"@type": "assert_topic", "topicName": topic, "exists": False}}]})
            name = f"{label} of a name that is no source"
            if if_exists:
                out.append({"name": name, "statements": [statement], "responses": [{"admin": {
                    "@type": "currentStatus", "commandId": f"{kind.lower()}/X/drop",
                    "commandStatus": {"status": "SUCCESS", "message": "Source `X` does not exist.", "queryId": None}}}]})
            else:
                out.append(_error(name, [], statement, "Could not find source to delete topic for: "
                                  f"Drop{kind.capitalize()}{{name=`X`, ifExists=false, deleteTopic=true}}"))
        quoted = f'DROP {kind} "lower_x" DELETE TOPIC;'
        out.append(_error(f"DROP {kind} ... DELETE TOPIC of a quoted name that is no source keeps its case", [],
                          quoted, "Could not find source to delete topic for: "
                          f"Drop{kind.capitalize()}{{name=`lower_x`, ifExists=false, deleteTopic=true}}"))
    return out


def dropped_sink_cases() -> list[dict[str, Any]]:
    """A dropped sink's query goes with it: its source can be dropped next, and the query is no longer listed."""
    out: list[dict[str, Any]] = []
    for kind in ("STREAM", "TABLE"):
        setup = [PARENT[kind], f"CREATE {kind} X AS SELECT * FROM P;"]
        out.append({
            "name": f"DROP {kind} of a CREATE {kind} AS SELECT sink ends its query, so its source can go next",
            "statements": [*setup, f"DROP {kind} X;", f"DROP {kind} P;", "SHOW QUERIES;"],
            "responses": [STATUS, STATUS,
                          {"admin": {"@type": "currentStatus", "commandId": f"{kind.lower()}/X/drop"}},
                          {"admin": {"@type": "currentStatus", "commandId": f"{kind.lower()}/P/drop",
                                     "commandStatus": {"status": "SUCCESS",
                                                       "message": "Source `P` (topic: p) was dropped.",
                                                       "queryId": None}}},
                          {"admin": {"@type": "queries", "queries": []}}],
        })
    return out


def replace_cases() -> list[dict[str, Any]]:
    """CREATE OR REPLACE of a source by its own statement: a SOURCE on either side is refused
    (CreateSourceFactory), another kind is a difference of the metastore's upgrade check (``type = KSTREAM
    which is not upgradeable to KTABLE``, as for CREATE OR REPLACE ... AS SELECT), the same kind with the same
    columns replaces it."""
    out: list[dict[str, Any]] = []
    plain = {"STREAM": "a stream", "TABLE": "a table"}
    source = {"STREAM": "a SOURCE stream", "TABLE": "a SOURCE table"}
    for kind, key in (("STREAM", "KEY"), ("TABLE", "PRIMARY KEY")):
        statement = (f"CREATE OR REPLACE {kind} X (ID INT {key}, V STRING) WITH (kafka_topic='x', "
                     "value_format='JSON', partitions=1);")
        for what in (plain["STREAM"], plain["TABLE"], source["STREAM"], source["TABLE"]):
            src_kind, setup, _topic, is_source, _by_query = TARGETS[what]
            name = f"CREATE OR REPLACE {kind} over {what}"
            if is_source:
                out.append(_error(name, setup, statement, f"Cannot add {kind.lower()} 'X': CREATE OR REPLACE is "
                                                          f"not supported on source {kind.lower()}s."))
            elif src_kind != kind:
                out.append(_error(name, setup, statement, f"Cannot upgrade data source: DataSource '`X`' has type "
                                                          f"= K{src_kind} which is not upgradeable to K{kind}"))
            else:
                # DefaultFormatInjector filled in KEY_FORMAT: the statement is reprinted (SqlFormatter)
                injected = (f"CREATE OR REPLACE {kind} X (ID INTEGER {key}, V STRING) WITH (KAFKA_TOPIC='x', "
                            "KEY_FORMAT='KAFKA', PARTITIONS=1, VALUE_FORMAT='JSON');")
                out.append(_status(name, setup, statement, f"{kind.lower()}/X/create", f"{kind.capitalize()} created",
                                   injected))
        source_statement = statement.replace("OR REPLACE", "OR REPLACE SOURCE")
        out.append(_error(f"CREATE OR REPLACE SOURCE {kind} over {plain[kind]}", TARGETS[plain[kind]][1],
                          source_statement, f"Cannot add {kind.lower()} 'X': CREATE OR REPLACE is not supported on "
                                            f"source {kind.lower()}s."))
    return out


def cases() -> list[dict[str, Any]]:
    return alter_cases() + drop_cases() + drop_delete_topic_cases() + dropped_sink_cases() + replace_cases()


if __name__ == "__main__":
    (HERE / "source-statements.json").write_text(json.dumps({
        "comments": ["ALTER and DROP of every kind of source, by statement kind. Generated by "
                     "gen_source_statements.py, in ksqlDB's REST test format, written for ksqlpy."],
        "tests": cases()}, indent=1) + "\n")
