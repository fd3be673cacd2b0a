-- GROUP BY an expression, selected: the key column takes the select item's name
CREATE TABLE PER_UPPER AS SELECT UCASE(ITEM) AS UP, MAX(AMOUNT) AS TOP FROM ORDERS GROUP BY UCASE(ITEM);
