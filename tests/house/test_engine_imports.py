"""No two modules of the engine import each other, directly or through others, at the top or inside a function:
a circle makes each half of it unreadable without the other, and its order of imports fragile (``loader`` and
``training`` once held one, ``preview`` and ``preview_training`` another)."""

from __future__ import annotations

import itertools

import grimp


def test_no_engine_module_imports_one_that_imports_it_back() -> None:
    graph = grimp.build_graph("kernel_tui", cache_dir=None)
    modules = sorted(module for module in graph.modules if module.startswith("kernel_tui.engine."))
    circles = [
        (graph.find_shortest_chain(importer=first, imported=second), graph.find_shortest_chain(second, first))
        for first, second in itertools.combinations(modules, 2)
        if graph.find_shortest_chain(importer=first, imported=second)
        and graph.find_shortest_chain(importer=second, imported=first)
    ]
    assert not circles, f"import circles in the engine: {circles}"
