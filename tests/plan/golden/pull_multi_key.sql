-- every key column of a composite key given: a lookup
SELECT PRICE FROM PRICES WHERE SKU = 'a' AND STORE = 3;
