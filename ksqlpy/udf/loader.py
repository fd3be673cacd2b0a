"""Loading an engine's functions: the built-ins, every ``.py`` file of ``ksql.extension.dir`` and every entry
point of the group ``ksqlpy.functions`` of the installed packages (ksqlDB loads the jars of its extension
directory the same way).

| property                            | default | meaning                                              |
|-------------------------------------|---------|------------------------------------------------------|
| ``ksql.extension.dir``              | (none)  | a directory whose ``*.py`` files declare functions   |
| ``ksql.udfs.enabled``               | true    | false: built-ins only (ksqlDB's switch)              |
| ``ksqlpy.functions.entry.points``   | true    | false: ignore installed packages' entry points       |
| ``ksqlpy.functions.allow.override`` | false   | true: a user function may replace a built-in one     |

A file or package that fails to load is a ``FunctionLoadError`` naming it and the problem, raised when the
engine starts; an extension directory that does not exist (or is a file) is logged and loads nothing. The registry remembers these settings (``FunctionSources``) as its origin, so a worker
process or a Spark executor that unpickles it loads the same files and packages in its own process.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import logging
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ksqlpy.errors import KsqlError
from ksqlpy.functions import FunctionRegistry, builtin_registry
from ksqlpy.functions.registry import FunctionInfo
from ksqlpy.udf.build import DeclarationError, build
from ksqlpy.udf.declare import declarations_of
from ksqlpy.udf.ext import module_name

LOG = logging.getLogger("ksqlpy.udf")

EXTENSION_DIR = "ksql.extension.dir"
UDFS_ENABLED = "ksql.udfs.enabled"
ENTRY_POINTS = "ksqlpy.functions.entry.points"
ALLOW_OVERRIDE = "ksqlpy.functions.allow.override"
ENTRY_POINT_GROUP = "ksqlpy.functions"


class FunctionLoadError(KsqlError):
    """A function file or package that cannot be loaded (the engine does not start)."""


@dataclass(frozen=True)
class FunctionSources:
    """Where an engine's functions come from: the recipe its registry is rebuilt from in another process."""

    extension_dir: str | None = None  # absolute
    entry_points: bool = True
    allow_override: bool = False
    enabled: bool = True

    @classmethod
    def of(cls, properties: Mapping[str, Any]) -> FunctionSources:
        directory = properties.get(EXTENSION_DIR)
        return cls(extension_dir=os.path.abspath(str(directory)) if directory not in (None, "") else None,
                   entry_points=_flag(properties.get(ENTRY_POINTS, True)),
                   allow_override=_flag(properties.get(ALLOW_OVERRIDE, False)),
                   enabled=_flag(properties.get(UDFS_ENABLED, True)))


def load_functions(sources: FunctionSources) -> FunctionRegistry:
    """A fresh registry: the built-ins plus the user functions ``sources`` name."""
    registry = builtin_registry()
    if sources.enabled:
        owners: dict[str, str] = {}
        for where, obj in _units(sources):
            for fn in _functions_of(where, obj):
                _add(registry, fn, where, owners, sources.allow_override)
    registry.origin = (registry_for, (sources,))
    return registry


# (where, id of the module or object) -> (it, its functions): function objects hold no per-engine state
# (an aggregate's instance is made per query), so engines loading one unchanged file share them
_BUILT: dict[tuple[str, int], tuple[Any, list[FunctionInfo]]] = {}


def _functions_of(where: str, obj: Any) -> list[FunctionInfo]:
    hit = _BUILT.get((where, id(obj)))
    if hit is not None and hit[0] is obj:
        return hit[1]
    try:
        functions = build(declarations_of(obj), where)
    except DeclarationError as e:
        raise FunctionLoadError(f"Could not load functions from {where}: {e}") from None
    _BUILT[(where, id(obj))] = (obj, functions)
    return functions


@lru_cache(maxsize=16)
def registry_for(sources: FunctionSources) -> FunctionRegistry:
    """The registry of ``sources`` in this process, loaded once: what an unpickled registry becomes."""
    return load_functions(sources)


def _add(registry: FunctionRegistry, fn: FunctionInfo, path: str, owners: dict[str, str],
         allow_override: bool) -> None:
    if fn.name in owners:
        raise FunctionLoadError(f"Could not load functions from {path}: function {fn.name} is already declared "
                                f"in {owners[fn.name]}")
    if registry.kind_of(fn.name) is not None:
        if not allow_override:
            raise FunctionLoadError(f"Could not load functions from {path}: function {fn.name} has the name of a "
                                    f"built-in function; set '{ALLOW_OVERRIDE}'='true' to replace the built-in")
        for table in (registry.scalars, registry.aggregates, registry.tables):
            table.pop(fn.name, None)  # type: ignore[attr-defined]
    registry.register(fn)  # type: ignore[arg-type]
    owners[fn.name] = path


def _units(sources: FunctionSources) -> Iterator[tuple[str, Any]]:
    """(where, module or object declaring functions) for every extension file, then every entry point."""
    if sources.extension_dir is not None:
        yield from _directory(sources.extension_dir)
    if sources.entry_points:
        yield from _entry_points()


def _directory(directory: str) -> Iterator[tuple[str, Any]]:
    if not os.path.isdir(directory):
        # not fatal: as ksqlDB's UserFunctionLoader.load, which logs "UDFs can't be loaded as dir ... doesn't
        # exist or is not a directory" and goes on with the built-ins (a server configured with the UDF
        # how-to's ksql.extension.dir starts before anyone has put a file there)
        LOG.info("UDFs can't be loaded as %s '%s' doesn't exist or is not a directory", EXTENSION_DIR, directory)
        return
    if directory not in sys.path:
        sys.path.append(directory)  # the files may import their sibling helper modules
    for entry in sorted(os.listdir(directory)):
        path = os.path.join(directory, entry)
        if entry.endswith(".py") and not entry.startswith((".", "_")) and os.path.isfile(path):
            yield path, load_file(path)


def load_file(path: str) -> Any:
    """The module of an extension file (executed again only when the file changed since it was loaded)."""
    name = module_name(path)
    try:
        st = os.stat(path)
    except OSError as e:
        raise FunctionLoadError(f"Could not load functions from {path}: {e.strerror}") from None
    stamp = (st.st_mtime_ns, st.st_size)
    module = sys.modules.get(name)
    if module is not None and getattr(module, "__ksqlpy_stamp__", None) == stamp:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise FunctionLoadError(f"Could not load functions from {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and typing look the module up while it runs
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as e:  # noqa: BLE001 - any failure of the user's file is its load error
        sys.modules.pop(name, None)
        raise FunctionLoadError(f"Could not load functions from {path}: {_describe(e)}") from None
    module.__ksqlpy_stamp__ = stamp  # type: ignore[attr-defined]
    return module


def _entry_points() -> Iterator[tuple[str, Any]]:
    for ep in _entry_point_list(tuple(sys.path)):
        dist = getattr(ep, "dist", None)
        where = (f"package {dist.name} {dist.version} (entry point {ep.name} = {ep.value})" if dist is not None
                 else f"entry point {ep.name} = {ep.value}")
        try:
            obj = ep.load()
        except (Exception, SystemExit) as e:  # noqa: BLE001 - reported as the package's load error
            raise FunctionLoadError(f"Could not load functions from {where}: {_describe(e)}") from None
        if not declarations_of(obj):
            raise FunctionLoadError(f"Could not load functions from {where}: it declares no function (an entry "
                                    "point names a module or an object decorated with @udf, @udaf or @udtf)")
        yield where, obj


@lru_cache(maxsize=8)
def _entry_point_list(path: tuple[str, ...]) -> tuple[importlib.metadata.EntryPoint, ...]:
    """The group's entry points of the packages on ``path`` (scanning every installed package takes tens of
    milliseconds; an engine starts per conformance case), listed once per search path."""
    found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    return tuple(sorted(found, key=lambda e: (e.name, e.value)))


def _describe(e: BaseException) -> str:
    if isinstance(e, SyntaxError):
        return f"SyntaxError: {e.msg} (line {e.lineno}{f', column {e.offset}' if e.offset else ''})"
    return f"{type(e).__name__}: {e}"


def _flag(v: Any) -> bool:
    return v is True or str(v).strip().lower() == "true"


__all__ = ["ALLOW_OVERRIDE", "ENTRY_POINTS", "ENTRY_POINT_GROUP", "EXTENSION_DIR", "UDFS_ENABLED",
           "FunctionLoadError", "FunctionSources", "load_file", "load_functions", "registry_for"]
