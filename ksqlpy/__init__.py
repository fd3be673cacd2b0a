"""ksqlpy: a SQL-first streaming engine in the style of ksqlDB."""

__version__ = "0.1.0"
