"""Drives ksql-python-ng (PyPI 0.29.0.1, module ``ksql``) as against Confluent Cloud: an https URL, an API key and
secret (HTTP Basic), the server's certificate trusted through SSL_CERT_FILE (httpx's environment). argv: url,
stream name, key, secret; one JSON line per step ({"step": ..., "result": ...})."""

from __future__ import annotations

import json
import sys
from typing import Any

from ksql import KSQLAPI
from ksql.errors import KSQLError


def out(step: str, result: Any) -> None:
    print(json.dumps({"step": step, "result": result}), flush=True)


def main(url: str, s: str, key: str, secret: str) -> None:
    client = KSQLAPI(url, api_key=key, secret=secret, timeout=30)  # GET /info with the credentials
    out("version", client.get_ksql_version())
    out("create", client.ksql(f"CREATE STREAM {s} (ID STRING KEY, V INT) WITH (kafka_topic='{s.lower()}', "
                              "partitions=1, value_format='JSON');"))
    out("insert", client.ksql(f"INSERT INTO {s} (ID, V) VALUES ('a', 1); INSERT INTO {s} (ID, V) VALUES ('b', 2);"))
    out("http1_pull", "".join(client.query(f"SELECT * FROM {s};")))
    out("http2_parsed", list(client.query(f"SELECT * FROM {s};", use_http2=True, parse=True)))
    push = client.query(f"SELECT * FROM {s} EMIT CHANGES;", use_http2=True,
                        stream_properties={"auto.offset.reset": "earliest"})
    header = json.loads(next(push))
    out("http2_push", {"header": header, "rows": [json.loads(next(push)) for _ in range(2)]})
    try:  # close_query and inserts_stream send no credentials
        out("close_query", client.close_query(header["queryId"]))
    except ValueError as e:
        out("close_query", str(e))
    push.close()
    out("inserts_stream", client.inserts_stream(s, [{"ID": "c", "V": 3}]))
    try:
        KSQLAPI(url, api_key=key, secret="wrong", timeout=30)
        out("wrong_secret", None)
    except ValueError as e:
        out("wrong_secret", str(e))
    try:
        client.ksql(f"DROP STREAM {s}_NOPE;")
        out("bad_statement", None)
    except KSQLError as e:
        out("bad_statement", {"msg": e.msg, "error_code": e.error_code})


if __name__ == "__main__":
    main(*sys.argv[1:5])
