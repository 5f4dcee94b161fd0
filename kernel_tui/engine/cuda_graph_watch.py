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

from kernel_tui.model.cuda_graph_decision import CudaGraphDecision, skip_reason


class CudaGraphWatch:
    """The decisions of the graphs compiled while ``watching()``, in compile order."""

    def __init__(self, scenario_path: str | None) -> None:
        self.scenario_path = scenario_path
        self.decisions: list[CudaGraphDecision] = []

    def _skipped(self, message: str) -> None:
        reason, line = skip_reason(message, self.scenario_path)
        self.decisions.append(CudaGraphDecision(len(self.decisions), False, reason, line))

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        from torch._inductor import output_code
        from torch._inductor.utils import BoxedBool

        watch = self

        def log_skip(message: str) -> None:
            watch._skipped(message)

        def record(example_inputs: Any, compiled_graph: Any, cudagraphs: Any, *rest: Any) -> None:
            info = compiled_graph.cudagraph_info
            failed = list(getattr(info, "cudagraph_fail_reasons", None) or ())
            if failed:
                watch._skipped(compiled_graph.disabled_cudagraphs_reason or f"skipping cudagraphs due to {failed}")
            else:
                parts = len(getattr(compiled_graph, "partition_maps", None) or ()) or None
                cpu_work = "cpu" in set(getattr(compiled_graph, "device_types", ()) or ())
                decision = CudaGraphDecision(len(watch.decisions), True, partitions=parts, cpu_work=cpu_work)
                watch.decisions.append(decision)
            BoxedBool.disable(cudagraphs)  # nothing can be recorded on a fake device: run the graph as compiled

        with contextlib.ExitStack() as stack:
            stack.enter_context(mock.patch.object(output_code, "log_cudagraph_skip_and_bump_counter", log_skip))
            for name in ("cudagraph_post_compile", "cudagraph_partition_post_compile"):
                if hasattr(output_code, name):
                    stack.enter_context(mock.patch.object(output_code, name, record))
            yield
