"""Drives the published ``ksql-python-ng`` client (PyPI 0.29.0.1, module ``ksql``) through every call its
README documents, against the server at argv[1], on stream/topic names built from argv[2]; prints one JSON
line per step ({"step": ..., "result": ...}). Run with the package first on PYTHONPATH: it installs the
same ``ksql`` module as pyksql, so it cannot share an environment with it."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from typing import Any

from ksql import KSQLAPI
from ksql.errors import FileTypeError, KSQLError
from ksql.upload import FileUpload


def out(step: str, result: Any) -> None:
    print(json.dumps({"step": step, "result": result}), flush=True)


def main(url: str, s: str) -> None:
    client = KSQLAPI(url, timeout=30)  # check_version: GET /info
    out("version", client.get_ksql_version())
    out("create", client.ksql(f"CREATE STREAM {s} (ID STRING KEY, V INT) WITH (kafka_topic='{s.lower()}', "
                              "partitions=1, value_format='JSON');"))
    out("insert", client.ksql(f"INSERT INTO {s} (ID, V) VALUES ('a', 1);"))
    out("inserts_stream", client.inserts_stream(s, [{"ID": "b", "V": 2}, {"ID": "c", "V": 3}]))
    out("ctas", client.ksql(f"CREATE TABLE {s}_T AS SELECT ID, SUM(V) AS S FROM {s} GROUP BY ID;",
                            stream_properties={"ksql.streams.auto.offset.reset": "earliest"}))
    out("builder_stream", client.create_stream(table_name=f"{s}_B", columns_type=["ID varchar", "V int"],
                                               topic=s.lower(), value_format="JSON"))
    out("builder_as", client.create_stream_as(table_name=f"{s}_AS", select_columns=["ID", "V"], src_table=s,
                                              conditions="V > 1", value_format="JSON"))
    props = client.get_properties()
    out("properties", sorted(p["name"] for p in props)[:3])
    # /query over HTTP/1.1 with no Accept header: the StreamedRow JSON array, chunk by chunk
    out("http1_pull_stream", "".join(client.query(f"SELECT * FROM {s};",
                                                  stream_properties={"auto.offset.reset": "earliest"})))
    deadline = time.monotonic() + 20
    lookup = ""
    while time.monotonic() < deadline:  # the table catches up with the stream
        lookup = "".join(client.query(f"SELECT * FROM {s}_T WHERE ID = 'c';"))
        if '"columns"' in lookup:
            break
        time.sleep(0.2)
    out("http1_lookup", lookup)
    # /query-stream over HTTP/2: the delimited format, parsed into objects by the client
    out("http2_parsed", list(client.query(f"SELECT * FROM {s};", use_http2=True, parse=True,
                                          stream_properties={"auto.offset.reset": "earliest"})))
    push = client.query(f"SELECT * FROM {s} EMIT CHANGES;", use_http2=True,
                        stream_properties={"auto.offset.reset": "earliest"})
    header = json.loads(next(push))
    rows = [json.loads(next(push)) for _ in range(3)]
    out("http2_push", {"header": header, "rows": rows, "closed": client.close_query(header["queryId"])})
    push.close()
    out("close_unknown", client.close_query("transient_NOPE_1"))
    # FileUpload: a .ksql file's statements, its lines joined with spaces and cut at each line ending in ';'
    # (a comment line so comments out the statement it is joined to: the server answers that one with [])
    with tempfile.TemporaryDirectory() as where:
        rules = os.path.join(where, "rules.ksql")
        with open(rules, "w") as f:
            f.write(f"CREATE STREAM {s}_UP (ID STRING KEY,\n  V INT)\n  WITH (KAFKA_TOPIC='{s.lower()}',\n"
                    "        VALUE_FORMAT='JSON');\n"
                    f"INSERT INTO {s}_UP (ID, V)\n  VALUES ('u', 9);\n"
                    f"-- a comment line\nDROP STREAM {s}_UP;\n"
                    f"CREATE TABLE {s}_UPT AS\n  SELECT ID, COUNT(*) AS N\n  FROM {s}_UP\n  GROUP BY ID;\n")
        out("upload", FileUpload(url).upload(rules))
        try:
            FileUpload(url).upload(os.path.join(where, "rules.sql"))
            out("upload_sql", None)
        except FileTypeError as e:
            out("upload_sql", str(e))
    for step, sql in (("bad_statement", f"DROP STREAM {s}_NOPE;"), ("bad_syntax", "SELEC 1;"),
                      ("query_to_ksql", f"SELECT * FROM {s};")):
        try:
            client.ksql(sql)
            out(step, None)
        except KSQLError as e:
            out(step, {"msg": e.msg, "error_code": e.error_code})
    try:
        list(client.query(f"SELECT * FROM {s}_NOPE;"))
        out("bad_query", None)
    except ValueError as e:  # the client turns a refused /query into ValueError with status and body
        out("bad_query", str(e))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
