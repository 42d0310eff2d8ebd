"""What a result store holds (the layout in the package docstring): the format
name, the status codes, the problem its numbers belong to (Problem), a finished
opener as the writer buffers it (Record), and every array's shape, chunks, dtype,
dimensions and attributes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..status import STORED, Status
from ..variant import Mode

FORMAT = "wordle-dp-store/1"

# the status codes (solver/status.py's STORED), as the ints numpy compares
PENDING, EXACT, INFEASIBLE, LOWER_BOUND, UPPER_BOUND, FAILED = (s.code for s in STORED)
STATUS_NAMES: tuple[str, ...] = tuple(s.value for s in STORED)
STATUS_CODES = {name: Status(name).code for name in STATUS_NAMES}

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
# only in stores of the objective wins (the attribute objective: wins), where `total`
# is the guesses summed over the answers won: how many answers the opener wins within
# the cap. Stores of the other objectives never had it, so none lacks it
_WINS_FIELDS: dict[str, tuple[str, object]] = {"wins": ("int64", -1)}


def fields_of(objective: str = "expected") -> dict[str, tuple[str, object]]:
    """name -> (dtype, fill value) of the per-opener result fields of a store of
    `objective` (every objective: _FIELDS; wins adds `wins`)."""
    return {**_FIELDS, **(_WINS_FIELDS if objective == "wins" else {})}


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
    mode: Mode
    max_guesses: int
    length: int = 5  # letters per word
    objective: str = "expected"  # or worst (Variant.objective)

    @classmethod
    def from_lists(cls, lists, mode: Mode, max_guesses: int,
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
    wins: int = -1  # the answers won within the cap (stores of the objective wins)
    # int32 [2, P]: each first-feedback class's optimal total after the opener and its
    # depth (-1: none), for an exact opener; the run keeps them in the store's class
    # checkpoint
    class_rows: np.ndarray | None = None


EVERY_CHUNK = "every_chunk_written"  # attribute: a missing chunk file means damage
RESULT_ARRAYS = ("status", "total", "depth", "second", "wins")  # lost -> opener pending again
INFO_ARRAYS = ("selected", "cpu_seconds", "wall_seconds", "nodes", "rank", "finished_at")
LIST_ARRAYS = ("words", "answer_ids")  # rebuilt from the list files
_ZARR_READY = False


def zarr_module():
    """zarr, configured as every store of ours is written (each chunk on disk)."""
    import zarr

    global _ZARR_READY
    if not _ZARR_READY:  # write every chunk: a missing chunk file then means damage
        zarr.config.set({"array.write_empty_chunks": True})
        _ZARR_READY = True
    return zarr


def layout(n_guesses: int, n_answers: int, length: int = 5,
           objective: str = "expected") -> dict[str, tuple[tuple, tuple, str, object]]:
    """name -> (shape, chunks, dtype, fill value) of every array of a store of words
    of `length` letters under `objective` (wins: one more, fields_of)."""
    g = n_guesses
    n_p = 3**length
    out: dict[str, tuple[tuple, tuple, str, object]] = {
        "status": ((g,), (g,), "uint8", 0),
        "selected": ((g,), (g,), "uint8", 0),
    }
    for name, (dtype, fill) in fields_of(objective).items():
        out[name] = ((g,), (g,), dtype, fill)
    out["second"] = ((g, n_p), (second_rows(n_p), n_p), "int32", -1)
    out["words"] = ((g, length), (g, length), "uint8", 0)
    out["answer_ids"] = ((n_answers,), (n_answers,), "int32", 0)
    return out


# dimension names of every array (xarray needs them) and the arrays added for it
DIMS: dict[str, tuple[str, ...]] = {
    **{name: ("opener",) for name in ("status", "selected", *_FIELDS, *_WINS_FIELDS)},
    "second": ("opener", "pattern"), "words": ("opener", "letter"), "answer_ids": ("answer",),
    "opener": ("opener",), "pattern": ("pattern",), "average": ("opener",),
}
XARRAY_ARRAYS = ("opener", "pattern", "average")  # not in `layout`: older stores lack them
ATTRS: dict[str, dict] = {
    "status": {"flag_values": list(range(len(STATUS_NAMES))),
               "flag_meanings": " ".join(STATUS_NAMES),
               "long_name": "what is known of the opener's value"},
    "selected": {"long_name": "1 if some run was asked to value this opener"},
    "total": {"long_name": "total guesses over all answers with best play (-1: none); "
              "under the objective wins over the answers won"},
    "average": {"long_name": "total / number of answers (NaN: none); under the objective "
                "wins total / wins"},
    "wins": {"long_name": "answers won within the cap (objective wins; -1: none)"},
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


def averages(status: np.ndarray, total: np.ndarray, n_answers: int,
             wins: np.ndarray | None = None) -> np.ndarray:
    """total / answers where a total is known (exact, bounds), NaN elsewhere; with
    `wins` (the objective wins) total / wins, over the answers won."""
    known = np.isin(status, (EXACT, LOWER_BOUND, UPPER_BOUND)) & (total >= 0)
    if wins is None:
        return np.where(known, total / n_answers, np.nan)
    known &= wins > 0
    return np.where(known, total / np.maximum(wins, 1), np.nan)


def decode_words(codes: np.ndarray) -> list[str]:
    letters = (np.asarray(codes, dtype=np.uint8) + ord("a")).astype(np.uint8)
    return [bytes(row).decode("ascii") for row in letters]


FIELDS = tuple(_FIELDS)
