"""Several boards behind the usual commands (issue 18): --boards K on solve, next,
play, simulate and compare. The game and its strategies: solver/game/boards.py and
boards_exact.py. solve.py and game.py register the option and hand over here."""

from __future__ import annotations

import json
import sys

from ..errors import UsageError
from ..output import check_output
from ..plural import counted
from ..status import Status
from ..table import get_table
from ..variant import Mode
from .common import int_range, load_lists, player_lists, write_simulations

MAX_BOARDS = 32
DEFAULT_GAMES = 1000


def add_boards(p, what: str) -> None:
    p.add_argument("--boards", type=int_range(1, MAX_BOARDS), default=None, metavar="K",
                   help=f"K boards at once, K distinct answers (Dordle 2, Quordle 4, "
                   f"Octordle 8, Sedecordle 16; up to {MAX_BOARDS}): {what}; the cap is "
                   "K + 5 guesses unless --max-guesses is given (0: no cap)")


def wanted(args) -> bool:
    return (getattr(args, "boards", None) or 1) > 1


def _checks(args) -> None:
    k = args.boards
    if args.mode != "easy":
        raise UsageError(f"--boards is played in easy mode only (not --mode {args.mode})")
    if getattr(args, "objective", "expected") != "expected":
        raise UsageError("--objective worst is not offered with --boards (its objective is "
                         "the expected number of guesses until every board is solved)")
    if getattr(args, "adversary", False):
        raise UsageError(f"--adversary plays one board (not --boards {k})")
    if getattr(args, "beam", None):
        raise UsageError("--beam does not apply to --boards")
    if getattr(args, "store", None) or getattr(args, "book", None):
        raise UsageError("--boards takes no --store or --book (they hold one board's values)")


def _cap(args) -> int:
    from ..game.boards import default_cap

    return args.max_guesses if getattr(args, "max_guesses_given", False) \
        else default_cap(args.boards)


def _setup(args):
    from ..game.boards import BoardsPosition, boards_variant

    _checks(args)
    lists = load_lists(args)
    variant = boards_variant(lists, args.boards, _cap(args))
    return lists, variant, BoardsPosition.start(lists, variant)


def _table(args, lists):
    table, _ = get_table(lists, args.backend, args.cache_dir)
    return table


def _exact(args, lists, table, cap: int):
    from ..game.boards_exact import BoardsExact
    from ..search import Solver

    solver = Solver(lists, mode=Mode.EASY, max_guesses=cap, table=table)
    return BoardsExact(solver, args.boards, cap)


# ---- solve --------------------------------------------------------------------------

def solve_boards(args) -> int:
    from ..game.boards_exact import check_size

    lists, variant, _start = _setup(args)
    for w in args.words:
        lists.guess_id(w)  # every opener checked before any search
    check_size(len(lists.answers), args.boards)
    ex = _exact(args, lists, _table(args, lists), variant.max_guesses)
    for w in args.words:
        r = ex.solve(w)
        if args.json:
            print(json.dumps(r), flush=True)
        elif r["status"] == Status.EXACT:
            print(f"{r['opener']} exact: {r['boards']} boards, total {r['total']:,} over "
                  f"{counted(r['tuples'], 'answer tuple')} ({r['average']:.4f} guesses to "
                  f"solve every board), worst {r['depth']}, max {r['max_guesses'] or 'no cap'}"
                  f" [{counted(r['nodes'], 'node')}, {r['seconds']:.2f} s]", flush=True)
        else:
            print(f"{r['opener']} infeasible: no strategy solves every board of every tuple "
                  f"within {r['max_guesses']} guesses [{counted(r['nodes'], 'node')}, "
                  f"{r['seconds']:.2f} s]", flush=True)
    return 0


# ---- next ---------------------------------------------------------------------------

def infer_boards(args) -> None:
    """next: K from the position when --boards is not given (its feedbacks per guess)."""
    if args.boards is None and "/" in args.position:
        first = args.position.replace(" ", ",").split(",")[0]
        args.boards = first.count("/") + 1
        if not 2 <= args.boards <= MAX_BOARDS:
            raise UsageError(f"position {args.position!r}: {args.boards} feedbacks per guess; "
                             f"several boards are 2 to {MAX_BOARDS}")


# next --boards in a player's words: the answers of the boards together are answer
# combinations, and a guess the exact search does not reach is ranked by a measure
COMBINATION = "answer combination"
RANKED_BY = {"entropy": "the guess that tells the most about the answers",
             "expected": "the guess that leaves the fewest answer combinations on average",
             "minimax": "the guess that leaves the fewest answer combinations at worst"}
SHOWN = {"entropy": lambda v: f"{v:.2f} bits of information",
         "expected": lambda v: f"about {v:,.0f} answer combinations left on average",
         "minimax": lambda v: f"at most {v:,.0f} answer combinations left"}


def next_boards(args) -> int:
    from ..game.boards import BoardsPosition, board_lines
    from ..game.boards_next import advise
    from ..progress import fit_lines

    player_lists(args)  # a player command: today's lists unless others are named
    lists, variant, _start = _setup(args)
    pos = BoardsPosition.parse(args.position, lists, variant)
    out = {"position": str(pos), "boards": args.boards, "max_guesses": variant.max_guesses,
           "guesses_made": pos.guesses_made, "solved": [s is not None for s in pos.solved],
           "candidates": [len(m) if pos.solved[i] is None else 0
                          for i, m in enumerate(pos.members)]}
    if pos.done:
        out.update(tuples=1, best=None, alternatives=[], status="solved")
    else:
        table = _table(args, lists)
        best, alts, how = advise(lists, table, pos, args.top,
                                 getattr(args, "strategy", None) or "auto")
        out.update(tuples=pos.tuples, best=best, alternatives=alts, status=how)
    out["tuples_exact"] = len(pos.open) <= 8  # above: the product of the sizes, a bound
    if args.json:
        print(json.dumps(out))
        return 0
    lines = [f"position {pos} ({args.boards} boards, max {variant.max_guesses or 'no cap'}): "
             + ("every board solved" if pos.done else counted(out["tuples"], COMBINATION)
                if out["tuples_exact"] else f"at most {counted(out['tuples'], COMBINATION)} "
                "(the product of the boards' candidates; counted exactly up to 8 open boards)"),
             *board_lines(pos)]
    b = out["best"]
    if pos.done:
        pass
    elif b is None:
        lines.append(f"no strategy solves every board within the cap of {variant.max_guesses}")
    elif b["status"] == Status.EXACT:
        lines.append(f"best: {b['guess']}  total {counted(b['total'], 'guess', 'guesses')} over "
                     f"{counted(out['tuples'], COMBINATION)} ({b['average']:.4f} more guesses "
                     f"on average, worst {b['worst']}), exact")
    elif "why" in b:  # a board with one candidate left: its answer now
        lines.append(f"suggested: {b['guess']} ({b['why']}: its answer now)")
    else:
        measure = next(x for x in b if x not in ("guess", "status", "candidate"))
        lines.append(f"suggested: {b['guess']}, {RANKED_BY[measure]} (not proven best)")
        for a in [b, *out["alternatives"]]:
            lines.append(f"  {a['guess']:<10} {SHOWN[measure](a[measure])}"
                         + ("  (could be an answer)" if a.get("candidate") else ""))
    print(fit_lines("\n".join(lines)))
    return 0


# ---- play ---------------------------------------------------------------------------

def play_boards(args) -> int:

    from ..errors import PatternError
    from ..game.boards import board_lines, tiles
    from ..game.boards_next import advise
    from ..progress import ask as read_line
    from ..progress import fit

    player_lists(args)  # as next --boards
    lists, variant, pos = _setup(args)
    k = args.boards
    answers = None
    if args.random:
        import random

        answers = tuple(random.Random(args.seed).sample(list(lists.answers), k))
    elif args.answer:
        words = [w.strip().lower() for w in args.answer.split(",")]
        if len(words) != k:
            raise UsageError(f"--answer: {len(words)} word(s) for {k} boards (give "
                             f"{k}, comma-separated)")
        for w in words:
            if w not in lists.answer_index:
                raise UsageError(f"--answer: {w!r} is not in the answer list")
        if len(set(words)) != k:
            raise UsageError("--answer: the boards' answers must all differ")
        answers = tuple(words)
    if args.opener:
        pos.check_guess(args.opener)
    table = _table(args, lists)
    tty = sys.stdin.isatty()
    auto = answers is not None and not tty
    cap = variant.max_guesses
    print("\n".join(fit(  # broken between phrases: 'GUES / S' at 120 columns before
        f"{k} boards, {len(lists.answers):,} answers, max {cap or 'no cap'} guesses; "
        + ("the feedback is computed" if answers else
           f"type the {k} feedbacks the game showed (F1/F2/..., '-' for a solved board), "
           "or GUESS F1/F2/... for your own guess") + "; q quits")), flush=True)
    while not pos.done:
        if pos.guesses_made == 0 and args.opener:
            suggestion = lists.guesses[lists.guess_id(args.opener)]
        else:
            best, _alts, how = advise(lists, table, pos, 0, "auto", fallback=True)
            suggestion = best["guess"] if best else None
        n = pos.guesses_made + 1
        if auto:
            line = ""
        else:
            try:
                line = read_line(f"guess {n} (Enter = {suggestion}): ").strip()
            except EOFError:
                print()
                raise UsageError("play: the input ended before the game was over (type q "
                                 "to quit)") from None
        if line.lower() in ("q", "quit"):
            print("quit")
            return 0
        parts = line.split()
        word = suggestion
        if answers is not None:
            if parts:
                word = parts[0]
            if word is None:
                raise UsageError(f"{pos}: no strategy solves every board within the cap")
            try:
                codes = pos.feedback(lists.guesses[pos.check_guess(word)], answers)
            except UsageError as exc:
                print(exc)
                continue
        else:
            if len(parts) == 2:
                word, fb = parts
            elif len(parts) == 1:
                fb = parts[0]
            else:
                print(f"type F1/F2/... ({k} feedbacks) or GUESS F1/F2/...")
                continue
            try:
                codes = pos.parse_codes(fb)
            except (UsageError, PatternError) as exc:
                print(exc)
                continue
        try:
            pos = pos.play(word, codes, check_cap=False)
        except UsageError as exc:
            print(exc)
            continue
        print("\n".join(_tile_rows(f"guess {n}: {pos.history[-1][0].upper()}  ",
                                   tiles(pos, n))), flush=True)
        if not pos.done:
            print("\n".join(board_lines(pos)), flush=True)
    over = cap and pos.guesses_made > cap
    print(f"every board solved in {pos.guesses_made} guesses"
          + (f", {pos.guesses_made - cap} over the cap of {cap}" if over else ""))
    return 0


def _tile_rows(head: str, squares: str) -> list[str]:
    """'guess 3: CRANE  ' and the boards' squares on one line when they fit the
    terminal, else the squares in rows of as many boards as fit, under the head
    (16 and 32 boards take 200 and 400 columns)."""
    from ..progress import columns, width

    limit = width()
    if columns(head + squares) <= limit:
        return [head + squares]
    cells = squares.split("  ")
    per = max(1, limit // (max(columns(c) for c in cells) + 2))  # the widest board
    return [head.rstrip()] + ["  " + "  ".join(cells[i:i + per])
                              for i in range(0, len(cells), per)]


# ---- simulate and compare -----------------------------------------------------------

def _sims(args, lists, variant, start, names, games: int):
    from ..game.boards import make_boards_strategy, sample_tuples, simulate_boards
    from ..game.boards_exact import EXACT_TUPLES

    table = _table(args, lists)
    exact = None
    if "optimal" in names:
        from ..game.boards_exact import check_size

        check_size(len(lists.answers), args.boards)
        exact = _exact(args, lists, table, variant.max_guesses)
    strategies = [make_boards_strategy(n, table, lists, exact) for n in names]
    opener = None
    if args.opener is not None:
        opener = lists.guesses[start.check_guess(args.opener)]
    tuples, sampled, n_tuples = sample_tuples(lists, args.boards, games, args.seed)
    optimum = None
    if opener and n_tuples <= EXACT_TUPLES and not sampled and exact is not None:
        r = exact.solve(opener)
        optimum = r["average"]
    from ..progress import Progress

    progress = Progress("simulate", sys.stderr if sys.stderr.isatty() else None, "games")
    for k, s in enumerate(strategies):
        def step(done: int, total: int, k: int = k, name: str = s.name) -> None:
            progress(k * total + done, len(strategies) * total, name)

        sim = simulate_boards(start, s, tuples, sampled, n_tuples, args.seed, opener, step)
        progress.clear()
        sim.optimum = optimum
        yield sim


def simulate_boards_cmd(args) -> int:
    from ..game.boards import strategy_names

    check_output("--csv", args.csv)
    check_output("--plot", args.plot, ".png")
    lists, variant, start = _setup(args)
    text = "entropy" if args.strategy is None else args.strategy
    names = [s.strip() for s in text.split(",") if s.strip()]
    if names == ["all"]:
        names = strategy_names()[:-1]
    if not names:
        raise UsageError("give at least one strategy")
    if args.position != "-":
        raise UsageError("--position is not offered with --boards (simulate plays from "
                         "the start)")
    sims = []
    for sim in _sims(args, lists, variant, start, names, args.games or DEFAULT_GAMES):
        sims.append(sim)
        print(json.dumps(sim.to_dict()) if args.json else sim.describe(), flush=True)
    write_simulations(args, sims, "answers", f"guesses to solve {args.boards} boards "
                      f"({len(lists.answers)} answers)", variant.max_guesses,
                      "games (answer tuples)")
    return 0


def compare_boards(args) -> int:
    from ..game.boards import HEURISTICS, PURE

    lists, variant, start = _setup(args)
    names = ([s.strip() for s in args.strategies.split(",") if s.strip()]
             if args.strategies else [*HEURISTICS, *(h + PURE for h in HEURISTICS)])
    openers = args.openers or [None]
    for w in openers:
        if w is not None:
            start.check_guess(w)
    rows = []
    for w in openers:
        args.opener = w
        if not args.json:
            print(f"{args.boards} boards from {w or 'each strategy’s own opener'}, "
                  f"max {variant.max_guesses or 'no cap'}, "
                  f"{args.games or DEFAULT_GAMES} games at most "
                  f"(seed {args.seed}):")
            print(f"  {'strategy':<16} {'games':>6} {'mean':>7} {'stdev':>7} {'over cap':>8}")
        for sim in _sims(args, lists, variant, start, names, args.games or DEFAULT_GAMES):
            d = sim.to_dict()
            rows.append(d)
            if args.json:
                print(json.dumps(d), flush=True)
            else:
                print(f"  {sim.strategy:<16} {len(sim.games):>6} {sim.mean:>7.4f} "
                      f"{sim.stdev:>7.4f} {sim.failures:>8}", flush=True)
    return 0
