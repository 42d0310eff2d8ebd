"""The class checkpoint of a result store: the values of first-feedback classes of
openers (a split opener's classes as the run values them, every exact opener's for
the opening book), beside the store's own arrays in a Zarr group 'classes' in the
store folder. Arrays [G, 3^L] over (opener, pattern): 'value' (uint64: status,
total, depth and best second guess packed in one word; 0 = not valued) and
'cpu_seconds' (float32). Chunks of CHUNK_ROWS openers, written only where a class
was valued; a chunk file is replaced whole (Zarr writes a temporary file and
renames it), and one word holds all of a class, so a SIGKILL at any moment leaves
every class either valued with all its fields or not valued. A class value depends
only on the problem (lists, mode, cap), never on a cutoff. The group is a cache of
work: a missing or unreadable part only means those classes are valued again.
Written by the run (run/split.py says how it values classes), read by the book."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .layout import FAILED, LOWER_BOUND, zarr_module

CHUNK_ROWS = 8  # openers per chunk of the checkpoint arrays (a chunk: 15 kB raw)
GROUP = "classes"


@dataclass
class ClassResult:
    """One valued class, as a worker sends it and the checkpoint keeps it."""

    index: int  # the opener's guess index
    pattern: int
    status: int  # store code; FAILED stands for not_found
    total: int = -1
    depth: int = -1
    second: int = -1  # guess index of the best second guess
    cpu_seconds: float = float("nan")
    wall_seconds: float = float("nan")
    nodes: int = -1
    rank: int = -1


# One class in one uint64, so that a chunk file (written whole, by rename) holds
# every field of its classes or none: bits 0-2 status (store code; 0 = not valued),
# 3-10 depth + 1, 11-31 second guess + 1, 32-63 total + 1. A lower bound above the
# 32 bits is kept as the largest that fits (still a lower bound).
_DEPTH_BITS, _SECOND_BITS = 8, 21
_TOTAL_MAX = 2**32 - 2


def pack(r: ClassResult) -> int:
    """The checkpoint word of one class result."""
    total = min(r.total, _TOTAL_MAX) if r.status == LOWER_BOUND else r.total
    if not (-1 <= r.depth < 2**_DEPTH_BITS - 1 and -1 <= r.second < 2**_SECOND_BITS - 1
            and -1 <= total <= _TOTAL_MAX and 0 < r.status < 8):
        raise ValueError(f"class result out of the checkpoint's range: {r}")
    return (int(r.status) | (r.depth + 1) << 3 | (r.second + 1) << 11
            | (total + 1) << 32)


def unpack(index: int, pattern: int, word: int, cpu: float = float("nan")) -> ClassResult:
    w = int(word)
    return ClassResult(index, pattern, w & 7, (w >> 32) - 1, ((w >> 3) & 255) - 1,
                       ((w >> 11) & (2**_SECOND_BITS - 1)) - 1, float(cpu))


class ClassStore:
    """The per-class checkpoint of one result store: a Zarr group 'classes' in the
    store folder with two arrays over [opener, pattern], 'value' (uint64, the
    packed result, 0 = not valued) and 'cpu_seconds' (float32, for benchmarks;
    written before 'value'), in chunks of CHUNK_ROWS openers. Only rank 0 (the
    store's one writer) uses it. It keeps in memory only the chunks that hold a
    valued class (a whole-table copy would be [G, 3^L]: 2.3 GB at 8 letters).
    `n_patterns`: 3^L for the store's words; None reads L from the store."""

    def __init__(self, path, n_openers: int, n_patterns: int | None = None):
        self.path = Path(path)
        self.n = int(n_openers)
        self.n_p = int(n_patterns) if n_patterns is not None else 3**_word_length(self.path)
        self._group: Any = None  # the Zarr group, once read or made
        self._loaded = False
        # chunk number -> the writer's copy of its rows of 'value' and 'cpu_seconds'
        self._chunks: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.notes: list[str] = []
        self.written = 0

    def _rows(self, c: int) -> tuple[int, int]:
        return c * CHUNK_ROWS, min((c + 1) * CHUNK_ROWS, self.n)

    def _load(self) -> None:
        """Read the checkpoint once (a missing, half-made or damaged one: empty, and
        made again at the first write; a damaged chunk: those rows empty)."""
        if self._loaded:
            return
        self._loaded = True
        if not (self.path / GROUP / "zarr.json").is_file():
            return
        try:
            g = zarr_module().open_group(str(self.path), mode="r+", zarr_format=3)[GROUP]
            v, c = g["value"], g["cpu_seconds"]
            if v.shape != (self.n, self.n_p) or v.dtype != np.uint64 or (
                    c.shape != v.shape or c.dtype != np.float32):
                raise ValueError(f"arrays of shape {v.shape}, {c.shape}")
        except Exception as exc:
            self.notes.append(f"class checkpoint unusable ({type(exc).__name__}: "
                              f"{str(exc)[:80]}); its classes are valued again")
            return
        bad = 0
        for k in range((self.n + CHUNK_ROWS - 1) // CHUNK_ROWS):
            lo, hi = self._rows(k)
            try:
                rows = np.asarray(v[lo:hi])
                if not rows.any():
                    continue  # never written (or nothing valued): not kept
                if ((rows & 7) > FAILED).any():
                    raise ValueError("status out of range")
                self._chunks[k] = (rows, np.asarray(c[lo:hi]))
            except Exception:
                bad += 1  # valued again
        if bad:
            self.notes.append(f"class checkpoint: {bad} damaged chunk(s); those classes "
                              "are valued again")
        self._group = g

    def _row(self, index: int) -> tuple[np.ndarray, np.ndarray] | None:
        got = self._chunks.get(index // CHUNK_ROWS)
        if got is None:
            return None
        k = index % CHUNK_ROWS
        return got[0][k], got[1][k]

    def results(self, index: int) -> dict[int, ClassResult]:
        """The valued classes of one opener: pattern -> result."""
        self._load()
        got = self._row(index)
        if got is None:
            return {}
        row, cpu = got
        return {int(p): unpack(index, int(p), row[p], cpu[p])
                for p in np.flatnonzero(row & np.uint64(7))}

    def partly_done(self, indices) -> set[int]:
        """Those of `indices` with at least one valued class."""
        self._load()
        out = set()
        for i in indices:
            got = self._row(int(i))
            if got is not None and got[0].any():
                out.add(int(i))
        return out

    def _create(self):
        import shutil

        shutil.rmtree(self.path / GROUP, ignore_errors=True)
        root = zarr_module().open_group(str(self.path), mode="r+", zarr_format=3)
        g = root.create_group(GROUP)
        shape, chunks = (self.n, self.n_p), (CHUNK_ROWS, self.n_p)
        g.create_array("cpu_seconds", shape=shape, chunks=chunks, dtype="float32",
                       fill_value=float("nan"))
        g.create_array("value", shape=shape, chunks=chunks, dtype="uint64", fill_value=0)
        return g

    def write(self, results: list[ClassResult]) -> None:
        """Checkpoint valued classes: the touched chunks, 'value' last."""
        if not results:
            return
        self._load()
        for r in results:
            k = r.index // CHUNK_ROWS
            if k not in self._chunks:
                lo, hi = self._rows(k)
                self._chunks[k] = (np.zeros((hi - lo, self.n_p), np.uint64),
                                   np.full((hi - lo, self.n_p), np.nan, np.float32))
            value, cpu = self._chunks[k]
            value[r.index % CHUNK_ROWS, r.pattern] = pack(r)
            cpu[r.index % CHUNK_ROWS, r.pattern] = r.cpu_seconds
        if self._group is None:
            self._group = self._create()
        touched = sorted({r.index // CHUNK_ROWS for r in results})
        for name, part in (("cpu_seconds", 1), ("value", 0)):
            target = self._group[name]
            for k in touched:
                lo, hi = self._rows(k)
                target[lo:hi] = self._chunks[k][part]
        self.written += len(results)


def _word_length(store_path: Path) -> int:
    """The word length a result store records (5 in stores made before other
    lengths were played)."""
    import json

    try:
        attrs = json.loads((store_path / "zarr.json").read_text()).get("attributes", {})
        return int(attrs.get("word_length", 5))
    except (OSError, ValueError, TypeError):
        return 5
