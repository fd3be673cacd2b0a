"""Package discovery: the design card's top-level grammar/, server/ and cli/ folders install as
ksqlpy.grammar, ksqlpy.server and ksqlpy.cli, so no generic top-level names land in site-packages."""
from setuptools import find_packages, setup

MAPPED = {"grammar": "ksqlpy.grammar", "server": "ksqlpy.server", "cli": "ksqlpy.cli"}

packages = ["ksqlpy"] + [f"ksqlpy.{p}" for p in find_packages("ksqlpy")]
package_dir = {"ksqlpy": "ksqlpy"}
for folder, name in MAPPED.items():
    packages.append(name)
    package_dir[name] = folder
    for sub in find_packages(folder):
        packages.append(f"{name}.{sub}")
        package_dir[f"{name}.{sub}"] = f"{folder}/{sub.replace('.', '/')}"

setup(packages=packages, package_dir=package_dir)
