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
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from unittest import mock

import torch
import torch._dynamo
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.utils._python_dispatch import TorchDispatchMode

from kernel_tui.engine import compile_watch, training
from kernel_tui.engine.attribution import attribute
from kernel_tui.engine.cuda_fakes import (
    DEFAULT_ARCH,
    SdpaAsOnGpu,
    check_versions,
    device_properties,
    fake_cuda,
    rewrite_sdpa,
)
from kernel_tui.engine.flops import bytes_and_flops, with_flops
from kernel_tui.engine.generated_code import MEMCPY_NAMES, compiled_traffic
from kernel_tui.engine.loader import LoadedScenario, StageError, load_scenario, stage_error
from kernel_tui.engine.measure import Emit, claims_of_unloaded, no_emit
from kernel_tui.engine.op_kinds import moves_data, op_name
from kernel_tui.engine.profiling import line_calls_of
from kernel_tui.engine.signature import call_signature
from kernel_tui.engine.traffic import (
    EagerTrafficMode,
    Traffic,
    array_bytes,
    host_transfer,
    ideal_bytes,
    op_tensors,
    unique_bytes,
)
from kernel_tui.expect import NEEDS_SWEEP, check_claims
from kernel_tui.names import short_name
from kernel_tui.report import PREVIEW_DEVICE, Kernel, ModeResult, ScenarioError, ScenarioReport

UNSWEPT = "a preview runs no size sweep, so it compiles no graphs across sizes"
"""Why a preview cannot check a lesson's sweep-only claims (``expect.NEEDS_SWEEP``); they are listed in its
report. Every other claim (launches, bytes, graph breaks) follows from the code alone, and is checked."""

STANDING_ASSUMPTIONS = (
    "no times: a preview generates code and runs nothing, so times, speedups and the sweep are for a real GPU",
    "eager launches: one per ATen operator that works on the device; a library may launch more (cuBLAS split-K, cuDNN)",
    "torch.cuda.is_available() is False while the code is traced: code that branches on it takes its CPU branch",
)


def device_label(arch: int) -> str:
    """The board a preview generates code for, as the report's ``device_name``."""
    return f"{device_properties(arch).name} (sm_{arch})"


def preview_scenario(
    path: str | Path, arch: int = DEFAULT_ARCH, *, size: int | None = None, emit: Emit = no_emit
) -> ScenarioReport:
    """Everything ``kernel-tui run --device cuda-preview`` reports for one scenario file."""
    check_versions()
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
        report = replace(report, title=info.title, size=size or info.size)
        if info.train:
            raise StageError(ScenarioError("load", training.NOT_PREVIEWED, None, str(path), training.NOT_PREVIEWED))
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


# -- inputs, and what has no value without a device ------------------------------------------------------------


def _fake_inputs(scenario: LoadedScenario, size: int, fake_mode: FakeTensorMode) -> tuple[torch.Tensor, ...]:
    """``inputs(size, "cuda")`` on fake tensors; if the scenario's code cannot run on them, its CPU inputs
    become fake CUDA tensors of the same shapes, strides and dtypes."""
    try:
        with fake_mode:
            return scenario.make_inputs(size, "cuda")
    except StageError:
        real = scenario.make_inputs(size, "cpu")
    with fake_mode:
        return tuple(
            torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="cuda").requires_grad_(t.requires_grad)
            if isinstance(t, torch.Tensor)
            else t  # a snippet's set-up may pass a number along
            for t in real
        )


FLOAT_STAND_IN = 1.5
"""What a floating ``.item()`` answers in a preview (1.0 would make divisions by it vanish)."""


class _HostValues(TorchDispatchMode):
    """``.item()`` of a fake tensor has no value: answer 1 (1.5, True) and say so.

    A floating value is 1.5, not 1.0: the compiler folds ``x / 1.0`` and ``x * 1.0`` away, so a stand-in of
    1.0 would generate code that a GPU, given a real value, would not (lesson 15's division).

    It ignores compile internals so that ``torch.compile`` still compiles while it is active."""

    def __init__(self) -> None:
        super().__init__()
        self.used = 0

    @classmethod
    def ignore_compile_internals(cls) -> bool:
        return True

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func is torch.ops.aten._local_scalar_dense.default and isinstance(args[0], FakeTensor):
            self.used += 1
            dtype = args[0].dtype
            if dtype == torch.bool:
                return True
            return FLOAT_STAND_IN if dtype.is_floating_point or dtype.is_complex else 1
        return func(*args, **(kwargs or {}))

    def note(self) -> list[str]:
        if not self.used:
            return []
        return [
            "host values: `.item()` and the like have no value without running; the preview went on "
            "with 1 (1.5 for a floating value), so code that branches on such a value follows that branch"
        ]


# -- eager ----------------------------------------------------------------------------------------------------


class _DeviceOps(EagerTrafficMode):
    """Each data-moving operator that touches a CUDA tensor is one launch; a host-device copy is a memcpy."""

    def __init__(self, source_file: str | None = None) -> None:
        super().__init__(source_file)
        self.launches: list[Traffic] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = op_name(func)
        # prim:: operators ask a fake tensor about its metadata (its device): no memory is touched.
        if func.namespace != "prim" and moves_data(name):
            read, written = op_tensors(name, func._schema, args, kwargs, out)
            if any(t.device.type == "cuda" for t in read + written):
                direction = host_transfer(name, read, written)
                lines, unplaced = self.source_lines(read)
                self.launches.append(
                    Traffic(
                        name,
                        unique_bytes(read),
                        unique_bytes(written),
                        (name,),
                        lines,
                        unplaced,
                        call=MEMCPY_NAMES[direction] if direction else None,
                        kind="memcpy" if direction else "op",
                    )
                )
        return out


def _rows(launches: list[Traffic]) -> tuple[Kernel, ...]:
    """Launches grouped by name in first-seen order, as a measurement's table groups them; a launch that is not
    a generated kernel is named as it is called (``extern_kernels.mm``, a memcpy), its operator kept as ``op``."""
    grouped: dict[tuple[str, str], list[Traffic]] = {}
    for launch in launches:
        grouped.setdefault((launch.call or launch.name, launch.kind), []).append(launch)
    rows = []
    for (name, kind), group in grouped.items():
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
            compiled = self.inductor(gm, example_inputs, config_patches=self.patches)

        def run(*args: Any) -> Any:
            with fake_cuda(self.arch, []), self.fake_mode, warnings.catch_warnings():
                # Inductor checks its inputs' alignment by address; a fake tensor's address is 0, aligned.
                warnings.filterwarnings("ignore", "Accessing the data pointer of FakeTensor")
                return compiled(*args)

        return run

    @contextlib.contextmanager
    def _loaded_modules(self) -> Iterator[None]:
        """Each generated wrapper, as it is loaded: kept for the recording stand-ins, its allocations made
        fake (they call the CUDA allocator directly, below the dispatcher)."""
        from torch._inductor.graph import GraphLowering

        original = GraphLowering.compile_to_module
        backend = self

        def compile_to_module(graph: Any) -> Any:
            module = original(graph)
            backend._fake_allocations(module)
            backend.modules.append(module)
            return module

        with mock.patch.object(GraphLowering, "compile_to_module", compile_to_module):
            yield

    def _fake_allocations(self, module: Any) -> None:
        fake_mode = self.fake_mode

        def empty_on(device: str) -> Callable[..., torch.Tensor]:
            def empty(size: Any, stride: Any, dtype: torch.dtype) -> torch.Tensor:
                with fake_mode:
                    return torch.empty_strided(size, stride, dtype=dtype, device=device)

            return empty

        namespace = vars(module)
        for name in ("empty_strided_cuda", "empty_strided_cpu", "empty_strided_cpu_pinned"):
            if name in namespace:
                namespace[name] = empty_on("cuda" if name.endswith("cuda") else "cpu")
        namespace["get_raw_stream"] = lambda device: 0
        namespace["copy_if_misaligned"] = lambda tensor: tensor


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
    check_versions()
    options = options or {}
    notes = notes if notes is not None else []
    fake_mode = next(t.fake_mode for t in args if isinstance(t, FakeTensor))
    backend = _PreviewBackend(arch, fake_mode, options, notes)
    host = _HostValues()
    try:
        with _fresh_dynamo():
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
    args = _fake_inputs(scenario, report.size, fake_mode)
    unit = array_bytes(args)

    emit("progress", stage="eager", detail="operators on fake CUDA tensors")
    host = _HostValues()
    device_ops = _DeviceOps(str(path))
    with fake_mode, host, SdpaAsOnGpu(arch, notes), bytes_and_flops(device_ops) as counting:
        output = scenario.call(fn, args, "eager")
    notes.extend(host.note())
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
