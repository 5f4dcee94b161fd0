"""Whether Inductor put a compiled graph under CUDA graphs (``mode="reduce-overhead"``), and if not, why.

Torch-free, part of a mode's report (``ModeResult.cuda_graphs``). Inductor decides while compiling, from the
graph alone (a CPU tensor, a mutated input, a dynamic shape, an incompatible operator), so the CUDA preview
can tell capture from skip without a GPU (``engine/compiler/cuda_graph_watch``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FOUND_AT = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
SKIP_PREFIX = re.compile(r"^(?:skipping|disabling) cudagraphs due to ", re.IGNORECASE)


@dataclass(frozen=True)
class CudaGraphDecision:
    """One compiled graph: captured (``reason`` None) or skipped, with Inductor's reason and the user's line
    that caused it, where Inductor's stack trace names one in the scenario's file."""

    graph: int
    """The compiled graph's number, in compile order."""
    captured: bool
    """Whether Inductor puts the graph under CUDA graphs (recorded on the first GPU call, then replayed)."""
    reason: str | None = None
    """Inductor's skip reason, one line (``cpu device (arg0_1)``, ``mutated inputs (1 instances)``)."""
    line: int | None = None
    """The scenario's line Inductor's stack trace names for the skip."""
    partitions: int | None = None
    """Graph partitioning (torch 2.9+) captures the GPU parts of a graph and runs what cannot be captured (CPU
    operators) between them, instead of skipping the graph: how many parts are captured."""
    cpu_work: bool = False
    """The graph also runs operators on the CPU, which no CUDA graph holds."""

    def text(self) -> str:
        if self.captured:
            parts = f" in {self.partitions} parts" if self.partitions and self.partitions > 1 else ""
            cpu = "; its CPU operators run outside the graph, between the replays" if self.cpu_work else ""
            return f"graph {self.graph} captured{parts}{cpu}"
        where = f", line {self.line}" if self.line is not None else ""
        return f"graph {self.graph} skipped: {self.reason}{where}"


def skip_reason(message: str, scenario_path: str | None) -> tuple[str, int | None]:
    """Inductor's skip message as one line without its prefix, and the line of ``scenario_path`` its stack
    trace points at (the deepest frame in that file), if any."""
    head = message.split("Found from", 1)[0].strip().rstrip(".")
    head = " ".join(head.split())
    while SKIP_PREFIX.match(head):  # torch prefixes a reason that already carries the prefix
        head = SKIP_PREFIX.sub("", head, count=1)
    lines = [
        int(match["line"])
        for match in FOUND_AT.finditer(message)
        if scenario_path is None or match["file"] == scenario_path
    ]
    return head, (lines[-1] if lines else None)
