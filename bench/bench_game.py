"""Speed of the game layer: `next` after every first-feedback class of an opener
(fresh solver per class, so no class profits from another's memo), tree export,
simulation per strategy, scoring the whole guess list.

usage: python bench/bench_game.py [--opener salet] [--mode easy] [--top 5]
       [--skip classes,tree,simulate,score]
Prints CPU seconds (process time) per item; numba kernels are warmed first.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from solver.feedback import to_text
from solver.game import Position, analyse, tree
from solver.game.simulate import simulate
from solver.game.strategies import make_strategy, strategy_names
from solver.search import Solver
from solver.table import get_table
from solver.words import WordLists

GREEN = 242  # all five letters green: 3**5 - 1


def cpu(f):
    c0 = time.process_time()
    w0 = time.perf_counter()
    r = f()
    return r, time.process_time() - c0, time.perf_counter() - w0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--opener", default="salet")
    ap.add_argument("--mode", default="easy")
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--skip", default="")
    ap.add_argument("--classes", type=int, default=0, help="only the N largest classes")
    a = ap.parse_args()
    skip = set(a.skip.split(","))
    lists = WordLists.load()
    table, _ = get_table(lists)
    print(f"load {os.getloadavg()[0]:.2f}; {a.opener}, {a.mode}, top {a.top}")
    if "classes" not in skip:
        g = lists.guess_index[a.opener]
        pats, sizes = np.unique(table[g], return_counts=True)
        order = np.argsort(-sizes)
        if a.classes:
            order = order[: a.classes]
        rows = []
        for k in order:
            p = int(pats[k])
            if p == GREEN:
                continue
            s = Solver(lists, mode=a.mode, table=table)
            pos = Position.parse(f"{a.opener}:{to_text(p, 5)}", lists, a.mode)
            res, c, w = cpu(lambda s=s, pos=pos: analyse(s, pos, top=a.top))
            rows.append((c, w, str(pos), int(sizes[k]), res.best.guess, res.best.total))
        rows.sort(reverse=True)
        print(f"next after each of {len(rows)} classes: total {sum(r[0] for r in rows):.1f} s "
              f"CPU; slowest:")
        for c, w, pos, n, gb, tot in rows[:5]:
            print(f"  {pos:<18} {n:>4} answers  best {gb} {tot}  {c:.2f} s CPU  {w:.2f} s wall")
        print(f"  median {np.median([r[0] for r in rows]):.3f} s CPU")
    if "tree" not in skip:
        s = Solver(lists, mode=a.mode, table=table)
        t, c, w = cpu(lambda: tree(s, a.opener))
        print(f"tree {a.opener}: total {t.total}, {c:.2f} s CPU ({w:.2f} s wall), fresh solver")
        _, c, w = cpu(lambda: (t.to_dict(), t.text()))
        print(f"  rendering JSON + text: {c:.3f} s CPU")
    if "simulate" not in skip:
        s = Solver(lists, mode=a.mode, table=table)
        for name in strategy_names():
            sim, c, w = cpu(lambda name=name: simulate(s, make_strategy(name, s), a.opener))
            print(f"simulate {name:<18} total {sim.total:>5}  {c:6.2f} s CPU  "
                  f"{1e3 * c / len(sim.games):.3f} ms/game  {sim.positions} positions")
    if "score" not in skip:
        from solver.cli.game import score_rows

        s = Solver(lists, mode=a.mode, table=table)
        pos = Position.start(lists, a.mode)
        score_rows(s, pos)
        runs = []
        for _ in range(5):
            _, c, w = cpu(lambda: score_rows(s, pos))
            runs.append(c)
        print(f"score all {len(lists.guesses)} guesses from the start: median "
              f"{np.median(runs):.3f} s CPU over 5 runs (min {min(runs):.3f})")


if __name__ == "__main__":
    main()
