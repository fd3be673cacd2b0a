"""NULL BYTES through every value format that holds BYTES, read and written: NULL stays NULL, at the top, in
arrays, structs and map values. In PROTOBUF and PROTOBUF_NOSR (without a nullable representation) an unset
bytes field or map value reads NULL, so empty bytes written read back NULL, while a NULL STRING reads back as
proto3's default "".

Writes tests/cases/serde/null-bytes.json: ``python tests/cases/serde/null_bytes_gen.py
tests/cases/serde/null-bytes.json`` after changing this file.
"""
import json
import sys

FORMATS = ("JSON", "AVRO", "JSON_SR", "DELIMITED", "PROTOBUF", "PROTOBUF_NOSR")


def case(fmt: str) -> dict:  # type: ignore[type-arg]
    proto = fmt.startswith("PROTOBUF")
    delim = fmt == "DELIMITED"
    cols = "B BYTES, S STRING" if delim else "B BYTES, S STRING, A ARRAY<BYTES>, ST STRUCT<X BYTES>, M MAP<STRING, BYTES>"
    proj = "K, B, S" if delim else "K, B, S, A, ST, M"

    def v(b, s, a, x, m):  # type: ignore[no-untyped-def]
        return f"{b or ''},{s or ''}" if delim else {"B": b, "S": s, "A": a, "ST": {"X": x}, "M": m}

    full = v("AQI=", "x", ["AQ=="], "AQ==", {"x": "AQ=="})
    checks = "B IS NULL AS BN, LEN(B) AS BL" + ("" if delim else ", ST->X IS NULL AS XN, M['x'] IS NULL AS MN")
    empty = None if proto else ""
    return {
        "name": f"{fmt}: a NULL BYTES value reads and writes NULL"
                + ("; proto3 writes empty bytes as an unset field, which reads NULL" if proto else ""),
        "statements": [
            f"CREATE STREAM S (K STRING KEY, {cols}) WITH (kafka_topic='s', key_format='KAFKA', value_format='{fmt}');",
            f"CREATE STREAM O AS SELECT {proj} FROM S;",
            f"CREATE STREAM N WITH (value_format='JSON') AS SELECT K, {checks} FROM S;",
            "CREATE STREAM W AS SELECT K, CAST(NULL AS BYTES) AS NB, TO_BYTES('', 'hex') AS EB, "
            "TO_BYTES('0102', 'hex') AS HB FROM S;",
        ],
        "inputs": [{"topic": "s", "key": "a", "value": v(None, None, [], None, {"x": None})},
                   {"topic": "s", "key": "b", "value": full}],
        "outputs": [
            {"topic": "O", "key": "a", "value": v(None, "" if proto else None, [], None, {"x": None})},
            {"topic": "O", "key": "b", "value": full},
            {"topic": "N", "key": "a", "value": {"BN": True, "BL": None, **({} if delim else {"XN": True, "MN": True})}},
            {"topic": "N", "key": "b", "value": {"BN": False, "BL": 2, **({} if delim else {"XN": False, "MN": False})}},
            *({"topic": "W", "key": k, "value": ",,AQI=" if delim else {"NB": None, "EB": empty, "HB": "AQI="}}
              for k in ("a", "b")),
        ],
    }


tests = [case(f) for f in FORMATS]

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({"comments": [__doc__.split("\n\n")[0].replace("\n", " ")], "tests": tests}, f, indent=1)
        f.write("\n")
