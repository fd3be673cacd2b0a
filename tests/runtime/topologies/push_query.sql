-- a push query (EXPLAIN of a statement that is not run): a transient topology, rows to the caller
EXPLAIN SELECT CUSTOMER, COUNT(*) FROM ORDERS GROUP BY CUSTOMER EMIT CHANGES;
