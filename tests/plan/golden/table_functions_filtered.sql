-- two table functions after a filter, with other columns
CREATE STREAM ORDER_TAGS_2 AS SELECT ID, ITEM, EXPLODE(TAGS) AS TAG, EXPLODE(ARRAY[1, 2]) AS N FROM ORDERS WHERE AMOUNT > 0;
