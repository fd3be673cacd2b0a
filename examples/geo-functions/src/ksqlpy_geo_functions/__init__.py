"""Example ksqlpy functions; the entry point names the module ``geo``."""
