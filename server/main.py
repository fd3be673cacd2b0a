"""``ksqlpy server [PROPERTIES_FILE] [--listeners URL] [--data-dir DIR] [--queries-file FILE]``: run the REST
server, or with a queries file (``ksql.queries.file``) the headless server of ``headless.py``.

Served by Hypercorn, which speaks HTTP/1.1 and HTTP/2 on one port: h2 through ALPN on TLS listeners, and
cleartext HTTP/2 with prior knowledge (what ksqlDB's Java client uses). SIGTERM and SIGINT shut down
cleanly: push queries end, open responses finish, the engine commits and closes.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from typing import Any

from ksqlpy.server.config import ConfigError, ServerConfig, build_config


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ksqlpy server", description="Run the ksqlDB-compatible REST server.")
    p.add_argument("properties_file", nargs="?", metavar="PROPERTIES_FILE",
                   help="ksql-server.properties style configuration")
    p.add_argument("--listeners", metavar="URL", help="e.g. http://0.0.0.0:8088 (overrides 'listeners')")
    p.add_argument("--data-dir", metavar="DIR", help="where the embedded log and state live")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=VALUE",
                   help="set one property (repeatable; overrides the file)")
    p.add_argument("--log-level", default="INFO", help="server log level (default INFO)")
    p.add_argument("--queries-file", metavar="FILE",
                   help="headless mode: run this SQL file's statements and serve no REST API "
                        "(overrides 'ksql.queries.file')")
    return p


def hypercorn_config(config: ServerConfig) -> Any:
    from hypercorn.config import Config

    from ksqlpy.server import h2_early_response, h2_frames

    h2_frames.install()  # a DATA frame per body write (h2_frames.py)
    h2_early_response.install()  # a response before the whole request body keeps the connection

    hc = Config()
    # each listener speaks its own scheme: https ones TLS (Hypercorn's bind, once a certificate is set),
    # http ones cleartext (insecure_bind) - not TLS on every port as soon as one is https
    listeners = config.bound_listeners  # the internal listener too (internal_listener.py)
    if any(listener.scheme == "https" for listener in listeners):
        hc.bind = [listener.bind for listener in listeners if listener.scheme == "https"]
        hc.insecure_bind = [listener.bind for listener in listeners if listener.scheme == "http"]
    else:
        hc.bind = [listener.bind for listener in listeners]
    hc.alpn_protocols = ["h2", "http/1.1"]
    hc.graceful_timeout = 5.0
    # a connection with no request in progress is closed after this (connections.py; the lean front too)
    hc.keep_alive_timeout = float(config.int("ksql.idle.connection.timeout.seconds"))
    # ksqlDB never retires a connection after so many requests; Hypercorn's default (1000) would close a busy
    # client's keep-alive connection (HTTP/2: GOAWAY, failing the requests then in flight)
    hc.keep_alive_max_requests = 2 ** 62
    hc.accesslog = None
    hc.errorlog = "-"
    if any(listener.scheme == "https" for listener in listeners):
        hc.certfile = str(config.get("ssl.certificate.location"))
        hc.keyfile = str(config.get("ssl.key.location"))
        if config.get("ssl.key.password"):
            hc.keyfile_password = str(config.get("ssl.key.password"))
        if config.get("ssl.truststore.location") or config.get("ssl.ca.location"):
            hc.ca_certs = str(config.get("ssl.ca.location") or config.get("ssl.truststore.location"))
    return hc


async def serve(config: ServerConfig) -> None:
    from hypercorn.asyncio import serve as hypercorn_serve

    from ksqlpy.server import connections
    from ksqlpy.server.app import create_app
    from ksqlpy.server.context import ServerContext

    ctx = ServerContext(config)
    ctx.freeze_heap = True
    app = create_app(config, ctx)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    fd_limit = connections.raise_fd_limit()
    guard = connections.ConnectionGuard(connections.connection_limit(config, fd_limit),
                                        config.int("ksqlpy.server.header.timeout.ms") / 1000.0)
    connections.install(loop, guard)  # every listener's connections are counted and timed
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    failed: list[str] = []

    def fatal(reason: str) -> None:
        failed.append(reason)
        loop.call_soon_threadsafe(stop.set)

    ctx.on_fatal = fatal

    async def shutdown_trigger() -> None:
        await stop.wait()
        logging.getLogger("ksqlpy.server").info("shutting down")
        ctx.begin_shutdown()
        from ksqlpy.server.draining import OPEN

        # the streams just ended write their last frames before Hypercorn closes connections (draining.py)
        await OPEN.drained(hc_graceful_s)

    for listener in config.listeners:
        print(f"ksqlpy server listening on {listener.url}", flush=True)
    if config.internal_listener is not None:
        print(f"ksqlpy server listening on {config.internal_listener.url} (internal)", flush=True)
    from ksqlpy.server.lean_serve import lean_enabled, serve_lean

    hc = hypercorn_config(config)
    hc_graceful_s = float(hc.graceful_timeout)
    if lean_enabled(config):
        await serve_lean(app, ctx, config, hc, shutdown_trigger)
    else:
        await hypercorn_serve(app, hc, shutdown_trigger=shutdown_trigger)  # type: ignore[arg-type]
    if failed:
        raise StartupError(failed[0])


class StartupError(Exception):
    """The engine could not be opened or restored: the server stops (exit status 1)."""


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    os.umask(0o077)  # what the server writes is its user's only (private_files.py)
    logging.basicConfig(level=getattr(logging, str(args.log_level).upper(), logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from ksqlpy.server import log_limits

    log_limits.install()  # a failure repeating in a loop logs a few lines a minute, not megabytes
    overrides = {}
    for d in args.defines:
        if "=" not in d:
            print(f"ksqlpy server: -D expects NAME=VALUE, got {d!r}", file=sys.stderr)
            return 2
        name, value = d.split("=", 1)
        overrides[name.strip()] = value.strip()
    try:
        config = build_config(args.properties_file, args.listeners, args.data_dir, overrides)
    except ConfigError as e:
        print(f"ksqlpy server: {e}", file=sys.stderr)
        return 2
    from ksqlpy.server import headless

    headless_file = headless.queries_file(config, args.queries_file)
    if headless_file is not None:
        try:
            return headless.run(config, headless_file)
        except headless.HeadlessError as e:
            print(f"ksqlpy server: start-up failed: {e}", file=sys.stderr)
            return 1
    try:
        import fastapi  # noqa: F401
        import hypercorn  # noqa: F401
    except ImportError as e:
        print(f"ksqlpy server: missing dependency ({e}); install with: pip install 'ksqlpy[server]'", file=sys.stderr)
        return 2
    from ksqlpy.engine.data_lock import DataDirectoryInUse, DataDirectoryLock

    try:  # refused at once, before listening, when another engine holds the directory (its engine locks it)
        DataDirectoryLock(config.data_dir or os.path.join(os.getcwd(), "ksqlpy-data")).acquire().release()
    except DataDirectoryInUse as e:
        print(f"ksqlpy server: {e}", file=sys.stderr)
        return 1
    try:
        asyncio.run(serve(config))
    except ConfigError as e:
        print(f"ksqlpy server: {e}", file=sys.stderr)
        return 2
    except StartupError as e:
        print(f"ksqlpy server: start-up failed: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"ksqlpy server: cannot listen: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
