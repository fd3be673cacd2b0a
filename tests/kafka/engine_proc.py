"""An engine process for the cluster tests: runs statements, then reports its workers until killed.

    python engine_proc.py DATA_DIR STATUS_FILE PROPERTIES_JSON STATEMENTS_JSON

The status file (JSON, replaced atomically) lists, per query, each worker's pid and assigned partitions.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time


def main(argv: list[str]) -> None:
    from ksqlpy.engine import Engine

    data_dir, status_file, props, statements = argv[0], argv[1], json.loads(argv[2]), json.loads(argv[3])
    engine = Engine(data_dir, props)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    for sql in statements:
        engine.execute(sql)
    while not stop:
        report = {"pid": os.getpid(), "queries": {}}
        for qid, q in engine.queries.items():
            workers = getattr(q, "workers", None)
            if workers is not None:
                report["queries"][qid] = [{"pid": s.get("pid"), "assigned": s.get("assigned") or []}
                                          for s in workers.statuses()]
        tmp = f"{status_file}.tmp"
        with open(tmp, "w") as f:
            json.dump(report, f)
        os.replace(tmp, status_file)
        time.sleep(0.2)
    engine.close()


if __name__ == "__main__":
    main(sys.argv[1:])
