"""wordle-dp: exact optimal Wordle strategies, distributed over MPI ranks.

Pipeline: words (lists) -> feedback/table (pattern table) -> search (exact engine)
-> game (positions, strategies, simulation) -> store/run (Zarr results, MPI
distribution) -> cli and web.

The Python API, from the engine up (a runnable tour: docs/example_api.py):

    from solver import (Position, Solver, WordLists, analyse, make_strategy,
                        open_dataset, simulate, tree)
    lists = WordLists.load()                 # the shipped lists (or files: load(a, g))
    s = Solver(lists, mode="easy", max_guesses=6)
    s.solve("salet")                         # SolveResult(status='exact', total=7920, ...)
    s.best(3)                                # the 3 best openers, with proof (small lists)
    pos = Position.parse("salet:BBBBB", lists)
    analyse(s, pos, top=3).best              # the next guess: Choice(guess, total, status)
    tree(s, "salet").histogram               # the optimal strategy: {guesses: answers}
    simulate(s, make_strategy("entropy", s), "salet").total   # a heuristic over every answer
    open_dataset("full.zarr")                # a result store as an xarray Dataset

- `Solver` (solver.search): exact values of openers and positions for one problem
  (lists, mode easy/hard/strict, guess cap; 0 = no cap). `solve`, `best`,
  `strategy` (a StrategyNode tree), `second_guesses`, `lower_bound`.
- `Position`, `analyse`, `evaluate`, `tree` (solver.game): a history of guesses and
  feedback, the optimal next guess with exact alternatives, the exact total of one
  guess, the whole strategy as games per answer.
- `make_strategy`, `simulate` (solver.game): optimal play and one-step heuristics
  (entropy, expected, minimax, ...) played over every answer.
- `Store`, `open_dataset`, `to_dataframe` (solver.store, solver.dataset): results of
  `wordle-dp run`; a Dataset indexed by opener word, or a typed pandas DataFrame
  (the `analysis` extra: pandas, pyarrow, xarray).

Names are imported on first use, not with the package, so that the CLI can check
the environment (NUMBA_NUM_THREADS) before numba loads.
"""

from __future__ import annotations

__version__ = "0.1.0"  # the one place: pyproject.toml, --version and stores read it

# name -> module that defines it (imported when the name is first used)
_LAZY = {
    "Solver": "search", "SolveResult": "search",
    "WordLists": "words",
    "Position": "game", "analyse": "game", "evaluate": "game", "tree": "game",
    "Analysis": "game", "Choice": "game", "Tree": "game",
    "make_strategy": "game.strategies", "simulate": "game.simulate",
    "Store": "store",
    "open_dataset": "dataset", "to_dataset": "dataset", "to_dataframe": "dataset",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'solver' has no attribute {name!r}")
    import importlib

    from .errors import check_environment

    check_environment()
    return getattr(importlib.import_module(f".{module}", __name__), name)


def __dir__() -> list[str]:
    return sorted(__all__)
