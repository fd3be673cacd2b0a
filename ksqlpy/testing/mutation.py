"""Self-check of the runner: change one expected thing of a case; a run that still passes was not checking.

Used by the tests and by ``ksqlpy test --mutate``. The mutation touches, in this order of preference,
the expected error message (a case expecting one is judged by it alone), the value of the first expected
output (its first leaf), or the first expected post source schema. A REST case (``mutate_rest``): its
expected error message, else the first column of the first expected query row, else the first field of
the first expected admin entity, else its first output.
"""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

from ksqlpy.testing.exactjson import JsonNumber
from ksqlpy.testing.model import Case


def mutate(case: Case) -> tuple[Case, str] | None:
    """A copy of ``case`` with one expectation changed, and what was changed; None if nothing to change."""
    m = copy.deepcopy(case)
    # a case expecting an error is judged by it alone (its outputs are not checked, as in ksqlDB's harness)
    if m.expected_exception is not None and m.expected_exception.message:
        m.expected_exception.message += " <mutated>"
        return m, "expectedException.message"
    if m.outputs:
        record = m.outputs[0]
        record.value, what = _mutate_value(record.value)
        return m, f"outputs[0].value{what}"
    if m.post is not None:
        for source in m.post.sources:
            if source.schema is not None:
                source.schema += ", MUTATED_COLUMN INT"
                return m, f"post.sources[{source.name}].schema"
    return None


def _mutate_value(value: Any) -> tuple[Any, str]:
    """A different value and the path that changed (the first leaf of objects and arrays)."""
    if isinstance(value, dict):
        if not value:
            return {"MUTATED": 1}, ""
        k = next(iter(value))
        value = dict(value)
        value[k], path = _mutate_value(value[k])
        return value, f".{k}{path}"
    if isinstance(value, list):
        if not value:
            return ["mutated"], ""
        value = list(value)
        value[0], path = _mutate_value(value[0])
        return value, f"[0]{path}"
    if value is None:
        return "mutated", ""
    if isinstance(value, bool):
        return not value, ""
    if isinstance(value, int):
        return value + 1, ""
    if isinstance(value, Decimal):
        return JsonNumber(str(value + 1)), ""
    if isinstance(value, float):
        return value + 1, ""
    return f"{value}<mutated>", ""


def mutate_rest(case: Case) -> tuple[Case, str] | None:
    """``mutate`` for a REST case: what its ``responses`` and ``expectedError`` expect first."""
    m = copy.deepcopy(case)
    if m.expected_error is not None and m.expected_error.get("message"):
        m.expected_error["message"] = str(m.expected_error["message"]) + " <mutated>"
        return m, "expectedError.message"
    responses = m.responses or []
    for i, response in enumerate(responses):
        for element in response.get("query", []) if isinstance(response, dict) else []:
            columns = element.get("row", {}).get("columns") if isinstance(element, dict) else None
            if columns:
                columns[0], path = _mutate_value(columns[0])
                return m, f"responses[{i}].query row columns[0]{path}"
    for i, response in enumerate(responses):
        admin = response.get("admin") if isinstance(response, dict) else None
        if isinstance(admin, dict) and admin:
            k = next(iter(admin))
            admin[k], path = _mutate_value(admin[k])
            return m, f"responses[{i}].admin.{k}{path}"
    if m.outputs:
        m.outputs[0].value, what = _mutate_value(m.outputs[0].value)
        return m, f"outputs[0].value{what}"
    return None
