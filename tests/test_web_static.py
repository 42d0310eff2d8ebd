"""The page's ES modules (solver/web/static/*.js), parsed, no browser: they import
one another without a circle (from their `import ... from "./x.js"` lines), and
only state.js, the state's owner, writes the shared state `S`."""
import re
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "solver" / "web" / "static"
# a write to a field of S (S.x = ..., S.x.y += ..., S.x[i]++, S.rows.push(...))
WRITE = re.compile(r"(?<![\w.$])S(?:\.\w+|\[[^\]]*\])+\s*(?:[-+*/]?=(?!=)|\+\+|--)"
                   r"|(?<![\w.$])S(?:\.\w+)+\.(?:push|pop|shift|unshift|splice|set|clear|delete)\(")
IMPORT = re.compile(r"""^\s*import\s[^;]*?from\s+["']\./([\w.-]+\.js)["']""", re.M | re.S)


def imports(static=STATIC):
    """Each module's local imports: {"main.js": {"play.js", ...}, ...}."""
    return {p.name: set(IMPORT.findall(p.read_text())) for p in sorted(static.glob("*.js"))}


def cycles(graph):
    """The import circles, each as the path that closes it: ["a.js", "b.js", "a.js"]."""
    found, done = [], set()

    def walk(node, path):
        if node in path:
            found.append(path[path.index(node):] + [node])
            return
        if node in done:
            return
        for nxt in sorted(graph.get(node, ())):
            walk(nxt, path + [node])
        done.add(node)

    for node in sorted(graph):
        walk(node, [])
    return found


def test_parser_sees_the_imports():
    graph = imports()
    assert "main.js" in graph and "play.js" in graph["main.js"]
    missing = {dep for deps in graph.values() for dep in deps} - set(graph)
    assert not missing, "an import of a missing module"


def test_finds_a_circle():
    assert cycles({"a.js": {"b.js"}, "b.js": {"a.js"}, "c.js": set()}) == [["a.js", "b.js", "a.js"]]


def test_no_import_circle():
    assert cycles(imports()) == []


def writes(text):
    """The writes to S's fields in a module's text."""
    return [m.group(0) for m in WRITE.finditer(text)]


def test_write_finder():
    text = ("S.mode = m; S.cur.colours[i] = 1; S.rows.push(r); S.n++; "
            "x = S.a === b; S.seen.get(k); B.S.x = 1")
    assert writes(text) == ["S.mode =", "S.cur.colours[i] =", "S.rows.push(", "S.n++"]


def test_only_state_js_writes_the_state():
    found = {p.name: writes(p.read_text()) for p in STATIC.glob("*.js") if p.name != "state.js"}
    assert {name: w for name, w in found.items() if w} == {}
