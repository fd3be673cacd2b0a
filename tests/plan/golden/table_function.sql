-- a table function: one row per element
CREATE STREAM ORDER_TAGS AS SELECT ID, EXPLODE(TAGS) AS TAG FROM ORDERS;
