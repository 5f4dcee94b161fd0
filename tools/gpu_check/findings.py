"""What ``gpu-check`` concludes per scenario: the GPU against the preview, and what the profiler delivered.

- compiled kernels: the GPU's against a preview made on the same torch at run time, so that a difference is
  the preview's, not another torch's naming; the recording (made beforehand, on the torch named in it) is
  compared too, and a difference between the two previews is reported as version drift;
- eager launches: the GPU's list against the preview's count, its memsets, memcpys and library kernels named
  (what settles the preview's predictions from ATen's source: semaphore memsets, cuBLAS splits, cub passes);
- CUPTI records: from the engine's own Chrome trace, every launch call made inside a profiled run
  (``cudaLaunchKernel``, ``cudaMemcpyAsync``, ...) against the device records that carry its correlation id:
  a call without a record is a record the profiler lost.

No torch is imported.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel_tui.model.names.names import triton_kind

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioReport

RUN_RANGE = "kernel_tui::run"
LAUNCH_CALLS = (
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx", "cudaLaunchCooperativeKernel",
    "cudaMemcpyAsync", "cudaMemcpy", "cudaMemsetAsync", "cudaMemset", "cudaMemcpy2DAsync",
)  # fmt: skip
DEVICE_WORK = ("kernel", "gpu_memcpy", "gpu_memset")


def inductor_kernels(report: ScenarioReport | None) -> list[str]:
    """The compiled side's Triton kernels in launch order, a name per launch."""
    if report is None or report.compiled is None:
        return []
    names: list[str] = []
    for kernel in report.compiled.kernels:
        if triton_kind(kernel.name) is not None:
            names.extend([kernel.name] * max(int(round(kernel.calls)), 1))
    return names


def library_launches(report: ScenarioReport) -> int:
    """Compiled launches that are not Inductor's own kernels: library calls, copies, fills."""
    if report.compiled is None:
        return 0
    return int(round(sum(k.calls for k in report.compiled.kernels if triton_kind(k.name) is None)))


def compare_kernels(real: ScenarioReport, preview: ScenarioReport | None) -> str:
    if preview is None:
        return "no preview recorded"
    if preview.error is not None:
        return f"preview failed: {preview.error.message.splitlines()[0]}"
    if real.compiled is None:
        return "no compiled result on the GPU"
    ours, theirs = inductor_kernels(real), inductor_kernels(preview)
    differences = []
    if ours != theirs:
        missing = [name for name in theirs if name not in ours]
        extra = [name for name in ours if name not in theirs]
        detail = []
        if missing:
            detail.append("preview only: " + ", ".join(missing))
        if extra:
            detail.append("GPU only: " + ", ".join(extra))
        if not detail:
            detail.append("same kernels, other order")
        differences.append("; ".join(detail))
    if library_launches(real) != library_launches(preview):
        differences.append(f"library launches: preview {library_launches(preview)}, GPU {library_launches(real)}")
    if not differences:
        return f"same ({len(ours)} Triton, {library_launches(real)} library)"
    return "different: " + " · ".join(differences)


def compiled_cell(
    real: ScenarioReport,
    live: ScenarioReport | None,
    recorded: ScenarioReport | None,
    missing: str = "the live preview did not run",
) -> str:
    """The GPU against the preview on this torch; where there is none (``missing`` says why) or it failed, against
    the recording, saying so; and where the two previews disagree, that the recording's torch names things
    otherwise."""
    if live is None or live.error is not None:
        why = f"no live preview: {missing}" if live is None else f"preview error on this torch: {_first_line(live)}"
        against = compare_kernels(real, recorded)
        return f"{why}; against the recording ({_torch(recorded)}): {against}"
    cell = compare_kernels(real, live)
    if recorded is not None and recorded.error is None and inductor_kernels(recorded) != inductor_kernels(live):
        cell += f" · version drift: the recording ({_torch(recorded)}) names {', '.join(inductor_kernels(recorded))}"
    return cell


def eager_cell(real: ScenarioReport, preview: ScenarioReport | None) -> str:
    """The preview's eager count (``*``: predicted from ATen's source) against the GPU's, and what the GPU ran."""
    if real.eager is None:
        return "no eager result on the GPU"
    gpu = f"{real.eager.kernel_count:g}"
    listed = eager_list(real)
    if preview is None or preview.eager is None:
        return f"GPU {gpu}: {listed}"
    mark = "*" if any(kernel.predicted for kernel in preview.eager.kernels) else ""
    verdict = "same" if preview.eager.kernel_count == real.eager.kernel_count else "different"
    return f"{verdict}: preview {preview.eager.kernel_count:g}{mark}, GPU {gpu} ({listed})"


def eager_list(report: ScenarioReport) -> str:
    assert report.eager is not None
    return ", ".join(
        f"{kernel.short_name}" + (f" ×{kernel.calls:g}" if kernel.calls != 1 else "") for kernel in report.eager.kernels
    )


def _torch(report: ScenarioReport | None) -> str:
    return f"torch {report.torch_version}" if report is not None else "none"


def _first_line(report: ScenarioReport) -> str:
    assert report.error is not None
    return report.error.message.splitlines()[0] if report.error.message else report.error.stage


@dataclass(frozen=True)
class CuptiAudit:
    """A profile's launch calls inside the profiled runs against the device records the profiler delivered."""

    runs: int
    launch_calls: int
    device_records: int
    lost: int
    """Launch calls with no device record of their correlation id."""

    def text(self) -> str:
        if self.runs == 0:
            return "no profiled run in the trace"
        if self.launch_calls == 0:
            return "no CUDA launch in the profile"
        if self.lost:
            return f"{self.lost} of {self.launch_calls} launches without a device record"
        return f"all {self.launch_calls} launches recorded"


def audit_trace(path: Path) -> CuptiAudit:
    """The engine's Chrome trace, read with CUPTI's own links: a runtime launch call inside a ``kernel_tui::run``
    range (same thread, within its time) and the device records whose correlation id is the call's."""
    data = json.loads(path.read_text(encoding="utf-8"))
    events: list[dict[str, Any]] = data["traceEvents"] if isinstance(data, dict) else data
    complete = [e for e in events if e.get("ph") == "X"]
    runs = [e for e in complete if e.get("cat") == "user_annotation" and e.get("name") == RUN_RANGE]
    calls = [
        e
        for e in complete
        if e.get("cat") in ("cuda_runtime", "cuda_driver")
        and e.get("name") in LAUNCH_CALLS
        and any(_inside(e, run) for run in runs)
    ]
    recorded = {e.get("args", {}).get("correlation") for e in complete if e.get("cat") in DEVICE_WORK}
    in_runs = [e for e in calls if e.get("args", {}).get("correlation") in recorded]
    return CuptiAudit(len(runs), len(calls), len(in_runs), len(calls) - len(in_runs))


def _inside(event: dict[str, Any], run: dict[str, Any]) -> bool:
    start, end = float(run["ts"]), float(run["ts"]) + float(run.get("dur", 0))
    return event.get("tid") == run.get("tid") and start <= float(event["ts"]) <= end
