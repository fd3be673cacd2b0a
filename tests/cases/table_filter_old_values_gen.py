"""A table's WHERE with the previous row (ksqlDB's table filter sending old values).

Writes tests/cases/table-filter-old-values.json: ``python tests/cases/table_filter_old_values_gen.py
tests/cases/table-filter-old-values.json`` after changing this file.
"""
import json
import sys


def rec(topic, key, value, ts):  # type: ignore[no-untyped-def]
    return {"topic": topic, "key": key, "value": value, "timestamp": ts}


tests = []


def case(name, statements, inputs, outputs, **kw):  # type: ignore[no-untyped-def]
    t = {"name": name, "statements": statements, "inputs": inputs, "outputs": outputs}
    t.update(kw)
    t.setdefault("format", ["JSON"])
    tests.append(t)


T = "CREATE TABLE T (ID INT PRIMARY KEY, V INT, S STRING) WITH (kafka_topic='t', value_format='{FORMAT}');"
case("the previous row is filtered at the ROWTIME of the record being processed: it no longer passes, no delete",
  [T, "CREATE TABLE F AS SELECT ID, V FROM T WHERE ROWTIME < 100 OR V > 10;"],
  [rec("t",1,{"V":1,"S":"a"},50), rec("t",1,{"V":2,"S":"a"},150), rec("t",1,{"V":20,"S":"a"},200),
   rec("t",1,{"V":3,"S":"a"},250), rec("t",2,{"V":4,"S":"b"},60), rec("t",2,None,170),
   rec("t",3,{"V":5,"S":"c"},70), rec("t",3,None,80)],
  [rec("F",1,{"V":1},50), rec("F",1,{"V":20},200), rec("F",1,None,250), rec("F",2,{"V":4},60), rec("F",3,{"V":5},70), rec("F",3,None,80)],
  format=["JSON","AVRO"])
# one partition: the predicate names partition 0 and offsets, which must not depend on how keys are spread
T1 = T.replace("value_format='{FORMAT}'", "value_format='{FORMAT}', partitions=1")
case("ROWPARTITION and ROWOFFSET of the previous row are its own",
  [T1, "CREATE TABLE F AS SELECT ID, V FROM T WHERE ROWOFFSET < 2 AND ROWPARTITION = 0;"],
  [rec("t",1,{"V":1,"S":"a"},10), rec("t",2,{"V":2,"S":"b"},20), rec("t",1,{"V":3,"S":"a"},30), rec("t",2,None,40), rec("t",2,None,50)],
  [rec("F",1,{"V":1},10), rec("F",2,{"V":2},20), rec("F",1,None,30), rec("F",2,None,40)])
case("NULLs in the WHERE: a row whose predicate is NULL does not pass, new or previous",
  [T, "CREATE TABLE F AS SELECT ID, V, S FROM T WHERE V <> 0;"],
  [rec("t",1,{"V":None,"S":"a"},1), rec("t",1,{"V":5,"S":"a"},2), rec("t",1,{"V":None,"S":"b"},3), rec("t",1,None,4),
   rec("t",2,{"V":7,"S":None},5), rec("t",2,{"V":8,"S":None},6), rec("t",2,None,7), rec("t",2,None,8)],
  [rec("F",1,{"V":5,"S":"a"},2), rec("F",1,None,3), rec("F",2,{"V":7,"S":None},5), rec("F",2,{"V":8,"S":None},6), rec("F",2,None,7)],
  format=["JSON","AVRO"])
case("a projection is computed for the rows that pass only; a delete keeps its key",
  [T, "CREATE TABLE F AS SELECT ID, V * 2 AS D, UCASE(S) AS U, ID + 100 AS K2 FROM T WHERE LEN(S) > 1;"],
  [rec("t",1,{"V":1,"S":"ab"},1), rec("t",1,{"V":2,"S":"c"},2), rec("t",1,{"V":3,"S":"d"},3), rec("t",1,{"V":4,"S":"ef"},4), rec("t",1,None,5)],
  [rec("F",1,{"D":2,"U":"AB","K2":101},1), rec("F",1,None,2), rec("F",1,{"D":8,"U":"EF","K2":101},4), rec("F",1,None,5)])
S = "CREATE STREAM S (ID INT KEY, G STRING, X INT) WITH (kafka_topic='s', value_format='{FORMAT}');"
sin = [rec("s",1,{"G":"a","X":5},1), rec("s",2,{"G":"a","X":10},2), rec("s",3,{"G":"a","X":-8},3), rec("s",4,{"G":"a","X":1},4), rec("s",5,{"G":"a","X":9},5)]
case("a table over an aggregate table: a delete only when the previous total passed",
  [S, "CREATE TABLE AGG AS SELECT G, SUM(X) AS TOTAL FROM S GROUP BY G;", "CREATE TABLE BIG AS SELECT G, TOTAL FROM AGG WHERE TOTAL > 10;"],
  sin,
  [rec("AGG","a",{"TOTAL":5},1), rec("AGG","a",{"TOTAL":15},2), rec("AGG","a",{"TOTAL":7},3), rec("AGG","a",{"TOTAL":8},4), rec("AGG","a",{"TOTAL":17},5),
   rec("BIG","a",{"TOTAL":15},2), rec("BIG","a",None,3), rec("BIG","a",{"TOTAL":17},5)],
  format=["JSON","AVRO"])
case("HAVING filters the aggregate table with its previous row: a delete only when the previous total passed",
  [S, "CREATE TABLE H AS SELECT G, SUM(X) AS TOTAL FROM S GROUP BY G HAVING SUM(X) > 10;"],
  sin,
  [rec("H","a",{"TOTAL":15},2), rec("H","a",None,3), rec("H","a",{"TOTAL":17},5)],
  format=["JSON","AVRO"])
A = "CREATE TABLE A (ID INT PRIMARY KEY, X INT) WITH (kafka_topic='a', value_format='{FORMAT}');"
B = "CREATE TABLE B (ID INT PRIMARY KEY, Y INT) WITH (kafka_topic='b', value_format='{FORMAT}');"
case("a table over an inner table-table join: deletes only for keys whose previous joined row passed",
  [A, B, "CREATE TABLE J AS SELECT A.ID AS ID, X, Y FROM A JOIN B ON A.ID = B.ID WHERE X + Y > 10;"],
  [rec("a",1,{"X":1},1), rec("b",1,{"Y":2},2), rec("b",1,{"Y":20},3), rec("a",1,{"X":-15},4), rec("b",1,None,5),
   rec("a",1,{"X":30},6), rec("b",1,{"Y":1},7), rec("a",1,None,8)],
  [rec("J",1,{"X":1,"Y":20},3), rec("J",1,None,4), rec("J",1,{"X":30,"Y":1},7), rec("J",1,None,8)],
  format=["JSON","AVRO"])
case("a table over a left table-table join: the previous joined row with no right row is filtered too",
  [A, B, "CREATE TABLE J AS SELECT A.ID AS ID, X, Y FROM A LEFT JOIN B ON A.ID = B.ID WHERE Y IS NULL OR X > Y;"],
  [rec("a",1,{"X":5},1), rec("b",1,{"Y":10},2), rec("b",1,{"Y":1},3), rec("b",1,None,4), rec("a",1,None,5), rec("b",2,{"Y":3},6), rec("a",2,{"X":1},7), rec("b",2,None,8)],
  [rec("J",1,{"X":5,"Y":None},1), rec("J",1,None,2), rec("J",1,{"X":5,"Y":1},3), rec("J",1,{"X":5,"Y":None},4), rec("J",1,None,5),
   rec("J",2,{"X":1,"Y":None},8)],
  format=["JSON"])
json.dump({"comments": ["A CREATE TABLE AS SELECT with WHERE over a table (a source table, an aggregate's table, a table-table join's result), and HAVING over an aggregate: ksqlDB's table filter sends old values (Kafka Streams' KTableFilter over a materialized parent), so each update evaluates the WHERE on the new row and on the key's previous row; a delete goes on only when the previous row passed. The previous row is filtered with the ROWTIME of the record being processed and its own ROWPARTITION/ROWOFFSET."], "tests": tests},
  open(sys.argv[1], "w"), indent=1)
