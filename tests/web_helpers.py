"""Shared by the web API and browser tests: a small problem, its solver, and a
result store with a mix of statuses."""

from __future__ import annotations

from pathlib import Path

from solver import Solver
from solver.store import EXACT, LOWER_BOUND, Record, Store
from solver.table import get_table
from solver.words import WordLists
from tests.run_helpers import write_lists

N_ANSWERS = 40
GUESS_STEP = 300  # every 300th allowed guess + the answers: 84 guesses, instant solves
STORE_EXACT = 30  # openers solved exactly in the test store
STORE_BOUND = 5  # then this many stored as lower bounds; the rest stay pending
# A request's budget in the tests' services (the server's default is 10 s): these
# tests read answers, and on a machine busy with other work a worker's first answer
# can take longer than 10 s, turning it into a job (202) the test did not ask for.
# Answers past the budget becoming jobs: tests/test_web_load.py, on a real server.
TEST_BUDGET = 300.0  # seconds


def small_problem(d: Path) -> tuple[WordLists, object]:
    a, g = write_lists(d, N_ANSWERS, GUESS_STEP)
    lists = WordLists.load(a, g, quiet=True)
    table, _ = get_table(lists, "numpy", d / "cache")
    return lists, table


def make_store(path: Path, lists: WordLists, table,
               complete: bool = False) -> dict[str, tuple[str, int]]:
    """A store where some openers are exact (true values), a few are lower bounds
    and the rest pending, as a partly finished run leaves it; with `complete`, every
    opener exact. Returns what it wrote."""
    solver = Solver(lists, table=table)
    st = Store.create(path, lists, "easy", 6)
    st.mark_selected(range(len(lists.guesses)))
    wrote: dict[str, tuple[str, int]] = {}
    recs = []
    n = len(lists.guesses) if complete else STORE_EXACT + STORE_BOUND
    for i, w in enumerate(lists.guesses[:n]):
        r = solver.solve(w)
        if i < STORE_EXACT or complete:
            recs.append(Record(i, EXACT, total=r.total, depth=r.depth, cpu_seconds=0.01))
            wrote[w] = ("exact", r.total)
        else:
            lb = solver.lower_bound(w)
            recs.append(Record(i, LOWER_BOUND, total=lb))
            wrote[w] = ("lower_bound", lb)
    st.write(recs, run_info={"state": "running", "updated_at": 0.0})
    return wrote


ATCH = ("batch", "catch", "hatch", "latch", "patch", "watch")  # and match


def wins_problem() -> tuple[WordLists, object]:
    """Lists (30 answers, real words) where hard mode cannot win every answer: after
    MATCH with feedback BGGGG the six -atch answers of ATCH are left with 5 guesses,
    every guess hard mode then allows is an -atch word, and each tells one answer
    apart: 5 of the 6 are won at best, at 1 + 2 + 3 + 4 + 5 = 15 guesses. The other
    words end in no -atch, so that nothing else keeps the four letters."""
    import random

    from solver.table import build_numpy
    from tests.game_helpers import ANSWERS, GUESSES

    fam = [*ATCH, "match"]
    rng = random.Random(49)
    others = rng.sample([w for w in ANSWERS if not w.endswith("atch")], 23)
    guesses = rng.sample([w for w in GUESSES if not w.endswith("atch") and w not in others], 30)
    lists = WordLists.from_words(sorted(fam + others), sorted(guesses))
    return lists, build_numpy(lists)
