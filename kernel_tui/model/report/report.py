"""What one scenario measured: the results that cross from the engine to the CLI and the app.

These are plain frozen dataclasses with no torch in sight, so the UI process can hold them. They
round-trip through JSON (``to_dict`` / ``from_dict``); the dict form *is* the ``--json`` contract.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from kernel_tui.model.meaning.machine_load import MachineLoad, too_wide
from kernel_tui.model.meaning.roofline import ridge_point
from kernel_tui.model.meaning.verdict import Verdict, contradictions, verdict
from kernel_tui.model.report.boundary import Boundary
from kernel_tui.model.report.call_breakdown import CallBreakdown, TimelineSpan  # noqa: F401 (the schema reads hints here)
from kernel_tui.model.report.compile_variants import TunedChoice, TunedOperation  # noqa: F401 (the schema reads hints here)
from kernel_tui.model.report.cuda_graph_decision import CudaGraphDecision
from kernel_tui.model.report.hotspots import Hotspots, hotspots
from kernel_tui.model.report.kernel import Kernel, ModuleWork
from kernel_tui.model.report.launch import KernelLaunch
from kernel_tui.model.report.library_call import LibraryKernel
from kernel_tui.model.report.machine import MachineIdentity
from kernel_tui.model.report.mode_result import CompileStages, ModeResult
from kernel_tui.model.report.module_table import ModuleRow
from kernel_tui.model.report.report_keys import MODES

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

_Record = TypeVar("_Record", bound="DataclassInstance")

PREVIEW_DEVICE = "cuda-preview"
"""The device of a report generated for a GPU without running on one: it has kernels and bytes, no times."""


def speedup_of(eager_us: float | None, time_us: float | None) -> float | None:
    """How many times faster than eager: eager's time over this one's; None when either is unknown (or 0)."""
    return eager_us / time_us if eager_us is not None and time_us else None


def gbs(bytes_moved: int | None, time_us: float | None) -> float | None:
    """Achieved bandwidth: bytes over time in GB/s (10^9 bytes a second); None when either is unknown or not
    positive."""
    if not bytes_moved or not time_us or time_us <= 0:
        return None
    return bytes_moved / time_us / 1e3


@dataclass(frozen=True)
class SweepPoint:
    """Runtime of one call at one size, eager and compiled (medians, with their spread)."""

    size: int
    """Elements per input tensor at this point."""
    eager_us: float | None
    """Median time of one eager call, in microseconds."""
    compiled_us: float | None
    """Median time of one compiled call, in microseconds."""
    eager_iqr_us: float | None = None
    """The interquartile range of the eager times."""
    compiled_iqr_us: float | None = None
    """The interquartile range of the compiled times."""
    note: str | None = None
    """Why a point has no time, or what to know about it (a recompile, the time budget)."""
    eager_bytes: int | None = None
    """Bytes moved by one eager call at this size."""
    compiled_bytes: int | None = None
    """Bytes moved by one call at this size, counted as in the kernel tables: bandwidth is bytes over time."""
    eager_peak_bytes: int | None = None
    """Eager's peak memory of one call at this size (``ModeResult.peak_bytes``)."""
    compiled_peak_bytes: int | None = None
    """The peak memory of one call at this size above what was allocated before it (``ModeResult.peak_bytes``)."""


@dataclass(frozen=True)
class Ceilings:
    """The device's two measured ceilings: what the roofline is drawn from."""

    bandwidth_gbs: float | None
    """Copy bandwidth of a large device-to-device copy."""
    matmul_gflops: float | None
    """Throughput of a large ``torch.mm`` in ``dtype``."""
    dtype: str | None = None
    """The matmul's dtype: the scenario's (its largest floating-point input)."""
    conditions: str | None = None
    """When and under what load the copy ceiling was measured (``bandwidth.ceiling_conditions``)."""
    measured_at: str | None = None
    """When the copy ceiling was measured, ISO 8601 in UTC (``2026-12-01T15:40:00Z``): a ceiling measured on a
    quieter day, or before a driver update, is not the one the kernels ran against."""

    @property
    def ridge(self) -> float | None:
        """FLOPs per byte where the two ceilings meet."""
        return ridge_point(self.bandwidth_gbs, self.matmul_gflops)


@dataclass(frozen=True)
class ExpectCheck:
    """One claim of a lesson against what was measured."""

    claimed: float
    """What the scenario claims."""
    measured: float | None
    """What was measured; None when it could not be."""
    ok: bool | None
    """True or False when measured; None when the measurement it needs was cut short (``reason`` says why):
    such a claim neither holds nor fails."""
    reason: str | None = None
    """Why ``ok`` is None, or what the claim measured when it is not a count."""

    @property
    def failed(self) -> bool:
        return self.ok is False


@dataclass(frozen=True)
class ScenarioError:
    """Why a scenario could not be (fully) measured."""

    stage: str
    """``load``, ``inputs``, ``eager``, ``compile``, ``sweep``, ``expect`` or ``engine``."""
    message: str
    """What went wrong, in a line or a few."""
    line: int | None = None
    """The line of the scenario file it points at, where known."""
    file: str | None = None
    """The file it points at (the scenario, or a helper it imports)."""
    details: str = ""
    """The traceback or the engine's stderr tail: one key away in the app, in the JSON for scripts."""

    def location(self, *, file_name_only: bool = False) -> str:
        """``path:line`` (``?`` for an unknown file); the app names the file only, as its scenario list does."""
        where = "?" if not self.file else Path(self.file).name if file_name_only else self.file
        return where if self.line is None else f"{where}:{self.line}"

    def short_line(self) -> str:
        """``file.py:9: stage: message``: the file by name, as the app's scenario list shows it, and the message's
        first line (the app's ``d`` shows the rest): the app's status line, the summary, a variant's row, gpu-check."""
        return self.one_line(self.location(file_name_only=True), first_line_only=True)

    def one_line(self, where: str | None = None, *, first_line_only: bool = False) -> str:
        """``file:line: stage: message``, ``where`` in place of ``file:line`` if given. ``first_line_only`` where
        the rest of the message is a key away (the app's details) or would break the line (a table row)."""
        message = self.message
        if first_line_only:
            lines = message.strip().splitlines()
            message = lines[0] if lines else "(no message)"
        return f"{self.location() if where is None else where}: {self.stage}: {message}"


@dataclass(frozen=True)
class VariantResult:
    """One compile variant (``VARIANTS`` or ``--variant``) beside eager: measured as ``compiled`` is, in the same
    interleaved timing, or the reason it has no numbers."""

    options: dict[str, Any]
    """The ``torch.compile`` keyword arguments it was compiled with."""
    measured: ModeResult | None = None
    """Kernels, bytes, time, compile time, graph breaks and recompiles; None when it could not be measured."""
    speedup_range: tuple[float, float] | None = None
    """The interquartile range of eager over this variant in the rounds of the timing they shared."""
    speedup_median: float | None = None
    """The median of those rounds' ratios: the speedup, from the same rounds as its range, so it lies inside."""
    note: str | None = None
    """What the device made of the arguments, e.g. a CPU skipping the CUDA graphs of ``reduce-overhead``."""
    error: ScenarioError | None = None
    """Why this variant alone has no numbers (it failed to compile or to run): the other columns keep theirs."""
    autotune: tuple[TunedOperation, ...] = ()
    """Each operation its compile tuned (max-autotune): the candidates with their times, and the winner."""

    def to_dict(self, eager_time_us: float | None) -> dict[str, Any]:
        """The JSON form: the fields of ``compiled`` (null where not measured), then the variant's own."""
        if self.measured is not None:
            mode = _mode_dict(self.measured)
        else:
            mode = {f.name: None for f in fields(ModeResult)} | {"kernels": [], "notes": []}
        time_us = self.measured.time_us if self.measured is not None else None
        return {
            **mode,
            "options": self.options,
            "speedup": self.speedup_median if self.speedup_median is not None else speedup_of(eager_time_us, time_us),
            "speedup_range": self.speedup_range,
            "speedup_too_noisy": too_wide(self.speedup_range),
            "note": self.note,
            "error": asdict(self.error) if self.error is not None else None,
            "autotune": [operation.to_dict() for operation in self.autotune],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> VariantResult:
        measured = _mode_from_dict(data) if data.get("kernel_count") is not None else None
        speedup_range = data.get("speedup_range")
        return cls(
            options=dict(data.get("options") or {}),
            measured=measured,
            speedup_range=tuple(speedup_range) if speedup_range is not None else None,
            speedup_median=data.get("speedup") if speedup_range is not None else None,
            note=data.get("note"),
            error=from_known_fields(ScenarioError, data["error"]) if data.get("error") is not None else None,
            autotune=tuple(
                TunedOperation.from_dict(item) for item in data.get("autotune") or [] if isinstance(item, dict)
            ),
        )


@dataclass(frozen=True)
class ScenarioReport:
    """Everything one run of one scenario produced; ``to_dict`` is the ``--json`` object."""

    scenario: str
    """The scenario file's absolute path."""
    title: str
    """The scenario's title: its docstring's first line, or the file's name."""
    device: str
    """Where it was measured: ``cpu``, ``cuda`` or ``cuda-preview`` (generated for a GPU, not run)."""
    device_name: str
    """The device's own name (the CPU model, the GPU's name, or the previewed architecture's GPU)."""
    torch_version: str
    """The torch that measured it."""
    size: int
    """Elements per input tensor of the measured call."""
    eager: ModeResult | None = None
    """Eager PyTorch: its kernels, bytes and time; None when the scenario failed before eager ran."""
    compiled: ModeResult | None = None
    """``torch.compile`` with the default options: the same, plus compile time, graph breaks and recompiles."""
    ideal_bytes: int | None = None
    """Each input read once and each output written once, the parameters and buffers ``fn`` uses among the inputs:
    the least any implementation could move."""
    array_bytes: int | None = None
    """Bytes of the largest input: the unit of an array-sized transfer."""
    sweep: tuple[SweepPoint, ...] = ()
    """Runtime against size, one point per size, eager and compiled; empty with ``--no-sweep``."""
    sweep_strategy: str | None = None
    """How the compiled side was compiled across the sweep's sizes (``static``, ``dynamic``, ``mark_dynamic``)."""
    sweep_compiles: int | None = None
    """How many graphs the compiled side compiled across the sweep."""
    sweep_wall_s: float | None = None
    """The sweep's wall time in seconds."""
    sweep_timed_s: float | None = None
    """The sweep's wall time, and the part of it spent in the timed calls themselves."""
    expect: dict[str, ExpectCheck] = field(default_factory=dict)
    """Each claim of the scenario (``EXPECT``) against what was measured, by claim name."""
    error: ScenarioError | None = None
    """Why the scenario could not be (fully) measured; None when it was."""
    threads: int | None = None
    """The CPU threads torch ran with (the engine fixes them before compiling)."""
    bandwidth_ceiling_gbs: float | None = None
    """The device's copy bandwidth (a large device-to-device copy), measured once and cached."""
    arch: int | None = None
    """The CUDA architecture a preview generated code for (90 for sm_90); None for a measurement."""
    assumptions: tuple[str, ...] = ()
    """What a preview decided that a real GPU would decide by measuring, and the claims it could not check."""
    speedup_range: tuple[float, float] | None = None
    """The interquartile range of eager/compiled over the interleaved timing rounds."""
    speedup_median: float | None = None
    """The median of eager/compiled over those rounds: the speedup, from the same rounds as its range (a ratio
    of the two sides' own medians can fall outside it when the machine is busy)."""
    machine_load: MachineLoad | None = None
    """How busy the machine was while measuring (load, CPU steal, how much repeated rounds disagreed)."""
    notes: tuple[str, ...] = ()
    """What the user should know besides the numbers: e.g. that the next scenario ran in a fresh engine
    because this one changed something the engine could not restore."""
    signature: str | None = None
    """What ``fn`` takes and returns, shapes and dtypes: ``a: (1048576,) float32, b: ... → () float32``."""
    ceilings: Ceilings | None = None
    """The device's copy bandwidth and matmul throughput, measured once and cached; their ratio is the ridge."""
    variants: dict[str, VariantResult] = field(default_factory=dict)
    """The compile variants other than ``default`` (which is ``compiled``), by name, in the order given."""
    source: str | None = None
    """The scenario file's text as it was run (the engine's copy: the file may change during the run), saved
    with the report (``kernel-tui run --json``): ``kernel-tui view`` reads the lesson, the claims and ``fn``
    from it on a machine without the file. None for a file that did not load, and in results saved before
    it existed."""
    machine: MachineIdentity | None = None
    """What else identifies the machine: architecture, Triton, CUDA and driver versions, host; None in results
    saved before it existed."""
    modules: tuple[ModuleRow, ...] = ()
    """The call per ``nn.Module`` (``module_table``): each module's launches, time, bytes, FLOPs and share, eager
    and compiled; empty where no kernel names a module, and in results saved before it existed."""

    def mode(self, name: str) -> ModeResult | None:
        """The result of one of ``MODES``."""
        if name not in MODES:
            raise ValueError(f"no mode {name!r}: the modes are {', '.join(MODES)}")
        return self.eager if name == "eager" else self.compiled

    @property
    def is_preview(self) -> bool:
        return self.device == PREVIEW_DEVICE

    @property
    def ideal_transfers(self) -> float | None:
        if self.ideal_bytes is None or not self.array_bytes:
            return None
        return self.ideal_bytes / self.array_bytes

    def peak_arrays(self, mode: str, section: str | None = None) -> float | None:
        """``mode``'s peak memory (or a training step's ``section``'s) in array-sized units."""
        result = self.mode(mode)
        if result is None or not self.array_bytes:
            return None
        peak = {None: result.peak_bytes, "forward": result.forward_peak_bytes, "backward": result.backward_peak_bytes}
        found = peak[section]
        return found / self.array_bytes if found is not None else None

    def saved_transfers(self, mode: str) -> float | None:
        """What ``mode``'s forward saves for backward, in array-sized units."""
        result = self.mode(mode)
        if result is None or result.saved_bytes is None or not self.array_bytes:
            return None
        return result.saved_bytes / self.array_bytes

    @property
    def speedup(self) -> float | None:
        if self.eager is None or self.compiled is None:
            return None
        if self.speedup_median is not None:
            return self.speedup_median
        return speedup_of(self.eager.time_us, self.compiled.time_us)

    @property
    def speedup_too_noisy(self) -> bool:
        """The speedup's range is too wide to mean anything: shown in words, not as numbers."""
        return too_wide(self.speedup_range)

    @property
    def verdict(self) -> Verdict | None:
        """What the time means, eager against compiled: a cause of ``verdict.CAUSES``; None without both modes.
        A preview, which times nothing, is given only the causes its counts show."""
        return verdict(self.eager, self.compiled, self.speedup_range, self.speedup, preview=self.is_preview)

    @functools.cached_property
    def hotspots(self) -> tuple[Hotspots, ...]:
        """Per mode, the kernels and modules that hold most of the call, by share of its kernel time
        (``hotspots``): read from the kernels and ``modules``, so never at odds with them. Worked out once per
        report: the summary strip reads it again at every resize."""
        return hotspots({name: self.mode(name) for name in MODES}, self.modules)

    @property
    def contradictions(self) -> tuple[str, ...]:
        """Figures of this report that cannot both be true (``verdict.contradictions``)."""
        return contradictions({name: self.mode(name) for name in MODES})

    @property
    def ok(self) -> bool:
        return self.error is None and not any(check.failed for check in self.expect.values())

    def to_dict(self) -> dict[str, Any]:
        # The modes and variants (their kernels carry generated code) are written by their own to_dict, once:
        # asdict() of the whole report walked them a second time for every engine message and --json line.
        data = asdict(replace(self, eager=None, compiled=None, variants={}))
        for name in MODES:
            result = self.mode(name)
            if result is not None:
                data[name] = _mode_dict(result)
        data["ideal_transfers"] = self.ideal_transfers
        data["speedup"] = self.speedup
        data["speedup_too_noisy"] = self.speedup_too_noisy
        found = self.verdict
        data["verdict"] = found.to_dict() if found is not None else None
        data["contradictions"] = list(self.contradictions)
        data["hotspots"] = [asdict(found) for found in self.hotspots]
        if self.ceilings is not None:
            data["ceilings"]["ridge"] = self.ceilings.ridge
        eager_time_us = self.eager.time_us if self.eager is not None else None
        data["variants"] = {name: variant.to_dict(eager_time_us) for name, variant in self.variants.items()}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScenarioReport:
        known = {f.name for f in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        for mode in MODES:
            if values.get(mode) is not None:
                values[mode] = _mode_from_dict(values[mode])
        values["sweep"] = tuple(from_known_fields(SweepPoint, point) for point in values.get("sweep", ()))
        values["assumptions"] = tuple(values.get("assumptions", ()))
        values["expect"] = {
            mode: from_known_fields(ExpectCheck, check) for mode, check in values.get("expect", {}).items()
        }
        if values.get("error") is not None:
            values["error"] = from_known_fields(ScenarioError, values["error"])
        values["notes"] = tuple(values.get("notes", ()))
        if values.get("ceilings") is not None:
            values["ceilings"] = from_known_fields(Ceilings, values["ceilings"])
        if values.get("speedup_range") is not None:
            values["speedup_range"] = tuple(values["speedup_range"])
        if values.get("machine") is not None:
            values["machine"] = from_known_fields(MachineIdentity, values["machine"])
        if values.get("machine_load") is not None:
            values["machine_load"] = from_known_fields(MachineLoad, values["machine_load"])
        values["variants"] = {
            name: VariantResult.from_dict(variant) for name, variant in (values.get("variants") or {}).items()
        }
        values["modules"] = tuple(from_known_fields(ModuleRow, row) for row in values.get("modules", ()))
        return cls(**values)


def known_launches(report: ScenarioReport) -> list[tuple[str, Kernel, KernelLaunch]]:
    """Each kernel whose launch is known, with its mode, in table order: what the launch tables list."""
    rows = []
    for mode in ("eager", "compiled"):
        result = report.mode(mode)
        for kernel in result.kernels if result is not None else ():
            if kernel.launch is not None and kernel.launch.is_known:
                rows.append((mode, kernel, kernel.launch))
    return rows


def from_known_fields(cls: type[_Record], data: dict[str, Any]) -> _Record:
    """Build ``cls`` from the fields it knows: a newer engine may send more, and that must not break us."""
    names = {f.name for f in fields(cls)}
    return cls(**{key: value for key, value in data.items() if key in names})


def _mode_dict(mode: ModeResult) -> dict[str, Any]:
    """``asdict``, with each kernel's launch in its JSON form (its derived ``elements_per_thread`` included)."""
    data = asdict(mode)
    for kernel, row in zip(mode.kernels, data["kernels"]):
        row["launch"] = kernel.launch.to_dict() if kernel.launch is not None else None
        for inside, part in zip(kernel.library_kernels, row["library_kernels"]):
            part["launch"] = inside.launch.to_dict() if inside.launch is not None else None
    return data


def _kernel_from_dict(data: dict[str, Any]) -> Kernel:
    values = dict(data)
    values["launch"] = KernelLaunch.from_dict(values.get("launch"))
    for name in ("aten_ops", "lines", "fused_into", "stack"):
        values[name] = tuple(values.get(name, ()))
    values["line_calls"] = tuple((int(line), int(calls)) for line, calls in values.get("line_calls", ()))
    values["module_calls"] = tuple((str(path), int(calls)) for path, calls in values.get("module_calls", ()))
    values["launch_time_us"] = tuple(float(us) for us in values.get("launch_time_us", ()))
    values["module_work"] = tuple(from_known_fields(ModuleWork, part) for part in values.get("module_work", ()))
    values["library_kernels"] = tuple(
        from_known_fields(LibraryKernel, {**part, "launch": KernelLaunch.from_dict(part.get("launch"))})
        for part in values.get("library_kernels", ())
    )
    return from_known_fields(Kernel, values)


def _mode_from_dict(data: dict[str, Any]) -> ModeResult:
    values = dict(data)
    values["kernels"] = tuple(_kernel_from_dict(kernel) for kernel in values.get("kernels", ()))
    values["boundaries"] = tuple(
        from_known_fields(Boundary, {**boundary, "lines": tuple(boundary.get("lines", ()))})
        for boundary in values.get("boundaries", ())
    )
    for name in ("graph_break_reasons", "recompile_reasons", "notes", "recomputed"):
        values[name] = tuple(values.get(name, ()))
    values["recomputed_flops"] = tuple(tuple(pair) for pair in values.get("recomputed_flops", ()))
    values["call_breakdown"] = CallBreakdown.from_dict(values.get("call_breakdown"))
    if values.get("compile_stages") is not None:
        values["compile_stages"] = from_known_fields(CompileStages, values["compile_stages"])
    values["cuda_graphs"] = tuple(from_known_fields(CudaGraphDecision, item) for item in values.get("cuda_graphs", ()))
    return from_known_fields(ModeResult, values)
