"""The CUDA preview: which kernels a scenario would run on a GPU of a given architecture, on any machine.

Nothing executes on a device and nothing is timed. The scenario's inputs are fake CUDA tensors (shapes, strides
and dtypes, no memory). Eager, ``fn`` runs on them under a dispatch mode: each ATen operator that works on the
device is one launch, with its bytes counted by the same rules as a measurement (``traffic``); a copy between
host and device is a memcpy. Compiled, Dynamo traces ``fn`` as usual and Inductor generates the code it would
generate for that GPU (``cuda_fakes`` makes it believe in one); the generated wrapper then runs on the fake
tensors with every kernel launch a no-op, under the same recording stand-ins that count a measured compile's
bytes (``generated_code``): kernels in launch order, calls per run of ``fn``, bytes from the buffers each
kernel receives, library calls and copies as rows of their own. Graph breaks are counted as for a measurement,
and code between graphs runs eagerly on the fake tensors (``.item()`` answers a stand-in value).

The report has the usual shape with ``device`` ``cuda-preview``, ``arch``, ``assumptions`` (what a GPU would
decide by measuring, and the claims a preview cannot check), and no times. Every compile here starts from a
fresh Dynamo, with Inductor's caches off only inside it, and leaves no fake device fact behind.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from unittest import mock

import torch
import torch._dynamo
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

from kernel_tui.engine import aten_cuda, compile_watch
from kernel_tui.engine.attribution import attribute
from kernel_tui.engine.cuda_fakes import (
    DEFAULT_ARCH,
    SdpaAsOnGpu,
    device_properties,
    fake_cuda,
    rewrite_sdpa,
)
from kernel_tui.engine.fake_wrapper import make_wrapper_fake
from kernel_tui.engine.flops import bytes_and_flops, with_flops
from kernel_tui.engine.generated_code import compiled_traffic, memcpy_name
from kernel_tui.engine.launch_info import preview_launch, preview_launch_note
from kernel_tui.engine.loader import LoadedScenario, StageError, load_scenario, stage_error
from kernel_tui.engine.measure import Emit, claims_of_unloaded, no_emit
from kernel_tui.engine.op_kinds import moves_data, op_name
from kernel_tui.engine.preview_inputs import HostValues, any_on_device, fake_inputs
from kernel_tui.engine.preview_support import check_preview, quiet_torch_warnings
from kernel_tui.engine.profiling import line_calls_of
from kernel_tui.engine.signature import call_signature
from kernel_tui.engine.traffic import (
    EagerTrafficMode,
    Traffic,
    array_bytes,
    host_transfer,
    ideal_bytes,
    largest_elements,
    op_tensors,
    unique_bytes,
)
from kernel_tui.model.expect import NEEDS_SWEEP, check_claims
from kernel_tui.model.names import short_name
from kernel_tui.model.report import PREVIEW_DEVICE, Kernel, ModeResult, ScenarioReport

UNSWEPT = "a preview runs no size sweep, so it compiles no graphs across sizes"
"""Why a preview cannot check a lesson's sweep-only claims (``expect.NEEDS_SWEEP``); they are listed in its
report. Every other claim (launches, bytes, graph breaks) follows from the code alone, and is checked."""

STANDING_ASSUMPTIONS = (
    "no times: a preview generates code and runs nothing, so times, speedups and the sweep are for a real GPU",
    "eager launches: one per ATen operator that works on the device; a library may launch more (cuBLAS split-K, "
    "cuDNN); where ATen's CUDA source launches more (large full reductions, logsumexp, scans, sorts) the row says "
    "so and its count is a prediction from that source",
    "torch.cuda.is_available() is False while the code is traced: code that branches on it takes its CPU branch",
)


def device_label(arch: int) -> str:
    """The board a preview generates code for, as the report's ``device_name``."""
    return f"{device_properties(arch).name} (sm_{arch})"


def preview_scenario(
    path: str | Path, arch: int = DEFAULT_ARCH, *, size: int | None = None, emit: Emit = no_emit
) -> ScenarioReport:
    """Everything ``kernel-tui run --device cuda-preview`` reports for one scenario file."""
    check_preview()
    path = Path(path)
    report = ScenarioReport(
        scenario=str(path),
        title=path.stem,
        device=PREVIEW_DEVICE,
        device_name=device_label(arch),
        torch_version=torch.__version__,
        size=size or 0,
        arch=arch,
        assumptions=STANDING_ASSUMPTIONS,
    )
    info = None
    notes: list[str] = []
    try:
        emit("progress", stage="load", detail=str(path))
        scenario = load_scenario(path)
        info = scenario.info
        report = replace(report, title=info.title, size=size or info.size, source=scenario.source)
        with quiet_torch_warnings():
            if info.train:
                from kernel_tui.engine.preview_training import preview_training

                report = preview_training(scenario, report, arch, notes, emit)
            else:
                report = _preview_modes(scenario, report, arch, notes, emit)
    except StageError as failure:
        report = replace(report, error=failure.error)
    claims = info.claims_for("cuda") if info is not None else claims_of_unloaded(path, "cuda")
    decided = {key: value for key, value in claims.items() if key not in NEEDS_SWEEP}
    notes += [
        f"claim not checked: {key} (claimed {value:g}): {UNSWEPT}"
        for key, value in claims.items()
        if key in NEEDS_SWEEP
    ]
    return replace(
        report,
        assumptions=report.assumptions + tuple(dict.fromkeys(notes)),
        expect=check_claims(decided, report, swept=False),
    )


def preview_as_measure(arch: int) -> Callable[..., ScenarioReport]:
    """The preview in ``measure_scenario``'s shape, for the engine to call in its place (no sweep, no traces)."""

    def measure(
        path: str | Path, device: str, *, size: int | None = None, emit: Emit = no_emit, **ignored: Any
    ) -> ScenarioReport:
        return preview_scenario(path, arch, size=size, emit=emit)

    return measure


# -- eager ----------------------------------------------------------------------------------------------------


class _DeviceOps(EagerTrafficMode):
    """Each data-moving operator that touches a CUDA tensor is one launch; a host-device copy is a memcpy."""

    def __init__(self, source_file: str | None = None, device: str = "cuda") -> None:
        super().__init__(source_file)
        self.device = device
        """The device type that stands for the GPU: ``cpu`` where a training step is traced on CPU fakes."""
        self.launches: list[Traffic] = []
        self.sections: list[str] = []
        """Per launch, ``backward`` where it ran inside the autograd engine, else ``forward``."""
        self.paused = False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if self.paused:  # a training step's compiled graphs run with the mode paused: every op, so return first
            return out
        name = op_name(func)
        # prim:: operators ask a fake tensor about its metadata (its device): no memory is touched.
        if func.namespace != "prim" and moves_data(name):
            read, written = op_tensors(name, func._schema, args, kwargs, out)
            if any(t.device.type == self.device for t in read + written):
                direction = host_transfer(name, read, written)
                lines, unplaced = self.source_lines(read)
                launch = Traffic(
                    name,
                    unique_bytes(read),
                    unique_bytes(written),
                    (name,),
                    lines,
                    unplaced,
                    call=memcpy_name(name, direction) if direction else None,
                    kind="memcpy" if direction else "op",
                    elements=largest_elements(read + written),
                )
                added = aten_cuda.cuda_launches(launch, args, kwargs, out, self.device)
                section = "backward" if torch._C._current_graph_task_id() != -1 else "forward"
                self.launches.extend(added)
                self.sections.extend([section] * len(added))
        return out


def _rows(launches: list[Traffic]) -> tuple[Kernel, ...]:
    """Launches grouped by name in first-seen order, as a measurement's table groups them; a launch that is not
    a generated kernel is named as it is called (``extern_kernels.mm``, a memcpy), its operator kept as ``op``."""
    grouped: dict[tuple[str, str, str | None], list[Traffic]] = {}
    for launch in launches:
        # A composite's pass (``aten::sum`` in ``logsumexp``) is not the ``sum`` called at the top level.
        composite = launch.name if launch.kind == "op" and launch.call else None
        grouped.setdefault((launch.call or launch.name, launch.kind, composite), []).append(launch)
    rows = []
    for (name, kind, _), group in grouped.items():
        rows.append(
            Kernel(
                name=name,
                short_name=short_name(name),
                calls=len(group),
                time_us=None,
                bytes_read=sum(launch.bytes_read for launch in group),
                bytes_written=sum(launch.bytes_written for launch in group),
                kind=kind,
                op=group[0].name if group[0].call else None,
                aten_ops=tuple(dict.fromkeys(op for launch in group for op in launch.aten_ops)),
                lines=tuple(dict.fromkeys(line for launch in group for line in launch.lines)),
                line_calls=line_calls_of(group),
                code=next((launch.code for launch in group if launch.code), None),
                launch=preview_launch(group[0], kind),
                predicted=next((launch.basis for launch in group if launch.basis), None),
            )
        )
    return tuple(rows)


def _mode(rows: tuple[Kernel, ...], unit: int) -> ModeResult:
    total = sum(row.bytes_total or 0 for row in rows)
    return ModeResult(
        kernel_count=sum(row.calls for row in rows),
        kernels=rows,
        bytes_total=total,
        time_us=None,
        transfers=total / unit if unit else None,
    )


# -- compiled -------------------------------------------------------------------------------------------------


class _PreviewBackend:
    """A Dynamo backend: Inductor, generating code for the fake GPU; the result runs on fake tensors, and every
    kernel it launches is a stub."""

    def __init__(self, arch: int, fake_mode: FakeTensorMode, options: dict[str, Any], notes: list[str]) -> None:
        self.arch = arch
        self.fake_mode = fake_mode
        self.notes = notes
        self.modules: list[Any] = []
        self.inductor = torch._TorchCompileInductorWrapper(
            options.get("mode"), options.get("options"), options.get("dynamic")
        )
        self.patches: dict[str, Any] = {"force_disable_caches": True, "compile_threads": 1}
        if self.inductor.config.get("max_autotune") or self.inductor.config.get("max_autotune_gemm"):
            self.patches.update(max_autotune=False, max_autotune_gemm=False, max_autotune_pointwise=False)
            notes.append("max-autotune: a GPU benchmarks candidate kernels; the preview keeps the default choices")
        if self.inductor.config.get("triton.cudagraphs"):
            self.patches["triton.cudagraphs"] = False
            notes.append(
                "CUDA graphs (mode reduce-overhead or max-autotune): a GPU replays these launches as one graph launch"
            )

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
        if any(isinstance(x, torch.Tensor) and x.requires_grad for x in example_inputs):
            self.notes.append("training: inputs that require grad were compiled as inference (no backward graph)")
        rewrite_sdpa(gm, self.arch, self.notes)
        with fake_cuda(self.arch, self.notes), self._loaded_modules():
            # The wrapper's own config and ours, merged as its config_patches= would (which torch 2.10 lacks).
            self.inductor.config.update(self.patches)
            compiled = self.inductor(gm, example_inputs)

        def run(*args: Any) -> Any:
            with fake_cuda(self.arch, []), self.fake_mode, quiet_torch_warnings():
                return compiled(*args)

        return run

    @contextlib.contextmanager
    def _loaded_modules(self) -> Iterator[None]:
        """Each generated wrapper, as it is loaded: kept for the recording stand-ins, its allocations made
        fake (``fake_wrapper``: it calls the CUDA allocator and views tensors below the dispatcher)."""
        from torch._inductor.graph import GraphLowering

        original = GraphLowering.compile_to_module
        backend = self

        def compile_to_module(graph: Any) -> Any:
            module = original(graph)
            make_wrapper_fake(module, backend.fake_mode)
            backend.modules.append(module)
            return module

        with mock.patch.object(GraphLowering, "compile_to_module", compile_to_module):
            yield


@dataclass(frozen=True)
class GeneratedCode:
    """What Inductor generated for the fake GPU, and what one call of the compiled ``fn`` launched."""

    records: list[Traffic]
    """Each launch in order: generated kernels, library calls, copies, and operators run between graphs."""
    sources: list[str]
    """The source of each generated wrapper module."""
    graph_breaks: int
    graph_break_reasons: tuple[str, ...]
    recompiles: int
    recompile_reasons: tuple[str, ...]


def _plain_call(fn: Callable[..., Any], args: tuple) -> Any:
    with torch.no_grad():
        return fn(*args)


def generate_for_gpu(
    fn: Callable[..., Any],
    args: tuple,
    arch: int = DEFAULT_ARCH,
    *,
    options: dict[str, Any] | None = None,
    notes: list[str] | None = None,
    call: Callable[[Callable[..., Any], tuple], Any] = _plain_call,
) -> GeneratedCode:
    """Compile ``fn`` for a GPU of architecture ``arch`` on ``args`` (fake CUDA tensors), run what was generated
    once with every launch a no-op, and return its launches; ``options`` are the scenario's ``COMPILE``.

    ``notes`` receives the assumptions made; ``call(compiled_fn, args)`` makes the calls (a scenario's, to turn
    a failure into a report). ``.item()`` between graphs answers a stand-in value, noted once."""
    check_preview()
    options = options or {}
    notes = notes if notes is not None else []
    fake_mode = next(t.fake_mode for t in args if isinstance(t, FakeTensor))
    backend = _PreviewBackend(arch, fake_mode, options, notes)
    host = HostValues()
    try:
        with _fresh_dynamo(), quiet_torch_warnings():
            watch = compile_watch.CompileWatch().start()
            compiled_fn = torch.compile(
                fn, backend=backend, dynamic=options.get("dynamic"), fullgraph=bool(options.get("fullgraph", False))
            )
            with host:
                call(compiled_fn, args)
                records = compiled_traffic(compiled_fn, args, backend.modules)
            sources = [Path(module.__file__).read_text(encoding="utf-8") for module in backend.modules]
            return GeneratedCode(
                records,
                sources,
                watch.graph_breaks,
                tuple(watch.graph_break_reasons),
                watch.recompiles,
                tuple(watch.recompile_reasons),
            )
    finally:
        notes.extend(host.note())
        _forget(backend.modules)


@contextlib.contextmanager
def _fresh_dynamo() -> Iterator[None]:
    """A compile of its own: nothing cached by an earlier compile is reused, and nothing of this one is kept."""
    torch._dynamo.reset()
    try:
        yield
    finally:
        torch._dynamo.reset()


def _preview_modes(
    scenario: LoadedScenario, report: ScenarioReport, arch: int, notes: list[str], emit: Emit
) -> ScenarioReport:
    path = scenario.path
    fn = scenario.module.fn
    fake_mode = FakeTensorMode(allow_non_fake_inputs=False)

    emit("progress", stage="inputs", detail=f"size {report.size:,}, fake CUDA tensors")
    args = fake_inputs(scenario, report.size, fake_mode)
    unit = array_bytes(args)

    emit("progress", stage="eager", detail="operators on fake CUDA tensors")
    host = HostValues()
    device_ops = _DeviceOps(str(path))
    with fake_mode, host, SdpaAsOnGpu(arch, notes), bytes_and_flops(device_ops) as counting:
        output = scenario.call(fn, args, "eager")
    notes.extend(host.note())
    if not device_ops.launches and not any_on_device(args):
        # Nothing fn did reached the device: a preview would report "eager 0", and a GPU run would find no
        # kernel either. The fix is in inputs(), which ignored the device it was given.
        raise scenario._contract(
            "inputs",
            "inputs() returned every tensor on the CPU, so fn ran nothing on the GPU: make them on the device "
            "it is given (inputs(size, device) gets 'cuda' in a preview), e.g. torch.randn(size, device=device)",
            args,
        )
    eager = _mode(_rows(device_ops.launches), unit)
    report = replace(
        report,
        eager=eager,
        ideal_bytes=ideal_bytes(args, output),
        array_bytes=unit,
        signature=call_signature(fn, args, output),
    )
    emit("partial", report=report.to_dict())

    emit("progress", stage="compile", detail=f"Inductor for sm_{arch}")
    options = scenario.info.compile_options
    if options.get("backend", "inductor") != "inductor":
        notes.append(f"backend {options['backend']!r}: the preview shows what Inductor generates")
    try:
        code = generate_for_gpu(
            fn,
            args,
            arch,
            options=options,
            notes=notes,
            call=lambda compiled_fn, args: scenario.call(compiled_fn, args, "compile"),
        )
    except StageError as failure:
        return with_flops(replace(report, error=replace(failure.error, stage="compile")), counting.ops, None)
    except Exception as exc:  # noqa: BLE001 - a failure to generate is this scenario's compile error
        return with_flops(replace(report, error=stage_error("compile", path, exc).error), counting.ops, None)
    notes.extend(preview_launch_note(code.records))
    compiled = replace(
        _mode(_rows(code.records), unit),
        graph_breaks=code.graph_breaks,
        graph_break_reasons=code.graph_break_reasons,
        recompiles=code.recompiles,
        recompile_reasons=code.recompile_reasons,
    )
    measured_eager = report.eager
    assert measured_eager is not None  # measured above, before the compile that could fail
    eager_rows, compiled_rows = attribute(measured_eager.kernels, compiled.kernels)
    report = replace(
        report, eager=replace(measured_eager, kernels=eager_rows), compiled=replace(compiled, kernels=compiled_rows)
    )
    # FLOPs follow from shapes, so a preview has them; with no GPU measured there is no ridge to class them by.
    return with_flops(report, counting.ops, None)


def _forget(modules: list[Any]) -> None:
    """Drop the preview's wrappers from Inductor's module list: a measured compile's recording must not walk
    modules whose kernels are stubs."""
    from torch._inductor.codecache import PyCodeCache

    loaded = getattr(PyCodeCache, "modules", None)
    if isinstance(loaded, list):
        ids = {id(module) for module in modules}
        loaded[:] = [module for module in loaded if id(module) not in ids]
