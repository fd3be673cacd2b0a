"""SHOW, DESCRIBE and EXPLAIN: what the engine knows, listed in the entity shapes the front doors render."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ksqlpy.engine import connectors
from ksqlpy.engine.describe import describe_source, source_summary
from ksqlpy.engine.results import StatementResult
from ksqlpy.engine.session_statements import properties_listing
from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar import ast as A

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine



def show(engine: Engine, stmt: A.Show) -> StatementResult:
    what = stmt.what.upper()
    if what in ("STREAMS", "TABLES") and stmt.extended:
        # ksqlDB's ListSourceExecutor: SHOW STREAMS/TABLES EXTENDED describes each source, as DESCRIBE
        # STREAMS/TABLES EXTENDED does
        return describe(engine, A.Describe(name=None, extended=True, what=what, text=stmt.text))
    if what in ("STREAMS", "TABLES"):
        kind = what[:-1]
        items = [source_summary(engine, s) for s in engine.catalog.sources() if s.kind == kind]
        return StatementResult(what.lower(), stmt.text, data=sorted(items, key=lambda d: d["name"]))
    if what in ("TOPICS", "ALL_TOPICS", "ALLTOPICS"):
        from ksqlpy.engine.describe import list_topics

        topics = list_topics(engine, show_all=what != "TOPICS", extended=stmt.extended)
        return StatementResult("kafka_topics_extended" if stmt.extended else "kafka_topics", stmt.text, data=topics)
    if what == "QUERIES" and stmt.extended:
        from ksqlpy.engine.describe import push_query_details, query_details

        # every live query, as SHOW QUERIES lists them: the persistent ones, then the push queries
        return StatementResult("query_descriptions", stmt.text,
                               data=[query_details(engine, q) for q in engine.queries.values()]
                               + [push_query_details(engine, t) for t in list(engine.transient.values())])
    if what == "QUERIES":
        qs = [{"queryString": q.statement_text, "sinks": [q.sink_name], "sinkKafkaTopics": [q.sink.topic], "id": q.query_id,
               "queryType": "PERSISTENT", "state": q.state, "statusCount": {q.state: 1}}
              for q in engine.queries.values()]
        qs += [{"queryString": t.plan.sql, "sinks": [], "sinkKafkaTopics": [], "id": t.query_id,
                "queryType": "PUSH", "state": "RUNNING", "statusCount": {"RUNNING": 1}}
               for t in engine.transient.values()]
        return StatementResult("queries", stmt.text, data=qs)
    if what == "PROPERTIES":
        return StatementResult("properties", stmt.text, data=properties_listing(engine))
    if what == "FUNCTIONS":
        reg = engine.functions
        kinds = (("SCALAR", reg.scalars), ("AGGREGATE", reg.aggregates), ("TABLE", reg.tables))
        fns = [{"name": n, "type": kind, "category": f.category} for kind, fns_ in kinds for n, f in fns_.items()]
        return StatementResult("function_names", stmt.text, data=sorted(fns, key=lambda d: d["name"]))
    if what == "TYPES":
        from ksqlpy.engine.describe import schema_type

        # ksqlDB's TypeList holds each type as a SchemaInfo (the shell writes its toTypeString())
        return StatementResult("type_list", stmt.text,
                               data={n: schema_type(t) for n, t in engine.catalog.types().items()})
    if what == "VARIABLES":
        return StatementResult("variables", stmt.text, data=dict(engine.variables))
    if "CONNECTOR" in what:
        return connectors.list_connectors(engine, stmt)
    raise KsqlStatementError(f"Unsupported: SHOW {stmt.what}")


def describe(engine: Engine, stmt: A.Describe) -> StatementResult:
    if stmt.what == "FUNCTION":
        from ksqlpy.engine.describe import describe_function

        return StatementResult("describe_function", stmt.text, data=describe_function(engine.functions, stmt.name or ""))
    if stmt.what in ("STREAMS", "TABLES"):
        kind = stmt.what[:-1]
        warnings: list[str] = []
        data = [describe_source(engine, s, stmt.extended, warnings) for s in engine.catalog.sources()
                if s.kind == kind]
        return StatementResult("source_descriptions", stmt.text, data=data, warnings=warnings)
    if stmt.what == "CONNECTOR":
        return connectors.describe_connector(engine, stmt)
    src = engine.catalog.source(stmt.name or "")
    if src is None:
        raise KsqlStatementError(f"Could not find STREAM/TABLE '{stmt.name}' in the Metastore")
    warnings = []
    data = describe_source(engine, src, stmt.extended, warnings)
    return StatementResult("sourceDescription", stmt.text, data=data, warnings=warnings)


def explain(engine: Engine, stmt: A.Explain) -> StatementResult:
    from ksqlpy.engine.describe import explain_query

    return StatementResult("queryDescription", stmt.text, data=explain_query(engine, stmt))
