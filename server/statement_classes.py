"""ksqlDB's Java class of each statement (``io.confluent.ksql.parser.tree``): endpoints that refuse a
kind of statement name its class in their message, so the name is a property of the statement kind."""

from __future__ import annotations

from ksqlpy.grammar import ast as A

TREE = "io.confluent.ksql.parser.tree."

_SHOW = {"STREAMS": "ListStreams", "TABLES": "ListTables", "TOPICS": "ListTopics", "ALL_TOPICS": "ListTopics",
         "QUERIES": "ListQueries", "PROPERTIES": "ListProperties", "FUNCTIONS": "ListFunctions",
         "TYPES": "ListTypes", "VARIABLES": "ListVariables", "CONNECTORS": "ListConnectors",
         "SOURCE_CONNECTORS": "ListConnectors", "SINK_CONNECTORS": "ListConnectors",
         "CONNECTOR_PLUGINS": "ListConnectorPlugins"}
_DESCRIBE = {"SOURCE": "ShowColumns", "STREAMS": "DescribeStreams", "TABLES": "DescribeTables",
             "FUNCTION": "DescribeFunction", "CONNECTOR": "DescribeConnector"}
_BY_TYPE: dict[type[A.Statement], str] = {
    A.SelectStatement: "Query", A.InsertInto: "InsertInto", A.InsertValues: "InsertValues",
    A.Explain: "Explain", A.AlterSystem: "AlterSystemProperty", A.Terminate: "TerminateQuery",
    A.CreateType: "RegisterType", A.DropType: "DropType", A.AlterSource: "AlterSource",
    A.SetProperty: "SetProperty", A.UnsetProperty: "UnsetProperty", A.DefineVariable: "DefineVariable",
    A.UndefineVariable: "UndefineVariable", A.PrintTopic: "PrintTopic", A.AssertTopic: "AssertTopic",
    A.AssertSchema: "AssertSchema", A.CreateConnector: "CreateConnector", A.DropConnector: "DropConnector",
}


def java_class(stmt: A.Statement) -> str:
    """The fully qualified name of ksqlDB's class for ``stmt`` (ksqlpy's own statements: their name)."""
    if isinstance(stmt, A.Show):
        name = _SHOW.get(stmt.what, "ListStreams")
    elif isinstance(stmt, A.Describe):
        name = _DESCRIBE.get(stmt.what, "ShowColumns")
    elif isinstance(stmt, A.CreateSource):
        name = "CreateStream" if stmt.kind == "STREAM" else "CreateTable"
    elif isinstance(stmt, A.CreateAsSelect):
        name = "CreateStreamAsSelect" if stmt.kind == "STREAM" else "CreateTableAsSelect"
    elif isinstance(stmt, A.Drop):
        name = "DropStream" if stmt.kind == "STREAM" else "DropTable"
    elif isinstance(stmt, A.PauseResume):
        name = "PauseQuery" if stmt.action == "PAUSE" else "ResumeQuery"
    else:
        name = _BY_TYPE.get(type(stmt), type(stmt).__name__)
    return TREE + name
