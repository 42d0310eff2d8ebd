"""The result store: one Zarr 3 group holding the value of every opener.

Layout (every per-opener array is indexed by the guess index of the opener in the
problem's guess list)::

    status        uint8   [G]       0 pending, 1 exact, 2 infeasible, 3 lower_bound,
                                    4 upper_bound, 5 failed
    total         int64   [G]       total guesses over all answers (-1: none)
    depth         int16   [G]       worst-case number of guesses (-1: none)
    cpu_seconds   float64 [G]       CPU time of the solve on its rank
    wall_seconds  float64 [G]       wall time of the solve
    nodes         int64   [G]       search nodes reported by the engine
    rank          int32   [G]       MPI rank that solved it (-1: none)
    finished_at   float64 [G]       unix time the result reached rank 0 (NaN: none)
    selected      uint8   [G]       1 if some run was asked to value this opener
    second        int32   [G, P]    best second guess (guess index) per feedback
                                    pattern of the opener (-1: none / not known);
                                    P = 3**L patterns for words of L letters
    words         uint8   [G, L]    the guess list itself (letters 0..25), so the
                                    store can be read without the list files
    answer_ids    int32   [A]       guess index of each answer
    opener        string  [G]       the guess list as words (xarray's coordinate)
    pattern       string  [P]       the feedback patterns as text, BBBBB .. GGGGG
    average       float64 [G]       total / answers (NaN: none), written with total

Every array names its dimensions (opener, pattern, letter, answer), so
`xarray.open_zarr(path, consolidated=False)` gives a Dataset indexed by opener
word; `status` carries its code names (flag_values, flag_meanings). Stores made
before opener/pattern/average and the dimension names still open everywhere else;
`upgrade_layout` (run by `repair` and by any run that resumes the store) adds them
in place. The root metadata changes with every batch, so the store keeps no
consolidated metadata (hence consolidated=False).

Attributes: format, answers_sha256, guesses_sha256, n_answers, n_guesses,
word_length (absent in stores made before other lengths were played: 5), mode,
max_guesses, objective (absent in stores made before issue 18: expected; worst: the
depth column is the fewest guesses that solve every answer and total the smallest
total within them, and openers rank by depth, then total), cutoff, solver_version,
created_at, 'run' (progress of the last run, rewritten on every flush) and 'writer'
(who last took the writer lock).

Every chunk of every array is written, even one equal to the fill value (zarr's
default would leave it out), so a missing chunk file always means damage: zarr
would otherwise read it back as the fill value (every opener 'pending', every
word 'aaaaa'). `Store.open` validates a store before use (root attributes, array
shapes and dtypes, every chunk readable, status codes in range, the word arrays
against the list checksums) and refuses a damaged one; `repair` re-marks the
openers of unreadable parts as pending and keeps every readable result.

Crash safety. There is exactly one writer (rank 0 of a run). Results are buffered
and written in batches; within a batch every other array is written first and the
`status` array last. Zarr's LocalStore writes each chunk to a temporary file and
renames it, so a chunk file is always either the old or the new version. Hence,
after a kill -9 at any moment, an opener whose status is not pending has all of
its fields written. Readers must read `status` first (see `Snapshot`).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import stat
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import StoreError, one_line, quote
from ..variant import OBJECTIVES
from ..words import kind_of, read_regular

FORMAT = "wordle-dp-store/1"

PENDING, EXACT, INFEASIBLE, LOWER_BOUND, UPPER_BOUND, FAILED = range(6)
STATUS_NAMES = ("pending", "exact", "infeasible", "lower_bound", "upper_bound", "failed")
STATUS_CODES = {name: code for code, name in enumerate(STATUS_NAMES)}

# name -> (dtype, fill value); all 1-D over guesses
_FIELDS: dict[str, tuple[str, object]] = {
    "total": ("int64", -1),
    "depth": ("int16", -1),
    "cpu_seconds": ("float64", float("nan")),
    "wall_seconds": ("float64", float("nan")),
    "nodes": ("int64", -1),
    "rank": ("int32", -1),
    "finished_at": ("float64", float("nan")),
}
_SECOND_BYTES = 1024 * 243 * 4  # a chunk of `second` holds about 1 MB raw (compressed,
# a few kB): 1024 rows of 243 patterns, fewer for longer words
_MIRROR_MAX = 64 * 2**20  # the writer keeps `second` in memory up to this size; above
# (7 letters and more on big lists), a batch reads and rewrites the chunks it touches


def second_rows(n_patterns: int) -> int:
    """Rows of `second` per chunk file (1024 for 5-letter words, as always)."""
    return max(1, _SECOND_BYTES // (4 * n_patterns))


@dataclass(frozen=True)
class Problem:
    """What a store's numbers mean: two lists, the rules and the guess cap."""

    answers_sha256: str
    guesses_sha256: str
    n_answers: int
    n_guesses: int
    mode: str
    max_guesses: int
    length: int = 5  # letters per word
    objective: str = "expected"  # or worst (Variant.objective)

    @classmethod
    def from_lists(cls, lists, mode: str, max_guesses: int,
                   objective: str = "expected") -> Problem:
        return cls(
            lists.answers_sha256, lists.guesses_sha256, len(lists.answers),
            len(lists.guesses), mode, int(max_guesses), lists.length, objective,
        )

    @property
    def n_patterns(self) -> int:
        return 3**self.length

    def differences(self, other: Problem) -> list[str]:
        """What differs, phrased as 'what (store: self, requested: other)'."""
        out = []
        if self.length != other.length:
            out.append(f"word length (store: {self.length} letters, requested: "
                       f"{other.length})")

        def lst(n, sha):
            return f"{n} words, sha256 {sha[:12]}"

        if self.answers_sha256 != other.answers_sha256 or self.n_answers != other.n_answers:
            out.append(f"answer list (store: {lst(self.n_answers, self.answers_sha256)}; "
                       f"requested: {lst(other.n_answers, other.answers_sha256)})")
        if self.guesses_sha256 != other.guesses_sha256 or self.n_guesses != other.n_guesses:
            out.append(f"guess list (store: {lst(self.n_guesses, self.guesses_sha256)}; "
                       f"requested: {lst(other.n_guesses, other.guesses_sha256)})")
        if self.mode != other.mode:
            out.append(f"mode (store: {self.mode}, requested: {other.mode})")
        if self.max_guesses != other.max_guesses:
            out.append(f"max_guesses (store: {self.max_guesses}, requested: "
                       f"{other.max_guesses})")
        if self.objective != other.objective:
            out.append(f"objective (store: {self.objective}, requested: {other.objective})")
        return out


@dataclass
class Record:
    """One finished opener, as buffered by the writer."""

    index: int
    status: int
    total: int = -1
    depth: int = -1
    cpu_seconds: float = float("nan")
    wall_seconds: float = float("nan")
    nodes: int = -1
    rank: int = -1
    finished_at: float = float("nan")
    second: np.ndarray | None = None  # int32 [P] (3**L patterns) or None


MODES = ("easy", "hard", "strict")
EVERY_CHUNK = "every_chunk_written"  # attribute: a missing chunk file means damage
RESULT_ARRAYS = ("status", "total", "depth", "second")  # lost -> opener pending again
INFO_ARRAYS = ("selected", "cpu_seconds", "wall_seconds", "nodes", "rank", "finished_at")
LIST_ARRAYS = ("words", "answer_ids")  # rebuilt from the list files
_ZARR_READY = False


def _zarr():
    import zarr

    global _ZARR_READY
    if not _ZARR_READY:  # write every chunk: a missing chunk file then means damage
        zarr.config.set({"array.write_empty_chunks": True})
        _ZARR_READY = True
    return zarr


def layout(n_guesses: int, n_answers: int,
           length: int = 5) -> dict[str, tuple[tuple, tuple, str, object]]:
    """name -> (shape, chunks, dtype, fill value) of every array of a store of words
    of `length` letters."""
    g = n_guesses
    n_p = 3**length
    out: dict[str, tuple[tuple, tuple, str, object]] = {
        "status": ((g,), (g,), "uint8", 0),
        "selected": ((g,), (g,), "uint8", 0),
    }
    for name, (dtype, fill) in _FIELDS.items():
        out[name] = ((g,), (g,), dtype, fill)
    out["second"] = ((g, n_p), (second_rows(n_p), n_p), "int32", -1)
    out["words"] = ((g, length), (g, length), "uint8", 0)
    out["answer_ids"] = ((n_answers,), (n_answers,), "int32", 0)
    return out


# dimension names of every array (xarray needs them) and the arrays added for it
DIMS: dict[str, tuple[str, ...]] = {
    **{name: ("opener",) for name in ("status", "selected", *_FIELDS)},
    "second": ("opener", "pattern"), "words": ("opener", "letter"), "answer_ids": ("answer",),
    "opener": ("opener",), "pattern": ("pattern",), "average": ("opener",),
}
XARRAY_ARRAYS = ("opener", "pattern", "average")  # not in `layout`: older stores lack them
ATTRS: dict[str, dict] = {
    "status": {"flag_values": list(range(len(STATUS_NAMES))),
               "flag_meanings": " ".join(STATUS_NAMES),
               "long_name": "what is known of the opener's value"},
    "selected": {"long_name": "1 if some run was asked to value this opener"},
    "total": {"long_name": "total guesses over all answers with best play (-1: none)"},
    "average": {"long_name": "total / number of answers (NaN: none)"},
    "depth": {"long_name": "worst-case number of guesses (-1: none)"},
    "cpu_seconds": {"units": "s", "long_name": "CPU time of the solve"},
    "wall_seconds": {"units": "s", "long_name": "wall time of the solve"},
    "nodes": {"long_name": "search nodes (-1: none)"},
    "rank": {"long_name": "MPI rank that solved it (-1: none)"},
    "finished_at": {"units": "seconds since 1970-01-01T00:00:00Z",
                    "long_name": "when the result was written"},
    "second": {"long_name": "best second guess after each feedback, as an index into "
                            "opener (-1: none)"},
    "words": {"long_name": "the guess list as letter codes 0..25"},
    "answer_ids": {"long_name": "index into opener of each answer"},
}


def averages(status: np.ndarray, total: np.ndarray, n_answers: int) -> np.ndarray:
    """total / answers where a total is known (exact, bounds), NaN elsewhere."""
    known = np.isin(status, (EXACT, LOWER_BOUND, UPPER_BOUND)) & (total >= 0)
    return np.where(known, total / n_answers, np.nan)


@dataclass
class Damage:
    """One thing wrong with a store. `rows`: the openers (or answers) it affects,
    None for all of them; `fatal`: repair cannot fix it."""

    what: str
    array: str | None = None
    rows: np.ndarray | None = None
    fatal: bool = False
    whole: bool = False  # the array itself must be made again (metadata, shape, dtype)


_HEX64 = re.compile(r"[0-9a-f]{64}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_attrs(a) -> list[str]:
    """What is wrong with a store's root attributes (empty: nothing)."""
    bad = []
    for k in ("answers_sha256", "guesses_sha256"):
        if not isinstance(a.get(k), str) or not _HEX64.fullmatch(a[k]):
            bad.append(f"{k} is {quote(a.get(k))}, not a sha256")
    for k in ("n_answers", "n_guesses"):
        if not _is_int(a.get(k)) or not 1 <= a[k] <= 26**10:
            bad.append(f"{k} is {quote(a.get(k))}")
    wl = a.get("word_length", 5)
    if not _is_int(wl) or not 3 <= wl <= 10:
        bad.append(f"word_length is {quote(wl)}")
    if a.get("mode") not in MODES:
        bad.append(f"mode is {quote(a.get('mode'))}")
    if not _is_int(a.get("max_guesses")) or not 0 <= a["max_guesses"] <= 1000:
        bad.append(f"max_guesses is {quote(a.get('max_guesses'))}")
    if a.get("objective", "expected") not in OBJECTIVES:
        bad.append(f"objective is {quote(a.get('objective'))}")
    c = a.get("cutoff")
    if c is not None and (not isinstance(c, int | float) or isinstance(c, bool)
                          or not np.isfinite(c) or c <= 0):
        bad.append(f"cutoff is {quote(c)}")
    return bad


_NOTES = ("run", "errors")  # attributes repair may reset: progress notes, not results


def _root_damage(path: Path) -> tuple[dict | None, list[Damage]]:
    """Read the root zarr.json ourselves, for precise messages. (attrs, damage)."""
    meta = path / "zarr.json"
    if not meta.exists() and not meta.is_symlink():
        looks = any((path / n / "zarr.json").exists() for n in ("status", "total"))
        what = ("its root metadata zarr.json is missing" if looks
                else "not a wordle-dp result store (no zarr.json)")
        return None, [Damage(what, fatal=True)]
    try:
        doc = json.loads(read_regular(meta, 16 * 2**20).decode("utf-8"))
    except OSError as exc:
        return None, [Damage(f"zarr.json cannot be read ({exc.strerror or exc})", fatal=True)]
    except (UnicodeDecodeError, ValueError) as exc:
        return None, [Damage(f"zarr.json is not valid JSON ({one_line(exc, 80)})", fatal=True)]
    if not isinstance(doc, dict) or doc.get("node_type") != "group" or doc.get(
            "zarr_format") != 3:
        return None, [Damage("zarr.json is not a Zarr 3 group", fatal=True)]
    a = doc.get("attributes")
    if not isinstance(a, dict) or a.get("format") != FORMAT:
        return None, [Damage("not a wordle-dp result store (no 'format' attribute "
                             f"{FORMAT!r})", fatal=True)]
    bad = _check_attrs(a)
    if bad:
        return None, [Damage("root attributes damaged: " + "; ".join(bad[:4]), fatal=True)]
    notes = [Damage(f"root attribute '{k}' is not a mapping", array="attr:" + k)
             for k in _NOTES if a.get(k) is not None and not isinstance(a[k], dict)]
    return (None if notes else a), notes


def _file_damage(path: Path) -> list[Damage]:
    """FIFOs, devices, dangling links in the store, and a writer.lock that is not a
    file: zarr would block on a FIFO or fail with a raw error."""
    out = []
    lock = path / "writer.lock"
    if lock.is_dir():
        out.append(Damage(f"{lock} is a folder, not a lock file (remove it: rmdir)",
                          array="writer.lock"))
    # only the store's own files: `--store /` must not walk the whole file system
    tops: list[tuple[str, list[str], list[str]]] = [(str(path), [], ["zarr.json",
                                                                      "writer.lock"])]
    walks = itertools.chain(tops, *(os.walk(path / name) for name in layout(1, 1)))
    for root, _dirs, files in walks:
        for f in files:
            p = Path(root) / f
            try:
                mode = os.stat(p).st_mode
            except OSError as exc:
                if not p.is_symlink():  # gone meanwhile: a writer's temporary file renamed
                    continue
                out.append(Damage(f"{p.relative_to(path)}: {exc.strerror or exc}",
                                  array="file:" + str(p.relative_to(path))))
                continue
            if not stat.S_ISREG(mode) and not (f == "writer.lock" and stat.S_ISDIR(mode)):
                out.append(Damage(f"{p.relative_to(path)} is {kind_of(mode)}",
                                  array="file:" + str(p.relative_to(path))))
    return out


def _array_damage(group, path: Path, attrs: dict) -> tuple[list[Damage], dict]:
    """Check every array: present, right shape/dtype/chunks, every chunk file there
    and decodable, status codes in range, word arrays matching the checksums.
    Returns (damage, the arrays' values as read, for arrays read whole)."""
    from ..words import canonical_sha256

    zarr = _zarr()
    n_g, n_a = attrs["n_guesses"], attrs["n_answers"]
    length = attrs.get("word_length", 5)
    out: list[Damage] = []
    values: dict[str, np.ndarray] = {}
    # the attributes against the arrays: when they disagree the attributes cannot be
    # trusted, and remaking arrays to their sizes would throw results away
    dims: dict[str, int] = {}
    for name in layout(n_g, n_a, length):
        try:
            arr = group[name]
            if isinstance(arr, zarr.Array) and arr.ndim >= 1:
                dims[name] = arr.shape[0]
        except Exception:
            pass
    per_opener = [v for k, v in dims.items() if k != "answer_ids"]
    if per_opener:
        common = max(set(per_opener), key=per_opener.count)
        if common != n_g:
            return [Damage(f"root attribute n_guesses ({n_g}) disagrees with the arrays "
                           f"({common} openers)", fatal=True)], values
    if "answer_ids" in dims and dims["answer_ids"] != n_a:
        return [Damage(f"root attribute n_answers ({n_a}) disagrees with the array "
                       f"'answer_ids' ({dims['answer_ids']} answers)", fatal=True)], values
    # stores made before every chunk was written leave out chunks equal to the fill
    # value; there a missing status chunk is damage only if some result was written
    strict = attrs.get(EVERY_CHUNK) is True
    legacy_done = not strict and (path / "finished_at" / "c" / "0").is_file()
    for name, (shape, chunks, dtype, fill) in layout(n_g, n_a, length).items():
        try:
            arr = group[name]
        except KeyError:
            out.append(Damage(f"array '{name}' is missing", name, None, whole=True))
            continue
        except Exception as exc:  # bad JSON, unknown codec...
            out.append(Damage(f"array '{name}' metadata unreadable ({one_line(exc, 80)})",
                              name, None, whole=True))
            continue
        if not isinstance(arr, zarr.Array) or arr.shape != shape or arr.dtype != np.dtype(
                dtype) or tuple(arr.chunks) != chunks:
            got = (f"shape {arr.shape}, {arr.dtype}" if isinstance(arr, zarr.Array)
                   else "a group")
            out.append(Damage(f"array '{name}' is {got}, not shape {shape}, {dtype}", name,
                              None, whole=True))
            continue
        full = np.full(shape, fill, dtype=dtype)
        ok = True
        for c in range(-(-shape[0] // chunks[0])):
            key = arr.metadata.encode_chunk_key((c,) + (0,) * (len(shape) - 1))
            lo, hi = c * chunks[0], min((c + 1) * chunks[0], shape[0])
            rows = np.arange(lo, hi)
            f = path / name / key
            if not f.is_file() and not strict and not (name == "status" and legacy_done):
                continue  # a store from before every chunk was written: the fill value
            if not f.is_file():
                out.append(Damage(f"chunk {name}/{key} is missing", name, rows))
                ok = False
                continue
            try:
                full[lo:hi] = arr[lo:hi]
            except Exception as exc:  # truncated, garbage, wrong codec...
                out.append(Damage(f"chunk {name}/{key} is unreadable ({one_line(exc, 60)})",
                                  name, rows))
                ok = False
        if not ok:
            continue
        values[name] = full
        if name == "status":
            wild = np.flatnonzero(full >= len(STATUS_NAMES))
            if len(wild):
                out.append(Damage(f"{len(wild)} status code(s) out of range (first at "
                                  f"opener {int(wild[0])}: {int(full[wild[0]])})", name, wild))
        elif name == "words":
            if full.max(initial=0) > 25 or canonical_sha256(
                    decode_words(full)) != attrs["guesses_sha256"]:
                out.append(Damage("array 'words' does not match the store's guess list "
                                  "checksum", name, None))
        elif name == "answer_ids":
            if full.min(initial=0) < 0 or full.max(initial=0) >= n_g:
                out.append(Damage("array 'answer_ids' has indices outside the guess list",
                                  name, None))
    if "words" in values and "answer_ids" in values and not any(
            d.array == "answer_ids" for d in out):
        words = decode_words(values["words"])
        ans = [words[i] for i in values["answer_ids"]]
        if canonical_sha256(ans) != attrs["answers_sha256"]:
            out.append(Damage("array 'answer_ids' does not match the store's answer list "
                              "checksum", "answer_ids", None))
    return out, values


def inspect(path) -> tuple[object | None, dict | None, list[Damage]]:
    """(zarr group or None, root attributes or None, everything wrong with it)."""
    path = Path(path)
    damage = _file_damage(path)
    if any(d.array and d.array.startswith("file:") for d in damage):
        return None, None, damage  # never let zarr open a FIFO
    attrs, root = _root_damage(path)
    if root:
        return None, None, damage + root
    try:
        group = _zarr().open_group(str(path), mode="r", zarr_format=3)
    except Exception as exc:
        return None, None, damage + [Damage(f"cannot open ({one_line(exc, 80)})", fatal=True)]
    assert attrs is not None  # (no root damage: _root_damage returned them)
    arrays, _values = _array_damage(group, path, attrs)
    return group, attrs, damage + arrays


def damage_message(path: Path, damage: list[Damage]) -> str:
    shown = "; ".join(d.what for d in damage[:3])
    if len(damage) > 3:
        shown += f"; and {len(damage) - 3} more"
    if any(d.fatal for d in damage):
        how = ("it cannot be repaired automatically: restore it from a copy, or start a "
               "new store")
    else:
        how = (f"run 'wordle-dp repair --store {path}' to re-mark the openers in the "
               "damaged parts as pending (readable results are kept), then resume")
    return f"result store {path} is damaged: {shown}; {how}"


def _add_xarray_arrays(group, words: list[str], status: np.ndarray, total: np.ndarray,
                       n_answers: int, length: int) -> None:
    """The opener and pattern coordinates and the average array (every chunk)."""
    from ..feedback import to_text

    g_n, n_p = len(words), 3**length
    made = []
    for name, shape, dtype, fill in (("opener", g_n, str, ""), ("pattern", n_p, str, ""),
                                     ("average", g_n, "float64", float("nan"))):
        if name not in group:
            made.append(name)
            group.create_array(name, shape=(shape,), chunks=(shape,), dtype=dtype,
                               fill_value=fill, dimension_names=DIMS[name],
                               attributes=ATTRS.get(name))
    if "opener" in made:
        group["opener"][...] = np.array(words, dtype=object)
    if "pattern" in made:
        group["pattern"][...] = np.array([to_text(c, length) for c in range(n_p)], dtype=object)
    if "average" in made:
        group["average"][...] = averages(status, total, n_answers)


def _name_dimensions(path: Path, name: str) -> bool:
    """Add dimension_names (and the attributes) to an array's zarr.json written
    without them; atomically, like every metadata write. True when it changed."""
    meta = path / name / "zarr.json"
    doc = json.loads(meta.read_text())
    if doc.get("dimension_names"):
        return False
    doc["dimension_names"] = list(DIMS[name])
    doc["attributes"] = {**ATTRS.get(name, {}), **(doc.get("attributes") or {})}
    tmp = meta.with_name(f".zarr.json.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, indent=2))
    os.replace(tmp, meta)
    return True


def decode_words(codes: np.ndarray) -> list[str]:
    letters = (np.asarray(codes, dtype=np.uint8) + ord("a")).astype(np.uint8)
    return [bytes(row).decode("ascii") for row in letters]


class Store:
    """A result store opened for writing (one writer) or reading."""

    def __init__(self, group, path: Path, read_only: bool):
        self.group = group
        self.path = path
        self.read_only = read_only
        a = group.attrs
        if a.get("format") != FORMAT:
            raise StoreError(f"{path} is not a wordle-dp result store")
        self.problem = Problem(
            a["answers_sha256"], a["guesses_sha256"], int(a["n_answers"]),
            int(a["n_guesses"]), a["mode"], int(a["max_guesses"]), int(a.get("word_length", 5)),
            a.get("objective", "expected"),
        )
        self.cutoff = a.get("cutoff")
        self.solver_version = a.get("solver_version")
        self._words: list[str] | None = None
        self._index: dict[str, int] | None = None
        self.flushes = 0
        self.flush_seconds = 0.0
        self.flushed_records = 0
        self._mirror: dict[str, np.ndarray] | None = None  # the writer's copy
        self._lock_fd: int | None = None  # the store folder, flock-ed while writing
        self._average: bool | None = None  # whether the store has the average array

    # ---- opening -------------------------------------------------------------------

    @classmethod
    def create(cls, path, lists, mode: str, max_guesses: int, cutoff=None,
               solver_version: str | None = None, objective: str = "expected") -> Store:
        """Create a new empty store for a problem (every opener pending).

        It is built in a temporary folder beside `path` and renamed into place when
        complete, so a kill during creation never leaves half a store at `path`.
        """
        zarr = _zarr()
        path = Path(path)
        if path.exists() and any(path.iterdir()):
            raise StoreError(f"{path} exists and is not empty")
        g_n, a_n = len(lists.guesses), len(lists.answers)
        from ..words import encode_words

        final = path
        path = path.parent / f".{path.name}.creating-{os.getpid()}"
        shutil.rmtree(path, ignore_errors=True)
        try:
            group = cls._build(zarr, path, lists, mode, max_guesses, cutoff, solver_version,
                               g_n, a_n, encode_words, objective)
            os.replace(path, final)  # a folder may replace an empty folder
        except BaseException:
            shutil.rmtree(path, ignore_errors=True)
            raise
        group = zarr.open_group(str(final), mode="r+", zarr_format=3)
        return cls(group, final, read_only=False)

    @staticmethod
    def _build(zarr, path, lists, mode, max_guesses, cutoff, solver_version, g_n, a_n,
               encode_words, objective="expected"):
        group = zarr.open_group(str(path), mode="w-", zarr_format=3)
        for name, (shape, chunks, dtype, fill) in layout(g_n, a_n, lists.length).items():
            group.create_array(name, shape=shape, chunks=chunks, dtype=dtype, fill_value=fill,
                               dimension_names=DIMS[name], attributes=ATTRS.get(name))
        group["words"][...] = encode_words(lists.guesses)
        group["answer_ids"][...] = lists.answer_guess_ids
        for name, (_shape, _chunks, dtype, fill) in layout(g_n, a_n, lists.length).items():
            if name not in LIST_ARRAYS:  # every chunk on disk from the start
                group[name][...] = np.full(group[name].shape, fill, dtype=dtype)
        _add_xarray_arrays(group, list(lists.guesses), np.zeros(g_n, np.uint8),
                           np.full(g_n, -1, np.int64), a_n, lists.length)
        prob = Problem.from_lists(lists, mode, max_guesses, objective)
        attrs = {
            "format": FORMAT,
            "answers_sha256": prob.answers_sha256,
            "guesses_sha256": prob.guesses_sha256,
            "n_answers": prob.n_answers,
            "n_guesses": prob.n_guesses,
            "mode": prob.mode,
            "max_guesses": prob.max_guesses,
            "word_length": prob.length,
            "objective": prob.objective,
            "cutoff": cutoff,
            "solver_version": solver_version,
            "created_at": time.time(),
            "answers_source": str(lists.answers_source),
            "guesses_source": str(lists.guesses_source),
            "run": {},
            EVERY_CHUNK: True,
        }
        group.attrs.update(attrs)  # last: a store without 'format' is not a store
        return group

    @classmethod
    def open(cls, path, read_only: bool = True) -> Store:
        """Open a validated store; a damaged one raises StoreError saying what is
        wrong and how to recover."""
        zarr = _zarr()
        path = Path(path)
        check_folder(path)
        _group, _attrs, damage = inspect(path)
        if damage:
            raise StoreError(damage_message(path, damage))
        try:
            group = zarr.open_group(str(path), mode="r" if read_only else "r+", zarr_format=3)
        except Exception as exc:  # e.g. removed between the check and here
            raise StoreError(f"cannot open result store {path}: {one_line(exc, 200)}") from None
        return cls(group, path, read_only)

    @classmethod
    def open_or_create(cls, path, lists, mode: str, max_guesses: int, cutoff=None,
                       solver_version: str | None = None,
                       objective: str = "expected") -> tuple[Store, bool]:
        """Open an existing store after checking it is for this problem, else create.

        Returns (store, created). A store for another problem definition raises a
        one-line user error.
        """
        path = Path(path)
        try:  # os.lstat, not Path.exists(): a name too long is an error, not "missing"
            os.lstat(path)
            present = True
        except (FileNotFoundError, NotADirectoryError):
            present = False
        except OSError as exc:
            raise StoreError(f"cannot use {path} as a result store: "
                             f"{exc.strerror or exc}") from None
        if present:
            check_folder(path)
        if present and ((path / "zarr.json").exists() or (path / "status").exists()):
            st = cls.open(path, read_only=False)
            st.check_problem(Problem.from_lists(lists, mode, max_guesses, objective))
            st.lock()
            st.write_every_chunk()
            st.upgrade_layout()
            if st.words != list(lists.guesses):
                raise StoreError(f"{path} holds another guess list")
            if cutoff is not None and (st.cutoff is None or float(cutoff) != float(st.cutoff)):
                # every lower bound holds its own proven total, so a new cutoff
                # reuses them: those at or above it stay done, the others are
                # valued again (Store.todo)
                st.group.attrs["cutoff"] = cutoff
                st.cutoff = cutoff
            return st, False
        if path.exists() and any(path.iterdir()):
            raise StoreError(f"{path} exists and is not a wordle-dp result store")
        existed = path.exists()
        try:
            st = cls.create(path, lists, mode, max_guesses, cutoff, solver_version, objective)
            st.lock()
        except OSError as exc:
            if not existed:  # leave nothing half-made behind
                shutil.rmtree(path, ignore_errors=True)
            raise StoreError(f"cannot create result store {path}: "
                             f"{exc.strerror or one_line(exc, 200)}") from None
        return st, True

    def lock(self) -> None:
        """Claim the store for this process: a second writer is refused.

        An flock on the store's folder itself, held until the process ends (a kill
        -9 releases it too): no lock file inside the store, which zarr would warn
        about as an unknown object. Versions before this one locked
        <store>/writer.lock: if one is there, it is checked too (a busy one means an
        older version is writing) and then removed. Works on local file systems; on
        network file systems without flock it is a no-op, so start only one run per
        store there.
        """
        import fcntl

        legacy = self.path / "writer.lock"
        if legacy.is_dir():
            raise StoreError(f"{legacy} is a folder, not a lock file; remove it (rmdir) and "
                             "run again")
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            raise StoreError(f"cannot open {self.path} to lock it: "
                             f"{exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StoreError(f"{self.path} is being written by {self._writer()}; only one "
                             "run may write a store at a time") from None
        except OSError:  # no flock here (some network file systems)
            os.close(fd)
            return
        if legacy.is_file():
            who = self._legacy_lock(legacy)
            if who is not None:
                os.close(fd)
                raise StoreError(f"{self.path} is being written by {who} (an older "
                                 "wordle-dp); only one run may write a store at a time")
        self._lock_fd = fd  # keep it open (and locked) while the store is in use
        self.group.attrs["writer"] = f"pid {os.getpid()} on {os.uname().nodename}"

    @staticmethod
    def _legacy_lock(legacy: Path) -> str | None:
        """Who holds an older version's lock file; None when nobody does (the file is
        then removed: zarr warns about files it does not know in a store)."""
        import fcntl

        try:
            with open(legacy, "a+") as f:
                try:
                    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    f.seek(0)
                    return f.read().strip() or "another process"
                legacy.unlink()
        except OSError:  # no flock (network file systems), or gone meanwhile
            pass
        return None

    def _writer(self) -> str:
        """Who holds the lock, as that process wrote it into the root attributes."""
        try:
            doc = json.loads((self.path / "zarr.json").read_text())
            who = doc["attributes"].get("writer")
        except (OSError, ValueError, KeyError, AttributeError, TypeError):
            who = None
        return who if isinstance(who, str) and who else "another process"

    def upgrade_layout(self) -> list[str]:
        """Bring a store made before the xarray layout up to date, in place and
        keeping every result: dimension names on every array, the opener and pattern
        coordinates and the average array. One line per change (empty: none)."""
        done = []
        for name in layout(self.problem.n_guesses, self.problem.n_answers,
                           self.problem.length):
            if _name_dimensions(self.path, name):
                done.append(name)
        missing = [n for n in XARRAY_ARRAYS if n not in self.group]
        if done or missing:
            zarr = _zarr()
            self.group = zarr.open_group(str(self.path), mode="r+", zarr_format=3)
            snap = self.snapshot()
            _add_xarray_arrays(self.group, self.words, snap.status, snap.fields["total"],
                               self.problem.n_answers, self.problem.length)
            self._mirror = None
            self._average = None
        out = []
        if done:
            out.append(f"named the dimensions of {len(done)} array(s)")
        if missing:
            out.append(f"added the array(s) {', '.join(missing)} (for xarray)")
        return out

    def write_every_chunk(self) -> None:
        """Bring a store made before every chunk was written up to date: write its
        missing chunks (zarr reads them as the fill value, so nothing changes) and
        mark it, so that from now on a missing chunk counts as damage."""
        if self.group.attrs.get(EVERY_CHUNK) is True:
            return
        spec = layout(self.problem.n_guesses, self.problem.n_answers, self.problem.length)
        for name, (shape, chunks, _dtype, _fill) in spec.items():
            arr = self.group[name]
            for c in range(-(-shape[0] // chunks[0])):
                key = arr.metadata.encode_chunk_key((c,) + (0,) * (len(shape) - 1))
                if not (self.path / name / key).is_file():
                    lo, hi = c * chunks[0], min((c + 1) * chunks[0], shape[0])
                    arr[lo:hi] = np.asarray(arr[lo:hi])
        self.group.attrs[EVERY_CHUNK] = True

    def unlock(self) -> None:
        fd = self._lock_fd
        if fd is not None:
            os.close(fd)
            self._lock_fd = None

    def check_problem(self, prob: Problem) -> None:
        diff = self.problem.differences(prob)
        if diff:
            raise StoreError(
                f"{self.path} holds results for another problem: different "
                + "; ".join(diff) + " (use another --store, or the same lists/--mode/"
                "--max-guesses as the run that made it)"
            )

    # ---- reading -------------------------------------------------------------------

    @property
    def words(self) -> list[str]:
        if self._words is None:
            self._words = decode_words(self.group["words"][...])
        return self._words

    def index_of(self, word: str) -> int:
        if self._index is None:
            self._index = {w: i for i, w in enumerate(self.words)}
        w = word.strip()
        i = self._index.get(w.lower()) if w.isascii() else None
        if i is None:
            raise StoreError(f"{quote(word)} is not in the store's guess list")
        return i

    @property
    def answers(self) -> list[str]:
        ids = self.group["answer_ids"][...]
        words = self.words
        return [words[i] for i in ids]

    def status(self) -> np.ndarray:
        return np.asarray(self.group["status"][...])

    def todo(self, cutoff=None, retry_failed: bool = False) -> np.ndarray:
        """Which openers a run still has to value (bool per opener): pending ones;
        failed ones with `retry_failed`; and lower bounds below `cutoff` (None: every
        lower bound), since a lower bound at or above it already proves the opener
        cannot beat it."""
        snap = self.snapshot()
        todo = snap.status == PENDING
        if retry_failed:
            todo |= snap.status == FAILED
        weak = snap.status == LOWER_BOUND
        if cutoff is not None:
            weak &= snap.fields["total"] < cutoff
        return todo | weak

    def count_status(self) -> np.ndarray:
        return np.bincount(self.status(), minlength=len(STATUS_NAMES))

    def snapshot(self) -> Snapshot:
        """All per-opener fields, consistent with `status` (status is read first)."""
        status = self.status()
        fields = {name: np.asarray(self.group[name][...]) for name in _FIELDS}
        selected = np.asarray(self.group["selected"][...])
        return Snapshot(self, status, fields, selected, dict(self.group.attrs.get("run", {})))

    def second_guesses(self, index: int) -> dict[int, str]:
        """Best second guess per feedback pattern of one opener (pattern code -> word)."""
        row = np.asarray(self.group["second"][index])
        words = self.words
        return {int(p): words[int(g)] for p, g in enumerate(row) if g >= 0}

    # ---- writing -------------------------------------------------------------------

    def mark_selected(self, indices) -> None:
        sel = np.asarray(self.group["selected"][...])
        sel[np.asarray(list(indices), dtype=np.int64)] = 1
        self.group["selected"][...] = sel

    def set_attrs(self, **kw) -> None:
        self.group.attrs.update(kw)

    def _load_mirror(self) -> dict[str, np.ndarray]:
        if self._mirror is None:
            p = self.problem
            small = p.n_guesses * p.n_patterns * 4 <= _MIRROR_MAX
            names = ("status", *_FIELDS, *(("second",) if small else ()))
            self._mirror = {n: np.array(self.group[n][...]) for n in names}
        return self._mirror

    def _has_average(self) -> bool:
        if self._average is None:
            self._average = "average" in self.group
        return self._average

    def write(self, records: list[Record], run_info: dict | None = None) -> float:
        """Write a batch of finished openers; `status` last. Returns the seconds taken.

        The writer keeps a copy of every array in memory (the store has one writer),
        so a batch is pure writes: each 1-D array in one chunk, and the touched
        row-blocks of `second` (read first when `second` is too big to keep).
        """
        if self.read_only:
            raise RuntimeError("store opened read-only")
        if not records:
            return 0.0
        t0 = time.perf_counter()
        m = self._load_mirror()
        idx = np.array([r.index for r in records], dtype=np.int64)
        for name, (dtype, _fill) in _FIELDS.items():
            m[name][idx] = np.array([getattr(r, name) for r in records], dtype=dtype)
            self.group[name][...] = m[name]
        arr = self.group["second"]
        rows = arr.chunks[0]
        for c in np.unique(idx // rows):
            lo, hi = int(c) * rows, min((int(c) + 1) * rows, arr.shape[0])
            # the block: from the writer's copy, or (too big to keep) read from disk;
            # rewritten only when a row changes (a cutoff run's lower bounds have no
            # second guesses: rewriting their chunks was 6 % of a book build's time)
            block = m["second"][lo:hi] if "second" in m else np.asarray(arr[lo:hi])
            changed = False
            for r in records:
                if lo <= r.index < hi:
                    row = block[r.index - lo]
                    new = -1 if r.second is None else r.second
                    if not np.array_equal(row, np.broadcast_to(new, row.shape)):
                        row[...] = new
                        changed = True
            if changed:
                arr[lo:hi] = block
        status = m["status"].copy()
        status[idx] = np.array([r.status for r in records], dtype=np.uint8)
        if self._has_average():  # (a store of the older layout lacks it: upgrade_layout)
            self.group["average"][...] = averages(status, m["total"], self.problem.n_answers)
        m["status"] = status
        self.group["status"][...] = m["status"]  # LAST: makes the batch visible
        if run_info is not None:
            self.group.attrs["run"] = run_info
        dt = time.perf_counter() - t0
        self.flushes += 1
        self.flush_seconds += dt
        self.flushed_records += len(records)
        return dt


def check_folder(path: Path) -> None:
    """A store path must be a folder (or not exist yet)."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        if path.is_symlink():
            raise StoreError(f"{path} is a dangling symbolic link, not a result store") from None
        raise StoreError(f"no result store at {path}") from None
    except OSError as exc:
        raise StoreError(f"cannot use {path} as a result store: "
                         f"{exc.strerror or exc}") from None
    if not stat.S_ISDIR(mode):
        raise StoreError(f"{path} is {'a file' if stat.S_ISREG(mode) else kind_of(mode)}, "
                         "not a result store folder")


@dataclass
class Snapshot:
    """A consistent read of a store: every non-pending opener has valid fields."""

    store: Store
    status: np.ndarray
    fields: dict[str, np.ndarray]
    selected: np.ndarray
    run: dict

    @property
    def n_answers(self) -> int:
        return self.store.problem.n_answers

    def finished_mask(self) -> np.ndarray:
        return (self.status != PENDING) & (self.status != FAILED)

    def counts(self) -> dict[str, int]:
        c = np.bincount(self.status, minlength=len(STATUS_NAMES))
        return {name: int(c[i]) for i, name in enumerate(STATUS_NAMES)}

    def progress(self) -> dict:
        counts = self.counts()
        selected = int(self.selected.sum())
        done = int(((self.status != PENDING) & (self.selected == 1)).sum())
        best = self.best(1)
        return {
            "store": str(self.store.path),
            "openers": len(self.status),
            "selected": selected,
            "done": done,
            "remaining": selected - done,
            "counts": counts,
            "best": best[0] if best else None,
            "run": self.run,
        }

    def ranks(self) -> np.ndarray:
        """Competition rank (1 = best) of each exact/upper-bound opener by total; 0 else.

        Rank r means r-1 finished openers have a strictly smaller total; ties share a
        rank. Lower bounds (cut off by --cutoff) and infeasible openers get no rank.
        A rank is the opener's rank among all openers only below `frontier()`.
        """
        total = self._key()
        ok = (self.status == EXACT) | (self.status == UPPER_BOUND)
        out = np.zeros(len(total), dtype=np.int64)
        vals = np.sort(total[ok])
        out[ok] = np.searchsorted(vals, total[ok], side="left") + 1
        return out

    def _key(self) -> np.ndarray:
        """What openers rank by: the total, or under the worst-case objective the
        depth first and then the total (one int64: depth * 2**40 + total)."""
        total = self.fields["total"]
        if getattr(self.store.problem, "objective", "expected") != "worst":
            return total
        return self.fields["depth"].astype(np.int64) * (1 << 40) + total

    def frontier(self) -> float:
        """The total below which the ranking is proven: the least stored lower bound
        (an opener known only by its bound might beat any exact opener at or above
        it); infinite when there is none, and -infinite while any opener is pending
        or failed (its value could be anything)."""
        if ((self.status == PENDING) | (self.status == FAILED)).any():
            return -np.inf
        lows = self.fields["total"][self.status == LOWER_BOUND]
        return float(lows.min()) if len(lows) else np.inf

    def row(self, i: int, ranks: np.ndarray | None = None) -> dict:
        st = int(self.status[i])
        f = self.fields
        total = int(f["total"][i]) if st not in (PENDING, FAILED, INFEASIBLE) else None
        if total is not None and total < 0:
            total = None
        done = st != PENDING

        def num(name, cast):
            v = f[name][i]
            if not done or (isinstance(v, float | np.floating) and np.isnan(v)) or v == -1:
                return None
            return cast(v)

        r = int(ranks[i]) if ranks is not None and ranks[i] > 0 else None
        return {
            "opener": self.store.words[i],
            "index": int(i),
            "status": STATUS_NAMES[st],
            "total": total,
            "average": None if total is None else round(total / self.n_answers, 6),
            "rank": r,
            "depth": num("depth", int),
            "cpu_seconds": None if num("cpu_seconds", float) is None
            else round(float(f["cpu_seconds"][i]), 4),
            "wall_seconds": None if num("wall_seconds", float) is None
            else round(float(f["wall_seconds"][i]), 4),
            "nodes": num("nodes", int),
            "mpi_rank": num("rank", int),
            "finished_at": None if num("finished_at", float) is None
            else round(float(f["finished_at"][i]), 3),
            "objective": getattr(self.store.problem, "objective", "expected"),
        }

    def order(self) -> np.ndarray:
        """Indices of exact/upper-bound openers, best (smallest total) first."""
        total = self._key()
        ok = np.flatnonzero((self.status == EXACT) | (self.status == UPPER_BOUND))
        return ok[np.lexsort((ok, total[ok]))]

    def best(self, k: int) -> list[dict]:
        ranks = self.ranks()
        return [self.row(int(i), ranks) for i in self.order()[:k]]


FIELDS = tuple(_FIELDS)
ROW_KEYS = ("opener", "index", "status", "total", "average", "rank", "depth", "cpu_seconds",
            "wall_seconds", "nodes", "mpi_rank", "finished_at", "objective")


def describe_progress(p: dict) -> str:
    c = p["counts"]
    parts = [f"{p['done']}/{p['selected']} selected openers done"
             f" ({p['openers']} in the guess list)"]
    extra = [f"{c[n]} {n}" for n in STATUS_NAMES[1:] if c[n]]
    if extra:
        parts.append(", ".join(extra))
    if p["best"]:
        b = p["best"]
        parts.append(f"best {b['opener']} {b['total']} ({b['average']:.4f} avg)")
    run = p.get("run") or {}
    if run.get("state") == "book":
        parts.append(f"opening book built {str(run.get('built_at'))[:10]}")
    elif run.get("state"):
        when = run.get("updated_at")
        age = f", updated {time.time() - when:.0f} s ago" if when else ""
        parts.append(f"run {run['state']}{age}")
    return "; ".join(parts)


def _merge_rank(status: np.ndarray, total: np.ndarray) -> np.ndarray:
    """How much a result knows, to choose among stores: a final one (exact,
    infeasible, upper bound) over any lower bound, a higher lower bound over a lower
    one, any of them over failed, failed over pending."""
    rank = np.zeros(len(status), np.int64)
    rank[status == FAILED] = 1
    lb = status == LOWER_BOUND
    rank[lb] = 2 + np.maximum(total[lb], 0)
    rank[np.isin(status, (EXACT, INFEASIBLE, UPPER_BOUND))] = np.int64(1) << 62
    return rank


def merge(out_path, in_paths, quiet: bool = False) -> dict:
    """Merge stores of the same problem into `out_path` (created from the first one).

    An opener takes the result that knows most (see _merge_rank; the first store's
    among equals); pending ones stay pending. Returns counts.
    """
    ins = [Store.open(p, read_only=True) for p in in_paths]
    if not ins:
        raise StoreError("merge needs at least one input store")
    first = ins[0]
    for s in ins[1:]:
        first.check_problem(s.problem)
        if s.words != first.words:
            raise StoreError(f"{s.path} holds another guess list")
    out_path = Path(out_path)
    from ..words import WordLists

    lists = WordLists(first.answers, first.words, first.group.attrs.get("answers_source", ""),
                      first.group.attrs.get("guesses_source", ""))
    # every lower bound holds its own proven total, so stores of different cutoffs
    # merge: the result keeps the highest (a resumed run then values again the lower
    # bounds below it)
    cutoffs = [s.cutoff for s in ins if s.cutoff is not None]
    out, _ = Store.open_or_create(out_path, lists, first.problem.mode,
                                  first.problem.max_guesses,
                                  max(cutoffs) if cutoffs else None, first.solver_version,
                                  first.problem.objective)
    cur = out.snapshot()
    status = cur.status.copy()
    total = cur.fields["total"].copy()
    records: list[Record] = []
    taken: set[int] = set()
    selected = cur.selected.copy()
    for s in ins:
        snap = s.snapshot()
        selected |= snap.selected
        better = _merge_rank(snap.status, snap.fields["total"]) > _merge_rank(status, total)
        idx = np.flatnonzero(better)
        if len(idx):
            second = np.asarray(s.group["second"].get_orthogonal_selection(
                (idx, slice(None))))
        for k, i in enumerate(idx):
            rec = Record(int(i), int(snap.status[i]),
                         **{n: snap.fields[n][i].item() for n in _FIELDS},
                         second=second[k])
            records.append(rec)
            status[i] = snap.status[i]
            total[i] = snap.fields["total"][i]
            taken.add(int(i))
    out.group["selected"][...] = selected
    for start in range(0, len(records), 4096):
        out.write(records[start:start + 4096])
    out.set_attrs(run={"state": "merged", "updated_at": time.time(),
                       "inputs": [str(p) for p in in_paths]})
    return {"inputs": len(ins), "copied": len(taken), "counts": out.snapshot().counts()}


def repair(path, lists=None) -> list[str]:
    """Make a damaged store usable again, keeping every readable result.

    Openers whose status, total, depth or second-guess rows are unreadable (missing
    or garbage chunks, arrays of the wrong shape, status codes out of range) are
    re-marked pending, so a resumed run values them again; run-information arrays
    (timings, ranks) are refilled; the word arrays are rebuilt from `lists` (a
    WordLists with the checksums the store names). Root attributes (which problem
    the numbers belong to) cannot be guessed: such a store is refused. Returns one
    line per action taken (empty: nothing was wrong).
    """
    path = Path(path)
    check_folder(path)
    done: list[str] = []
    for d in _file_damage(path):  # FIFOs/devices/links in place of files, lock folder
        rel = d.array[5:] if d.array and d.array.startswith("file:") else "writer.lock"
        target = path / rel
        if target.is_dir() and not target.is_symlink():
            try:
                target.rmdir()
            except OSError:
                raise StoreError(f"{target} is a folder that is not empty; move it away "
                                 "and repair again") from None
        else:
            target.unlink()
        done.append(f"removed {rel} ({d.what.split(' is ', 1)[-1]})")
    attrs, root = _root_damage(path)
    if any(d.fatal for d in root):
        raise StoreError(damage_message(path, root))
    zarr = _zarr()
    group = zarr.open_group(str(path), mode="r+", zarr_format=3)
    for d in root:  # a progress note that is not a mapping: reset it
        assert d.array is not None  # ("attr:NAME": only notes are not fatal)
        group.attrs[d.array[5:]] = {}
        done.append(f"fixed: {d.what} (reset)")
    if root:
        attrs, _ = _root_damage(path)
    assert attrs is not None  # fatal root damage was refused above
    st = Store(group, path, read_only=False)
    st.lock()
    try:
        damage, _values = _array_damage(group, path, attrs)
        if not damage:
            st.write_every_chunk()
            return done + st.upgrade_layout()
        n_g, n_a = attrs["n_guesses"], attrs["n_answers"]
        spec = layout(n_g, n_a, attrs.get("word_length", 5))
        if any(d.array in LIST_ARRAYS for d in damage):
            if lists is None or lists.guesses_sha256 != attrs["guesses_sha256"] or (
                    lists.answers_sha256 != attrs["answers_sha256"]):
                raise StoreError(
                    f"{path}: the word arrays are damaged; repair needs the lists the store "
                    f"was made with (--answers/--guesses with sha256 "
                    f"{attrs['answers_sha256'][:12]} / {attrs['guesses_sha256'][:12]})")
        lost = np.zeros(n_g, dtype=bool)
        status_lost = False
        for d in damage:
            assert d.array is not None  # array damage always names its array
            shape, chunks, dtype, fill = spec[d.array]
            if d.whole:  # metadata, shape or dtype wrong: make the array again
                node = path / d.array
                if node.is_dir() and not node.is_symlink():
                    shutil.rmtree(node)
                elif node.exists() or node.is_symlink():
                    node.unlink()
                group.create_array(d.array, shape=shape, chunks=chunks, dtype=dtype,
                                   fill_value=fill)
            rows = np.arange(shape[0]) if d.rows is None else d.rows
            if d.array == "words":
                from ..words import encode_words

                group["words"][...] = encode_words(lists.guesses)
            elif d.array == "answer_ids":
                group["answer_ids"][...] = lists.answer_guess_ids
            elif d.array == "status" and d.rows is not None and not d.whole and (
                    "out of range" in d.what):
                lost[rows] = True
            else:
                arr = group[d.array]
                if d.whole or d.rows is None:
                    arr[...] = np.full(shape, fill, dtype=dtype)
                else:
                    arr[int(rows[0]):int(rows[-1]) + 1] = np.full(
                        (len(rows),) + shape[1:], fill, dtype=dtype)
                if d.array in RESULT_ARRAYS:
                    lost[rows] = True
                    status_lost |= d.array == "status"
            done.append(f"fixed: {d.what}")
        status = np.asarray(group["status"][...])
        known = int((status[lost] != PENDING).sum())
        status[lost] = PENDING
        group["status"][...] = status  # last, as in every batch
        if status_lost:
            done.append(f"the status array was lost: all {int(lost.sum())} opener(s) in it "
                        "are pending again and will be valued again")
        elif lost.any():
            done.append(f"{known} finished result(s) in the damaged parts re-marked pending "
                        f"({int(lost.sum())} opener(s) affected); every other result is kept")
        hist = list(group.attrs.get("repairs", []) or [])[-20:]
        group.attrs["repairs"] = hist + [{"at": time.time(), "actions": done[-50:]}]
        st.write_every_chunk()
        return done + st.upgrade_layout()
    finally:
        st.unlock()


def dumps_row(row: dict) -> str:
    return json.dumps(row)
