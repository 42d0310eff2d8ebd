"""What the parts of a Solver (engine.py) know of each other, for the type checker:
the query mixins (classes.py, positions.py) use the engine's state and its root
helpers, which the Solver itself defines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..variant import Mode

if TYPE_CHECKING:
    import numpy as np

    from ..variant import Variant
    from ..words import WordLists


class SolverParts:
    """The engine state and root helpers the query mixins use (defined by Solver)."""

    if TYPE_CHECKING:
        lists: WordLists
        variant: Variant
        mode: Mode
        max_guesses: int
        beam: int | None
        table: np.ndarray
        depth_limit: int
        _ctx: Any
        _kernels: Any
        _class_cost: np.ndarray

        def _gid(self, word: str) -> int: ...

        def _classes(self, gid: int, members: np.ndarray
                     ) -> list[tuple[int, np.ndarray]]: ...

        def _child_sets(self, gid: int, members: np.ndarray, cons) -> Any: ...

        def _constraint_after(self, cons, gid: int, pattern: int) -> Any: ...

        def _solve_set(self, members: np.ndarray, left: int, cons,
                       beta: int = ...) -> Any: ...

        def _guess_total(self, gid: int, members: np.ndarray, left: int, cons, beta: int,
                         report=None) -> tuple[str, int, int, bool, bool]: ...

        def _label(self, status: str, searched: bool, tainted: bool
                   ) -> tuple[str, str]: ...

        def _forget(self) -> None: ...
