-- GROUP BY over a table: updates retract earlier contributions (a store of them before the repartition)
CREATE TABLE PER_REGION AS SELECT REGION, COUNT(*) AS N FROM CUSTOMERS GROUP BY REGION;
