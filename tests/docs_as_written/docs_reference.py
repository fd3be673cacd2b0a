"""The statements and requests of the reference on ksqlDB's REST API, CLI and SQL (shared/reference/
ksqldb-rest-cli-sql.md), extracted when the tests run - never pasted into the project.

Three kinds of example are taken from the page:

* request bodies (fenced JSON with a ``ksql`` or ``sql`` field): sent as written to ``/ksql`` or
  ``/query-stream``;
* answer examples (fenced JSON with ``@type`` and ``statementText``): their statement is sent to ``/ksql``
  and the answer must carry the same ``@type`` (an error envelope's statement must be refused the same way);
* statement synopses (inline code starting with a statement keyword): every form a synopsis allows -
  each ``[optional]`` part present and absent, each ``A|B`` alternative - with its placeholders bound to
  objects a set-up creates, as a reader fills them in. A form whose placeholders we cannot fill (``...``
  inside a query) is counted as not runnable, not run.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path

REFERENCE = Path("/work/shared/reference/ksqldb-rest-cli-sql.md")
KEYWORDS = ("CREATE", "DROP", "SHOW", "LIST", "DESCRIBE", "EXPLAIN", "SELECT", "INSERT", "TERMINATE", "PAUSE",
            "RESUME", "SET", "UNSET", "DEFINE", "UNDEFINE", "PRINT", "ASSERT", "ALTER", "RUN")


@dataclass
class Example:
    kind: str  # request | answer | synopsis
    text: str  # the statement (or request body) as written on the page
    expect_type: str | None = None  # answers: the @type shown
    body: dict | None = None  # requests: the JSON body


def _fenced(md: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"```\w*\n(.*?)```", md, flags=re.DOTALL)]


def _json_objects(block: str) -> list[dict]:
    """The JSON objects a block shows (one per paragraph; shapes with placeholders are skipped)."""
    out = []
    for chunk in re.split(r"\n(?=\{)", block.strip()):
        try:
            value = json.loads(chunk)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def requests(md: str) -> list[Example]:
    out = []
    for block in _fenced(md):
        for obj in _json_objects(block):
            if "ksql" in obj or "sql" in obj:
                out.append(Example("request", obj.get("ksql") or obj.get("sql"), body=obj))
    return out


def answers(md: str) -> list[Example]:
    out = []
    for block in _fenced(md):
        for text in re.findall(r'\{"@type":"(\w+)","statementText":"([^"]+)"', block):
            out.append(Example("answer", text[1], expect_type=text[0]))
        for obj in _json_objects(block):
            if obj.get("@type") == "statement_error" and obj.get("statementText"):
                out.append(Example("answer", obj["statementText"], expect_type="statement_error"))
    return out


def synopsis_spans(md: str) -> list[str]:
    prose = re.sub(r"```.*?```", "", md, flags=re.DOTALL)
    spans = re.findall(r"`([^`\n]+)`", prose)
    return [s for s in spans if re.match(rf"({'|'.join(KEYWORDS)})\b", s) and " " in s]


def _split_alternatives(group: str) -> list[str]:
    """``A|B C``: alternatives of a bracket group. When the first alternatives are single words and the last
    has more, the words after the last alternative's first are shared (``INTERVAL|SAMPLE n``)."""
    depth, parts, cur = 0, [], ""
    for ch in group:
        depth += ch in "[(" and 1 or (ch in "])" and -1 or 0)
        if ch == "|" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    parts = [p.strip() for p in parts]
    if len(parts) > 1 and all(" " not in p for p in parts[:-1]) and " " in parts[-1]:
        head, tail = parts[-1].split(" ", 1)
        if "(" not in head:
            return [f"{p} {tail}" for p in parts[:-1]] + [parts[-1]]
    return parts


def expand(synopsis: str) -> list[str]:
    """Every form a synopsis allows."""
    m = re.search(r"\[([^\[\]]*)\]", synopsis)
    if m:
        inner = _split_alternatives(m.group(1))
        forms = []
        for choice in ["", *inner]:
            forms += expand(synopsis[: m.start()] + choice + synopsis[m.end():])
        return list(dict.fromkeys(" ".join(f.split()) for f in forms))
    # bare alternatives between words: ``SHOW|LIST``, ``STREAMS|TABLES``, ``<query_id>|ALL``
    tokens = synopsis.split(" ")
    choices = [t.split("|") if "|" in t and "'" not in t else [t] for t in tokens]
    return [" ".join(c) for c in itertools.product(*choices)]


@dataclass
class Bound:
    """A synopsis form filled in: what to create first, the statement, and the answer ksqlDB gives."""

    form: str
    setup: list[str]
    sql: str
    ok: bool  # ksqlDB runs it (otherwise it refuses it with a 4xx error envelope)
    status: int = 400  # the refusal's HTTP status
    headers_only: bool = False  # a stream that may stay silent: only its start is checked
    last: bool = False  # touches every query (TERMINATE/PAUSE/RESUME ALL): run after the others
    message: str | None = None  # what the refusal must say


SRC = "REF_SRC"  # a stream with a struct column, records in it; created once by the test's set-up
SRC_TOPIC = "ref_src"
MAT = "REF_MAT"  # a table materialized from it (pull queries)
SETUP = [
    f"CREATE STREAM {SRC} (id INT KEY, v STRING, st STRUCT<a INT, b STRING>) WITH (kafka_topic='{SRC_TOPIC}', "
    "value_format='JSON', partitions=1);",
    f"INSERT INTO {SRC} (id, v, st) VALUES (1, 'one', STRUCT(a := 1, b := 'x'));",
    f"CREATE TABLE {MAT} AS SELECT id, LATEST_BY_OFFSET(v) AS v FROM {SRC} GROUP BY id;",
]


def bind(form: str, n: int) -> Bound | None:
    """``form`` with its placeholders bound to fresh objects (``n`` makes their names unique), or None
    when the form is a fragment a reader could not type as it stands."""
    name = f"REF_{n}"
    topic = f"ref_{n}"
    words = form.rstrip(";").split()
    head = " ".join(words[:2]).upper()
    with_clause = f"WITH (kafka_topic='{topic}', value_format='JSON', partitions=1)"
    columns = {"(col type , ...)": "(id INT, v STRING)", "(col type KEY, ...)": "(id INT KEY, v STRING)",
               "(col type PRIMARY KEY, ...)": "(id INT PRIMARY KEY, v STRING)",
               "(col type HEADERS, ...)": "(h ARRAY<STRUCT<key STRING, value BYTES>> HEADERS, v STRING)",
               "(col type HEADER('k'), ...)": "(h BYTES HEADER('k'), v STRING)"}
    sql = form.rstrip(";").strip()
    if re.fullmatch(r"SELECT \*|SELECT expr .*", sql) and "FROM" not in sql:
        # the kinds of select item a projection may hold: ``*`` on its own (with the others it would
        # repeat every column), the others together
        sql = sql.replace("expr", "id + 1").replace("alias", "next_id").replace("struct->*", "st->*").replace(
            " *,", "")
        return Bound(form, [], f"{sql} FROM {SRC} src EMIT CHANGES LIMIT 1;", True)
    if words[0] == "CREATE" and ("STREAM" in words or "TABLE" in words) and "TYPE" not in words:
        table = "TABLE" in words
        sql = re.sub(r"\b[st]\b(?= |$)", name, sql, count=1)
        for k, v in columns.items():
            sql = sql.replace(k, v)
        sql = sql.replace("WITH (...)", with_clause)
        if "AS SELECT ..." in sql:
            query = (f"SELECT id, COUNT(*) AS c FROM {SRC} WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY id" if table
                     else f"SELECT * FROM {SRC}")
            sql = sql.replace("SELECT ...", query)
            return Bound(form, [], sql + ";", True)
        declared = "(" in sql.split("WITH")[0]
        ok = ("WITH" in sql and declared and not ("OR REPLACE" in sql and "SOURCE" in sql)
              and (not table or "PRIMARY KEY" in sql))
        return Bound(form, [], sql + ";", ok)
    if head == "INSERT INTO":
        if "SELECT" in sql:
            setup = [f"CREATE STREAM {name} (id INT KEY, v STRING, st STRUCT<a INT, b STRING>) {with_clause};"]
            sql = sql.replace("INTO s", f"INTO {name}").replace("'x'", f"'ins_{n}'").replace("SELECT ...",
                                                                                              f"SELECT * FROM {SRC}")
            return Bound(form, setup, sql + ";", True)
        table = " t " in f" {sql} "
        setup = [f"CREATE {'TABLE' if table else 'STREAM'} {name} (id INT {'PRIMARY KEY' if table else 'KEY'}, "
                 f"v STRING) {with_clause};"]
        sql = re.sub(r"INTO [st]\b", f"INTO {name}", sql).replace("(col, ...)", "(id, v)").replace(
            "(v, ...)", "(1, 'a')")
        return Bound(form, setup, sql + ";", True)
    if words[0] == "SELECT":
        if sql.startswith("SELECT ... FROM"):
            src = MAT if re.search(r"FROM t\b", sql) else SRC
            sql = sql.replace("SELECT ...", "SELECT *").replace("FROM t", f"FROM {src}").replace(
                "FROM s", f"FROM {src}").replace("WHERE ...", "WHERE id = 1").replace("LIMIT n", "LIMIT 1")
            return Bound(form, [], sql + ";", True)
        return None
    if words[0] in ("SHOW", "LIST"):
        if "CONNECTOR" in sql:
            return Bound(form, [], sql + ";", False, message="Could not connect to the server")
        return Bound(form, [], sql + ";", True)
    if words[0] == "DESCRIBE":
        if "CONNECTOR" in words:
            return Bound(form, [], sql.replace(" c", f" conn_{n}") + ";", False, message="Could not connect to the server")
        return Bound(form, [], sql.replace("FUNCTION f", "FUNCTION ABS").replace("name", SRC) + ";", True)
    if words[0] == "EXPLAIN":
        if "<statement>" in sql:
            return Bound(form, [], f"EXPLAIN SELECT * FROM {SRC} EMIT CHANGES;", True)
        return Bound(form, [f"CREATE STREAM {name} AS SELECT * FROM {SRC};"], f"EXPLAIN CSAS_{name}_QID;", True)
    if words[0] in ("TERMINATE", "PAUSE", "RESUME"):
        if words[1] == "CLUSTER":
            return Bound(form, [], "TERMINATE CLUSTER;", False)  # only through POST /ksql/terminate
        if words[1] == "ALL":
            return Bound(form, [], f"{words[0]} ALL;", True, last=True)
        setup = [f"CREATE STREAM {name} AS SELECT * FROM {SRC};"]
        return Bound(form, setup, f"{words[0]} CSAS_{name}_QID;", True)
    if words[0] == "DROP":
        if "CONNECTOR" in words:
            return Bound(form, [], sql.replace("name", f"conn_{n}") + ";", False, message="Could not connect to the server")
        if "TYPE" in words:
            return Bound(form, [f"CREATE TYPE {name} AS STRUCT<a INT>;"], sql.replace("name", name) + ";", True)
        table = "TABLE" in words
        setup = [f"CREATE {'TABLE' if table else 'STREAM'} {name} (id INT {'PRIMARY KEY' if table else 'KEY'}, "
                 f"v STRING) {with_clause};"]
        return Bound(form, setup, sql.replace("name", name) + ";", True)
    if head == "CREATE TYPE":
        return Bound(form, [], sql.replace("name", name).replace("<type>", "STRUCT<a INT, b STRING>") + ";", True)
    if words[0] == "ALTER":
        if words[1] == "SYSTEM":
            return Bound(form, [], "ALTER SYSTEM 'ksql.streams.num.stream.threads'='2';", False,
                         message="ALTER SYSTEM is only available in Confluent Cloud")
        table = words[1] == "TABLE"
        setup = [f"CREATE {'TABLE' if table else 'STREAM'} {name} (id INT {'PRIMARY KEY' if table else 'KEY'}, "
                 f"v STRING) {with_clause};"]
        sql = sql.replace("name", name).replace("col type", "extra INT").replace(", ADD ...", ", ADD more STRING")
        return Bound(form, setup, sql + ";", True)
    if words[0] == "SET":
        return Bound(form, [], "SET 'auto.offset.reset'='earliest';", True)
    if words[0] == "UNSET":
        return Bound(form, [], "UNSET 'auto.offset.reset';", True)
    if words[0] == "DEFINE":
        return Bound(form, [], f"DEFINE {sql.split()[1]}_{n} = 'value';", True)
    if words[0] == "UNDEFINE":
        return Bound(form, [f"DEFINE {sql.split()[1]}_{n} = 'v';"], f"UNDEFINE {sql.split()[1]}_{n};", True)
    if head == "ASSERT TOPIC" or head == "ASSERT NOT":
        negated = "NOT EXISTS" in sql
        if "SCHEMA" in words:
            named = "SUBJECT" in words or "ID" in words
            sql = sql.replace("SUBJECT name", f"SUBJECT 'subject_{n}'").replace("ID n", "ID 9999").replace(
                "TIMEOUT n unit", "TIMEOUT 1 SECONDS")
            # no schema registry is configured: a subject or id cannot exist
            return Bound(form, [], sql + ";", negated and named, status=400 if not named else 417)
        sql = sql.replace("TOPIC name", f"TOPIC {f'absent_{n}' if negated else SRC_TOPIC}").replace(
            "PARTITIONS=n", "PARTITIONS=1").replace("REPLICAS=n", "REPLICAS=1").replace(
            "TIMEOUT n unit", "TIMEOUT 1 SECONDS")
        return Bound(form, [], sql + ";", True)
    if head == "ASSERT SCHEMA":
        named = "SUBJECT" in words or "ID" in words
        sql = sql.replace("SUBJECT name", f"SUBJECT 'subject_{n}'").replace("ID n", "ID 9999").replace(
            "TIMEOUT n unit", "TIMEOUT 1 SECONDS")
        return Bound(form, [], sql + ";", False, status=417 if named else 400)
    if head == "CREATE SOURCE" or head == "CREATE SINK":
        return Bound(form, [], sql.replace("name", f"conn_{n}").replace("'k'='v', ...", "'connector.class'='x'")
                     + ";", False, message="Could not connect to the server")
    if words[0] == "PRINT":
        sql = re.sub(r"'topic'|\btopic\b", f"'{SRC_TOPIC}'", sql).replace(" n", " 1")
        return Bound(form, [], " ".join(sql.split()) + ";", True, headers_only="FROM BEGINNING" not in sql)
    if head == "RUN SCRIPT":
        return Bound(form, [], "RUN SCRIPT '/nonexistent/script.sql';", False)  # the CLI's, not the server's
    return None
