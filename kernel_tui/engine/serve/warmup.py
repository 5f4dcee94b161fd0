"""Warm the compiler while the learner reads: the first ``torch.compile`` of a session pays once for
Inductor's imports (done already in an engine forked from the fork server), its C++ toolchain and ISA probes
and, with a cold cache, much more (80 s of an 87 s first lesson on a busy machine). A tiny function
compiled right after ``hello`` pays it before the first run is asked for.

It compiles in the engine's main thread, where every scenario's own compiles run, never in a thread of its
own: Dynamo and Inductor are not thread-safe, and on torch 2.11's CUDA builds a compile in a thread that then
ends leaves a dangling CUDA device guard that the main thread's next compile calls through (SIGSEGV; fixed
upstream in pytorch#178950; ``tests/engine/test_warmup.py`` runs it on that torch). The request reader keeps reading
meanwhile, so a run asked for during the warm-up is told at once why it waits, and runs when it ends: on 2 cores
a compile beside the eager measurement would slow it and skew its times, and the run's own compile would wait
for Dynamo's compile lock anyway. Waiting costs the run at most the tiny function's own kernel: the rest it
would have paid itself.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from kernel_tui.model.settings import cache_dir
from kernel_tui.model.storage.atomic_write import write_atomic
from kernel_tui.transport.protocol import Warmup, WarmupPlan

DEFAULT_ESTIMATE_S = {"cold": 20.0, "warm": 3.0}
"""Before a first warm-up on this machine: about what a cold and a warm Inductor cache cost on a quiet one."""
RECORD = "warmup.json"


def _record_path() -> Path:
    return cache_dir() / RECORD


def inductor_cache_is_cold() -> bool:
    """Whether Inductor has compiled nothing into its cache yet (a fresh clone, a new cache folder)."""
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    root = Path(cache_dir())
    try:
        return not any(root.iterdir())
    except OSError:
        return True


def estimate_s(cold: bool) -> float:
    """How long the warm-up will take: the last one measured on this machine for a cache this cold."""
    key = "cold" if cold else "warm"
    try:
        return float(json.loads(_record_path().read_text())[key])
    except (OSError, ValueError, KeyError, TypeError):
        return DEFAULT_ESTIMATE_S[key]


def _remember(cold: bool, seconds: float) -> None:
    path = _record_path()
    try:
        record = json.loads(path.read_text())
        if not isinstance(record, dict):
            record = {}
    except (OSError, ValueError):
        record = {}
    record["cold" if cold else "warm"] = round(seconds, 1)
    try:
        write_atomic(path, json.dumps(record))  # a link at its name is replaced, not written through
    except OSError:
        pass  # only the next estimate is worse for it


def _compile_tiny(device: str) -> None:
    # Inductor's C++ build imports cpp_extension, whose setuptools appends its _vendor folder to sys.path: a scenario
    # must find the path an engine that did not warm up gives it (the first run of a session takes an engine whose
    # warm-up it overtook), not the warm-up's leftovers.
    path = list(sys.path)
    try:
        _compile_and_forget(device)
    finally:
        sys.path[:] = path


def _compile_and_forget(device: str) -> None:
    import torch

    def tiny(x: torch.Tensor) -> torch.Tensor:
        return (x + 1).relu()

    # Its own Dynamo cache entry, reset afterwards, so that no scenario's recompile count includes it.
    compiled = torch.compile(tiny)
    device = "cpu" if device == "cuda-preview" else device
    with torch.no_grad():
        compiled(torch.ones(16, device=device))
    torch._dynamo.reset()


class WarmUp:
    """One compile of a tiny function, run once by the engine's main thread (``run``) before it serves a request."""

    def __init__(self, device: str, report: Callable[[Warmup], None]) -> None:
        self.device = device
        self.cold = inductor_cache_is_cold()
        self.estimate_s = estimate_s(self.cold)
        self._report = report
        self._started_at: float | None = None
        self._ended = threading.Event()
        self.seconds: float | None = None

    def plan(self) -> WarmupPlan:
        """What the hello says of it."""
        return WarmupPlan(cold=self.cold, estimate_s=round(self.estimate_s, 1))

    @property
    def running(self) -> bool:
        """Whether it has not ended yet, started or about to be (the engine runs it right after its hello, and a
        request may arrive in between): read by the request reader's thread."""
        return not self._ended.is_set()

    def remaining_s(self) -> float:
        elapsed = time.monotonic() - (self._started_at or time.monotonic())
        return max(1.0, self.estimate_s - elapsed)

    def run(self) -> None:
        """Compile the tiny function here, in the caller's thread, and report how it went."""
        self._started_at = started = time.monotonic()
        try:
            _compile_tiny(self.device)
        except Exception as error:  # noqa: BLE001 - a failed warm-up only means the first run pays itself
            self.seconds = time.monotonic() - started
            self._ended.set()
            self._report(Warmup("failed", round(self.seconds, 2), message=repr(error)[:300]))
            return
        self.seconds = time.monotonic() - started
        self._ended.set()
        _remember(self.cold, self.seconds)
        self._report(Warmup("done", round(self.seconds, 2), cold=self.cold))
