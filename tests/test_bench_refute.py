"""bench/bench_refute.py, the sample behind the cost of proving an opener best (issue
52, item 4): what it records is what Solver.solve under the cutoff returns, the
sample is drawn one opener a stratum, and a second process on the same record
measures nothing twice."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from solver import Solver
from solver.table import get_table
from solver.words import WordLists
from tests.run_helpers import ROOT, mpi_env, write_lists

SCRIPT = ROOT / "bench" / "bench_refute.py"


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    d = tmp_path_factory.mktemp("refute")
    a, g = write_lists(d / "lists", 60, 10)
    cache = d / "cache"
    cache.mkdir()
    return a, g, cache


def _bench(a, g, cache, record, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--answers", a, "--guesses", g,
                           "--record", str(record), *args],
                          env=mpi_env(cache), capture_output=True, text=True, timeout=300)


def test_the_sample_records_what_the_solver_proves_under_the_cutoff(tmp_path, problem):
    a, g, cache = problem
    lists = WordLists.load(a, g, quiet=True)
    table, _ = get_table(lists, "numpy", cache)
    record = tmp_path / "r.jsonl"
    p = _bench(a, g, cache, record, "--cutoff", "170", "--strata", "3", "--per-stratum",
               "2", "--timeout", "120")
    assert p.returncode == 0, p.stderr
    rows = [json.loads(x) for x in record.read_text().splitlines()]
    assert sorted(r["stratum"] for r in rows) == [0, 0, 1, 1, 2, 2]
    assert len({r["opener"] for r in rows}) == 6
    exact = Solver(lists, table=table)
    kinds = set()
    for r in rows:
        v = exact.solve(r["opener"]).total
        assert not r["censored"]
        if v < 170:
            assert (r["status"], r["total"]) == ("exact", v)
        else:
            assert r["status"] == "lower_bound" and 170 <= r["total"] <= v
        kinds.add(r["status"])
    assert kinds == {"exact", "lower_bound"}  # the cutoff falls inside the sample
    assert f"projection over {len(lists.guesses)} openers" in p.stdout
    # the same sample from its other end, on the same record: nothing left to measure
    q = _bench(a, g, cache, record, "--cutoff", "170", "--strata", "3", "--per-stratum",
               "2", "--reverse")
    assert q.returncode == 0, q.stderr
    assert len(record.read_text().splitlines()) == 6
    r = _bench(a, g, cache, record, "--report")
    assert r.returncode == 0 and "6 openers in 3 strata; 0 cut short" in r.stdout
