"""The runtime contract: ``ksqlpy.runtime`` knows nothing of the engine, and every host implements the
``RuntimeContext`` protocol the runtime takes instead."""

from __future__ import annotations

import ast
from pathlib import Path

import ksqlpy
from ksqlpy.backfill.job import BackfillJob, WorkerEngine, new_plog
from ksqlpy.engine import Engine
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.runtime.context import RuntimeContext
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.workers import WorkerContext

RUNTIME = Path(ksqlpy.__file__).parent / "runtime"
FORBIDDEN = ("ksqlpy.engine", "ksqlpy.server", "ksqlpy.cli")


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module an import statement of ``path`` names - at top level, inside functions, under
    ``if TYPE_CHECKING`` alike - with relative imports resolved against ``ksqlpy.runtime``."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # ``.x`` is ksqlpy.runtime.x, ``..x`` is ksqlpy.x
                base = ["ksqlpy", "runtime"][: max(0, 3 - node.level)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                "import_module", "__import__"):
            found += [(node.lineno, a.value) for a in node.args if isinstance(a, ast.Constant)
                      and isinstance(a.value, str)]
    return found


def test_no_runtime_module_imports_the_engine() -> None:
    bad = [f"{path.name}:{line}: {module}"
           for path in sorted(RUNTIME.rglob("*.py"))
           for line, module in _imports(path)
           if any(module == f or module.startswith(f + ".") for f in FORBIDDEN)]
    assert bad == []


def test_the_check_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The reader above catches the workarounds the contract forbids, not only top-level imports."""
    src = tmp_path / "sample.py"
    src.write_text("from typing import TYPE_CHECKING\n"
                   "if TYPE_CHECKING:\n    from ksqlpy.engine.engine import Engine\n"
                   "def f():\n    import ksqlpy.engine.queries\n"
                   "    from ..engine import materialized\n"
                   "    importlib.import_module('ksqlpy.engine.config')\n")
    modules = [m for _, m in _imports(src)]
    assert "ksqlpy.engine.engine" in modules
    assert "ksqlpy.engine.queries" in modules
    assert "ksqlpy.engine.materialized" in modules
    assert "ksqlpy.engine.config" in modules


def test_every_host_is_a_runtime_context(tmp_path: Path) -> None:
    """The engine, a worker process's context and a Spark worker's context all implement the protocol."""
    engine = Engine(str(tmp_path / "data"))
    try:
        assert isinstance(engine, RuntimeContext)
        assert engine.owns(7)
        worker = WorkerContext(EmbeddedLog(str(tmp_path / "log")), ProcessingLog(), {"num.stream.threads": 2},
                               str(tmp_path / "w"))
        assert isinstance(worker, RuntimeContext)
        assert worker.owns(3)
        worker.owned = frozenset({1})
        assert worker.owns(1) and not worker.owns(3)
        assert worker.prop("num.stream.threads") == 2
        job = BackfillJob(topology=None, sink=None, query_id="Q", properties={}, partitions=1)  # type: ignore[arg-type]
        assert isinstance(WorkerEngine(job, new_plog(job)), RuntimeContext)
    finally:
        engine.close()


def test_explicit_properties_are_those_the_user_set(tmp_path: Path) -> None:
    """Set in the configuration or by SET, under their canonical names - a value equal to the default
    included (an explicit commit.interval.ms of 2000 beats exactly-once's 100 ms default)."""
    engine = Engine(str(tmp_path / "data"), {"commit.interval.ms": 2000, "num.stream.threads": 3})
    try:
        engine.execute("SET 'cache.max.bytes.buffering'='0';")
        explicit = engine.explicit_properties()
        assert dict(explicit) == {"ksql.streams.commit.interval.ms": 2000, "ksql.streams.num.stream.threads": 3,
                                  "ksql.streams.cache.max.bytes.buffering": "0"}
        assert "commit.interval.ms" in explicit and "auto.offset.reset" not in explicit
    finally:
        engine.close()
