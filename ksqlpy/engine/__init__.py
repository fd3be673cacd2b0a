"""The engine: one object every front door talks to."""

from ksqlpy.engine.engine import Engine
from ksqlpy.engine.results import StatementResult

__all__ = ["Engine", "StatementResult"]
