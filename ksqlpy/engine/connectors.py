"""Connector statements (CREATE SOURCE|SINK CONNECTOR, DROP CONNECTOR, SHOW [SOURCE|SINK] CONNECTORS,
SHOW CONNECTOR PLUGINS, DESCRIBE CONNECTOR) as calls to a Kafka Connect cluster's REST API.

As in ksqlDB they run on the server that receives them (nothing goes to the command log): ksqlDB's
``ConnectExecutor``/``ListConnectorsExecutor``/``DescribeConnectorExecutor`` forward each to the Connect
worker at ``ksql.connect.url``, whose default is ``http://localhost:8083`` (ksqlDB's
``KsqlConfig.CONNECT_URL_PROPERTY``): with none configured the statements go there. ksqlpy embeds no Connect
worker.

Errors are ksqlDB's kinds (from memory of ConnectExecutor, DefaultConnectClient, RequestValidator and
ErrorMessageUtil):

* a Connect cluster that cannot be reached: DefaultConnectClient turns the HTTP client's exception into a
  KsqlServerException. CREATE ... CONNECTOR meets it while validated (``ConnectExecutor.validate`` lists the
  connectors first), where RequestValidator makes any KsqlException a KsqlStatementException: ``400``
  ``statement_error`` ``40001``. The other connector statements are not validated (``NO_VALIDATION``) and meet
  it when they run: ``400`` ``generic_error`` ``40000``. Either message ends with ErrorMessageUtil's line for
  a refused connection (``Caused by: Could not connect to the server. ...``, wrapped at 80 columns);
* CREATE of a connector that exists (without IF NOT EXISTS) is refused while validated: ``409``/``40900``
  ``Connector <name> already exists``;
* an error Connect answers is passed on with Connect's HTTP status and the error code that status makes
  (``404`` -> ``40400``), its message prefixed ``Failed to <create|drop|list|query> connector: ``.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import TYPE_CHECKING, Any

from ksqlpy.engine.describe import describe_source
from ksqlpy.engine.results import StatementResult
from ksqlpy.errors import KsqlError, caused_by
from ksqlpy.grammar import ast as A

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

DEFAULT_CONNECT_URL = "http://localhost:8083"
# ksqlDB's ErrorMessageUtil.getErrorMessage for a java.net.ConnectException in the cause chain
COULD_NOT_CONNECT = ("Could not connect to the server. Please check the server details are correct and that the "
                     "server is running.")
TIMEOUT_S = 10.0


class ConnectorStatementError(KsqlError):
    """A connector statement's failure: ``status`` is the HTTP status it answers with (Connect's own for an
    error Connect returned, 400 when Connect was not reached), its error code that status x 100;
    ``error_code`` 40001 (a statement error) when it failed while validated."""

    def __init__(self, message: str, status: int = 400, error_code: int | None = None) -> None:
        super().__init__(message)
        self.error_code = error_code or (status if 400 <= status < 600 else 400) * 100


def _failed(what: str, e: ConnectError, validating: bool = False) -> ConnectorStatementError:
    """Connect's own error answered with its status; one that never reached Connect (status 0) is the
    client's exception, unprefixed - a statement error while validating."""
    if e.status == 0:
        return ConnectorStatementError(e.message, 400, 40001 if validating else None)
    return ConnectorStatementError(f"{what}: {e.message}", e.status)


class ConnectError(Exception):
    """A Connect REST call that failed: its HTTP status (0 when unreachable) and message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def connect_url(engine: Engine) -> str:
    url = engine.effective_properties().get("ksql.connect.url") or DEFAULT_CONNECT_URL
    return str(url).rstrip("/")


def call(base: str, method: str, path: str, body: Any = None) -> Any:
    """One Connect REST call; its JSON answer (None when empty)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_S) as r:
            raw = r.read()
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            message = json.loads(raw).get("message") or raw.decode(errors="replace")
        except (ValueError, AttributeError):
            message = raw.decode(errors="replace") or e.reason
        raise ConnectError(e.code, str(message)) from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        reason = getattr(reason, "strerror", None) or reason
        raise ConnectError(0, f"Could not connect to the Kafka Connect cluster at {base}: {reason}\n"
                              + caused_by(COULD_NOT_CONNECT)) from None
    return json.loads(raw) if raw.strip() else None


def _path(name: str) -> str:
    return "/connectors/" + urllib.parse.quote(name, safe="")


def validate_create(engine: Engine, stmt: A.CreateConnector) -> bool:
    """ConnectExecutor.validate: the connector must not exist yet unless IF NOT EXISTS (409); True when it
    exists. Listing the connectors is the first call to Connect, so an unreachable cluster fails here, as a
    statement error."""
    try:
        names = call(connect_url(engine), "GET", "/connectors") or []
    except ConnectError as e:
        raise _failed("Failed to list connectors", e, validating=True) from None
    exists = stmt.name in names
    if exists and not stmt.if_not_exists:
        raise ConnectorStatementError(f"Connector {stmt.name} already exists", 409)
    return exists


def create_connector(engine: Engine, stmt: A.CreateConnector) -> StatementResult:
    if validate_create(engine, stmt):
        return StatementResult("warning_entity", stmt.text, message=f"Connector {stmt.name} already exists")
    base = connect_url(engine)
    config = {str(k): _config_value(v) for k, v in stmt.properties.items()}
    config.setdefault("name", stmt.name)
    try:
        info = call(base, "POST", "/connectors", {"name": stmt.name, "config": config})
    except ConnectError as e:
        if e.status == 409 and stmt.if_not_exists:
            return StatementResult("warning_entity", stmt.text, message=f"Connector {stmt.name} already exists")
        raise _failed("Failed to create connector", e) from None
    info = dict(info or {})
    info.setdefault("type", "source" if stmt.source else "sink")
    return StatementResult("connector_info", stmt.text, data={"info": info})


def drop_connector(engine: Engine, stmt: A.DropConnector) -> StatementResult:
    base = connect_url(engine)
    try:
        call(base, "DELETE", _path(stmt.name))
    except ConnectError as e:
        if e.status == 404 and stmt.if_exists:
            return StatementResult("warning_entity", stmt.text, message=f"Connector {stmt.name} does not exist.")
        raise _failed("Failed to drop connector", e) from None
    return StatementResult("drop_connector", stmt.text, data={"connectorName": stmt.name})


def list_connectors(engine: Engine, stmt: A.Show) -> StatementResult:
    """SHOW [SOURCE|SINK] CONNECTORS: name, type, class and state of each (ksqlDB's SimpleConnectorInfo, from
    memory of ListConnectorsExecutor); SHOW CONNECTOR PLUGINS: the plugins the workers have.

    Each listed connector is described, in scope (SOURCE / SINK / all) its status asked. One Connect cannot
    describe is a warning ``Could not describe connector <name>: <error>`` - and, listing all, a row of
    type ``unknown`` with no class and no state; one whose status fails is such a row too."""
    base = connect_url(engine)
    try:
        if stmt.what == "CONNECTOR_PLUGINS":
            plugins = call(base, "GET", "/connector-plugins") or []
            return StatementResult("connector_plugins_list", stmt.text, data={"connectorsPlugins": [
                {"className": p.get("class"), "type": p.get("type"), "version": p.get("version")} for p in plugins]})
        names = call(base, "GET", "/connectors") or []
    except ConnectError as e:
        raise _failed("Failed to list connectors", e) from None
    wanted = {"SOURCE_CONNECTORS": "source", "SINK_CONNECTORS": "sink"}.get(stmt.what)
    listed: list[dict[str, Any]] = []
    warnings: list[str] = []
    for name in names:
        try:
            info = call(base, "GET", _path(name)) or {}
        except ConnectError as e:
            if e.status == 0:
                raise _failed("Failed to describe connector", e) from None
            if wanted is None:
                listed.append(_unknown(name))
            warnings.append(f"Could not describe connector {name}: {e.message}")
            continue
        kind = str(info.get("type") or "").lower()
        if wanted is not None and kind != wanted:
            continue
        try:
            status = call(base, "GET", _path(name) + "/status") or {}
        except ConnectError as e:
            if e.status == 0:
                raise _failed("Failed to query connector status", e) from None
            listed.append(_unknown(name))
            continue
        listed.append({"name": name, "type": kind or "unknown",
                       "className": (info.get("config") or {}).get("connector.class"), "state": _state(status)})
    return StatementResult("connector_list", stmt.text, data={"connectors": listed}, warnings=warnings)


def _unknown(name: str) -> dict[str, Any]:
    return {"name": name, "type": "unknown", "className": None, "state": None}


def describe_connector(engine: Engine, stmt: A.Describe) -> StatementResult:
    base = connect_url(engine)
    name = stmt.name or ""
    try:
        info = call(base, "GET", _path(name)) or {}
        status = _status(base, name) or {}
    except ConnectError as e:
        if e.status == 404:
            raise ConnectorStatementError(f"Failed to query connector: Connector {name} not found", 404) from None
        raise _failed("Failed to query connector", e) from None
    config = info.get("config") or {}
    # the topics the connector uses, as Connect tracks them (GET /connectors/<name>/topics answers
    # {"<name>": {"topics": [...]}}); Connect failing to list them is a warning and no topics (from memory
    # of ksqlDB's DescribeConnectorExecutor)
    warnings: list[str] = []
    try:
        listed = call(base, "GET", _path(name) + "/topics") or {}
        entry = listed.get(name) if isinstance(listed, dict) else None
        topics = [str(t) for t in ((entry or {}).get("topics") or [])] if isinstance(entry, dict) else []
    except ConnectError as e:
        topics = []
        warnings.append(f"Could not list related topics due to error: {e.message}")
    except ValueError:  # an answer that is no JSON
        topics = []
        warnings.append("Could not list related topics due to error: the answer was not JSON")
    sources = [describe_source(engine, s, False) for s in engine.catalog.sources() if s.topic in topics]
    return StatementResult("connector_description", stmt.text, data={
        "connectorClass": config.get("connector.class"), "status": status, "sources": sources,
        "topics": topics, "errors": []}, warnings=warnings)


def _status(base: str, name: str) -> dict[str, Any] | None:
    try:
        return call(base, "GET", _path(name) + "/status")
    except ConnectError as e:
        if e.status == 404:
            return None
        raise


def _state(status: dict[str, Any] | None) -> str | None:
    """ksqlDB's ListConnectorsExecutor.summarizeState: a connector not RUNNING is its state alone; a running
    one with tasks says how many of them run (``RUNNING (1/2 tasks RUNNING)``), without tasks ``RUNNING``."""
    if not status:
        return None
    state = str((status.get("connector") or {}).get("state", "UNASSIGNED"))
    if state != "RUNNING":
        return state
    tasks = status.get("tasks") or []
    if not tasks:
        return "RUNNING"
    running = sum(1 for t in tasks if t.get("state") == "RUNNING")
    return f"RUNNING ({running}/{len(tasks)} tasks RUNNING)"


def _config_value(v: Any) -> str:
    """Connect configs are strings; the WITH clause may give numbers and booleans."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
