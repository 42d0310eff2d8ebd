"""wordle-dp: exact optimal Wordle strategies, distributed over MPI ranks.

Pipeline: words (lists) -> feedback/table (pattern table) -> search (exact engine)
-> store/run (Zarr results, MPI distribution) -> cli.

`Solver` and `SolveResult` are imported on first use, not with the package, so
that the CLI can check the environment (NUMBA_NUM_THREADS) before numba loads.
"""

from __future__ import annotations

__version__ = "0.1.0"  # the one place: pyproject.toml, --version and stores read it

__all__ = ["Solver", "SolveResult", "__version__"]


def __getattr__(name: str):
    if name in ("Solver", "SolveResult"):
        from .errors import check_environment

        check_environment()
        from . import search

        return getattr(search, name)
    raise AttributeError(f"module 'solver' has no attribute {name!r}")
