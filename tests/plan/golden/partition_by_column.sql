-- PARTITION BY a value column: re-keyed, the old key moves into the value
CREATE STREAM BY_ITEM AS SELECT ITEM, ID, AMOUNT FROM ORDERS PARTITION BY ITEM;
