-- foreign-key join: two sub-topologies talking through subscription and response topics
CREATE TABLE ACCOUNT_OWNERS AS SELECT A.ID, A.BALANCE, C.NAME FROM ACCOUNTS A JOIN CUSTOMERS C ON A.CUSTOMER = C.ID;
