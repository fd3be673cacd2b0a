-- a join, then GROUP BY its key: aggregated in the task completing the join
CREATE TABLE SALES_PER_CUSTOMER AS SELECT C.ID, COUNT(*) AS N FROM ORDERS O JOIN CUSTOMERS C ON O.CUSTOMER = C.ID GROUP BY C.ID;
