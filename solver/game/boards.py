"""Several boards at once (Dordle, Quordle, Octordle, Sedecordle, ...): positions,
the heuristics behind the strategy interface, and simulation.

The game (Variant.boards = k). k distinct hidden answers, one per board, drawn
uniformly from the answer list: every ordered k-tuple of distinct answers is
equally likely. Each guess goes to every board still open and shows one feedback
per open board; a board is solved when its answer is guessed. The cap is k + 5
guesses unless told otherwise. Value of a strategy: the expected number of guesses
until every board is solved (over the tuples), failures beyond the cap counted by
playing on and reported apart. Easy mode only.

What a position knows. The tuples still possible are the tuples of distinct
answers with each board's answer in that board's candidates; a solved board's word
is removed from the other boards' candidates, and so is the word of a board with
one candidate left (that board's answer is known). `tuples` counts them exactly
(inclusion-exclusion over the ways boards can share a word).

Heuristics (one-step, on the joint feedback of the open boards). The boards are
scored as if independent (their candidates drawn apart; the distinct-answers
correction is ignored here, and only here): the joint feedback's entropy is the sum
of the boards' entropies; the expected number of tuples left is the product of the
boards' expected class sizes; the largest joint class is the product of the
boards' largest classes. `entropy` maximises the first, `expected` and `minimax`
minimise the others (compared as sums of logarithms). Each guesses a board's answer
as soon as that board has one candidate left (the lowest such board first), the
rule players use; NAME-pure does not (it still ends the game, since when every open
board has one candidate only those guesses are useful). Ties: a guess that is a
candidate of some open board, then the earliest in the guess list; a guess that
splits no open board and solves none is never chosen. The exact optimum of small
instances is in boards_exact.py.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import Param, PatternError, UsageError, WordListError, quote
from ..feedback import parse as parse_pattern
from ..feedback import score, to_squares, to_text
from ..plural import counted
from ..variant import Mode, Variant
from ..words import WordLists
from .measures import ENTROPY, HIT, PATTERNS, SUMSQ, WORST, scan

MAX_BOARDS = 32
HEURISTICS = ("entropy", "expected", "minimax")
PURE = "-pure"


def default_cap(boards: int) -> int:
    """Dordle 7, Quordle 9, Octordle 13, Sedecordle 21: boards + 5."""
    return boards + 5


def boards_variant(lists, boards: int, max_guesses: int | None = None) -> Variant:
    """The Variant of a k-board game on `lists` (easy mode; cap k + 5 by default)."""
    if not 1 <= boards <= MAX_BOARDS:
        raise UsageError(Param("boards"), f" must be from 1 to {MAX_BOARDS} (got {boards})")
    if boards > len(lists.answers):
        raise UsageError(f"{boards} boards need {boards} distinct answers; the list has "
                         f"{len(lists.answers)}")
    cap = default_cap(boards) if max_guesses is None else max_guesses
    return Variant.of(lists, Mode.EASY, cap, boards=boards)


# ---- counting tuples -------------------------------------------------------------

def _set_partitions(items: list[int]):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _set_partitions(rest):
        for i in range(len(part)):
            yield part[:i] + [[first, *part[i]]] + part[i + 1:]
        yield [[first], *part]


_FACT = [math.factorial(i) for i in range(MAX_BOARDS + 1)]


def count_tuples(sets) -> int:
    """The number of tuples of distinct answers, one from each set (inclusion-
    exclusion over the set partitions of the boards: a block is boards forced to
    share one word, with weight (-1)^(|B|-1) (|B|-1)!). Exact; up to 8 sets (4140
    partitions), else a product of the sizes, an upper bound (the callers say so)."""
    sets = [frozenset(int(x) for x in s) for s in sets]
    if len(sets) == 0:
        return 1
    if len(sets) == 1:
        return len(sets[0])
    if len(sets) > 8:
        return math.prod(len(s) for s in sets)
    total = 0
    for part in _set_partitions(list(range(len(sets)))):
        term = 1
        for block in part:
            common = frozenset.intersection(*(sets[i] for i in block))
            term *= len(common) * (-1) ** (len(block) - 1) * _FACT[len(block) - 1]
            if term == 0:
                break
        total += term
    return total


# ---- positions --------------------------------------------------------------------

@dataclass(frozen=True)
class BoardsPosition:
    """Guesses played on k boards with each open board's feedback. `members[i]`: the
    answer ids board i may still have (its word alone once solved); `solved[i]`: the
    guess number that solved board i (None while open)."""

    lists: WordLists
    variant: Variant
    history: tuple[tuple[str, tuple[int | None, ...]], ...]
    members: tuple[np.ndarray, ...] = field(repr=False, compare=False)
    solved: tuple[int | None, ...] = ()

    @classmethod
    def start(cls, lists, variant: Variant) -> BoardsPosition:
        k = variant.boards
        allm = np.arange(len(lists.answers), dtype=np.int32)
        return cls(lists, variant, (), tuple(allm for _ in range(k)), (None,) * k)

    @classmethod
    def parse(cls, text: str, lists, variant: Variant) -> BoardsPosition:
        """Read `salet:BBBBB/BYBBG/GGGGG/BBBBB,crane:...`: per guess, one feedback per
        board separated by '/', '-' for a board solved earlier; '-' for the start."""
        pos = cls.start(lists, variant)
        s = text.strip()
        if s in ("", "-"):
            return pos
        k = variant.boards
        for step in (t for t in re.split(r"[,\s]+", s) if t):
            word, sep, pats = step.partition(":")
            if not sep or not word or not pats:
                raise UsageError(f"position step {quote(step)} must be GUESS:F1/F2/... with "
                                 f"{k} feedbacks (e.g. salet:" + "/".join(["BBYBG"] * min(k, 3))
                                 + ("/..." if k > 3 else "") + ")")
            codes = pos.parse_codes(pats, step)
            pos = pos.play(word, tuple(codes))
        return pos

    def parse_codes(self, pats: str, step: str | None = None) -> tuple[int | None, ...]:
        """One guess's feedbacks 'F1/F2/...' (one per board, '-' for a solved board)."""
        k = self.boards
        where = f"position step {quote(step)}" if step else f"feedback {quote(pats)}"
        parts = pats.split("/")
        if len(parts) != k:
            raise UsageError(f"{where}: {len(parts)} feedback(s) for {k} boards (one per "
                             "board, '/' between them, '-' for a solved board)")
        codes: list[int | None] = []
        for i, t in enumerate(parts):
            if t.strip() == "-":
                codes.append(None)
                continue
            try:
                codes.append(parse_pattern(t, self.lists.length))
            except PatternError as exc:
                raise PatternError(f"{where}, board {i + 1}: {exc}") from None
        return tuple(codes)

    # ---- views ---------------------------------------------------------------

    @property
    def boards(self) -> int:
        return self.variant.boards

    @property
    def open(self) -> list[int]:
        return [i for i in range(self.boards) if self.solved[i] is None]

    @property
    def done(self) -> bool:
        return all(s is not None for s in self.solved)

    @property
    def guesses_made(self) -> int:
        return len(self.history)

    @property
    def guesses_left(self) -> int | None:
        cap = self.variant.max_guesses
        return None if not cap else cap - len(self.history)

    def candidates(self, i: int) -> list[str]:
        return [self.lists.answers[a] for a in self.members[i]]

    @property
    def tuples(self) -> int:
        """Tuples of distinct answers for the open boards still possible (exact up to
        8 open boards, else the product of their sizes, an upper bound)."""
        return count_tuples([self.members[i] for i in self.open])

    def key(self) -> tuple:
        """What a one-step heuristic's choice depends on: the open boards' candidates
        (in board order) and the guesses made."""
        return tuple(self.members[i].tobytes() for i in self.open)

    def __str__(self) -> str:
        if not self.history:
            return "-"
        L = self.lists.length
        return ",".join(f"{g}:" + "/".join("-" if c is None else to_text(c, L) for c in codes)
                        for g, codes in self.history)

    # ---- moves ---------------------------------------------------------------

    def check_guess(self, word: str) -> int:
        try:
            return self.lists.guess_id(word)
        except WordListError as exc:
            raise UsageError(str(exc)) from None

    def feedback(self, word: str, answers: tuple[str, ...]) -> tuple[int | None, ...]:
        """Each open board's feedback to `word` when the answers are `answers`."""
        return tuple(None if self.solved[i] is not None else score(word, answers[i])
                     for i in range(self.boards))

    def play(self, word: str, codes: tuple[int | None, ...], check_cap: bool = True
             ) -> BoardsPosition:
        """The position after `word` with these feedbacks (None for solved boards).
        UsageError (one line) for a wrong number of feedbacks, a feedback on a solved
        board, a board no answer fits, answers that cannot all differ, or a guess
        past the cap (unless `check_cap` is False: simulations play on)."""
        gid = self.check_guess(word)
        w = self.lists.guesses[gid]
        n = len(self.history) + 1
        k = self.boards
        if self.done:
            raise UsageError(f"guess {n} ({w}): every board was already solved")
        if len(codes) != k:
            raise UsageError(f"guess {n} ({w}): {len(codes)} feedbacks for {k} boards")
        cap = self.variant.max_guesses
        if check_cap and cap and n > cap:
            raise UsageError(f"guess {n} ({w}): more guesses than the cap of {cap}")
        green = self.variant.all_green
        row = self.lists_table_row(gid)
        members = list(self.members)
        solved = list(self.solved)
        hit = None
        for i in range(k):
            c = codes[i]
            if solved[i] is not None:
                if c is not None:
                    raise UsageError(f"guess {n} ({w}): board {i + 1} was solved at guess "
                                     f"{solved[i]}; give '-' for it")
                continue
            if c is None:
                raise UsageError(f"guess {n} ({w}): board {i + 1} is open and needs a "
                                 "feedback ('-' is only for solved boards)")
            m = members[i][row[members[i]] == c]
            if len(m) == 0:
                raise UsageError(f"guess {n} ({w}): no answer fits board {i + 1} (check its "
                                 "feedback)")
            members[i] = m
            if c == green:
                if hit is not None:
                    raise UsageError(f"guess {n} ({w}): boards {hit + 1} and {i + 1} cannot "
                                     "both be solved by one word (the answers differ)")
                hit = i
                solved[i] = n
        members = _propagate(members, solved)
        for i in range(k):
            if len(members[i]) == 0:
                raise UsageError(f"guess {n} ({w}): no answer fits board {i + 1} once the "
                                 "other boards' known words are taken (the answers differ)")
        if not _distinct_possible([members[i] for i in range(k) if solved[i] is None]):
            raise UsageError(f"guess {n} ({w}): the open boards cannot all have different "
                             "answers (check the feedbacks)")
        pos = BoardsPosition(self.lists, self.variant, self.history + ((w, tuple(codes)),),
                             tuple(members), tuple(solved))
        if check_cap and cap and n == cap and not pos.done:
            raise UsageError(f"{pos}: all {cap} guesses are used and "
                             f"{len(pos.open)} board(s) are not solved")
        return pos

    def lists_table_row(self, gid: int) -> np.ndarray:
        """Feedback of guess gid against every answer (one row of the pattern table,
        computed by the feedback rule when no table is at hand)."""
        cache = _ROWS.setdefault(id(self.lists), (self.lists, {}))
        if cache[0] is not self.lists:
            cache = _ROWS[id(self.lists)] = (self.lists, {})
        rows = cache[1]
        if gid not in rows:
            from ..feedback import pattern_rows
            from ..words import encode_words

            rows[gid] = pattern_rows(np, encode_words([self.lists.guesses[gid]]),
                                     encode_words(self.lists.answers))[0]
            if len(rows) > 4096:
                rows.pop(next(iter(rows)))
        return rows[gid]


_ROWS: dict[int, tuple[object, dict[int, np.ndarray]]] = {}


def _propagate(members: list[np.ndarray], solved: list[int | None]) -> list[np.ndarray]:
    """Remove every known word (a solved board's, or an open board's only candidate)
    from the other boards' candidates, until nothing changes."""
    changed = True
    while changed:
        changed = False
        for i, m in enumerate(members):
            if len(m) != 1:
                continue
            a = m[0]
            for j in range(len(members)):
                if j != i and solved[j] is None and a in members[j]:
                    members[j] = members[j][members[j] != a]
                    changed = True
    return members


def _distinct_possible(sets: list[np.ndarray]) -> bool:
    """Whether the sets have a system of distinct representatives (a matching of
    every board to its own word: augmenting paths)."""
    owner: dict[int, int] = {}

    def augment(i: int, seen: set) -> bool:
        for a in sets[i].tolist():
            if a in seen:
                continue
            seen.add(a)
            if a not in owner or augment(owner[a], seen):
                owner[a] = i
                return True
        return False

    return all(augment(i, set()) for i in range(len(sets)))


# ---- heuristics -------------------------------------------------------------------

class BoardsStrategy:
    """Picks the next guess (a guess id) at a BoardsPosition."""

    name = "?"

    def choose(self, pos: BoardsPosition) -> int:  # pragma: no cover - interface
        raise NotImplementedError


def joint_scores(table: np.ndarray, pos: BoardsPosition, gids: np.ndarray, green: int
                 ) -> dict[str, np.ndarray]:
    """Per guess, the joint-feedback measures over the open boards (boards taken as
    independent, see the module docstring): entropy (bits, summed), log_expected
    (log of the expected number of tuples left), log_worst (log of the largest joint
    class), splits (open boards the guess splits), hits (open boards it may solve)."""
    ent = np.zeros(len(gids))
    log_exp = np.zeros(len(gids))
    log_worst = np.zeros(len(gids))
    splits = np.zeros(len(gids), np.int64)
    hits = np.zeros(len(gids), np.int64)
    for i in pos.open:
        m = pos.members[i]
        raw = scan(table, m, gids, green)
        ent += np.abs(raw[:, ENTROPY])
        log_exp += np.log(raw[:, SUMSQ] / len(m))
        log_worst += np.log(raw[:, WORST])
        splits += raw[:, PATTERNS] > 1
        hits += raw[:, HIT] > 0
    return {"entropy": ent, "log_expected": log_exp, "log_worst": log_worst,
            "splits": splits, "hits": hits}


class BoardsHeuristic(BoardsStrategy):
    def __init__(self, table: np.ndarray, lists, measure: str, rule: bool = True,
                 name: str | None = None, cache: int = 4096):
        self.table = table
        self.lists = lists
        self.measure = measure
        self.rule = rule
        self.name = name or (measure if rule else measure + PURE)
        self._cache: dict = {}
        self._cache_size = cache

    def choose(self, pos: BoardsPosition) -> int:
        agid = self.lists.answer_guess_ids
        if self.rule:  # a board with one candidate: its answer now
            for i in pos.open:
                if len(pos.members[i]) == 1:
                    return int(agid[pos.members[i][0]])
        key = pos.key()
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        g = self._score(pos)
        if len(self._cache) >= self._cache_size:
            self._cache.pop(next(iter(self._cache)))
        self._cache[key] = g
        return g

    def ranked(self, pos: BoardsPosition, top: int) -> list[tuple[int, float, bool]]:
        """The `top` best guesses by the measure: (guess id, value, is a candidate)."""
        gids = np.arange(len(self.lists.guesses), dtype=np.int64)
        s = joint_scores(self.table, pos, gids, pos.variant.all_green)
        value = {"entropy": -s["entropy"], "expected": s["log_expected"],
                 "minimax": s["log_worst"]}[self.measure]
        useful = (s["splits"] > 0) | (s["hits"] > 0)
        key = np.where(useful, np.round(value, 9), np.inf)
        order = np.lexsort((gids, s["hits"] == 0, key))[:top]
        shown = {"entropy": s["entropy"], "expected": np.exp(s["log_expected"]),
                 "minimax": np.exp(s["log_worst"])}[self.measure]
        return [(int(gids[j]), float(shown[j]), bool(s["hits"][j] > 0)) for j in order
                if useful[j]]

    def _score(self, pos: BoardsPosition) -> int:
        r = self.ranked(pos, 1)
        if not r:
            raise UsageError(f"{self.name}: no guess splits or solves an open board at {pos}")
        return r[0][0]


def strategy_names() -> list[str]:
    return [*HEURISTICS, *(h + PURE for h in HEURISTICS), "optimal"]


def make_boards_strategy(name: str, table: np.ndarray, lists, exact=None) -> BoardsStrategy:
    """A strategy by name (strategy_names); `exact`: a boards_exact.BoardsExact for
    'optimal' (small instances only)."""
    if name == "optimal":
        if exact is None:
            raise UsageError("the optimal strategy on several boards is exact only on small "
                             "instances (see solve ", Param("boards"), "); use a heuristic "
                             "here")
        return exact.strategy()
    base, rule = name, True
    if name.endswith(PURE):
        base, rule = name[: -len(PURE)], False
    if base not in HEURISTICS:
        raise UsageError(f"unknown strategy {quote(name)} for several boards (choose from "
                         f"{', '.join(strategy_names())})")
    return BoardsHeuristic(table, lists, base, rule, name)


# ---- simulation -------------------------------------------------------------------

@dataclass
class BoardsSimulation:
    strategy: str
    boards: int
    max_guesses: int
    opener: str | None
    games: list[tuple[tuple[str, ...], list[str]]]  # (answers, guesses) per game
    sampled: bool  # a random sample of the tuples, or every tuple
    tuples: int  # how many tuples exist in all
    seed: int
    cpu_seconds: float = 0.0
    optimum: float | None = None  # the exact optimum's average, when known

    @property
    def counts(self) -> np.ndarray:
        return np.array([len(g) for _a, g in self.games], np.int64)

    @property
    def mean(self) -> float:
        return float(self.counts.mean())

    @property
    def stdev(self) -> float:
        return float(self.counts.std())

    @property
    def histogram(self) -> dict[int, int]:
        v, n = np.unique(self.counts, return_counts=True)
        return {int(a): int(b) for a, b in zip(v, n, strict=True)}

    @property
    def failures(self) -> int:
        return int((self.counts > self.max_guesses).sum()) if self.max_guesses else 0

    def to_dict(self) -> dict:
        n = len(self.games)
        d = {"strategy": self.strategy, "boards": self.boards,
             "max_guesses": self.max_guesses, "opener": self.opener, "games": n,
             "sample": "random" if self.sampled else "all", "tuples": self.tuples,
             "seed": self.seed if self.sampled else None, "mean": round(self.mean, 6),
             "stdev": round(self.stdev, 6),
             "histogram": {str(k): v for k, v in self.histogram.items()},
             "failures": self.failures, "failure_rate": round(self.failures / n, 6),
             "cpu_seconds": round(self.cpu_seconds, 4),
             "ms_per_game": round(1000 * self.cpu_seconds / n, 4)}
        if self.optimum is not None:
            d["optimum"] = round(self.optimum, 6)
            d["regret"] = round(self.mean - self.optimum, 6)
        return d

    def describe(self) -> str:
        n = len(self.games)
        h = "  ".join(f"{k}:{v}" for k, v in self.histogram.items())
        what = (f"a random sample of {n:,} of the {self.tuples:,} answer tuples (seed {self.seed})"
                if self.sampled else f"all {counted(n, 'answer tuple')}")
        lines = [f"{self.strategy} on {self.boards} boards"
                 + (f" from {self.opener}" if self.opener else "") + f": {what}",
                 f"mean {self.mean:.4f} guesses to solve every board, stdev {self.stdev:.4f}, "
                 f"{self.failures} over the cap of {self.max_guesses} "
                 f"({100 * self.failures / n:.2f} %)",
                 f"histogram (guesses:games) {h}",
                 f"{self.cpu_seconds:.2f} s CPU, {1e3 * self.cpu_seconds / n:.2f} ms per game"]
        if self.optimum is not None:
            lines.append(f"exact optimum {self.optimum:.4f}: regret "
                         f"{self.mean - self.optimum:+.4f} guesses per game")
        return "\n".join(lines)

    def rows(self):
        for answers, guesses in self.games:
            yield ",".join(answers), len(guesses), " ".join(guesses)


def sample_tuples(lists, boards: int, games: int, seed: int
                  ) -> tuple[list[tuple[str, ...]], bool, int]:
    """(tuples, sampled, how many exist): every ordered tuple of distinct answers when
    there are at most `games`, else `games` drawn uniformly (seeded) with
    replacement among tuples."""
    n = len(lists.answers)
    total = math.perm(n, boards)
    if total <= games:
        from itertools import permutations

        out = [tuple(lists.answers[i] for i in t) for t in permutations(range(n), boards)]
        return out, False, total
    rng = np.random.default_rng(seed)
    out = [tuple(lists.answers[i] for i in rng.choice(n, boards, replace=False))
           for _ in range(games)]
    return out, True, total


def play_game(start: BoardsPosition, strategy: BoardsStrategy, answers: tuple[str, ...],
              opener: str | None = None, limit: int = 200) -> list[str]:
    """The guesses `strategy` makes until every board of `answers` is solved (played
    past the cap; `limit` guards a strategy that would never finish)."""
    pos = start
    guesses: list[str] = []
    while not pos.done:
        if len(guesses) >= limit:
            raise UsageError(f"{strategy.name}: no game may last {limit} guesses (at {pos})")
        w = opener if (opener and not guesses) else pos.lists.guesses[strategy.choose(pos)]
        pos = pos.play(w, pos.feedback(w, answers), check_cap=False)
        guesses.append(w)
    return guesses


def simulate_boards(start: BoardsPosition, strategy: BoardsStrategy,
                    tuples: list[tuple[str, ...]], sampled: bool, n_tuples: int, seed: int,
                    opener: str | None = None, progress=None) -> BoardsSimulation:
    """Play every tuple with `strategy` (past the cap); `progress(done, total)` after
    each game."""
    c0 = time.process_time()
    free = BoardsPosition(start.lists, Variant.of(start.lists, Mode.EASY, 0,
                                                  boards=start.boards),
                          start.history, start.members, start.solved)
    games = []
    for t in tuples:
        games.append((t, play_game(free, strategy, t, opener)))
        if progress is not None:
            progress(len(games), len(tuples))
    return BoardsSimulation(strategy.name, start.boards, start.variant.max_guesses, opener,
                            games, sampled, n_tuples, seed, time.process_time() - c0)


def lower_bound(pos: BoardsPosition) -> float:
    """A proven lower bound on the expected further guesses from `pos`, whatever the
    strategy: a guess solves at most one board of a tuple, so a tuple needs one guess
    per open board, and one more unless the next guess (the same for every tuple) is
    one of its answers. E >= m + 1 - max_g P(g is an answer of an open board); that
    share is counted exactly with up to 6 open boards, else bounded by 1 (E >= m)."""
    m = len(pos.open)
    if m == 0:
        return 0.0
    sets = [frozenset(pos.members[i].tolist()) for i in pos.open]
    if m > 6:
        return float(m)
    n = count_tuples(sets)
    best = 0
    for g in frozenset().union(*sets):
        hits = 0
        for i, s in enumerate(sets):
            if g in s:
                hits += count_tuples([frozenset([g]) if j == i else t - {g}
                                      for j, t in enumerate(sets)])
        best = max(best, hits)
    return m + 1 - best / n


def board_lines(pos: BoardsPosition, words: int = 8) -> list[str]:
    """One line per board: solved (at which guess, its word) or its candidates."""
    out = []
    for i in range(pos.boards):
        if pos.solved[i] is not None:
            w = pos.lists.answers[pos.members[i][0]]
            out.append(f"  board {i + 1}: solved at guess {pos.solved[i]} ({w})")
            continue
        c = pos.candidates(i)
        shown = " ".join(c[:words]) + (" ..." if len(c) > words else "")
        out.append(f"  board {i + 1}: {counted(len(c), 'candidate')}: {shown}")
    return out


def tiles(pos: BoardsPosition, step: int) -> str:
    """The squares of guess number `step` (1-based) on every board, '·····' for a
    board solved earlier."""
    w, codes = pos.history[step - 1]
    L = len(w)
    return "  ".join("·" * L if c is None else to_squares(c, L) for c in codes)
