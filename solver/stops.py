"""Every search of this process that a Ctrl-C must be able to cut short.

The compiled kernels run without the GIL and never come back to Python mid-search,
so a SIGINT is not seen until the kernel returns (20 s and more for an opener in
hard mode). Each search object (search.Solver, game.Adversary) registers here when
it is made; the command line's interrupt watcher (cli/interrupt.py), a thread that
wakes on the signal itself, calls `stop_all`, and every kernel returns at its next
node. Weak references: a search that is gone is not kept alive by this list.
"""

from __future__ import annotations

import threading
import weakref
from typing import Protocol


class Stoppable(Protocol):
    def request_stop(self) -> None: ...


_live: weakref.WeakSet[Stoppable] = weakref.WeakSet()
_lock = threading.Lock()  # stop_all runs on the watcher's thread while searches are made


def register(search: Stoppable) -> None:
    """Let `stop_all` reach `search` (its request_stop must be safe from any thread)."""
    with _lock:
        _live.add(search)


def stop_all() -> None:
    """Ask every live search to stop (from any thread)."""
    with _lock:
        searches = list(_live)
    for s in searches:
        s.request_stop()
