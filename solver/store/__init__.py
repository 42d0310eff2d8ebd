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
    wins          int64   [G]       only under the objective wins: the answers won
                                    within the cap (-1: none); total is then the
                                    guesses summed over those, average total / wins

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
total within them, and openers rank by depth, then total; wins: the store has the
array wins, total counts the answers won only, and openers rank by the most wins,
then the least total), cutoff, solver_version,
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

The package, one job a module: `layout` (the format, the status codes, Problem,
Record, every array's shape, chunks, dimensions and attributes), `damage` (what can
be wrong with a store on disk: `inspect`, `check_folder`, `damage_message`),
`snapshot` (a consistent read of every opener, its rows, the progress line), `store`
(the Store: create, open, lock, upgrade, read, write a batch), and on top of it
`repair` and `merge`; `classes` the class checkpoint beside the store's arrays
(`ClassStore`: the values of first-feedback classes the run writes and the book
reads).
"""

from ..errors import StoreError
from ..variant import MODES  # the store's modes are the game's
from .classes import ClassResult, ClassStore
from .damage import Damage, check_folder, damage_message, inspect
from .layout import (
    ATTRS,
    DIMS,
    EVERY_CHUNK,
    EXACT,
    FAILED,
    FIELDS,
    FORMAT,
    INFEASIBLE,
    INFO_ARRAYS,
    LIST_ARRAYS,
    LOWER_BOUND,
    PENDING,
    RESULT_ARRAYS,
    STATUS_CODES,
    STATUS_NAMES,
    UPPER_BOUND,
    XARRAY_ARRAYS,
    Problem,
    Record,
    averages,
    decode_words,
    fields_of,
    layout,
    second_rows,
    zarr_module,
)
from .merge import merge
from .repair import repair
from .snapshot import ROW_KEYS, Snapshot, describe_progress, dumps_row
from .store import Store

__all__ = [
    "ClassResult", "ClassStore",
    "ATTRS", "DIMS", "EVERY_CHUNK", "EXACT", "FAILED", "FIELDS", "FORMAT", "INFEASIBLE",
    "INFO_ARRAYS", "LIST_ARRAYS", "LOWER_BOUND", "MODES", "PENDING", "RESULT_ARRAYS",
    "ROW_KEYS", "STATUS_CODES", "STATUS_NAMES", "UPPER_BOUND", "XARRAY_ARRAYS", "Damage",
    "Problem", "Record", "Snapshot", "Store", "StoreError", "averages", "check_folder",
    "damage_message", "decode_words", "describe_progress", "dumps_row", "fields_of", "inspect",
    "layout",
    "merge", "repair", "second_rows", "zarr_module",
]
