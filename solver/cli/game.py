"""Game commands: next, tree, play, simulate, score, compare (solver.game)."""

from __future__ import annotations

import csv
import json
import sys
import time

from ..errors import UsageError
from ..output import check_output, write_output
from ..status import Status
from . import variants
from .common import (
    INT32_MAX,
    SEED_MAX,
    add_backend,
    add_lists,
    add_memo,
    add_objective,
    add_problem,
    int_range,
    load_lists,
    make_solver,
    path_arg,
    player_lists,
    write_simulations,
)
from .flags import flag

DEFAULT_OPENERS = ("salet", "crane", "trace")
SCORE_KEYS = ("guess", "expected", "entropy", "worst", "patterns", "candidate",
              "eliminations", "letters")
SAME_GUESSES = (
    "expected and eliminations choose the same guess at every position: eliminations = "
    "n - expected + [hit]/n, and the sums of squared class sizes all have the parity of "
    "n, so two expected values differ by 0 or by at least 2/n, more than a hit adds "
    "(ties go to candidates in both); both are kept, under the names players know.")
SORTS = ("expected", "entropy", "worst", "patterns", "eliminations", "letters")


def _setup(args):
    lists = load_lists(args)
    return lists, make_solver(args, lists)


def _store(args, lists=None):
    """The results a command starts from: --store, else --book or the packaged
    opening book for the problem (with `lists`; None when there is none)."""
    if getattr(args, "store", None):
        from ..store import Store

        return Store.open(args.store, read_only=True)
    if getattr(args, "objective", "expected") != "expected" and not getattr(args, "book", None):
        return None  # the packaged books hold the expected objective's values
    if lists is not None and hasattr(args, "book") and not getattr(args, "no_book", False):
        from .book import load_book

        return load_book(args, lists)
    return None


def _position(args, lists):
    from ..game import Position

    return Position.parse(getattr(args, "position", "-") or "-", lists, args.mode,
                          args.max_guesses, getattr(args, "objective", "expected"))


def _common(p, store: bool = False, player: bool = False) -> None:
    add_lists(p, player)
    add_problem(p)
    add_backend(p)
    add_memo(p)
    if store:
        p.add_argument("--store", type=path_arg, metavar="PATH",
                       help="result store of the same problem ('wordle-dp run'): the opener "
                       "and second guess come from it")
        p.add_argument("--book", type=path_arg, metavar="FILE",
                       help="opening book of the same problem ('wordle-dp book build'; "
                       "default: the packaged book when it covers the lists, mode and cap)")
        p.add_argument("--no-book", action="store_true",
                       help="do not use the packaged opening book")


# ---- next ---------------------------------------------------------------------------

def _cmd_next(args) -> int:
    from ..game import analyse
    from ..game.analysis import EMPTY_EXACT_LIMIT, best_known, check_wins_start, opening
    from ..progress import fit_lines

    if args.adversary:
        return variants.next_adversary(args)
    from . import boards

    boards.infer_boards(args)
    if boards.wanted(args):
        return boards.next_boards(args)
    if args.strategy is not None:
        raise UsageError("--strategy applies to --boards (one board's next guess is exact)")

    from ..game import wider

    player_lists(args)
    lists = load_lists(args)
    # feedback no answer fits goes on with every allowed guess as a possible answer
    pos, said = wider.parse(args.position, lists, args.mode, args.max_guesses,
                            args.objective)
    res = None
    if said:
        print(fit_lines(f"note: {said}"), file=sys.stderr)
        res = analyse(wider.solver_for(pos), pos, top=args.top)
    else:
        store = _store(args, lists)
        # the start or a second move, from a store or the book: no solver, no table
        if store is not None and pos.objective == "expected":
            res = opening(pos, args.top, store, fallback=True)
        if res is None and store is None and not pos.history \
                and pos.objective == "expected" and len(lists.answers) > EMPTY_EXACT_LIMIT:
            res = best_known(pos, args.top)  # what is known, or why not (no table needed)
        if res is None:
            check_wins_start(pos)  # before the table is loaded
            # a search can take a minute (hard mode on today's lists), a best chance
            # many: the shared progress line, redrawn on a terminal, and in a log a
            # line every LOG_EVERY seconds (nothing for a search quicker than that)
            from ..progress import Progress

            progress = Progress("next", sys.stderr, "guesses")
            solver = make_solver(args, lists)
            try:
                res = analyse(solver, pos, top=args.top, store=store, progress=progress,
                              fallback=True)
            finally:  # an error's one line starts on a line of its own
                progress.clear()
    if args.json:
        d = res.to_dict()
        if res.source == "known":  # an exact value, not a proven best: say so
            d.update(source=res.source, note=res.note)
        print(json.dumps(d))
    else:
        print(fit_lines(res.describe()))
    return 0


# ---- tree ---------------------------------------------------------------------------

def _cmd_tree(args) -> int:
    from ..game import tree

    check_output("--out", args.out)  # before the search: it may take a while
    player_lists(args)
    lists, solver = _setup(args)
    pos = _position(args, lists)
    from ..progress import Progress

    progress = Progress(f"tree {args.opener}", None if args.quiet else sys.stderr,
                        "feedback classes searched")
    t = tree(solver, args.opener, pos, store=_store(args, lists), progress=progress)
    progress.done()

    def write(out) -> None:
        if args.format == "json":
            json.dump(t.to_dict(), out)
            out.write("\n")
        else:
            out.write(t.text() + "\n")

    write_output("--out", args.out, write)
    if args.out not in (None, "-"):
        print(f"wrote the {t.opener} tree ({t.summary()}) to {args.out}", file=sys.stderr)
    if t.fallback_from:  # the header says it too (stdout or --out)
        print(f"no strategy after {t.opener.upper()} wins every answer within "
              f"{t.max_guesses} guesses in {t.mode} mode: the tree plays for the most wins "
              f"({t.summary()})", file=sys.stderr)
    return 0


# ---- play ---------------------------------------------------------------------------

def _cmd_play(args) -> int:
    import random

    from ..game.play import Game
    from ..progress import ask as read_line
    from ..progress import fit

    if args.adversary:
        return variants.play_adversary(args)
    from . import boards

    if boards.wanted(args):
        return boards.play_boards(args)

    player_lists(args)
    lists, solver = _setup(args)
    answer = args.answer  # Game checks it (ASCII before case folding)
    if args.random:
        answer = random.Random(args.seed).choice(lists.answers)
    tty = sys.stdin.isatty()

    def say(line: str) -> None:  # broken between phrases, not wrapped inside a word;
        # a bad input's reason ('! ...') stays the one line it is (issue 7)
        print(line if line.startswith("! ") else "\n".join(fit(line)), flush=True)

    def ask(prompt: str):
        try:
            return read_line(prompt)
        except EOFError:
            print()
            if not tty:  # a script's input ran out: not a player's quit
                raise UsageError("play: the input ended before the game was over (type q "
                                 "to quit; with --answer a non-terminal input plays it "
                                 "out)") from None
            return None

    game = Game(solver, say, ask, answer=answer, opener=args.opener, store=_store(args, lists),
                reveal=not args.random, progress=sys.stderr, param=flag)
    if answer is not None and not tty:
        game.run(auto=True)
    else:
        game.run()
    return 0


# ---- simulate -----------------------------------------------------------------------

def _strategies(text: str) -> list[str]:
    from ..game.strategies import strategy_names

    names = [s.strip() for s in text.split(",") if s.strip()]
    if names == ["all"]:
        return strategy_names()
    if not names:
        raise UsageError("give at least one strategy")
    return names


def _cmd_simulate(args) -> int:
    from ..game.simulate import simulate
    from ..game.strategies import make_strategy
    from . import boards

    if boards.wanted(args):
        return boards.simulate_boards_cmd(args)
    if args.games is not None:
        raise UsageError("--games applies to --boards (one board plays every answer)")
    check_output("--csv", args.csv)  # before the games: they may take a while
    check_output("--plot", args.plot, ".png")
    lists, solver = _setup(args)
    names = _strategies("optimal" if args.strategy is None else args.strategy)
    store = _store(args, lists)
    strategies = [make_strategy(n, solver, store, args.seed) for n in names]  # validate
    start = _position(args, lists)
    if start.solved:
        raise UsageError(f"{start} is already solved: no game to simulate")
    if args.opener is not None:  # an empty one too: it would mean the default
        start.check_guess(args.opener)
    sims = []
    progress = _progress("simulate")
    n = len(start.members)
    for k, s in enumerate(strategies):
        def step(done: int, _total: int, k: int = k, name: str = s.name) -> None:
            progress(k * n + done, len(strategies) * n, name)

        sim = simulate(solver, s, args.opener, start, step)
        sims.append(sim)
        progress.clear()
        if args.json:
            print(json.dumps(sim.to_dict()), flush=True)
        else:
            print(sim.describe(), flush=True)
    write_simulations(args, sims, "answer", f"guesses per game from {sims[0].opener} "
                      f"({args.mode}, {len(lists.answers)} answers)", args.max_guesses)
    return 0


# ---- score --------------------------------------------------------------------------

def score_rows(solver, pos, sort: str = "expected") -> list[dict]:
    """Every allowed guess at `pos` with its measures, best first by `sort` (ties:
    candidates first, then guess-list order)."""
    import numpy as np

    from ..game.measures import letter_scores, measures, scan

    gids = np.flatnonzero(pos.legal())
    m = measures(scan(solver.table, pos.members, gids, solver.variant.all_green),
                 len(pos.members))
    m["letters"] = letter_scores(solver.lists, pos.members, gids)
    larger = sort in ("entropy", "patterns", "eliminations", "letters")
    key = np.round(-m[sort] if larger else m[sort], 9)
    order = np.lexsort((gids, ~m["candidate"], key))
    words = solver.lists.guesses
    return [{
        "guess": words[gids[j]],
        "expected": round(float(m["expected"][j]), 6),
        "entropy": round(float(m["entropy"][j]), 6),
        "worst": int(m["worst"][j]),
        "patterns": int(m["patterns"][j]),
        "candidate": bool(m["candidate"][j]),
        "eliminations": round(float(m["eliminations"][j]), 6),
        "letters": int(m["letters"][j]),
    } for j in order]


def _cmd_score(args) -> int:
    check_output("--csv", args.csv)
    lists, solver = _setup(args)
    pos = _position(args, lists)
    if pos.solved:
        raise UsageError(f"{pos} is already solved")
    c0 = time.process_time()
    rows = score_rows(solver, pos, args.sort)
    cpu = time.process_time() - c0
    if args.csv:
        def write(out) -> None:
            w = csv.DictWriter(out, fieldnames=list(SCORE_KEYS), lineterminator="\n")
            w.writeheader()
            w.writerows(rows[: args.top] if args.top else rows)

        write_output("--csv", args.csv, write)
        if args.csv != "-":
            print(f"wrote {len(rows[: args.top] if args.top else rows)} guesses to "
                  f"{args.csv}", file=sys.stderr)
        return 0
    top = args.top or 20
    n = len(pos.members)
    print(f"position {pos}: {n} candidate{'s' if n != 1 else ''}, {len(rows)} allowed "
          f"guesses scored in {cpu:.3f} s CPU, sorted by {args.sort}")
    print(f"{'rank':>4}  guess  {'expected':>9}  {'entropy':>7}  {'worst':>5}  "
          f"{'patterns':>8}  candidate")
    for i, r in enumerate(rows[:top], 1):
        print(f"{i:>4}  {r['guess']}  {r['expected']:>9.3f}  {r['entropy']:>7.4f}  "
              f"{r['worst']:>5}  {r['patterns']:>8}  {'yes' if r['candidate'] else 'no'}")
    return 0


# ---- compare ------------------------------------------------------------------------

def _progress(label: str, unit: str = "games"):
    """The shared progress line (solver/progress.py), on a terminal only: the rows
    these commands print as they go are the progress a log gets."""
    from ..progress import Progress

    return Progress(label, sys.stderr if sys.stderr.isatty() else None, unit)


def _cmd_compare(args) -> int:
    from ..game.simulate import simulate
    from ..game.strategies import HEURISTICS, make_strategy
    from . import boards

    if boards.wanted(args):
        if args.plot:
            raise UsageError("--plot is not offered by compare --boards (simulate --boards "
                             "--plot draws the histograms)")
        return boards.compare_boards(args)
    if args.games is not None:
        raise UsageError("--games applies to --boards (one board plays every answer)")
    check_output("--plot", args.plot, ".png")
    lists, solver = _setup(args)
    openers = [lists.guesses[lists.guess_id(w)] for w in (args.openers or DEFAULT_OPENERS)]
    names = (_strategies(args.strategies) if args.strategies is not None
             else [*HEURISTICS, "random"] + [f"{h}-cand" for h in HEURISTICS])
    strategies = [make_strategy(n, solver, None, args.seed) for n in names if n != "optimal"]
    rows = []
    progress = _progress("compare")
    n = len(lists.answers)
    total = len(openers) * len(strategies) * n
    done = 0
    for op in openers:
        progress(done, total, f"{op}: exact optimum")
        opt = solver.solve(op)
        progress.clear()
        cap = f"max {args.max_guesses or 'no cap'}"
        if not args.json:
            if opt.status == Status.EXACT:
                print(f"{op}: exact optimum {opt.total} ({opt.average:.4f} avg), "
                      f"{args.mode}, {cap}")
            else:  # infeasible: no regret to measure against
                print(f"{op}: no strategy solves every answer within {args.max_guesses} "
                      f"guesses ({args.mode}); no regret")
            print(f"  {'strategy':<18} {'total':>6} {'mean':>7} {'over cap':>8} "
                  f"{'regret':>7} {'per game':>8}")
        for s in strategies:
            def step(games: int, _total: int, name: str = s.name, op: str = op,
                     before: int = done) -> None:
                progress(before + games, total, f"{op} {name}")

            sim = simulate(solver, s, op, progress=step)
            done += n
            progress.clear()
            sim.optimum = opt.total if opt.status == Status.EXACT else None
            row = sim.to_dict()
            row.setdefault("optimum", None)
            row.setdefault("regret", None)
            rows.append(row)
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                reg = ("      -        -" if sim.regret is None else
                       f"{sim.regret:>+7} {sim.regret / len(sim.games):>+8.4f}")
                print(f"  {s.name:<18} {sim.total:>6} {sim.mean:>7.4f} {sim.failures:>8} "
                      f"{reg}", flush=True)
    if args.plot:
        from .. import plots

        rows = [r for r in rows if r["regret"] is not None]
        if not rows:
            raise UsageError("--plot: no opener has an exact optimum to measure regret")
        plots.regret_bars(rows, args.plot, f"regret of one-step heuristics ({args.mode}, "
                          f"max {args.max_guesses or 'no cap'}, {len(lists.answers)} answers)")
    return 0


# ---- parser -------------------------------------------------------------------------

def register(sub) -> None:
    """Add next/tree/play/simulate/score/compare to the CLI's subparsers."""
    from . import boards

    n = sub.add_parser(
        "next", help="optimal next guess from a position, with exact totals",
        description="The optimal next guess at POSITION with its exact total (further "
        "guesses summed over the remaining candidates) and the K best alternatives with "
        "theirs. POSITION: 'salet:BBYBG,drone:YBBBG' (G green, Y yellow, B grey; also "
        "X/./-, 2/1/0 or squares) or '-' for the start, which needs --store on large lists.",
        epilog="--json fields: position, candidates, words (when 20 or fewer, else null), "
        "best {guess, total, average, status}, alternatives [{guess, total, status}], "
        "mode, max_guesses, objective. Under the objective wins each guess also has wins "
        "(candidates won within the guesses left), and total and average are over those; "
        "where no strategy wins every candidate, the other objectives fall back to wins "
        "and say so (objective wins, fallback_from: the objective asked for)",
    )
    n.add_argument("position", metavar="POSITION")
    n.add_argument("--top", type=int_range(0, INT32_MAX), default=5, metavar="K",
                   help="alternatives to value exactly (default 5)")
    n.add_argument("--json", action="store_true", help="one JSON object")
    add_objective(n)
    variants.add_adversary(n, "POSITION is its guesses (GUESS or GUESS:PATTERN, the replies "
                           "checked); the fewest further guesses that beat it, a winning line "
                           "and up to K other guesses that win as fast")
    n.add_argument("--strategy", choices=("auto", "optimal", "entropy", "expected",
                                          "minimax"), default=None,
                   help="with --boards: auto (exact where it takes seconds, else entropy), "
                   "optimal (exact only) or a heuristic")
    boards.add_boards(n, "POSITION gives K feedbacks per guess, 'salet:BBBBB/BYBBG/-/GGGGG' "
                      "('-' for a board solved earlier; K is read from it when not given); "
                      "exact on small positions, else the heuristic, labelled")
    _common(n, store=True, player=True)
    n.set_defaults(func=_cmd_next)

    t = sub.add_parser(
        "tree", help="the full optimal strategy after an opener",
        description="Export the optimal decision tree starting with OPENER: one game per "
        "answer. Text: 'answer guesses guess:PATTERN ...' per line after a summary line. "
        "JSON: opener, mode, max_guesses, total, average, histogram, games. Where no "
        "strategy after OPENER wins every answer within the cap, the tree plays for the "
        "most wins and says so (objective wins, fallback_from; a lost answer's line says "
        "'lost'; JSON: wins, answers, lost; total and average over the answers won).",
    )
    t.add_argument("opener", metavar="OPENER")
    t.add_argument("--position", default="-", metavar="P",
                   help="start from this position instead (OPENER is then the next guess)")
    t.add_argument("--format", choices=("text", "json"), default="text")
    t.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    t.add_argument("--out", type=path_arg, metavar="FILE", help="write to FILE (default: "
                   "stdout; written to a temporary file and renamed)")
    add_objective(t)
    _common(t, store=True, player=True)
    t.set_defaults(func=_cmd_tree)

    p = sub.add_parser(
        "play", help="play in the terminal with the optimal guess suggested",
        description="Without an answer, type the feedback the real game showed ('BBYBG' "
        "for the suggested guess, or 'crane BBYBG' for your own). With --answer or "
        "--random the tool computes the feedback; when stdin is not a terminal and an "
        "answer is given it plays optimally to the end without prompts. q quits.",
    )
    who = p.add_mutually_exclusive_group()
    who.add_argument("--answer", metavar="WORD", help="the hidden answer")
    who.add_argument("--random", action="store_true", help="a random hidden answer")
    p.add_argument("--seed", type=int_range(0, SEED_MAX), metavar="N",
                   help=f"seed for --random (0..{SEED_MAX})")
    p.add_argument("--opener", metavar="W", help="first guess to suggest (default: the "
                   "store's best (--store), else the opening book's proven best (the "
                   "packaged book, or --book), else the exact best on small lists, else "
                   "the highest-entropy guess)")
    variants.add_adversary(p, "type guesses, it answers; each turn suggests a guess of a "
                           "fastest win (exact)")
    boards.add_boards(p, "--answer w1,w2,... (K words) or --random hides them, else type "
                      "the K feedbacks the game showed")
    _common(p, store=True, player=True)
    p.set_defaults(func=_cmd_play)

    s = sub.add_parser(
        "simulate", help="play every answer with a strategy",
        description="Play every answer with each strategy and print the total, mean, "
        "standard deviation, histogram of guesses, games over the cap and time per game.",
        epilog="strategies: optimal, entropy, expected, eliminations, minimax, patterns, "
        "letters, random, and NAME-cand (choose among candidates only); 'all' for every one. "
        + SAME_GUESSES,
    )
    s.add_argument("--strategy", default=None, metavar="S[,S...]",
                   help="strategy or comma-separated strategies (default optimal; with "
                   "--boards: entropy, expected, minimax, NAME-pure without the "
                   "one-candidate rule, optimal on small lists; default entropy)")
    s.add_argument("--opener", metavar="W", help="first guess (default: the strategy's own)")
    s.add_argument("--position", default="-", metavar="P", help="simulate the candidates "
                   "of this position instead of every answer")
    s.add_argument("--seed", type=int_range(0, SEED_MAX), default=0, metavar="N",
                   help=f"seed of the random strategy (0..{SEED_MAX}, default 0)")
    s.add_argument("--json", action="store_true", help="one JSON object per strategy")
    s.add_argument("--csv", type=path_arg, metavar="FILE",
                   help="every game: strategy, answer, guesses, steps ('-': stdout)")
    s.add_argument("--plot", type=path_arg, metavar="FILE.png", help="histograms side by side")
    s.add_argument("--games", type=int_range(1, 10**7), default=None, metavar="N",
                   help="with --boards: a seeded random sample of N answer tuples, or every "
                   "tuple when there are at most N (default 1000)")
    boards.add_boards(s, "the mean guesses to solve every board, histogram and failure rate")
    _common(s, store=True)
    s.set_defaults(func=_cmd_simulate)

    c = sub.add_parser(
        "score", help="every allowed guess scored by one-step measures",
        description="Score every allowed guess at a position: expected remaining answers, "
        "entropy (bits), worst-case class, distinct patterns, is-candidate (CSV adds "
        "expected eliminations and letter frequency). Best first.",
    )
    c.add_argument("--position", default="-", metavar="P")
    c.add_argument("--sort", choices=SORTS, default="expected",
                   help="measure to rank by (default expected)")
    c.add_argument("--top", type=int_range(1, INT32_MAX), metavar="K",
                   help="rows shown (default 20; CSV: all)")
    c.add_argument("--csv", type=path_arg, metavar="FILE", help="write CSV ('-': stdout)")
    _common(c)
    c.set_defaults(func=_cmd_score)

    m = sub.add_parser(
        "compare", help="heuristics against the exact optimum (regret)",
        description="For each opener, every heuristic's simulated total next to the exact "
        "optimum from that opener, and the regret (extra guesses over all answers). On a "
        "terminal a progress line shows the games played and an ETA.",
        epilog=SAME_GUESSES,
    )
    m.add_argument("--openers", nargs="+", metavar="W",
                   help=f"openers (default {' '.join(DEFAULT_OPENERS)})")
    m.add_argument("--strategies", metavar="S[,S...]", help="heuristics to compare "
                   "(default: all)")
    m.add_argument("--seed", type=int_range(0, SEED_MAX), default=0, metavar="N",
                   help=f"seed of the random strategy (0..{SEED_MAX}, default 0)")
    m.add_argument("--json", action="store_true", help="one JSON object per row")
    m.add_argument("--plot", type=path_arg, metavar="FILE.png", help="regret bars")
    m.add_argument("--games", type=int_range(1, 10**7), default=None, metavar="N",
                   help="with --boards: answer tuples per heuristic (default 1000)")
    boards.add_boards(m, "the heuristics side by side on the same sample of answer tuples")
    _common(m)
    m.set_defaults(func=_cmd_compare)
