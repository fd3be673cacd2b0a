"""Generates three files of pull/push query rules that hang on the kind of source read (ksqlDB's rules, in our
words and values; from memory of its source, as each section says):

- ``session-table-scans.json``: a session-windowed table is read key by key. Its store cannot be scanned
  (KsMaterializedSessionTable: "Table scan unsupported on session tables"), so every pull query that needs a
  scan - no WHERE, a WHERE on value columns, on window bounds only, a key range, a disjunct without the key,
  a multi-column key not fully bound - is refused when it runs, after the planning checks (with table scans
  disabled the planner's own refusal comes first). Key lookups are served, bounded by WINDOWSTART/WINDOWEND
  or not; time windows still scan.
- ``null-select-items.json``: a projected expression without a type (a bare NULL, -NULL, NULL in AND) is
  refused by every query kind - table pull queries (key lookup or scan), conventional and scalable push
  queries, stream pull queries, CREATE ... AS SELECT; a NULL typed by its context is a column of that type.
- ``scalable-push-source-tables.json``: a SOURCE table's materializing CST_ query has no sink (ksqlDB's
  EngineExecutor.sourceTablePlan), so a push query over the table has no writer and is a conventional one
  (id ``transient_``, a tombstone shown); a table a CREATE TABLE AS SELECT writes from it is scalable.
- ``pull-limit-sign.json``: the grammar's LIMIT takes a signed integer (``LIMIT -1`` parses, a decimal does not:
  ``Value must be integer for command: LIMIT``); a pull query - over a table or a stream - refuses a negative
  one (PullQueryValidator: "Pull queries don't support negative integers in the LIMIT clause.").

Run ``python tests/cases/rest/gen_query_source_rules.py`` to rewrite the files next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

STATUS = {"admin": {"@type": "currentStatus"}}
INPUT = ("CREATE STREAM EVENTS (USERID STRING KEY, AMOUNT INT) WITH (kafka_topic='events', format='JSON', "
         "partitions=1);")
SESSIONS = ("CREATE TABLE VISITS AS SELECT USERID, COUNT(*) AS HITS, SUM(AMOUNT) AS TOTAL FROM EVENTS "
            "WINDOW SESSION (30 SECONDS) GROUP BY USERID;")
# alice: sessions [100000, 110000] (2 hits) and [200000, 200000] (1 hit); bob: [150000, 170000] (2 hits)
EVENTS = [("alice", 100000, 3), ("bob", 150000, 7), ("alice", 110000, 4), ("bob", 170000, 1), ("alice", 200000, 9)]
SESSION_ROWS = {("alice", 100000, 110000): (2, 7), ("alice", 200000, 200000): (1, 9), ("bob", 150000, 170000): (2, 8)}
SESSION_SCHEMA = "`USERID` STRING KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, `HITS` BIGINT, `TOTAL` INTEGER"
# a session table's scan fails when it runs (KsMaterializedSessionTable: "Table scan unsupported on session
# tables"); HARouting logs the host's error and, no other host left, ends the response with its own
RUN_FAILS = object()
CANT_INFER = "Can't infer a type of null. Please explicitly cast it to a required type, e.g. CAST(null AS VARCHAR)."


def _in(key: Any, ts: int, value: Any, topic: str = "events") -> dict[str, Any]:
    return {"topic": topic, "timestamp": ts, "key": key, "value": value}


def _error(message: str, kind: str = "KsqlStatementErrorMessage") -> dict[str, Any]:
    return {"type": f"io.confluent.ksql.rest.entity.{kind}", "message": message, "status": 400}


def _session_case(name: str, where: str | None, expect: Any, props: dict[str, Any] | None = None,
                  ddl: str = SESSIONS, schema: str = SESSION_SCHEMA) -> dict[str, Any]:
    sql = "SELECT * FROM VISITS" + (f" WHERE {where}" if where else "") + ";"
    case: dict[str, Any] = {
        "name": name,
        "statements": [INPUT, ddl, sql],
        "inputs": [_in(k, ts, {"AMOUNT": a}) for k, ts, a in EVENTS],
    }
    if props:
        case["properties"] = props
    if expect is RUN_FAILS:  # planned, then failed when it ran: the header, then the error element
        case["responses"] = [STATUS, STATUS, {"query": [{"header": {"schema": schema}}, {"errorMessage": {
            "@type": "generic_error", "error_code": 50000,
            "message": f"Unable to execute pull query: {sql}. Exhausted standby hosts to try."}}]}]
    elif isinstance(expect, str):
        case["expectedError"] = _error(expect)
    else:
        case["responses"] = [STATUS, STATUS, {"query": [{"header": {"schema": schema}}]
                                              + [{"row": {"columns": list(r)}} for r in expect]}]
    return case


def _rows(pred: Any) -> list[list[Any]]:
    return [[k, s, e, h, t] for (k, s, e), (h, t) in sorted(SESSION_ROWS.items()) if pred(k, s, e, h)]


def session_cases() -> list[dict[str, Any]]:
    scans = [
        ("without a WHERE", None),
        ("on a value column", "HITS > 1"),
        ("on WINDOWSTART only", "WINDOWSTART >= 100000"),
        ("on both window bounds only", "WINDOWSTART >= 100000 AND WINDOWEND <= 200000"),
        ("on a key range", "USERID > 'a'"),
        ("on a key inequality", "USERID <> 'bob'"),
        ("with a disjunct missing the key", "USERID = 'alice' OR TOTAL > 5"),
        ("on a key LIKE", "USERID LIKE 'al%'"),
        ("with LIMIT", "HITS > 0 LIMIT 1"),
    ]
    out = [_session_case(f"session table: a scan {what} fails when it runs, after the header", where, RUN_FAILS)
           for what, where in scans]
    out.append(_session_case(
        "session table: with table scans disabled the planner's refusal comes first", "HITS > 1",
        "WHERE clause missing key column for disjunct: (HITS > 1)", props={"ksql.query.pull.table.scan.enabled": False}))
    out.append(_session_case(
        "session table: a scan over a multi-column key bound on one column only fails when it runs",
        "USERID = 'alice'", RUN_FAILS,
        ddl="CREATE TABLE VISITS AS SELECT USERID, AMOUNT, COUNT(*) AS HITS FROM EVENTS WINDOW SESSION (30 SECONDS) "
            "GROUP BY USERID, AMOUNT;",
        schema="`USERID` STRING KEY, `AMOUNT` INTEGER KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, "
               "`HITS` BIGINT"))
    lookups = [
        ("a key", "USERID = 'alice'", lambda k, s, e, h: k == "alice"),
        ("a key written second", "'bob' = USERID", lambda k, s, e, h: k == "bob"),
        ("keys in an IN list", "USERID IN ('bob', 'alice', 'carol')", lambda k, s, e, h: True),
        ("keys in a disjunction", "USERID = 'alice' OR USERID = 'bob'", lambda k, s, e, h: True),
        ("a key and a WINDOWSTART range", "USERID = 'alice' AND WINDOWSTART > 100000 AND WINDOWSTART <= 200000",
         lambda k, s, e, h: k == "alice" and 100000 < s <= 200000),
        ("a key and an exact WINDOWSTART", "USERID = 'alice' AND WINDOWSTART = 100000",
         lambda k, s, e, h: k == "alice" and s == 100000),
        ("a key and a WINDOWEND bound", "USERID = 'alice' AND WINDOWEND < 200000",
         lambda k, s, e, h: k == "alice" and e < 200000),
        ("a key and a value filter", "USERID = 'bob' AND HITS = 2", lambda k, s, e, h: k == "bob" and h == 2),
        ("an unknown key", "USERID = 'carol'", lambda k, s, e, h: False),
    ]
    out += [_session_case(f"session table: a lookup of {what} is served", where, _rows(pred))
            for what, where, pred in lookups]
    out.append(_session_case(
        "tumbling table: a scan is served (only session stores refuse it)", "HITS > 1",
        [["alice", 60000, 120000, 2], ["bob", 120000, 180000, 2]],
        ddl="CREATE TABLE VISITS AS SELECT USERID, COUNT(*) AS HITS FROM EVENTS WINDOW TUMBLING (SIZE 60 SECONDS) "
            "GROUP BY USERID;",
        schema="`USERID` STRING KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, `HITS` BIGINT"))
    # time windows: scans and lookups alike are served, WINDOWSTART bounds or not
    time_schema = "`USERID` STRING KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, `HITS` BIGINT"
    tumbling = ("CREATE TABLE VISITS AS SELECT USERID, COUNT(*) AS HITS FROM EVENTS WINDOW TUMBLING (SIZE 60 SECONDS) "
                "GROUP BY USERID;")
    hopping = ("CREATE TABLE VISITS AS SELECT USERID, COUNT(*) AS HITS FROM EVENTS WINDOW HOPPING (SIZE 60 SECONDS, "
               "ADVANCE BY 30 SECONDS) GROUP BY USERID;")
    # tumbling: alice [60000,120000) 2, [180000,240000) 1; bob [120000,180000) 2
    # hopping: alice [60000,120000) 2, [90000,150000) 2, [180000,240000) 1, [150000,210000) 1;
    #          bob [120000,180000) 2, [150000,210000) 2
    time_cases = [
        ("tumbling table: a scan without a WHERE is served", tumbling, None,
         [["alice", 60000, 120000, 2], ["alice", 180000, 240000, 1], ["bob", 120000, 180000, 2]]),
        ("tumbling table: a scan on WINDOWSTART only is served", tumbling, "WINDOWSTART >= 120000",
         [["alice", 180000, 240000, 1], ["bob", 120000, 180000, 2]]),
        ("tumbling table: a lookup of a key is served", tumbling, "USERID = 'alice'",
         [["alice", 60000, 120000, 2], ["alice", 180000, 240000, 1]]),
        ("tumbling table: a lookup of a key and a WINDOWSTART bound is served", tumbling,
         "USERID = 'alice' AND WINDOWSTART < 100000", [["alice", 60000, 120000, 2]]),
        ("hopping table: a scan without a WHERE is served", hopping, None,
         [["alice", 60000, 120000, 2], ["alice", 90000, 150000, 2], ["alice", 150000, 210000, 1],
          ["alice", 180000, 240000, 1], ["bob", 120000, 180000, 2], ["bob", 150000, 210000, 2]]),
        ("hopping table: a scan on a value column is served", hopping, "HITS > 1",
         [["alice", 60000, 120000, 2], ["alice", 90000, 150000, 2], ["bob", 120000, 180000, 2],
          ["bob", 150000, 210000, 2]]),
        ("hopping table: a lookup of a key is served", hopping, "USERID = 'bob'",
         [["bob", 120000, 180000, 2], ["bob", 150000, 210000, 2]]),
        ("hopping table: a lookup of a key and a WINDOWEND bound is served", hopping,
         "USERID = 'bob' AND WINDOWEND <= 180000", [["bob", 120000, 180000, 2]]),
    ]
    out += [_session_case(name, where, rows, ddl=ddl, schema=time_schema) for name, ddl, where, rows in time_cases]
    return out


def null_cases() -> list[dict[str, Any]]:
    base = [INPUT, "CREATE TABLE SPEND AS SELECT USERID, SUM(AMOUNT) AS TOTAL FROM EVENTS GROUP BY USERID;"]
    inputs = [_in(k, ts, {"AMOUNT": a}) for k, ts, a in EVENTS]
    refused = [
        ("a table pull query's key lookup", "SELECT USERID, NULL AS NOTHING FROM SPEND WHERE USERID = 'bob';"),
        ("a table pull query's scan", "SELECT NULL FROM SPEND;"),
        ("a table pull query with a value filter", "SELECT USERID, -NULL AS NOTHING FROM SPEND WHERE TOTAL > 1;"),
        ("a table pull query, NULL as an AND operand",
         "SELECT USERID, (TOTAL > 1) AND NULL AS B FROM SPEND WHERE USERID = 'alice';"),
        ("a stream pull query", "SELECT USERID, NULL AS NOTHING FROM EVENTS;"),
        ("a push query over a table", "SELECT USERID, NULL AS NOTHING FROM SPEND EMIT CHANGES;"),
        ("a push query over a stream", "SELECT NULL FROM EVENTS EMIT CHANGES;"),
    ]
    out = []
    for what, sql in refused:
        out.append({"name": f"an untyped NULL select item is refused in {what}", "statements": base + [sql],
                    "inputs": inputs, "expectedError": _error(CANT_INFER)})
    out.append({"name": "an untyped NULL select item is refused in a scalable push query",
                "statements": base + ["SELECT USERID, NULL AS NOTHING FROM SPEND EMIT CHANGES;"],
                "properties": {"auto.offset.reset": "latest", "ksql.query.push.v2.enabled": True},
                "inputs": inputs, "expectedError": _error(CANT_INFER)})
    out.append({"name": "an untyped NULL select item is refused in CREATE STREAM AS SELECT",
                "statements": [INPUT, "CREATE STREAM OUT AS SELECT USERID, NULL AS NOTHING FROM EVENTS;"],
                "expectedError": _error(CANT_INFER)})
    out.append({"name": "a NULL cast to a type is a column of that type in a table pull query",
                "statements": base + ["SELECT USERID, CAST(NULL AS DOUBLE) AS NOTHING, COALESCE(NULL, TOTAL) AS T "
                                      "FROM SPEND WHERE USERID = 'bob';"],
                "inputs": inputs,
                "responses": [STATUS, STATUS, {"query": [
                    {"header": {"schema": "`USERID` STRING KEY, `NOTHING` DOUBLE, `T` INTEGER"}},
                    {"row": {"columns": ["bob", None, 8]}}]}]})
    return out


SOURCE_TABLE = ("CREATE SOURCE TABLE PRICES (ITEM STRING PRIMARY KEY, PRICE INT) WITH (kafka_topic='prices', "
                "value_format='JSON', partitions=1);")
PRICE_INPUTS = [_in("pen", 1000, {"PRICE": 2}, "prices"), _in("ink", 2000, {"PRICE": 5}, "prices"),
                _in("pen", 3000, None, "prices"), _in("cap", 4000, {"PRICE": 1}, "prices")]
LATEST = {"auto.offset.reset": "latest", "ksql.query.push.v2.enabled": True}


def source_table_cases() -> list[dict[str, Any]]:
    schema = "`ITEM` STRING, `PRICE` INTEGER"
    conventional = [{"row": {"columns": ["pen", 2]}}, {"row": {"columns": ["ink", 5]}},
                    {"row": {"columns": ["pen", None], "tombstone": True}}]
    return [
        {"name": "a push query over a SOURCE table is a conventional one: its CST_ query writes no sink",
         "statements": [SOURCE_TABLE, "SELECT * FROM PRICES EMIT CHANGES LIMIT 3;"],
         "properties": LATEST, "inputConditions": {"waitForActivePushQuery": True}, "inputs": PRICE_INPUTS,
         "responses": [STATUS, {"query": [{"header": {"schema": schema, "queryId|starts_with": "transient_"}}]
                                + conventional + [{"finalMessage": "Limit Reached"}]}]},
        {"name": "a filtered push query over a SOURCE table is a conventional one too",
         "statements": [SOURCE_TABLE, "SELECT ITEM, PRICE * 10 AS CENTS FROM PRICES WHERE PRICE > 1 EMIT CHANGES "
                                      "LIMIT 2;"],
         "properties": LATEST, "inputConditions": {"waitForActivePushQuery": True}, "inputs": PRICE_INPUTS,
         "responses": [STATUS, {"query": [
             {"header": {"schema": "`ITEM` STRING, `CENTS` INTEGER", "queryId|starts_with": "transient_"}},
             {"row": {"columns": ["pen", 20]}}, {"row": {"columns": ["ink", 50]}},
             {"finalMessage": "Limit Reached"}]}]},
        {"name": "a push query over a table written from a SOURCE table is scalable and leaves out the delete",
         "statements": [SOURCE_TABLE, "CREATE TABLE DEAR AS SELECT * FROM PRICES;",
                        "SELECT * FROM DEAR EMIT CHANGES LIMIT 3;"],
         "properties": LATEST, "inputConditions": {"waitForActivePushQuery": True}, "inputs": PRICE_INPUTS,
         "responses": [STATUS, STATUS, {"query": [
             {"header": {"schema": schema, "queryId|starts_with": "SCALABLE_PUSH_QUERY_"}},
             {"row": {"columns": ["pen", 2]}}, {"row": {"columns": ["ink", 5]}}, {"row": {"columns": ["cap", 1]}},
             {"finalMessage": "Limit Reached"}]}]},
    ]


NEGATIVE_LIMIT = "Pull queries don't support negative integers in the LIMIT clause. See https://cnfl.io/queries for more info."


def limit_cases() -> list[dict[str, Any]]:
    base = [INPUT, "CREATE TABLE SPEND AS SELECT USERID, SUM(AMOUNT) AS TOTAL FROM EVENTS GROUP BY USERID;"]
    inputs = [_in(k, ts, {"AMOUNT": a}) for k, ts, a in EVENTS]
    out = [{"name": f"a negative LIMIT is refused in {what}", "statements": base + [sql], "inputs": inputs,
            "expectedError": _error(NEGATIVE_LIMIT)}
           for what, sql in (("a table pull query's key lookup", "SELECT * FROM SPEND WHERE USERID = 'bob' LIMIT -2;"),
                             ("a table pull query's scan", "SELECT * FROM SPEND LIMIT -1;"),
                             ("a stream pull query", "SELECT * FROM EVENTS LIMIT -1;"),
                             ("a pull query, the sign apart from the number", "SELECT * FROM SPEND LIMIT - 3;"))]
    out.append({"name": "a decimal LIMIT is refused by the parser", "statements": base + [
        "SELECT * FROM SPEND LIMIT 2.5;"], "inputs": inputs,
        "expectedError": _error("Value must be integer for command: LIMIT", kind="KsqlErrorMessage")})
    out.append({"name": "LIMIT -0 is LIMIT 0: no rows", "statements": base + ["SELECT * FROM SPEND LIMIT -0;"],
                "inputs": inputs, "responses": [STATUS, STATUS, {"query": [
                    {"header": {"schema": "`USERID` STRING KEY, `TOTAL` INTEGER"}}]}]})
    return out


def push_limit_cases() -> list[dict[str, Any]]:
    """A push query's negative LIMIT: the grammar takes it and no push-query rule checks it; the query's row
    queue (ksqlDB's LimitedQueueCallback) refuses it when the query is built, after analysis and planning -
    "limit must be positive, was:<n>", rethrown as the statement's error (from memory)."""
    base = [INPUT, "CREATE TABLE SPEND AS SELECT USERID, SUM(AMOUNT) AS TOTAL FROM EVENTS GROUP BY USERID;"]
    inputs = [_in(k, ts, {"AMOUNT": a}) for k, ts, a in EVENTS]
    refused = [
        ("a push query over a stream", "SELECT * FROM EVENTS EMIT CHANGES LIMIT -1;", None),
        ("a push query over a table", "SELECT * FROM SPEND EMIT CHANGES LIMIT -2;", None),
        ("a push query, the sign apart from the number", "SELECT * FROM EVENTS EMIT CHANGES LIMIT - 5;", None),
        ("an aggregating push query", "SELECT USERID, COUNT(*) FROM EVENTS GROUP BY USERID EMIT CHANGES LIMIT -1;",
         None),
        ("a windowed aggregating push query", "SELECT USERID, COUNT(*) FROM EVENTS WINDOW TUMBLING (SIZE 1 MINUTE) "
         "GROUP BY USERID EMIT CHANGES LIMIT -1;", None),
        ("a stream-table join push query", "SELECT E.USERID, S.TOTAL FROM EVENTS E JOIN SPEND S ON E.USERID = "
         "S.USERID EMIT CHANGES LIMIT -1;", None),
        ("a scalable push query", "SELECT * FROM SPEND EMIT CHANGES LIMIT -1;",
         {"auto.offset.reset": "latest", "ksql.query.push.v2.enabled": True}),
        ("a push query reading from earliest", "SELECT * FROM EVENTS EMIT CHANGES LIMIT -3;",
         {"auto.offset.reset": "earliest"}),
    ]
    out: list[dict[str, Any]] = []
    for what, sql, props in refused:
        n = sql.rsplit("LIMIT", 1)[1].strip(" ;").replace(" ", "")
        case: dict[str, Any] = {"name": f"a negative LIMIT is refused in {what}", "statements": base + [sql],
                                "inputs": inputs, "expectedError": _error(f"limit must be positive, was:{n}")}
        if props:
            case["properties"] = props
        out.append(case)
    out.append({"name": "a push query's unknown column is named before its negative LIMIT",
                "statements": base + ["SELECT NOPE FROM EVENTS EMIT CHANGES LIMIT -1;"], "inputs": inputs,
                "expectedError": _error("SELECT column 'NOPE' cannot be resolved.")})
    out.append({"name": "a push query's decimal LIMIT is refused by the parser",
                "statements": base + ["SELECT * FROM EVENTS EMIT CHANGES LIMIT -1.5;"], "inputs": inputs,
                "expectedError": _error("Value must be integer for command: LIMIT", kind="KsqlErrorMessage")})
    return out


if __name__ == "__main__":
    for name, cases in (("session-table-scans.json", session_cases()), ("null-select-items.json", null_cases()),
                        ("scalable-push-source-tables.json", source_table_cases()),
                        ("pull-limit-sign.json", limit_cases()), ("push-limit-sign.json", push_limit_cases())):
        (HERE / name).write_text(json.dumps({"comments": ["Generated by gen_query_source_rules.py, in ksqlDB's REST "
                                                          "test format, written for ksqlpy."],
                                             "tests": cases}, indent=1) + "\n")
