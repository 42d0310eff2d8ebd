"""The vocabulary every layer speaks (issue 51): the modes, objectives and statuses
are each listed once, as str enums that compare, hash, print and serialise as their
names, and the store's status codes never move."""

import json
import typing

import pytest

from solver import store as S
from solver.errors import UsageError
from solver.search import engine
from solver.search.result import STATUSES, SolveResult
from solver.status import RESULTS, STORED, Status
from solver.variant import (
    MODES,
    OBJECTIVES,
    Mode,
    Objective,
    Variant,
    check_max_guesses,
    check_mode,
    check_objective,
)


def test_names_are_plain_strings():
    assert MODES == ("easy", "hard", "strict")
    assert OBJECTIVES == ("expected", "worst", "wins")
    for e in (*Mode, *Objective, *Status):
        assert e == e.value and hash(e) == hash(e.value) and {e.value: 1}[e] == 1
        assert f"{e}" == str(e) == e.value and repr(e) == repr(e.value)
        assert json.dumps({"k": e}) == json.dumps({"k": e.value})
        assert type(e.value) is str
    assert all(type(m) is str for m in MODES + OBJECTIVES)


def test_store_codes_never_move():
    # stores on disk hold these codes
    assert [s.value for s in STORED] == ["pending", "exact", "infeasible", "lower_bound",
                                         "upper_bound", "failed"]
    assert (S.PENDING, S.EXACT, S.INFEASIBLE, S.LOWER_BOUND, S.UPPER_BOUND, S.FAILED) == \
        tuple(range(6))
    assert S.STATUS_NAMES == tuple(s.value for s in STORED)
    assert S.STATUS_CODES == {s.value: i for i, s in enumerate(STORED)}
    assert Status.NOT_FOUND.code == S.FAILED  # a result's not_found is stored as failed
    assert all(Status.of_code(s.code) is s for s in STORED)
    assert STATUSES == ("exact", "infeasible", "upper_bound", "lower_bound", "not_found")
    assert set(RESULTS) | set(STORED) == set(Status)


def test_every_layer_uses_the_one_list():
    from solver.web import app

    assert set(engine.MODES) == set(Mode) and S.MODES is MODES
    assert typing.get_args(app.Mode) == MODES
    assert typing.get_args(app.STATUSES) == S.STATUS_NAMES


def test_variant_takes_names_and_checks_them():
    v = Variant(5, "hard", 6, objective="worst")
    assert v.mode is Mode.HARD and v.objective is Objective.WORST
    assert repr(v) == ("Variant(length=5, mode='hard', max_guesses=6, boards=1, "
                       "adversary=False, objective='worst')")
    with pytest.raises(ValueError, match=r"unknown mode 'medium' \(easy, hard or strict\)"):
        Variant(5, "medium")
    with pytest.raises(UsageError, match=r"unknown objective 'best' \(expected, worst or"):
        check_objective("best")
    with pytest.raises(UsageError, match=r"max_guesses must be >= 0 \(0 = no cap\)"):
        check_max_guesses(-1)
    assert check_mode("strict") is Mode.STRICT


def test_a_result_carries_a_status():
    r = SolveResult("salet", "exact", 7920, 2315, 5, 1.0, 3, "easy", 6)
    assert r.status is Status.EXACT and "status='exact'" in repr(r)
    assert r.to_dict()["status"] == "exact"
    with pytest.raises(ValueError):
        SolveResult("salet", "pending-ish", None, 1, None, 0.0, 0, "easy", 6)


def test_library_errors_name_parameters_and_the_cli_flags():
    from solver.cli.flags import error_line, flag
    from solver.errors import Param
    from solver.run import RunConfig, check_config

    e = UsageError(Param("memo_mb"), " must be a number above 0")
    assert str(e) == "memo_mb must be a number above 0" and e.args == (str(e),)
    assert error_line(e) == "--memo-mb must be a number above 0"
    assert error_line(UsageError("plain {braces} --kept")) == "plain {braces} --kept"
    assert flag("no_cutoff") == "--no-cutoff"
    with pytest.raises(UsageError) as info:
        check_config(RunConfig(store="s", split="all", cutoff=100))
    assert str(info.value).startswith("split all values openers exactly, so it does not go "
                                      "with cutoff")
    assert error_line(info.value).startswith("--split all values openers exactly, so it "
                                             "does not go with --cutoff")
    for bad, needle in [(dict(cutoff=1, no_cutoff=True), "--cutoff and --no-cutoff exclude"),
                        (dict(parts=4, split="off"), "--parts values classes"),
                        (dict(max_guesses=-1), "--max-guesses must be >= 0"),
                        (dict(split="some"), "--split must be one of auto, all, off"),
                        (dict(objective="worst", cutoff=5), "--cutoff is a total: the worst"),
                        (dict(memo_mb=float("nan")), "--memo-mb must be a number above 0"),
                        (dict(best=0), "the best openers are those of the expected")]:
        with pytest.raises(UsageError) as info:
            check_config(RunConfig(store="s", **bad))
        assert error_line(info.value).startswith(needle), bad


def test_the_solver_the_store_the_book_and_the_service_take_a_variant(tmp_path):
    """A Variant is how a problem is given to each of them; the (mode, cap) form
    stays, means the same, and a variant of another word length, or a cap that
    contradicts it, is refused."""
    from solver import Solver
    from solver.book import Book
    from solver.web.service import Service
    from solver.words import WordLists
    from tests.game_helpers import small_lists

    lists = small_lists(51, n_answers=20, n_guesses=40)
    hard4 = Variant.of(lists, "hard", 4)
    a, b = Solver(lists, hard4), Solver(lists, "hard", 4)
    assert a.variant == b.variant == hard4 and (a.mode, a.max_guesses) == ("hard", 4)
    w = lists.guesses[0]
    assert a.solve(w).total == b.solve(w).total
    assert Solver(lists).variant == Variant.of(lists, "easy", 6)
    with pytest.raises(ValueError, match="a variant of 6 letters for lists of 5"):
        Solver(lists, Variant(6, "easy"))
    with pytest.raises(ValueError, match="differ"):
        Solver(lists, hard4, 6)
    wins = Variant.of(lists, "hard", 4, objective="wins")
    st = S.Store.create(tmp_path / "v.zarr", lists, wins)
    assert (st.problem.mode, st.problem.max_guesses, st.problem.objective) == ("hard", 4, "wins")
    again, created = S.Store.open_or_create(tmp_path / "v.zarr", lists, wins)
    assert not created and again.problem == st.problem
    with pytest.raises(ValueError, match="differ"):
        S.Store.create(tmp_path / "x.zarr", lists, wins, objective="expected")
    real = WordLists.load(quiet=True)
    assert Book.find(real, Variant.of(real, "hard", 6)).path == Book.find(real, "hard", 6).path
    svc = Service(lists, mode=hard4, workers=0)
    assert (svc.mode, svc.max_guesses) == ("hard", 4)
