"""Python functions in the shell: ``ksql.extension.dir`` set in ``--config-file`` (issue 15's acceptance), and a
broken extension file reported at start-up."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.cli.conftest import Shell
from tests.udf.acceptance import CTAS, INSERTS, PULL, PUSH, STREAM, write_extension

pexpect = pytest.importorskip("pexpect")


def _config(tmp_path: Path, ext: Path) -> Path:
    cfg = tmp_path / "shell.properties"
    cfg.write_text(f"# the shell's properties\nksql.extension.dir={ext}\nauto.offset.reset=earliest\n")
    return cfg


def test_udf_udtf_and_udaf_from_the_extension_dir_of_the_config_file(tmp_path: Path, shell_env) -> None:  # type: ignore[no-untyped-def]
    ext = tmp_path / "ext"
    write_extension(ext)
    sh = Shell(["--data-dir", str(tmp_path / "engine"), "--config-file", str(_config(tmp_path, ext))], shell_env,
               str(tmp_path))
    try:
        sh.run("DESCRIBE FUNCTION TAXED;", r"The price with 20 percent tax", r"shop_functions\.py")
        sh.run("SHOW FUNCTIONS;", r"LONGEST +\| AGGREGATE", r"TAXED +\| OTHER", r"WORDS +\| TABLE")
        sh.run(STREAM, "Stream created")
        sh.run(INSERTS)
        sh.run(PUSH, r"\|a +\|12\.0 +\|red", r"\|a +\|12\.0 +\|apple", r"\|a +\|6\.0 +\|pear")
        sh.run(CTAS, "Created query")
        out = ""
        for _ in range(50):  # the table is materialized by the engine's background thread
            out = sh.run(PULL)
            if "red apple" in out:
                break
        assert "red apple" in out and "2" in out
    finally:
        sh.close()


def test_a_broken_extension_file_stops_the_shell_with_its_name(tmp_path: Path, shell_env) -> None:  # type: ignore[no-untyped-def]
    ext = tmp_path / "ext"
    ext.mkdir()
    (ext / "broken.py").write_text("from ksqlpy.udf import udf\n@udf('B')\ndef b(x: set[int]) -> int:\n    return 1\n")
    child = pexpect.spawn(sys.executable,
                          ["-m", "ksqlpy", "--data-dir", str(tmp_path / "engine"), "--config-file",
                           str(_config(tmp_path, ext))], env=shell_env, cwd=str(tmp_path), encoding="utf-8",
                          timeout=30)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert f"Could not load functions from {ext / 'broken.py'}" in child.before
    assert "parameter 'x': set[int] has no SQL type" in child.before


def test_an_installed_package_s_functions_in_the_shell(tmp_path: Path, shell_env) -> None:  # type: ignore[no-untyped-def]
    """The same through an entry point: the example package as pip leaves it on the shell's path, its
    functions in DESCRIBE FUNCTION, a push query (scalar, vectorized and table function), a CTAS with its
    aggregate and a pull query on it."""
    import os

    from tests.udf.test_example_package import _installed_from_metadata

    site = tmp_path / "site"
    site.mkdir()
    _installed_from_metadata(site)
    env = {**shell_env, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), shell_env.get("PYTHONPATH")]))}
    cfg = tmp_path / "shell.properties"
    cfg.write_text("auto.offset.reset=earliest\n")
    sh = Shell(["--data-dir", str(tmp_path / "engine"), "--config-file", str(cfg)], env, str(tmp_path))
    try:
        sh.run("DESCRIBE FUNCTION CENTROID;", r"mean position", r"package ksqlpy-geo-functions 0\.1\.0")
        sh.run("CREATE STREAM RIDES (ID STRING KEY, CITY STRING, LAT DOUBLE, LON DOUBLE) "
               "WITH (KAFKA_TOPIC='rides', VALUE_FORMAT='JSON', PARTITIONS=1);", "Stream created")
        sh.run("INSERT INTO RIDES (ID, CITY, LAT, LON) VALUES ('1', 'paris', 48.0, 2.0); "
               "INSERT INTO RIDES (ID, CITY, LAT, LON) VALUES ('2', 'paris', 50.0, 4.0);")
        sh.run("SELECT ID, ROUND(DISTANCE_KM(LAT, LON, 48.0, 2.0)) AS D, "
               "ROUND(DISTANCE_KM_BATCH(LAT, LON, 48.0, 2.0)) AS DB, NEIGHBOUR_CELLS(LAT, LON) AS C "
               "FROM RIDES EMIT CHANGES LIMIT 2;", r"\|1 +\|0(\.0)? +\|0(\.0)? +\|47:1 ", r"\|1 +\|0(\.0)? +\|0(\.0)? +\|47:2 ")
        sh.run("CREATE TABLE CENTRES AS SELECT CITY, CENTROID(LAT, LON) AS C FROM RIDES GROUP BY CITY;",
               "Created query")
        out = ""
        for _ in range(50):  # the table is materialized by the engine's background thread
            out = sh.run("SELECT C FROM CENTRES WHERE CITY = 'paris';")
            if "N=2" in out or "N\": 2" in out or ", 2}" in out:
                break
        assert "49.0" in out and "3.0" in out, out
    finally:
        sh.close()
