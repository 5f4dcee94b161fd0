"""Compile variants measured beside ``compiled``: each compiled fresh, profiled as ``compiled`` is, and timed in
the same interleaved rounds as eager and compiled (``timed_report``).

Dynamo keeps its compiled entries on ``fn``'s code object and shares them between every ``torch.compile``
of it: a second wrapper whose backend compares equal (``fullgraph=True``) silently reuses the first one's
graph, compiling nothing, and one whose backend differs (``dynamic=True``) is logged as a *recompile* of the
first (``BACKEND_MATCH failure``), counted against its recompile limit. So each variant compiles a copy of
``fn`` with a code object of its own: its compile time, graph breaks, recompiles and kernels are its own,
and the default's entries, which the sweep goes on with, are left as they were. Its compile is timed by stage as
``compiled``'s is (``compile_time``): a variant with the default's arguments compiles the same graph again, which
the FX graph cache answers, so it is a warm compile beside ``compiled``'s, whatever the cache held before the run.
"""

from __future__ import annotations

import time
import types
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import torch
from torch._dynamo.utils import counters

from kernel_tui.engine.compiler import autotune_watch, compile_watch
from kernel_tui.engine.compiler.compile_time import CompileClock
from kernel_tui.engine.compiler.cuda_graph_watch import gpu_watch, watched
from kernel_tui.engine.compiler.generated_code import compiled_traffic
from kernel_tui.engine.counting import cuda_graphs
from kernel_tui.engine.counting.attribution import attribute
from kernel_tui.engine.counting.bandwidth import with_bandwidth
from kernel_tui.engine.counting.flops import OpFlops, with_flops
from kernel_tui.engine.counting.timing import synchronize
from kernel_tui.engine.counting.traffic import Traffic
from kernel_tui.engine.stages import training
from kernel_tui.engine.stages.loader import USER_ERRORS, LoadedScenario, StageError, stage_error
from kernel_tui.model.report.compile_variants import (
    DEFAULT_VARIANT,
    TunedOperation,
    VariantError,
    check_compile_arguments,
    check_variant_name,
)
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import ScenarioError, ScenarioReport, VariantResult
from kernel_tui.transport.protocol import StageStartedMessage

if TYPE_CHECKING:
    from kernel_tui.engine.stages.outbox import RunOutbox
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.scenario.scenario_file import ScenarioInfo

Profile = Callable[[Callable[[], Any], list[Traffic], str], ModeResult]
"""Kernels and bytes of one warm call, profiled as ``compiled`` is: (call, its traffic, the trace's name)."""


def resolved_info(info: ScenarioInfo, requested: dict[str, dict[str, Any]] | None) -> ScenarioInfo:
    """``info`` with the variants a run request adds or overrides (``--variant``), every variant's arguments
    checked against this torch; a refused one is a ``load`` error naming ``VARIANTS``' line or the flag."""
    variants = dict(info.variants)
    compile_options = info.compile_options
    for name, options in (requested or {}).items():
        try:
            options = check_compile_arguments(check_variant_name(name), options)
        except VariantError as error:
            raise _load_error(info, f"--variant {name}: {error}", None) from error
        if name == DEFAULT_VARIANT:
            compile_options = options
        else:
            variants[name] = options
    for name, options in variants.items():
        line = info.variants_line if name not in (requested or {}) else None
        where = f"--variant {name}" if line is None else "VARIANTS"
        refusal = torch_refusal(options)
        if refusal is not None:
            raise _load_error(info, f"{where}: variant {name!r}: {refusal}", line)
    return replace(info, variants=variants, compile_options=compile_options)


def torch_refusal(options: dict[str, Any]) -> str | None:
    """Why this torch's ``torch.compile`` refuses ``options`` (an unknown mode, backend or Inductor option, a
    value of the wrong type), or None. ``torch.compile`` checks them when it wraps, before compiling anything."""
    try:
        torch.compile(_never_called, **options)
    except Exception as error:  # noqa: BLE001 - torch refuses with RuntimeError, AssertionError, InvalidBackend...
        text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        # An unknown Inductor option is followed by every known option's name: hundreds of them.
        return text.split(", known options are")[0][:300]
    return None


def _never_called(*args: Any) -> None:
    """What ``torch_refusal`` wraps: ``torch.compile`` checks its arguments without calling it."""


def _load_error(info: ScenarioInfo, message: str, line: int | None) -> StageError:
    return StageError(ScenarioError("load", message, line, str(info.path)))


def fresh_function(fn: Any) -> Any:
    """``fn`` with a code object of its own, so that Dynamo's entries for it are its own (see the module's
    docstring); a callable that is no plain function is returned as it is."""
    if not isinstance(fn, types.FunctionType):
        return fn
    copy = types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__qualname__ = fn.__qualname__
    copy.__dict__.update(fn.__dict__)
    return copy


@dataclass
class VariantRun:
    """One variant compiled and profiled, waiting for the timing it shares with eager and compiled."""

    name: str
    options: dict[str, Any]
    call: Callable[[], Any] | None = None
    measured: ModeResult | None = None
    first_call_s: float | None = None
    note: str | None = None
    error: ScenarioError | None = None
    autotune: tuple[TunedOperation, ...] = ()
    clock: CompileClock | None = None
    """Its compile by stage, stopped at the end of the first call."""

    def untimed(self) -> VariantResult:
        return VariantResult(self.options, self.measured, note=self.note, error=self.error, autotune=self.autotune)


def measure_variants(
    scenario: LoadedScenario, args: tuple[Any, ...], device: str, profile: Profile, outbox: RunOutbox
) -> list[VariantRun]:
    """Compile and profile every variant of ``scenario``, one after the other; a variant that fails keeps its
    error to itself."""
    runs = []
    for name, options in scenario.info.variants.items():
        outbox.send(StageStartedMessage, "compile", f"variant {name}: torch.compile, first call")
        runs.append(measure_variant(name, options, scenario, args, device, profile))
    return runs


def measure_variant(
    name: str, options: dict[str, Any], scenario: LoadedScenario, args: tuple[Any, ...], device: str, profile: Profile
) -> VariantRun:
    run = VariantRun(name, options)
    compile_watch.count_graphs_from_zero()
    watch = compile_watch.CompileWatch().start()
    skips_before = cudagraph_skips()
    try:
        eager_step = training.measured_fn(scenario)
        compiled_fn = training.compiled_fn(scenario, eager_step, options, compile_target=fresh_function)
        run.clock = CompileClock().start()
        started = time.perf_counter()
        graph_watch = gpu_watch(options, device, str(scenario.path))
        try:
            with (
                torch.no_grad(),  # a training step turns grad on itself
                watched(graph_watch),
                autotune_watch.watching(options) as tuning,
            ):
                compiled_fn(*args)
            synchronize(device)
        finally:
            run.clock.stop()
        run.first_call_s = time.perf_counter() - started
        scenario.call(compiled_fn, args, "compile")
        synchronize(device)
        facts = watch.facts()
        run.note = cudagraph_note(options, device, cudagraph_skips() - skips_before)
        if tuning is not None:
            run.autotune = tuple(tuning.tuned)
            if not tuning.tuned:
                run.note = "; ".join(filter(None, (run.note, autotune_watch.nothing_tuned(device))))
        twin = training.traffic_twin(scenario, eager_step, device, args, options, compile_target=fresh_function)
        records = compiled_traffic(twin or compiled_fn, args)
        if twin is not None:
            records = [*cuda_graphs.graph_input_copies(args), *records]
        measured_saved = training.saved_bytes(compiled_fn, args)  # None for a forward-only fn
        measured = profile(lambda: compiled_fn(*args), records, f"variant.{name}")
    except StageError as failure:
        run.error = replace(failure.error, stage="compile")
        return run
    except USER_ERRORS as exc:
        run.error = stage_error("compile", scenario.path, exc).error
        return run
    run.measured = replace(facts.applied_to(measured), saved_bytes=measured_saved)
    if graph_watch is not None:
        run.measured = replace(run.measured, cuda_graphs=tuple(graph_watch.decisions))
    run.call = lambda: compiled_fn(*args)
    return run


def cudagraph_skips() -> int:
    return int(counters["inductor"]["cudagraph_skips"])


def cudagraph_note(options: dict[str, Any], device: str, skipped_graphs: int) -> str | None:
    """What became of the CUDA graphs ``options`` ask for: torch skips them without a word where it cannot use
    them (every graph on a CPU), counting each skip in ``counters["inductor"]["cudagraph_skips"]``."""
    if cuda_graphs.twin_compile_options(options) is None or skipped_graphs == 0:
        return None
    graphs = f"{skipped_graphs} graph{'s' if skipped_graphs != 1 else ''}"
    if device != "cuda":
        return (
            f"CUDA graphs need a CUDA device: on {device} torch.compile skipped them without a word ({graphs}), "
            "so this column runs the kernels of a compile without CUDA graphs"
        )
    return f"torch.compile skipped CUDA graphs for {graphs}; TORCH_LOGS=cudagraphs says why"


def finished(
    report: ScenarioReport, runs: list[VariantRun], eager_kernels: tuple[Kernel, ...], flop_ops: list[OpFlops]
) -> ScenarioReport:
    """The variants with what ``compiled`` has too: compile time apart from a steady call (untimed, the one call
    stays in it, as in ``compiled``'s) and by stage; timed, the eager operators each kernel replaced, bandwidth
    against the report's ceiling, FLOPs and intensity."""
    by_name = {run.name: run for run in runs}
    variants = {}
    for name, variant in report.variants.items():
        measured, run = variant.measured, by_name.get(name)
        if measured is not None and run is not None and run.first_call_s is not None and run.clock is not None:
            compile_s = max(run.first_call_s - (measured.time_us or 0.0) / 1e6, 0.0)
            measured = replace(measured, compile_s=compile_s, compile_stages=run.clock.read(compile_s))
        if measured is not None and measured.time_us is not None:
            _, rows = attribute(eager_kernels, measured.kernels)
            measured = replace(measured, kernels=with_bandwidth(rows, report.bandwidth_ceiling_gbs))
            measured = with_flops(replace(report, compiled=measured), flop_ops, report.ceilings).compiled
        variants[name] = replace(variant, measured=measured)
    return replace(report, variants=variants)
