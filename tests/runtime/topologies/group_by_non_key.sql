-- GROUP BY a value column over 4 partitions: a repartition topic between two sub-topologies
CREATE TABLE PER_CUSTOMER AS SELECT CUSTOMER, COUNT(*) AS N, SUM(AMOUNT) AS TOTAL FROM ORDERS GROUP BY CUSTOMER;
