-- a pull query naming the key: looked up
SELECT * FROM CUSTOMERS WHERE ID = 7;
