-- a push query on a stream: no sink, rows to the caller
SELECT ID, ITEM FROM ORDERS WHERE AMOUNT > 1 EMIT CHANGES LIMIT 5;
