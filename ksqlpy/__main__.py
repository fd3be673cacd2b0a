"""The ``ksqlpy`` command: the SQL shell by default, ``ksqlpy test`` (conformance runner),
``ksqlpy server`` (REST server), ``ksqlpy migrations`` (as ksql-migrations), ``ksqlpy backfill`` (Spark backfill, docs/backfill.md) and ``ksqlpy reset``
(rewind a query so it recomputes, docs/operations.md). Subcommands import lazily so the shell starts fast."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "test":
        from ksqlpy.testing.cli import main as test_main

        return test_main(args[1:])
    if args and args[0] == "backfill":
        from ksqlpy.backfill.cli import main as backfill_main

        return backfill_main(args[1:])
    if args and args[0] == "reset":
        from ksqlpy.cli.reset_command import main as reset_main

        return reset_main(args[1:])
    if args and args[0] == "migrations":
        from ksqlpy.migrations.cli import main as migrations_main

        return migrations_main(args[1:])
    if args and args[0] == "server":
        from ksqlpy.server.main import main as server_main

        return server_main(args[1:])
    if args and args[0] in ("--version", "version"):
        from ksqlpy import __version__

        print(f"ksqlpy {__version__}")
        return 0
    from ksqlpy.cli.main import main as shell_main

    return shell_main(args)


if __name__ == "__main__":
    sys.exit(main())
