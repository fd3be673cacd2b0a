-- GROUP BY the source key: groups stay in their partition, one sub-topology
CREATE TABLE ORDER_TOTALS AS SELECT ID, SUM(AMOUNT) AS TOTAL FROM ORDERS GROUP BY ID;
