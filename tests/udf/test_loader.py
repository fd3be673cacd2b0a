"""Loading functions: extension files, entry points, start-up errors naming the file and the problem, clashes
with built-ins, and the registry rebuilt by its recipe in another process."""

from __future__ import annotations

import pickle
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.udf.ext import module_name, path_of
from ksqlpy.udf.loader import FunctionLoadError, FunctionSources, load_functions, registry_for
from tests.udf.conftest import Extensions

SHOUT = '''
from ksqlpy.udf import udf

@udf("SHOUT", description="Upper case, loudly.")
def shout(s: str) -> str:
    return s.upper() + "!"
'''


def _load(directory: Path, **options: object) -> object:
    return load_functions(FunctionSources(extension_dir=str(directory), entry_points=False, **options))


def test_every_python_file_of_the_directory_is_loaded_and_underscored_ones_are_helpers(ext: Extensions) -> None:
    ext.write("shout.py", SHOUT)
    ext.write("_helpers.py", "raise RuntimeError('a helper module is not loaded as an extension')\n")
    ext.write("notes.txt", "not python")
    reg = _load(ext.dir)
    assert reg.scalars["SHOUT"].resolve([__import__("ksqlpy").types.STRING]).impl("hi") == "HI!"
    assert reg.scalars["SHOUT"].path == str(ext.dir / "shout.py")


@pytest.mark.parametrize("source, problem", [
    ("def f(:\n", "SyntaxError: .* \\(line 1, column 7\\)"),
    ("import no_such_module_here\n", "ModuleNotFoundError: No module named 'no_such_module_here'"),
    ("from ksqlpy.udf import udf\n@udf('F')\ndef f(x: set[int]) -> int:\n    return 1\n",
     "UDF F \\(f\\): parameter 'x': set\\[int\\] has no SQL type"),
    ("from ksqlpy.udf import udf\n@udf('F')\ndef f(x) -> int:\n    return 1\n", "parameter 'x' has no type annotation"),
    ("from ksqlpy.udf import udf\n@udf('F')\ndef f(x: int):\n    return 1\n", "the result has no type annotation"),
    ("from ksqlpy.udf import udf\nfrom typing import TypeVar\nT = TypeVar('T')\n@udf('F')\ndef f(x: int) -> T:\n"
     "    return 1\n", "type variable\\(s\\) T do not appear in the parameters"),
    ("from ksqlpy.udf import udtf\n@udtf('F')\ndef f(x: int) -> int:\n    return 1\n", "a table function returns a list"),
    ("from ksqlpy.udf import udaf\n@udaf('F')\nclass F:\n    def initialize(self) -> int:\n        return 0\n",
     "the class has no aggregate\\(\\) method"),
    ("from ksqlpy.udf import udf\n@udf('F')\ndef f(x: int) -> int:\n    return 1\n@udf('F')\ndef g(y: int) -> int:\n"
     "    return 2\n", "declares the parameters \\(BIGINT\\) twice"),
    ("from ksqlpy.udf import udf\n@udf('F', vectorized='pandas')\ndef f(x: int) -> int:\n    return 1\n",
     "TypeError: @udf\\('F'\\): vectorized is True, False, 'numpy' or 'arrow', not 'pandas'"),
    ("from ksqlpy.udf import udf\n@udf('1F')\ndef f(x: int) -> int:\n    return 1\n", "is not a SQL identifier"),
])  # fmt: skip
def test_a_file_that_fails_to_load_is_a_start_up_error_naming_it(ext: Extensions, source: str, problem: str) -> None:
    path = ext.write("broken.py", source)
    with pytest.raises(FunctionLoadError, match=f"^Could not load functions from {re.escape(str(path))}: .*{problem}"):
        ext.engine()


def test_a_name_clash_with_a_built_in_is_refused_unless_allowed(ext: Extensions) -> None:
    ext.write("abs.py", "from ksqlpy.udf import udf\n@udf('abs')\ndef my_abs(x: int) -> int:\n    return 42\n")
    with pytest.raises(FunctionLoadError, match="function ABS has the name of a built-in function; set "
                                                "'ksqlpy.functions.allow.override'='true'"):
        ext.engine()
    e = ext.engine(**{"ksqlpy.functions.allow.override": "true"})
    assert e.functions.scalars["ABS"].path.endswith("abs.py")
    assert [ov.describe("ABS") for ov in e.functions.scalars["ABS"].overloads] == ["ABS(BIGINT x) -> BIGINT"]


def test_a_function_declared_in_two_files_is_refused(ext: Extensions) -> None:
    ext.write("a.py", SHOUT)
    ext.write("b.py", SHOUT)
    with pytest.raises(FunctionLoadError, match=r"b.py: function SHOUT is already declared in .*a.py"):
        ext.engine()


def test_a_missing_directory_loads_nothing_and_udfs_can_be_disabled(tmp_path: Path,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    # ksqlDB's UserFunctionLoader logs a missing (or not a directory) extension dir and starts with the built-ins
    (tmp_path / "a_file").write_text("")
    for where in ("nowhere", "a_file"):
        with caplog.at_level("INFO", logger="ksqlpy.udf"), \
                Engine(str(tmp_path / f"d_{where}"), {"ksql.extension.dir": str(tmp_path / where)}) as e:
            assert "ABS" in e.functions.scalars
        assert f"UDFs can't be loaded as ksql.extension.dir '{tmp_path / where}' doesn't exist" in caplog.text
    with Engine(str(tmp_path / "d2"), {"ksql.extension.dir": str(tmp_path / "nowhere"),
                                       "ksql.udfs.enabled": "false"}) as e:
        assert "ABS" in e.functions.scalars


def test_a_changed_file_is_loaded_again_by_a_new_engine(ext: Extensions) -> None:
    path = ext.write("shout.py", SHOUT)
    first = _load(ext.dir)
    path.write_text(textwrap.dedent(SHOUT).replace('"!"', '"!!"') + "\n# changed\n")
    second = _load(ext.dir)
    from ksqlpy.types import STRING

    assert first.scalars["SHOUT"].resolve([STRING]).impl("a") == "A!"
    assert second.scalars["SHOUT"].resolve([STRING]).impl("a") == "A!!"


def test_a_registry_pickles_as_its_sources_and_extension_modules_import_by_name(ext: Extensions) -> None:
    path = ext.write("shout.py", SHOUT)
    reg = _load(ext.dir)
    again = pickle.loads(pickle.dumps(reg))
    assert again is registry_for(FunctionSources(extension_dir=str(ext.dir), entry_points=False))
    assert "SHOUT" in again.scalars
    name = module_name(str(path))
    assert path_of(name) == str(path)
    # another interpreter imports the extension module by its name alone, and unpickles a function by reference
    fn = sys.modules[name].shout
    code = ("import pickle, sys; f = pickle.loads(sys.stdin.buffer.read()); print(f('ok'))")
    out = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(fn), capture_output=True, timeout=120)
    assert out.stdout.decode().strip() == "OK!", out.stderr.decode()[-2000:]


def test_entry_points_of_installed_packages_are_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A package's metadata names a module (or an object) in the group ``ksqlpy.functions``."""
    site = tmp_path / "site"
    (site / "loud_functions").mkdir(parents=True)
    (site / "loud_functions" / "__init__.py").write_text(textwrap.dedent(SHOUT))
    dist = site / "loud_functions-1.2.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: loud-functions\nVersion: 1.2\n")
    (dist / "entry_points.txt").write_text("[ksqlpy.functions]\nloud = loud_functions\n")
    monkeypatch.syspath_prepend(str(site))
    reg = load_functions(FunctionSources())
    assert reg.scalars["SHOUT"].path == "package loud-functions 1.2 (entry point loud = loud_functions)"
    assert "SHOUT" not in load_functions(FunctionSources(entry_points=False)).scalars
    broken = tmp_path / "broken-site" / "broken_functions-0.1.dist-info"
    broken.mkdir(parents=True)
    (broken / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-functions\nVersion: 0.1\n")
    (broken / "entry_points.txt").write_text("[ksqlpy.functions]\nbroken = no_such_functions_module\n")
    monkeypatch.syspath_prepend(str(broken.parent))
    with pytest.raises(FunctionLoadError, match="package broken-functions 0.1 .*ModuleNotFoundError"):
        load_functions(FunctionSources())
