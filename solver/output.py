"""Output files of every command (export --csv, tree --out, simulate/score --csv,
--plot): checked before any work starts, written atomically, never inside a
result store, and every failure one line."""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from .errors import UsageError, quote


def store_holding(path: Path) -> Path | None:
    """The result store folder that `path` lies in (at any depth), or None."""
    from .store import FORMAT

    try:
        here = path.resolve().parent
    except (OSError, RuntimeError):
        return None
    for folder in (here, *here.parents):
        meta = folder / "zarr.json"
        try:
            with open(meta, "rb") as f:  # a store's root metadata names its format
                if FORMAT.encode() in f.read(1 << 16):
                    return folder
        except OSError:
            continue
    return None


def check_output(option: str, path: str | None, suffix: str | None = None) -> None:
    """Refuse, before any work, an output that cannot be written: a name with the
    wrong suffix, a path inside a result store, a folder, a missing or unwritable
    parent folder. '-' (stdout) and devices pass."""
    if path is None:
        return
    name = quote(path)
    if suffix and not path.lower().endswith(suffix):
        raise UsageError(f"{option} {name}: name the file *{suffix} (it is written as "
                         f"{suffix[1:].upper()})")
    if path == "-":
        return
    target = Path(path)
    store = store_holding(target)
    if store is not None:
        raise UsageError(f"{option} {name} is inside the result store {store}; "
                         "write it somewhere else")
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise UsageError(f"cannot write {name}: {exc.strerror or exc}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise UsageError(f"cannot write {name}: it is a folder")
    if mode is not None and not stat.S_ISREG(mode):
        return  # a device or FIFO: written in place
    parent = target.resolve().parent if target.is_symlink() else (target.parent or Path("."))
    try:
        pmode = os.stat(parent).st_mode
    except OSError as exc:
        raise UsageError(f"cannot write {name}: folder {quote(str(parent))}: "
                         f"{exc.strerror or exc}") from None
    if not stat.S_ISDIR(pmode):
        raise UsageError(f"cannot write {name}: {quote(str(parent))} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {name}: folder {quote(str(parent))} is not writable")


def write_atomically(target: Path, write: Callable, binary: bool = False) -> None:
    """A regular file (or a new one) is written to a temporary file and renamed, so a
    failed write never leaves half a file; a device (/dev/null, /dev/full) or FIFO is
    written in place (it cannot be renamed over). OSError on failure."""
    mode = "wb" if binary else "w"
    newline = None if binary else ""
    if target.is_symlink():  # replace the file it points to, not the link
        target = target.resolve()
    if target.exists() and not target.is_file():
        if target.is_dir():
            raise OSError(0, "it is a folder")
        try:  # O_NONBLOCK: a FIFO nobody reads fails (ENXIO) instead of blocking
            fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno == errno.ENXIO:
                raise OSError(0, "a FIFO that no process is reading") from None
            raise
        os.set_blocking(fd, True)
        with os.fdopen(fd, mode, newline=newline) as f:
            write(f)
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                               dir=target.parent if str(target.parent) else ".")
    try:
        with os.fdopen(fd, mode, newline=newline) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_output(option: str, path: str | None, write: Callable,
                 binary: bool = False) -> None:
    """Write through `write(file)` to `path` ('-' or None: stdout) as one line of
    error on failure (the output checked again: time has passed since the start)."""
    if path is None or path == "-":
        write(sys.stdout.buffer if binary else sys.stdout)
        return
    check_output(option, path)
    try:
        write_atomically(Path(path), write, binary)
    except OSError as exc:
        raise UsageError(f"cannot write {quote(path)}: {exc.strerror or exc}") from None
