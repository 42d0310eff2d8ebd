"""Find winning lines against the adversary (Absurdle) from the start of a list
pair, for solver/data/adversary-lines.json (issue 50 item 7).

    python bench/adversary_lines.py --lists nyt --lines 11      # about 3 min at load 6

For each first guess, smallest kept class first (Adversary.ordered), it tries the
second guesses whose kept class is small (at most --max-size answers, the
--max-sets smallest distinct ones) for a guess that separates it: a line of 4
guesses, or of 3 where the second guess leaves one answer. A heuristic: it finds
lines, it proves nothing (the adversary proves every shorter depth impossible
itself before it uses a line). Prints each line as a JSON entry of the file.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from solver.game.adversary import Adversary
from solver.kernels.adversary_jit import replies, separator
from solver.words import WordLists


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lists", default="nyt")
    ap.add_argument("--lines", type=int, default=11, help="stop after this many lines")
    ap.add_argument("--max-size", type=int, default=60)
    ap.add_argument("--max-sets", type=int, default=400)
    a = ap.parse_args()
    lists = WordLists.load(lists=a.lists, quiet=True)
    adv = Adversary(lists)
    start = np.arange(len(lists.answers), dtype=np.int32)
    gids = adv.gids
    t0 = time.perf_counter()
    found = 0
    for i, g1 in enumerate(adv.ordered(start)):
        _p, r1 = adv.play(g1, start)
        size = np.zeros(len(gids), np.int64)
        pat = np.zeros(len(gids), np.int64)
        replies(adv.table, r1, gids, adv.prio, size, pat)
        cand = np.flatnonzero((size <= a.max_size) & (size < len(r1)))
        cand = cand[np.argsort(size[cand], kind="stable")]
        seen: set[bytes] = set()
        line = None
        for k in cand:
            g2 = int(gids[k])
            r2 = r1[adv.table[g2, r1] == pat[k]]
            if r2.tobytes() in seen:
                continue
            seen.add(r2.tobytes())
            if len(r2) == 1:
                line = [g1, g2, int(lists.answer_guess_ids[r2[0]])]
                break
            s = separator(adv.table, r2, gids, adv.n_patterns)
            if s >= 0:
                g3 = int(gids[s])
                _p, r3 = adv.play(g3, r2)
                line = [g1, g2, g3, int(lists.answer_guess_ids[r3[0]])]
                break
            if len(seen) >= a.max_sets:
                break
        if line is None:
            continue
        steps = adv.line_steps(start, line)  # raises unless it wins
        print(json.dumps({"lists": a.lists, "guesses": [g for g, _p in steps]}),
              f"# first guess {i + 1}, {time.perf_counter() - t0:.0f} s", flush=True)
        found += 1
        if found >= a.lines:
            break


if __name__ == "__main__":
    main()
