-- a LEFT stream-stream join with a grace period: unmatched records wait in a shared store
CREATE STREAM MAYBE_PAID AS SELECT O.ID, P.PAID FROM ORDERS O LEFT JOIN PAYMENTS P WITHIN (1 HOUR, 2 HOURS) GRACE PERIOD 10 MINUTES ON O.ID = P.ORDER_ID;
