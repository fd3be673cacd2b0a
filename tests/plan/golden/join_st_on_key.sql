-- stream-table join on the stream's key: nothing moves
CREATE STREAM BY_SAME_ID AS SELECT O.ID AS ID, C.NAME FROM ORDERS O JOIN CUSTOMERS C ON O.ID = C.ID;
