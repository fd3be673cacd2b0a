-- PARTITION BY a value column: re-keyed in the pipeline, the sink partitions by the new key
CREATE STREAM BY_CUSTOMER AS SELECT * FROM ORDERS PARTITION BY CUSTOMER;
