-- GROUP BY several columns: a key of several columns (in a format that holds several)
CREATE TABLE PER_ITEM_CUSTOMER WITH (KEY_FORMAT='JSON') AS SELECT ITEM, CUSTOMER, COUNT(*) AS N FROM ORDERS GROUP BY ITEM, CUSTOMER;
