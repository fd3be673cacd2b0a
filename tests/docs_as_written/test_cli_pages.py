"""The CLI pages as a reader follows them: the real shell (``ksqlpy --server URL``) in a pseudo-terminal
against a real server, typed at line by line - statements over several lines with comments, SET/UNSET,
DEFINE and ``${var}``, SHOW VARIABLES, push queries with LIMIT, PRINT, DESCRIBE [EXTENDED], DESCRIBE
FUNCTION, EXPLAIN, RUN SCRIPT, SPOOL, ``output JSON``, ``exit``. Each entry is right when every pattern the
ksql CLI prints appears before the next prompt; the tally is printed (``-s``)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from ksqlpy.testing.server_process import ServerProcess

pexpect = pytest.importorskip("pexpect")
pytestmark = pytest.mark.timeout(300)

PROMPT = re.compile(r"ksql>")


def _entries(script: Path, spool: Path) -> list[tuple[str, list[str]]]:
    return [
        ("SET 'auto.offset.reset' = 'earliest';",
         [r"Successfully changed local property 'auto.offset.reset' to 'earliest'"]),
        ("DEFINE orders_topic = 'cli_orders';", []),
        ("SHOW VARIABLES;", [r"Variable Name", r"orders_topic +\| cli_orders"]),
        ("-- orders typed at the prompt\nCREATE STREAM cli_orders (\n  id INT KEY,   -- the key\n  item VARCHAR,\n"
         "  qty INT\n) WITH (kafka_topic='${orders_topic}', value_format='json', partitions=1);", ["Stream created"]),
        ("INSERT INTO cli_orders (id, item, qty) VALUES (1, 'tea', 2); "
         "INSERT INTO cli_orders (id, item, qty) VALUES (2, 'cake', 1);", []),
        ("SELECT id, item, qty FROM cli_orders EMIT CHANGES LIMIT 2;",
         [r"\|ID +\|ITEM +\|QTY", r"\|1 +\|tea +\|2", r"\|2 +\|cake +\|1", "Limit Reached", "Query terminated"]),
        ("select * from cli_orders where qty > 1;", [r"\|1 +\|tea +\|2", "Query terminated"]),
        ("PRINT 'cli_orders' FROM BEGINNING LIMIT 2;",
         [r"Key format: ", r"Value format: JSON", r"rowtime: .*, key: 1, value: \{\"ITEM\":\"tea\",\"QTY\":2\}"]),
        ("SHOW STREAMS;", [r"Stream Name +\| Kafka Topic +\| Key Format +\| Value Format +\| Windowed",
                           r"CLI_ORDERS +\| cli_orders +\| KAFKA +\| JSON +\| false"]),
        ("DESCRIBE cli_orders;", [r"Name +: CLI_ORDERS", r"ID +\| INTEGER +\(key\)", r"ITEM +\| VARCHAR\(STRING\)",
                                  r"For runtime statistics and query details run: DESCRIBE <Stream,Table> EXTENDED;"]),
        ("DESCRIBE cli_orders EXTENDED;", [r"Type +: STREAM", r"Kafka topic +: cli_orders \(partitions: 1",
                                           r"Statement +: CREATE STREAM"]),
        ("DESCRIBE FUNCTION UCASE;", [r"Name +: UCASE", r"Type +: SCALAR"]),
        ("CREATE TABLE cli_totals AS SELECT item, SUM(qty) AS total FROM cli_orders GROUP BY item;",
         [r"Created query with ID CTAS_CLI_TOTALS_\d+"]),
        ("SHOW QUERIES;", [r"Query ID +\| Query Type +\| Status", r"CTAS_CLI_TOTALS_\d+ +\| PERSISTENT +\| RUNNING"]),
        ("EXPLAIN SELECT * FROM cli_orders EMIT CHANGES;", [r"ID +: transient_"]),
        (f"RUN SCRIPT '{script}';", [r"Stream created"]),
        ("SHOW TABLES;", [r"CLI_TOTALS"]),
        (f"SPOOL '{spool}';", []),
        ("LIST TOPICS;", [r"Kafka Topic +\| Partitions +\| Partition Replicas", r"cli_orders +\| 1"]),
        ("SPOOL OFF;", []),
        ("output JSON", [r"Output format set to JSON"]),
        ("SHOW STREAMS;", [r'"@type" ?: ?"streams"']),
        ("output", [r"Current output format: JSON"]),
        ("output TABULAR", [r"Output format set to TABULAR"]),
        ("UNSET 'auto.offset.reset';", [r"Successfully unset local property 'auto.offset.reset'"]),
        ("DROP TABLE cli_totals;", [r"Source `CLI_TOTALS` \(topic: CLI_TOTALS\) was dropped\."]),
        ("DROP STREAM nothing_here;", [r"Stream NOTHING_HERE does not exist\."]),
    ]


def test_cli_pages_in_a_terminal(docs_server: ServerProcess, tmp_path: Path) -> None:
    script, spool = tmp_path / "setup.sql", tmp_path / "spool.txt"
    script.write_text("-- a script of statements\nCREATE STREAM cli_script (v INT)\n"
                      "  WITH (kafka_topic='cli_script', value_format='JSON', partitions=1);\n"
                      "INSERT INTO cli_script (v) VALUES (1);\n")
    env = dict(os.environ, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", HOME=str(tmp_path), COLUMNS="160", LINES="50")
    child = pexpect.spawn(sys.executable, ["-m", "ksqlpy", "--server", docs_server.url], env=env, cwd=str(tmp_path),
                          dimensions=(50, 160), encoding="utf-8", timeout=20)
    results: list[tuple[str, str, str]] = []
    try:
        child.expect(PROMPT)
        for text, patterns in _entries(script, spool):
            for line in text.split("\n"):
                child.send(line + "\r")
            outcome, detail = "right", ""
            for pattern in patterns:
                try:
                    child.expect(pattern)
                except pexpect.TIMEOUT:
                    outcome, detail = "different", f"missing {pattern!r} in {child.before[-600:]!r}"
                    break
            try:
                child.expect(PROMPT)
            except pexpect.TIMEOUT:
                outcome, detail = "failing", f"no prompt after it: {child.before[-600:]!r}"
            if outcome == "right" and re.search(r"Traceback|Internal error|Exception", child.before):
                outcome, detail = "failing", child.before[-600:]
            results.append((text, outcome, detail))
        child.send("exit\r")
        child.expect(r"Exiting ksql(DB|py)\.")  # the product name is ours
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    spooled = spool.read_text() if spool.exists() else ""
    results.append(("SPOOL file", "right" if "ksql> LIST TOPICS;" in spooled and "cli_orders" in spooled
                    else "different", spooled[:300]))
    bad = [r for r in results if r[1] != "right"]
    print(f"\nCLI pages: {len(results)} entries, {len(results) - len(bad)} right")
    assert not bad, "\n".join(f"[{o}] {t[:80]!r}: {d}" for t, o, d in bad)
