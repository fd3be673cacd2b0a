"""``ksqlpy [options]``: the SQL shell, on an embedded engine or against a server.

Start-up is on the path a newcomer waits for, so only what the chosen mode needs is imported:
the embedded engine (no Spark, no Kafka client, no HTTP client) or httpx for --server; and
prompt_toolkit only when a terminal is attached.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Any

from ksqlpy.cli.backend import BackendError
from ksqlpy.cli.console import BOLD, DIM, RESET, Console

BANNER = r"""
   _                _
  | | _____  __ _| |_ __  _   _
  | |/ / __|/ _` | | '_ \| | | |
  |   <\__ \ (_| | | |_) | |_| |
  |_|\_\___/\__, |_| .__/ \__, |
               |_| |_|    |___/
"""


def default_data_dir() -> str:
    """$KSQLPY_DATA_DIR, else $XDG_DATA_HOME/ksqlpy, else ~/.local/share/ksqlpy."""
    env = os.environ.get("KSQLPY_DATA_DIR")
    if env:
        return os.path.expanduser(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "ksqlpy")


def default_history_file() -> str:
    """$KSQLPY_HISTORY_FILE, else $XDG_STATE_HOME/ksqlpy/history, else ~/.local/state/ksqlpy/history."""
    env = os.environ.get("KSQLPY_HISTORY_FILE")
    if env:
        return os.path.expanduser(env)
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "ksqlpy", "history")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ksqlpy",
        description="ksqlpy SQL shell. With no options: an embedded engine keeping its data in --data-dir.",
        epilog="Other commands: 'ksqlpy server' (REST server), 'ksqlpy backfill' (a new query's history on "
               "Spark), 'ksqlpy reset QUERY_ID' (rewind a query so it recomputes), 'ksqlpy test' (conformance "
               "runner). Each takes --help.")
    p.add_argument("url", nargs="?", help="server URL (same as --server)")
    p.add_argument("--server", "-s", metavar="URL", help="connect to a running server, e.g. http://localhost:8088")
    p.add_argument("--data-dir", metavar="DIR", help=f"embedded engine data directory (default {default_data_dir()})")
    p.add_argument("-u", "--user", help="user name for the server (basic auth)")
    p.add_argument("-p", "--password", help="password (prompted if --user is given without it)")
    p.add_argument("-e", "--execute", metavar="SQL", help="run these statements and exit")
    p.add_argument("-f", "--file", metavar="PATH", help="run the statements in this file and exit")
    p.add_argument("-d", "--define", metavar="NAME=VALUE", action="append", default=[],
                   help="define a variable (repeatable), as DEFINE does")
    p.add_argument("--config-file", metavar="PATH", help="properties file (name=value lines) set for the session")
    p.add_argument("--output", type=str.upper, choices=["TABULAR", "JSON"], default="TABULAR",
                   help="result format (default TABULAR)")
    p.add_argument("--query-row-limit", type=int, metavar="N", help="stop queries after N rows")
    p.add_argument("--query-timeout", type=int, metavar="MS", help="stop queries after MS milliseconds")
    p.add_argument("--history-file", metavar="PATH", help=f"history file (default {default_history_file()})")
    p.add_argument("--no-banner", action="store_true", help="do not print the start-up banner")
    return p


def read_properties_file(path: str) -> dict[str, str]:
    """Java-properties-like ``name=value`` lines; ``#`` and ``!`` start comments."""
    props: dict[str, str] = {}
    with open(os.path.expanduser(path), encoding="utf-8") as f:
        for raw in f:
            line = raw.strip()
            if not line or line[0] in "#!":
                continue
            sep = min((i for i in (line.find("="), line.find(":")) if i >= 0), default=-1)
            if sep < 0:
                props[line] = ""
            else:
                props[line[:sep].strip()] = line[sep + 1:].strip()
    return props


def config_refusal(config: dict[str, str]) -> str | None:
    """Why ksqlDB's shell would not start with these ``--config-file`` properties (its LocalProperties
    parses each as a SET: an unknown name or a value its config refuses), or None."""
    from ksqlpy.engine import property_names as N
    from ksqlpy.engine.property_values import check_property
    from ksqlpy.errors import KsqlError

    for name, value in config.items():
        if not N.recognized(name):
            return f"invalid property found: {N.not_recognizable(name)}"
        try:
            check_property(name, value)
        except KsqlError as e:
            return f"invalid property found: {e.message}"
    return None


def make_backend(args: argparse.Namespace, config: dict[str, str] | None = None) -> Any:
    """The remote server, or an embedded engine started with ``config`` (the ``--config-file``
    properties: engine settings such as ``ksql.extension.dir`` must be known when it starts)."""
    url = args.server or args.url
    if url:
        from ksqlpy.cli.remote import RemoteBackend

        password = args.password
        if args.user and password is None:
            import getpass

            password = getpass.getpass("Password: ")
        backend = RemoteBackend(url, args.user, password)
        backend.server_info()  # fail fast when the server is not there
        return backend
    from ksqlpy.cli.embedded import EmbeddedBackend

    return EmbeddedBackend(os.path.abspath(os.path.expanduser(args.data_dir or default_data_dir())), config)


def banner(console: Console, backend: Any, *, logo: bool = True) -> None:
    """The welcome ksqlDB's shell prints when it starts its loop - at a terminal and, without the logo (its
    WelcomeMsgUtils skips the logo on a terminal narrower than it, and piped input has no width), when
    statements are piped in."""
    from ksqlpy import __version__

    color = console.color
    if logo:
        for line in BANNER.strip("\n").split("\n"):
            console.print(f"{BOLD}{line}{RESET}" if color else line)
        console.print()
    if backend.mode == "remote":
        info = backend.server_info()
        console.print(f"CLI v{__version__}, Server v{info.get('version', '?')} located at {backend.location}")
        status = info.get("serverStatus")
        if status:
            console.print(f"Server Status: {status}")
    else:
        console.print(f"ksqlpy v{__version__}, embedded engine")
        console.print(f"Data directory: {backend.location}")
    hint = "Having trouble? Type 'help' (case-insensitive) for a rundown of how things work!"
    console.print(f"{DIM}{hint}{RESET}" if color else hint)
    console.print()


def _handle_ctrl_c() -> None:
    """An interactive shell ends a push query, a PRINT or a backfill's wait on Ctrl-C whatever SIGINT state
    it inherited: started from a background job of a non-interactive shell (``cmd &``, nohup, some
    supervisors) a process gets SIGINT ignored, and Python then installs no KeyboardInterrupt handler, so
    the terminal's Ctrl-C was lost. Interactive shells (bash, psql) take Ctrl-C back the same way."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    if args.url and not args.url.startswith(("http://", "https://")):
        print(f"ksqlpy: unknown argument {args.url!r} (a server URL starts with http:// or https://)",
              file=sys.stderr)
        return 2
    # -e and -f take the one-text paths whenever given - an empty -e too (ksqlDB's Ksql.run tests isPresent())
    one_text = args.execute is not None or args.file is not None
    interactive = not one_text and sys.stdin.isatty() and sys.stdout.isatty()
    if interactive:
        _handle_ctrl_c()
    console = Console()
    config: dict[str, str] = {}
    if args.config_file:
        try:
            config = read_properties_file(args.config_file)
        except OSError as e:
            console.error(f"Cannot read {args.config_file}: {e.strerror or e}")
            return 1
        refusal = config_refusal(config)
        if refusal is not None:
            console.error(refusal)
            return 1
    try:
        backend = make_backend(args, config)
    except BackendError as e:
        console.error(e.message)
        return 1
    except KeyboardInterrupt:
        return 130
    from ksqlpy.cli.session import Session

    session = Session(backend, console, output=args.output, interactive=interactive,
                      query_row_limit=args.query_row_limit, query_timeout_ms=args.query_timeout)
    try:
        session.properties.update(config)
        from ksqlpy.grammar.variables import define as define_variable

        for d in args.define:
            name, _, value = d.partition("=")
            define_variable(session.variables, name, value.strip().strip("'"))
        if one_text:
            from ksqlpy.cli.runner import run_text

            status = 0
            if args.file is not None:
                try:
                    with open(os.path.expanduser(args.file), encoding="utf-8") as f:
                        text = f.read()
                except OSError as e:
                    console.error(f"Cannot read {args.file}: {e.strerror or e}")
                    return 1
                status = run_text(session, text)
            if args.execute is not None and status == 0:
                status = run_text(session, args.execute)
            return status
        if not interactive:  # piped input: ksqlDB's interactive loop over lines that are not typed
            from ksqlpy.cli.runner import run_lines

            if not args.no_banner:
                banner(console, backend, logo=False)
            return run_lines(session, sys.stdin)
        if not args.no_banner:
            banner(console, backend)
        from ksqlpy.cli.repl import run_repl

        return run_repl(session, os.path.expanduser(args.history_file or default_history_file()))
    except BrokenPipeError:  # the reader went away (| head): stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except OSError as e:
        console.error(str(e))
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        console.close()
        try:
            session.backend.close()  # the one the session ended with (``server <url>`` switches it)
        except Exception:
            pass
