-- a table in another key format: re-keyed into the stream's
CREATE STREAM WITH_MANAGER AS SELECT O.ITEM AS ITEM, R.MANAGER FROM ORDERS O JOIN JSON_REGIONS R ON O.ITEM = R.NAME;
