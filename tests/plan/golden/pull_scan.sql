-- no key in the WHERE: the table is scanned
SELECT ID, NAME FROM CUSTOMERS WHERE REGION = 'EU';
