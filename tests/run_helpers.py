"""Shared by the MPI and Slurm run tests: small problem lists and the reference
table every run must reproduce."""

from __future__ import annotations

from pathlib import Path

from solver.words import WordLists

ROOT = Path(__file__).resolve().parents[1]


def write_lists(d: Path, n_answers: int, step: int) -> tuple[str, str]:
    """The first n_answers answers and every step-th guess, as list files in d."""
    answers = (ROOT / "data" / "answers.txt").read_text().split()[:n_answers]
    guesses = (ROOT / "data" / "guesses.txt").read_text().split()[::step]
    d.mkdir(parents=True, exist_ok=True)
    a, g = d / "answers.txt", d / "guesses.txt"
    a.write_text("\n".join(answers) + "\n")
    known = set(guesses)
    g.write_text("\n".join(guesses + [w for w in answers if w not in known]) + "\n")
    return str(a), str(g)


def reference_table(a: str, g: str, cache) -> dict[str, tuple[str, int]]:
    """Every opener valued by one fresh Solver in this process: (status, total or -1)."""
    from solver import Solver
    from solver.table import get_table

    lists = WordLists.load(a, g, quiet=True)
    table, _ = get_table(lists, "numpy", cache)
    s = Solver(lists, table=table)
    out = {}
    for w in lists.guesses:
        r = s.solve(w)
        out[w] = (r.status, -1 if r.total is None else r.total)
    return out
