"""``ksqlpy migrations``: ksqlDB's ``ksql-migrations`` commands against a ksqlpy (or ksqlDB) server.

    ksqlpy migrations new-project PATH SERVER_URL
    ksqlpy migrations [-c|--config-file FILE] initialize-metadata | create [-v N] DESCRIPTION |
        apply (-a|--all | -n|--next | -u|--until N | -v|--version N) [--dry-run] [-d NAME=VALUE ...] |
        info | validate | destroy-metadata

A migration's events (RUNNING, then MIGRATED or ERROR) go to the metadata stream under its version and
under ``CURRENT``; ``validate`` compares each applied file's MD5 with the one recorded when it ran.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from ksqlpy.migrations.metadata import NONE, Applied, Server
from ksqlpy.migrations.project import (
    CONFIG_FILE,
    Migration,
    MigrationsError,
    create_file,
    migrations,
    migrations_dir,
    new_project,
    read_config,
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ksqlpy migrations", description="Schema migrations, as ksql-migrations does")
    p.add_argument("-c", "--config-file", default=CONFIG_FILE, help="the project's properties file")
    sub = p.add_subparsers(dest="command", required=True)
    np = sub.add_parser("new-project", help="create a project directory and its config file")
    np.add_argument("project_path")
    np.add_argument("ksql_server_url")
    sub.add_parser("initialize-metadata", help="create the metadata stream and table on the server")
    cr = sub.add_parser("create", help="create the next migration file")
    cr.add_argument("-v", "--version", type=int)
    cr.add_argument("description")
    ap = sub.add_parser("apply", help="apply migrations")
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument("-a", "--all", action="store_true")
    which.add_argument("-n", "--next", action="store_true")
    which.add_argument("-u", "--until", type=int)
    which.add_argument("-v", "--version", type=int)
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("-d", "--define", action="append", default=[], metavar="NAME=VALUE")
    sub.add_parser("info", help="the current version and every migration's state")
    sub.add_parser("validate", help="check applied migrations against their files")
    sub.add_parser("destroy-metadata", help="drop the metadata stream and table")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "new-project":
            config = new_project(Path(args.project_path), args.ksql_server_url)
            print(f"Migrations project created at {Path(args.project_path).resolve()}; config file {config}")
            return 0
        config_path = Path(args.config_file)
        config = read_config(config_path)
        directory = migrations_dir(config_path, config)
        if args.command == "create":
            path = create_file(directory, args.description, args.version)
            print(f"Migration file created: {path}")
            return 0
        server = Server(config)
        try:
            return _run(args, server, directory)
        finally:
            server.close()
    except MigrationsError as e:
        print(f"ERROR: {e}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace, server: Server, directory: Path) -> int:
    if args.command == "initialize-metadata":
        server.initialize()
        print(f"Schema metadata initialized successfully: stream {server.stream}, table {server.table}")
        return 0
    if args.command == "destroy-metadata":
        server.destroy()
        print("Migrations metadata destroyed")
        return 0
    server.check_initialized()
    files = migrations(directory)
    if args.command == "info":
        _info(server, files)
        return 0
    if args.command == "validate":
        _validate(server, files)
        print(f"Validated {len(files)} migration file(s): every applied migration matches its file")
        return 0
    return _apply(args, server, files)


def _validate(server: Server, files: list[Migration]) -> None:
    by_version = {m.version: m for m in files}
    version = server.current_version()
    seen = 0
    while version != NONE and seen <= len(files) + 1:
        applied = server.applied(version)
        if applied is None:
            raise MigrationsError(f"No migration event found for version {version}")
        local = by_version.get(int(version))
        if local is None:
            raise MigrationsError(f"Migration version {version} was applied but its file is missing")
        if applied.state == "MIGRATED" and applied.checksum != local.checksum:
            raise MigrationsError(f"Migration version {version}: the file changed since it was applied "
                                  f"(checksum {local.checksum}, applied {applied.checksum})")
        version = applied.previous
        seen += 1


def _apply(args: argparse.Namespace, server: Server, files: list[Migration]) -> int:
    _validate(server, files)
    current = server.applied("CURRENT")
    if current is not None and current.state == "RUNNING":
        raise MigrationsError(f"Migration version {current.version} is still RUNNING: another apply is in progress, "
                              "or one was interrupted")
    retry = current is not None and current.state == "ERROR"  # the failed version is applied again
    done = 0
    if current is not None:
        last_good = current.previous if retry else current.version
        done = int(last_good) if last_good != NONE else 0
    pending = [m for m in files if m.version > done]
    if args.next:
        pending = pending[:1]
    elif args.until is not None:
        pending = [m for m in pending if m.version <= args.until]
    elif args.version is not None:
        if not pending or pending[0].version != args.version:
            raise MigrationsError(f"Version {args.version} is not the next migration to apply")
        pending = pending[:1]
    if not pending:
        print("No migrations to apply: the server is at the latest version" if files else "No migration files found")
        return 0
    from ksqlpy.grammar.variables import from_json as variables_from_json

    variables = variables_from_json(dict(d.split("=", 1) for d in args.define if "=" in d))
    previous = str(done) if done else NONE
    for m in pending:
        print(f"Applying migration version {m.version}: {m.name}")
        try:
            m.statements()  # the file must split into statements before anything is recorded or run
        except MigrationsError as e:
            raise MigrationsError(f"Failed to apply migration version {m.version}: {e}") from None
        if args.dry_run:
            print(m.sql().rstrip())
            continue
        started = str(int(time.time() * 1000))
        event = Applied(str(m.version), m.name, "RUNNING", m.checksum, started, "", previous, "")
        server.record(event)
        try:
            server.ksql(m.sql(), variables)
        except MigrationsError as e:
            event.state, event.error_reason = "ERROR", str(e)
            server.record(event)
            raise MigrationsError(f"Failed to apply migration version {m.version}: {e}") from None
        event.state, event.completed_on = "MIGRATED", str(int(time.time() * 1000))
        server.record(event)
        print(f"Migration version {m.version} applied")
        previous = str(m.version)
    print("Dry run complete: nothing was applied" if args.dry_run else "Successfully migrated")
    return 0


def _info(server: Server, files: list[Migration]) -> None:
    print(f"Current migration version: {server.current_version()}")
    header = ("Version", "Name", "State", "Previous Version", "Started On", "Completed On", "Error Reason")
    rows = []
    for m in files:
        a = server.applied(str(m.version))
        if a is None:
            rows.append((str(m.version), m.name, "PENDING", "N/A", "N/A", "N/A", "N/A"))
        else:
            rows.append((a.version, a.name, a.state, a.previous, _when(a.started_on), _when(a.completed_on),
                         a.error_reason or "N/A"))
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    line = "-" * (sum(widths) + 3 * len(widths) - 1)
    print(line)
    print(" " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print(line)
    for r in rows:
        print(" " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    print(line)


def _when(ms: str) -> str:
    if not ms:
        return "N/A"
    return datetime.fromtimestamp(int(ms) / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"
