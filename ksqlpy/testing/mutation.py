"""Self-check of the runner: change one expected thing of a case; a run that still passes was not checking.

Used by the tests and by ``ksqlpy test --mutate``. ``mutate``: one change, in this order of preference,
the expected error message (a case expecting one is judged by it alone), the value of the first expected
output (its first leaf), or the first expected post source schema. ``mutants``: that change and one per
other thing ksqlDB's TestExecutor checks of a record (``validateTopicData``/``validateCreatedMessage``):
the last expected output's key, its value, its timestamp and its window, the number of records of its
topic, and the order of two records of one key. A REST case (``mutate_rest``): its
expected error message, else the first column of the first expected query row, else the first field of
the first expected admin entity, else its first output.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from decimal import Decimal
from typing import Any

from ksqlpy.testing.exactjson import JsonNumber
from ksqlpy.testing.model import Case, TestRecord


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


def mutants(case: Case) -> list[tuple[Case, str]]:
    """Every single-expectation change of ``case`` whose run must fail where the original passes: ``mutate``'s
    first, then (a case not expecting an error) for its last expected output: the key; the value's first
    leaf (when it is not the first output, which ``mutate`` changed); the timestamp, where the runner
    compares it (given, and not the 0 a case without inputs leaves unchecked); the window end; the record
    dropped (when its topic keeps another: a topic expected with no records is not checked, as in ksqlDB);
    and the first two outputs of one topic swapped when they share a key (the same partition under any
    placement) and differ in something compared (``_distinct``)."""
    first = mutate(case)
    out = [first] if first is not None else []
    if case.expected_exception is not None or not case.outputs:
        return out
    last = len(case.outputs) - 1
    r = case.outputs[last]

    def with_last(what: str, **changes: Any) -> None:
        m = copy.deepcopy(case)
        m.outputs[last] = replace(copy.deepcopy(r), **changes)
        out.append((m, f"outputs[{last}].{what}"))

    with_last("key", key=_mutate_value(r.key)[0])
    if last > 0:
        value, path = _mutate_value(r.value)
        with_last(f"value{path}", value=value)
    if r.timestamp is not None and (case.inputs or r.timestamp != 0):
        with_last("timestamp", timestamp=r.timestamp + 1)
    if r.window is not None:
        with_last("window.end", window=replace(r.window, end=r.window.end + 1))
    if sum(o.topic == r.topic for o in case.outputs) > 1:
        m = copy.deepcopy(case)
        del m.outputs[last]
        out.append((m, f"outputs[{last}] dropped"))
    same = [i for i, o in enumerate(case.outputs) if o.topic == case.outputs[0].topic]
    if len(same) > 1:
        i, j = same[0], same[1]
        if case.outputs[i].key == case.outputs[j].key and _distinct(case, case.outputs[i], case.outputs[j]):
            m = copy.deepcopy(case)
            m.outputs[i], m.outputs[j] = m.outputs[j], m.outputs[i]
            out.append((m, f"outputs[{i}] and [{j}] swapped"))
    return out


def _distinct(case: Case, a: TestRecord, b: TestRecord) -> bool:
    """Do two expected records of one key differ in what the runner compares? Their windows, their
    compared timestamps, or their values - objects only in the fields both give (a field only one gives
    may lie outside the sink's schema, where expected records ignore it)."""
    if a.window != b.window:
        return True
    if a.timestamp is not None and b.timestamp is not None and a.timestamp != b.timestamp and (
            case.inputs or 0 not in (a.timestamp, b.timestamp)):
        return True
    if isinstance(a.value, dict) and isinstance(b.value, dict):
        return any(a.value[k] != b.value[k] for k in a.value.keys() & b.value.keys())
    return bool(a.value != b.value)


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
    # numbers move by at least their own magnitude: a DOUBLE of 3e18 plus one is the same double
    if isinstance(value, int):
        return value + max(1, abs(value)), ""
    if isinstance(value, Decimal):
        return JsonNumber(str(value + max(Decimal(1), abs(value)))), ""
    if isinstance(value, float):
        return value + max(1.0, abs(value)), ""
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
