"""Inductor's own CUDA-graph decision for each graph it compiles, read without a GPU.

With ``triton.cudagraphs`` on, Inductor checks each compiled graph while compiling (``CompiledFxGraph``: a
CPU device, mutated inputs, symbolic shapes, incompatible operators) and then, in ``post_compile``, either
wraps the graph for recording or logs why it skipped (``log_cudagraph_skip_and_bump_counter``). Recording
needs a real device, so the watch stands in for the wrapping step: it notes the capture and leaves the graph
unwrapped, and keeps every skip message Inductor logs. What it reports is the decision a GPU run would make.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any
from unittest import mock

from kernel_tui.model.report.cuda_graph_decision import CudaGraphDecision, skip_reason


class CudaGraphWatch:
    """The decisions of the graphs compiled while ``watching()``, in compile order."""

    def __init__(self, scenario_path: str | None) -> None:
        self.scenario_path = scenario_path
        self.decisions: list[CudaGraphDecision] = []

    def _skipped(self, message: str) -> None:
        reason, line = skip_reason(message, self.scenario_path)
        self.decisions.append(CudaGraphDecision(len(self.decisions), False, reason, line))

    def _captured(self, compiled_graph: Any) -> None:
        parts = len(getattr(compiled_graph, "partition_maps", None) or ()) or None
        cpu_work = "cpu" in set(getattr(compiled_graph, "device_types", ()) or ())
        self.decisions.append(CudaGraphDecision(len(self.decisions), True, partitions=parts, cpu_work=cpu_work))

    @contextlib.contextmanager
    def watching(self, *, stand_in: bool = True) -> Iterator[None]:
        """Keep Inductor's decisions while compiling. ``stand_in``: the device is fake, so the recording step is
        not run (the graph runs as compiled); without it (a real GPU) Inductor's own steps run as they would,
        and the watch only reads what they decided."""
        from torch._inductor import output_code
        from torch._inductor.cudagraph_utils import log_cudagraph_skip_and_bump_counter as log
        from torch._inductor.utils import BoxedBool

        watch = self

        def log_skip(message: str) -> None:
            watch._skipped(message)
            if not stand_in:
                log(message)

        def stood_in(example_inputs: Any, compiled_graph: Any, cudagraphs: Any, *rest: Any) -> None:
            info = compiled_graph.cudagraph_info
            failed = list(getattr(info, "cudagraph_fail_reasons", None) or ())
            if failed:
                watch._skipped(compiled_graph.disabled_cudagraphs_reason or f"skipping cudagraphs due to {failed}")
            else:
                watch._captured(compiled_graph)
            BoxedBool.disable(cudagraphs)  # nothing can be recorded on a fake device: run the graph as compiled

        def read_after(original: Any) -> Any:
            def post_compile(example_inputs: Any, compiled_graph: Any, cudagraphs: Any, *rest: Any) -> None:
                before = len(watch.decisions)
                original(example_inputs, compiled_graph, cudagraphs, *rest)
                if len(watch.decisions) > before:
                    return  # a skip Inductor logged
                if cudagraphs:
                    watch._captured(compiled_graph)
                else:  # a graph partitioning left nothing to capture, or a skip Inductor did not log
                    info = compiled_graph.cudagraph_info
                    failed = list(getattr(info, "cudagraph_fail_reasons", None) or ()) or ["no GPU partition"]
                    watch._skipped(f"skipping cudagraphs due to {', '.join(failed)}")

            return post_compile

        with contextlib.ExitStack() as stack:
            stack.enter_context(mock.patch.object(output_code, "log_cudagraph_skip_and_bump_counter", log_skip))
            for name in ("cudagraph_post_compile", "cudagraph_partition_post_compile"):
                original = getattr(output_code, name, None)
                if original is not None:
                    stack.enter_context(
                        mock.patch.object(output_code, name, stood_in if stand_in else read_after(original))
                    )
            yield


def gpu_watch(options: dict[str, Any], device: str, scenario_path: str) -> CudaGraphWatch | None:
    """A watch for a compile on a real GPU whose ``options`` ask for CUDA graphs, else None (a CPU has none:
    ``variants.cudagraph_note`` says so)."""
    from kernel_tui.engine.counting.cuda_graphs import twin_compile_options

    return CudaGraphWatch(scenario_path) if device == "cuda" and twin_compile_options(options) else None


def watched(watch: CudaGraphWatch | None) -> contextlib.AbstractContextManager[None]:
    return watch.watching(stand_in=False) if watch is not None else contextlib.nullcontext()
