"""One kernel as the profiler saw it (a row of a kernel table), and the names its table rows show.

A plain frozen dataclass with no torch in sight, part of the report (``report``) that crosses from the engine to
the CLI and the app.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernel_tui.model.report.library_call import LibraryKernel, call_words, kernels_per_call, operator_of, short_words

if TYPE_CHECKING:
    from kernel_tui.model.report.launch import KernelLaunch

LOWER_BOUND = "(lower bound)"
"""How a preview's prediction (``Kernel.predicted``) ends when its one launch is the least a GPU makes."""


@dataclass(frozen=True)
class ModuleWork:
    """One module's part of a kernel row whose launches came from several modules, as its own launches measured it:
    an ``aten::linear`` row of nine calls is eight small block layers and one large lm_head, not nine equal parts."""

    path: str
    """The module (``Kernel.module_calls``' path)."""
    bytes: int | None = None
    """Bytes its launches moved per run of ``fn``; None where some were not counted."""
    flops: int | None = None
    """Arithmetic operations of its launches per run (eager, its operators' own; compiled, a library call's from its own
    arguments); None where unknown."""
    time_us: float | None = None
    """Kernel time of its launches in the run whose bytes were counted; None where not measured (a preview)."""


@dataclass(frozen=True)
class Kernel:
    """One kernel as the profiler saw it, grouped by name over the profiled runs of ``fn``."""

    name: str
    """The kernel's full name, as the profiler gave it (a compiled kernel's ``graph_N_`` prefix removed)."""
    short_name: str
    """A readable name: a template's base and functor, an operator without its namespace."""
    calls: float
    """Launches per run of ``fn`` (a float only when runs disagree); a library call's row (``library``) counts
    its calls, however many kernels the library ran for each (``launches`` counts those)."""
    time_us: float | None
    """Time spent in this kernel per run of ``fn``, all its calls together (None in a preview)."""
    bytes_read: int | None = None
    """Bytes it reads per run of ``fn``, all its launches (``calls``) together, as ``time_us`` and ``flops``
    are; None when unknown."""
    bytes_written: int | None = None
    """Bytes it writes per run of ``fn``, all its launches together; None when unknown."""
    kind: str = "kernel"
    """``kernel``, ``memcpy``, ``memset`` (CUDA), or ``op`` (an eager CPU operator doing the work)."""
    op: str | None = None
    """The top-level operator that launched it (``aten::relu`` for a ``clamp_min`` kernel)."""
    aten_ops: tuple[str, ...] = ()
    """The ATen operators this kernel runs: eager, what the dispatcher saw; compiled, the original ATen
    operators Inductor fused into it (from its generated code's comments, else its name)."""
    lines: tuple[int, ...] = ()
    """Lines of the scenario file those operators came from: the calling line, a helper's line and the line of
    ``fn`` that called it; backward, the forward lines whose gradient it computes."""
    line_calls: tuple[tuple[int, int], ...] = ()
    """Per line of ``lines``, how many of this row's launches per run came from it (a row of two ``mul`` calls on
    two lines has one on each)."""
    unplaced: str | None = None
    """Why ``lines`` is empty (the default loss, no operator to read a line from); None when it is not."""
    fused_into: tuple[str, ...] = ()
    """Eager only: the compiled kernels (short names) that absorbed this kernel's work."""
    code: str | None = None
    """Compiled only: the kernel's generated source (C++ or Triton)."""
    gbs: float | None = None
    """Achieved bandwidth: bytes over time, in GB/s (10^9 bytes per second)."""
    ceiling_pct: float | None = None
    """``gbs`` as a percentage of the device's measured copy bandwidth."""
    flops: int | None = None
    """Arithmetic operations per run of ``fn`` (``kernel_tui.engine.counting.flops``); None when not counted."""
    intensity: float | None = None
    """FLOPs per byte moved."""
    gflops: float | None = None
    """Achieved GFLOP/s: FLOPs over time."""
    bound: str | None = None
    """``memory-bound`` or ``compute-bound``: which side of the device's ridge point ``intensity`` sits."""
    section: str | None = None
    """A training step's ``forward`` (the loss included) or ``backward``; None when only ``fn`` is measured."""
    launch: KernelLaunch | None = None
    """How it was launched (grid, block, warps, threads; a CPU kernel's threads); None where nothing is known."""
    predicted: str | None = None
    """A preview's eager row whose launch count is a prediction from ATen's CUDA source, not the rule of one
    launch per operator: which source (``engine.preview.aten_cuda``); None for every measured row."""
    library: str | None = None
    """A library call's operator (``aten::mm``, a cuBLAS product): the row is one call per ``calls``, each run
    by the library as ``library_kernels``; None for a kernel PyTorch or Inductor launched itself, and on a CPU."""
    library_kernels: tuple[LibraryKernel, ...] = ()
    """On a GPU, the kernels the library ran inside one call, in launch order (``…execute_kernel…`` over four
    slices of K, then ``…execute_split_k_kernel…``): information, not a claim; empty where none were measured."""
    module: str | None = None
    """The ``nn.Module`` that launched it, as a path from the name ``fn`` knows the model by (``model.h.0.attn``):
    eager, the module whose ``forward`` ran its operator, or backward, the operator it differentiates; compiled, the
    deepest module holding every FX node Inductor fused into it (their ``nn_module_stack``, a backward node's that
    of the forward node it differentiates). ``""`` for ``fn``'s own code; None where unknown (a launch joined to no
    operator or node). A row of several launches is named by the deepest module holding them all
    (``module_calls``)."""
    module_calls: tuple[tuple[str, int], ...] = ()
    """Per module, how many of this row's launches of one run it launched (an ``addmm`` row of six ``nn.Linear``
    calls has one per layer)."""
    launch_time_us: tuple[float, ...] = ()
    """Each launch's own time in one run of ``fn``, in launch order (a library call's kernels together, one per
    call): per launch, the median over the profiled runs. Empty for a row of one launch, in a preview, and where
    the runs launched it a different number of times."""
    module_work: tuple[ModuleWork, ...] = ()
    """Per module of ``module_calls``, what its own launches moved, computed and took, where the engine measured each
    launch of a row of several modules (eager; the preview's compiled library calls; a compiled row on a CPU or GPU,
    its time only, from ``launch_time_us``); where a figure is not measured, the row's is shared out by launches
    (``module_table``)."""
    stack: tuple[str, ...] = ()
    """Where the user's code ran it, as ``file:line``, every frame outside torch's and Python's own files,
    nearest first: the model's own file where it lives apart from the scenario. Eager, the Python stack of each of
    its operators, backward that of the forward operator it differentiates; compiled, the FX stack traces
    (``node.meta["stack_trace"]``) of the nodes Inductor fused into it, a training step's backward ones included
    (``boundary_compile`` watches its compile). Empty where unknown: a compiled kernel no watched node was fused
    into (a compile that could not be watched)."""
    layout: str | None = None
    """Compiled: what a kernel that only copies tensors into another layout is, and what would avoid it; such a
    kernel, which Inductor adds of its own accord (``generated_code.layout_conversion``), replaced no operator."""

    @property
    def launches(self) -> float:
        """Kernel launches per run of ``fn``: ``calls``, times the kernels each library call ran."""
        return self.calls * kernels_per_call(self.library_kernels) if self.library else self.calls

    @property
    def split_words(self) -> str | None:
        """``cuBLAS ran this product as 2 kernels: split-K`` for a library call of several kernels, else None."""
        return call_words(self.library, self.library_kernels) if self.library else None

    @property
    def composite(self) -> str | None:
        """The operator this row is one pass of (``aten::logsumexp`` for its ``aten::amax``, a fused layer for its
        ``aten::mm``), which the row's name is nested under; None for a row that is its own work."""
        return self.op if self.kind == "op" and self.op and self.op != self.name else None

    @property
    def count_is_lower_bound(self) -> bool:
        """A prediction that keeps one launch for work a GPU runs as several it cannot count."""
        return self.predicted is not None and self.predicted.endswith(LOWER_BOUND)

    @property
    def bytes_total(self) -> int | None:
        if self.bytes_read is None and self.bytes_written is None:
            return None
        return (self.bytes_read or 0) + (self.bytes_written or 0)

    def calls_from_line(self, line: int) -> int:
        """Launches per run that came from ``line``: counted per launch where the engine did, else the row's
        calls (a preview's eager rows are one launch each)."""
        counted = dict(self.line_calls)
        if line in counted:
            return counted[line]
        return round(self.calls) if line in self.lines else 0


def nested_names(kernels: Sequence[Kernel]) -> list[str]:
    """The name each table row shows: a composite operator's passes (an eager ``op`` row that names
    another operator, e.g. ``aten::amax`` in ``aten::logsumexp``) nested under the composite's name, which
    heads the first of them: ``aten::logsumexp ┬ amax``, then ``├ abs`` … ``└ add_``. A library call the library
    ran as several kernels is named by its operator and its kernels' count: ``mm: cuBLAS, 2 kernels, split-K``."""
    shown = []
    for index, kernel in enumerate(kernels):
        if kernel.library and kernel.split_words:
            # One call the library ran as several kernels: named by its operator, its kernels listed below it.
            shown.append(f"{operator_of(kernel.library)}: {short_words(kernel.library, kernel.library_kernels)}")
            continue
        parent = kernel.composite
        if parent is None:
            shown.append(kernel.short_name)
            continue
        own = kernel.short_name.split("::", 1)[-1]
        previous = kernels[index - 1].composite if index > 0 else None
        following = kernels[index + 1].composite if index + 1 < len(kernels) else None
        if previous != parent:
            shown.append(f"{parent} ┬ {own}")
        else:
            shown.append(f"  {'├' if following == parent else '└'} {own}")
    return shown
