"""numba's cache goes stale with any kernel source, not only the function's own file
(solver/jitcache.py): a jitted function compiled with a callee from another file
must not load from the cache after that file changes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from solver.jitcache import JIT_SOURCES

ROOT = Path(__file__).resolve().parents[1]

CALLER = """from numba import njit

import callee


@njit(cache=True)
def f():
    return callee.g() + callee.K
"""

CALLEE = """from numba import njit

K = {k}


@njit(cache=True)
def g():
    return {g}
"""

RUN = """import sys
sys.path.insert(0, {src!r})
from solver.jitcache import install
install(({caller!r}, {callee!r}))
import caller
print(caller.f())
"""


def _run(src: Path, cache: Path) -> int:
    code = RUN.format(src=str(src), caller=str(src / "caller.py"),
                      callee=str(src / "callee.py"))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return int(p.stdout.split()[-1])


def test_an_edit_to_a_callee_recompiles_its_caller(tmp_path):
    src, cache = tmp_path / "src", tmp_path / "cache"
    src.mkdir()
    (src / "caller.py").write_text(CALLER)
    (src / "callee.py").write_text(CALLEE.format(k=1, g=40))
    assert _run(src, cache) == 41
    assert list(cache.rglob("caller.f-*.nbi"))  # the caller was cached...
    assert _run(src, cache) == 41  # ...and a second process agrees with it
    # only the callee changes (the caller's file, numba's own key, stays the same)
    (src / "callee.py").write_text(CALLEE.format(k=2, g=50))
    assert _run(src, cache) == 52
    (src / "callee.py").write_text(CALLEE.format(k=3, g=50))  # a constant alone
    assert _run(src, cache) == 53


def test_every_cached_kernel_file_is_stamped():
    """Each file of the package with cached jitted functions is in JIT_SOURCES and
    installs the stamp before its functions are decorated."""
    solver = ROOT / "solver"
    cached = {p for p in solver.rglob("*.py")
              if re.search(r"^@njit\(.*cache=True", p.read_text(), re.M)}
    assert cached and cached <= set(JIT_SOURCES)
    for p in cached:
        text = p.read_text()
        first = re.search(r"^@(njit|numba\.)", text, re.M)
        call = re.search(r"^install\(\)", text, re.M)
        assert first and call and call.start() < first.start(), p
    assert all(p.is_file() for p in JIT_SOURCES)


NOTICED = """import sys
sys.path.insert(0, {src!r})
from solver import aot
from solver.jitcache import install, quiet
install(({caller!r}, {callee!r}))
aot.set_notice(lambda kind, msg, eta: print("NOTICE", kind, msg, flush=True))
import caller
if {quiet}:
    with quiet():
        print(caller.f())
else:
    print(caller.f())
"""


def _noticed(src: Path, cache: Path, after: str, quiet: bool = False) -> str:
    code = NOTICED.format(src=str(src), caller=str(src / "caller.py"),
                          callee=str(src / "callee.py"), quiet=quiet)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT),
               WORDLE_DP_COMPILE_NOTICE_AFTER=after)
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_a_slow_compile_says_so_and_a_cache_load_does_not(tmp_path):
    """A jit compile past the threshold names the kernel in one notice (the caller,
    not each callee it compiles inside); loading it from the cache says nothing."""
    src, cache = tmp_path / "src", tmp_path / "cache"
    src.mkdir()
    (src / "caller.py").write_text(CALLER)
    (src / "callee.py").write_text(CALLEE.format(k=1, g=40))
    out = _noticed(src, cache, "0")
    notes = [ln for ln in out.splitlines() if ln.startswith("NOTICE")]
    assert notes == ["NOTICE jit compiling f (caller) with numba (first use after install; "
                     "cached afterwards)..."], out
    assert out.split()[-1] == "41"
    out = _noticed(src, cache, "0")  # cached now
    assert "NOTICE" not in out and out.split()[-1] == "41"


def test_a_quick_or_quiet_compile_says_nothing(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "caller.py").write_text(CALLER)
    (src / "callee.py").write_text(CALLEE.format(k=1, g=40))
    assert "NOTICE" not in _noticed(src, tmp_path / "c1", "600")  # done long before
    assert "NOTICE" not in _noticed(src, tmp_path / "c2", "0", quiet=True)
