"""ksqlpy."""
