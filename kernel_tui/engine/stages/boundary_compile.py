"""The measured compile's boundaries, and each compiled kernel's module and lines: ``fn`` compiled once more, as
it was, with Inductor's scheduler watched.

The measured compile may come from Inductor's cache, which skips the scheduler and so every reason; this compile
bypasses that cache (``fusion_watch``) and runs after everything is timed, so neither the compile time nor the
timings see it. Its generated C++ kernels still come from their own cache (its graphs are numbered as the
measured compile's were: ``compile_watch.count_graphs_from_zero``), and what the scheduler decided is kept
(``boundary_cache``): a graph watched before is traced by Dynamo and run as it is, not compiled again. Dynamo
keeps this compile beside the measured one (a backend of its own is a cache entry of its own), so the sweep goes
on with the measured function.

A training step's compile is watched too, for its kernels' modules and lines (not its boundaries: the notes say
why a step has none). AOTAutograd compiles a step's backward graph on its first backward; here it compiles it with
the forward (``force_non_lazy_backward_lowering``, from the same placeholders the lazy compile would use), so that
one forward call of the step's forward and loss watches both graphs, numbered as the measured step numbered them.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import torch
import torch._functorch.config

from kernel_tui.engine.compiler import boundary_cache, compile_watch
from kernel_tui.engine.compiler.boundaries import compiled_boundaries
from kernel_tui.engine.compiler.fusion_watch import FusionWatch, GraphFusion
from kernel_tui.engine.compiler.kernel_origins import with_origins, with_section_origins
from kernel_tui.engine.stages import training
from kernel_tui.transport.protocol import StageStartedMessage

if TYPE_CHECKING:
    from kernel_tui.engine.stages.loader import LoadedScenario
    from kernel_tui.engine.stages.outbox import RunOutbox
    from kernel_tui.model.report.report import ScenarioReport


def watched_compile(scenario: LoadedScenario, args: tuple[Any, ...]) -> list[GraphFusion]:
    """Compile and call ``fn`` (a training step's forward and loss, whose backward graph is compiled with it)
    with the scenario's ``COMPILE`` options, and what the scheduler decided."""
    options = scenario.info.compile_options
    watch = FusionWatch()
    inductor = torch._TorchCompileInductorWrapper(options.get("mode"), options.get("options"), options.get("dynamic"))
    inductor.config.update(watch.patches())

    def backend(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
        key = boundary_cache.graph_key(gm, example_inputs, options)
        seen = boundary_cache.kept(key) if key else None
        if seen is not None:
            watch.graphs.extend(seen)
            return gm.forward
        before = len(watch.graphs)
        with watch.wrappers():
            compiled = inductor(gm, example_inputs)
        if key:
            boundary_cache.keep(key, watch.graphs[before:])
        return compiled

    train = scenario.info.train
    compile_watch.count_graphs_from_zero()  # the measured compile's numbers: its C++ kernels, not new ones
    compiled_fn = torch.compile(
        training.forward_and_loss(scenario) if train else scenario.module.fn,
        backend=backend,
        dynamic=options.get("dynamic"),
        fullgraph=bool(options.get("fullgraph", False)),
    )
    both_graphs = torch._functorch.config.patch(force_non_lazy_backward_lowering=True)
    with both_graphs if train else contextlib.nullcontext():
        scenario.call(_with_grad(compiled_fn) if train else compiled_fn, args, "compile")
    return watch.graphs


def _with_grad(fn: Any) -> Any:
    """``fn`` called with autograd on (``LoadedScenario.call`` turns it off), so that AOTAutograd traces a step."""

    def call(*args: Any) -> Any:
        with torch.enable_grad():
            return fn(*args)

    return call


def with_boundaries(
    report: ScenarioReport, scenario: LoadedScenario, args: tuple[Any, ...], outbox: RunOutbox
) -> ScenarioReport:
    """The report with its compiled side's boundaries, and each compiled kernel's modules and lines (a training
    step's, forward and backward, without boundaries); a compile that cannot be watched says so in its notes."""
    compiled = report.compiled
    if compiled is None:
        return report
    if scenario.info.compile_options.get("backend", "inductor") != "inductor":
        return report
    train = scenario.info.train or compiled.is_training
    outbox.send(StageStartedMessage, "profile", "modules of compiled kernels" if train else "why kernels stayed apart")
    try:
        graphs = watched_compile(scenario, args)
    except Exception as error:  # noqa: BLE001 - the measured report stands without its reasons
        read = "the compiled kernels' modules and lines were" if train else "why kernels stayed apart was"
        note = f"{read} not read: the watched compile raised {type(error).__name__}: {error}"
        return replace(report, compiled=replace(compiled, notes=(*compiled.notes, note.splitlines()[0])))
    if train:
        kernels = with_section_origins(compiled.kernels, graphs, str(scenario.path))
        return replace(report, compiled=replace(compiled, kernels=kernels))
    boundaries = compiled_boundaries(graphs, compiled.graph_break_reasons, compiled.kernels)
    kernels = with_origins(compiled.kernels, graphs, str(scenario.path))
    return replace(report, compiled=replace(compiled, boundaries=boundaries, kernels=kernels))
