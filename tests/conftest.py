"""Fixtures shared by every test directory (kept in plugin modules beside this file)."""

from kafka_broker import bootstrap, kafka_broker  # noqa: F401 - fixtures, registered by import
