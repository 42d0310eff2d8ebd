"""Ctrl-C within a second, even in the middle of a compiled search.

The numba kernels run without coming back to Python, and Python handles a signal
only between two bytecodes of the main thread: a SIGINT during a search used to
wait for the search to end (8 s for the adversary's opener on today's lists, 12 to
25 s for CRANE's value in hard mode). `interruptible` runs the search in a worker
thread while the main thread waits, where a KeyboardInterrupt is seen at once; it
then asks the search to stop (`stop`: Solver.request_stop, which the kernels look
at on every node), waits at most GRACE seconds for the worker, and raises the
KeyboardInterrupt, which cli.main turns into 'wordle-dp: interrupted' and exit
status 130. A worker that did not stop by then (a kernel with no stop flag) is left
to the end of the process: main ends the process with os._exit rather than tear the
interpreter down under a thread still running compiled code (`abandoned`).

Prompts stay in the main thread (readline restores the terminal there).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

GRACE = 0.5  # seconds a stopped search gets to come back before it is left behind
_POLL = 0.1  # the main thread's wait, in slices (a signal interrupts each at once)

_abandoned: list[threading.Thread] = []


def interruptible(fn: Callable[[], T], stop: Callable[[], None] | None = None,
                  grace: float = GRACE) -> T:
    """fn() run in a worker thread, its result or its exception; Ctrl-C in the main
    thread calls `stop` (from the main thread: it must be safe to call from another
    thread than the search's) and raises KeyboardInterrupt within about `grace`
    seconds. Outside the main thread (a web worker, a test's thread) fn runs
    where it is called."""
    if threading.current_thread() is not threading.main_thread():
        return fn()
    box: dict = {}

    def work() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the main thread as it is
            box["error"] = exc

    worker = threading.Thread(target=work, name="wordle-dp search", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(_POLL)
    except KeyboardInterrupt:
        if stop is not None:
            try:
                stop()
            except Exception:  # the interrupt is what matters now
                pass
        worker.join(grace)
        if worker.is_alive():
            _abandoned.append(worker)
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]


def abandoned() -> bool:
    """Whether a search interrupted by Ctrl-C is still running in its thread."""
    return any(t.is_alive() for t in _abandoned)
