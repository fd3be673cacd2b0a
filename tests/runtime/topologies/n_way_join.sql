-- three sources: the first join's result re-keyed for the second (L_ names the nested join)
CREATE STREAM FULL_ORDERS AS SELECT R.NAME AS REGION, O.ID, C.NAME, R.MANAGER FROM ORDERS O JOIN CUSTOMERS C ON O.CUSTOMER = C.ID JOIN REGIONS R ON C.REGION = R.NAME;
