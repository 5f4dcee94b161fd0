"""Measure one scenario, eager and compiled: kernels, bytes, times, compile cost, claims and the size sweep.

The stages (load, inputs, eager, compile, sweep) run in ``pipeline``'s order, each reporting its progress; what
each does on this machine's device is here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch
import torch._dynamo

from kernel_tui.engine.compiler import compile_watch
from kernel_tui.engine.compiler.compile_time import CompileClock
from kernel_tui.engine.compiler.cuda_graph_watch import gpu_watch, watched
from kernel_tui.engine.compiler.generated_code import compiled_traffic
from kernel_tui.engine.compiler.kernel_origins import modules_from_eager
from kernel_tui.engine.compiler.recompute import partitioned_recompute
from kernel_tui.engine.compiler.torch_settings import KERNEL_PROFILE_OFF_IN_FN, kernel_profile_on, measurable_again
from kernel_tui.engine.counting import cuda_graphs
from kernel_tui.engine.counting import events as ev
from kernel_tui.engine.counting.attribution import attribute
from kernel_tui.engine.counting.bandwidth import (
    IMPLAUSIBLE,
    ceiling_conditions,
    ceiling_gbs,
    ceiling_measured_at,
    checked_ceiling,
    checked_matmul_ceiling,
    matmul_ceiling_gflops,
    with_bandwidth,
)
from kernel_tui.engine.counting.device import device_name
from kernel_tui.engine.counting.flops import OpFlops, eager_bytes_and_flops, scenario_dtype, with_flops
from kernel_tui.engine.counting.profiling import (
    NoDeviceActivity,
    join_compiled,
    join_eager,
    kernel_rows,
    profile_launches,
)
from kernel_tui.engine.counting.timing import synchronize
from kernel_tui.engine.counting.traffic import Traffic, array_bytes, ideal_bytes
from kernel_tui.engine.stages import memory_report, sweep, training, variants
from kernel_tui.engine.stages.boundary_compile import with_boundaries
from kernel_tui.engine.stages.loader import USER_ERRORS, LoadedScenario, StageError, load_scenario, stage_error
from kernel_tui.engine.stages.machine_identity import machine_identity
from kernel_tui.engine.stages.outbox import RunOutbox
from kernel_tui.engine.stages.pipeline import ScenarioStages, run_stages
from kernel_tui.engine.stages.signature import call_signature
from kernel_tui.engine.stages.timed_report import timed_report
from kernel_tui.model.meaning.machine_load import LoadSampler
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import Ceilings, ScenarioError, ScenarioReport, SweepPoint
from kernel_tui.model.report.report_keys import MODES
from kernel_tui.model.report.report_skeleton import report_skeleton
from kernel_tui.model.scenario.expect import check_claims
from kernel_tui.transport.protocol import StageStartedMessage, SweepPointMessage


class Measurement:
    """A run on this machine's CPU or GPU: the code runs, is profiled and timed (``pipeline`` runs the stages)."""

    def __init__(
        self,
        device: str,
        *,
        sizes: list[int] | None = None,
        swept: bool = True,
        trace_dir: str | None = None,
        variants_requested: dict[str, dict[str, Any]] | None = None,
        remeasure_ceiling: bool = False,
        timed: bool = True,
    ) -> None:
        self.device = self.claims_device = device
        self.sizes = sizes
        self.swept = swept
        self.timed = timed
        self.trace_dir = trace_dir
        self.variants_requested = variants_requested
        self.remeasure_ceiling = remeasure_ceiling
        self.machine_load = LoadSampler()
        """How busy the machine is from the run's start to its end."""

    def start(self, path: Path, size: int | None) -> ScenarioReport:
        threads = torch.get_num_threads()
        report = report_skeleton(
            path, self.device, device_name(self.device), torch.__version__, size=size, threads=threads
        )
        return replace(report, machine=machine_identity(self.device))

    def load(self, path: Path) -> LoadedScenario:
        scenario = load_scenario(path)
        scenario.info = variants.resolved_info(scenario.info, self.variants_requested)
        return scenario

    def stages(self, scenario: LoadedScenario, report: ScenarioReport) -> tuple[ScenarioStages, ScenarioReport]:
        ceiling = ceiling_gbs(self.device, report.device_name, remeasure=self.remeasure_ceiling)
        return MeasuredStages(scenario, self, report.size), replace(report, bandwidth_ceiling_gbs=ceiling)

    def finish(self, report: ScenarioReport, claims: dict[str, float], claimed_size: int | None) -> ScenarioReport:
        low, high = report.speedup_range or (None, None)
        disagreement = high / low if low and high else None
        report = replace(report, machine_load=self.machine_load.read(disagreement))
        return replace(report, expect=check_claims(claims, report, swept=self.swept, claimed_size=claimed_size))


def measure_scenario(
    path: str | Path,
    device: str,
    *,
    size: int | None = None,
    sizes: list[int] | None = None,
    run_sweep: bool = True,
    trace_dir: str | None = None,
    outbox: RunOutbox | None = None,
    variants_requested: dict[str, dict[str, Any]] | None = None,
    remeasure_ceiling: bool = False,
    timed: bool = True,
) -> ScenarioReport:
    """Everything ``kernel-tui run`` reports for one scenario file; with ``trace_dir``, the eager and
    compiled profiles are also written there as Chrome traces. ``variants_requested`` adds or overrides
    compile variants (``--variant``) over the file's ``VARIANTS``; ``remeasure_ceiling``: the device's
    ceilings are measured again, once per engine, whatever the cache holds. ``timed`` False (``--no-time``):
    no timing rounds and no sweep, which is timing too; the kernels, bytes, memory and the profiler's own
    kernel times are measured as ever."""
    run_sweep = run_sweep and timed
    measurement = Measurement(
        device,
        sizes=sizes,
        swept=run_sweep,
        trace_dir=trace_dir,
        variants_requested=variants_requested,
        remeasure_ceiling=remeasure_ceiling,
        timed=timed,
    )
    return run_stages(Path(path), measurement, outbox or RunOutbox.nowhere(), size=size, sweep=run_sweep)


def _trace_path(trace_dir: str | None, path: Path, mode: str) -> str | None:
    from kernel_tui.engine.stages.trace_names import trace_path

    return trace_path(trace_dir, path, mode)


class MeasuredStages(ScenarioStages):
    """Eager profiled, compiled with its variants profiled, all of them timed together, then the sweep."""

    partial_after_compile = True

    def __init__(self, scenario: LoadedScenario, measurement: Measurement, size: int) -> None:
        self.scenario = scenario
        self.device = measurement.device
        self.trace_dir = measurement.trace_dir
        self.sizes = measurement.sizes
        self.remeasure_ceiling = measurement.remeasure_ceiling
        self.timed = measurement.timed
        self.size = size
        self.details = {
            "inputs": f"size {size:,}",
            "eager": "warm-up and profile",
            "compile": "torch.compile, first call",
        }

    def inputs(self) -> None:
        self.args = self.scenario.make_inputs(self.size, self.device)
        self.fn = training.measured_fn(self.scenario)

    def eager(self, report: ScenarioReport) -> ScenarioReport:
        scenario, device, path, fn, args = self.scenario, self.device, self.scenario.path, self.fn, self.args
        # inputs() may set the thread count (torch.set_num_threads(1)): the run is measured with that one.
        report = replace(report, threads=torch.get_num_threads())
        output = scenario.call(fn, args, "eager")
        scenario.call(fn, args, "eager")
        synchronize(device)
        self.unit = array_bytes(args, scenario.weights)
        report = replace(
            report,
            ideal_bytes=ideal_bytes((*args, *scenario.weights), output),
            array_bytes=self.unit,
            signature=call_signature(fn, args, output),
            notes=(*report.notes, *training.loss_note(scenario, args)),
        )
        try:
            traffic, self.flop_ops = eager_bytes_and_flops(fn, args, str(path))
            eager = _mode_result(
                lambda: fn(*args),
                device,
                self.unit,
                join_eager,
                traffic,
                _trace_path(self.trace_dir, path, "eager"),
                sectioned=scenario.info.train,
            )
            eager = replace(eager, saved_bytes=training.saved_bytes(fn, args))
            eager = memory_report.eager_memory(eager, fn, args, device, self.unit)
        except USER_ERRORS as exc:
            raise stage_error("eager", path, exc) from exc
        ceiling = report.bandwidth_ceiling_gbs
        report = replace(report, eager=replace(eager, kernels=with_bandwidth(eager.kernels, ceiling)))
        self.dtype = scenario_dtype(args)
        self.matmul_gflops = matmul_ceiling_gflops(
            device, report.device_name, self.dtype, remeasure=self.remeasure_ceiling
        )
        return self._with_roofline(report)

    def _with_roofline(self, report: ScenarioReport) -> ScenarioReport:
        return _with_roofline(report, self.flop_ops, self.matmul_gflops, self.dtype)

    def _profile_compiled(self, call: Callable[[], Any], records: list[Traffic], name: str) -> ModeResult:
        """Kernels and bytes of a compiled call, ``compiled`` or a variant's, traced as ``name``."""
        trace_path = _trace_path(self.trace_dir, self.scenario.path, name)
        sectioned = self.scenario.info.train
        return _mode_result(call, self.device, self.unit, join_compiled, records, trace_path, sectioned=sectioned)

    def compile(self, report: ScenarioReport, outbox: RunOutbox) -> ScenarioReport:
        scenario, device, path, fn, args = self.scenario, self.device, self.scenario.path, self.fn, self.args
        report = replace(report, notes=(*report.notes, *measurable_again()))  # the scenario ran its code by now
        torch._dynamo.reset()
        compile_watch.count_graphs_from_zero()
        watch = compile_watch.CompileWatch().start()
        skips_before = variants.cudagraph_skips()
        clock = CompileClock().start()
        try:
            compiled_fn = training.compiled_fn(scenario, fn)
            started = time.perf_counter()
            graph_watch = gpu_watch(scenario.info.compile_options, device, str(path))
            try:
                with torch.no_grad(), watched(graph_watch):
                    compiled_fn(*args)
                synchronize(device)
            finally:
                clock.stop()
            first_call_s = time.perf_counter() - started
            scenario.call(compiled_fn, args, "compile")
            synchronize(device)
            # Put back before the compile, the switch can be turned off by fn's own call, past the engine's reach.
            profile_off_in_fn = device == "cpu" and bool(kernel_profile_on())
            # Read now: the CUDA-graph twin below compiles ``fn`` once more, which the watch would count too.
            compile_facts = watch.facts()
            graphs_note = variants.cudagraph_note(
                scenario.info.compile_options, device, variants.cudagraph_skips() - skips_before
            )
            outbox.send(StageStartedMessage, "profile", "compiled kernels")
            twin = training.traffic_twin(scenario, fn, device, args)
            records = compiled_traffic(twin or compiled_fn, args)
            if twin is not None:
                records = [*cuda_graphs.graph_input_copies(args), *records]  # the copy launches first
            compiled = self._profile_compiled(lambda: compiled_fn(*args), records, "compiled")
            compiled = replace(compiled, saved_bytes=training.saved_bytes(compiled_fn, args))
            if graphs_note is not None:
                compiled = replace(compiled, notes=(*compiled.notes, graphs_note))
            if profile_off_in_fn:
                compiled = replace(compiled, notes=(*compiled.notes, KERNEL_PROFILE_OFF_IN_FN))
            if graph_watch is not None:
                compiled = replace(compiled, cuda_graphs=tuple(graph_watch.decisions))
            compiled = memory_report.compiled_memory(compiled, compiled_fn, args, device, self.unit)
            if isinstance(fn, training.TrainingStep):
                recomputed, work = partitioned_recompute(fn.forward_and_loss, args)
                compiled = replace(compiled, recomputed=recomputed, recomputed_flops=work)
        except StageError as failure:
            report = replace(report, error=replace(failure.error, stage="compile"))
            report = timed_report(report, lambda: fn(*args), None, timed=self.timed)
            return self._with_roofline(report)
        except USER_ERRORS as exc:  # sys.exit() in fn on a compiled call too: eager results stay
            report = replace(report, error=stage_error("compile", path, exc).error)
            report = timed_report(report, lambda: fn(*args), None, timed=self.timed)
            return self._with_roofline(report)
        variant_runs = variants.measure_variants(scenario, args, device, self._profile_compiled, outbox)
        report = replace(report, variants={run.name: run.untimed() for run in variant_runs})
        variant_calls = {run.name: run.call for run in variant_runs if run.call is not None}
        if self.timed:
            timed = f"eager, compiled and {len(variant_calls)} variants" if variant_calls else "eager and compiled"
            outbox.send(StageStartedMessage, "timing", f"{timed}, interleaved")
        report = timed_report(
            replace(report, compiled=compiled),
            lambda: fn(*args),
            lambda: compiled_fn(*args),
            variant_calls,
            timed=self.timed,
        )
        timed_compiled, timed_eager = report.compiled, report.eager
        assert timed_compiled is not None and timed_eager is not None
        # The first call's time less a steady call's is the compile; untimed, the one call stays in it.
        steady_s = (timed_compiled.time_us or 0.0) / 1e6
        compile_s = max(first_call_s - steady_s, 0.0)
        compiled = replace(timed_compiled, compile_s=compile_s, compile_stages=clock.read(compile_s))
        compiled = compile_facts.applied_to(compiled)
        unattributed_eager = timed_eager.kernels
        eager_rows, compiled_rows = attribute(timed_eager.kernels, compiled.kernels)
        compiled_rows = modules_from_eager(eager_rows, compiled_rows)
        ceiling = checked_ceiling(device, report.device_name, report.bandwidth_ceiling_gbs, eager_rows + compiled_rows)
        report = replace(report, bandwidth_ceiling_gbs=ceiling)
        report = replace(
            report,
            eager=replace(timed_eager, kernels=with_bandwidth(eager_rows, ceiling)),
            compiled=replace(compiled, kernels=with_bandwidth(compiled_rows, ceiling)),
        )
        report = _note_cache_resident(report)
        report = self._with_roofline(report)
        report = variants.finished(report, variant_runs, unattributed_eager, self.flop_ops)
        report = with_boundaries(report, scenario, args, outbox)
        scenario.compiled_fn = compiled_fn  # the sweep continues with the same compiled function
        return report

    def sweep(self, report: ScenarioReport, outbox: RunOutbox) -> ScenarioReport:
        return _sweep(self.scenario, report, self.sizes, outbox)


def _with_roofline(
    report: ScenarioReport, flop_ops: list[OpFlops], matmul_gflops: float | None, dtype: torch.dtype
) -> ScenarioReport:
    """FLOPs, intensity and bound per kernel and mode, against the copy ceiling as it stands now."""
    ceilings = Ceilings(
        report.bandwidth_ceiling_gbs,
        matmul_gflops,
        str(dtype).removeprefix("torch."),
        ceiling_conditions(report.device, report.device_name),
        ceiling_measured_at(report.device, report.device_name),
    )
    counted = with_flops(report, flop_ops, ceilings)
    modes = [mode for mode in (counted.eager, counted.compiled) if mode is not None]
    fastest = max((k.gflops for mode in modes for k in mode.kernels if k.gflops is not None), default=None)
    checked = checked_matmul_ceiling(report.device, report.device_name, dtype, matmul_gflops, fastest)
    if checked == matmul_gflops:
        return counted
    return with_flops(report, flop_ops, replace(ceilings, matmul_gflops=checked))


def _note_cache_resident(report: ScenarioReport) -> ScenarioReport:
    modes = [mode for mode in map(report.mode, MODES) if mode is not None]
    above = dict.fromkeys(
        k.short_name for mode in modes for k in mode.kernels if (k.ceiling_pct or 0) > 100 * IMPLAUSIBLE
    )
    if not above:
        return report
    note = (
        f"{', '.join(above)} moved data faster than this device's copy ceiling: at this size the data stays "
        "in cache, while the ceiling is a copy from memory"
    )
    return replace(report, notes=(*report.notes, note))


def _mode_result(
    call: Callable[[], Any],
    device: str,
    unit: int,
    join: Callable[[list[ev.Launch], list[Traffic]], list[Traffic | None]],
    traffic: list[Traffic],
    trace_path: str | None = None,
    sectioned: bool = False,
) -> ModeResult:
    """Kernels and bytes of one mode; its time comes from ``timed_report``, where both modes are timed together."""
    profiled = profile_launches(call, device, trace_path=trace_path)
    if device == "cuda" and traffic and not any(profiled.per_run):
        # Work was dispatched, yet no run recorded a launch: the profiler lost the GPU's records.
        raise NoDeviceActivity(
            "the profiler recorded no GPU launch in any profiled run, though the code moved data on the GPU: "
            "kernel counts cannot be read from this profile (CUPTI records lost)"
        )
    reference = profiled.reference
    if sectioned:
        rows = training.sectioned_rows(profiled, join(reference, traffic))
    else:
        rows = kernel_rows(profiled.agreeing, join(reference, traffic), reference)
    known = [row.bytes_total for row in rows if row.bytes_total is not None]
    bytes_total = sum(known) if known else (0 if not rows else None)
    mode = ModeResult(
        kernel_count=sum(row.calls for row in rows),
        kernels=tuple(rows),
        bytes_total=bytes_total,
        time_us=None,
        transfers=(bytes_total / unit) if bytes_total is not None and unit else None,
        notes=(profiled.note,) if profiled.note else (),
        call_breakdown=profiled.breakdown,
    )
    return training.with_section_totals(mode) if sectioned else mode


def _sweep(
    scenario: LoadedScenario, report: ScenarioReport, sizes: list[int] | None, outbox: RunOutbox
) -> ScenarioReport:
    plan = sweep.plan_sizes(scenario, report, sizes)
    outbox.send(StageStartedMessage, "sweep", f"{len(plan.sizes)} sizes", total=len(plan.sizes))
    compile_watch.raise_recompile_limit(len(plan.sizes) + 8)
    watch = compile_watch.CompileWatch().start()
    points: list[SweepPoint] = []

    def on_point(point: SweepPoint) -> None:
        points.append(point)
        outbox.send(SweepPointMessage, point)

    error: ScenarioError | None = None
    started, spent = time.perf_counter(), None
    try:
        spent = sweep.run_sweep(scenario, report.device, plan, on_point)
    except StageError as failure:
        error = replace(failure.error, stage="sweep")
    strategy = sweep.strategy_text(scenario.info.compile_options, watch)
    if spent is not None:
        strategy = f"{strategy}; {sweep.budget_text(spent)}"
    return replace(
        report,
        sweep=tuple(points),
        sweep_strategy=strategy,
        sweep_compiles=watch.graphs,
        sweep_wall_s=time.perf_counter() - started,
        sweep_timed_s=spent.timed_s if spent is not None else None,
        error=error or report.error,
    )
