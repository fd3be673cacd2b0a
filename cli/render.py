"""Turning REST entities and query rows into text: ksqlDB CLI's tables, or JSON.

Pure functions from data to lines, so they are testable without a terminal; the session decides
where the lines go. Layouts follow the ksqlDB CLI (reference §2) so its users feel at home.
"""

from __future__ import annotations

import decimal
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from ksqlpy.cli import jackson_pretty

TABULAR, JSON = "TABULAR", "JSON"


# ---------------------------------------------------------------------- values


def cell(value: Any) -> str:
    """One value as the ksql CLI prints it in a table: the Java text of the value its JSON parser made -
    strings bare, NULL as ``null``, a STRUCT or MAP as ``{A=1, B=x}`` (fields in order), an ARRAY as
    ``[1, 2]``, nested alike (``{A={B=[1, null]}}``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, float):
        return _java_double(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{cell(k)}={cell(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(cell(v) for v in value) + "]"
    if isinstance(value, bytes | bytearray):
        return _json_default(value)  # type: ignore[no-any-return]
    return str(value)


def _java_double(v: float) -> str:
    """Doubles as Java prints them: ``1.0``, ``1.0E20``; Python's repr is close enough elsewhere."""
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    if v != 0 and (abs(v) >= 1e7 or abs(v) < 1e-3):
        sign, digits, exponent = decimal.Decimal(repr(v)).normalize().as_tuple()
        text = "".join(map(str, digits))
        sci = len(text) - 1 + int(exponent)
        return f"{'-' if sign else ''}{text[0]}.{text[1:] or '0'}E{sci}"
    return repr(v)


def _json_default(o: Any) -> Any:
    if isinstance(o, decimal.Decimal):
        return float(o)
    if isinstance(o, (bytes, bytearray)):
        import base64

        return base64.b64encode(bytes(o)).decode("ascii")
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    return str(o)


def to_json(value: Any, pretty: bool = False) -> str:
    if pretty:
        return json.dumps(value, indent=2, default=_json_default, ensure_ascii=False)
    return json.dumps(value, separators=(",", ":"), default=_json_default, ensure_ascii=False)


# ---------------------------------------------------------------------- plain tables


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    """ksqlDB's metadata table: `` A | B `` header, a dashed rule, rows, a closing rule."""
    body = [[cell(v) if not isinstance(v, str) else v for v in r] for r in rows]
    widths = [len(h) for h in headers]
    for r in body:
        for i, v in enumerate(r):
            widths[i] = max(widths[i], *(len(x) for x in v.split("\n")))
    def line(values: Sequence[str]) -> str:
        return "|".join(f" {v.ljust(w)} " for v, w in zip(values, widths, strict=False)).rstrip()
    total = sum(widths) + 3 * len(widths) - 1
    rule = "-" * total
    out = [line(headers), rule]
    for r in body:
        out.append(line(r))
    out.append(rule)
    return out


def labelled(label: str, value: Any) -> str:
    """``Name                 : X`` - labels padded to 20 characters, as DESCRIBE prints them."""
    return f"{label:<20} : {'' if value is None else value}".rstrip()


# ---------------------------------------------------------------------- query tables


def _chunks(text: str, width: int) -> list[str]:
    """A cell's lines: cut every ``width`` characters (values are data, not prose: no word breaks)."""
    if len(text) <= width:
        return [text]
    return [text[i:i + width] for i in range(0, len(text), width)]


def _clip(text: str, width: int) -> list[str]:
    """A cell on one line: cut to ``width``, ending in ``...`` when something was left out."""
    if len(text) <= width:
        return [text]
    return [text[:max(0, width - 3)] + "..."[:width]]


def _shrink_to_fit(widths: list[int], available: int, floor: int = 8) -> list[int]:
    """Narrow the widest columns first until the row fits (narrow columns keep their width)."""
    widths = list(widths)
    while sum(widths) > available:
        widest = max(range(len(widths)), key=lambda i: widths[i])
        if widths[widest] <= floor:
            break
        widths[widest] -= 1
    return widths


class QueryTable:
    """Draws a streaming query as ksqlDB does: a boxed header, then one boxed line per row as it
    arrives. Column widths are fixed up front (rows are not known yet): the terminal width shared
    between the columns, or fitted to ``sample`` rows when the result is already complete."""

    def __init__(self, names: Sequence[str], term_width: int, sample: Sequence[Sequence[Any]] | None = None,
                 column_width: int = 0, wrap: bool = True) -> None:
        """``column_width``: every column that wide (the shell's ``set cli COLUMN-WIDTH``; 0 = fitted);
        ``wrap``: a longer value goes on over more lines, else it is clipped, ending in ``...``."""
        self.wrap = wrap
        self.names = list(names)
        n = max(1, len(self.names))
        share = max(5, (term_width - n - 1) // n)
        if column_width:
            self.widths = [max(5, column_width)] * n
        elif sample is not None:
            fitted = [max([len(x)] + [len(cell(r[i])) for r in sample if i < len(r)])
                      for i, x in enumerate(self.names)]
            self.widths = _shrink_to_fit(fitted, term_width - n - 1)
        else:
            self.widths = [max(share if n > 1 else min(share, 40), 5) for _ in self.names]
            self.widths = [max(w, min(len(x), share)) for w, x in zip(self.widths, self.names, strict=False)]

    def rule(self) -> str:
        return "+" + "+".join("-" * w for w in self.widths) + "+"

    def _lines(self, values: Sequence[str]) -> list[str]:
        cut = _chunks if self.wrap else _clip
        wrapped = [cut(v.replace("\n", " "), w) for v, w in zip(values, self.widths, strict=False)]
        height = max(len(c) for c in wrapped)
        return ["|" + "|".join((c[i] if i < len(c) else "").ljust(w)
                               for c, w in zip(wrapped, self.widths, strict=False)) + "|"
                for i in range(height)]

    def header(self) -> list[str]:
        return [self.rule(), *self._lines(self.names), self.rule()]

    def row(self, values: Sequence[Any]) -> list[str]:
        return self._lines([cell(v) for v in values])


# ---------------------------------------------------------------------- entities


def _schema_text(schema: dict[str, Any] | None) -> str:
    """A FieldInfo schema as DESCRIBE shows it (``VARCHAR(STRING)``, ``ARRAY<INTEGER>``...)."""
    if not schema:
        return ""
    t = schema.get("type", "")
    if t == "STRING":
        return "VARCHAR(STRING)"
    if t == "ARRAY":
        return f"ARRAY<{_schema_text(schema.get('memberSchema'))}>"
    if t == "MAP":
        return f"MAP<STRING, {_schema_text(schema.get('memberSchema'))}>"
    if t == "STRUCT":
        inner = ", ".join(f"{f.get('name')} {_schema_text(f.get('schema'))}" for f in schema.get("fields") or [])
        return f"STRUCT<{inner}>"
    if t == "DECIMAL":
        p = schema.get("parameters") or {}
        return f"DECIMAL({p.get('precision')}, {p.get('scale')})"
    return str(t)


def _fields_table(fields: list[dict[str, Any]], kind: str = "STREAM", window: str | None = None) -> list[str]:
    rows = []
    for f in fields:
        t = _schema_text(f.get("schema"))
        ftype = f.get("type")
        if ftype == "KEY":
            t = f"{t:<16} (primary key)" if kind == "TABLE" else f"{t:<16} (key)"
            if window:
                t += f" (Window type: {window})"
        elif ftype == "HEADER":
            hk = f.get("headerKey")
            t = f"{t:<16} " + (f"(header('{hk}'))" if hk is not None else "(headers)")
        rows.append((f.get("name", ""), t))
    return table(["Field", "Type"], rows)


def _queries_block(title: str, queries: list[dict[str, Any]]) -> list[str]:
    # ksqlDB's Console.printQueries: the title over a fixed rule of 35 dashes, each query as
    # "ID (STATE) : statement" (N/A when the entity has no state)
    out = ["", title, "-" * 35]
    for q in queries:
        out.append(f"{q.get('id')} ({q.get('state') or 'N/A'}) : {q.get('queryString', '')}")
    out.append("")
    out.append("For query topology and execution plan please run: EXPLAIN <QueryId>")
    return out


def _topic_info(d: dict[str, Any]) -> list[str]:
    """ksqlDB's Console.printTopicInfo: the Kafka topic line only for a source with a topic, its partitions
    and replication only when the server knows them (partitions not 0)."""
    out = [labelled("Timestamp field", d.get("timestamp") or "Not set - using <ROWTIME>"),
           labelled("Key format", d.get("keyFormat")), labelled("Value format", d.get("valueFormat"))]
    if d.get("topic"):
        topic = labelled("Kafka topic", d.get("topic"))
        if d.get("partitions"):
            topic += f" (partitions: {d.get('partitions')}, replication: {d.get('replication')})"
        out.append(topic)
    return out


def source_description(d: dict[str, Any]) -> list[str]:
    kind = d.get("type", "STREAM")
    out = [labelled("Name", d.get("name"))]
    if d.get("extended"):
        out += [labelled("Type", kind), *_topic_info(d), labelled("Statement", d.get("statement", ""))]
        out.append("")
    out += _fields_table(d.get("fields") or [], kind, d.get("windowType"))
    if d.get("extended"):
        constraints = d.get("sourceConstraints") or []
        if constraints:  # ksqlDB's Console.printSourceConstraints
            out += ["", "Sources that have a DROP constraint on this source", "-" * 50, *map(str, constraints)]
        if d.get("readQueries"):
            out += _queries_block(f"Queries that read from this {kind}", d["readQueries"])
        if d.get("writeQueries"):
            out += _queries_block(f"Queries that write from this {kind}", d["writeQueries"])
        # ksqlDB's Console prints the block for every extended description: the statistics line and the
        # error statistics line as the server wrote them (empty lines when no query uses the source)
        out += ["", "Local runtime statistics", "------------------------",
                str(d.get("statistics") or ""), str(d.get("errorStats") or ""),
                f"(Statistics of the local KSQL server interaction with the Kafka topic {d.get('topic')})"]
        out += _offset_summaries(d.get("queryOffsetSummaries") or [])
    else:
        out.append("For runtime statistics and query details run: DESCRIBE <Stream,Table> EXTENDED;")
    return out


def _grid(headers: list[str], rows: list[list[Any]]) -> list[str]:
    widths = [max([len(h)] + [len(str(r[i])) for r in rows]) for i, h in enumerate(headers)]
    line = "-" * (sum(widths) + 3 * len(widths) - 1)
    fmt = " | ".join(f"{{:<{w}}}" for w in widths)
    return [" " + fmt.format(*headers), line, *(" " + fmt.format(*map(str, r)) for r in rows), line]


def _offset_summaries(summaries: list[dict[str, Any]]) -> list[str]:
    """ksqlDB's "Consumer Groups summary" of DESCRIBE EXTENDED: per group and topic, offsets and lag."""
    if not summaries:
        return []
    out = ["", "Consumer Groups summary:"]
    for entry in summaries:
        out += ["", f"{'Consumer Group':<20} : {entry.get('groupId')}"]
        topics = entry.get("topicSummaries") or []
        if not topics:
            out.append("<no offsets committed by this group yet>")
        for t in topics:
            offsets = t.get("offsets") or []
            lag = max((o["logEndOffset"] - o["consumerOffset"] for o in offsets), default=0)
            out += ["", f"{'Kafka topic':<20} : {t.get('kafkaTopic')}", f"{'Max lag':<20} : {lag}", ""]
            out += _grid(["Partition", "Start Offset", "End Offset", "Offset", "Lag"],
                         [[o["partition"], o["logStartOffset"], o["logEndOffset"], o["consumerOffset"],
                           o["logEndOffset"] - o["consumerOffset"]] for o in offsets])
    return out


def _tasks(tasks: list[dict[str, Any]]) -> list[str]:
    """Per task: its state, its input partitions with the committed offset, end offset and lag."""
    if not tasks:
        return []
    rows = []
    for t in tasks:
        for o in t.get("topicOffsets") or []:
            tp = o.get("topicPartition") or {}
            rows.append([t.get("taskId"), t.get("taskState", ""), f"{tp.get('topic')}-{tp.get('partition')}",
                         o.get("offset"), o.get("endOffset", ""), o.get("lag", "")])
    return ["", "Tasks", "-----", *_grid(["Task", "State", "Input", "Offset", "End Offset", "Lag"], rows)]


def _error_date(ms: Any) -> str:
    """A query error's time as ksqlDB's Console prints it: ``yyyy-MM-dd HH:mm:ss,SSS (zone)``, local time."""
    import datetime

    if not isinstance(ms, int | float) or isinstance(ms, bool):
        return ""
    t = datetime.datetime.fromtimestamp(ms / 1000).astimezone()
    return f"{t:%Y-%m-%d %H:%M:%S},{t.microsecond // 1000:03d} ({t.tzname()})"


def query_description(d: dict[str, Any]) -> list[str]:
    """EXPLAIN / SHOW QUERIES EXTENDED as ksqlDB's Console.printQueryDescription: ID, type, SQL (when there
    is one) and the host status map as Java prints it (``{host:port=RUNNING}``), then the schema, the sources
    and sinks, the plan, the topology, the overridden properties and the errors."""
    out = [labelled("ID", d.get("id")), labelled("Query Type", d.get("queryType", ""))]
    sql = d.get("statementText") or d.get("queryString") or ""
    if sql:
        out.append(labelled("SQL", sql))
    hosts = d.get("ksqlHostQueryStatus") or {}
    if hosts:
        out.append(labelled("Host Query Status", "{" + ", ".join(f"{h}={s}" for h, s in hosts.items()) + "}"))
    elif d.get("state"):  # the embedded engine has no hosts: its query's state
        out.append(labelled("Status", d.get("state")))
    out.append("")
    if d.get("fields"):  # printSchema(query.getWindowType(), fields, false): a key is '(key)', windowed or not
        out += _fields_table(d["fields"], window=d.get("windowType"))
    for title, key, hint in (("Sources that this query reads from: ", "sources",
                              "For source description please run: DESCRIBE [EXTENDED] <SourceId>"),
                             ("Sinks that this query writes to: ", "sinks",
                              "For sink description please run: DESCRIBE [EXTENDED] <SinkId>")):
        if d.get(key):
            out += ["", title, "-" * 35, *d[key], "", hint]
    if d.get("executionPlan"):
        out += ["", "Execution plan", "--------------", *str(d["executionPlan"]).rstrip("\n").split("\n")]
    if d.get("topology"):
        out += ["", "Processing topology", "-------------------", *str(d["topology"]).rstrip("\n").split("\n")]
    overridden = d.get("overriddenProperties") or {}
    if overridden:
        out += ["", "Overridden Properties", "---------------------"]
        out += table(["Property", "Value"], [(k, _java_text(v)) for k, v in sorted(overridden.items())])
    out += _tasks(d.get("tasksMetadata") or [])
    errors = d.get("queryErrors") or []
    if errors:
        out.append("")
        for e in errors:
            if not isinstance(e, dict):
                e = {"errorMessage": e}
            out += [labelled("Error Date", _error_date(e.get("timestamp"))),
                    labelled("Error Details", e.get("errorMessage", "")), labelled("Error Type", e.get("type", ""))]
    return out


def _java_text(v: Any) -> str:
    """Objects.toString of a JSON value: null, true/false, numbers and strings as Java prints them."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return cell(v)


def _function_rows(functions: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """ksqlDB's FunctionNameListTableBuilder: by category then name, a blank row between two categories; a
    listing without categories (an older server) by name with each function's type."""
    if not functions or not functions[0].get("category"):
        return [(str(f.get("name", "")), str(f.get("type", "")).upper())
                for f in sorted(functions, key=lambda f: str(f.get("name", "")))]
    rows: list[tuple[str, str]] = []
    previous = None
    for f in sorted(functions, key=lambda f: (str(f.get("category") or ""), str(f.get("name", "")))):
        category = str(f.get("category") or "")
        if previous is not None and category != previous:
            rows.append((" ", " "))
        rows.append((str(f.get("name", "")), category))
        previous = category
    return rows


def _argument_text(a: dict[str, Any]) -> str:
    """One argument of a DESCRIBE FUNCTION variation as ksqlDB's Console.argToString writes it: ``name TYPE``,
    ``TYPE[]`` for the variadic one (the server sends its element type with ``isVariadic``)."""
    type_text = f"{a.get('type') or ''}{'[]' if a.get('isVariadic') else ''}"
    return f"{a.get('name') or ''} {type_text}".strip()


def _describe_function(e: dict[str, Any]) -> list[str]:
    # ksqlDB's Console.printFunctionDescription: labels padded to 12; Author, Version and Overview only when
    # they say something (a built-in has no version)
    def line(label: str, value: Any) -> str:
        return f"{label:<12}: {'' if value is None else value}"

    out = [line("Name", str(e.get("name") or "").upper())]
    for label, key in (("Author", "author"), ("Version", "version"), ("Overview", "description")):
        if str(e.get(key) or "").strip():
            out.append(line(label, str(e[key]).strip()))
    out += [line("Type", e.get("type", "")), line("Jar", e.get("path", "")), line("Variations", "")]
    for v in e.get("functions") or []:
        args = ", ".join(_argument_text(a) for a in v.get("arguments") or [])
        description = str(v.get("description") or "")
        returns = v.get("returnType") or ""
        variation = f"{e.get('name')}({args})" if args or returns else ""
        m = re.fullmatch(r"(\w+\(.*\))\s*->\s*(.+)", description)
        if not variation and m:  # a signature given as its description: "ABS(INTEGER) -> INTEGER"
            variation, returns, description = m.group(1), m.group(2), ""
        out.append("")
        if variation:
            out.append(f"\t{'Variation':<12}: {variation}")
            out.append(f"\t{'Returns':<12}: {returns}")
        if description:
            out.append(f"\t{'Description':<12}: {description}")
        for a in v.get("arguments") or []:  # ksqlDB's Console: each argument that has a description
            if str(a.get("description") or "").strip():
                out.append(f"\t{a.get('name', ''):<12}: {str(a['description']).strip()}")
    return out


def _properties(e: dict[str, Any], session: dict[str, Any]) -> list[str]:
    """SHOW PROPERTIES as the ksql CLI prints it: ``Default override`` is SESSION for what this session (or
    request) overrides, blank for what is at its built-in default, SERVER for what the server's
    configuration set."""
    from ksqlpy.engine.config import canonical

    overwritten = {canonical(n) for n in e.get("overwrittenProperties") or []} | {canonical(n) for n in session}
    defaults = {canonical(n) for n in e.get("defaultProperties") or []}
    rows = []
    for p in e.get("properties") or []:
        name = canonical(p.get("name", ""))
        override = "SESSION" if name in overwritten else "" if name in defaults else "SERVER"
        rows.append((p.get("name", ""), p.get("scope", ""), override, str(p.get("value", ""))))
    return table(["Property", "Scope", "Default override", "Effective Value"], rows)


def entity_lines(e: dict[str, Any], session_properties: dict[str, Any] | None = None) -> list[str]:
    """The TABULAR rendering of one REST entity (warnings are handled by the caller)."""
    t = e.get("@type")
    if t == "currentStatus":
        msg = str((e.get("commandStatus") or {}).get("message", "")).split("\n")[0]
        return table(["Message"], [(msg,)])
    if t == "cli_message":
        return [e["message"]] if e.get("message") else []
    if t in ("streams", "tables"):
        items = e.get(t) or []
        label = "Stream Name" if t == "streams" else "Table Name"
        return table([label, "Kafka Topic", "Key Format", "Value Format", "Windowed"],
                     [(s.get("name"), s.get("topic"), s.get("keyFormat", s.get("format", "")),
                       s.get("valueFormat", s.get("format", "")), s.get("isWindowed", False)) for s in items])
    if t == "queries":
        rows = []
        for q in e.get("queries") or []:
            # ksqlDB's QueriesTableBuilder prints the status count (STATE:hosts, as its docs show RUNNING:1);
            # an entity without one falls back to its state
            counts = [f"{k}:{v}" for k, v in (q.get("statusCount") or {}).items() if v]
            status = ",".join(counts) or q.get("state") or ""
            rows.append((q.get("id"), q.get("queryType", ""), status, ",".join(q.get("sinks") or []),
                         ",".join(q.get("sinkKafkaTopics") or []), " ".join(str(q.get("queryString", "")).split())))
        return table(["Query ID", "Query Type", "Status", "Sink Name", "Sink Kafka Topic", "Query String"], rows) + [
            "For detailed information on a Query run: EXPLAIN <Query ID>;"]
    if t == "properties":
        return _properties(e, session_properties or {})
    if t in ("kafka_topics", "kafka_topics_extended"):
        rows = []
        for tp in e.get("topics") or []:
            replicas = tp.get("replicaInfo") or []
            row = [tp.get("name"), len(replicas), _replica_info(replicas)]
            if t == "kafka_topics_extended":
                row += [tp.get("consumerCount", 0), tp.get("consumerGroupCount", 0)]
            rows.append(row)
        headers = ["Kafka Topic", "Partitions", "Partition Replicas"]
        if t == "kafka_topics_extended":
            headers += ["Consumers", "ConsumerGroups"]
        return table(headers, rows)
    if t == "function_names":
        return table(["Function Name", "Category"], _function_rows(e.get("functions") or [])) + [
            "For detailed information about a function, run: DESCRIBE FUNCTION <Function Name>;"]
    if t == "describe_function":
        return _describe_function(e)
    if t == "sourceDescription":
        return source_description(e.get("sourceDescription") or {})
    if t == "source_descriptions":
        out: list[str] = []
        for d in e.get("sourceDescriptions") or []:
            out += ([""] if out else []) + source_description(d)
        return out
    if t == "queryDescription":
        return query_description(e.get("queryDescription") or {})
    if t == "query_descriptions":
        out = []
        for d in e.get("queryDescriptions") or []:
            out += ([""] if out else []) + query_description(d)
        return out
    if t == "variables":
        rows = [(v.get("name"), v.get("value")) for v in e.get("variables") or []]
        return table(["Variable Name", "Value"], rows)
    if t == "type_list":
        types = e.get("types") or {}
        rows = [(n, v if isinstance(v, str) else _schema_text(v)) for n, v in sorted(types.items())]
        return table(["Type Name", "Schema"], rows)
    if t == "terminate_query":
        return [f'Terminated query "{e.get("queryId")}"']
    if t == "assert_topic":
        return [f"Topic {e.get('topicName')}{' exists' if e.get('exists') else ' does not exist'}."]
    if t == "assert_schema":
        subject = f" subject {e['subject']}" if e.get("subject") is not None else ""
        schema_id = f" id {e['id']}" if e.get("id") is not None else ""
        return [f"Schema with{subject}{schema_id}{' exists' if e.get('exists') else ' does not exist'}."]
    if t == "warning_entity":
        return []  # shown as a warning by the caller
    if t in _CONNECTOR_ENTITIES:
        return _connector_lines(e)
    return to_json(e, pretty=True).split("\n")


_CONNECTOR_ENTITIES = ("connector_info", "drop_connector", "connector_list", "connector_plugins_list",
                       "connector_description")


def _replica_info(replicas: list[Any]) -> str:
    """ksqlDB's KafkaTopicsListTableBuilder: the replica count once when every partition has the same, else
    the counts joined by ", "; no partitions is 0."""
    if not replicas:
        return "0"
    if len(set(replicas)) == 1:
        return str(replicas[0])
    return ", ".join(str(r) for r in replicas)


def _connector_lines(e: dict[str, Any]) -> list[str]:
    """The connector entities as the ksql CLI prints them (its connector table builders)."""
    t = e.get("@type")
    if t == "connector_info":
        return table(["Message"], [(f"Created connector {(e.get('info') or {}).get('name')}",)])
    if t == "drop_connector":
        return table(["Message"], [(f'Dropped connector "{e.get("connectorName")}"',)])
    if t == "connector_list":
        # ksqlDB's ConnectorListTableBuilder: no type is UNKNOWN, no class or state an empty cell
        return table(["Connector Name", "Type", "Class", "Status"],
                     [(c.get("name"), str(c.get("type") or "unknown").upper(), c.get("className") or "",
                       c.get("state") or "") for c in e.get("connectors") or []])
    if t == "connector_plugins_list":
        return table(["Class", "Type", "Version"],
                     [(c.get("className"), str(c.get("type") or "").upper(), c.get("version"))
                      for c in e.get("connectorsPlugins") or []])
    status = e.get("status") or {}
    connector = status.get("connector") or {}
    # ksqlDB's Console.printConnectorDescription: the connector's trace when it has one, then (each when
    # not empty) the tasks, the ksql sources over its topics and its topics
    out = [labelled("Name", status.get("name", "")), labelled("Class", e.get("connectorClass", "")),
           labelled("Type", str(status.get("type", "")).lower()), labelled("State", connector.get("state", "")),
           labelled("WorkerId", connector.get("worker_id", ""))]
    if connector.get("trace"):
        out.append(labelled("Trace", connector["trace"]))
    tasks = status.get("tasks") or []
    if tasks:
        out += [""] + table(["Task ID", "State", "Error Trace"],
                            [(task.get("id"), task.get("state"), task.get("trace") or "") for task in tasks])
    sources = e.get("sources") or []
    if sources:
        out += [""] + table(["KSQL Source Name", "Kafka Topic", "Type"],
                            [(s.get("name"), s.get("topic"), s.get("type")) for s in sources])
    if e.get("topics"):
        out += [""] + table(["Related Topics"], [(t,) for t in e["topics"]])
    return out


def entity_warnings(e: dict[str, Any]) -> list[str]:
    out = [str(w.get("message", w)) if isinstance(w, dict) else str(w) for w in e.get("warnings") or []]
    if e.get("@type") == "warning_entity" and e.get("message"):
        out.append(str(e["message"]))
    return out


def entities_json(entities: list[dict[str, Any]]) -> str:
    """An answer's entities as ksqlDB's Console prints them with OUTPUT JSON (Jackson's pretty printer)."""
    return jackson_pretty.pretty(entities)


def query_header_json(query_id: str, names: list[str], types: list[str], schema: str | None = None) -> str:
    """A query's header StreamedRow (``{"header":{"queryId":..,"schema":..}}``) as the Console prints it; the
    schema is the server's text when there is one, else the columns back-quoted as ksqlDB writes them."""
    text = schema if schema is not None else ", ".join(f"`{n}` {t}" for n, t in zip(names, types, strict=False))
    return jackson_pretty.pretty({"header": {"queryId": query_id, "schema": text}})


def row_json(values: list[Any], tombstone: bool = False) -> str:
    """A row StreamedRow (``{"row":{"columns":[..]}}``, a table's delete flagged ``"tombstone" : true``)."""
    row: dict[str, Any] = {"columns": values}
    if tombstone:
        row["tombstone"] = True
    return jackson_pretty.pretty({"row": row})


def final_message_json(message: str) -> str:
    return jackson_pretty.pretty({"finalMessage": message})
