"""Ctrl-C within a second in every command, in the middle of a compiled search or
of a first compile, with the process ending normally.

Python runs a SIGINT's handler between two bytecodes of the main thread only: a
numba kernel, which runs without the GIL and does not come back to Python until
its search ends, held a Ctrl-C for 20 s and more (CRANE's value in hard mode). So
while a command runs (`watching`), the signal also wakes a watcher thread: CPython
writes each signal's number to the file given to signal.set_wakeup_fd from the C
handler itself, whatever the main thread is doing. The watcher asks every live
search to stop (solver.stops: the kernels look at their flag at every node), the
kernel returns within milliseconds, and the main thread raises the
KeyboardInterrupt, which cli.main turns into 'wordle-dp: interrupted' and exit
status 130. An error that the stopped search raises instead (engine.Stopped)
becomes that KeyboardInterrupt too.

The other waits end by themselves: a first compile of the ahead-of-time kernels
runs in a child process that the same Ctrl-C ends (solver/aot.py), numba's jit
compiles are Python between short LLVM calls, and prompts read in the main thread.
Commands that handle signals themselves (`OWN_SIGNALS`) are not watched.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# run and book stop on SIGTERM/SIGUSR1 themselves (run/mpi.Signals; a moves build
# inside its class through run/mpi.signals_reach) and serve is uvicorn's: a watcher
# would stop their searches under them
OWN_SIGNALS = ("run", "book", "serve")

_requested = threading.Event()  # a SIGINT came while a command was watched


@contextmanager
def watching() -> Iterator[None]:
    """Run the body with the watcher on (main thread only; elsewhere it does
    nothing). An exception raised in the body after a Ctrl-C is the interruption's
    doing and comes out as KeyboardInterrupt."""
    from .. import stops

    def interrupted(_signum: int) -> None:
        _requested.set()
        stops.stop_all()

    _requested.clear()
    try:
        with stops.on_signals({int(signal.SIGINT)}, interrupted):
            yield
    except Exception as exc:
        if _requested.is_set():  # a search stopped by the Ctrl-C says why: not an error
            raise KeyboardInterrupt from exc
        raise
