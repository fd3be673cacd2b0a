"""Primary-key joins of every kind (stream-stream INNER/LEFT/RIGHT/FULL, stream-table LEFT, table-table
INNER/FULL/RIGHT) across key formats (equal and mixed) and key types (DECIMAL and TIMESTAMP where the format has them): results, the key column's name and
format, tombstones.

Writes tests/cases/joins/key-formats.json: ``python tests/cases/joins/key_formats_gen.py tests/cases/joins/key-formats.json`` after changing this file.
"""
import json
import sys

FORMATS = ["KAFKA", "JSON", "DELIMITED", "AVRO", "PROTOBUF", "JSON_SR"]
TYPES = {"INT": (1, 2, 3), "BIGINT": (10000000000, 2, 3), "STRING": ("k1", "k2", "k3"), "DOUBLE": (1.5, 2.5, 3.5),
         "DECIMAL(4, 2)": (1.25, 2.75, 3.75), "TIMESTAMP": (1000, 2000, 3000)}
KAFKA_TYPES = {"INT", "BIGINT", "STRING", "DOUBLE"}

def src(kind, name, topic, kf, kt, col, pk=False):
    key = "PRIMARY KEY" if kind == "TABLE" else "KEY"
    return (f"CREATE {kind} {name} (ID {kt} {key}, {col} STRING) WITH "
            f"(kafka_topic='{topic}', key_format='{kf}', value_format='JSON');")

def inp(topic, k, v, ts):
    return {"topic": topic, "key": k, "value": v, "timestamp": ts}

def out(k, v, ts):
    return {"topic": "OUTPUT", "key": k, "value": v, "timestamp": ts}

def delim(recs, fmt, col="ID"):
    """DELIMITED keys are text in the test format; PROTOBUF keys are always a message."""
    for r in recs:
        if fmt == "DELIMITED":
            r["key"] = str(r["key"])
        elif fmt == "PROTOBUF":
            r["key"] = {col: r["key"]}
    return recs

def post(kind, kname, kt, kf, cols="A STRING, B STRING"):
    return {"sources": [{"name": "OUTPUT", "type": kind, "schema": f"{kname} {kt} KEY, {cols}",
                         "keyFormat": {"format": kf}}]}

tests = []
def add(lf, rf, name, stmts, inputs, outputs, p):
    for r in inputs:
        delim([r], lf if r["topic"] == "l" else rf)
    delim(outputs, lf, p["sources"][0]["schema"].split()[0])
    tests.append({"name": name, "statements": stmts, "inputs": inputs, "outputs": outputs, "post": p})

pairs = [(f, f) for f in FORMATS] + [("JSON", "KAFKA"), ("KAFKA", "JSON"), ("AVRO", "PROTOBUF"), ("JSON_SR", "AVRO"), ("DELIMITED", "JSON")]
for lf, rf in pairs:
    for kt, (k1, k2, k3) in TYPES.items():
        if "KAFKA" in (lf, rf) and kt not in KAFKA_TYPES:  # the KAFKA format has no DECIMAL or TIMESTAMP
            continue
        tag = f"{lf}/{rf} {kt}"
        outf = lf  # left needs no repartition unless formats differ... key format = left's
        # stream-stream inner
        add(lf, rf, f"{tag} stream-stream inner on keys",
            [src("STREAM", "L", "l", lf, kt, "A"), src("STREAM", "R", "r", rf, kt, "B"),
             "CREATE STREAM OUTPUT AS SELECT L.ID AS ID, A, B FROM L JOIN R WITHIN 1 MINUTE ON L.ID = R.ID;"],
            [inp("l", k1, {"A": "a"}, 0), inp("r", k1, {"B": "b"}, 1000), inp("r", k2, {"B": "c"}, 2000)],
            [out(k1, {"A": "a", "B": "b"}, 1000)], post("stream", "ID", kt, outf))
        # stream-stream left, no grace
        add(lf, rf, f"{tag} stream-stream left on keys",
            [src("STREAM", "L", "l", lf, kt, "A"), src("STREAM", "R", "r", rf, kt, "B"),
             "CREATE STREAM OUTPUT AS SELECT L.ID, A, B FROM L LEFT JOIN R WITHIN 1 MINUTE ON L.ID = R.ID;"],
            [inp("l", k1, {"A": "a"}, 0), inp("r", k1, {"B": "b"}, 1000), inp("l", k3, {"A": "x"}, 3000)],
            [out(k1, {"A": "a", "B": None}, 0), out(k1, {"A": "a", "B": "b"}, 1000), out(k3, {"A": "x", "B": None}, 3000)],
            post("stream", "L_ID", kt, outf))
        # stream-stream right
        add(lf, rf, f"{tag} stream-stream right on keys",
            [src("STREAM", "L", "l", lf, kt, "A"), src("STREAM", "R", "r", rf, kt, "B"),
             "CREATE STREAM OUTPUT AS SELECT R.ID, A, B FROM L RIGHT JOIN R WITHIN 1 MINUTE ON L.ID = R.ID;"],
            [inp("r", k1, {"B": "b"}, 0), inp("l", k1, {"A": "a"}, 1000)],
            [out(k1, {"A": None, "B": "b"}, 0), out(k1, {"A": "a", "B": "b"}, 1000)],
            post("stream", "R_ID", kt, outf))
        # stream-stream full outer with synthetic key
        add(lf, rf, f"{tag} stream-stream full outer on keys",
            [src("STREAM", "L", "l", lf, kt, "A"), src("STREAM", "R", "r", rf, kt, "B"),
             "CREATE STREAM OUTPUT AS SELECT ROWKEY AS K, A, B FROM L FULL OUTER JOIN R WITHIN 1 MINUTE ON L.ID = R.ID;"],
            [inp("r", k1, {"B": "b"}, 0), inp("l", k1, {"A": "a"}, 1000), inp("l", k2, {"A": "z"}, 2000)],
            [out(k1, {"A": None, "B": "b"}, 0), out(k1, {"A": "a", "B": "b"}, 1000), out(k2, {"A": "z", "B": None}, 2000)],
            post("stream", "K", kt, outf))
        # stream-table left
        add(lf, rf, f"{tag} stream-table left on keys",
            [src("STREAM", "L", "l", lf, kt, "A"), src("TABLE", "R", "r", rf, kt, "B"),
             "CREATE STREAM OUTPUT AS SELECT L.ID AS ID, A, B FROM L LEFT JOIN R ON L.ID = R.ID;"],
            [inp("r", k1, {"B": "b"}, 0), inp("l", k1, {"A": "a"}, 1000), inp("l", k2, {"A": "x"}, 2000),
             inp("r", k1, None, 3000), inp("l", k1, {"A": "y"}, 4000)],
            [out(k1, {"A": "a", "B": "b"}, 1000), out(k2, {"A": "x", "B": None}, 2000), out(k1, {"A": "y", "B": None}, 4000)],
            post("stream", "ID", kt, outf))
        # table-table inner
        add(lf, rf, f"{tag} table-table inner on keys",
            [src("TABLE", "L", "l", lf, kt, "A"), src("TABLE", "R", "r", rf, kt, "B"),
             "CREATE TABLE OUTPUT AS SELECT L.ID AS ID, A, B FROM L JOIN R ON L.ID = R.ID;"],
            [inp("l", k1, {"A": "a"}, 0), inp("r", k1, {"B": "b"}, 1000), inp("r", k1, None, 2000)],
            [out(k1, {"A": "a", "B": "b"}, 1000), out(k1, None, 2000)],
            post("table", "ID", kt, outf))
        # table-table full outer
        add(lf, rf, f"{tag} table-table full outer on keys",
            [src("TABLE", "L", "l", lf, kt, "A"), src("TABLE", "R", "r", rf, kt, "B"),
             "CREATE TABLE OUTPUT AS SELECT ROWKEY AS ID, A, B FROM L FULL OUTER JOIN R ON L.ID = R.ID;"],
            [inp("l", k1, {"A": "a"}, 0), inp("r", k1, {"B": "b"}, 1000), inp("r", k2, {"B": "c"}, 2000), inp("l", k1, None, 3000)],
            [out(k1, {"A": "a", "B": None}, 0), out(k1, {"A": "a", "B": "b"}, 1000), out(k2, {"A": None, "B": "c"}, 2000), out(k1, {"A": None, "B": "b"}, 3000)],
            post("table", "ID", kt, outf))
        # table-table right
        add(lf, rf, f"{tag} table-table right on keys",
            [src("TABLE", "L", "l", lf, kt, "A"), src("TABLE", "R", "r", rf, kt, "B"),
             "CREATE TABLE OUTPUT AS SELECT R.ID AS ID, A, B FROM L RIGHT JOIN R ON L.ID = R.ID;"],
            [inp("l", k1, {"A": "a"}, 0), inp("r", k1, {"B": "b"}, 1000), inp("r", k1, None, 2000)],
            [out(k1, {"A": "a", "B": "b"}, 1000), out(k1, None, 2000)],
            post("table", "ID", kt, outf))

if __name__ == "__main__":
    json.dump({"comments": ["ksqlpy's own cases, generated by tests/cases/joins/key_formats_gen.py (edit that): primary-key joins of every kind across key formats and key types"], "tests": tests}, open(sys.argv[1], "w"), indent=1)
    print(len(tests))
