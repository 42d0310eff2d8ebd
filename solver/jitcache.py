"""Numba's on-disk cache, made stale by an edit to any kernel source, not only the
function's own file.

numba checks a cached function against its own source file alone, but a kernel is
compiled together with the jitted functions it calls from other files and with the
constants it reads from them. After an edit to memo.py, `kernels.node` would load
from the cache with the old memo code inside, and the ahead-of-time module (built
from fresh source, but recursing through node's jit dispatcher) would run it below
its first node: a wrong search, silently. So every function of the files below gets
a stamp that includes a hash of all of them; any edit recompiles them all.

Each module with cached jitted functions calls `install()` before its first
`@njit(cache=True)` (numba picks a function's cache locator when it is decorated).
It wraps numba's locators of source-backed files, a private numba interface; if
that interface changes, the cache keeps numba's own rule and nothing else breaks.

`install()` also listens to numba's compile events (numba.core.event, public): a
jit compile that has run for NOTICE_AFTER seconds says so in one line (through
solver.aot's notice: stderr, or the web page's progress), so that a first use
after install that has to compile (the adversary's kernels, the measures scan on
6-letter words, the search when no compiled module can be built) is not silent
for a minute. A cache load is no compile: numba loads before the event. The
ahead-of-time builds, which say so themselves, run `quiet()`.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_ROOT = Path(__file__).resolve().parent

# Every file with cached jitted functions, and the files whose constants they
# compile in (layout.py, scan_columns.py). tests/test_jitcache.py checks the list.
JIT_SOURCES = tuple(_ROOT / p for p in (
    "search/kernels.py", "search/ctxref.py", "search/layout.py", "search/rules.py",
    "search/memo.py", "search/pool.py", "search/bounds.py", "search/scans.py",
    "kernels/scan_jit.py", "kernels/scan_columns.py", "kernels/adversary_jit.py",
    "kernels/wins_jit.py", "kernels/wins4_jit.py",
    "run/costs.py",
))

# seconds a jit compile runs before it says so ($WORDLE_DP_COMPILE_NOTICE_AFTER)
NOTICE_AFTER = float(os.environ.get("WORDLE_DP_COMPILE_NOTICE_AFTER", "") or 1.0)

_groups: dict[str, tuple[Path, ...]] = {}  # a source file -> the files of its group
_stamps: dict[tuple[Path, ...], str] = {}  # a group -> the hash of its files' text


def fingerprint(files: tuple[Path, ...]) -> str:
    """Hash of the text of `files` (computed once per process)."""
    if files not in _stamps:
        h = hashlib.sha256()
        for p in files:
            h.update(p.name.encode() + b"\0" + p.read_bytes())
        _stamps[files] = h.hexdigest()[:16]
    return _stamps[files]


def install(files: tuple[Path, ...] = JIT_SOURCES) -> None:
    """Stamp the cached functions of `files` with the hash of them all."""
    group = tuple(Path(p).resolve() for p in files)
    for p in group:
        _groups[str(p)] = group
    try:
        from numba.core import caching
    except ImportError:
        return
    _listen()
    # CacheImpl (numba 0.68; _CacheImpl before): where numba looks for locators
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    if impl is None or not hasattr(impl, "_locator_classes"):
        return  # numba's own rule (tests/test_jitcache.py fails: look here)
    if getattr(impl, "_wordle_dp_stamped", False):
        return
    impl._locator_classes = [_stamped(c) for c in impl._locator_classes]
    impl._wordle_dp_stamped = True


def _stamped(base: type) -> type:
    """`base`, whose source stamp also carries its group's hash."""

    def get_source_stamp(self):
        own = base.get_source_stamp(self)
        path = getattr(self, "_py_file", None)
        group = _groups.get(str(Path(path).resolve())) if path else None
        return own if group is None else (own, fingerprint(group))

    return type(base)(base.__name__, (base,), {"get_source_stamp": get_source_stamp})


_quiet = [0]  # > 0: compiles say nothing (an ahead-of-time build has said so)
_listening: list = []


@contextmanager
def quiet() -> Iterator[None]:
    """No compile notice within (solver.aot's builds announce themselves)."""
    _quiet[0] += 1
    try:
        yield
    finally:
        _quiet[0] -= 1


def _listen() -> None:
    """Announce a slow compile (once per process; see the module docstring)."""
    if _listening:
        return
    try:
        from numba.core import event
    except ImportError:
        return

    class CompileNotice(event.Listener):
        """Times the outermost compile (a kernel compiles its callees inside it)."""

        def __init__(self) -> None:
            self.depth = 0
            self.timer: threading.Timer | None = None

        def on_start(self, ev) -> None:  # under numba's compiler lock
            self.depth += 1
            if self.depth == 1 and not _quiet[0]:
                f = getattr(ev.data.get("dispatcher"), "py_func", None)
                what = (f"{f.__qualname__} ({f.__module__})" if f is not None
                        else "a kernel")
                self.timer = threading.Timer(NOTICE_AFTER, _say, (what,))
                self.timer.daemon = True
                self.timer.start()

        def on_end(self, ev) -> None:
            self.depth -= 1
            if self.depth == 0 and self.timer is not None:
                self.timer.cancel()
                self.timer = None

    listener = CompileNotice()
    event.register("numba:compile", listener)
    _listening.append(listener)


def _say(what: str) -> None:
    from . import aot

    aot.notify("jit", f"compiling {what} with numba (first use after install; cached "
               "afterwards)...")
