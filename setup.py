"""The one part of the build that pyproject.toml cannot say: a wheel carries the
numba kernels compiled ahead of time (solver/aot.py), so that a fresh install
answers at once instead of compiling for minutes on its first search (issue 48).

While the wheel is built, `python -m solver.aot` compiles every module of the
package (the search's for one- and two-byte tables, the measures scan's; about a
minute of CPU each, side by side) into solver/_kernels/ of the build. setuptools
runs nothing after a wheel is installed, so this is the install's compile. The
wheel is then tagged for this Python and platform; the modules' names carry a hash
of their sources and the Python ABI, and a module that does not fit is never
loaded (the package compiles its own on first use, and says so).

Not built, and the wheel stays pure: with WORDLE_DP_BUILD_KERNELS=0, without numba
in the build environment, and in an editable install (a checkout builds them into
its __pycache__ on first use). A failed compile (no C compiler) is a warning, not
a failed install.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent


def skip_kernels() -> str | None:
    """Why the wheel gets no compiled kernels (None: it gets them)."""
    if os.environ.get("WORDLE_DP_BUILD_KERNELS", "").strip() == "0":
        return "WORDLE_DP_BUILD_KERNELS=0"
    for name in ("numba", "numpy"):
        if importlib.util.find_spec(name) is None:
            return f"no {name} in the build environment"
    return None


class BuildPyWithKernels(build_py):
    """build_py, then the compiled kernels into the build's solver/_kernels/."""

    def run(self) -> None:
        super().run()
        why = skip_kernels()
        if getattr(self, "editable_mode", False) or why is not None:
            if why is not None:
                print(f"wordle-dp: no compiled kernels in this build ({why}): the first "
                      "search after install compiles them", file=sys.stderr)
            return
        out = Path(self.build_lib).resolve() / "solver" / "_kernels"
        print("wordle-dp: compiling the numba kernels for the wheel (a minute or two)",
              file=sys.stderr, flush=True)
        env = dict(os.environ, PYTHONPATH=str(HERE))
        p = subprocess.run([sys.executable, "-m", "solver.aot", str(out)], cwd=HERE, env=env)
        if p.returncode != 0:
            print("wordle-dp: warning: the kernels could not be compiled (see above): the "
                  "first search after install compiles them", file=sys.stderr)


class KernelDistribution(Distribution):
    """A distribution whose wheel holds compiled code (when it is built)."""

    def has_ext_modules(self) -> bool:
        return skip_kernels() is None


if __name__ == "__main__":  # as setuptools' build backend runs it (tests import it)
    setup(cmdclass={"build_py": BuildPyWithKernels}, distclass=KernelDistribution)
