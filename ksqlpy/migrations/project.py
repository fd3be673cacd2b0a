"""A migrations project on disk, as ksqlDB's ``ksql-migrations`` tool lays it out: a properties file
(``ksql-migrations.properties``) and a ``migrations/`` directory of ``V<6 digits>__<name>.sql`` files, one
migration each, applied in version order."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

CONFIG_FILE = "ksql-migrations.properties"
MIGRATIONS_DIR = "migrations"
_FILE = re.compile(r"^V(\d{6})__(\w+)\.sql$")

SERVER_URL = "ksql.server.url"
STREAM_NAME = "ksql.migrations.stream.name"
TABLE_NAME = "ksql.migrations.table.name"
STREAM_TOPIC = "ksql.migrations.stream.topic.name"
TABLE_TOPIC = "ksql.migrations.table.topic.name"
REPLICAS = "ksql.migrations.topic.replicas"
DIR_OVERRIDE = "ksql.migrations.dir.override"
DEFAULTS = {STREAM_NAME: "MIGRATION_EVENTS", TABLE_NAME: "MIGRATION_SCHEMA_VERSIONS", REPLICAS: "1"}


class MigrationsError(Exception):
    """A problem the tool reports and exits non-zero on."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str  # the description, underscores as spaces (as ksql-migrations shows it)
    path: Path

    @property
    def checksum(self) -> str:
        """MD5 of the file's bytes, hex: what ``validate`` compares with the applied migration's."""
        return hashlib.md5(self.path.read_bytes()).hexdigest()  # noqa: S324 - a checksum, not security

    def sql(self) -> str:
        return self.path.read_text()

    def statements(self) -> list[str]:
        """The file's statements (``statements_of``)."""
        return statements_of(self.sql())


def statements_of(sql: str) -> list[str]:
    """A migration file's statements, each ending in its ';'. Unlike a /ksql request or a CLI line, the file's last
    statement must end in ';' too: ksqlDB's migrations tool splits the file itself and refuses what follows the
    last ';' unless it is only whitespace and comments - 'Unmatched command at end of file; missing semicolon:
    \'<the text>\'' - before it runs any of the file (from memory of ksql-migrations' CommandParser.splitSql).
    A ``/*`` that no ``*/`` closes is refused first, by that splitter's own check of a comment's closing token."""
    from ksqlpy.grammar.script import CODE, scan, split_statements

    if any(kind == CODE and "/*" in sql[s:e] for kind, s, e in scan(sql)):
        raise MigrationsError("Invalid sql - failed to find closing token '*/'")
    pieces = split_statements(sql)
    if pieces and not pieces[-1].endswith(";"):
        raise MigrationsError(f"Unmatched command at end of file; missing semicolon: '{pieces[-1]}'")
    return pieces


def read_config(path: Path) -> dict[str, str]:
    """A Java properties file: ``name=value`` lines, ``#``/``!`` comments."""
    if not path.is_file():
        raise MigrationsError(f"Migrations config file not found: {path}")
    config = dict(DEFAULTS)
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        name, sep, value = line.partition("=")
        if not sep:
            name, _, value = line.partition(":")
        config[name.strip()] = value.strip()
    if not config.get(SERVER_URL):
        raise MigrationsError(f"'{SERVER_URL}' is not set in {path}")
    return config


def new_project(project: Path, server_url: str) -> Path:
    if project.exists() and any(project.iterdir()):
        raise MigrationsError(f"Project directory {project} already exists and is not empty")
    (project / MIGRATIONS_DIR).mkdir(parents=True, exist_ok=True)
    config = project / CONFIG_FILE
    config.write_text(
        "# ksql-migrations configuration\n"
        f"{SERVER_URL}={server_url}\n"
        f"# {STREAM_NAME}=MIGRATION_EVENTS\n"
        f"# {TABLE_NAME}=MIGRATION_SCHEMA_VERSIONS\n"
        f"# {STREAM_TOPIC}=<service id>ksql_MIGRATION_EVENTS\n"
        f"# {TABLE_TOPIC}=<service id>ksql_MIGRATION_SCHEMA_VERSIONS\n"
        f"# {REPLICAS}=1\n")
    return config


def migrations_dir(config_path: Path, config: dict[str, str]) -> Path:
    override = config.get(DIR_OVERRIDE)
    return Path(override) if override else config_path.parent / MIGRATIONS_DIR


def migrations(directory: Path) -> list[Migration]:
    """The project's migrations in version order; a version used twice is an error."""
    found: dict[int, Migration] = {}
    if not directory.is_dir():
        raise MigrationsError(f"Migrations directory not found: {directory}")
    for path in sorted(directory.iterdir()):
        m = _FILE.match(path.name)
        if m is None:
            continue
        version = int(m.group(1))
        if version in found:
            raise MigrationsError(f"Found multiple migration files with version {version}")
        found[version] = Migration(version, m.group(2).replace("_", " "), path)
    return [found[v] for v in sorted(found)]


def create_file(directory: Path, description: str, version: int | None) -> Path:
    existing = migrations(directory)
    if version is None:
        version = (existing[-1].version + 1) if existing else 1
    if version < 1 or version > 999999:
        raise MigrationsError(f"Invalid migration version {version}: versions run from 1 to 999999")
    if any(m.version == version for m in existing):
        raise MigrationsError(f"A migration file with version {version} already exists")
    name = re.sub(r"\W", "_", description.strip().replace(" ", "_"))
    if not name:
        raise MigrationsError("The migration needs a description")
    path = directory / f"V{version:06d}__{name}.sql"
    path.write_text("")
    return path
