"""Start-up stays light: what ``ksqlpy`` imports before the prompt (the pty test measures the time)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEAVY = ("pyspark", "confluent_kafka", "httpx", "fastapi", "hypercorn", "pandas", "pyarrow", "numpy")

PROBE = """
import json, sys
from ksqlpy.cli.main import build_parser, make_backend
from ksqlpy.cli.session import Session
from ksqlpy.cli.console import Console
import ksqlpy.cli.repl, ksqlpy.cli.completer
args = build_parser().parse_args(["--data-dir", sys.argv[1]])
backend = make_backend(args)
Session(backend, Console())
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
backend.close()
"""


def test_embedded_start_imports_no_spark_kafka_or_http(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "data")], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    loaded = set(json.loads(r.stdout.strip().splitlines()[-1]))
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_non_interactive_runs_do_not_import_prompt_toolkit(tmp_path: Path) -> None:
    probe = ("import sys, runpy; sys.argv = ['ksqlpy', '--data-dir', sys.argv[1], '-e', 'SHOW STREAMS;'];\n"
             "from ksqlpy.cli.main import main; rc = main(sys.argv[1:]);\n"
             "print('PTK' if 'prompt_toolkit' in sys.modules else 'NOPTK', rc)")
    r = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "data")], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "NOPTK 0"
