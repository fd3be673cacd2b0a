"""Virtual environments for the peers, created by the bench itself from PyPI under bench/.venvs.

Each peer gets its own environment so its pins never meet ours (Quix Streams and Bytewax both pin
confluent-kafka and friends). Versions are pinned to the ones the targets were set against.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".venvs")

PEERS: dict[str, list[str]] = {
    "quixstreams": ["quixstreams==3.28.1", "orjson"],
    "bytewax": ["bytewax==0.21.1", "orjson", "confluent-kafka"],
    # Flink SQL through PyFlink: the JVM mini-cluster ships inside the wheel (needs a Java 11/17 runtime)
    "flink": ["apache-flink==2.3.0"],
    "pathway": ["pathway==0.33.0"],
}


def python_of(peer: str) -> str:
    return os.path.join(ROOT, peer, "bin", "python")


def ensure(peer: str, log: object = print) -> str:
    """The peer environment's python, creating and filling the environment if needed (pip, once)."""
    path = os.path.join(ROOT, peer)
    marker = os.path.join(path, ".bench-ready")
    want = " ".join(PEERS[peer])
    if os.path.exists(marker) and open(marker).read() == want:
        return python_of(peer)
    log(f"  creating {path} ({want}) ...")  # type: ignore[operator]
    venv.EnvBuilder(with_pip=True, clear=True).create(path)
    r = subprocess.run([python_of(peer), "-m", "pip", "install", "-q", "--disable-pip-version-check", *PEERS[peer]],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"pip install into {path} failed:\n{r.stderr[-2000:]}")
    with open(marker, "w") as f:
        f.write(want)
    return python_of(peer)


if __name__ == "__main__":
    for name in sys.argv[1:] or PEERS:
        print(ensure(name))
