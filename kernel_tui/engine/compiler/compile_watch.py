"""Counting what ``torch.compile`` did: graphs compiled, graph breaks and recompiles, with their reasons.

Dynamo reports graph breaks and recompiles on its artifact loggers; we switch those on once and keep
what they say while a watch is open. Graph counts come from dynamo's long-lived counters.
"""

from __future__ import annotations

import itertools
import logging
import os
import sys
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import torch._dynamo
import torch._logging
from torch._dynamo.utils import counters

if TYPE_CHECKING:
    from kernel_tui.model.report.mode_result import ModeResult

_LOG_NAMES = ("__recompiles", "__graph_breaks")


@dataclass
class CompileWatch:
    """What dynamo did between ``start()`` and reading the properties."""

    graphs_before: int = 0
    breaks_before: int = 0
    recompile_reasons: list[str] = field(default_factory=list)
    graph_break_reasons: list[str] = field(default_factory=list)

    def start(self) -> CompileWatch:
        self.graphs_before = _unique_graphs()
        self.breaks_before = _graph_break_total()
        self.recompile_reasons.clear()
        self.graph_break_reasons.clear()
        _HANDLER.watch = self
        return self

    @property
    def graphs(self) -> int:
        return _unique_graphs() - self.graphs_before

    @property
    def graph_breaks(self) -> int:
        return _graph_break_total() - self.breaks_before

    @property
    def recompiles(self) -> int:
        return len(self.recompile_reasons)

    def facts(self) -> CompileFacts:
        """What dynamo did so far, kept: a later compile (a CUDA-graph twin) must not count."""
        return CompileFacts(
            self.graph_breaks, tuple(self.graph_break_reasons), self.recompiles, tuple(self.recompile_reasons)
        )


@dataclass(frozen=True)
class CompileFacts:
    graph_breaks: int
    graph_break_reasons: tuple[str, ...]
    recompiles: int
    recompile_reasons: tuple[str, ...]

    def applied_to(self, mode: ModeResult) -> ModeResult:
        return replace(
            mode,
            graph_breaks=self.graph_breaks,
            graph_break_reasons=self.graph_break_reasons,
            recompiles=self.recompiles,
            recompile_reasons=self.recompile_reasons,
        )


def _unique_graphs() -> int:
    return int(counters["stats"]["unique_graphs"])


def graphs_so_far() -> int:
    """Graphs dynamo has compiled in this process: read before and after a call, whether it compiled (a sweep's
    point keeps such seconds apart from its own), without taking the open watch's logs."""
    return _unique_graphs()


def _graph_break_total() -> int:
    return int(sum(counters["graph_break"].values()))


SUMMARY_CHARS = 400
"""A reason's summary at most: where, what and Dynamo's first hint fit; its developer context does not."""


def _summarise(message: str) -> str:
    """``file.py:13: Failed to trace builtin operator: Dynamo does not know how to trace builtin operator `print` …
    Hint: …``: where, what Dynamo met, why it cannot trace it and its first hint. Since torch 2.7 the reason line
    is a header (``… attempting to trace CALL: a function call, e.g. f(x, y):``) over the cause's own lines."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    where = next((line for line in lines if " at " in line and ("user code" in line or "function" in line)), "")
    at = next((i for i, line in enumerate(lines) if line.startswith("Graph Break Reason:")), None)
    reason = lines[at].removeprefix("Graph Break Reason:").strip() if at is not None else ""
    fell_back = "falling back to eager" in reason
    if reason.endswith(":") and at is not None and at + 1 < len(lines):
        reason = lines[at + 1]
    explanation = _labelled(lines, "Explanation:")
    hint = _labelled(lines, "Hint:")
    if not reason:
        reason = next((line for line in lines if line.startswith("- ")), "") or explanation
        reason = reason or (lines[1] if len(lines) > 1 else (lines[0] if lines else ""))
    parts = [reason.rstrip(":")]
    if explanation and explanation not in reason:
        parts.append(explanation)
    text = ": ".join(parts) + (f" Hint: {hint}" if hint else "")
    if fell_back:
        text = f"the whole function ran eagerly: {text}"
    text = f"{where.split(' at ', 1)[-1]}: {text}" if where else text
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


def _labelled(lines: list[str], label: str) -> str:
    return next((line.removeprefix(label).strip() for line in lines if line.startswith(label)), "")


class _Handler(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.watch: CompileWatch | None = None

    def emit(self, record: logging.LogRecord) -> None:
        watch = self.watch
        if watch is None:
            return
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed log record must not break a measurement
            return
        if record.name.endswith("__recompiles"):
            watch.recompile_reasons.append(_summarise(message))
        elif record.name.endswith("__graph_breaks"):
            reason = _summarise(message)
            if reason not in watch.graph_break_reasons:
                watch.graph_break_reasons.append(reason)


_HANDLER = _Handler()


def install() -> None:
    """Turn on dynamo's recompile and graph-break logs and listen to them (once per process).

    They are for this handler, which turns them into the report's reasons: torch's own stderr handler would
    print them too, raw, under every sweep of ``kernel-tui run`` (unless the user asked for them, ``TORCH_LOGS``).
    """
    torch._logging.set_logs(recompiles=True, graph_breaks=True)
    logger = logging.getLogger("torch._dynamo")
    if not os.environ.get("TORCH_LOGS"):
        for handler in logger.handlers:
            if handler is not _HANDLER and _not_ours not in handler.filters:
                handler.addFilter(_not_ours)
    if _HANDLER not in logger.handlers:
        logger.addHandler(_HANDLER)


def _not_ours(record: logging.LogRecord) -> bool:
    return not record.name.endswith(_LOG_NAMES)


DYNAMO_RECOMPILE_LIMITS = {
    "recompile_limit": 8,
    "cache_size_limit": 8,
    "accumulated_recompile_limit": 256,
    "accumulated_cache_size_limit": 256,
}
"""Dynamo's own defaults: per code object and over all (``cache_size_limit`` is the name before torch 2.6)."""


def raise_recompile_limit(at_least: int) -> None:
    """Dynamo silently runs eagerly past its recompile limit (8); a sweep must never fall back unseen."""
    raise_recompile_limits(dict.fromkeys(DYNAMO_RECOMPILE_LIMITS, at_least))


def raise_recompile_limits(floors: dict[str, int]) -> bool:
    """Raise each of dynamo's limits named in ``floors`` to at least its floor; whether any was lower."""
    config = torch._dynamo.config
    raised = False
    for name, floor in floors.items():
        if hasattr(config, name) and getattr(config, name) < floor:
            setattr(config, name, floor)
            raised = True
    return raised


def count_graphs_from_zero() -> None:
    """Number the graphs of the compile about to start from zero, as a fresh process would.

    On the CPU, Inductor names each C++ kernel for the profiler after a process-wide count of graphs
    (``graph_3_cpp_fused_add_0``), and the name is in the kernel's source, so in the key of its compiled-code
    cache: the same graph compiled at another count runs g++ again, seconds a kernel. The watched compile (why
    kernels stayed apart) came after the measured one and so compiled every kernel a second time, as did an
    engine that had compiled anything before (the explorer's warm-up, the scenarios before it). Counted from zero
    at each compile of a scenario, the same graph is the same source. Inductor uses the count for nothing else
    on the CPU, and kernel-tui reads kernel names without it (``model.names.names``)."""
    # Not imported yet, it counts from zero when it is; one that cannot be imported fails in the compile stage.
    compile_fx = sys.modules.get("torch._inductor.compile_fx")
    if compile_fx is not None and hasattr(compile_fx, "_graph_counter"):  # a later torch may move it
        setattr(compile_fx, "_graph_counter", itertools.count(0))  # noqa: B010 - a module typed only as ModuleType
