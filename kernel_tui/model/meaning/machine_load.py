"""How busy the machine was while a scenario was measured, and what that means for its numbers.

A shared GPU box or a class's server runs other people's jobs beside ours: their load shows in our times as
spread, as kernel times that add up to more than the call, and as speedup ranges too wide to mean anything.
The engine samples the load average and the CPU time stolen by a hypervisor around a measurement
(``LoadSampler``), and the report carries it (``MachineLoad``), so that the CLI and the app can say so in a
plain sentence instead of leaving the learner to trust, or doubt, every number alike. No torch here: the app
reads it too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

BUSY_JOBS_PER_CORE = 2.0
"""Twice as many runnable jobs as cores: some of ours waited for a core while being timed. Not one per core: the
load average counts the engine's own threads (one per core on a CPU), so a quiet machine reads about 1 per core
while it measures."""
BUSY_STEAL_PCT = 5.0
"""A hypervisor took this share of our CPU time for other guests."""
TOO_WIDE = 3.0
"""A speedup range whose ends differ by more than this factor says nothing a learner can use: the rounds that
were meant to agree disagreed by more than any effect worth teaching."""
RETRY_HINT = "fewer other jobs or a retry would help"


@dataclass(frozen=True)
class MachineLoad:
    """The machine while measuring: runnable jobs, cores, stolen CPU time and how much repeated runs disagreed."""

    load_avg: float
    """The one-minute load average at the end of the measurement (runnable and waiting jobs)."""
    cores: int
    """The cores this process may run on."""
    steal_pct: float | None = None
    """Share of CPU time stolen by the hypervisor during the measurement; None where /proc/stat is absent."""
    disagreement: float | None = None
    """How far repeated timing rounds disagreed: the high end of the speedup's range over its low end."""
    omp_wait_policy: str | None = None
    """``OMP_WAIT_POLICY`` as the engine's torch loaded it (``PASSIVE`` unless the user set another:
    ``model.settings.TORCH_DEFAULTS``); None in results saved before it was kept."""

    @property
    def threads_spin(self) -> bool:
        """Whether OpenMP's threads spin while they wait, which a busy machine turns into time."""
        return self.omp_wait_policy is not None and self.omp_wait_policy.strip().upper() != "PASSIVE"

    @property
    def jobs_per_core(self) -> float:
        return self.load_avg / max(self.cores, 1)

    @property
    def busy(self) -> bool:
        return (
            self.jobs_per_core > BUSY_JOBS_PER_CORE
            or (self.steal_pct or 0.0) > BUSY_STEAL_PCT
            or (self.disagreement or 1.0) > TOO_WIDE
        )

    def sentence(self) -> str:
        """One plain sentence for the summary: what the load was and, when busy, what it did and what helps."""
        facts = f"load {self.load_avg:.1f} on {self.cores} core{'s' if self.cores != 1 else ''}"
        if self.steal_pct is not None and self.steal_pct >= 0.5:
            facts += f", {self.steal_pct:.0f}% of CPU time stolen by other guests"
        if self.disagreement is not None and self.disagreement > TOO_WIDE:
            facts += f", repeated runs disagreed up to {self.disagreement:.3g}×"
        if not self.busy:
            return f"the machine was quiet while measuring ({facts})"
        busy = f"the machine was busy while measuring ({facts}): times marked noisy moved with it; {RETRY_HINT}"
        if self.threads_spin:
            busy += (
                f"; OpenMP threads spun while they waited (OMP_WAIT_POLICY={self.omp_wait_policy}), which on a busy"
                " machine reads CPU times several times slow: unset it (kernel-tui then sets PASSIVE)"
            )
        return busy


def too_wide(spread: tuple[float, float] | None) -> bool:
    """Whether a speedup's range is too wide to show as numbers (its low end not positive counts as wide)."""
    if spread is None:
        return False
    low, high = spread
    return low <= 0 or high / low > TOO_WIDE


class LoadSampler:
    """Started before a measurement and read after it: the load then, and the CPU steal in between."""

    def __init__(self) -> None:
        self._stat = _cpu_times()

    def read(self, disagreement: float | None = None) -> MachineLoad:
        before, after = self._stat, _cpu_times()
        steal = None
        if before is not None and after is not None:
            total = sum(after) - sum(before)
            # /proc/stat's eighth field is steal; older kernels have fewer fields.
            steal = 100.0 * (after[7] - before[7]) / total if total > 0 and len(after) > 7 else None
        return MachineLoad(os.getloadavg()[0], _cores(), steal, disagreement, os.environ.get("OMP_WAIT_POLICY"))


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _cpu_times() -> list[int] | None:
    try:
        with open("/proc/stat") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    return [int(value) for value in fields[1:]]
