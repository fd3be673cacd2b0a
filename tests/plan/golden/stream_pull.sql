-- a SELECT without EMIT on a stream reads the topic to its end: a push plan
SELECT * FROM ORDERS;
