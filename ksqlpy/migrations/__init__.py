"""``ksqlpy migrations``: ksqlDB's ``ksql-migrations`` tool - a project of versioned SQL files applied in
order to a server, with the applied versions kept in a stream and table on that server."""
