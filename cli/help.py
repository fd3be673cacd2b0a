"""The text ``help`` prints (kept apart so the session module stays about behaviour)."""

HELP = """\
Statements end with ';' and may span several lines; several may share a line.
CLI commands (no ';' needed, case-insensitive):
    help                     show this text
    output [TABULAR|JSON]    show or change how results are printed
    history                  list the statements entered so far
    spool <file> | spool off copy commands and output to a file
    version                  show the version
    set cli WRAP ON|OFF      wrap long values in query results, or clip them with '...'
    set cli COLUMN-WIDTH n   fixed column width for query results (0: fit the terminal)
    server [url]             show the server, or switch to another one
    request-pipelining [ON|OFF]  whether statements sent to a server wait for the earlier ones (OFF)
    clear                    clear the screen
    exit | quit | Ctrl-D     leave the shell

Keys: Tab completes keywords, functions, streams, tables, columns and properties;
      Up/Down browse history; Ctrl-R searches it; Ctrl-C cancels the input or stops a query;
      a line ending in '\\' continues on the next line.

SQL (ksqlDB dialect):
    CREATE STREAM s (id INT KEY, v STRING) WITH (kafka_topic='s', partitions=1, value_format='JSON');
    CREATE TABLE t AS SELECT id, COUNT(*) AS n FROM s GROUP BY id EMIT CHANGES;
    INSERT INTO s (id, v) VALUES (1, 'hello');
    SELECT * FROM s EMIT CHANGES [LIMIT n];      push query: rows as they arrive (Ctrl-C stops)
    SELECT * FROM s [WHERE ...];                 pull query: the current contents
    PRINT 'topic' [FROM BEGINNING] [INTERVAL n] [LIMIT n];
    SHOW STREAMS | TABLES | TOPICS | QUERIES | PROPERTIES | FUNCTIONS | TYPES | VARIABLES;
    DESCRIBE [EXTENDED] <name>;   DESCRIBE FUNCTION <name>;   EXPLAIN <query id>;
    DROP STREAM|TABLE [IF EXISTS] <name> [DELETE TOPIC];   TERMINATE <query id> | ALL;
    SET 'auto.offset.reset'='earliest';   UNSET 'auto.offset.reset';
    DEFINE name = 'value';   UNDEFINE name;   (then use ${name} in statements)
    RUN SCRIPT '/path/to/file.sql';
"""
