"""Keep a server's long-lived objects out of the cyclic GC, so a full collection does not stall lookups.

Why: in a server process the heap is mostly what start-up made and what lives as long as a query (the
modules, the web framework, each query's plan and generated code). A full collection walks all of it
with the GIL held: measured 59 ms of CPU in the event-loop thread during a REST pull run, taken by the
request whose allocation crossed the threshold. ``gc.freeze()`` moves every object alive at that moment
into a generation the collector never walks; reference counting still frees them, only cycles among
them are never collected. So the process settles (collect, then freeze) once it is serving and again
after a query is set up, and after every ``thaw_after`` stopped queries (whose cyclic structures would
otherwise stay frozen for good) thaws everything: one full collection, at that statement's time. Not one
per stop: a server reset by the REST tests stops hundreds of queries, each full collection tens of ms.

Off by default: a process that opens and closes many engines (the tests, an embedding application)
would keep every closed engine's cycles frozen; the server turns it on for its one engine.
"""

from __future__ import annotations

import gc
import threading

THAW_AFTER = 8  # stopped queries whose frozen objects may wait for a full collection


class HeapFreeze:
    """When to settle the heap; ``enabled`` is set by the owner of a long-running process."""

    def __init__(self) -> None:
        self.enabled = False
        self.thaw_after = THAW_AFTER
        self._released = 0  # stopped queries since the last thaw: their frozen cycles are not collected yet
        self._lock = threading.Lock()

    def settle(self) -> int:
        """Collect the garbage and freeze what is left (after a thaw: the whole heap, once); returns the
        objects frozen now, 0 when disabled."""
        if not self.enabled:
            return 0
        with self._lock:
            if self._released >= self.thaw_after:
                gc.unfreeze()
                self._released = 0
            gc.collect()
            before = gc.get_freeze_count()
            gc.freeze()
            return gc.get_freeze_count() - before

    def released(self) -> bool:
        """A query stopped: objects frozen with it may be garbage now. Returns whether enough have stopped
        for a thaw (the next settle unfreezes and collects everything first)."""
        if not self.enabled:
            return False
        self._released += 1
        return self._released >= self.thaw_after
