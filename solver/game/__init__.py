"""Playing and analysing games on top of the exact engine (issue 7).

Stable API (used by the CLI and the web app):

- `Position.parse(text, lists, mode="easy", max_guesses=6)` -> `Position`: a history
  of (guess, pattern code) read from `salet:BBYBG,drone:YBBBG` (or `-` for the start).
  `.candidates`, `.members` (answer ids), `.guesses_left`, `.legal()`, `.play(word,
  code)`, `str(pos)`. Bad input raises `UsageError`/`PatternError` with one line.
- `analyse(solver, position, top=5, store=None, progress=None)` -> `Analysis`: `.best` and
  `.alternatives` (`Choice(guess, total, status)`), `.to_dict()` (the `next --json`
  schema: position, candidates, words, best{guess,total,average,status},
  alternatives[{guess,total,status}], mode, max_guesses), `.describe()` (text).
  Under the objective wins (`Position(objective="wins")`, search/wins.py) each Choice
  has `wins` too; `analyse(..., fallback=True)` falls back to it where no strategy
  wins every candidate (`Analysis.fallback_from`) instead of answering infeasible.
- `evaluate(solver, position, guess)` -> `Choice`: the exact total of one guess.
- `tree(solver, opener, position=None)` -> `Tree`: the optimal strategy, `.to_dict()`
  (opener, mode, max_guesses, total, average, histogram, games), `.text()`,
  `.nested()` (guess, answers, total, children by pattern: an expandable view).

Also (see each module): `strategies.make_strategy(name, solver)` -> a `Strategy`
with `choose(position) -> guess id` (optimal and the one-step heuristics);
`simulate.simulate(solver, strategy, opener)` -> `Simulation` (every answer);
`measures.scan` (vectorised one-step measures); `play.Game` (the terminal game);
`wider.parse(text, lists)` -> `(Position, note)` and `wider.widen`: feedback that
rules out every answer goes on with every allowed guess as a possible answer (an
answer missing from the list), `wider.solver_for(position)` the engine for it.

`solver` is a `solver.search.Solver` for the same lists, mode and cap.
"""

from .analysis import Analysis, Choice, analyse, evaluate
from .position import Position
from .tree import Tree, tree

__all__ = ["Analysis", "Choice", "Position", "Tree", "analyse", "evaluate", "tree"]
