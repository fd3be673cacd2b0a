"""Run statements and curl-style requests as a new user types them from ksqlDB's documentation, and sort
each answer into right / different / failing.

A *step* is what one person sends at once: the text of one or more statements for ``/ksql``, or one
``SELECT``/``PRINT`` for ``/query-stream`` (or ``/query``), with the body fields the documentation shows.
Its expectation says what ksqlDB answers; ``classify`` compares:

* ``failing``: the server broke (5xx, a dropped connection, a timeout, a Python exception text in a
  message) or refused what ksqlDB accepts;
* ``different``: answered, but not as ksqlDB does (another entity, other rows, another message);
* ``right``: everything the expectation names matches.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

import httpx

_LEADING_NOISE = re.compile(r"^(\s+|--[^\n]*\n?|/\*.*?\*/)+", re.DOTALL)
_PY_LEAK = re.compile(r"Traceback|object has no attribute|NoneType|KeyError|TypeError|IndexError|"
                      r"ValueError|AttributeError|unsupported operand|not subscriptable|Internal error")


class Outcome(StrEnum):
    RIGHT = "right"
    DIFFERENT = "different"
    FAILING = "failing"


@dataclass
class Expect:
    """What ksqlDB answers. Unset fields are not compared.

    ``entities``: the ``@type`` of each /ksql entity in order; ``status``: the HTTP status; ``error_code``
    and ``message`` (a substring, or a regex when it starts with ``re:``) of a refusal; ``columns``: a
    query's column names; ``rows``: its rows as a multiset (``ordered`` keeps their order); ``text``:
    substrings the body must contain; ``check``: any other look at the parsed answer (returns a
    difference, or None)."""

    status: int = 200
    entities: list[str] | None = None
    error_code: int | None = None
    message: str | None = None
    columns: list[str] | None = None
    rows: list[list[Any]] | None = None
    ordered: bool = False
    text: list[str] = field(default_factory=list)
    check: Any = None


def ok(*entities: str, **kw: Any) -> Expect:
    return Expect(entities=list(entities), **kw)


def refused(error_code: int, message: str | None = None, status: int | None = None) -> Expect:
    return Expect(status=status or error_code // 100, error_code=error_code, message=message)


def rows(columns: list[str] | None, values: list[list[Any]], **kw: Any) -> Expect:
    return Expect(columns=columns, rows=values, **kw)


@dataclass
class Step:
    """One request. ``sql`` is sent exactly as written (comments, case, line breaks and ``;`` kept).

    ``endpoint``: ``/ksql``, ``/query-stream`` or ``/query``; chosen from the statement when None.
    ``body``: extra request fields (``streamsProperties``, ``properties``, ``sessionVariables``).
    ``take``: for a push query without LIMIT, how many rows to read before closing it. ``wait``: retry
    (pull queries over what a persistent query is still writing) until right or this many seconds."""

    sql: str
    expect: Expect = field(default_factory=Expect)
    endpoint: str | None = None
    body: dict[str, Any] = field(default_factory=dict)
    accept: str | None = None
    take: int | None = None
    wait: float = 0.0
    raw_body: str | None = None  # sent instead of a JSON body built from ``sql``
    headers_only: bool = False  # a stream that may stay silent: only its status and first bytes are checked
    # what ksqlDB answers when the same request comes over HTTP/2, where that differs (the pages' curl
    # calls are HTTP/1.1; ksqlDB's legacy /query handler - PRINT, unmigrated queries - refuses HTTP/2)
    http2_expect: Expect | None = None
    method: str = "POST"  # GET for the pages' read-only endpoints (/info, /healthcheck, /status, ...)
    pause: float = 0.0  # seconds a reader takes before sending it (what wall-clock throttles see)


@dataclass
class Result:
    step: Step
    outcome: Outcome
    detail: str


def statement_kind(sql: str) -> str:
    return _LEADING_NOISE.sub("", sql).split(None, 1)[0].upper() if sql.strip() else ""


def endpoint_for(step: Step) -> str:
    if step.endpoint:
        return step.endpoint
    return "/query-stream" if statement_kind(step.sql) in ("SELECT", "PRINT") else "/ksql"


class Runner:
    """Sends steps to one server, shared by every scenario of a test module."""

    def __init__(self, url: str, http2: bool = False) -> None:
        self.url = url
        self.http2 = http2
        self.client = httpx.Client(base_url=url, http1=not http2, http2=http2, timeout=30)
        self.results: list[Result] = []

    def close(self) -> None:
        self.client.close()

    def run(self, step: Step) -> Result:
        time.sleep(step.pause)
        end = time.monotonic() + step.wait
        while True:
            result = self._once(step)
            if result.outcome is Outcome.RIGHT or time.monotonic() >= end:
                break
            time.sleep(0.2)
        self.results.append(result)
        return result

    def _once(self, step: Step) -> Result:
        if self.http2 and step.http2_expect is not None:
            step = replace(step, expect=step.http2_expect)
        ep = endpoint_for(step)
        try:
            status, answer, text = self._send(step, ep)
        except (httpx.HTTPError, OSError) as e:
            return Result(step, Outcome.FAILING, f"transport: {type(e).__name__}: {e}")
        return classify(step, ep, status, answer, text)

    def _send(self, step: Step, ep: str) -> tuple[int, Any, str]:
        headers = {"Accept": step.accept} if step.accept else {}
        if step.raw_body is not None:
            content = step.raw_body.encode()
        else:
            key = "sql" if ep == "/query-stream" else "ksql"
            content = json.dumps({key: step.sql, **step.body}).encode()
        if step.method != "POST":
            r = self.client.request(step.method, ep, headers=headers)
            return r.status_code, _json(r.text), r.text
        if ep != "/query-stream" and ep != "/query":
            r = self.client.post(ep, content=content, headers=headers)
            return r.status_code, _json(r.text), r.text
        with self.client.stream("POST", ep, content=content, headers=headers) as r:
            if r.status_code != 200:
                r.read()
                return r.status_code, _json(r.text), r.text
            if step.headers_only:
                return 200, None, ""
            lines: list[str] = []
            buf = ""
            deadline = time.monotonic() + 20
            for chunk in r.iter_text():
                buf += chunk
                *done, buf = buf.split("\n")
                lines += [x for x in done if x.strip()]
                if step.take is not None and len(lines) > step.take:
                    break
                if time.monotonic() > deadline:
                    lines.append('{"timeout": true}')
                    break
            if buf.strip():
                lines.append(buf)
            return 200, _stream_items(lines, ep, r.headers.get("content-type", "")), "\n".join(lines)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _stream_items(lines: list[str], ep: str, ctype: str) -> dict[str, Any]:
    """A streamed answer as {columns, rows, messages}, whichever wire format came back."""
    out: dict[str, Any] = {"columns": None, "rows": [], "messages": [], "lines": lines}
    if "application/json" in ctype and len(lines) == 1 and isinstance(_json(lines[0]), list):
        whole = _json(lines[0])  # the application/json answer: one array, metadata first
        lines = [json.dumps(x) for x in whole]
    for line in lines:
        # the StreamedRow format is a JSON array written one element per line
        item = _json(line.strip().lstrip("[").rstrip(",").rstrip("]")) if "vnd.ksql.v1" in ctype else _json(line)
        if isinstance(item, dict) and "header" in item:
            schema = item["header"].get("schema", "")
            out["columns"] = re.findall(r"`([^`]+)` ", schema)
        elif isinstance(item, dict) and "columnNames" in item:
            out["columns"] = item["columnNames"]
        elif isinstance(item, dict) and "row" in item:
            out["rows"].append(item["row"]["columns"])
        elif isinstance(item, list):
            out["rows"].append(item)
        elif isinstance(item, dict):
            out["messages"].append(item)
        else:
            out["messages"].append(line)
    return out


def _matches(pattern: str, text: str) -> bool:
    if pattern.startswith("re:"):
        return re.search(pattern[3:], text) is not None
    return pattern in text


def _norm(rows_: list[list[Any]]) -> Counter[str]:
    return Counter(json.dumps(r, sort_keys=True) for r in rows_)


def classify(step: Step, ep: str, status: int, answer: Any, text: str) -> Result:
    e = step.expect

    def res(outcome: Outcome, detail: str) -> Result:
        return Result(step, outcome, detail)

    if (status >= 500 and status != e.status) or _PY_LEAK.search(text or ""):
        return res(Outcome.FAILING, f"{status}: {text[:400]}")
    if status != e.status:
        bad = Outcome.FAILING if e.status == 200 else Outcome.DIFFERENT
        return res(bad, f"status {status} (expected {e.status}): {text[:400]}")
    if status != 200:
        if not isinstance(answer, dict):
            return res(Outcome.DIFFERENT, f"error body is not an error envelope: {text[:300]}")
        if e.error_code is not None and answer.get("error_code") != e.error_code:
            return res(Outcome.DIFFERENT, f"error_code {answer.get('error_code')} (expected {e.error_code}): "
                                          f"{answer.get('message')}")
        if e.message is not None and not _matches(e.message, str(answer.get("message", ""))):
            return res(Outcome.DIFFERENT, f"message {answer.get('message')!r} (expected {e.message!r})")
        return res(Outcome.RIGHT, "refused as ksqlDB does")
    if ep == "/ksql" and isinstance(answer, list) and e.entities is not None:
        got = [x.get("@type") for x in answer]
        if got != e.entities:
            return res(Outcome.DIFFERENT, f"entities {got} (expected {e.entities}): {text[:300]}")
        for x in answer:
            if x.get("@type") == "currentStatus" and x["commandStatus"]["status"] != "SUCCESS":
                return res(Outcome.FAILING, f"command status {x['commandStatus']}")
    if isinstance(answer, dict) and "rows" in answer and "lines" in answer:
        for m in answer["messages"]:
            if isinstance(m, dict) and ("error_code" in m or "errorMessage" in m or "timeout" in m):
                return res(Outcome.FAILING, f"in-stream: {m}")
        if e.columns is not None and answer["columns"] != e.columns:
            return res(Outcome.DIFFERENT, f"columns {answer['columns']} (expected {e.columns})")
        if e.rows is not None:
            got_rows = answer["rows"][: step.take] if step.take is not None else answer["rows"]
            same = got_rows == e.rows if e.ordered else _norm(got_rows) == _norm(e.rows)
            if not same:
                return res(Outcome.DIFFERENT, f"rows {got_rows} (expected {e.rows})")
    for t in e.text:
        if not _matches(t, text):
            return res(Outcome.DIFFERENT, f"missing {t!r} in {text[:400]}")
    if e.check is not None:
        problem = e.check(answer)
        if problem:
            return res(Outcome.DIFFERENT, str(problem))
    return res(Outcome.RIGHT, "")


def tally(results: list[Result]) -> dict[str, int]:
    c = Counter(r.outcome.value for r in results)
    return {o.value: c.get(o.value, 0) for o in Outcome}


def report(results: list[Result]) -> str:
    lines = [f"{tally(results)}"]
    for r in results:
        if r.outcome is not Outcome.RIGHT:
            lines.append(f"[{r.outcome.value}] {r.step.sql.strip()[:160]!r}\n    -> {r.detail}")
    return "\n".join(lines)
