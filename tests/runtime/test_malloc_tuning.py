"""``tune_malloc``: on glibc a batch's large blocks come from the heap and its freed top stays mapped for the
next batch (no unmap and zero-filled page faults per batch); a process's own malloc settings win. Each case
runs in a fresh interpreter: the settings are process-wide."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc" or platform.system() != "Linux",
                                reason="glibc's mallopt")

_PROBE = """
import ctypes, ctypes.util, json, sys
from ksqlpy.runtime.malloc_tuning import tune_malloc

class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL(ctypes.util.find_library("c"))
if not hasattr(libc, "mallinfo2"):
    print(json.dumps(None)); sys.exit()
libc.mallinfo2.restype = MallInfo2
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
applied = tune_malloc() if sys.argv[1] == "tune" else None
size = 8 << 20
before = libc.mallinfo2()
p = libc.malloc(size)
during = libc.mallinfo2()
libc.free(p)
after = libc.mallinfo2()
print(json.dumps({"applied": applied, "mapped": during.hblks - before.hblks, "kept": after.keepcost >= size}))
"""


def _probe(mode: str, **env: str) -> dict | None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    out = subprocess.run([sys.executable, "-c", _PROBE, mode], env={**clean, **env}, capture_output=True,
                         text=True, check=True, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    result = json.loads(out.stdout)
    if result is None:
        pytest.skip("no mallinfo2 (glibc < 2.33)")
    return result  # type: ignore[no-any-return]


def test_a_batch_sized_block_comes_from_the_heap_and_its_pages_stay_for_the_next_batch() -> None:
    r = _probe("tune")
    assert r == {"applied": True, "mapped": 0, "kept": True}


def test_without_the_tuning_glibc_maps_the_block_and_unmaps_it_on_free() -> None:
    r = _probe("plain")
    assert r["mapped"] == 1 and not r["kept"]


@pytest.mark.parametrize("env", [{"MALLOC_TRIM_THRESHOLD_": "131072"},
                                 {"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=131072"}])
def test_the_process_own_malloc_settings_win(env: dict[str, str]) -> None:
    r = _probe("tune", **env)
    assert r["applied"] is False and r["mapped"] == 1
