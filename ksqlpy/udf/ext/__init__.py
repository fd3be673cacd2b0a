"""Importable names for the modules loaded from an extension directory.

Each ``.py`` file of ``ksql.extension.dir`` is loaded as ``ksqlpy.udf.ext.<stem>_<hex of its absolute
path>``. Because the name carries the path, any process that has ksqlpy can import the module by name
(this package's finder reads the path back): a worker process or a Spark executor that receives a user
function pickled by reference - pickle stores ``module.qualname`` - imports the same file, with no setup
and in any order.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import re
import sys
from collections.abc import Sequence
from types import ModuleType

PREFIX = __name__ + "."
_NAME = re.compile(r"^(?P<stem>[A-Za-z_][A-Za-z0-9_]*)_x(?P<hex>(?:[0-9a-f]{2})+)$")


def module_name(path: str) -> str:
    """The module name of the extension file at ``path``."""
    path = os.path.abspath(path)
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0]) or "module"
    if stem[0].isdigit():
        stem = "_" + stem
    return f"{PREFIX}{stem}_x{path.encode('utf-8').hex()}"


def path_of(name: str) -> str | None:
    """The file a module name of this package stands for, or None."""
    if not name.startswith(PREFIX):
        return None
    m = _NAME.match(name[len(PREFIX):])
    return bytes.fromhex(m.group("hex")).decode("utf-8") if m else None


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None,
                  ) -> importlib.machinery.ModuleSpec | None:
        file = path_of(fullname)
        if file is None or not os.path.isfile(file):
            return None
        return importlib.util.spec_from_file_location(fullname, file)


if not any(isinstance(f, _Finder) for f in sys.meta_path):
    sys.meta_path.append(_Finder())

__all__ = ["module_name", "path_of"]
