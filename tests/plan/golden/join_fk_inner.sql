-- foreign-key table-table join: the left table's column names the right table's key
CREATE TABLE ACCOUNT_OWNERS AS SELECT A.ID AS ID, A.BALANCE, C.NAME FROM ACCOUNTS A JOIN CUSTOMERS C ON A.CUSTOMER = C.ID;
