-- stream-table join on the stream's CUSTOMER column: the stream side is repartitioned
CREATE STREAM ENRICHED AS SELECT C.ID AS CUSTOMER, O.ID AS ORDER_ID, O.ITEM, C.NAME FROM ORDERS O JOIN CUSTOMERS C ON O.CUSTOMER = C.ID;
