"""Why two compiled kernels stayed apart: each pair of kernels that passes a buffer through memory, named as the
kernel table names them, with the reason's kind, the learner's words, Inductor's own text and an experiment.

``fusion_watch`` says what the scheduler decided per graph; here its scheduler nodes become the kernels of the
generated wrapper (a C++ kernel may hold several nodes' loops: a pair inside one kernel passes its value from loop
to loop through memory, a boundary whose producer and consumer are the same kernel), and a
graph break becomes a boundary of its own between the last kernel of one graph and the first of the next.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kernel_tui.model.names.names import is_wrapper_kernel, without_graph_counter
from kernel_tui.model.report.boundary import Boundary

if TYPE_CHECKING:
    from kernel_tui.engine.compiler.fusion_watch import GraphFusion, NodeFacts, PairFacts
    from kernel_tui.model.report.kernel import Kernel

_CALL = re.compile(r"^\s+(?:([\w, ]+?)\s*=\s*)?([\w.]+)\((.*)\)\s*$")
_BUFFER = re.compile(r"\b(?:buf\d+|arg\d+_\d+)\b")
_LINE = re.compile(r"line (\d+)|\.py:(\d+):")
_MATMULS = {"mm", "addmm", "bmm", "baddbmm", "matmul", "_int_mm", "linear"}
_WORDS = {
    "mm": "matmul",
    "addmm": "matmul",
    "bmm": "batched matmul",
    "baddbmm": "batched matmul",
    "div": "division",
    "mul": "multiplication",
    "add": "addition",
    "sub": "subtraction",
    "relu": "ReLU",
    "index_put_": "indexed assignment",
    "index_put": "indexed assignment",
    "amax": "max",
    "_transformer_encoder_layer_fwd": "encoder layer (PyTorch's fast path)",
    "_native_multi_head_attention": "attention (PyTorch's fast path)",
}


def wrapper_calls(source: str) -> list[tuple[str, frozenset[str]]]:
    """Each kernel or library call of a wrapper's ``call()`` in order (``cpp_fused_relu_0``,
    ``extern_kernels.mm``), and the buffers it is handed (or assigned)."""
    body = source[source.find("def call(") :] if "def call(" in source else ""
    calls = []
    for line in body.splitlines():
        match = _CALL.match(line)
        if match is None:
            continue
        assigned, callee, arguments = match.groups()
        buffers = frozenset(_BUFFER.findall(arguments + " " + (assigned or "")))
        name = callee.removesuffix(".run")
        if is_wrapper_kernel(name):
            calls.append((name, buffers))
        elif callee.startswith(("extern_kernels.", "torch.ops.aten.", "aten.")):
            calls.append((callee, buffers))
    return calls


def _as_aten(callee: str) -> str:
    """``aten::mm`` for a library call written ``extern_kernels.mm`` or ``torch.ops.aten.mm.default``: the
    profiler's name of it on a measured run."""
    parts = callee.split(".")
    if callee.startswith("torch.ops.") and len(parts) > 3:
        return f"aten::{parts[3]}"
    return f"aten::{parts[1]}" if len(parts) > 1 else callee


def node_kernels(graph: GraphFusion) -> list[str | None]:
    """The kernel each of the graph's scheduler nodes became, in order (``node_calls``)."""
    return _kernel_names(graph, node_calls(graph))


def _kernel_names(graph: GraphFusion, placed: list[int | None]) -> list[str | None]:
    """The kernel named by each of ``placed``, the graph's nodes' calls (``node_calls``)."""
    calls = wrapper_calls(graph.wrapper)
    return [calls[index][0] if index is not None else None for index in placed]


def node_calls(graph: GraphFusion) -> list[int | None]:
    """The call of the wrapper (an index into ``wrapper_calls``) each of the graph's scheduler nodes became.

    A node's kernel is the first call handed a buffer it writes: a buffer is written before it is read, and a C++
    kernel that holds the loops of several nodes is handed each of their buffers. That does not rest on the
    wrapper calling the nodes in their order, which it does not always do (it called a library call whose result
    nothing else reads last; two independent kernels the other way round). A node whose buffers no call is handed
    (a mutation, which the wrapper names by the mutated buffer's old name, or a buffer local to a C++ kernel) is
    the next call handed one it mutates, else the call before's."""
    calls = wrapper_calls(graph.wrapper)
    kernels: list[int | None] = []
    start = -1
    for node in graph.nodes:
        written, mine = set(node.written), set(node.written) | set(node.mutated)
        found = next((index for index, (_, buffers) in enumerate(calls) if buffers & written), None)
        if found is None:
            found = next((index for index in range(start + 1, len(calls)) if calls[index][1] & mine), None)
        if found is None and 0 <= start < len(calls) and calls[start][1] & mine:
            found = start
        kernels.append(found)
        start = found if found is not None else start
    return kernels


def compiled_boundaries(
    graphs: Sequence[GraphFusion], break_reasons: Sequence[str], kernels: Sequence[Kernel]
) -> tuple[Boundary, ...]:
    """Every boundary of a compiled call: within each graph, and across each graph break."""
    found: list[Boundary] = []
    graphs = [graph for graph in graphs if graph.nodes]
    nodes_calls = [node_calls(graph) for graph in graphs]
    placed = [(graph, _kernel_names(graph, calls)) for graph, calls in zip(graphs, nodes_calls)]
    for (graph, names), calls in zip(placed, nodes_calls):
        for pair in graph.pairs:
            producer, consumer = names[pair.producer], names[pair.consumer]
            if producer is None or consumer is None:
                continue
            if calls[pair.producer] == calls[pair.consumer] and not is_wrapper_kernel(producer):
                # A node with no kernel of its own (the MultiOutput that unpacks attention's results) placed on
                # the library call that reads it: one call, no value passed between two.
                continue
            found.append(_boundary(graph, pair, producer, consumer, kernels))
    for index, ((before, before_names), (after, after_names)) in enumerate(zip(placed, placed[1:])):
        reason = break_reasons[index] if index < len(break_reasons) else ""
        crossing = _across_break(before, before_names, after, after_names, reason, kernels)
        if crossing is not None:
            found.append(crossing)
    # Two nodes of one kernel reading the same library result are one boundary of that pair of kernels.
    first: dict[tuple[str, str, str, str], Boundary] = {}
    for boundary in found:
        first.setdefault((boundary.producer, boundary.consumer, boundary.kind, boundary.buffer), boundary)
    return tuple(first.values())


def _boundary(graph: GraphFusion, pair: PairFacts, producer: str, consumer: str, kernels: Sequence[Kernel]) -> Boundary:
    first, second = graph.nodes[pair.producer], graph.nodes[pair.consumer]
    said = "; ".join(pair.inductor) or (
        "Inductor's can_fuse says yes now: its fusion loop chose other pairs first"
        if pair.can_fuse
        else "Inductor logged no reason"
    )
    kind = reason_kind(first, second, said)
    words = reason_words(kind, first, second, pair.buffer, said)
    if producer == consumer and is_wrapper_kernel(producer):
        # The C++ backend writes the loops of consecutive nodes into one kernel; the value still passes through
        # memory from one loop to the next. (Two calls of one library operator are two calls.)
        words = f"two loops of one kernel: {words}"
    return Boundary(
        producer=_row_name(producer, kernels),
        consumer=_row_name(consumer, kernels),
        buffer=pair.buffer,
        buffer_bytes=pair.buffer_bytes,
        kind=kind,
        reason=words,
        inductor=said,
        lines=_lines(consumer, kernels, second),
        experiment=experiment_for(kind, first, second),
    )


def _across_break(
    before: GraphFusion,
    before_names: list[str | None],
    after: GraphFusion,
    after_names: list[str | None],
    reason: str,
    kernels: Sequence[Kernel],
) -> Boundary | None:
    """The last kernel writing the earlier graph's output, and the first reading the later graph's input."""
    writers = [i for i, node in enumerate(before.nodes) if set(node.written) & set(before.outputs)]
    readers = [i for i, node in enumerate(after.nodes) if set(node.read) & set(after.inputs)]
    if not writers or not readers:
        return None
    producer, consumer = before_names[writers[-1]], after_names[readers[0]]
    if producer is None or consumer is None:
        return None
    buffer = next(name for name in before.nodes[writers[-1]].written if name in before.outputs)
    line = _LINE.search(reason)
    where = f" at line {line.group(1) or line.group(2)}" if line else ""
    return Boundary(
        producer=_row_name(producer, kernels),
        consumer=_row_name(consumer, kernels),
        buffer=buffer,
        buffer_bytes=before.output_bytes.get(buffer),
        kind="graph_break",
        reason=f"a graph break{where}: the {_ops(before.nodes[writers[-1]])} ends one compiled graph and the "
        f"{_ops(after.nodes[readers[0]])} starts the next, eager code between them",
        inductor=reason or "Dynamo broke the graph",
        lines=_lines(consumer, kernels, after.nodes[readers[0]]),
        experiment="fullgraph",
    )


def reason_kind(first: NodeFacts, second: NodeFacts, said: str) -> str:
    """Which of ``boundary.KINDS`` keeps ``first`` and ``second`` apart, from what they are and what Inductor
    said: the structural fact first (a library call cannot fuse, whatever the scheduler logged first)."""
    if first.device != second.device or "device mismatch" in said:
        return "device"
    if first.library or second.library:
        return "library"
    if first.template:
        return "template"
    if first.mutated or second.mutated:
        return "mutation"
    if first.reduction:
        return "reduction"
    if "exceeds max fusion" in said:
        return "too_many"
    if any(words in said for words in ("must go before", "will create cycle", "intermediate nodes")):
        return "order"
    if (first.elements and second.elements and first.elements != second.elements) or "numel" in said:
        return "sizes"
    return "declined"


def reason_words(kind: str, first: NodeFacts, second: NodeFacts, buffer: str, said: str) -> str:
    """The reason in the learner's words."""
    p, c = _ops(first), _ops(second)
    if kind == "library":
        library = _library_name(first.library or second.library or "", "cuda" in (first.device, second.device))
        if first.library:
            return f"the {p} is a library call ({library}): it cannot take the {c} as an epilogue"
        return f"the {c} is a library call ({library}): it cannot take the {p} in front of it"
    if kind == "template":
        return f"the {p} is a matmul template, and Inductor did not give it the {c} as an epilogue"
    if kind == "mutation":
        if second.mutated:
            return (
                f"the {c} writes in place into the {p}'s result ({buffer}), {second.elements or 0:,} of its "
                f"{first.elements or 0:,} elements: an in-place write runs as a loop of its own"
            )
        return (
            f"the {c} reads what the {p} wrote in place ({buffer}): the in-place write runs as a loop of its own, "
            f"over {first.elements or 0:,} elements where the {c} runs over {second.elements or 0:,}"
        )
    if kind == "reduction":
        reads, results = f"{first.reduced:,}" if first.reduced else "many", first.elements or 1
        if second.reduction:
            return (
                f"the {p} reduces {reads} elements into each of {results:,} partial results, and the {c} reduces "
                f"those again: a reduction feeding a reduction of another size"
            )
        each = (
            f"all {reads} elements for its one result"
            if results == 1
            else f"{reads} elements for each of its {results:,} results"
        )
        return (
            f"the {p} reads {each}, and the {c} runs over {second.elements or 0:,}: another size, and it needs "
            f"the finished {p} first"
        )
    if kind == "sizes":
        sizes = f"{first.elements or 0:,} elements and the {c} over {second.elements or 0:,}"
        return f"the {p} runs over {sizes}: different sizes"
    if kind == "too_many":
        return f"the {p} and the {c} together would hold more operations than max_fusion_size allows"
    if kind == "order":
        return f"other work must run between the {p} and the {c}"
    if kind == "device":
        return f"the {p} and the {c} run on different devices"
    return f"Inductor's scheduler did not fuse the {p} and the {c}: {said.split(': ', 1)[-1]}"


def _library_name(call: str, cuda: bool) -> str:
    """Whose code a library call runs: a matmul is cuBLAS's or a BLAS's, a convolution cuDNN's or oneDNN's, and
    anything else an ATen operator's own kernel."""
    operator = _as_aten(call).removeprefix("aten::")
    if operator in _MATMULS:
        return "cuBLAS" if cuda else "mkldnn / a BLAS"
    if operator.startswith("convolution"):
        return "cuDNN" if cuda else "oneDNN"
    return "an ATen operator's own kernel"


def experiment_for(kind: str, first: NodeFacts, second: NodeFacts) -> str | None:
    """The compile variant (``boundary.EXPERIMENTS``) that could change this boundary, where there is one."""
    if kind == "library" and first.library and set(first.aten_ops) & _MATMULS:
        return "max_autotune"
    if kind == "template":
        return "epilogue_fusion"
    if kind == "too_many":
        return "bigger_fusions"
    return None


_MOST_WORDS = 3
"""A fused kernel's operators named in a reason: the first few, then ``…``."""


def _ops(node: NodeFacts) -> str:
    """The node's operators in words: a library call by what it computes (its origins may hold every operator
    Inductor folded into its inputs), a node that writes in place by its in-place operators alone."""
    if node.library:
        call = _as_aten(node.library).removeprefix("aten::")  # torch.ops.aten.X.default: X, not its overload
        return _WORDS.get(call, call)
    in_place = [op for op in node.aten_ops if op.split(".")[0].endswith("_")] if node.mutated else []
    ops = in_place or [op for op in node.aten_ops if op not in ("full", "lift_fresh")]
    words = list(dict.fromkeys(_WORDS.get(op.split(".")[0], op.split(".")[0]) for op in ops))
    shown = " + ".join(words[:_MOST_WORDS]) + (" + …" if len(words) > _MOST_WORDS else "")
    return shown or node.name


def row_of(name: str, kernels: Sequence[Kernel]) -> Kernel | None:
    """The kernel table's row of a wrapper's kernel (the profiler may prefix a graph counter), or of a library
    operator whose passes are rows nested under it (a fused layer on the CPU): its first pass."""
    names = _spellings(name)
    return next((k for k in kernels if names & {without_graph_counter(k.name), k.short_name, k.name}), None) or next(
        (k for k in kernels if k.op in names), None
    )


def _row_name(name: str, kernels: Sequence[Kernel]) -> str:
    row = row_of(name, kernels)
    if row is None:
        return name
    return row.op if row.op in _spellings(name) and row.name not in _spellings(name) else row.name


def _spellings(name: str) -> set[str]:
    return {name, _as_aten(name)} if "." in name else {name}


def _lines(name: str, kernels: Sequence[Kernel], node: NodeFacts) -> tuple[int, ...]:
    """The consumer's lines: those of its row that its own operators were written on (a C++ kernel's row holds
    the lines of all its loops), else the row's."""
    row = row_of(name, kernels)
    if row is None:
        return ()
    own = tuple(line for line in row.lines if line in {number for _, number in node.lines})
    return own or row.lines
