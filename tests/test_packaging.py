"""The package as a user installs it (issue 11): `python -m build` makes an sdist and
a wheel (the wheel built from the sdist, so the sdist is complete), the wheel goes
into a fresh virtual environment, and every command runs on the default lists from
a folder outside the checkout, with the checkout off the import path.

No download: the fresh environment gets this environment's installed dependencies
as symbolic links (everything but wordle-dp itself), the wheel is installed with
`pip install --no-deps --no-index`, and a check of the installed metadata proves
that the wheel's declared dependencies are satisfied. The wheel carries the kernels
compiled while it is built (setup.py; issue 48), so the installed commands compile
nothing. About 100 s of CPU (2026-11-26, load 3), most of it numba compiling the
kernels, now during the build; marked slow, .ci/run runs it explicitly.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

import solver
from solver import aot
from tests.run_helpers import write_lists

pytestmark = [pytest.mark.slow, pytest.mark.packaging]

ROOT = Path(__file__).resolve().parents[1]
# source-tree things that are not part of a build (and can be large)
NOT_SOURCE = (".git", ".venv*", "build", "dist", "*.egg-info", "checkpoints", "__pycache__",
              ".pytest_cache", ".ruff_cache", ".gl")
pytest.importorskip("build", reason="needs the 'build' package (pip install -e '.[test]')")


def _sh(cmd: list[str], timeout: float = 300, **kw) -> subprocess.CompletedProcess:
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    assert p.returncode == 0, f"{cmd}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    return p


def _build(tmp: Path) -> tuple[Path, Path]:
    """sdist and wheel of a copy of the checkout (the build writes into its tree)."""
    src = tmp / "src"
    shutil.copytree(ROOT, src, symlinks=True, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    dist = tmp / "dist"
    # the wheel's kernels: two minutes of CPU, side by side (10 min of wall at load 9)
    _sh([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(src)],
        timeout=1200)
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    return sdist, wheel


def _venv_with_deps(venv: Path) -> Path:
    """A fresh venv that sees this environment's packages except wordle-dp; returns
    its python."""
    _sh([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    py = venv / "bin" / "python"
    site = Path(_sh([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
                .stdout.strip())
    mine = ("wordle_dp", "__editable__", "solver", "_distutils_hack", "distutils-precedence")
    libs = {Path(sysconfig.get_paths()[k]) for k in ("purelib", "platlib")}
    for entry in (e for lib in libs for e in lib.iterdir()):
        if not entry.name.startswith(mine) and not (site / entry.name).exists():
            (site / entry.name).symlink_to(entry)
    # the mpich wheel's libmpi lives in <prefix>/lib, where mpi4py looks for it
    for entry in (Path(sys.prefix) / "lib").iterdir():
        if not entry.name.startswith("python"):
            (venv / "lib" / entry.name).symlink_to(entry)
    return py


def test_wheel_works_outside_the_source_tree(tmp_path):
    sdist, wheel = _build(tmp_path)
    version = solver.__version__
    # the compiled kernels make it a wheel of this Python and platform
    assert wheel.name.startswith(f"wordle_dp-{version}-cp3"), wheel.name
    assert not wheel.name.endswith("-none-any.whl"), wheel.name
    assert sdist.name == f"wordle_dp-{version}.tar.gz"

    # every module and both lists are in the wheel; the sdist has what tests need
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "solver").rglob("*.py")}
    assert modules <= in_wheel
    kernels = {k.path(Path("solver/_kernels")).as_posix() for k in aot.all_kernels()}
    assert kernels <= in_wheel, sorted(n for n in in_wheel if "_kernels" in n)
    assert {"solver/data/answers.txt", "solver/data/guesses.txt"} <= in_wheel
    top = f"wordle_dp-{version}/"
    in_sdist = {n.removeprefix(top) for n in tarfile.open(sdist).getnames()}
    assert {"tests/conftest.py", "tests/run_helpers.py", "data/README.md",
            "slurm/README.md", "solver/data/answers.txt"} <= in_sdist

    py = _venv_with_deps(tmp_path / "venv")
    _sh([str(py), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)])
    # the wheel's declared dependencies (numpy, numba, zarr, mpi4py) are satisfied
    _sh([str(py), "-c", "import importlib.metadata as m\n"
         "from packaging.requirements import Requirement\n"
         "for r in map(Requirement, m.requires('wordle-dp')):\n"
         "    if r.marker is None:  # not an extra\n"
         "        assert r.specifier.contains(m.version(r.name), prereleases=True), r\n"])

    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["WORDLE_DP_CACHE"] = str(tmp_path / "cache")
    env["NUMBA_NUM_THREADS"] = "1"
    exe = str(py.parent / "wordle-dp")

    def cli(*args: str) -> subprocess.CompletedProcess:
        return _sh([exe, *args], cwd=work, env=env)

    # the installed copy is the one that runs, not the checkout
    where = _sh([str(py), "-c", "import solver; print(solver.__file__)"], cwd=work, env=env)
    assert Path(where.stdout.strip()).is_relative_to(tmp_path / "venv")
    assert cli("--version").stdout.strip() == f"wordle-dp {version}"
    meta = _sh([str(py), "-c", "import importlib.metadata as m; print(m.version('wordle-dp'))"],
               cwd=work, env=env)
    assert meta.stdout.strip() == version

    # every built-in list pair ships and verifies its checksums (the NYT pair's
    # guesses come from the other pair's folder)
    shipped = {d["name"]: (d["answers"], d["guesses"])
               for d in map(json.loads, cli("lists", "--json").stdout.splitlines())}
    assert shipped["nyt"] == (3158, 14855) and shipped["nyt-2022-08"] == (2309, 14855)
    assert shipped["original"] == (2315, 12972)

    # default lists, read from the installed package (published value of FLOES),
    # searched (the shipped table would answer it without a kernel or a table)
    p = cli("solve", "floes", "--no-book", "--json")
    assert "compiling" not in p.stderr, p.stderr  # the wheel's kernels: no first-run compile
    r = json.loads(p.stdout)
    assert (r["status"], r["total"]) == ("exact", 8225)
    t = json.loads(cli("table", "--json").stdout)
    assert t["shape"] == [12972, 2315] and t["backend"] == "cache"
    cli("run", "--store", "default.zarr", "--openers", "floes", "--quiet")
    (d,) = [json.loads(x) for x in cli("query", "--store", "default.zarr", "floes",
                                       "--json").stdout.splitlines()]
    assert (d["status"], d["total"]) == ("exact", 8225)

    # the packaged opening books: the proven first move without a table or a search,
    # under a second of CPU for the whole command, on both lists in both modes
    for lists in ("original", "nyt"):
        for mode in ("easy", "hard"):
            before = os.times()
            r = json.loads(cli("next", "-", "--lists", lists, "--mode", mode,
                               "--json").stdout)
            after = os.times()
            cpu = after.children_user + after.children_system - (
                before.children_user + before.children_system)
            assert cpu < 1.0, (lists, mode, cpu)
            assert "source" not in r, (lists, mode)  # from the book, not a known value
            (top,) = [json.loads(x) for x in cli(
                "query", "--book", "--lists", lists, "--mode", mode, "--json", "--top",
                "1").stdout.splitlines()]
            assert (r["best"]["guess"], r["best"]["total"], r["best"]["status"]) == (
                top["opener"], top["total"], "exact")
    assert "from the opening book" in cli("play", "--answer", "cigar").stdout

    # run / query / export on a small list
    a, g = write_lists(work / "lists", 30, 40)
    store = work / "small.zarr"
    p = cli("run", "--store", str(store), "--answers", a, "--guesses", g)
    assert "run finished" in p.stderr
    q = cli("query", "--store", str(store), "--json", "--top", "3")
    rows = [json.loads(x) for x in q.stdout.splitlines()]
    assert len(rows) == 3 and rows[0]["rank"] == 1 and rows[0]["status"] == "exact"
    cli("export", "--store", str(store), "--csv", "all.csv")
    with open(work / "all.csv", newline="") as f:
        table = list(csv.DictReader(f))
    n_guesses = len(Path(g).read_text().split())
    assert len(table) == n_guesses and all(t["status"] != "pending" for t in table)
    by_word = {t["opener"]: t for t in table}
    assert by_word[rows[0]["opener"]]["total"] == str(rows[0]["total"])
    (b,) = [json.loads(x) for x in cli("best", "--answers", a, "--guesses", g, "--json",
                                       "--quiet").stdout.splitlines()]
    assert b["total"] == rows[0]["total"]  # best's proof agrees with the run
    cli("merge", "--store", "merged.zarr", str(store))
    m = [json.loads(x) for x in cli("query", "--store", "merged.zarr", "--json", "--top",
                                    "3").stdout.splitlines()]
    assert m == rows

    # the store records the same version as --version
    rec = _sh([str(py), "-c", "import sys; from solver.store import Store; "
               "print(Store.open(sys.argv[1]).solver_version)", str(store)], cwd=work, env=env)
    assert rec.stdout.strip() == version
