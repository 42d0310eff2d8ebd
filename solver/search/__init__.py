"""The exact search: numba kernels, bounds, memo and the engine's Python API."""

from .engine import Solver
from .result import SolveResult

__all__ = ["Solver", "SolveResult"]
