-- a stream-table join, then GROUP BY a non-key column: the JOIN with both sources under the aggregate
CREATE TABLE SALES_PER_REGION AS SELECT C.REGION, COUNT(*) AS N, SUM(O.AMOUNT) AS TOTAL FROM ORDERS O JOIN CUSTOMERS C ON O.CUSTOMER = C.ID GROUP BY C.REGION;
