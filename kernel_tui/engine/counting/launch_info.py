"""Where each kernel's launch (``kernel_tui.model.report.launch.KernelLaunch``) comes from, on each kind of device.

- A GPU: the profiler's kernel event carries the grid, the block, registers per thread, shared memory and the
  estimated occupancy in its Kineto metadata (``event_launch``).
- The CUDA preview: Inductor's ``@triton_heuristics.pointwise(...)`` (or ``reduction``, ...) decorator above
  each generated Triton kernel lists the configs it would launch with (``XBLOCK``, ``R0_BLOCK``,
  ``num_warps``); with the sizes the wrapper passes (``xnumel``, ``r0_numel``) Inductor's own grid expression
  gives the grid, and a Triton block is always ``32 × num_warps`` threads (``TritonLaunchPlan``). Where there
  are several configs a GPU times them all on the first call and keeps the fastest: the preview shows the
  first and says so. A library call (cuBLAS) chooses its launch on the device: nothing is known.
- A CPU: the generated C++ runs its loop in ``#pragma omp parallel num_threads(N)`` (N threads), in a bare
  ``#pragma omp parallel`` (as many threads as PyTorch runs with; Inductor writes it so when that is every
  core) or in no parallel region at all (one thread, for small work) (``cpu_launch``).

Importing this module does not import torch (the profiler-event part is used on constructed events).
"""

from __future__ import annotations

import ast
import re
import types
from typing import Any
from unittest import mock

from kernel_tui.model.report.launch import WARP_SIZE, KernelLaunch, gpu_launch

LIBRARY_NOTE = "a library kernel (cuBLAS, cuDNN) chooses its grid and block on the device: a preview cannot know"
CHOICE_NOTE = "a GPU times each config on the first call and keeps the fastest; the preview shows the first"
EAGER_NOTE = "ATen's CUDA kernels choose their grid and block at run time: the preview knows Inductor's launches only"

NOT_CUPTI_NOTE = "grid and block as a non-CUDA profiler (ROCm) records them: threads and warps not derived"

# -- a GPU: the profiler's kernel events -----------------------------------------------------------------------

_TRIPLE = r"\[\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\]"
_GRID = re.compile(rf'"grid"\s*:\s*{_TRIPLE}')
_BLOCK = re.compile(rf'"block"\s*:\s*{_TRIPLE}')
_REGISTERS = re.compile(r'"registers per thread"\s*:\s*(\d+)')
_SHARED = re.compile(r'"shared memory"\s*:\s*(\d+)')
_OCCUPANCY = re.compile(r'"est\. achieved occupancy %"\s*:\s*([\d.]+)')


def metadata_launch(metadata: str | None) -> KernelLaunch | None:
    """The launch a kernel event's Kineto metadata records (the profiler asked with
    ``expose_kineto_event_metadata``); None where it records no grid and block."""
    text = str(metadata or "")
    grid, block = _GRID.search(text), _BLOCK.search(text)
    if grid is None or block is None:
        return None

    def number(pattern: re.Pattern[str], kind: type) -> Any:
        found = pattern.search(text)
        return kind(found.group(1)) if found else None

    grid_dims: Any = tuple(int(value) for value in grid.groups())
    block_dims: Any = tuple(int(value) for value in block.groups())
    if _REGISTERS.search(text) is None:
        # CUPTI reports registers for every kernel; ROCm's tracer does not, counts a wavefront as 64 threads and
        # may count its grid in threads rather than blocks: keep what it says, derive nothing from it.
        return KernelLaunch(grid=grid_dims, block=block_dims, note=NOT_CUPTI_NOTE)
    return gpu_launch(
        grid_dims,
        block_dims,
        registers_per_thread=number(_REGISTERS, int),
        shared_memory=number(_SHARED, int),
        occupancy_pct=number(_OCCUPANCY, float),
    )


# -- a CPU: the generated C++ ----------------------------------------------------------------------------------

_CPP_KERNEL = re.compile(r'extern\s+"C"\s+void\s+kernel\(')
_PARALLEL = re.compile(r"#pragma\s+omp\s+parallel\b(?:[^\n]*?num_threads\((\d+)\))?")


def cpu_launch(code: str | None, runtime_threads: int) -> KernelLaunch | None:
    """The threads a generated C++ kernel runs on: its parallel regions' (the most of them), else 1. None for
    code that is not Inductor's C++ (a Triton kernel, or no code at all)."""
    if not code or _CPP_KERNEL.search(code) is None:
        return None
    regions = [int(found.group(1)) if found.group(1) else runtime_threads for found in _PARALLEL.finditer(code)]
    return KernelLaunch(threads=max(regions, default=1))


def row_launch(shape: KernelLaunch | None, code: str | None, elements: int | None) -> KernelLaunch | None:
    """A measured kernel row's launch: the profiler's (a GPU), else what its C++ asks for (a CPU), with the
    elements of the largest array it received."""
    launch = shape
    if launch is None and code is not None:
        import torch

        launch = cpu_launch(code, torch.get_num_threads())
    return launch.with_elements(elements) if launch is not None else None


# -- the CUDA preview: Inductor's launch of each Triton kernel ----------------------------------------------------


def _config_text(config: Any) -> str:
    blocks = " ".join(f"{name} {value}" for name, value in config.kwargs.items())
    return f"{blocks} · {config.num_warps} warps".strip(" ·")


class TritonLaunchPlan:
    """What Inductor's decorator above one generated Triton kernel says about its launch: the configs it would
    launch with, the grid expression, and the kernel's parameter names (to read the sizes a launch passes)."""

    def __init__(self, source: str) -> None:
        self.params: list[str] = []
        self.configs: list[Any] = []
        self.inductor_meta: Any = {}
        self.error: str | None = None
        try:
            self._read(source)
        except Exception as error:  # noqa: BLE001 - an unreadable plan leaves the launch unknown, never the run
            self.error = f"the preview could not read this kernel's launch config: {type(error).__name__}: {error}"

    def _read(self, source: str) -> None:
        """Evaluate the decorator (Inductor's heuristics choose the configs for the fake device) without
        ``triton.jit``, which needs the source in a file; ``cached_autotune`` hands back what it was given."""
        from torch._inductor.runtime import triton_heuristics

        tree = ast.parse(source)
        kernel = next(node for node in tree.body if isinstance(node, ast.FunctionDef))
        heuristic = next(d for d in kernel.decorator_list if isinstance(d, ast.Call))
        self.params = [argument.arg for argument in kernel.args.args]
        namespace: dict[str, Any] = {"__file__": "<preview>"}
        setup = ast.Module([node for node in tree.body if not isinstance(node, ast.FunctionDef)], type_ignores=[])

        def capture(size_hints: Any, configs: Any, triton_meta: Any, heuristic_type: Any, **known: Any) -> Any:
            return types.SimpleNamespace(configs=list(configs), inductor_meta=dict(known.get("inductor_meta") or {}))

        with mock.patch.object(triton_heuristics, "cached_autotune", capture):
            exec(compile(setup, "<preview>", "exec"), namespace)
            plan = eval(compile(ast.Expression(heuristic), "<preview>", "eval"), namespace)
        self.configs, self.inductor_meta = plan.configs, plan.inductor_meta
        if not self.configs:
            raise ValueError("no config")

    def alternatives(self) -> tuple[str, ...]:
        """The configs after the first: a GPU chooses among them all on the first call, by timing each."""
        return tuple(_config_text(config) for config in self.configs[1:])

    def launch(self, args: tuple[Any, ...], elements: int | None) -> KernelLaunch:
        """The launch of one call with ``args`` (the wrapper's ``.run(...)`` arguments), in the first config."""
        if self.error is not None:
            return KernelLaunch(elements=elements, note=self.error)
        from torch._inductor.runtime.triton_heuristics import GridExpr

        config = self.configs[0]
        sizes = {
            name: value
            for name, value in zip(self.params, args)
            if name.endswith("numel") and isinstance(value, int) and not isinstance(value, bool)
        }
        try:
            grid = GridExpr.from_meta(self.inductor_meta, config).eval_slow(sizes)
        except Exception as error:  # noqa: BLE001 - a grid type the preview cannot evaluate: say so
            return KernelLaunch(elements=elements, note=f"the preview could not evaluate this kernel's grid: {error}")
        return gpu_launch(
            tuple(int(value) for value in grid),  # type: ignore[arg-type]  # Inductor's grid is (x, y, z)
            (WARP_SIZE * config.num_warps, 1, 1),
            warps=config.num_warps,
            elements=elements,
            config={name: value for name, value in config.kwargs.items() if isinstance(value, int)},
            alternatives=self.alternatives(),
            note=CHOICE_NOTE if len(self.configs) > 1 else None,
        )


PREVIEW_LAUNCH_NOTE = (
    "launches: where Inductor offers several configs for a Triton kernel, a GPU times each on the first call "
    "and keeps the fastest; the preview shows Inductor's first (each such kernel's launch lists the others)"
)


def preview_launch_note(records: list[Any]) -> list[str]:
    """The report's assumption about launch configs, where any kernel had a choice of them."""
    chose = any(record.launch is not None and record.launch.alternatives for record in records)
    return [PREVIEW_LAUNCH_NOTE] if chose else []
