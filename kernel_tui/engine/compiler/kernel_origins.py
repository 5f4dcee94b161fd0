"""Where each compiled kernel came from, read from the FX nodes Inductor fused into it: their modules and lines.

The scheduler node behind each call of the generated wrapper keeps its FX nodes (``origins``), and each FX node
what Dynamo recorded while tracing it: its ``stack_trace`` (every frame of the user's code down to the line that
ran the operator) and its ``nn_module_stack`` (the modules whose ``forward`` ran it). So a kernel's lines are the
lines of the nodes it holds, not every line that ran an operator of the same name, and they point into the file
the model was written in where that is not the scenario's. A kernel's module is the deepest one that holds all of
its nodes (``module_paths.common_module``); a row of several calls (six ``addmm`` calls of six ``nn.Linear``) counts
its calls per module (``Kernel.module_calls``).

The nodes come from the watched compile (``fusion_watch``), the one that reads why kernels stayed apart (a training
step's, forward and backward graphs, is watched for this alone); a kernel that compile did not name keeps what
``attribution`` found by operator names, and its module that of the eager operators it absorbed
(``modules_from_eager``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from kernel_tui.engine.compiler.boundaries import node_calls, row_of, wrapper_calls
from kernel_tui.engine.counting.module_paths import common_module, launch_time_by_module
from kernel_tui.model.report.kernel import ModuleWork

if TYPE_CHECKING:
    from kernel_tui.engine.compiler.fusion_watch import GraphFusion
    from kernel_tui.model.report.kernel import Kernel


@dataclass(frozen=True)
class CallOrigin:
    """One call of a generated wrapper: the kernel it runs and what its FX nodes say about where it came from."""

    name: str
    """The call as the wrapper spells it (``cpp_fused_mul_silu_6``, ``extern_kernels.addmm``)."""
    module: str | None
    stack: tuple[tuple[str, int], ...]


def call_origins(graph: GraphFusion) -> list[CallOrigin]:
    """Each call of the graph's wrapper that scheduler nodes became, in wrapper order."""
    calls = wrapper_calls(graph.wrapper)
    nodes_of: dict[int, list[int]] = {}
    for node_index, call_index in enumerate(node_calls(graph)):
        if call_index is not None:
            nodes_of.setdefault(call_index, []).append(node_index)
    origins = []
    for call_index in sorted(nodes_of):
        name = calls[call_index][0]
        nodes = [graph.nodes[index] for index in nodes_of[call_index]]
        # A library call is handed the buffers of the nodes that only unpack another call's outputs (``MultiOutput``
        # after attention): its own node, where it has one, is what it ran.
        nodes = [node for node in nodes if node.library == name] or nodes
        modules = [module for node in nodes for module in node.modules]
        stack = tuple(dict.fromkeys(frame for node in nodes for frame in node.stack))
        origins.append(CallOrigin(name, common_module(modules), stack))
    return origins


def with_origins(kernels: Sequence[Kernel], graphs: Sequence[GraphFusion], source_file: str) -> tuple[Kernel, ...]:
    """``kernels`` (a compiled call's rows) with the module, the module calls, the stack and the scenario's lines
    of the FX nodes each was made of."""
    per_row: dict[int, list[CallOrigin]] = {}
    for graph in graphs:
        for origin in call_origins(graph):
            row = row_of(origin.name, kernels)
            if row is not None:
                per_row.setdefault(id(row), []).append(origin)
    rows = []
    for kernel in kernels:
        origins = per_row.get(id(kernel))
        rows.append(kernel if origins is None else _placed(kernel, origins, source_file))
    return tuple(rows)


def with_section_origins(
    kernels: Sequence[Kernel], graphs: Sequence[GraphFusion], source_file: str
) -> tuple[Kernel, ...]:
    """A training step's compiled rows placed as ``with_origins`` places them, each section's from its own graphs
    (``GraphFusion.backward``): forward's and backward's kernels share names (``extern_kernels.mm``,
    ``cpp_fused_add_0``). A row of neither section (a forward-only call) is placed from every graph."""
    rows = list(kernels)
    # A step runs its backward graphs in the reverse order of their forwards, which is the order they were made in:
    # so each row's calls are in launch order, as its ``launch_time_us`` are.
    backward = [graph for graph in graphs if graph.backward][::-1]
    forward = [graph for graph in graphs if not graph.backward]
    for section, own in (("forward", forward), ("backward", backward), (None, graphs)):
        at = [index for index, kernel in enumerate(rows) if kernel.section == section]
        for index, row in zip(at, with_origins([rows[index] for index in at], own, source_file)):
            rows[index] = row
    return tuple(rows)


def _placed(kernel: Kernel, origins: list[CallOrigin], source_file: str) -> Kernel:
    counts: dict[str, int] = {}
    for origin in origins:
        module = origin.module or ""
        counts[module] = counts.get(module, 0) + 1
    stack = tuple(dict.fromkeys(frame for origin in origins for frame in origin.stack))
    lines = tuple(sorted({line for path, line in stack if path == source_file}))
    return replace(
        kernel,
        module=common_module(origin.module for origin in origins),
        module_calls=tuple(counts.items()),
        module_work=tuple(
            ModuleWork(path, time_us=spent)
            for path, spent in launch_time_by_module([origin.module or "" for origin in origins], kernel.launch_time_us)
        )
        or kernel.module_work,
        stack=tuple(f"{path}:{line}" for path, line in stack),
        lines=lines or kernel.lines,
        unplaced=None if lines else kernel.unplaced,
        line_calls=() if lines else kernel.line_calls,
    )


def modules_from_eager(eager: Sequence[Kernel], compiled: Sequence[Kernel]) -> tuple[Kernel, ...]:
    """``compiled`` where no Inductor node named a row's module (before the watched compile, or where it could not
    be watched or named no row): the deepest module holding the eager operators the row absorbed
    (``attribution``), where they had one."""
    rows = []
    for kernel in compiled:
        absorbed = [
            row.module
            for row in eager
            if kernel.short_name in row.fused_into and row.module is not None and row.section == kernel.section
        ]
        module = common_module(absorbed) if kernel.module is None else None
        rows.append(kernel if module is None else replace(kernel, module=module))
    return tuple(rows)
