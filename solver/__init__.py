"""wordle-dp: exact optimal Wordle strategies, distributed over MPI ranks.

Pipeline: words (lists) -> feedback/table (pattern table) -> search (exact engine)
-> store/run (Zarr results, MPI distribution) -> cli.
"""

__version__ = "0.1.0"  # the one place: pyproject.toml, --version and stores read it

from .search import Solver, SolveResult  # noqa: E402

__all__ = ["Solver", "SolveResult", "__version__"]
