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
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_ROOT = Path(__file__).resolve().parent

# Every file with cached jitted functions, and the files whose constants they
# compile in (layout.py, scan_columns.py). tests/test_jitcache.py checks the list.
JIT_SOURCES = tuple(_ROOT / p for p in (
    "search/kernels.py", "search/layout.py", "search/rules.py", "search/memo.py",
    "search/pool.py", "search/bounds.py", "search/scans.py",
    "game/scan_jit.py", "game/scan_columns.py", "game/adversary_jit.py",
    "run/costs.py",
))

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
