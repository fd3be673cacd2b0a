-- SELECT *: the key, then the value columns in declaration order
CREATE STREAM COPY AS SELECT * FROM ORDERS;
