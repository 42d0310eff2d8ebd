"""The adversary (Absurdle): the fewest guesses that beat it, exactly.

The game. No answer is fixed. After each guess the adversary splits the answers
still possible by the feedback each would give and keeps the largest class (it
"prunes its list as little as possible", in the words of Absurdle's author). The
player wins with the guess that is the only answer left.

The tie rule. Absurdle's published description (qntm.org/absurdle and its FAQ)
says that the largest class is kept, and that this is not necessarily the reply
with the fewest yellows or greens; we found no public statement of how it breaks
ties between classes of equal size. Ours, stated: among the largest classes, the
one whose feedback has the fewest greens, then the fewest yellows, then the lowest
pattern code (solver.feedback: letter i weighs 3**i, grey 0, yellow 1, green 2).
All green has the most greens, so the adversary concedes the win only when the
guess is the one answer left. Values on other tie rules can differ.

The search. The adversary is deterministic, so a guess sequence meets one reply
each and the game is a shortest path: the value of a set S is 1 when S is one
answer, else 1 + the least value of a kept class over the guesses that shrink S.
`win(S, d)` asks whether some line wins within d guesses, by iterative deepening
from a lower bound: a guess splits a set into at most K classes (K: the most
classes any guess makes on the whole answer list), so the kept class of n answers
has at least ceil(n / K), and a set needs at least `min_guesses(n)` guesses. Two
guesses from S win iff one guess separates S (gives every answer its own
feedback), possible only when |S| <= K; three guesses run in one compiled kernel
(kernels/adversary_jit.win3); deeper levels try guesses in Python, those whose kept class
is smallest first, and remember the (set, depth) pairs that failed.

Known lines. On today's lists (3,158 answers, 14,855 guesses) the search rules
out a win within 3 guesses in half a second, but a win within 4 was found only
after 27 first guesses of 15 to 30 s each (about 10 minutes). solver/data/
adversary-lines.json ships winning lines found once; `known_lines` replays them
on the lists in use, and a line spares the search at its own length only, so every
shorter depth is still proved impossible here and the value stays exact.

Easy mode only (the guesses are every word of the guess list).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .. import stops
from ..errors import PatternError, UsageError, quote
from ..feedback import colours_of, to_text
from ..feedback import parse as parse_pattern
from ..plural import counted
from ..status import Status
from ..variant import Mode, Variant
from ..words import WordLists

LINES_FILE = "adversary-lines.json"  # known winning lines, in solver/data
TIE_RULE = ("the largest class; ties: the fewest greens, then the fewest yellows, then "
            "the lowest pattern code")
# the same rule in a player's words (the terminal game, next --adversary): what the
# adversary answers with
RULE_WORDS = ("the colours that keep the most answers possible; on a tie, the fewest "
              "greens, then the fewest yellows, then a fixed order of the colours")
DEFAULT_DEPTH = 8  # guesses searched at most unless told otherwise


def priorities(length: int) -> np.ndarray:
    """int64 [3**length]: the adversary's order among classes of equal size (smaller
    first): greens, then yellows, then the code."""
    n = 3**length
    out = np.empty(n, np.int64)
    for code in range(n):
        cols = colours_of(code, length)
        out[code] = (cols.count(2) * (length + 1) + cols.count(1)) * n + code
    return out


def reply(table: np.ndarray, prio: np.ndarray, gid: int, members: np.ndarray) -> int:
    """The feedback the adversary gives to guess `gid` over the answers `members`."""
    from ..kernels.adversary_jit import replies

    size = np.zeros(1, np.int64)
    pat = np.zeros(1, np.int64)
    replies(table, np.ascontiguousarray(members, np.int32), np.array([gid], np.int64), prio,
            size, pat)
    return int(pat[0])


def shipped_lines() -> list[list[str]]:
    """The winning lines of solver/data/adversary-lines.json, as words (none when
    the file is missing or unreadable)."""
    import json
    from importlib import resources

    try:
        text = resources.files("solver").joinpath("data", LINES_FILE).read_text()
        return [list(entry["guesses"]) for entry in json.loads(text)["lines"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


@dataclass
class Line:
    """A winning line: the guesses and the adversary's replies, the last all green."""

    steps: list[tuple[str, int]]

    @property
    def guesses(self) -> int:
        return len(self.steps)

    def text(self) -> list[str]:
        return [f"{g}:{to_text(p, len(g))}" for g, p in self.steps]


@dataclass
class AdversaryResult:
    """The fewest guesses that beat the adversary from a position (counting the
    guesses still to make, the winning one included), with one winning line.
    status exact; or lower_bound when no line was found within `limit` guesses (then
    `guesses` is limit + 1, a proven lower bound, and `line` is None)."""

    position: str
    candidates: int
    status: str
    guesses: int | None
    line: Line | None
    first: str | None  # the first guess of the line (None: the position is won)
    seconds: float
    cpu_seconds: float
    nodes: int
    limit: int
    made: int = 0  # guesses already made at the position
    alternatives: list[tuple[str, int]] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = {
            "position": self.position,
            "candidates": self.candidates,
            "status": self.status,
            "guesses": self.guesses,
            "total_guesses": None if self.guesses is None else self.made + self.guesses,
            "best": self.first,
            "line": None if self.line is None else self.line.text(),
            "alternatives": [{"guess": g, "guesses": v} for g, v in self.alternatives],
            "tie_rule": TIE_RULE,
            "seconds": round(self.seconds, 4),
            "cpu_seconds": round(self.cpu_seconds, 4),
            "nodes": self.nodes,
        }
        return d

    def describe(self, param: Callable[[str], str] = str) -> str:
        """In words; `param`: how a parameter is named (the CLI: its flag)."""
        n = self.candidates
        head = f"position {self.position} against the adversary: {counted(n, 'candidate')}"
        if self.status == Status.LOWER_BOUND:
            return (f"{head}\nno win within {self.limit} more guesses: at least "
                    f"{self.guesses} more needed (proven; raise {param('max_guesses')} to "
                    f"search deeper) [{self.seconds:.2f} s]")
        if self.guesses == 0:
            return f"{head}\nwon"
        assert self.guesses is not None and self.line is not None  # a win was found
        lines = [head,
                 f"fewest guesses that beat it: {self.guesses} more (exact; the game ends at "
                 f"guess {self.made + self.guesses}) [{self.seconds:.2f} s]",
                 "winning line: " + " ".join(self.line.text())]
        if self.alternatives:
            lines.append("other guesses that win as fast: "
                         + " ".join(g for g, _v in self.alternatives))
        return "\n".join(lines)


class Adversary:
    """Exact search against the adversary on `lists` (easy mode). One object keeps
    its memo of failed (set, depth) pairs across calls."""

    def __init__(self, lists: WordLists, table: np.ndarray | None = None, cache_dir=None):
        from ..table import get_table

        self.lists = lists
        self.variant = Variant.of(lists, Mode.EASY, 0, adversary=True)
        if table is None:
            table, _ = get_table(lists, "auto", cache_dir)
        self.table = np.ascontiguousarray(table)
        self.prio = priorities(lists.length)
        self.green = self.variant.all_green
        n_p = self.variant.n_patterns
        classes = np.array([len(np.unique(r)) for r in self.table], np.int64)
        # most classes a guess makes, hence the largest set one guess can separate
        self.kmax = int(classes.max())
        # guesses with the most classes on all answers first: a separator, when
        # there is one, is met early
        self.gids = np.argsort(-classes, kind="stable").astype(np.int64)
        self.n_patterns = n_p
        self.failed: set[tuple[bytes, int]] = set()
        self.nodes = 0
        self._stop = False
        self._stop_flag = np.zeros(1, np.int64)  # what win3 sees of request_stop
        self._known: dict[bytes, list[list[int]]] | None = None  # see known_lines
        stops.register(self)  # a Ctrl-C stops it mid-kernel (solver/stops.py)

    # ---- the rules ------------------------------------------------------------

    def reply(self, gid: int, members: np.ndarray) -> int:
        return reply(self.table, self.prio, gid, members)

    def play(self, gid: int, members: np.ndarray) -> tuple[int, np.ndarray]:
        """(the adversary's feedback, the answers it keeps) after guess gid."""
        p = self.reply(gid, members)
        return p, members[self.table[gid, members] == p]

    def min_guesses(self, n: int) -> int:
        """A lower bound on the guesses a set of n answers needs (the winning one
        included): each guess keeps at least ceil(n / kmax) of them."""
        d = 1
        while n > 1:
            n = -(-n // self.kmax)
            d += 1
        return d

    # ---- stopping -------------------------------------------------------------

    def request_stop(self) -> None:
        """Cut the search in progress short, from another thread: it raises Stopped
        at its next node (a three-guess kernel at its next first guess), and so
        does every later search until clear_stop. The memo keeps only proofs."""
        self._stop = True
        self._stop_flag[0] = 1  # the three-guess kernel looks at it for each first guess

    def clear_stop(self) -> None:
        self._stop = False
        self._stop_flag[0] = 0

    def _check_stop(self) -> None:
        if self._stop:
            from ..search.engine import Stopped

            raise Stopped("the adversary search was asked to stop")

    # ---- known lines -----------------------------------------------------------

    def known_lines(self, members: np.ndarray) -> list[list[int]]:
        """Winning lines known from `members` (guess ids, shortest first): the
        shipped lines of solver/data/adversary-lines.json that win on these lists,
        replayed here under the tie rule, and every tail of them from the set it
        reaches. A line only saves searching for a win of its length: the search
        still proves each shorter one impossible."""
        if self._known is None:
            self._known = self._load_known()
        return self._known.get(np.ascontiguousarray(members, np.int32).tobytes(), [])

    def _load_known(self) -> dict[bytes, list[list[int]]]:
        lines = shipped_lines()
        index = self.lists.guess_index
        start = np.arange(len(self.lists.answers), dtype=np.int32)
        known: dict[bytes, list[list[int]]] = {}
        for words in lines:
            if not words or not all(w in index for w in words):
                continue  # another problem's line
            gids = [index[w] for w in words]
            members, sets = start, []
            for g in gids:
                sets.append(members)
                p, members = self.play(g, members)
            if p != self.green or len(members) != 1:
                continue  # it does not win on these lists
            for k, m in enumerate(sets):
                known.setdefault(m.tobytes(), []).append(gids[k:])
        for v in known.values():
            v.sort(key=len)
        return known

    # ---- the search -----------------------------------------------------------

    def win(self, members: np.ndarray, d: int) -> list[int] | None:
        """Guess ids of a line that wins within d guesses from `members`, or None."""
        from ..kernels.adversary_jit import separator, win3

        n = len(members)
        if n == 1:
            return [int(self.lists.answer_guess_ids[members[0]])] if d >= 1 else None
        if d <= 1 or self.min_guesses(n) > d:
            return None
        for known in self.known_lines(members):
            if len(known) <= d:
                return list(known)
        key = (members.tobytes(), d)
        if key in self.failed:
            return None
        self._check_stop()
        self.nodes += 1
        if d == 2:
            if n <= self.kmax:
                k = separator(self.table, members, self.gids, self.n_patterns)
                if k >= 0:
                    g = int(self.gids[k])
                    _p, rest = self.play(g, members)
                    return [g, int(self.lists.answer_guess_ids[rest[0]])]
            self.failed.add(key)
            return None
        if d == 3:
            cnt = np.zeros(1, np.int64)
            k, h = win3(self.table, members, self.gids, self.prio, self.kmax, cnt,
                        self._stop_flag)
            self.nodes += int(cnt[0])
            self._check_stop()  # a stopped win3 says (-1, -1): no failure to record
            if k >= 0:
                g = int(self.gids[k])
                _p, rest = self.play(g, members)
                if h < 0:
                    return [g, int(self.lists.answer_guess_ids[rest[0]])]
                g2 = int(self.gids[h])
                _p, last = self.play(g2, rest)
                return [g, g2, int(self.lists.answer_guess_ids[last[0]])]
            self.failed.add(key)
            return None
        for g in self.ordered(members):
            _p, rest = self.play(g, members)
            line = self.win(rest, d - 1)
            if line is not None:
                return [g, *line]
        self.failed.add(key)
        return None

    def ordered(self, members: np.ndarray) -> list[int]:
        """The guesses that shrink `members`, smallest kept class first (ties: the
        order of self.gids)."""
        from ..kernels.adversary_jit import replies

        size = np.zeros(len(self.gids), np.int64)
        pat = np.zeros(len(self.gids), np.int64)
        replies(self.table, members, self.gids, self.prio, size, pat)
        order = np.argsort(size, kind="stable")
        order = order[size[order] < len(members)]
        return [int(self.gids[k]) for k in order]

    def value(self, members: np.ndarray, limit: int, first: int | None = None,
              progress: Callable[[int], None] | None = None):
        """(guesses, line of guess ids) of the fastest win from `members` (with the
        first guess forced to `first` when given), by iterative deepening; (None,
        None) when there is none within `limit` guesses. `progress(d)` is called
        before each depth d is searched (every smaller one is then ruled out); it
        may raise to stop the search."""
        members = np.ascontiguousarray(members, np.int32)
        if first is not None:
            _p, rest = self.play(first, members)
            if len(members) == 1 and self.lists.answer_guess_ids[members[0]] == first:
                return 1, [first]
            for d in range(1 + self.min_guesses(len(rest)), limit + 1):
                if progress is not None:
                    progress(d)
                line = self.win(rest, d - 1)
                if line is not None:
                    return d, [first, *line]
            return None, None
        for d in range(self.min_guesses(len(members)), limit + 1):
            if progress is not None:
                progress(d)
            line = self.win(members, d)
            if line is not None:
                return d, line
        return None, None

    def line_steps(self, members: np.ndarray, line: list[int]) -> list[tuple[str, int]]:
        """Replay a line of guess ids: (guess, the adversary's feedback) per step."""
        steps = []
        for g in line:
            p, members = self.play(g, members)
            steps.append((self.lists.guesses[g], p))
        if not steps or steps[-1][1] != self.green:
            raise AssertionError("the line does not win")  # pragma: no cover
        return steps

    def analyse(self, pos: AdversaryPosition, limit: int = DEFAULT_DEPTH, top: int = 0,
                first: str | None = None,
                progress: Callable[[int], None] | None = None) -> AdversaryResult:
        """The fewest further guesses that beat the adversary from `pos` (or after
        guessing `first` there), one winning line, and up to `top` other first
        guesses that win as fast. `progress`: as for `value`."""
        t0, c0 = time.perf_counter(), time.process_time()
        n0 = self.nodes
        members = pos.members
        made = len(pos.history)
        if pos.won:
            return AdversaryResult(str(pos), 1, Status.EXACT, 0, None, None, 0.0, 0.0, 0, limit,
                                   made)
        fid = None if first is None else pos.check_guess(first)
        d, line = self.value(members, limit, fid, progress)
        alts: list[tuple[str, int]] = []
        if line is not None and top and fid is None:
            taken = {line[0]}
            for known in self.known_lines(members):  # other first guesses known to win
                if len(alts) < top and len(known) == d and known[0] not in taken:
                    taken.add(known[0])
                    alts.append((self.lists.guesses[known[0]], d))
            for g in self.ordered(members) if len(alts) < top else []:
                if len(alts) >= top:
                    break
                if g in taken:
                    continue
                _p, rest = self.play(g, members)
                if self.win(rest, d - 1) is not None:
                    alts.append((self.lists.guesses[g], d))
        res = AdversaryResult(
            str(pos), len(members), Status.EXACT if line is not None else Status.LOWER_BOUND,
            d if line is not None else limit + 1,
            None if line is None else Line(self.line_steps(members, line)),
            None if line is None else self.lists.guesses[line[0]],
            time.perf_counter() - t0, time.process_time() - c0, self.nodes - n0, limit, made,
            alts)
        return res


@dataclass(frozen=True)
class AdversaryPosition:
    """Guesses played against the adversary, with its replies; `members` the answers
    it still keeps. Text: `salet,courd` (replies computed) or `salet:BBBBB,...`
    (replies checked), `-` for the start."""

    adversary: Adversary
    history: tuple[tuple[str, int], ...]
    members: np.ndarray = field(repr=False, compare=False)

    @classmethod
    def start(cls, adversary: Adversary) -> AdversaryPosition:
        n = len(adversary.lists.answers)
        return cls(adversary, (), np.arange(n, dtype=np.int32))

    @classmethod
    def parse(cls, text: str, adversary: Adversary) -> AdversaryPosition:
        import re

        pos = cls.start(adversary)
        s = text.strip()
        if s in ("", "-"):
            return pos
        for step in (t for t in re.split(r"[,\s]+", s) if t):
            word, sep, pat = step.partition(":")
            if not word or (sep and not pat):
                raise UsageError(f"position step {quote(step)} must be GUESS or GUESS:PATTERN")
            code = None
            if sep:
                try:
                    code = parse_pattern(pat, adversary.lists.length)
                except PatternError as exc:
                    raise PatternError(f"position step {quote(step)}: {exc}") from None
            pos = pos.play(word, code)
        return pos

    @property
    def won(self) -> bool:
        return bool(self.history) and self.history[-1][1] == self.adversary.green

    @property
    def candidates(self) -> list[str]:
        return [self.adversary.lists.answers[i] for i in self.members]

    def check_guess(self, word: str) -> int:
        from ..errors import WordListError

        try:
            return self.adversary.lists.guess_id(word)
        except WordListError as exc:
            raise UsageError(str(exc)) from None

    def play(self, word: str, code: int | None = None) -> AdversaryPosition:
        """The position after guessing `word`; `code`, when given, must be the
        adversary's reply (UsageError saying which it is otherwise)."""
        adv = self.adversary
        gid = self.check_guess(word)
        w = adv.lists.guesses[gid]
        n = len(self.history) + 1
        if self.won:
            raise UsageError(f"guess {n} ({w}): the game was already won at guess {n - 1}")
        p, rest = adv.play(gid, self.members)
        if code is not None and code != p:
            L = adv.lists.length
            raise UsageError(f"guess {n} ({w}): the adversary answers {to_text(p, L)}, not "
                             f"{to_text(code, L)} (it answers with {RULE_WORDS})")
        return AdversaryPosition(adv, self.history + ((w, p),), rest)

    def __str__(self) -> str:
        if not self.history:
            return "-"
        return ",".join(f"{g}:{to_text(p, len(g))}" for g, p in self.history)


class AdversaryGame:
    """A terminal game against the adversary, written against two callables (ask
    for a line, say a line) like play.Game. Each turn suggests the guess of a
    fastest win (exact, searched to `limit` guesses); Enter takes it, q quits."""

    def __init__(self, adversary: Adversary, say, ask=None, limit: int = DEFAULT_DEPTH,
                 hints: bool = True):
        self.adv = adversary
        self.say = say
        self.ask = ask
        self.limit = limit
        self.hints = hints
        self.pos = AdversaryPosition.start(adversary)

    def hint(self) -> str | None:
        if not self.hints:
            return None
        pos = self.pos
        res = self.adv.analyse(pos, self.limit)
        if res.first is None:
            return None
        n = res.candidates
        self.say(f"{counted(n, 'answer')} still possible; the fastest win takes "
                 f"{res.guesses} more guess{'es' if res.guesses != 1 else ''} (exact), "
                 f"starting with {res.first.upper()}")
        return res.first

    def run(self) -> int:
        """Play to the end: the number of guesses that won (0 when the player quit)."""
        self.say(f"after each guess the adversary answers with {RULE_WORDS}; you win when "
                 "your guess is the only answer left")
        while True:
            suggestion = self.hint()
            k = len(self.pos.history) + 1
            # the form of the other games' prompt: 'guess 2 (Enter = acold; q quits): '
            prompt = f"guess {k} (" + (f"Enter = {suggestion}; " if suggestion else "") + \
                "q quits): "
            line = self.ask(prompt) if self.ask else None
            if line is None or line.strip().lower() in ("q", "quit", "exit"):
                self.say("quit")
                return 0
            word = line.strip() or suggestion
            if not word:
                self.say("! type a guess")
                continue
            try:
                self.pos = self.pos.play(word)
            except UsageError as exc:
                self.say(f"! {exc}")
                continue
            g, p = self.pos.history[-1]
            from ..feedback import to_squares

            L = len(g)
            n = len(self.pos.members)
            self.say(f"guess {k}: {g.upper()}  {to_text(p, L)}  {to_squares(p, L)}  "
                     f"({counted(n, 'answer')} left)")
            if self.pos.won:
                self.say(f"won: {g.upper()} in {k} guess{'es' if k != 1 else ''}")
                return k
