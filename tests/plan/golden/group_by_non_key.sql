-- GROUP BY a value column: rows move to their group's partition first
CREATE TABLE ORDERS_PER_ITEM AS SELECT ITEM, COUNT(*) AS N, SUM(AMOUNT) AS TOTAL FROM ORDERS GROUP BY ITEM;
