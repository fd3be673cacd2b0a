"""What a statement is analysed and compiled against, owned by one engine (DataFusion's SessionState).

An ``Engine`` holds one function registry (built-ins plus the extension functions its properties name),
its properties and its catalog's custom types. Analysis, the expression compiler and the runtime's code
generation get them from a ``SessionState`` passed down explicitly - nothing of it is process-global, so
two engines in one process never see each other's functions. A worker process or a Spark executor gets
the same registry back when the state (or a plan holding its registry) is unpickled: a registry pickles
as the recipe it was loaded from (``ksqlpy.functions.registry.FunctionRegistry.__reduce__``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.plan.rules import PLAN_RULES
from ksqlpy.types import SqlType


@dataclass(frozen=True)
class SessionState:
    """The engine's functions, the properties in force for one statement, the custom types, and the plan rule
    revision (``plan.rules``) the statement is planned under - a replayed command's own, for the rules
    analysis decides (a join's key format)."""

    functions: FunctionRegistry
    properties: Mapping[str, Any] = field(default_factory=dict)
    types: Mapping[str, SqlType] = field(default_factory=dict)
    plan_rules: int = PLAN_RULES


__all__ = ["SessionState"]
