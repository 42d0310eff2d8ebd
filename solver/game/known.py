"""The best known openers where nothing is proven: exact values, not proven best.

Where no opening book or result store proves the best opener (other word lengths,
hard mode at 6 letters, the NYT lists of August 2022, strict mode, no guess cap), the
first move is answered from solver/data/known-openers.json: the exact values of the
strong openers we measured, the best first, each labelled as what it is: an exact
value, with no proof by this engine that no other opener beats it. An entry may name
the published table it was taken from ('published': Alex Selby's exact values of
every opener, checked by tests/test_known.py against that file and the engine).
Lists are matched by their sha256, so files with the same words as built-in lists
find the same entry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from ..variant import Mode

FORMAT = "wordle-dp-known/1"


@dataclass(frozen=True)
class Known:
    """The known openers of one problem: (word, exact total) best first, and
    openers proven infeasible under the cap."""

    lists: str
    mode: Mode
    max_guesses: int
    openers: tuple[tuple[str, int], ...]
    infeasible: tuple[str, ...]
    published: str = ""  # the published table of every opener the values come from


@cache
def _entries() -> tuple[dict, ...]:
    path = resources.files(__package__.rsplit(".", 1)[0]) / "data" / "known-openers.json"
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return ()
    return tuple(doc["entries"]) if doc.get("format") == FORMAT else ()


def known_openers(lists, mode: Mode, max_guesses: int) -> Known | None:
    """What is known about the openers of `lists` in `mode` under `max_guesses`, or
    None when nothing is recorded."""
    shas = None  # computed on the first entry of this problem's mode and cap
    for e in _entries():
        if (e["mode"], e["max_guesses"]) != (mode, max_guesses):
            continue
        shas = shas or (lists.answers_sha256, lists.guesses_sha256)
        if (e["answers_sha256"], e["guesses_sha256"]) == shas:
            return Known(e["lists"], mode, max_guesses,
                         tuple((w, int(t)) for w, t in e["openers"]), tuple(e["infeasible"]),
                         e.get("published", ""))
    return None


def example_position(lists) -> str:
    """A first move to show in a message: salet on lists that have it, else the
    first answer without a repeated letter; all grey ('abduct:BBBBBB')."""
    L = lists.length
    if "salet" in lists.guess_index:
        word = "salet"
    else:
        word = next((a for a in lists.answers if len(set(a)) == L), lists.answers[0])
    return f"{word}:{'B' * L}"
