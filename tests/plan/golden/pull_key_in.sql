-- keys in an IN list, and an OR of keys: several lookups
SELECT NAME FROM CUSTOMERS WHERE ID IN (1, 2) OR ID = 5;
