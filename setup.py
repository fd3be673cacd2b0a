"""Package discovery: the design card's top-level grammar/, server/ and cli/ folders install as
ksqlpy.grammar, ksqlpy.server and ksqlpy.cli, so no generic top-level names land in site-packages."""
from setuptools import Extension, find_packages, setup

MAPPED = {"grammar": "ksqlpy.grammar", "server": "ksqlpy.server", "cli": "ksqlpy.cli"}

packages = ["ksqlpy"] + [f"ksqlpy.{p}" for p in find_packages("ksqlpy")]
package_dir = {"ksqlpy": "ksqlpy"}
for folder, name in MAPPED.items():
    packages.append(name)
    package_dir[name] = folder
    for sub in find_packages(folder):
        packages.append(f"{name}.{sub}")
        package_dir[f"{name}.{sub}"] = f"{folder}/{sub.replace('.', '/')}"

# what the C extensions share (as_ll): on each one's include path, and a dependency (a change rebuilds all three);
# MANIFEST.in ships it in the sdist
NATIVE = {"include_dirs": ["ksqlpy/include"], "depends": ["ksqlpy/include/ksqlpy_long.h"]}
# the log's record framing in C (ksqlpy/log/framing.py); optional: without a compiler the Python framing runs
FRAMING = Extension("ksqlpy.log._framing", ["ksqlpy/log/_framing.c"], optional=True, **NATIVE)
# a stream-stream join's batch loop in C (ksqlpy/runtime/join_native.py); optional: without it the Python loop runs
SSJOIN = Extension("ksqlpy.runtime._ssjoin", ["ksqlpy/runtime/_ssjoin.c"], optional=True, **NATIVE)

# a batch of JSON values decoded straight into a join's blocks (ksqlpy/serde/json_blocks.py); optional likewise
JSONBLOCKS = Extension("ksqlpy.serde._jsonblocks", ["ksqlpy/serde/_jsonblocks.c"], optional=True, **NATIVE)

setup(packages=packages, package_dir=package_dir, ext_modules=[FRAMING, SSJOIN, JSONBLOCKS])
