"""Nexmark benchmarks of ksqlpy against Python peers and a hand-written ceiling (``python -m bench``)."""
