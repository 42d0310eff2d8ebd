"""A terminal game, written against two callables (ask for a line, say a line)
so that the CLI, tests and a pseudo-terminal drive the same code.

Modes:
- with an answer (`--answer` or `--random`): the tool computes the feedback. When
  `auto`, it plays the optimal guess every turn without asking; otherwise each turn
  asks for a guess (Enter takes the suggestion).
- without an answer: the player types the feedback the real game showed, either
  alone (for the suggested guess) or after another guess: `BBYBG` or `crane BBYBG`.
`q` quits; bad input re-asks with a one-line reason. Feedback that rules out every
answer (an answer missing from the list) is said in one line, and the game goes on
with every allowed guess as a possible answer (`wider`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from ..errors import UsageError, WordleDPError, quote
from ..feedback import parse as parse_pattern
from ..feedback import score, to_squares, to_text
from ..plural import percent
from ..status import Status
from ..variant import Mode
from .analysis import WORDS_SHOWN, Analysis, _check_store, analyse
from .position import NoFit, Position
from .strategies import make_strategy
from .wider import note, solver_for, widen

Ask = Callable[[str], "str | None"]  # None: end of input
Say = Callable[[str], None]


class _Colours(Exception):
    """A guess typed without its colours: the game asks for them."""

    def __init__(self, word: str):
        super().__init__(word)
        self.word = word


class Game:
    def __init__(self, solver, say: Say, ask: Ask | None = None, answer: str | None = None,
                 opener: str | None = None, store=None, reveal: bool = True,
                 progress: TextIO | None = None, param: Callable[[str], str] = str):
        self.solver = solver
        self.param = param  # how a parameter is named (the CLI: its flag)
        self.say = say
        self.ask = ask
        self.answer = answer
        self.opener = opener
        self.store = store
        self.reveal = reveal  # False with --random: the answer stays hidden until the end
        self.progress = progress  # where a long valuation of the opener says how far it is
        self.pos = Position.start(solver.lists, solver.mode, solver.max_guesses)
        if store is not None:  # a store for another problem is refused, not ignored
            _check_store(store, self.pos)
        if answer is not None:  # ASCII checked before case folding (the Kelvin sign)
            a = answer.strip()
            if not a.isascii() or a.lower() not in solver.lists.answer_index:
                raise UsageError(f"{quote(answer)} is not in the answer list "
                                 f"{solver.lists.describe('answers')}")
            self.answer = a.lower()
        if opener is not None:  # as the list spells it ('SALET' is 'salet')
            self.opener = solver.lists.guesses[self.pos.check_guess(opener)]
        self._last: tuple[str, Analysis] | None = None  # (position, its analysis)

    def analysis(self, pos: Position) -> Analysis:
        """The analysis of `pos` (the last one is kept: report and suggest both ask),
        falling back to the objective wins where no strategy wins every candidate."""
        if self._last is not None and self._last[0] == str(pos):
            return self._last[1]
        res = analyse(self.solver, pos, top=0, store=self.store, fallback=True)
        self._last = (str(pos), res)
        return res

    # ---- suggestions -------------------------------------------------------------

    def suggest(self) -> tuple[str, str]:
        """(guess, how it was chosen) for the current position."""
        pos = self.pos
        if not pos.history:
            if self.opener:
                return self.opener, "given opener"
            try:
                res = analyse(self.solver, pos, top=0, store=self.store, fallback=True)
                if res.best.guess is not None:
                    how = {"book": "proven best, from the opening book",
                           "store": "proven best, from the store",
                           "known": "the best known opener, not proven best"}.get(
                               res.source, "optimal opener")
                    return res.best.guess, how
            except UsageError:
                pass
            g = make_strategy("entropy", self.solver).choose(pos)
            return (self.solver.lists.guesses[g],
                    "the guess that tells the most about the answer; the proven best opener "
                    f"needs {self.param('store')}, a book or {self.param('opener')}")
        best = self.analysis(pos).best
        if best.guess is None:
            raise UsageError(f"{pos}: no strategy solves every candidate in the guesses left")
        return best.guess, "optimal" if best.wins is None else "most wins"

    def report(self) -> None:
        pos = self.pos
        n = len(pos.members)
        line = f"{n} candidate{'s' if n != 1 else ''} left"
        if n <= WORDS_SHOWN and (self.reveal or n > 1 or self.answer is None):
            line += ": " + " ".join(pos.candidates)
        if not pos.solved:
            best = self.analysis(pos).best
            if best.wins is not None and best.total is not None and best.wins < n:
                line += (f"; no strategy wins every candidate from here: {best.guess} wins "
                         f"{best.wins} of the {n} ({percent(best.wins, n)}), then "
                         f"{best.total / best.wins:.1f} more guesses on average over those "
                         "(exact)")
            elif best.total is not None:
                line += (f"; with best play {best.total / n:.4f} more guesses on average "
                         f"(exact; next: {best.guess})")
        self.say(line)

    # ---- the loop ----------------------------------------------------------------

    def step(self, guess: str, pattern: int) -> None:
        self.pos = self.pos.play(guess, pattern)
        k = self.pos.guesses_made
        n = len(guess)
        self.say(f"guess {k}: {guess.upper()}  {to_text(pattern, n)}  {to_squares(pattern, n)}")

    def widen(self, exc: NoFit) -> None:
        """No answer fits the feedback: go on with every allowed guess as a possible
        answer (UsageError when none fits either), saying so in one line."""
        pos = widen(exc.position, exc.guess, exc.pattern)
        self.solver = solver_for(pos, self.solver)
        self.store = None  # the store and the book are the other lists'
        self.pos = pos
        n = len(exc.guess)
        self.say(f"guess {pos.guesses_made}: {exc.guess.upper()}  {to_text(exc.pattern, n)}  "
                 f"{to_squares(exc.pattern, n)}")
        self.say(note(pos))

    def out_of_guesses(self, word: str, pattern: int) -> bool:
        """When `word` is the last guess the cap allows and does not solve the game:
        say so (the guess, then the end) and return True."""
        pos = self.pos
        k, cap = pos.guesses_made + 1, pos.max_guesses
        if not (cap and k == cap and pattern != pos.variant.all_green):
            return False
        n = len(word)
        self.say(f"guess {k}: {word.upper()}  {to_text(pattern, n)}  {to_squares(pattern, n)}")
        tail = f"; the answer was {self.answer.upper()}" if self.answer else ""
        self.say(f"out of guesses (cap {cap}){tail}")
        return True

    def finished(self) -> bool:
        if self.pos.solved:
            k = self.pos.guesses_made
            self.say(f"solved: {self.pos.history[-1][0].upper()} in {k} guess"
                     f"{'es' if k != 1 else ''}")
            return True
        return False

    def announce(self) -> None:
        """The suggested opener, how it was chosen and its exact expected value."""
        guess, how = self.suggest()
        pos = self.pos
        line = f"{len(pos.members)} possible answers; suggested opener {guess.upper()} ({how})"
        known = getattr(self.store, "result", None)  # a book holds its openers' values
        stored = known(guess) if known is not None else None
        if stored is not None:
            total, _status = stored.total, stored.status
        elif not pos.history and self.progress is not None:  # the opener: say how far
            r = self.solver.solve(guess, progress=self.progress)
            total, _status = r.total, r.status
        else:
            gid = self.solver.lists.guess_index[guess]
            total, _status = self.solver.guess_value(gid, pos.members, pos.budget, pos.cons)
        if total is not None:
            line += f": {total / len(pos.members):.4f} guesses on average with best play (exact)"
        elif _status == Status.INFEASIBLE:
            mode = "" if pos.mode == Mode.EASY else f" in {pos.mode} mode"
            line += (f"; no strategy after {guess.upper()} wins every answer within "
                     f"{pos.max_guesses} guesses{mode}: where it cannot, the game plays for "
                     "the most wins")
        self.say(line)

    def run(self, auto: bool = False) -> int:
        """Play to the end; returns guesses used (0 if the player quit)."""
        self.announce()
        if self.answer is not None and auto:
            while True:
                guess, _how = self.suggest()
                pattern = score(guess, self.answer)
                if self.out_of_guesses(guess, pattern):  # a game the best chance lost
                    return self.pos.guesses_made + 1
                self.step(guess, pattern)
                if self.finished():
                    return self.pos.guesses_made
                self.report()
        while True:
            guess, _how = self.suggest()
            pos = self.pos
            k = pos.guesses_made + 1
            # under 80 characters; why this guess was said once, by announce or report
            if self.answer is not None:
                prompt = f"guess {k} (Enter = {guess}; q quits): "
            else:
                prompt = (f"guess {k}: play {guess.upper()}, type its feedback (BBYBG) or "
                          "WORD FEEDBACK; q quits: ")
            line = self.ask(prompt) if self.ask else None
            if line is None or line.strip().lower() in ("q", "quit", "exit"):
                if self.answer is not None and not self.reveal:
                    self.say(f"the answer was {self.answer.upper()}")
                self.say("quit")
                return 0
            try:
                word, pattern = self._read(line, guess)
            except _Colours as need:  # a word alone in assist: ask what it got
                text = self.ask(f"colours {need.word.upper()} got (e.g. "
                                f"{'BBYBG'[:len(need.word)].ljust(len(need.word), 'B')}): "
                                ) if self.ask else None
                if text is None or text.strip().lower() in ("q", "quit", "exit"):
                    self.say("quit")
                    return 0
                try:
                    word, pattern = need.word, parse_pattern(text.strip(), len(need.word))
                except WordleDPError as exc:
                    self.say(f"! {exc}")
                    continue
            except WordleDPError as exc:  # unknown word, bad feedback, illegal guess
                self.say(f"! {exc}")
                continue
            if self.out_of_guesses(word, pattern):
                return k
            try:
                try:
                    self.step(word, pattern)
                except NoFit as exc:  # the answer may be missing from the list
                    self.widen(exc)
            except WordleDPError as exc:
                self.say(f"! {exc}")
                continue
            if self.finished():
                return self.pos.guesses_made
            self.report()

    def _read(self, line: str, suggested: str) -> tuple[str, int]:
        parts = line.split()
        words = self.solver.lists.guesses
        if self.answer is not None:
            if len(parts) > 1:
                raise UsageError("type one guess (or Enter for the suggestion)")
            word = words[self.pos.check_guess(parts[0] if parts else suggested)]
            return word, score(word, self.answer)
        if len(parts) == 1:
            word, text = suggested, parts[0]
            try:
                return words[self.pos.check_guess(word)], parse_pattern(text, len(word))
            except WordleDPError:
                if text.lower() in self.solver.lists.guess_index:  # a word, not colours
                    raise _Colours(words[self.pos.check_guess(text)]) from None
                raise
        elif len(parts) == 2:
            word, text = parts
        else:
            raise UsageError("type the feedback (e.g. BBYBG) or 'WORD FEEDBACK'")
        word = words[self.pos.check_guess(word)]
        return word, parse_pattern(text, len(word))
