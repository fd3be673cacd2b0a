-- GROUP BY the stream's key: the groups are already partitioned, no repartition
CREATE TABLE ORDERS_PER_ID AS SELECT ID, COUNT(*) AS N FROM ORDERS GROUP BY ID;
