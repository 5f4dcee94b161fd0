"""A training step (``TRAIN = True``) in the CUDA preview: forward and backward, eager and compiled.

The autograd engine asks the CUDA driver for a context before it runs a backward on CUDA tensors, even fake
ones, so a step cannot run on fake CUDA tensors without a GPU. It runs on fake CPU tensors instead: the
operators autograd dispatches and the graphs AOTAutograd traces follow from shapes and dtypes, the same for
both devices except where a decomposition branches on the device (said in the report's assumptions).

Eager, each operator is one launch as in any preview (``aten_cuda`` where ATen's CUDA code launches more),
in ``forward`` (the loss included) or ``backward`` (run by the autograd engine). Compiled, AOTAutograd splits
the step into forward and backward graphs with Inductor's decompositions and partitioner, as
``torch.compile`` does; each graph is then generated for the fake GPU as the preview generates any graph, and
what the step runs outside them (a gradient copied for a second input) is counted as eager work of its
section. What forward saves for backward is read as for a measurement.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from unittest import mock

import torch
import torch._dynamo
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.fx._lazy_graph_module import _LazyGraphModule

from kernel_tui.engine.compiler import compile_watch
from kernel_tui.engine.compiler.kernel_origins import with_origins
from kernel_tui.engine.compiler.recompute import recomputed_in, recomputed_work
from kernel_tui.engine.counting.flops import OpFlops, bytes_and_flops, graph_flops, with_flops
from kernel_tui.engine.counting.peak_memory import tracked_peak
from kernel_tui.engine.counting.traffic import Traffic, array_bytes, ideal_bytes
from kernel_tui.engine.preview.cuda_fakes import SdpaAsOnGpu, rewrite_sdpa
from kernel_tui.engine.preview.preview_codegen import generate_for_gpu
from kernel_tui.engine.preview.preview_inputs import HostValues, fake_inputs
from kernel_tui.engine.preview.preview_launches import DeviceOps, launch_mode, launch_rows
from kernel_tui.engine.stages import memory_report, training
from kernel_tui.engine.stages.loader import LoadedScenario, StageError, stage_error, with_grad
from kernel_tui.engine.stages.pipeline import ScenarioStages
from kernel_tui.engine.stages.signature import call_signature
from kernel_tui.model.report.report_keys import SECTIONS

if TYPE_CHECKING:
    from kernel_tui.engine.compiler.fusion_watch import GraphFusion
    from kernel_tui.engine.stages.outbox import RunOutbox
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import ScenarioReport

TRACED_ON_CPU = (
    "training: the step was traced on the CPU (the autograd engine needs a CUDA context) and its forward and "
    "backward graphs generated for the GPU; a decomposition that branches on the device may differ on a GPU"
)


class TrainingPreviewStages(ScenarioStages):
    """A training step on fake CPU tensors: its operators eager, then its forward and backward graphs generated
    for the GPU."""

    def __init__(self, scenario: LoadedScenario, arch: int, size: int, notes: list[str]) -> None:
        self.scenario, self.arch, self.size, self.notes = scenario, arch, size, notes
        self.details = {
            "inputs": f"size {size:,}, fake tensors that require grad",
            "eager": "a training step's operators on fake tensors",
            "compile": f"forward and backward graphs, Inductor for sm_{arch}",
        }
        self.fake_mode = FakeTensorMode(allow_non_fake_inputs=False)

    def inputs(self) -> None:
        self.args = with_grad(_fake_inputs_on_cpu(self.scenario, self.size, self.fake_mode))
        self.unit = array_bytes(self.args, self.scenario.weights)
        self.notes.append(TRACED_ON_CPU)

    def eager(self, report: ScenarioReport) -> ScenarioReport:
        scenario, args = self.scenario, self.args
        step = training.TrainingStep(training.forward_and_loss(scenario), lambda: scenario.weights)
        host = HostValues()
        device_ops = DeviceOps(str(scenario.path), device="cpu")
        # The attention a GPU would run (and its backward), not the CPU's flash attention the fake CPU tensors
        # would dispatch to: chosen as the forward preview chooses it, and said so in the assumptions.
        with self.fake_mode, host, SdpaAsOnGpu(self.arch, self.notes):
            scenario.call(step, args, "eager")  # once uncounted: the step makes its seed gradient on the first
            with bytes_and_flops(device_ops) as counting:
                output = scenario.call(step, args, "eager")
            eager_saved = training.saved_bytes(step, args)
            peak = tracked_peak(lambda: scenario.call(step, args, "eager"), memory_report.LIVE_SOURCE)
            differentiated = training.loss_note(scenario, args)
        self.notes.extend(host.note())
        self.flop_ops = counting.ops
        eager = replace(_sectioned(device_ops.launches, device_ops.sections, self.unit), saved_bytes=eager_saved)
        eager = replace(memory_report.with_peak(eager, peak, self.unit), buffers_allocated=peak.allocations)
        return replace(
            report,
            eager=eager,
            ideal_bytes=ideal_bytes((*args, *scenario.weights), output),
            array_bytes=self.unit,
            signature=call_signature(scenario.module.fn, args, output),
            notes=(*report.notes, *differentiated),
        )

    def compile(self, report: ScenarioReport, outbox: RunOutbox) -> ScenarioReport:
        try:
            compiled, graph_ops = _compiled_step(
                self.scenario, self.args, self.fake_mode, self.arch, self.unit, self.notes
            )
        except StageError as failure:
            return with_flops(replace(report, error=replace(failure.error, stage="compile")), self.flop_ops, None)
        except Exception as exc:  # noqa: BLE001 - a failure to generate is this scenario's compile error
            error = stage_error("compile", self.scenario.path, exc).error
            return with_flops(replace(report, error=error), self.flop_ops, None)
        return with_flops(replace(report, compiled=compiled), self.flop_ops, None, graph_ops)


def _fake_inputs_on_cpu(scenario: LoadedScenario, size: int, fake_mode: FakeTensorMode) -> tuple[Any, ...]:
    on_gpu = fake_inputs(scenario, size, fake_mode, device="cpu")  # the weights placed on the CPU already
    with fake_mode:
        return tuple(
            torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="cpu") if isinstance(t, torch.Tensor) else t
            for t in on_gpu
        )


class _Graphs:
    """A Dynamo backend that lets AOTAutograd split each graph as Inductor would, and keeps both halves; each
    attention in the graph is first pointed at the one a GPU of ``arch`` would run (``rewrite_sdpa``), so that
    AOTAutograd differentiates that one."""

    def __init__(self, device_ops: DeviceOps, arch: int, notes: list[str]) -> None:
        self.device_ops, self.arch, self.notes = device_ops, arch, notes
        self.captured: list[tuple[str, torch.fx.GraphModule, list[Any]]] = []

    def backend(self) -> Callable[..., Any]:
        from torch._dynamo.backends.common import aot_autograd
        from torch._functorch.partitioners import min_cut_rematerialization_partition
        from torch._inductor.decomposition import select_decomp_table

        split = aot_autograd(
            fw_compiler=self._keep("forward"),
            bw_compiler=self._keep("backward"),
            decompositions=select_decomp_table(),
            partition_fn=min_cut_rematerialization_partition,
        )

        def backend(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
            rewrite_sdpa(gm, self.arch, self.notes)
            return split(gm, example_inputs)

        return backend

    def _keep(self, section: str) -> Callable[..., Any]:
        from functorch.compile import make_boxed_func

        def compiler(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
            self.captured.append((section, gm, list(example_inputs)))

            def run(*args: Any) -> Any:
                # What the graph runs is generated for the GPU below; only work outside it is counted here.
                paused, self.device_ops.paused = self.device_ops.paused, True
                try:
                    return gm(*args)
                finally:
                    self.device_ops.paused = paused

            return make_boxed_func(run)

        return compiler


def _compiled_step(
    scenario: LoadedScenario, args: tuple[Any, ...], fake_mode: FakeTensorMode, arch: int, unit: int, notes: list[str]
) -> tuple[ModeResult, list[OpFlops]]:
    """The compiled step's mode, and the FLOPs of its graphs' operators: each graph is generated for the GPU
    decomposed already, so its kernels name the decomposition's operators (``var_mean`` for a layer norm)."""
    options = scenario.info.compile_options
    outside = DeviceOps(str(scenario.path), device="cpu")
    graphs = _Graphs(outside, arch, notes)
    torch._dynamo.reset()
    try:
        watch = compile_watch.CompileWatch().start()
        forward = torch.compile(
            training.forward_and_loss(scenario),
            backend=graphs.backend(),
            dynamic=options.get("dynamic"),
            fullgraph=bool(options.get("fullgraph", False)),
        )
        step = training.TrainingStep(forward, lambda: scenario.weights)
        with fake_mode, _graph_copies_made_for_real():
            scenario.call(step, args, "compile")  # both graphs made (AOTAutograd makes backward's on first use)
            facts = watch.facts()
            scenario.call(lambda *args: _backward_counted(step, args, outside), args, "compile")
            saved = training.saved_bytes(step, args)
    finally:
        torch._dynamo.reset()
    launches: list[Traffic] = []
    sections: list[str] = []
    sources: dict[str, list[str]] = {section: [] for section in SECTIONS}
    fusion: dict[str, list[GraphFusion]] = {section: [] for section in SECTIONS}
    for section, gm, example_inputs in graphs.captured:
        with fake_mode:
            on_gpu = tuple(
                torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="cuda")
                if isinstance(t, torch.Tensor)
                else t
                for t in example_inputs
            )
        code = generate_for_gpu(_on_cuda(gm, fake_mode), on_gpu, arch, options=options, notes=notes)
        launches += code.records
        sources[section] += code.sources
        fusion[section] += code.fusion
        sections += [section] * len(code.records)
    launches += outside.launches
    sections += outside.sections
    recomputed = tuple(op for section, gm, _ in graphs.captured if section == "backward" for op in recomputed_in(gm))
    mode = memory_report.planned_step(
        _sectioned(launches, sections, unit, (fusion, str(scenario.path))),
        sources["forward"],
        sources["backward"],
        saved,
        unit,
    )
    work = tuple(pair for section, gm, _ in graphs.captured if section == "backward" for pair in recomputed_work(gm))
    mode = replace(mode, saved_bytes=saved, recomputed=tuple(dict.fromkeys(recomputed)), recomputed_flops=work)
    graph_ops = [
        op
        for section, gm, _ in graphs.captured
        for op in graph_flops(gm, "backward" if section == "backward" else None)
    ]
    return facts.applied_to(mode), graph_ops


def _backward_counted(step: training.TrainingStep, args: tuple[Any, ...], outside: DeviceOps) -> torch.Tensor:
    """A step whose backward runs under ``outside``: what the autograd engine does besides the compiled backward
    graph (a gradient copied for a second input) is counted. Forward is not: a dispatch mode active around a
    compiled call makes Dynamo compile it again; work between graphs of a broken forward is left uncounted."""
    for leaf in step.leaves(args):
        leaf.grad = None
    with torch.enable_grad():
        loss = step.forward_and_loss(*args)
    seed = torch.ones_like(loss)
    with outside:
        torch.autograd.backward(loss, seed)
    return loss


def _graph_copies_made_for_real() -> Any:
    """AOTAutograd compiles backward's graph on its first use, from a deep copy of it: here within the step, so
    within the fake mode, where copying a real tensor the graph holds (nanoGPT's index ``[-1]`` in
    ``x[:, [-1], :]``, which backward's ``index_put`` reads) made a fake of it and failed. A step measured for
    real copies it outside any fake mode: so does the preview's."""
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    original = torch.fx.GraphModule.__deepcopy__

    def deepcopy(self: torch.fx.GraphModule, memo: dict[int, Any]) -> torch.fx.GraphModule:
        with unset_fake_temporarily():
            return original(self, memo)

    return mock.patch.object(torch.fx.GraphModule, "__deepcopy__", deepcopy)


def _on_cuda(gm: torch.fx.GraphModule, fake_mode: FakeTensorMode) -> torch.fx.GraphModule:
    """The graph with every device it names (a ``scalar_tensor``'s, a ``full``'s) made the GPU, ready for Dynamo
    to trace again keeping each node's modules.

    Dynamo keeps a node's ``nn_module_stack`` when it retraces a graph by finding the node behind each line of the
    graph's ``forward``: the graph is compiled to Python now, not lazily, whose stub has no such lines. It keeps
    no ``fwd_nn_module_stack`` (AOTAutograd's copy on a backward node of the stack of the forward node it
    differentiates), so a backward node's modules are given as its own; a sum of two gradients of one tensor
    (``is_gradient_acc``), which differentiates no forward node, is in the modules holding both.

    A tensor constant of the graph (nanoGPT's index ``[-1]`` in ``x[:, [-1], :]``) is a real tensor, which Dynamo
    passes to the generated code as an input: it is made a fake of the preview's mode, as every other input is."""
    cpu = torch.device("cpu")
    for node in gm.graph.nodes:
        if node.op == "get_attr" and isinstance(constant := getattr(gm, node.target, None), torch.Tensor):
            if not isinstance(constant, FakeTensor):
                setattr(gm, node.target, fake_mode.from_tensor(constant))
        if node.kwargs.get("device") in (cpu, "cpu"):
            node.kwargs = {**node.kwargs, "device": torch.device("cuda")}
        if not node.meta.get("nn_module_stack"):
            stack = node.meta.get("fwd_nn_module_stack")
            if not stack and node.meta.get("is_gradient_acc"):
                stack = _shared_stack([source.meta.get("nn_module_stack") for source in node.all_input_nodes])
            if stack:
                node.meta["nn_module_stack"] = stack
    gm.recompile()
    _LazyGraphModule.force_recompile(gm)
    return gm


def _shared_stack(stacks: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    """The outer modules every one of ``stacks`` (``nn_module_stack``s, outermost first) has; None where one is
    unknown."""
    if not stacks or not all(stacks):
        return None
    shared: dict[str, Any] = {}
    for level in zip(*(list(stack.items()) for stack in stacks if stack)):
        if any(item[0] != level[0][0] for item in level):
            break
        shared[level[0][0]] = level[0][1]
    return shared or None


def _sectioned(
    launches: list[Traffic],
    sections: list[str],
    unit: int,
    origins: tuple[dict[str, list[GraphFusion]], str] | None = None,
) -> ModeResult:
    """The step's rows, forward's then backward's; compiled (``origins``: each section's graphs and the scenario's
    file), each kernel with the modules and the stack of the FX nodes it was made of (``kernel_origins``), read in
    its own section's graphs, since forward's and backward's kernels share names (``extern_kernels.mm``)."""
    rows: list[Kernel] = []
    for section in SECTIONS:
        mine = [launch for launch, where in zip(launches, sections) if where == section]
        own = [replace(row, section=section) for row in launch_rows(mine)]
        if origins is not None:
            graphs, source_file = origins
            own = list(with_origins(own, graphs[section], source_file))
        rows += own
    return training.with_section_totals(launch_mode(tuple(rows), unit))
