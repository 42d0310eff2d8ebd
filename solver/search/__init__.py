"""The exact search: numba kernels, bounds, memo and the engine's Python API."""

from .engine import Solver, Stopped
from .result import SolveResult

__all__ = ["Solver", "SolveResult", "Stopped"]
