"""The search kernels compiled ahead of time into an extension module.

A process that runs the numba-jitted kernels first imports numba (about 0.2 s of
CPU on the development machine) and then loads the kernels from numba's cache
(0.1-0.2 s more). For a short solve that is most of the work: `wordle-dp solve
salet` spends about 0.35 s searching. So the same kernel source (kernels.py) is
also compiled with numba's ahead-of-time compiler (numba.pycc) into a small
extension module, once per kernel version, and processes load that instead: no
numba import, no cache lookup. It is built on first use: the jit compilation of
the kernels that the first run paid anyway (about 25 s here, then in numba's
cache), plus about 7 s for the module.

Where it is kept: $NUMBA_CACHE_DIR/wordle_dp if set, else the package's
__pycache__ (where numba keeps its cache too), else the user cache directory. Its
file name carries a hash of the kernel sources and the Python ABI, so an edited
kernel is rebuilt. The build writes a temporary file and renames it: ranks that
start together may each build, but none reads a half-written module.

The jitted kernels stay the fallback, and `WORDLE_DP_KERNELS=jit` selects them:
when the build cannot run (no C compiler, no numba.pycc) and for a search
context whose arrays do not have the layout the module was built for. Both run
the same code; tests/test_compiled_kernels.py checks that they agree.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import platform
import sys
import tempfile
from functools import cache
from pathlib import Path
from types import SimpleNamespace

from .layout import CTX_FIELDS, Ctx, ctx_mismatch

MODULE = "wordle_dp_kernels"
_SOURCES = ("kernels.py", "layout.py", "compiled.py")
_HERE = Path(__file__).resolve().parent


def fingerprint() -> str:
    """Hash of what the compiled module depends on: the kernel sources, the Python
    ABI and the machine architecture."""
    h = hashlib.sha256()
    for name in _SOURCES:
        h.update((_HERE / name).read_bytes())
    h.update(f"{sys.implementation.cache_tag} {platform.machine()}".encode())
    return h.hexdigest()[:16]


def module_dir() -> Path:
    """Where the compiled module is kept (see the module docstring)."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    if env:
        return Path(env) / "wordle_dp"
    pyc = _HERE / "__pycache__"
    if os.access(pyc if pyc.exists() else _HERE, os.W_OK):
        return pyc
    from ..table import default_cache_dir

    return default_cache_dir() / "kernels"


def module_path(directory: Path | None = None) -> Path:
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    return (directory or module_dir()) / f"{MODULE}-{fingerprint()}{suffix}"


def build(path: Path) -> Path:
    """Compile the kernels into the extension module `path` (imports numba)."""
    import warnings

    import numpy as np
    from numba import from_dtype, types
    from numba.core import compiler as nb_compiler

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba.pycc's (pending) deprecation notice
        from numba.pycc import CC
        from numba.pycc import compiler as pycc_compiler

    from . import kernels as K

    class _ReleaseGil(nb_compiler.Flags):
        # the exported wrappers release the GIL like the jitted kernels (nogil=True):
        # the web app's worker thread must not stall the server while it searches
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.release_gil = True

    ctx_t = types.NamedTuple(
        [types.Array(from_dtype(np.dtype(dt)), nd, "C") for _, dt, nd in CTX_FIELDS], Ctx
    )
    i64 = types.int64
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent, prefix=".build-") as tmp:
        cc = CC(MODULE)
        cc.output_dir = tmp
        cc.verbose = False
        node_sig = types.UniTuple(i64, 4)(ctx_t, *[i64] * 7)
        hcc_sig = types.none(ctx_t, i64, i64, i64)
        # node calls itself through its jit dispatcher: that one must be compiled
        # (or loaded from numba's cache) first, or numba refuses the re-entry
        K.node.compile(node_sig.args)
        cc.export("node", node_sig)(K.node.py_func)
        cc.export("hard_child_constraint", hcc_sig)(K.hard_child_constraint.py_func)
        saved = pycc_compiler.Flags
        pycc_compiler.Flags = _ReleaseGil
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cc.compile()
        finally:
            pycc_compiler.Flags = saved
        built = next(Path(tmp).glob(f"{MODULE}*"))
        os.replace(built, path)
    return path


def load(path: Path):
    """Import the compiled module at `path`."""
    spec = importlib.util.spec_from_file_location(MODULE, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# why the compiled kernels were last not used in this process (None: no fallback
# yet); for diagnostics and the tests
fallback_reason: str | None = None


@cache
def _compiled_module():
    global fallback_reason
    path = module_path()
    try:
        if path.exists():
            try:
                return load(path)
            except ImportError:  # a damaged file (a full disk, a killed copy): rebuild
                pass
        build(path)
        return load(path)
    except Exception as e:  # no compiler, no numba.pycc, an unwritable directory...
        fallback_reason = f"{type(e).__name__}: {e}"
        return None


def kernel_set(ctx: Ctx) -> SimpleNamespace:
    """The kernels that run on `ctx`: `node` and `hard_child_constraint`, compiled
    when possible, jitted otherwise; `.kind` says which ("compiled" or "jit")."""
    global fallback_reason
    if os.environ.get("WORDLE_DP_KERNELS", "").strip() != "jit":
        why = ctx_mismatch(ctx)
        mod = _compiled_module() if why is None else None
        if mod is not None:
            return SimpleNamespace(
                node=mod.node, hard_child_constraint=mod.hard_child_constraint,
                kind="compiled",
            )
        if why is not None:
            fallback_reason = why
    from . import kernels as K

    return SimpleNamespace(
        node=K.node, hard_child_constraint=K.hard_child_constraint, kind="jit"
    )
