"""Every search of this process that a Ctrl-C must be able to cut short, and the
watcher that lets a signal reach them mid-kernel.

The compiled kernels run without the GIL and never come back to Python mid-search,
so a SIGINT is not seen until the kernel returns (20 s and more for an opener in
hard mode). Each search object (search.Solver, game.Adversary) registers here when
it is made; the command line's interrupt watcher (cli/interrupt.py), a thread that
wakes on the signal itself, calls `stop_all`, and every kernel returns at its next
node. Weak references: a search that is gone is not kept alive by this list.
"""

from __future__ import annotations

import os
import signal
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


@contextmanager
def on_signals(signums: set[int], act: Callable[[int], None]) -> Iterator[None]:
    """While the body runs, call `act(signum)` from a watcher thread as soon as one of
    `signums` arrives, whatever the main thread is doing. Python runs a signal's
    handler only when the main thread is back in Python, which a compiled search
    is not until it ends; CPython writes each signal's number to the file given to
    signal.set_wakeup_fd from its C handler, and the watcher reads it. The signals
    must have a Python handler (else they kill the process). Main thread only:
    elsewhere the body runs without the watcher."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)  # the C handler must never block on it
    previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)

    def watch() -> None:
        try:
            while data := os.read(read_end, 64):  # waits without the GIL
                for signum in set(data) & signums:
                    act(signum)
        finally:
            os.close(read_end)

    watcher = threading.Thread(target=watch, daemon=True, name="wordle-dp signals")
    watcher.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)
        os.close(write_end)  # the watcher reads the end of the file and returns
        watcher.join()
