-- GROUP BY over a table: aggregates that can retract; a table's groups always move
CREATE TABLE CUSTOMERS_PER_REGION AS SELECT REGION, COUNT(*) AS N FROM CUSTOMERS GROUP BY REGION;
