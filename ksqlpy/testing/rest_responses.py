"""Judging a REST case by what came back, as ksqlDB's REST test harness does: the expected error (its class
or a subclass, the status, the message contained), the expected responses as a prefix of the actual ones
(admin entities by the fields given, whole; query elements with the rows as a multiset; protobuf pull
queries as texts). ``Done`` ends a case with its outcome."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ksqlpy.testing import exactjson
from ksqlpy.testing.compare import value_diff
from ksqlpy.testing.model import Case
from ksqlpy.testing.report import FAILED, PASSED, SKIPPED, normalize
from ksqlpy.testing.rest_protobuf import text_diff

# ksqlDB's REST error entities by class: an expected class matches its subclasses too
ERROR_TYPES: dict[str, frozenset[str]] = {
    "KsqlErrorMessage": frozenset({"generic_error", "statement_error"}),
    "KsqlStatementErrorMessage": frozenset({"statement_error"}),
}


class Done(Exception):
    """A case's outcome (passed, failed with a reason and a group, skipped), raised where it is known."""

    def __init__(self, status: str, reason: str = "", group: str = "") -> None:
        super().__init__(reason)
        self.status, self.reason, self.group = status, reason, group


def judge_error(case: Case, status: int, body: Any, what: str) -> None:
    """A failed request (``what``) ends the case: passed if the case expects this error, else failed."""
    message = body.get("message", "") if isinstance(body, dict) else str(body)
    exp = case.expected_error
    if exp is None:
        raise Done(FAILED, f"{what} failed: HTTP {status}: {message}",
                   f"{what} error: {normalize(message)}")
    problems = []
    if exp.get("status") is not None and int(exp["status"]) != status:
        problems.append(f"status {status}, expected {exp['status']}")
    want_type = str(exp.get("type") or "").rsplit(".", 1)[-1]
    got_type = body.get("@type") if isinstance(body, dict) else None
    if want_type and not error_type_matches(want_type, got_type):
        problems.append(f"error type {got_type or '?'}, expected {want_type} or a subclass")
    if exp.get("message") and exp["message"] not in message:
        problems.append(f"message {message!r} does not contain {exp['message']!r}")
    if problems:
        raise Done(FAILED, "; ".join(problems), f"expected error not matched: {normalize(exp.get('message', ''))}")
    raise Done(PASSED)


def compare_responses(expected: list[Any], actual: list[Any], statements: list[str] | None = None) -> None:
    """``expected`` is a prefix of ``actual``: at least as many responses came back, and each listed one
    matches."""
    statements = statements or []
    if len(actual) < len(expected):
        raise Done(FAILED, f"{len(actual)} responses, expected at least {len(expected)}: {show(actual)}",
                   "response count mismatch")
    for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
        if "admin" in e:
            if "admin" not in a:
                raise Done(FAILED, f"response {i}: expected an admin entity, got {show(a)}", "response kind")
            problem = admin_diff(e["admin"], a["admin"], statements[i] if i < len(statements) else "")
            if problem:
                raise Done(FAILED, f"response {i}: {problem}", "admin entity mismatch")
        elif "query" in e:
            if "query" not in a or not isinstance(a["query"], list):
                raise Done(FAILED, f"response {i}: expected query output, got {show(a)}", "response kind")
            compare_query(i, e["query"], a["query"])
        elif "queryProto" in e:
            if "queryProto" not in a:
                raise Done(FAILED, f"response {i}: expected protobuf query output, got {show(a)}",
                           "response kind")
            compare_proto_query(i, e["queryProto"], a["queryProto"], a["schemas"])
        else:
            raise Done(SKIPPED, f"Unsupported: response kind {sorted(e)}")


def compare_query(i: int, expected: list[Any], actual: list[Any]) -> None:
    """As many elements; the others than rows (header, final message) in their order, the rows as a
    multiset: no query defines an order of its rows (a scan visits partitions in store order, a push
    query's rows interleave partitions)."""
    if len(expected) != len(actual):
        raise Done(FAILED, f"query {i}: {len(actual)} elements, expected {len(expected)}: got {show(actual)}; "
                   f"expected {show(expected)}", "query element count mismatch")
    others_e = [e for e in expected if not is_row(e)]
    others_a = [a for a in actual if not is_row(a)]
    if len(others_e) != len(others_a):
        raise Done(FAILED, f"query {i}: expected {show(others_e)} besides the rows, got {show(others_a)}",
                   "query element mismatch")
    for j, (e, a) in enumerate(zip(others_e, others_a, strict=True)):
        problem = subset_diff(e, a, f"query[{j}]", exact_rows=True)
        if problem:
            raise Done(FAILED, f"query {i}: {problem}", f"query {next(iter(e), '?')} mismatch")
    rows_e = [e for e in expected if is_row(e)]
    rows_a = [a for a in actual if is_row(a)]
    unmatched = unmatched_rows(rows_e, rows_a, lambda e, a: subset_diff(e, a, "row") is None)
    if unmatched:
        raise Done(FAILED, f"query {i}: no row matches {show(unmatched[0])} among {show(rows_a)}",
                   "query row mismatch")


def compare_proto_query(i: int, expected: list[Any], actual: list[Any], schemas: dict[str, Any]) -> None:
    """A ``queryProto`` response: the header's given fields, then rows (any order: a pull query) as texts."""
    rows_e = [e["row"] for e in expected if isinstance(e, dict) and "row" in e]
    rows_a = [a["row"] for a in actual if isinstance(a, dict) and "row" in a]
    rest_e = [e for e in expected if not (isinstance(e, dict) and "row" in e)]
    rest_a = [a for a in actual if not (isinstance(a, dict) and "row" in a)]
    if len(rows_e) != len(rows_a) or len(rest_e) != len(rest_a):
        raise Done(FAILED, f"protobuf query {i}: got {show(actual)}; expected {show(expected)}",
                   "protobuf query element count mismatch")
    for j, (e, a) in enumerate(zip(rest_e, rest_a, strict=True)):
        problem = subset_diff(e, a, f"queryProto[{j}]")
        if problem:
            raise Done(FAILED, f"protobuf query {i}: {problem}", f"queryProto {next(iter(e), '?')} mismatch")
    unused = list(rows_a)
    for e in rows_e:
        match = next((a for a in unused if isinstance(a, str) and text_diff(str(e), a, schemas) is None), None)
        if match is None:
            raise Done(FAILED, f"protobuf query {i}: no row matches {e!r} among {unused!r}",
                       "protobuf query row mismatch")
        unused.remove(match)


def error_type_matches(expected_class: str, got_type: str | None) -> bool:
    """Does an error entity of ``@type`` ``got_type`` satisfy an expected error class (short name)?"""
    known = ERROR_TYPES.get(expected_class)
    if known is not None:
        return got_type in known
    return bool(got_type) and str(got_type).lower() == expected_class.lower()


def admin_diff(expected: Any, actual: Any, statement: str) -> str | None:
    """ksqlDB's admin check: each top-level field the case gives is in the entity and equal to it, the
    whole value (``{STATEMENT}`` in an expected string stands for the statement the response is for)."""
    if not isinstance(expected, dict) or not isinstance(actual, dict):
        return f"admin: expected an object {show(expected)}, got {show(actual)}"
    for k, want in expected.items():
        if k not in actual:
            return f"admin: missing {k!r} in {show(actual)}"
        d = value_diff(_macros(want, statement), actual[k], f"admin.{k}")
        if d:
            return d
    return None


def _macros(value: Any, statement: str) -> Any:
    if isinstance(value, str):
        return value.replace("{STATEMENT}", statement)
    if isinstance(value, list):
        return [_macros(v, statement) for v in value]
    if isinstance(value, dict):
        return {k: _macros(v, statement) for k, v in value.items()}
    return value


def is_row(element: Any) -> bool:
    return isinstance(element, dict) and "row" in element


def unmatched_rows(expected: list[Any], actual: list[Any], matches: Callable[[Any, Any], bool]) -> list[Any]:
    """The expected rows left over by the best one-to-one matching with ``actual`` (a multiset comparison
    that an expected row matching several actual ones cannot fool: augmenting paths, as in bipartite
    matching)."""
    edges = [[k for k, a in enumerate(actual) if matches(e, a)] for e in expected]
    owner: dict[int, int] = {}

    def place(j: int, seen: set[int]) -> bool:
        for k in edges[j]:
            if k in seen:
                continue
            seen.add(k)
            if k not in owner or place(owner[k], seen):
                owner[k] = j
                return True
        return False

    placed = {j for j in range(len(expected)) if place(j, set())}
    return [e for j, e in enumerate(expected) if j not in placed]


def show(v: Any, limit: int = 400) -> str:
    try:
        text = exactjson.dumps(v)
    except Exception:  # noqa: BLE001
        text = repr(v)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def subset_diff(expected: Any, actual: Any, path: str, exact_rows: bool = False) -> str | None:
    """Fields given in ``expected`` must match ``actual``; ``name|starts_with`` compares a prefix.
    Row ``columns`` compare exactly (values by compare.value_diff)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected an object, got {show(actual)}"
        for k, ev in expected.items():
            if "|" in k:
                name, op = k.split("|", 1)
                av = actual.get(name)
                if op == "starts_with":
                    if not isinstance(av, str) or not av.startswith(str(ev)):
                        return f"{path}.{name}: {av!r} does not start with {ev!r}"
                    continue
                return f"{path}.{name}: unknown matcher {op}"
            if k not in actual:
                return f"{path}: missing {k!r} in {show(actual)}"
            if k in ("columns", "tombstone") or not isinstance(ev, dict | list):
                d = value_diff(ev, actual[k], f"{path}.{k}")
                if d:
                    return f"{d} (actual {show(actual)})"
            else:
                d = subset_diff(ev, actual[k], f"{path}.{k}")
                if d:
                    return d
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{path}: expected {show(expected)}, got {show(actual)}"
        for j, (e, a) in enumerate(zip(expected, actual, strict=True)):
            d = subset_diff(e, a, f"{path}[{j}]")
            if d:
                return d
        return None
    return value_diff(expected, actual, path)
