"""Rendering of REST entities and query rows (pure functions, no terminal)."""

from __future__ import annotations

import decimal
import json

from ksqlpy.cli import render as R


def test_table_layout() -> None:
    assert R.table(["Name", "Kind"], [("PAGEVIEWS", "STREAM"), ("T", True)]) == [
        " Name      | Kind",
        "--------------------",
        " PAGEVIEWS | STREAM",
        " T         | true",
        "--------------------",
    ]


def test_cells() -> None:
    assert R.cell(None) == "null"
    assert R.cell(False) == "false"
    assert R.cell(decimal.Decimal("1.50")) == "1.50"
    assert R.cell(1e20) == "1.0E20"
    assert R.cell(0.5) == "0.5"
    assert R.cell(-2.5e-5) == "-2.5E-5"
    assert R.cell({"A": [1, None]}) == "{A=[1, null]}"  # the Java text of a map, as the ksql CLI prints it
    assert R.cell("text") == "text"


def test_query_table_streaming_widths_share_the_terminal() -> None:
    t = R.QueryTable(["ID", "PAGE"], term_width=41)
    assert t.header() == ["+-------------------+-------------------+",
                          "|ID                 |PAGE               |",
                          "+-------------------+-------------------+"]
    assert t.row([1, None]) == ["|1                  |null               |"]


def test_query_table_wraps_long_values() -> None:
    t = R.QueryTable(["V"], term_width=12, column_width=5)
    assert t.row(["abcdefghij"]) == ["|abcde|", "|fghij|"]


def test_query_table_fits_a_complete_result() -> None:
    t = R.QueryTable(["ID", "PAGE"], term_width=80, sample=[[1, "home"], [22, "about"]])
    assert t.widths == [2, 5]


def test_query_table_narrows_the_widest_columns_to_fit() -> None:
    row = [1, "apple", "2024-01-02T03:04:05.678", {"A": 1, "B": "zzzzzzzzz"}]
    t = R.QueryTable(["ID", "ITEM", "TS", "S"], term_width=40, sample=[row])
    assert t.widths == [2, 5, 14, 14]
    assert t.row(row) == ["|1 |apple|2024-01-02T03:|{A=1, B=zzzzzz|",
                          "|  |     |04:05.678     |zzz}          |"]


def status(msg: str, warnings: list[str] | None = None) -> dict:
    return {"@type": "currentStatus", "statementText": "CREATE ...;", "commandId": "stream/S/create",
            "commandStatus": {"status": "SUCCESS", "message": msg, "queryId": None},
            "warnings": [{"message": w} for w in warnings or []]}


def test_current_status_and_warnings() -> None:
    assert R.entity_lines(status("Stream created\nmore")) == [" Message", "----------------", " Stream created",
                                                              "----------------"]
    assert R.entity_warnings(status("x", ["careful"])) == ["careful"]
    warning = {"@type": "warning_entity", "statementText": "s", "message": "Cannot add stream S"}
    assert R.entity_lines(warning) == []
    assert R.entity_warnings(warning) == ["Cannot add stream S"]


def test_streams_and_queries() -> None:
    e = {"@type": "streams", "streams": [{"type": "STREAM", "name": "S", "topic": "s", "keyFormat": "KAFKA",
                                          "valueFormat": "JSON", "isWindowed": False}]}
    lines = R.entity_lines(e)
    assert lines[0].split("|")[0].strip() == "Stream Name"
    assert [c.strip() for c in lines[2].split("|")] == ["S", "s", "KAFKA", "JSON", "false"]
    q = {"@type": "queries", "queries": [{"id": "CSAS_S2_0", "queryType": "PERSISTENT", "state": "RUNNING",
                                          "sinks": ["S2"], "sinkKafkaTopics": ["S2"],
                                          "queryString": "CREATE STREAM S2\n AS SELECT * FROM S;"}]}
    text = "\n".join(R.entity_lines(q))
    assert "CSAS_S2_0" in text and "CREATE STREAM S2 AS SELECT * FROM S;" in text
    # the Status column is the status count (ksqlDB's docs: RUNNING:1), states with no host left out
    q["queries"][0]["statusCount"] = {"RUNNING": 1, "ERROR": 0}
    assert [c.strip() for c in R.entity_lines(q)[2].split("|")][:3] == ["CSAS_S2_0", "PERSISTENT", "RUNNING:1"]


def test_describe_source() -> None:
    d = {"name": "T", "type": "TABLE", "windowType": "TUMBLING", "extended": False, "fields": [
        {"name": "ID", "schema": {"type": "INTEGER"}, "type": "KEY"},
        {"name": "TAGS", "schema": {"type": "ARRAY", "memberSchema": {"type": "STRING"}}},
        {"name": "AMT", "schema": {"type": "DECIMAL", "parameters": {"precision": 4, "scale": 2}}},
        {"name": "S", "schema": {"type": "STRUCT", "fields": [{"name": "A", "schema": {"type": "BIGINT"}}]}},
    ]}
    text = "\n".join(R.entity_lines({"@type": "sourceDescription", "sourceDescription": d}))
    assert "Name                 : T" in text
    assert "INTEGER          (primary key) (Window type: TUMBLING)" in text
    assert "ARRAY<VARCHAR(STRING)>" in text
    assert "DECIMAL(4, 2)" in text
    assert "STRUCT<A BIGINT>" in text
    assert text.endswith("DESCRIBE <Stream,Table> EXTENDED;")


def test_describe_extended_always_prints_the_statistics_block() -> None:
    """ksqlDB's Console: every extended description has the local runtime statistics block, the statistics
    and error statistics lines empty when no query uses the source."""
    d = {"name": "S", "type": "STREAM", "extended": True, "topic": "s", "partitions": 1, "replication": 1,
         "statement": "CREATE STREAM S ...;", "keyFormat": "KAFKA", "valueFormat": "JSON", "statistics": "",
         "errorStats": "", "fields": [{"name": "V", "schema": {"type": "STRING"}}]}
    lines = R.entity_lines({"@type": "sourceDescription", "sourceDescription": d})
    assert lines[-6:] == ["", "Local runtime statistics", "------------------------", "", "",
                          "(Statistics of the local KSQL server interaction with the Kafka topic s)"]
    d.update(statistics="messages-per-sec:      0.10", errorStats=" failed-messages:         0")
    lines = R.entity_lines({"@type": "sourceDescription", "sourceDescription": d})
    assert lines[-3:-1] == ["messages-per-sec:      0.10", " failed-messages:         0"]


def test_properties_mark_session_overrides() -> None:
    e = {"@type": "properties", "properties": [{"name": "auto.offset.reset", "scope": "KSQL", "value": "earliest"},
                                               {"name": "ksql.service.id", "scope": "KSQL", "value": "x"}]}
    lines = R.entity_lines(e, {"auto.offset.reset": "earliest"})
    assert "SESSION" in lines[2] and "SESSION" not in lines[3]


def test_describe_function_signature_descriptions() -> None:
    e = {"@type": "describe_function", "name": "ABS", "type": "SCALAR",
         "functions": [{"arguments": [], "returnType": "", "description": "ABS(INTEGER) -> INTEGER"}]}
    text = "\n".join(R.entity_lines(e))
    assert "Variation   : ABS(INTEGER)" in text and "Returns     : INTEGER" in text


def test_describe_function_lists_argument_descriptions() -> None:
    """ksqlDB's Console prints each argument with a description under its variation (name padded to 12)."""
    arg = {"name": "str", "type": "STRING", "description": "The source string.", "isVariadic": False}
    bare = {"name": "pos", "type": "INT", "description": "", "isVariadic": False}
    e = {"@type": "describe_function", "name": "SUBSTRING", "type": "SCALAR",
         "functions": [{"arguments": [arg, bare], "returnType": "STRING", "description": "d"}]}
    lines = R.entity_lines(e)
    i = lines.index("\tVariation   : SUBSTRING(str STRING, pos INT)")
    assert lines[i + 1:] == ["\tReturns     : STRING", "\tDescription : d", "\tstr         : The source string."]


def test_describe_function_writes_the_variadic_argument_as_an_array() -> None:
    """ksqlDB's Console.argToString: the server sends a variadic parameter's element type with isVariadic, and
    the CLI writes ``name TYPE[]`` for it (``TYPE[]`` when it has no name)."""
    n = {"name": "n", "type": "INT", "description": "", "isVariadic": False}
    args = {"name": "args", "type": "STRING", "description": "", "isVariadic": True}
    unnamed = {"name": "", "type": "T", "description": "", "isVariadic": True}
    e = {"@type": "describe_function", "name": "ELT", "type": "SCALAR",
         "functions": [{"arguments": [n, args], "returnType": "STRING", "description": ""},
                       {"arguments": [unnamed], "returnType": "T", "description": ""}]}
    lines = R.entity_lines(e)
    assert "\tVariation   : ELT(n INT, args STRING[])" in lines and "\tVariation   : ELT(T[])" in lines


def test_describe_function_header() -> None:
    """ksqlDB's Console.printFunctionDescription: labels padded to 12, Author / Version / Overview printed only
    when the entity says something."""
    e = {"@type": "describe_function", "name": "substring", "author": "Confluent", "version": "",
         "description": "Substrings.", "path": "internal", "type": "SCALAR", "functions": []}
    assert R.entity_lines(e) == ["Name        : SUBSTRING", "Author      : Confluent", "Overview    : Substrings.",
                                 "Type        : SCALAR", "Jar         : internal", "Variations  : "]
    e.update(author=" ", version="1.2", description="")
    assert R.entity_lines(e) == ["Name        : SUBSTRING", "Version     : 1.2", "Type        : SCALAR",
                                 "Jar         : internal", "Variations  : "]


def test_connector_description() -> None:
    """ksqlDB's Console.printConnectorDescription: the trace when the connector has one; tasks, sources and
    topics each a table when not empty (the topics whether or not a source reads them)."""
    e = {"@type": "connector_description", "connectorClass": "io.x.Sink", "sources": [], "topics": ["t1"],
         "status": {"name": "C", "type": "sink", "tasks": [],
                    "connector": {"state": "FAILED", "worker_id": "w:8083", "trace": "boom"}}}
    assert R.entity_lines(e) == [
        "Name                 : C", "Class                : io.x.Sink", "Type                 : sink",
        "State                : FAILED", "WorkerId             : w:8083", "Trace                : boom", "",
        " Related Topics", "----------------", " t1", "----------------"]
    e["topics"] = []
    e["status"]["tasks"] = [{"id": 0, "state": "RUNNING", "worker_id": "w:8083"}]
    assert R.entity_lines(e)[-4:] == [" Task ID | State   | Error Trace", "-" * 33,
                                      " 0       | RUNNING |", "-" * 33]


def test_unknown_entities_print_as_json() -> None:
    lines = R.entity_lines({"@type": "something_new", "x": 1})
    assert json.loads("\n".join(lines)) == {"@type": "something_new", "x": 1}


def test_describe_extended_queries_constraints_and_topic() -> None:
    """ksqlDB's Console.printSourceDescription: the DROP constraints block, each query as "ID (STATE) : sql"
    under a 35-dash rule, the Kafka topic line without partitions when the server does not know them."""
    d = {"name": "T", "type": "TABLE", "extended": True, "topic": "t", "partitions": 0, "replication": 0,
         "statement": "CREATE TABLE T ...;", "keyFormat": "KAFKA", "valueFormat": "JSON", "statistics": "",
         "errorStats": "", "fields": [{"name": "V", "schema": {"type": "STRING"}}],
         "sourceConstraints": ["T2", "T3"],
         "readQueries": [{"id": "CTAS_T2_3", "state": "PAUSED", "queryString": "CREATE TABLE T2 AS ..."},
                         {"id": "CTAS_T3_4", "queryString": "CREATE TABLE T3 AS ..."}]}
    lines = R.entity_lines({"@type": "sourceDescription", "sourceDescription": d})
    assert "Kafka topic          : t" in lines
    i = lines.index("Sources that have a DROP constraint on this source")
    assert lines[i - 1:i + 4] == ["", "Sources that have a DROP constraint on this source", "-" * 50, "T2", "T3"]
    i = lines.index("Queries that read from this TABLE")
    assert lines[i + 1:i + 4] == ["-" * 35, "CTAS_T2_3 (PAUSED) : CREATE TABLE T2 AS ...",
                                  "CTAS_T3_4 (N/A) : CREATE TABLE T3 AS ..."]
    d.update(partitions=3, replication=1)
    lines = R.entity_lines({"@type": "sourceDescription", "sourceDescription": d})
    assert "Kafka topic          : t (partitions: 3, replication: 1)" in lines


def test_explain_as_the_console_prints_it() -> None:
    """ksqlDB's Console.printQueryDescription: host status map, sources/sinks under 35 dashes, overridden
    properties table, errors with date, details and type."""
    d = {"id": "CSAS_S2_1", "queryType": "PERSISTENT", "statementText": "CREATE STREAM S2 AS SELECT * FROM S;",
         "ksqlHostQueryStatus": {"h:8088": "ERROR"}, "fields": [{"name": "V", "schema": {"type": "INTEGER"}}],
         "sources": ["S"], "sinks": ["S2"], "executionPlan": "", "topology": "",
         "overriddenProperties": {"auto.offset.reset": "earliest", "ksql.x": 5},
         "queryErrors": [{"timestamp": 0, "errorMessage": "boom", "type": "USER"}]}
    lines = R.entity_lines({"@type": "queryDescription", "queryDescription": d})
    assert lines[:5] == ["ID                   : CSAS_S2_1", "Query Type           : PERSISTENT",
                         "SQL                  : CREATE STREAM S2 AS SELECT * FROM S;",
                         "Host Query Status    : {h:8088=ERROR}", ""]
    i = lines.index("Sources that this query reads from: ")
    assert lines[i + 1:i + 3] == ["-" * 35, "S"]
    i = lines.index("Overridden Properties")
    assert [c.strip() for c in lines[i + 5].split("|")] == ["ksql.x", "5"]
    assert "Error Details        : boom" in lines and "Error Type           : USER" in lines
    assert any(x.startswith("Error Date           : 1970-01-01 ") or x.startswith("Error Date           : 1969-12-31 ")
               for x in lines)


def test_explain_marks_a_windowed_key_with_its_window_type() -> None:
    """ksqlDB's Console.printQueryDescription prints the schema with the query's windowType (a windowed
    CTAS/CSAS sink): the key '(key)' - not '(primary key)', a query is no table - then the window type;
    an unwindowed query's key just '(key)'."""
    fields = [{"name": "ID", "schema": {"type": "INTEGER"}, "type": "KEY"}, {"name": "C", "schema": {"type": "BIGINT"}}]
    for window in ("TUMBLING", "HOPPING", "SESSION"):
        d = {"id": "CTAS_T_1", "queryType": "PERSISTENT", "statementText": "CREATE TABLE T AS ...;",
             "windowType": window, "fields": fields, "sources": ["S"], "sinks": ["T"]}
        lines = R.entity_lines({"@type": "queryDescription", "queryDescription": d})
        assert f" ID    | INTEGER          (key) (Window type: {window})" in lines
        assert " C     | BIGINT" in [x.rstrip() for x in lines]
    d = {"id": "CSAS_S2_1", "queryType": "PERSISTENT", "statementText": "CREATE STREAM S2 AS ...;",
         "windowType": None, "fields": fields, "sources": ["S"], "sinks": ["S2"]}
    lines = [x.rstrip() for x in R.entity_lines({"@type": "queryDescription", "queryDescription": d})]
    assert " ID    | INTEGER          (key)" in lines


def test_topics_replica_info() -> None:
    """ksqlDB's KafkaTopicsListTableBuilder: one replica count when every partition has it, else the list."""
    e = {"@type": "kafka_topics", "topics": [{"name": "a", "replicaInfo": [1, 1, 1]},
                                             {"name": "b", "replicaInfo": [2, 1]}]}
    rows = [[c.strip() for c in x.split("|")] for x in R.entity_lines(e)[2:4]]
    assert rows == [["a", "3", "1"], ["b", "2", "2, 1"]]


def test_show_functions_grouped_by_category() -> None:
    """ksqlDB's FunctionNameListTableBuilder: sorted by category then name, a blank row between categories;
    without categories (an older server) by name with the type."""
    e = {"@type": "function_names", "functions": [
        {"name": "UCASE", "type": "SCALAR", "category": "STRING"},
        {"name": "ABS", "type": "SCALAR", "category": "MATHEMATICAL"},
        {"name": "CONCAT", "type": "SCALAR", "category": "STRING"},
        {"name": "ROUND", "type": "SCALAR", "category": "MATHEMATICAL"}]}
    rows = [[c.strip() for c in x.split("|")] for x in R.entity_lines(e)[2:7]]
    assert rows == [["ABS", "MATHEMATICAL"], ["ROUND", "MATHEMATICAL"], ["", ""], ["CONCAT", "STRING"],
                    ["UCASE", "STRING"]]
    old = {"@type": "function_names", "functions": [{"name": "TOPK", "type": "aggregate", "category": ""},
                                                    {"name": "ABS", "type": "scalar", "category": ""}]}
    assert [[c.strip() for c in x.split("|")] for x in R.entity_lines(old)[2:4]] == [["ABS", "SCALAR"],
                                                                                    ["TOPK", "AGGREGATE"]]
