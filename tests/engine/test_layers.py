"""The engine's layers hold: every module of debate/ is in a layer of debate/layers.py, imports nothing from a
higher layer and takes part in no import cycle, and the whole engine imports without Streamlit. Above it, the
app's layers hold too: pages/ -> ui/ -> debate/, never back, and no import cycle inside ui/.

Imports are read from the source (ast), so an import inside a function counts as much as one at the top:
it runs sooner or later, and a cycle through it is still a cycle. Imports by string (importlib, as
debate/__main__.py loads the CLI modules) are not seen; those go downwards by construction.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

from debate.layers import APP_LAYERS, LAYERS, app_layer_of, layer_of

REPO = Path(__file__).resolve().parents[2]


def module_files(root: Path, package: str = "debate") -> dict[str, Path]:
    """Dotted module name -> file, for every .py under root/package (root/package.py alone: that module)."""
    out = {}
    single = root / f"{package}.py"
    for path in [single] if single.is_file() else sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imports_of(
    name: str,
    path: Path,
    modules: dict[str, Path],
    package: str | tuple[str, ...] = "debate",
) -> list[tuple[str, int]]:
    """(imported module, line) for every import of a module of `package` (or of one of several) in the file,
    at any depth.

    `from a.b import c` names module a.b.c when c is one, else a.b (c is then a name defined in a.b)."""
    packages = (package,) if isinstance(package, str) else package
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] in packages]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: strip one package per dot after the first
                base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] not in packages:
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                found.append((sub if sub in modules else source, node.lineno))
    return [(target, line) for target, line in found if target != name]


def import_graph(root: Path, package: str = "debate") -> tuple[dict[str, Path], dict[str, list[tuple[str, int]]]]:
    modules = module_files(root, package)
    return modules, {name: imports_of(name, path, modules, package) for name, path in modules.items()}


def app_graph(root: Path) -> tuple[dict[str, Path], dict[str, list[tuple[str, int]]]]:
    """The import graph over the engine, ui/, pages/ and app.py together."""
    tops = tuple(t for _, group in APP_LAYERS for t in group)
    modules = {k: v for t in tops for k, v in module_files(root, t).items()}
    return modules, {name: imports_of(name, path, modules, tops) for name, path in modules.items()}


def upward_imports(root: Path, modules, graph, layer=layer_of, layers=LAYERS) -> list[str]:
    bad = []
    for name, targets in graph.items():
        for target, line in targets:
            lo, hi = layer(name), layer(target)
            if lo is not None and hi is not None and hi > lo:
                bad.append(
                    f"{modules[name].relative_to(root)}:{line} {name} ({layers[lo][0]}) imports {target} "
                    f"({layers[hi][0]})"
                )
    return bad


def cycles(graph) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w, _ in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_engine_module_is_in_a_layer():
    modules, _ = import_graph(REPO)
    assert len(modules) > 60  # the walk really found the engine
    missing = [m for m in modules if layer_of(m) is None]
    assert missing == [], f"add these to debate/layers.py (in the layer of their concern): {missing}"


def test_no_module_imports_from_a_higher_layer():
    modules, graph = import_graph(REPO)
    assert sum(len(t) for t in graph.values()) > 200  # the imports were really read
    bad = upward_imports(REPO, modules, graph)
    assert not bad, "imports from a higher layer (see debate/layers.py):\n" + "\n".join(bad)


def test_no_import_cycle_between_engine_modules():
    _, graph = import_graph(REPO)
    found = cycles(graph)
    assert not found, "modules that import each other (directly or through others):\n" + "\n".join(map(str, found))


def test_pages_build_on_ui_and_ui_on_the_engine_never_back():
    modules, graph = app_graph(REPO)
    assert {"app", "pages.debate", "ui.render", "debate.runner"} <= set(modules)
    assert sum(len(t) for n, t in graph.items() if n.startswith("pages.")) > 30  # the pages' imports were read
    bad = upward_imports(REPO, modules, graph, app_layer_of, APP_LAYERS)
    assert not bad, "imports from a higher layer (debate/layers.py APP_LAYERS):\n" + "\n".join(bad)


def test_no_import_cycle_inside_ui_or_pages():
    """A cycle inside ui/ is a piece two modules share that belongs lower (as ui.keep holds the widget
    memory ui.widgets and ui.server_box both need); a deferred import would hide it, and counts here."""
    _, graph = app_graph(REPO)
    found = [c for c in cycles(graph) if any(m.split(".")[0] in ("ui", "pages", "app") for m in c)]
    assert not found, "app modules that import each other (directly or through others):\n" + "\n".join(map(str, found))


def test_the_checks_see_function_level_relative_and_from_imports(tmp_path):
    """The checks on a small package written for the purpose: each kind of import that hides a violation
    is reported, so an empty report above means no violation, not a blind parser."""
    pkg = tmp_path / "debate"
    (pkg / "low").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "low" / "__init__.py").write_text("")
    (pkg / "low" / "base.py").write_text(
        textwrap.dedent("""\
        def late():
            from debate.high import top   # function-level, upwards
            return top
        """)
    )
    (pkg / "low" / "other.py").write_text("from . import base\nfrom .base import late\n")
    (pkg / "high.py").write_text("import debate.low.other\nfrom debate.low import base\nfrom debate import top\n")
    (pkg / "top.py").write_text("from debate.high import x\n")  # high <-> top: a cycle within one layer

    def layer(m: str) -> int | None:
        return {
            "debate": 0,
            "debate.low": 0,
            "debate.low.base": 0,
            "debate.low.other": 0,
            "debate.high": 1,
            "debate.top": 1,
        }.get(m)

    modules, graph = import_graph(tmp_path)
    assert sorted(graph["debate.low.other"]) == [("debate.low.base", 1), ("debate.low.base", 2)]
    assert graph["debate.high"] == [("debate.low.other", 1), ("debate.low.base", 2), ("debate.top", 3)]
    bad = upward_imports(tmp_path, modules, graph, layer)
    assert len(bad) == 1 and "debate.low.base" in bad[0] and "imports debate.high" in bad[0] and ":2 " in bad[0]
    assert sorted(map(tuple, cycles(graph))) == [("debate.high", "debate.low.base", "debate.low.other", "debate.top")]


def test_every_engine_module_imports_without_streamlit():
    """Each module of debate/, imported in a fresh interpreter where importing Streamlit fails: the engine
    runs from the command line and in batch evaluation, where no Streamlit is loaded."""
    modules, _ = import_graph(REPO)
    names = sorted(m for m in modules if not m.endswith("__main__"))
    code = textwrap.dedent(f"""
        import importlib, sys
        class NoStreamlit:
            def find_spec(self, name, path=None, target=None):
                if name == "streamlit" or name.startswith("streamlit."):
                    raise ImportError("the engine must not import streamlit")
        sys.meta_path.insert(0, NoStreamlit())
        failed = []
        for name in {names!r}:
            try:
                importlib.import_module(name)
            except Exception as e:
                failed.append(f"{{name}}: {{type(e).__name__}}: {{e}}")
        loaded = sorted(m for m in sys.modules if m == "streamlit" or m.startswith("streamlit."))
        print("\\n".join(failed + loaded) or "ok")
        """)
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1:] == ["ok"], out.stdout[-3000:]


def test_every_test_file_is_in_the_folder_of_its_group():
    """tests/ stays sorted after merges: a test file left loose (or in a folder no rule names) runs without
    its folder's markers, so the fast loop would run a browser test. `scripts/tidy.sh` sorts them."""
    spec = importlib.util.spec_from_file_location("group_tests", REPO / "scripts" / "group_tests.py")
    grouping = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(grouping)
    tests = REPO / "tests"
    files = sorted(tests.rglob("test_*.py"))
    assert len(files) > 100  # the walk found the suite
    misplaced = [
        str(f.relative_to(REPO))
        for f in files
        if f.parent.name != grouping.group_of(f.name) or f.parent.parent != tests
    ]
    assert not misplaced, "run scripts/tidy.sh (or add a rule to scripts/group_tests.py): " + ", ".join(misplaced)
