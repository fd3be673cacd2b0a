-- a table's rows projected and filtered: a table again
CREATE TABLE EU_CUSTOMERS AS SELECT ID, UCASE(NAME) AS NAME FROM CUSTOMERS WHERE REGION = 'EU';
