-- stream-stream join on a non-key of the right side: the right side is repartitioned
CREATE STREAM PAID_ORDERS AS SELECT O.ID, O.ITEM, P.PAID FROM ORDERS O JOIN PAYMENTS P WITHIN 1 HOUR ON O.ID = P.ORDER_ID;
