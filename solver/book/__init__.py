"""The opening book: proven opener results shipped with the package.

A book holds, for one problem (two lists, a mode, a cap), what `wordle-dp run`
proved about every opener: the exact value of the K best with the proof that no
other opener beats the K-th (every other one has a lower bound above it), the exact
value of a few hundred popular openers, and for every exact opener its best second
guess per first-feedback class. It reads like a result store (`problem`,
`snapshot()`, `second_guesses()`, ...), so every command that takes `--store` takes
a book the same way; `source` says which it is.

Built by our own commands (`build`, behind `wordle-dp book build`): the popular
openers are valued exactly, the K-th best of them sets a cutoff, and every opener is
valued under that cutoff (exact below it, a proven lower bound above it) into a
resumable result store; the book is written from that store. Its provenance (the
command, the solver version, the lists' sha256, CPU time, machines, date) is part of
the file.

File: a compressed numpy archive (.npz) of per-opener arrays over the guess list
(status, total, depth), the exact openers' CPU times and second guesses (pattern,
guess, class total: one row per first-feedback class), and `info`, a JSON document
with the problem and the provenance.

The most wins (`add_wins`, behind `wordle-dp book wins`): where an opener cannot win
every answer within the cap (hard mode on today's lists: crane, slate, ...), the
book may hold its value under the objective wins, from a run of that objective
(search/wins.py): the answers it wins and the guesses summed over those. Arrays
wins_index (the openers), wins, wins_total and wins_cpu, and info['wins'], the
provenance; books without them (every book before) read as before. Such an opener's
status is infeasible (it wins fewer than every answer: no strategy solves them
all), whatever bound the build had proved; one the build held as a bound that wins
every answer is exact at its wins total (the least total of a strategy that wins
them all is the capped optimum), without second guesses. An opener the build
valued exactly wins every answer at its exact total: it needs no entry.
"""

from .builder import (
    PLAYER_OPENERS,
    POPULAR_SCORED,
    add_wins,
    build,
    command_line,
    default_store,
    popular_openers,
    proven_top,
    wins,
    wins_openers,
    write,
)
from .reader import DEFAULT_TOP, FORMAT, Book, book_path
from .table import Table, table_path, write_table

__all__ = ["Book", "book_path", "DEFAULT_TOP", "FORMAT", "PLAYER_OPENERS", "POPULAR_SCORED",
           "add_wins", "build", "command_line", "default_store", "popular_openers",
           "proven_top", "Table", "table_path", "wins", "wins_openers", "write",
           "write_table"]
