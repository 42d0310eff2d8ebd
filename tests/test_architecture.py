"""Boundaries the import contract cannot see (pyproject.toml [tool.importlinter] holds
the layers; `lint-imports` runs in .ci/run): no private name crosses a package line,
and web/ reaches the layers below the vocabulary only through web/adapter.py.

A package's underscored names are its own business; another package that reaches
them breaks when they change without notice (issue 51: book.py used store._FIELDS
and run._mpi, run/split.py store._zarr, cli/cluster.py dataset._need)."""

from __future__ import annotations

import ast
from pathlib import Path

SOLVER = Path(__file__).resolve().parents[1] / "solver"


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _unit(module: str) -> str:
    """The package line a module sits behind: solver.X (solver.X.Y is X's own)."""
    return ".".join(module.split(".")[:2])


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def crossings(root: Path = SOLVER) -> list[str]:
    """Every private name that a module takes from another package: `from X import
    _y` and `X._y` on a module imported from elsewhere."""
    found = []
    for path in sorted(root.rglob("*.py")):
        me = _module_name(path, root)
        tree = ast.parse(path.read_text(), str(path))
        modules: dict[str, str] = {}  # local name -> a solver module it stands for
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _resolve(me, path.name == "__init__.py", node)
                if not source.startswith("solver"):
                    continue
                for alias in node.names:
                    target = f"{source}.{alias.name}"
                    modules[alias.asname or alias.name] = target
                    if _private(alias.name) and _unit(source) != _unit(me):
                        found.append(f"{me}:{node.lineno} imports {source}.{alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("solver"):
                        modules[alias.asname or alias.name] = alias.name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and _private(node.attr)
                    and isinstance(node.value, ast.Name) and node.value.id in modules):
                source = modules[node.value.id]
                if _unit(source) != _unit(me):
                    found.append(f"{me}:{node.lineno} uses {source}.{node.attr}")
    return found


def test_no_private_name_crosses_a_package_line():
    assert crossings() == []


def test_the_check_finds_a_crossing(tmp_path):
    """The check itself: a planted crossing of each kind is found, a package's own
    private names are not."""
    pkg = tmp_path / "solver"
    (pkg / "store").mkdir(parents=True)
    (pkg / "book.py").write_text("from .store import _zarr\nfrom . import store as S\n"
                                 "S._fields()\n")
    (pkg / "store" / "__init__.py").write_text("from .layout import _zarr\n")
    (pkg / "store" / "layout.py").write_text("def _zarr(): pass\n")
    assert crossings(pkg) == ["solver.book:1 imports solver.store._zarr",
                              "solver.book:3 uses solver.store._fields"]


# what web/'s modules besides the adapter may import (the adapter: anything below web/)
WEB_MAY_USE = {"solver.web", "solver.errors", "solver.status", "solver.variant",
               "solver.words", "solver.progress", "solver.plural", "solver.aot",
               "solver.__version__"}


def web_contacts(root: Path = SOLVER) -> list[str]:
    """Every import, at the top or inside a function, by which a module of web/ other
    than adapter.py reaches past the vocabulary and the word lists."""
    found = []
    for path in sorted((root / "web").glob("*.py")):
        if path.name == "adapter.py":
            continue
        me = _module_name(path, root)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                source = _resolve(me, path.name == "__init__.py", node)
                targets = ([f"{source}.{a.name}" for a in node.names]
                           if source == root.name else [source])
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            found += [f"{me}:{node.lineno} imports {t}" for t in targets
                      if t.startswith(root.name + ".") and _unit(t) not in WEB_MAY_USE]
    return found


def test_the_web_app_goes_through_its_adapter():
    assert web_contacts() == []


def test_the_web_check_finds_a_contact(tmp_path):
    pkg = tmp_path / "solver"
    (pkg / "web").mkdir(parents=True)
    (pkg / "web" / "service.py").write_text(
        "from ..variant import Mode\nfrom . import adapter\n\n\ndef f():\n"
        "    from ..store import Store\n    from .. import game\n")
    (pkg / "web" / "adapter.py").write_text("from ..store import Store\n")
    assert web_contacts(pkg) == ["solver.web.service:6 imports solver.store",
                                 "solver.web.service:7 imports solver.game"]
