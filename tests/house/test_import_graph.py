"""No import circles: no module of the package imports, through any chain of imports, a module that imports it.

Every ``import`` of every module counts, wherever it stands: at the top, inside a function (a late import that
keeps start-up light or dodges a loop at run time), and under ``if TYPE_CHECKING:``. A circle is a cut in the wrong
place even when Python happens to load it, so the test reads the source with ``ast`` rather than what runs, and
names each circle with one loop through it (``a → b → a``). Tooling outside the package (``tools/``) imports the
package, never the other way round: a wheel ships no ``tools``.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterable, Mapping
from pathlib import Path

from support.locations import REPO

ROOT = REPO
PACKAGE = "kernel_tui"

KNOWN_CIRCLES: tuple[frozenset[str], ...] = ()
"""Circles being broken by work not yet merged, each with who removes it: a circle whose modules all lie in one of
these passes. Empty when there are none."""


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules(root: Path = ROOT, package: str = PACKAGE) -> dict[str, Path]:
    return {module_name(path, root): path for path in sorted((root / package).rglob("*.py"))}


def imported_names(name: str, tree: ast.AST, is_package: bool) -> set[tuple[str, ...]]:
    """Every import in ``tree``, at any depth, as the module names it may mean, most specific first: ``from a
    import b`` means the module ``a.b`` where there is one, else the name ``b`` of ``a``. Relative imports are made
    absolute."""
    found: set[tuple[str, ...]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update((alias.name,) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join([*here, *([node.module] if node.module else [])])
            found.update((f"{base}.{alias.name}", base) for alias in node.names)
    return found


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """Each module's imports of modules in ``modules``: a name that is no module there counts as its nearest
    enclosing one (``import a.b.c`` of a module ``a.b`` is an import of ``a.b``)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets = set()
        for meanings in imported_names(name, tree, path.name == "__init__.py"):
            imported = next((meaning for meaning in meanings if meaning in modules), meanings[-1])
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def circles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, without recursion), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def one_loop(graph: Mapping[str, Iterable[str]], component: list[str]) -> list[str]:
    """The shortest loop from the component's first module back to it, through the component: ``[a, b, a]``."""
    inside = set(component)
    start = component[0]
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for target in sorted(graph[node]):
            if target == start:
                loop = [node]
                while loop[-1] != start:
                    loop.append(came_from[loop[-1]])
                return [start, *reversed(loop[:-1]), start] if len(loop) > 1 else [start, node, start]
            if target in inside and target not in came_from:
                came_from[target] = node
                queue.append(target)
    raise AssertionError(f"no loop through {component}")


def test_the_graph_reads_every_kind_of_import(tmp_path: Path) -> None:
    """Top-level, function-local, TYPE_CHECKING-only and relative imports all count; ``from a import b`` counts
    as an import of the module ``a.b``."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg import b\n")
    (package / "b.py").write_text("def late():\n    from pkg.c import thing\n")
    (package / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n")
    (package / "d.py").write_text("import pkg.a.nothing\nimport os\n")
    graph = import_graph(package_modules(tmp_path, "pkg"))
    assert graph == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.c"}, "pkg.c": {"pkg.a"}, "pkg.d": {"pkg.a"}}
    assert circles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]
    assert one_loop(graph, ["pkg.a", "pkg.b", "pkg.c"]) == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]


def test_the_package_graph_is_the_real_one() -> None:
    graph = import_graph(package_modules())
    assert len(graph) > 100
    assert "kernel_tui.commands.exits" in graph["kernel_tui.commands.cli"]
    assert "kernel_tui.model.report.report" in graph["kernel_tui.text.render"]


def test_no_module_of_the_package_imports_a_module_that_imports_it() -> None:
    graph = import_graph(package_modules())
    new = [
        " → ".join(one_loop(graph, component))
        for component in circles(graph)
        if not any(set(component) <= known for known in KNOWN_CIRCLES)
    ]
    assert not new, "import circles (break each where its cause is):\n" + "\n".join(new)


def test_every_known_circle_is_still_one() -> None:
    """An exception outlives its circle by no commit: the change that breaks a circle takes its entry out."""
    found = circles(import_graph(package_modules()))
    gone = [sorted(known) for known in KNOWN_CIRCLES if not any(set(component) <= known for component in found)]
    assert not gone, f"no longer circles, so take them out of KNOWN_CIRCLES: {gone}"


def test_the_package_never_imports_the_tools_beside_it() -> None:
    """``tools/`` (the docs generator, gpu-check) is not installed: the package importing it would fail there."""
    importing = []
    for name, path in package_modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(meanings[-1].split(".")[0] == "tools" for meanings in imported_names(name, tree, False)):
            importing.append(name)
    assert importing == []
