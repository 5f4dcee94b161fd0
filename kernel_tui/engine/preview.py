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

from dataclasses import replace
from pathlib import Path

import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from kernel_tui.engine.attribution import attribute
from kernel_tui.engine.cuda_fakes import SdpaAsOnGpu, device_properties
from kernel_tui.engine.flops import bytes_and_flops, with_flops
from kernel_tui.engine.launch_info import preview_launch_note
from kernel_tui.engine.loader import LoadedScenario, StageError, load_scenario, stage_error
from kernel_tui.engine.outbox import RunOutbox
from kernel_tui.engine.pipeline import ScenarioStages, run_stages
from kernel_tui.engine.preview_codegen import generate_for_gpu
from kernel_tui.engine.preview_inputs import HostValues, any_on_device, fake_inputs
from kernel_tui.engine.preview_launches import DeviceOps, launch_mode, launch_rows
from kernel_tui.engine.preview_support import check_preview, quiet_torch_warnings
from kernel_tui.engine.signature import call_signature
from kernel_tui.engine.traffic import array_bytes, ideal_bytes
from kernel_tui.model.expect import NEEDS_SWEEP, check_claims
from kernel_tui.model.report import PREVIEW_DEVICE, ScenarioReport
from kernel_tui.model.report_skeleton import report_skeleton
from kernel_tui.transport.protocol import DEFAULT_ARCH

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
    path: str | Path, arch: int = DEFAULT_ARCH, *, size: int | None = None, outbox: RunOutbox | None = None
) -> ScenarioReport:
    """Everything ``kernel-tui run --device cuda-preview`` reports for one scenario file."""
    check_preview()
    with quiet_torch_warnings():
        return run_stages(Path(path), Preview(arch), outbox or RunOutbox.nowhere(), size=size, sweep=False)


class Preview:
    """A run that generates a GPU's code on fake tensors (``pipeline`` runs the stages); it collects what it
    assumed in ``notes``, listed in the report's assumptions."""

    claims_device = "cuda"

    def __init__(self, arch: int) -> None:
        self.arch = arch
        self.notes: list[str] = []

    def start(self, path: Path, size: int | None) -> ScenarioReport:
        return report_skeleton(
            path,
            PREVIEW_DEVICE,
            device_label(self.arch),
            torch.__version__,
            size=size,
            arch=self.arch,
            assumptions=STANDING_ASSUMPTIONS,
        )

    def load(self, path: Path) -> LoadedScenario:
        return load_scenario(path)

    def stages(self, scenario: LoadedScenario, report: ScenarioReport) -> tuple[ScenarioStages, ScenarioReport]:
        if scenario.info.train:
            from kernel_tui.engine.preview_training import TrainingPreviewStages

            return TrainingPreviewStages(scenario, self.arch, report.size, self.notes), report
        return PreviewStages(scenario, self.arch, report.size, self.notes), report

    def finish(self, report: ScenarioReport, claims: dict[str, float]) -> ScenarioReport:
        decided = {key: value for key, value in claims.items() if key not in NEEDS_SWEEP}
        notes = self.notes + [
            f"claim not checked: {key} (claimed {value:g}): {UNSWEPT}"
            for key, value in claims.items()
            if key in NEEDS_SWEEP
        ]
        return replace(
            report,
            assumptions=report.assumptions + tuple(dict.fromkeys(notes)),
            expect=check_claims(decided, report, swept=False),
        )


class PreviewStages(ScenarioStages):
    """``fn`` on fake CUDA tensors: each operator eager, then the code Inductor generates for the GPU."""

    def __init__(self, scenario: LoadedScenario, arch: int, size: int, notes: list[str]) -> None:
        self.scenario, self.arch, self.size, self.notes = scenario, arch, size, notes
        self.details = {
            "inputs": f"size {size:,}, fake CUDA tensors",
            "eager": "operators on fake CUDA tensors",
            "compile": f"Inductor for sm_{arch}",
        }
        self.fake_mode = FakeTensorMode(allow_non_fake_inputs=False)

    def inputs(self) -> None:
        self.args = fake_inputs(self.scenario, self.size, self.fake_mode)
        self.unit = array_bytes(self.args)

    def eager(self, report: ScenarioReport) -> ScenarioReport:
        scenario, args, fn, notes = self.scenario, self.args, self.scenario.module.fn, self.notes
        host = HostValues()
        device_ops = DeviceOps(str(scenario.path))
        with self.fake_mode, host, SdpaAsOnGpu(self.arch, notes), bytes_and_flops(device_ops) as counting:
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
        self.flop_ops = counting.ops
        return replace(
            report,
            eager=launch_mode(launch_rows(device_ops.launches), self.unit),
            ideal_bytes=ideal_bytes(args, output),
            array_bytes=self.unit,
            signature=call_signature(fn, args, output),
        )

    def compile(self, report: ScenarioReport, outbox: RunOutbox) -> ScenarioReport:
        scenario, notes = self.scenario, self.notes
        options = scenario.info.compile_options
        if options.get("backend", "inductor") != "inductor":
            notes.append(f"backend {options['backend']!r}: the preview shows what Inductor generates")
        try:
            code = generate_for_gpu(
                scenario.module.fn,
                self.args,
                self.arch,
                options=options,
                notes=notes,
                call=lambda compiled_fn, args: scenario.call(compiled_fn, args, "compile"),
            )
        except StageError as failure:
            return with_flops(replace(report, error=replace(failure.error, stage="compile")), self.flop_ops, None)
        except Exception as exc:  # noqa: BLE001 - a failure to generate is this scenario's compile error
            return with_flops(
                replace(report, error=stage_error("compile", scenario.path, exc).error), self.flop_ops, None
            )
        notes.extend(preview_launch_note(code.records))
        compiled = replace(
            launch_mode(launch_rows(code.records), self.unit),
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
        return with_flops(report, self.flop_ops, None)
