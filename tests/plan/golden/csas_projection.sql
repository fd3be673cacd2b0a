-- projection: columns, an expression, a function call; the stream's key kept
CREATE STREAM BIG_ORDERS AS SELECT ID, ITEM, AMOUNT * 2 AS DOUBLED, UCASE(ITEM) FROM ORDERS;
