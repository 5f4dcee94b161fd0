"""Bare-expression snippets: ``(a + b).relu()`` alone in a file is a scenario, with the user's own line numbers."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from conftest import WriteScenario, measure

from kernel_tui.model.scenario.scenario_file import parse_scenario
from kernel_tui.model.scenario.snippet import (
    free_tensor_names,
    is_snippet,
    measured_arguments,
    measured_lines,
    snippet_module,
)
from kernel_tui.transport.client import EngineClient


def test_free_single_letter_names_become_the_arguments_in_order_of_use() -> None:
    tree = ast.parse("import math\nt = x * 2\nu = t.sin() + b\na = u\nu.sum() * math.pi + a\n")
    assert is_snippet(tree)
    assert free_tensor_names(tree) == ["x", "b"]


def test_a_file_with_fn_is_not_a_snippet() -> None:
    assert not is_snippet(ast.parse("def fn(a):\n    return a\n"))
    assert not is_snippet(ast.parse("x = 1\n"))


def test_the_rewrite_keeps_line_numbers_and_hoists_imports_and_constants() -> None:
    source = "import math\nSIZE = 2**12\nt = x * 2\nt + y\n"
    module = snippet_module(ast.parse(source))
    namespace: dict[str, Any] = {}
    exec(compile(module, "snippet.py", "exec"), namespace)
    assert namespace["SIZE"] == 4096
    fn = namespace["fn"]
    assert fn.__code__.co_varnames[:2] == ("t", "y"), "the last line's names: the set-up's t, the free y"
    assert fn.__code__.co_firstlineno == 4
    assert ast.unparse(module).count("def inputs(size, device)") == 1


def test_every_setting_a_scenario_reads_stays_at_module_level_not_set_up() -> None:
    # VARIANTS and TRAIN came after the snippet's list was written: they were taken for set-up lines.
    source = 'SIZE = 64\nTRAIN = True\nVARIANTS = {"dyn": {"dynamic": True}}\n(x + y).sin()\n'
    tree = ast.parse(source)
    assert measured_lines(tree) == (4, 4, False)
    namespace: dict[str, Any] = {}
    exec(compile(snippet_module(tree), "snippet.py", "exec"), namespace)
    assert namespace["TRAIN"] is True and namespace["VARIANTS"] == {"dyn": {"dynamic": True}}
    info = parse_scenario(source, Path("snippet.py"))
    assert info.train and set(info.variants) == {"dyn"}


def test_lines_above_the_last_are_set_up_run_once_in_inputs_not_in_fn() -> None:
    source = "(a + b).relu()\nn = 3\nw = x * 2\nx @ w + n\n"
    tree = ast.parse(source)
    assert measured_lines(tree) == (4, 4, True)
    namespace: dict[str, Any] = {}
    exec(compile(snippet_module(tree), "snippet.py", "exec"), namespace)
    fn = namespace["fn"]
    assert fn.__code__.co_varnames == ("x", "w", "n")
    body = ast.parse(source).body
    rewritten = {node.name: node for node in snippet_module(tree).body if isinstance(node, ast.FunctionDef)}
    assert [ast.unparse(node) for node in rewritten["fn"].body] == ["return x @ w + n"]
    assert all(
        node.lineno in {n.lineno for n in ast.walk(rewritten["inputs"]) if hasattr(n, "lineno")} for node in body[:-1]
    ), "the set-up keeps its lines, in inputs"
    assert measured_lines(ast.parse("(a + b).relu()\n")) == (1, 1, False)


def test_listing_a_snippet_reads_its_expression_as_the_title() -> None:
    info = parse_scenario("(a + b).relu()\n", Path("mine.py"))
    assert info.is_snippet and info.title == "(a + b).relu()" and info.has_fn and info.has_inputs


def test_the_engine_measures_a_bare_expression(engine: EngineClient, write_scenario: WriteScenario) -> None:
    report = measure(engine, write_scenario("(a + b).relu()\n", "snippet.py"), size=2**20)
    assert report.error is None
    assert report.eager is not None
    assert report.compiled is not None
    assert report.eager.kernel_count == 2 and report.compiled.kernel_count == 1
    assert report.eager.transfers == 5 and report.compiled.transfers == 3


def test_an_unknown_name_points_at_the_snippet_line(engine: EngineClient, write_scenario: WriteScenario) -> None:
    report = measure(engine, write_scenario("t = x * 2\n\nt + q\n", "typo.py"), size=1024)
    assert report.error is not None
    assert (report.error.stage, report.error.line) == ("eager", 3)
    assert "NameError" in report.error.message and "'q'" in report.error.message


def test_eager_and_compiled_measure_the_same_last_line(engine: EngineClient, write_scenario: WriteScenario) -> None:
    # Measured as a whole, the first line ran in eager only: the compiler dropped its unused result.
    report = measure(engine, write_scenario("(a + b).relu()\nn = 2\nx * n\n", "two_lines.py"), size=4096)
    assert report.error is None, report.error
    assert report.eager is not None
    assert report.compiled is not None
    assert report.eager.kernel_count == 1 and report.compiled.kernel_count == 1
    assert report.eager.transfers == 2 and report.compiled.transfers == 2
    for mode in (report.eager, report.compiled):
        assert mode is not None
        assert all(kernel.lines in {(), (3,)} for kernel in mode.kernels), "only the last line is measured"


def test_a_helper_defined_in_the_set_up_is_measured_where_the_last_line_calls_it(
    engine: EngineClient, write_scenario: WriteScenario
) -> None:
    """``def f(x): ...`` then ``f(x)``: the last line may read whatever the set-up defines, a function too
    (it failed with NameError: only assigned names were handed to fn)."""
    text = "w = 3.0\n\n\ndef f(t):\n    return (t * w).relu()\n\n\nf(x)\n"
    assert measured_arguments(ast.parse(text)) == ["f", "x"]
    assert free_tensor_names(ast.parse(text)) == ["x"], "f's own parameter is no free tensor"
    report = measure(engine, write_scenario(text, "helper.py"), size=4096)
    assert report.error is None, report.error
    assert report.eager is not None
    assert report.compiled is not None
    assert report.eager.kernel_count == 2 and report.compiled.kernel_count == 1, "the multiply and the ReLU"
    assert report.eager.transfers == 4 and report.compiled.transfers == 2


def test_the_signature_names_each_argument_with_its_shape_and_the_output() -> None:
    import torch

    from kernel_tui.engine.stages.signature import call_signature

    def fn(a: torch.Tensor, b: torch.Tensor, n: int) -> tuple[torch.Tensor, torch.Tensor]:
        return a, b

    a, b = torch.zeros(3, 4), torch.zeros(2, dtype=torch.int64)
    assert call_signature(fn, (a, b, 3), (a, b)) == (
        "a: (3, 4) float32, b: (2,) int64, n: 3 → ((3, 4) float32, (2,) int64)"
    )
    assert call_signature(lambda *args: args[0], (a,), a.sum()) == "args[0]: (3, 4) float32 → () float32"
    # A model's training step returns its loss and each weight's gradient: the first few, then how many more.
    step = (a.sum(), *(torch.zeros(size) for size in range(1, 29)))
    assert call_signature(lambda x: x, (a,), step) == (
        "x: (3, 4) float32 → (() float32, (1,) float32, (2,) float32, (3,) float32, … 25 more)"
    )
