"""Inductor generating a GPU's code for fake tensors: a Dynamo backend that compiles for the fake GPU, and the
launches of one call of what it generated, each kernel a no-op (``generated_code``'s recording stand-ins)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest import mock

import torch
import torch._dynamo
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

from kernel_tui.engine.compiler import compile_watch
from kernel_tui.engine.compiler.cuda_graph_watch import CudaGraphWatch
from kernel_tui.engine.compiler.fusion_watch import FusionWatch, GraphFusion
from kernel_tui.engine.compiler.generated_code import compiled_traffic
from kernel_tui.engine.preview.cuda_fakes import fake_cuda, rewrite_sdpa
from kernel_tui.engine.preview.fake_wrapper import make_wrapper_fake
from kernel_tui.engine.preview.preview_inputs import HostValues
from kernel_tui.engine.preview.preview_support import check_preview, quiet_torch_warnings
from kernel_tui.transport.protocol import DEFAULT_ARCH

if TYPE_CHECKING:
    from kernel_tui.engine.counting.traffic import Traffic
    from kernel_tui.model.report.cuda_graph_decision import CudaGraphDecision


class PreviewBackend:
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
        self.fusion = FusionWatch()
        self.patches: dict[str, Any] = {"force_disable_caches": True, "compile_threads": 1, **self.fusion.patches()}
        if self.inductor.config.get("max_autotune") or self.inductor.config.get("max_autotune_gemm"):
            self.patches.update(max_autotune=False, max_autotune_gemm=False, max_autotune_pointwise=False)
            notes.append("max-autotune: a GPU benchmarks candidate kernels; the preview keeps the default choices")
        self.cuda_graphs = CudaGraphWatch(None) if self.inductor.config.get("triton.cudagraphs") else None
        """Inductor decides capture or skip while compiling; the watch keeps what it decided per graph."""

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
        # A module's parameters require grad in a forward-only call too: they ask for no training step.
        if any(
            isinstance(x, torch.Tensor) and x.requires_grad and not isinstance(x, torch.nn.Parameter)
            for x in example_inputs
        ):
            self.notes.append("training: inputs that require grad were compiled as inference (no backward graph)")
        rewrite_sdpa(gm, self.arch, self.notes)
        with fake_cuda(self.arch, self.notes), self._loaded_modules(), self.fusion.wrappers():
            # The wrapper's own config and ours, merged as its config_patches= would (which torch 2.10 lacks).
            self.inductor.config.update(self.patches)
            with self.cuda_graphs.watching() if self.cuda_graphs else contextlib.nullcontext():
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
    cuda_graphs: tuple[CudaGraphDecision, ...] = ()
    """Per compiled graph, where the options ask for CUDA graphs: Inductor's capture or skip, and why."""
    fusion: tuple[GraphFusion, ...] = ()
    """What the scheduler decided about fusing, per graph (``fusion_watch``)."""


def _plain_call(fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    with torch.no_grad():
        return fn(*args)


def generate_for_gpu(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    arch: int = DEFAULT_ARCH,
    *,
    options: dict[str, Any] | None = None,
    notes: list[str] | None = None,
    call: Callable[[Callable[..., Any], tuple[Any, ...]], Any] = _plain_call,
) -> GeneratedCode:
    """Compile ``fn`` for a GPU of architecture ``arch`` on ``args`` (fake CUDA tensors), run what was generated
    once with every launch a no-op, and return its launches; ``options`` are the scenario's ``COMPILE``.

    ``notes`` receives the assumptions made; ``call(compiled_fn, args)`` makes the calls (a scenario's, to turn
    a failure into a report). ``.item()`` between graphs answers a stand-in value, noted once."""
    check_preview()
    options = options or {}
    notes = notes if notes is not None else []
    fake_mode = next(t.fake_mode for t in args if isinstance(t, FakeTensor))
    backend = PreviewBackend(arch, fake_mode, options, notes)
    if backend.cuda_graphs is not None:
        backend.cuda_graphs.scenario_path = getattr(getattr(fn, "__code__", None), "co_filename", None)
    host = HostValues()
    try:
        with _fresh_dynamo(), quiet_torch_warnings():
            watch = compile_watch.CompileWatch().start()
            compiled_fn = torch.compile(
                fn, backend=backend, dynamic=options.get("dynamic"), fullgraph=bool(options.get("fullgraph", False))
            )
            with host:
                # Twice, as the measured compile calls it before recording: a guard that fails on the second call
                # recompiles there, not inside the recording, which would miss the new graph's kernels.
                call(compiled_fn, args)
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
                tuple(backend.cuda_graphs.decisions) if backend.cuda_graphs is not None else (),
                tuple(backend.fusion.graphs),
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


def _forget(modules: list[Any]) -> None:
    """Drop the preview's wrappers from Inductor's module list: a measured compile's recording must not walk
    modules whose kernels are stubs."""
    from torch._inductor.codecache import PyCodeCache

    loaded = getattr(PyCodeCache, "modules", None)
    if isinstance(loaded, list):
        ids = {id(module) for module in modules}
        loaded[:] = [module for module in loaded if id(module) not in ids]
