-- PARTITION BY an expression: the key column is named KSQL_COL_0 unless selected with a name
CREATE STREAM BY_UPPER AS SELECT UCASE(ITEM) AS UP, ID FROM ORDERS PARTITION BY UCASE(ITEM);
