"""Where the time of one call goes: its parts (kernels, launch and dispatch, framework, idle device) and the
timeline of one steady call, as the profile saw them.

Torch-free, part of a mode's report (``ModeResult.call_breakdown``). The parts split the call with no overlap:
each instant of a profiled call is given to the first of these that applies (``engine/counting/call_timeline``):

- ``kernels``: a kernel, memcpy or memset runs (on a CPU, an operator or generated kernel doing its work);
- ``launch``: the host is inside a runtime call that launches or copies (a GPU's ``cudaLaunchKernel``);
- ``idle``: the host waits for the device (a synchronize) and the device runs nothing; None on a CPU, where
  the host is the device;
- ``dispatch``: the host is inside an operator but not in its work, or in Python outside the compiled code;
- ``framework``: the host is inside Dynamo's guards and cache lookup or the compiled wrapper (and no deeper).

Each part is the median over the profiled runs, with its interquartile range: medians of parts need not add up
to the median call exactly, only within the spreads (``adds_up``). Whether the kernels or the overhead around
them take most of a call is read run by run (``kernels_share_range``): medians of different runs told a 5.7 ms
kernel inside an 11.6 ms call on a busy machine, where each run's own kernels took most of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PARTS = ("kernels", "launch", "dispatch", "framework", "idle")
PART_WORDS = {
    "kernels": "kernels",
    "launch": "launch",
    "dispatch": "Python and dispatch",
    "framework": "guards and wrapper",
    "idle": "device idle",
}
LANES = ("host", "framework", "launch", "device")
"""The timeline's lanes, top to bottom: operators and Python, Dynamo and the compiled wrapper, runtime launch
calls, and the work itself (a GPU's kernels, copies and fills; a CPU's operators and generated kernels)."""


@dataclass(frozen=True)
class TimelineSpan:
    """One interval of the timeline, in microseconds from the start of the call."""

    lane: str
    """One of ``LANES``: ``host``, ``framework``, ``launch`` or ``device``."""
    name: str
    """The operator, range, runtime call or kernel (a kernel by its short name; ``several`` for spans merged
    from different names)."""
    start_us: float
    """Microseconds from the start of the call."""
    end_us: float
    """Microseconds from the start of the call."""


@dataclass(frozen=True)
class CallBreakdown:
    """One mode's call, split into parts, and the timeline of its median profiled run."""

    call_us: float
    """The median profiled call, start of its run range to its end (the profiler's own cost included)."""
    call_iqr_us: float
    """The interquartile range of the call over the profiled runs."""
    kernels_us: float
    """Time a kernel, memcpy or memset runs (on a CPU, an operator or generated kernel does its work)."""
    launch_us: float
    """Time the host spends in runtime launch and copy calls, no kernel running (0 on a CPU)."""
    dispatch_us: float
    """Time in operators around their work, and in Python outside the compiled code."""
    framework_us: float
    """Time in Dynamo's cache lookup and guards and in AOTAutograd's and Inductor's wrapper."""
    idle_us: float | None
    """None on a CPU: the host runs the kernels itself, there is no device to wait for."""
    iqr_us: dict[str, float] = field(default_factory=dict)
    """Each part's interquartile range over the runs, by part name."""
    runs: int = 0
    """The profiled runs the medians are taken over."""
    timeline: tuple[TimelineSpan, ...] = ()
    """The spans of the run whose call time is the median, clipped to the call."""
    timeline_dropped: int = 0
    """Spans of that run merged into their neighbours to keep ``timeline`` small (a lane of more than 200 spans:
    the closest neighbours first, so the lane still covers the same time)."""
    kernels_share: float | None = None
    """The median over the runs of each run's kernels over its call, 0 to 1; None in a report from before it was
    measured."""
    kernels_share_range: tuple[float, float] | None = None
    """The quartiles of each run's kernels over its call: when they lie on both sides of one half, the runs
    disagree on whether kernels or overhead take most of a call (``overhead_settled``)."""

    def part(self, name: str) -> float | None:
        value: float | None = getattr(self, f"{name}_us")
        return value

    @property
    def overhead_us(self) -> float:
        """Everything that is not the kernels: what a call costs around its work."""
        return max(self.call_us - self.kernels_us, 0.0)

    @property
    def parts_us(self) -> float:
        return sum(self.part(name) or 0.0 for name in PARTS)

    @property
    def spread_us(self) -> float:
        """How far the sum of the parts' medians may honestly sit from the median call."""
        return self.call_iqr_us + sum(self.iqr_us.values())

    @property
    def adds_up(self) -> bool:
        return abs(self.parts_us - self.call_us) <= self.spread_us + 1e-6 * max(self.call_us, 1.0)

    @property
    def overhead_dominates(self) -> bool:
        """More than half of a call is spent around its kernels: in most runs when measured run by run."""
        if self.kernels_share is not None:
            return self.kernels_share < 0.5
        return self.overhead_us > self.kernels_us

    @property
    def overhead_settled(self) -> bool:
        """The runs agree on ``overhead_dominates``: three quarters of them, or, in a report with no shares, the
        gap between overhead and kernels is wider than the spreads of the call and the kernels."""
        if self.kernels_share_range is not None:
            low, high = self.kernels_share_range
            return high < 0.5 or low >= 0.5
        gap = abs(self.overhead_us - self.kernels_us)
        return gap > (self.call_iqr_us + 2 * self.iqr_us.get("kernels", 0.0)) / 2

    def unsettled_reason(self) -> str | None:
        """Why ``overhead_dominates`` cannot be told, in words; None when it can."""
        if self.overhead_settled:
            return None
        if self.kernels_share_range is not None:
            low, high = self.kernels_share_range
            return f"too noisy to tell: kernels took {100 * low:.0f}% to {100 * high:.0f}% of the profiled calls"
        return "too noisy to tell: overhead and kernels are closer than the call's spread"

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> CallBreakdown | None:
        if data is None:
            return None
        values = dict(data)
        values["timeline"] = tuple(TimelineSpan(**span) for span in values.get("timeline", ()))
        values["iqr_us"] = dict(values.get("iqr_us") or {})
        if values.get("kernels_share_range") is not None:
            values["kernels_share_range"] = tuple(values["kernels_share_range"])  # a JSON list
        names = set(cls.__dataclass_fields__)
        return cls(**{key: value for key, value in values.items() if key in names})
