"""Eager or compiled: one mode's kernels, their traffic, its time and what the compiler did, as one report holds
it for each mode (``report.ScenarioReport.eager``, ``.compiled`` and each variant)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernel_tui.model.report.report_keys import SECTIONS

COMPILE_STAGES = {
    "dynamo": "Dynamo: tracing fn's bytecode into graphs and building their guards",
    "aot_autograd": "AOT autograd: tracing the ATen graph (and a backward), its joint-graph passes",
    "cache_keys": "the compile caches' keys: hashing torch's and Triton's own sources (once per process)",
    "lowering": "Inductor lowering and scheduling: post-grad passes, lowering to loops, deciding the fusions",
    "codegen": "code generation: Inductor writing the kernels' C++ or Triton and the wrapper",
    "compile": "the C++/Triton compile: a compiler run, or the wait for the compile workers",
    "load": "load: importing the compiled module, or fetching it from the caches",
    "other": "other: what none of torch's compile timers covers (the first call's own run, Python around it)",
}
"""Where a compile's time went, by stage, in the order a compile runs them: each instant of the first call is
given to the innermost of torch's compile timers (``dynamo_timed``) running on the calling thread, and
``other`` is the rest of ``compile_s``, said as such (``engine/compiler/compile_time``)."""
CACHE_LEVELS = {
    "fx_graph": "Inductor's FX graph cache: a graph's generated and compiled code",
    "aot_autograd": "the AOT autograd cache: a graph's forward and backward, with the FX graph cache's entries",
}
"""The compile caches torch counts hits and misses of (``torch._dynamo.utils.counters``)."""

if TYPE_CHECKING:
    from kernel_tui.model.report.boundary import Boundary
    from kernel_tui.model.report.call_breakdown import CallBreakdown
    from kernel_tui.model.report.cuda_graph_decision import CudaGraphDecision
    from kernel_tui.model.report.kernel import Kernel


@dataclass(frozen=True)
class CompileStages:
    """One compile's time by stage (``COMPILE_STAGES``) and each cache level's hits and misses (``CACHE_LEVELS``):
    a warm compile reads its graphs from the caches (hits), a cold one compiles them (misses)."""

    seconds: dict[str, float]
    """Seconds per stage, every key of ``COMPILE_STAGES`` in its order; they add up to ``compile_s``."""
    cache_hits: dict[str, int]
    """Hits per cache level during the compile."""
    cache_misses: dict[str, int]
    """Misses per cache level during the compile (a miss compiles the graph and saves it)."""
    timed_s: float = 0.0
    """The seconds torch's own timers account for: every stage but ``other``."""

    @property
    def warm(self) -> bool | None:
        """Whether the caches held this compile's graphs: True all hits, False any miss, None when neither
        cache was asked (a bypass, or a graph of no kernels)."""
        hits, misses = sum(self.cache_hits.values()), sum(self.cache_misses.values())
        if misses:
            return False
        return True if hits else None


@dataclass(frozen=True)
class ModeResult:
    """Eager or compiled: its kernels, their traffic and its steady-state time."""

    kernel_count: float
    """Kernel launches per call of ``fn`` (a mean when the profiled calls differ), a library call counted once
    however many kernels the library ran for it (``Kernel.library``): what the ``eager`` and ``compiled`` claims
    count."""
    kernels: tuple[Kernel, ...]
    """Each kernel that ran, grouped by name, in launch order."""
    bytes_total: int | None
    """Bytes one call moves, all kernels together; None when any kernel's bytes are unknown."""
    time_us: float | None
    """Median time of one call of ``fn`` in steady state (compile excluded); on CUDA, the device's time
    of single calls after an L2 flush. None in a preview and in a run with ``--no-time``."""
    transfers: float | None = None
    """``bytes_total`` in array-sized transfers: bytes over the bytes of the largest input."""
    compile_s: float | None = None
    """Compile time: the first call's time less a steady call's (compiled only)."""
    compile_stages: CompileStages | None = None
    """``compile_s`` by stage, with the caches' hits and misses (compiled only; None in a preview)."""
    graph_breaks: int | None = None
    """How many graph breaks dynamo took (compiled only)."""
    graph_break_reasons: tuple[str, ...] = ()
    """Dynamo's reason for each graph break, with its line."""
    recompiles: int | None = None
    """How many times the compiled code recompiled after its first compile."""
    recompile_reasons: tuple[str, ...] = ()
    """The guard that failed for each recompile."""
    time_iqr_us: float | None = None
    """The interquartile range of ``time_us`` over its samples: how much the time moved while measured."""
    wall_us: float | None = None
    """Median time per call of back-to-back calls, the host's overhead (Python, dispatch, launches)
    included; on CPU the same measurement as ``time_us``."""
    notes: tuple[str, ...] = ()
    """What to know before trusting this mode's numbers: profiled runs that launched different kernels
    (records lost by the profiler), kernel times that add up to more than the call (a busy machine)."""
    flops: int | None = None
    """Arithmetic operations of one call, all kernels together; None when any kernel's are not counted."""
    intensity: float | None = None
    """``flops`` over ``bytes_total``."""
    gflops: float | None = None
    """``flops`` over ``time_us``, in GFLOP/s."""
    bound: str | None = None
    """The side (``memory-bound`` or ``compute-bound``) that holds most of this mode's kernel time."""
    bound_share: float | None = None
    """The share of the classified kernel time on that side (0 to 1)."""
    unclassified_share: float | None = None
    """The share of all kernel time in kernels with no side (their FLOPs not counted): what ``bound_share``
    leaves out (0 to 1)."""
    forward_launches: float | None = None
    """A training step's kernel launches in forward."""
    backward_launches: float | None = None
    """A training step's kernel launches in backward."""
    forward_bytes: int | None = None
    """A training step's bytes in forward (None when any forward kernel's bytes are unknown)."""
    backward_bytes: int | None = None
    """A training step's launches and bytes per section (None for a forward-only scenario, and bytes when
    any kernel of the section has unknown bytes)."""
    boundaries: tuple[Boundary, ...] = ()
    """Compiled: each pair of kernels that passes a buffer through memory, and why they stayed apart
    (``engine.compiler.boundaries``); empty for eager, and for a compile that fused everything."""
    saved_bytes: int | None = None
    """Bytes of the distinct tensors a training step's forward keeps for backward, its inputs excluded (they
    are alive anyway): the activation memory the step holds between its two halves."""
    call_breakdown: CallBreakdown | None = None
    """Where the time of a profiled call went: kernels, launch, dispatch, framework and idle device time, and
    the timeline of one call (``call_breakdown``); None in a preview, which runs nothing."""
    cuda_graphs: tuple[CudaGraphDecision, ...] = ()
    """Where the compile options ask for CUDA graphs: per compiled graph, whether Inductor captured it, and
    if not its reason and the line that caused it (``cuda_graph_decision``)."""
    peak_bytes: int | None = None
    """The most memory one steady call held at once above what was allocated before it (its output included):
    the allocator's count on a CPU or GPU, Inductor's buffer plan or the live storages of fake tensors in a
    preview (an estimate, ``peak_source`` says which)."""
    peak_arrays: float | None = None
    """``peak_bytes`` in array-sized units (bytes of the largest input)."""
    peak_source: str | None = None
    """Where ``peak_bytes`` came from: the CPU allocator's events, CUDA's caching allocator, or in a preview the
    fake tensors' live storages (eager) or Inductor's buffer plan (compiled)."""
    forward_peak_bytes: int | None = None
    """A training step's peak in forward, counted from the step's start."""
    backward_peak_bytes: int | None = None
    """A training step's peak per section, both counted from the step's start (backward's includes what forward
    kept for it)."""
    buffers_allocated: int | None = None
    """Buffers the call allocated: eager, one per operator result; compiled, the ``empty_strided`` lines of
    Inductor's wrappers."""
    recomputed: tuple[str, ...] = ()
    """Compiled, a training step: the forward operators its backward runs again instead of keeping their results
    (read from AOTAutograd's partitioner, ``engine/compiler/recompute``): its trade of memory for recomputation."""
    recomputed_flops: tuple[tuple[str, int | None], ...] = ()
    """Compiled, a training step: the FLOPs of the forward work its backward does again, per operator as its
    kernels are named for it (``aten::native_layer_norm``); the backward kernels that recompute are given them."""
    buffers_reused: int | None = None
    """Compiled: buffers Inductor handed to a later result instead of allocating one (``# reuse``)."""
    buffers_freed_early: int | None = None
    """Compiled: buffers Inductor handed to a later result instead of allocating (``# reuse``), and freed before
    the call returned (``del bufN``), as its wrappers say."""

    def section(self, name: str) -> tuple[Kernel, ...]:
        """The kernels of one of ``SECTIONS``, in table order."""
        if name not in SECTIONS:
            raise ValueError(f"no section {name!r}: the sections are {', '.join(SECTIONS)}")
        return tuple(kernel for kernel in self.kernels if kernel.section == name)

    @property
    def count_is_lower_bound(self) -> bool:
        """Whether ``kernel_count`` is the least a GPU would launch: a preview's row it cannot count (a sort, a
        fused layer) keeps one launch."""
        return any(kernel.count_is_lower_bound for kernel in self.kernels)

    @property
    def is_training(self) -> bool:
        return any(kernel.section is not None for kernel in self.kernels) or self.saved_bytes is not None
