-- stream-table join on the table's key: the stream is repartitioned by its join column
CREATE STREAM ENRICHED AS SELECT O.CUSTOMER AS CUSTOMER, O.ITEM, C.NAME FROM ORDERS O JOIN CUSTOMERS C ON O.CUSTOMER = C.ID;
