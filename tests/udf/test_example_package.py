"""The example package examples/geo-functions: found through its ``ksqlpy.functions`` entry point, as pip installs
it (its dist-info written from its pyproject.toml; a real ``pip install --target`` where the build tools are
there), then used in push, persistent and pull queries."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from tests.udf.conftest import values

PACKAGE = Path(__file__).resolve().parents[2] / "examples" / "geo-functions"


def _installed_from_metadata(site: Path) -> None:
    """What pip leaves in site-packages: the package and a dist-info with its entry points."""
    project = tomllib.loads((PACKAGE / "pyproject.toml").read_text())["project"]
    shutil.copytree(PACKAGE / "src" / "ksqlpy_geo_functions", site / "ksqlpy_geo_functions")
    dist = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    lines = ["[ksqlpy.functions]"] + [f"{k} = {v}" for k, v in project["entry-points"]["ksqlpy.functions"].items()]
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n")


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    site = tmp_path / "site"
    site.mkdir()
    _installed_from_metadata(site)
    monkeypatch.syspath_prepend(str(site))
    e = Engine(str(tmp_path / "data"), {"auto.offset.reset": "earliest", "cache.max.bytes.buffering": 0})
    try:
        yield e
    finally:
        e.close()


def test_the_example_package_in_queries(engine: Engine) -> None:
    d = engine.execute("DESCRIBE FUNCTION CENTROID;")[0].data
    assert d["path"] == "package ksqlpy-geo-functions 0.1.0 (entry point geo = ksqlpy_geo_functions.geo)"
    assert d["type"] == "AGGREGATE" and "mean position" in d["description"]
    distance = engine.execute("DESCRIBE FUNCTION DISTANCE_KM;")[0].data
    assert (distance["author"], distance["version"]) == ("ksqlpy examples", "0.1.0")
    assert distance["functions"][0]["arguments"][0]["description"] == "latitude of the first point"
    engine.execute("CREATE TABLE RIDES (ID STRING PRIMARY KEY, CITY STRING, LAT DOUBLE, LON DOUBLE) "
                   "WITH (KAFKA_TOPIC='rides', VALUE_FORMAT='JSON', PARTITIONS=1);")
    for id_, city, lat, lon in (("1", "paris", 48.0, 2.0), ("2", "paris", 50.0, 4.0), ("1", "lyon", 45.75, 4.85)):
        engine.execute(f"INSERT INTO RIDES (ID, CITY, LAT, LON) VALUES ('{id_}', '{city}', {lat}, {lon});")
    engine.execute("CREATE TABLE CENTRES AS SELECT CITY, CENTROID(LAT, LON) AS C FROM RIDES GROUP BY CITY;")
    engine.drain(10)
    # ride 1 moved from Paris to Lyon: CENTROID's undo took it out of Paris's centre
    rows = {r[0]: r[1] for r in engine.execute("SELECT * FROM CENTRES;")[0].data["rows"]}
    assert rows == {"paris": {"LAT": 50.0, "LON": 4.0, "N": 1}, "lyon": {"LAT": 45.75, "LON": 4.85, "N": 1}}


def test_scalar_vectorized_and_table_functions(engine: Engine) -> None:
    engine.execute("CREATE STREAM RIDES (ID STRING KEY, LAT DOUBLE, LON DOUBLE) "
                   "WITH (KAFKA_TOPIC='rides_s', VALUE_FORMAT='JSON', PARTITIONS=1);")
    engine.execute("INSERT INTO RIDES (ID, LAT, LON) VALUES ('a', 45.75, 4.85);")
    engine.execute("CREATE STREAM D AS SELECT ID, DISTANCE_KM(LAT, LON, 48.8566, 2.3522) AS D, "
                   "DISTANCE_KM_BATCH(LAT, LON, 48.8566, 2.3522) AS DB FROM RIDES;")
    engine.execute("CREATE STREAM CELLS AS SELECT ID, NEIGHBOUR_CELLS(LAT, LON) AS CELL FROM RIDES;")
    engine.drain(10)
    ((d, db),) = values(engine, "D")
    assert round(d) == 393 and d == db  # Lyon - Paris
    assert [v[0] for v in values(engine, "CELLS")] == ["44:3", "44:4", "44:5", "45:3", "45:4", "45:5", "46:3",
                                                       "46:4", "46:5"]


def test_pip_installs_it_with_its_entry_point(tmp_path: Path) -> None:
    """A real install where the build tools are at hand (no network: --no-build-isolation)."""
    pytest.importorskip("wheel")
    target = tmp_path / "site"
    out = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                          "--target", str(target), str(PACKAGE)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    code = ("from ksqlpy.udf.loader import FunctionSources, load_functions; "
            "print(load_functions(FunctionSources()).aggregates['CENTROID'].path)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(target)})
    assert run.stdout.strip().startswith("package ksqlpy-geo-functions 0.1.0"), run.stderr[-3000:]
