"""The variants of issue 18 behind the usual commands: the adversary (--adversary on
solve, next and play) and several boards (--boards K on solve, next, play, simulate
and compare). solve.py and game.py register the options and hand over here."""

from __future__ import annotations

import json
import sys

from ..errors import UsageError
from ..plural import counted
from ..progress import ask as read_line
from ..progress import fit
from ..status import Status
from ..table import get_table
from .common import load_lists, player_lists
from .flags import flag


def add_adversary(p, what: str) -> None:
    p.add_argument("--adversary", action="store_true",
                   help=f"against the adversary (Absurdle): {what}; --max-guesses bounds "
                   "the search (0: no bound)")


def _adversary_checks(args) -> None:
    if args.mode != "easy":
        raise UsageError(f"--adversary is played in easy mode only (not --mode {args.mode})")
    if getattr(args, "objective", "expected") != "expected":
        raise UsageError("--objective does not apply to --adversary (the adversary's value "
                         "is already a worst case: the fewest guesses)")
    if getattr(args, "beam", None):
        raise UsageError("--beam does not apply to --adversary (its search is exact)")
    if (getattr(args, "boards", None) or 1) != 1:
        raise UsageError("--adversary plays one board (not --boards "
                         f"{args.boards})")
    if getattr(args, "store", None) or getattr(args, "book", None):
        raise UsageError("--adversary takes no --store or --book (they hold the expected "
                         "objective's values)")


def _adversary(args):
    from ..game.adversary import Adversary

    _adversary_checks(args)
    lists = load_lists(args)
    table, _ = get_table(lists, args.backend, args.cache_dir)
    return lists, Adversary(lists, table)


def _limit(args, lists) -> int:
    return args.max_guesses or len(lists.answers)


def solve_adversary(args) -> int:
    from ..game.adversary import AdversaryPosition

    lists = load_lists(args)
    for w in args.words:
        lists.guess_id(w)  # every opener checked before any search
    lists, adv = _adversary(args)
    start = AdversaryPosition.start(adv)
    for w in args.words:
        r = adv.analyse(start, _limit(args, lists), first=w)
        word = lists.guesses[lists.guess_id(w)]
        if args.json:
            d = {"opener": word, "answers": len(lists.answers), "adversary": True,
                 "max_guesses": args.max_guesses, **r.to_dict()}
            for k in ("position", "candidates", "best", "alternatives", "total_guesses"):
                d.pop(k)
            print(json.dumps(d), flush=True)
        elif r.status == Status.EXACT:
            print(f"{word} exact: beats the adversary in {r.guesses} guesses: "
                  f"{' '.join(r.line.text())} [{counted(r.nodes, 'node')}, {r.seconds:.2f} s]",
                  flush=True)
        else:
            print(f"{word} lower_bound: no win within {r.limit} guesses, so at least "
                  f"{r.guesses} [{counted(r.nodes, 'node')}, {r.seconds:.2f} s]", flush=True)
    return 0


def next_adversary(args) -> int:
    from ..game.adversary import AdversaryPosition

    player_lists(args)  # a player command: today's lists unless others are named
    lists, adv = _adversary(args)
    pos = AdversaryPosition.parse(args.position, adv)
    limit = len(pos.members)  # always enough: every useful guess removes an answer
    if args.max_guesses:
        limit = args.max_guesses - len(pos.history)
        if limit < 1 and not pos.won:
            raise UsageError(f"{pos}: {len(pos.history)} guesses made, the search bound "
                             f"--max-guesses {args.max_guesses} leaves none")
    r = adv.analyse(pos, limit, top=args.top)
    if args.json:
        print(json.dumps(r.to_dict()))
    else:
        from ..game.adversary import RULE_WORDS
        from ..progress import fit_lines

        print(fit_lines(f"{r.describe(flag)}\nthe adversary answers with {RULE_WORDS}"))
    return 0


def play_adversary(args) -> int:
    from ..game.adversary import AdversaryGame

    if args.answer or args.random:
        raise UsageError("--adversary has no hidden answer (it keeps every answer it can): "
                         "drop --answer/--random")
    if args.opener:
        raise UsageError("--adversary suggests every guess itself: drop --opener")
    player_lists(args)  # as next --adversary
    lists, adv = _adversary(args)

    def say(line: str) -> None:  # broken between phrases, not wrapped inside a word;
        # a bad input's reason ('! ...') stays the one line it is (issue 7)
        print(line if line.startswith("! ") else "\n".join(fit(line)), flush=True)

    tty = sys.stdin.isatty()

    def ask(prompt: str):
        try:
            return read_line(prompt)
        except EOFError:
            print()
            if not tty:
                raise UsageError("play: the input ended before the game was over (type q "
                                 "to quit)") from None
            return None

    AdversaryGame(adv, say, ask, limit=_limit(args, lists)).run()
    return 0
