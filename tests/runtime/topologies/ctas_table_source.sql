-- CTAS over a table: a filter and projection, materialized for pull queries
CREATE TABLE EU_CUSTOMERS AS SELECT ID, NAME FROM CUSTOMERS WHERE REGION = 'EU';
