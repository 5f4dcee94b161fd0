"""What Inductor's scheduler decided about fusing, read while it compiles: its kernels, which buffers pass between
them, and, for each pair that passes one, its own reason for keeping them apart.

Inductor gives every pass it makes over a graph's final kernels to ``config._post_fusion_custom_pass`` (torch
2.13 and 2.14 alike). There we note each scheduler node (one kernel, or a library call) and ask the scheduler's
own ``can_fuse`` about each producer and consumer of a buffer, which rolls back anything it tries. What it says
goes to the ``fusion`` log artifact as a ``WhyNoFuse`` (both node names and the reason); we listen on that logger
only while asking. A backend that declines without a word (the C++ backend declines a reduction's consumer so)
is recorded as that backend declining.

A pass that is not a ``CustomSchedulerPass`` makes Inductor bypass its graph cache, so the scheduler runs even
where the compile was cached: that is what we want here, and why only a compile of its own is watched.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

from kernel_tui.engine.counting.module_paths import fx_node_module
from kernel_tui.engine.counting.source_lines import users_frame

_FUSION_LOGGER = "torch._inductor.scheduler.__fusion"


@dataclass(frozen=True)
class NodeFacts:
    """One kernel of a graph as the scheduler left it after fusion."""

    name: str
    """The scheduler's name (``op0_op1`` for two fused operations), as ``WhyNoFuse`` prints it."""
    written: tuple[str, ...]
    read: tuple[str, ...]
    mutated: tuple[str, ...]
    library: str | None
    """A library call's name in the wrapper (``extern_kernels.mm``); None for generated code."""
    template: bool
    reduction: bool
    elements: int | None
    """The kernel's loop: the elements it writes (its pointwise range)."""
    reduced: int | None
    """A reduction's elements reduced per output; None for a pointwise kernel."""
    aten_ops: tuple[str, ...]
    device: str
    lines: tuple[tuple[str, int], ...] = ()
    """Where its operators were written: the innermost frame (file, line) of each one's stack trace."""
    modules: tuple[str | None, ...] = ()
    """The module that ran each of its FX nodes (``module_paths.node_module``; None for ``fn``'s own code)."""
    stack: tuple[tuple[str, int], ...] = ()
    """Every frame outside torch's own files of its nodes' stack traces, each node's nearest first."""


@dataclass(frozen=True)
class PairFacts:
    """A producer and a consumer of one buffer, and what the scheduler said about fusing them."""

    producer: int
    consumer: int
    buffer: str
    buffer_bytes: int | None
    can_fuse: bool | None
    """The scheduler's answer now; None where asking raised."""
    inductor: tuple[str, ...]
    """Inductor's own words (``cannot fuse op0 with op1: ...``), as its fusion log has them."""


@dataclass
class GraphFusion:
    """One compiled graph: its kernels in order, the pairs that pass a buffer, and its wrapper's source."""

    nodes: list[NodeFacts] = field(default_factory=list)
    pairs: list[PairFacts] = field(default_factory=list)
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    output_bytes: dict[str, int | None] = field(default_factory=dict)
    wrapper: str = ""
    backward: bool = False
    """A training step's backward graph (Inductor's ``GraphLowering.is_backward``): its kernels are the step's
    ``backward`` section's, whose names repeat forward's (``cpp_fused_add_0`` in each)."""


class _WhyNoFuseLog(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.said: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        why: Any = record.msg
        if all(hasattr(why, name) for name in ("name1", "name2", "reason")):
            with contextlib.suppress(Exception):  # a reason whose arguments do not format is still its words
                self.said.append(str(why))
                return
            self.said.append(f"cannot fuse {why.name1} with {why.name2}: {why.reason}")


@contextlib.contextmanager
def _listening() -> Iterator[_WhyNoFuseLog]:
    logger = logging.getLogger(_FUSION_LOGGER)
    handler, level = _WhyNoFuseLog(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


class FusionWatch:
    """Collects a ``GraphFusion`` per graph Inductor compiles while ``patches()`` are applied to its config."""

    def __init__(self) -> None:
        self.graphs: list[GraphFusion] = []
        self._by_graph: dict[int, GraphFusion] = {}

    def patches(self) -> dict[str, Any]:
        """Inductor config entries that make it report to this watch; none on a torch without the hook (then
        no graph is watched and no boundary found, and the compile is as it would be)."""
        import torch._inductor.config

        if not hasattr(torch._inductor.config, "_post_fusion_custom_pass"):
            return {}
        return {"_post_fusion_custom_pass": self._after_fusion}

    @contextlib.contextmanager
    def wrappers(self) -> Iterator[None]:
        """Keep each graph's generated wrapper source, to name the kernel each scheduler node became."""
        from torch._inductor.graph import GraphLowering

        original = GraphLowering.compile_to_module
        watch = self

        def compile_to_module(graph: Any) -> Any:
            module = original(graph)
            found = watch._by_graph.get(id(graph))
            if found is not None:
                with contextlib.suppress(OSError, TypeError), open(str(module.__file__), encoding="utf-8") as handle:
                    found.wrapper = handle.read()
            return module

        with mock.patch.object(GraphLowering, "compile_to_module", compile_to_module):
            yield

    def _after_fusion(self, nodes: list[Any]) -> list[Any]:
        from torch._inductor.virtualized import V

        try:
            graph = self._graph_of(V.graph)
            graph.nodes = [_facts(node) for node in nodes if not _is_nop(node)]
            kept = [node for node in nodes if not _is_nop(node)]
            graph.pairs = _pairs(kept, graph.nodes)
            graph.output_bytes = {name: _buffer_bytes(name) for name in graph.outputs}
        except Exception:
            logging.getLogger(__name__).debug("fusion watch failed", exc_info=True)
        return nodes

    def _graph_of(self, lowering: Any) -> GraphFusion:
        graph = GraphFusion(
            inputs=tuple(getattr(lowering, "graph_input_names", ())),
            outputs=tuple(_output_names(lowering)),
            backward=bool(getattr(lowering, "is_backward", False)),
        )
        self._by_graph[id(lowering)] = graph
        self.graphs.append(graph)
        return graph


def _output_names(lowering: Any) -> list[str]:
    names = []
    for output in getattr(lowering, "graph_outputs", ()) or ():
        with contextlib.suppress(Exception):
            names.append(output.get_name())
    return names


def _is_nop(node: Any) -> bool:
    from torch._inductor.scheduler import NopKernelSchedulerNode

    return isinstance(node, NopKernelSchedulerNode) and not node.is_template()


def _hint(value: Any) -> int | None:
    from torch._inductor.virtualized import V

    try:
        return int(V.graph.sizevars.optimization_hint(value, fallback=0)) or None
    except Exception:  # noqa: BLE001 - an unbacked size has no number to show
        return None


def _facts(node: Any) -> NodeFacts:
    from torch._inductor.scheduler import ExternKernelSchedulerNode

    group = getattr(node, "group", None)
    elements = reduced = None
    if group is not None and len(group) == 2:
        ranges, reduction_ranges = group[1]
        elements = _hint(_product(ranges))
        reduced = _hint(_product(reduction_ranges)) if node.is_reduction() else None
    library = None
    if isinstance(node, ExternKernelSchedulerNode):
        library = str(getattr(node.node, "python_kernel_name", None) or type(node.node).__name__)
    mutated = tuple(sorted(name for buffer in node.get_outputs() for name in buffer.get_mutations()))
    return NodeFacts(
        name=node.get_name(),
        written=tuple(sorted(node.get_buffer_names())),
        read=tuple(sorted(dep.name for dep in node.read_writes.reads)),
        mutated=mutated,
        library=library,
        template=bool(node.is_template()),
        reduction=bool(node.is_reduction()),
        elements=elements,
        reduced=reduced,
        aten_ops=_aten_ops(node),
        device=str(getattr(node.get_device(), "type", "") or ""),
        lines=_frames(node),
        modules=tuple(fx_node_module(origin) for origin in _origins(node)),
        stack=_user_stack(node),
    )


def _product(sizes: Any) -> Any:
    """Elements of a loop: the C++ backend groups nodes by their ranges, Triton's by their element count."""
    if not isinstance(sizes, (tuple, list)):
        return sizes
    total: Any = 1
    for size in sizes:
        total = total * size
    return total


def _aten_ops(node: Any) -> tuple[str, ...]:
    ops: list[str] = []
    for snode in node.get_nodes():
        for origin in sorted(getattr(snode.node, "origins", ()) or (), key=lambda fx_node: fx_node.name):
            target = getattr(origin, "target", None)
            name = getattr(target, "__name__", None) or str(target)
            bare = re.sub(r"\.default$", "", name)
            if origin.op == "call_function" and bare not in ops:
                ops.append(bare)
    return tuple(ops)


_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def _frames(node: Any) -> tuple[tuple[str, int], ...]:
    frames: list[tuple[str, int]] = []
    for snode in node.get_nodes():
        for origin in getattr(snode.node, "origins", ()) or ():
            found = _FRAME.findall(str(getattr(origin, "meta", {}).get("stack_trace") or ""))
            if found and (found[-1][0], int(found[-1][1])) not in frames:
                frames.append((found[-1][0], int(found[-1][1])))
    return tuple(sorted(frames))


def _origins(node: Any) -> list[Any]:
    """The FX nodes Inductor fused into a scheduler node (``origins``), calls only, by name. A library call's is
    the one it was lowered from (``origin_node``): its origins also hold the nodes that made its input (a layer
    norm before a projection), whose work it does not do."""
    from torch._inductor.scheduler import ExternKernelSchedulerNode

    own = getattr(node.node, "origin_node", None) if isinstance(node, ExternKernelSchedulerNode) else None
    if own is not None and getattr(own, "op", None) == "call_function":
        return [own]
    found = {id(origin): origin for snode in node.get_nodes() for origin in getattr(snode.node, "origins", ()) or ()}
    calls = [origin for origin in found.values() if getattr(origin, "op", None) == "call_function"]
    return sorted(calls, key=lambda origin: origin.name)


def _user_stack(node: Any) -> tuple[tuple[str, int], ...]:
    """Where the user wrote each of the node's FX nodes: its stack trace's frames outside torch's, kernel-tui's
    (a training step's default loss) and Python's own files, nearest first."""
    frames: list[tuple[str, int]] = []
    for origin in _origins(node):
        found = _FRAME.findall(str(getattr(origin, "meta", {}).get("stack_trace") or ""))
        frames.extend((path, int(line)) for path, line in reversed(found) if users_frame(path))
    return tuple(dict.fromkeys(frames))


def _buffer_bytes(name: str) -> int | None:
    from torch._inductor.virtualized import V

    try:
        buffer = V.graph.get_buffer(name)
        return _hint(buffer.get_numel() * buffer.get_dtype().itemsize)
    except Exception:  # noqa: BLE001 - a buffer without a size (a multi-output's) has no bytes to show
        return None


def _pairs(nodes: list[Any], facts: list[NodeFacts]) -> list[PairFacts]:
    """Each producer and later consumer of a buffer, with the scheduler's answer about fusing them."""
    pairs = []
    for producer_index, producer in enumerate(facts):
        for consumer_index in range(producer_index + 1, len(facts)):
            passed = [name for name in producer.written if name in facts[consumer_index].read]
            if not passed:
                continue
            verdict, words = _ask(nodes[producer_index], nodes[consumer_index])
            pairs.append(PairFacts(producer_index, consumer_index, passed[0], _buffer_bytes(passed[0]), verdict, words))
    return pairs


def _ask(producer: Any, consumer: Any) -> tuple[bool | None, tuple[str, ...]]:
    """The scheduler's own ``can_fuse`` on the two, and what it logged while answering."""
    with _listening() as log:
        try:
            verdict: bool | None = bool(producer.scheduler.can_fuse(producer, consumer))
        except Exception as error:  # noqa: BLE001 - a question the scheduler cannot answer is no reason
            verdict = None
            log.said.append(f"asking Inductor's can_fuse raised {type(error).__name__}")
    if verdict is False and not log.said:
        backend = type(producer.scheduler.get_backend(producer.get_device())).__name__
        log.said.append(
            f"cannot fuse {producer.get_name()} with {consumer.get_name()}: {backend}.can_fuse_vertical declined "
            "(it logs no reason)"
        )
    return verdict, tuple(dict.fromkeys(log.said))
