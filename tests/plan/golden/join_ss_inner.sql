-- stream-stream inner join on a non-key: both sides repartitioned
CREATE STREAM PAID_ORDERS AS SELECT O.ID AS ID, O.ITEM, P.PAID FROM ORDERS O JOIN PAYMENTS P WITHIN 1 HOUR ON O.ID = P.ORDER_ID;
