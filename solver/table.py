"""The pattern table: feedback of every guess against every answer.

An array of shape (n_guesses, n_answers), guess-major so that one guess's row
over a set of answers is a contiguous gather; uint8 for words of up to 5 letters
(243 patterns), uint16 above (variant.pattern_dtype). Built with numpy or on a GPU
with cupy (identical bytes), cached on disk keyed by the sha256 of both lists.

Cache file layout: magic, key (sha256 hex of both lists), shape, sha256 of the
payload, then the payload. It is written to a temporary file and renamed, so a
killed build never leaves a half table; anything that does not verify is rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import BackendError, WordListError
from .feedback import letter_counts, pattern_rows
from .variant import pattern_dtype
from .words import WordLists, encode_words

BACKENDS = ("auto", "numpy", "cupy")
_MAGIC = b"WDPTABLE1\n"
_HEADER = struct.Struct("<10s64sQQ32s")  # magic, key, rows, cols, payload sha256
_CHUNK = 256  # guesses per vectorised block: keeps the (chunk, A) temporaries in cache


def default_cache_dir() -> Path:
    """$WORDLE_DP_CACHE, else $XDG_CACHE_HOME/wordle-dp, else ~/.cache/wordle-dp."""
    env = os.environ.get("WORDLE_DP_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "wordle-dp"


def memory_bytes() -> int:
    """This machine's physical memory in bytes (a large number when unknown)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 2**50


def _size(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB"


def check_fits(lists: WordLists) -> None:
    """Refuse lists whose table (one or two bytes per guess x answer, by the word
    length) exceeds the memory."""
    need = len(lists.guesses) * len(lists.answers) * pattern_dtype(lists.length).itemsize
    have = memory_bytes()
    if need > have:
        raise WordListError(
            f"the pattern table for {len(lists.guesses)} guesses x {len(lists.answers)} "
            f"answers would need {_size(need)}, more than this machine's memory "
            f"({_size(have)}); use smaller word lists"
        )


def table_key(lists: WordLists) -> str:
    """Cache key: sha256 over both lists' checksums."""
    return hashlib.sha256(
        f"{lists.answers_sha256}:{lists.guesses_sha256}".encode()
    ).hexdigest()


def build_numpy(lists: WordLists) -> np.ndarray:
    """Build the table on the CPU with vectorised numpy, in blocks of guesses."""
    g = encode_words(lists.guesses)
    a = encode_words(lists.answers)
    counts = letter_counts(np, a)
    out = np.empty((len(g), len(a)), dtype=pattern_dtype(lists.length))
    for start in range(0, len(g), _CHUNK):
        out[start : start + _CHUNK] = pattern_rows(np, g[start : start + _CHUNK], a, counts)
    return out


def _cupy():
    """Import cupy and check that a CUDA device is usable, or raise BackendError."""
    try:
        import cupy  # type: ignore[import-not-found]

        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise BackendError("cupy: no CUDA device")
        cupy.zeros(1).sum()  # forces context creation; fails on driver problems
        return cupy
    except BackendError:
        raise
    except Exception as exc:  # ImportError, CUDARuntimeError, driver mismatch...
        raise BackendError(f"cupy backend unavailable: {type(exc).__name__}: {exc}") from None


def build_cupy(lists: WordLists) -> np.ndarray:
    """Build the table on the GPU with cupy and copy it back."""
    cp = _cupy()
    g = cp.asarray(encode_words(lists.guesses))
    a = cp.asarray(encode_words(lists.answers))
    out = cp.empty((len(g), len(a)), dtype=pattern_dtype(lists.length).name)
    counts = letter_counts(cp, a)
    chunk = 4096
    for start in range(0, len(g), chunk):
        out[start : start + chunk] = pattern_rows(cp, g[start : start + chunk], a, counts)
    return cp.asnumpy(out)


def gpu_available() -> bool:
    try:
        _cupy()
        return True
    except BackendError:
        return False


def build(lists: WordLists, backend: str = "auto") -> tuple[np.ndarray, str]:
    """Build the table with a backend; returns (table, backend actually used)."""
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})")
    if backend in ("auto", "cupy"):
        try:
            return build_cupy(lists), "cupy"
        except BackendError:
            if backend == "cupy":
                raise
    return build_numpy(lists), "numpy"


def cache_path(lists: WordLists, cache_dir: str | Path | None = None) -> Path:
    d = Path(cache_dir) if cache_dir else default_cache_dir()
    return d / f"table-{table_key(lists)[:20]}.bin"


def save(path: Path, table: np.ndarray, key: str) -> None:
    """Write atomically: temp file in the same folder, fsync, rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = np.ascontiguousarray(table)  # uint8 or uint16: the key's lists say which
    digest = hashlib.sha256(payload.data).digest()
    header = _HEADER.pack(_MAGIC, key.encode(), payload.shape[0], payload.shape[1], digest)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(header)
            f.write(payload.data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load(path: Path, key: str, shape: tuple[int, int], dtype=np.uint8) -> np.ndarray | None:
    """Read a cached table of `dtype` (the lists' word length sets it; the key names
    the lists); None if missing, truncated, corrupt or for other lists."""
    # A FIFO or device in place of the file is never read (it could block): open it
    # without blocking and look at what it is first.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                return None
            head = f.read(_HEADER.size)
            if len(head) != _HEADER.size:
                return None
            magic, fkey, rows, cols, digest = _HEADER.unpack(head)
            if magic != _MAGIC or fkey != key.encode() or (rows, cols) != shape:
                return None
            if st.st_size != _HEADER.size + rows * cols * np.dtype(dtype).itemsize:
                return None
            # Map the payload instead of copying it: processes on one machine then share
            # the page cache's copy. Copy-on-write keeps the array writable, so numba sees
            # the same array type as for a freshly built table (no second compilation).
            payload = np.memmap(f, dtype=dtype, mode="c", offset=_HEADER.size,
                                shape=(rows * cols,))
    except (OSError, ValueError):
        return None
    if hashlib.sha256(np.asarray(payload).data).digest() != digest:
        return None
    return np.asarray(payload).reshape(rows, cols)


@dataclass
class TableInfo:
    backend: str  # "cache" when loaded from disk, else the builder used
    seconds: float
    path: Path | None
    rebuilt_reason: str | None = None


def get_table(
    lists: WordLists,
    backend: str = "auto",
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
) -> tuple[np.ndarray, TableInfo]:
    """Load the table from the cache, or build it (and cache it).

    An explicit backend must be usable even when the table comes from the cache
    (asking for cupy without a GPU is an error, not silently ignored).
    """
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})")
    check_fits(lists)
    if backend == "cupy":
        _cupy()
    t0 = time.perf_counter()
    key = table_key(lists)
    shape = (len(lists.guesses), len(lists.answers))
    path = cache_path(lists, cache_dir) if use_cache else None
    reason = None
    if path is not None:
        if os.path.lexists(path):  # (Path.exists() raises on a name too long)
            table = load(path, key, shape, pattern_dtype(lists.length))
            if table is not None:
                return table, TableInfo("cache", time.perf_counter() - t0, path)
            reason = "cache file failed verification"
    table, used = build(lists, backend)
    if path is not None:
        try:
            save(path, table, key)
        except OSError as exc:  # a read-only cache must not stop the solve
            reason = f"could not write cache: {exc.strerror or exc}"
            path = None
    return table, TableInfo(used, time.perf_counter() - t0, path, reason)
