-- a single-partition source: grouping by a value column still repartitions (the plan does not depend on the partition count, as in ksqlDB)
CREATE TABLE KINDS AS SELECT KIND, COUNT(*) AS N FROM EVENTS GROUP BY KIND;
