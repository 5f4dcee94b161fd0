"""How each kind of claim a lesson makes is asked before its run, and how the answer is graded after it.

A lesson's ``EXPECT`` names what it teaches (``eager``, ``eager_line_40``, ``compiled_grid``...). Each key
belongs to one ``ClaimKind``, which says everything the predict dialog needs to ask it (a sentence of the
question, the row and column of its box, whether the box takes a count, an amount of arrays or a word) and
everything the reveal needs to grade it (how the report measures it, how close is right, on which devices it
can be measured at all). A new claim kind is one entry in ``CLAIM_KINDS``; the dialog and the score read them
all the same way. Nothing here touches Textual or torch; the report's modules are imported when a report is
graded, after the explorer's first frame.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernel_tui.model.report.boundary import KINDS as BOUNDARY_KINDS
from kernel_tui.model.report.report_keys import MODES

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioReport

DEVICES = frozenset({"cpu", "cuda", "cuda-preview"})
TIMED = frozenset({"cpu", "cuda"})
"""Where times are measured: a CUDA preview generates code for a GPU it never runs on."""
SWEPT = TIMED
"""Where a size sweep runs: a CUDA preview leaves the sweep's claims unchecked."""
CACHED = TIMED
"""Where the compile caches are asked: a CUDA preview compiles with them off."""
TUNED = TIMED
"""Where max-autotune times candidates: a CUDA preview compiles with it off."""
GPU = frozenset({"cuda", "cuda-preview"})
BOUNDS = ("compute", "memory", "overhead")


@dataclass(frozen=True)
class Count:
    """A whole number, right only when it is the measured one."""

    counted: str = "kernels"
    """What the box counts, for the warning when it holds no number."""
    digits: int = 3


@dataclass(frozen=True)
class Amount:
    """A number of arrays, fractions welcome, right within ``slack`` arrays or 5 % of the measurement."""

    slack: float


@dataclass(frozen=True)
class Choice:
    """One of a few words (a unique beginning is enough), kept as its index."""

    words: tuple[str, ...]


Entry = Count | Amount | Choice


def _claim(key: str, report: ScenarioReport) -> float | None:
    """What ``report`` measured for the claim ``key``, exactly as the engine checks the lesson's claim."""
    from kernel_tui.model.scenario.expect import measure_of

    return measure_of(key)(report)


def _settled(_key: str, _report: ScenarioReport) -> str | None:
    return None


def _side(key: str) -> str | None:
    """The column of a key named after a side (``eager_saved``); None: one box across both columns."""
    side = key.split("_", 1)[0]
    return side if side in MODES else None


def _compiled(_key: str) -> str:
    return "compiled"


def _spanning(_key: str) -> None:
    return None


@dataclass(frozen=True)
class ClaimKind:
    """One kind of claim: how it is asked and how it is graded."""

    name: str
    pattern: str
    """The keys of this kind (a regular expression the whole key matches)."""
    question: str
    """Its sentence in the dialog's question."""
    row: Callable[[str], str]
    """The label of the row a key's box sits in (keys of one row share it)."""
    label: Callable[[str], str]
    """A key's own name, beside the measurement in the reveal."""
    entry: Entry = Count()
    column: Callable[[str], str | None] = _side
    devices: frozenset[str] = DEVICES
    """The devices whose reports can measure it: it is not asked on the others."""
    per_arch: bool = False
    """A CUDA preview's answer holds for one GPU architecture only (a launch's grid and warps)."""
    needs_sweep: bool = False
    """Only a size sweep measures it: asked before a run with the sweep, graded when the sweep ends."""
    measure: Callable[[str, ScenarioReport], float | None] = _claim
    unsettled: Callable[[str, ScenarioReport], str | None] = _settled
    """Why a timed report cannot grade a key (its runs disagree on a busy machine); None when it can."""
    names_lines: bool = False
    """Its keys name lines of the file (``eager_line_40``): the dialog quotes them."""
    unit: Callable[[str], str] | None = None
    """What an empty box says it wants (``blocks``); None: what its entry counts, ``arrays``, or its words."""

    def placeholder(self, key: str) -> str:
        if self.unit is not None:
            return self.unit(key)
        if isinstance(self.entry, Choice):
            words = self.entry.words
            text = ", ".join(words[:-1]) + f" or {words[-1]}"
            # A column's box shows 14 characters: there, first letters (which are enough to answer).
            return text if self.column(key) is None or len(text) <= 14 else " or ".join(word[0] for word in words)
        return "arrays" if isinstance(self.entry, Amount) else self.entry.counted

    def matches(self, key: str) -> bool:
        return re.fullmatch(self.pattern, key) is not None

    def right(self, predicted: float, measured: float) -> bool:
        if isinstance(self.entry, Amount):
            return abs(measured - predicted) <= max(self.entry.slack, 0.05 * measured)
        return round(measured) == predicted


def _transfers(key: str, report: ScenarioReport) -> float | None:
    """No kernels move no bytes, whether or not the report says 0 (a views-only function)."""
    return 0.0 if _claim(key.removesuffix("_transfers"), report) == 0 else _claim(key, report)


def _swept(key: str, report: ScenarioReport) -> float | None:
    from kernel_tui.model.scenario.expect import sweep_cut_short

    return None if sweep_cut_short(report) is not None else _claim(key, report)  # compiled some sizes only


def _thread_share(key: str, report: ScenarioReport) -> float | None:
    """``all`` when the widest compiled kernel runs on every thread PyTorch has, ``one``, else ``some``."""
    share = _claim(key, report)
    if share is None or not report.threads:
        return None
    if share >= 0.999:
        return 0.0
    return 1.0 if round(share * report.threads) == 1 else 2.0


def _faster(_key: str, report: ScenarioReport) -> float | None:
    """The side whose call took less time, by the wall time of back-to-back calls (the fixed cost per call
    included, which is what lesson 18 is about; on CPU the same as the kernel time)."""
    if report.eager is None or report.compiled is None:
        return None
    times = [mode.wall_us if mode.wall_us is not None else mode.time_us for mode in (report.eager, report.compiled)]
    if times[0] is None or times[1] is None:
        return None
    return float(times[1] < times[0])


def _rounds_disagree_on_faster(_key: str, report: ScenarioReport) -> str | None:
    """Why the timed rounds cannot tell the faster side: a quarter or more of them had each side ahead. Off a GPU
    the wall times are the interleaved rounds the speedup comes from; a GPU's walls are timed apart from them,
    their medians decide."""
    spread = report.speedup_range if report.device != "cuda" else None
    if spread is None or not spread[0] <= 1 <= spread[1]:
        return None
    low, high = spread
    return f"too noisy to tell: compiled ran at {low:.2f}× to {high:.2f}× eager's speed over the timed rounds"


def _runs_disagree_on_overhead(key: str, report: ScenarioReport) -> str | None:
    from kernel_tui.model.scenario.expect import UNSETTLED

    return UNSETTLED[key](report)


def _cache_unasked(_key: str, report: ScenarioReport) -> str | None:
    from kernel_tui.model.scenario.expect import cache_unasked

    return cache_unasked(report)


def _bound(key: str, report: ScenarioReport) -> float | None:
    """The roofline class of one eager kernel: the matmul does by far the most arithmetic, the tanh the least."""
    kernels = report.eager.kernels if report.eager is not None else ()
    classed = [(kernel.flops, kernel.bound) for kernel in kernels if kernel.flops and kernel.bound]
    if not classed:
        return None
    _, bound = (max if key == "matmul_bound" else min)(classed)
    word = bound.split("-")[0]
    return float(BOUNDS.index(word)) if word in BOUNDS else None


_MODULE_PATH = r"[A-Za-z_]\w*(-\w+)*"
"""A module as a claim's key names it, a ``-`` for each ``.`` of its path (``model-lm_head``)."""


def _module(key: str) -> str:
    """The module a claim about one names, as the module table writes it (``model.lm_head`` for
    ``compiled_hotspot_flops_model-lm_head``)."""
    return re.split(r"_(?:hotspot_bytes|hotspot_flops|bytes_percent|flops_percent)_", key, maxsplit=1)[-1].replace(
        "-", "."
    )


def _counted(key: str) -> str:
    return "bytes" if "bytes" in key.split("_", 3)[:3] else "FLOPs"


def _numbers(key: str) -> list[str]:
    return re.findall(r"\d+", key)


def _section_row(key: str) -> str:
    return f"{key.split('_')[1]} kernels"


def _peak_row(key: str) -> str:
    section = key.split("_")[1:-1]
    return f"{section[0]} peak" if section else "peak arrays"


def _boundary_row(key: str) -> str:
    kind = key.removeprefix("boundaries").lstrip("_")
    return {"": "boundaries", "library": "at a library call", "reduction": "after a reduction"}.get(kind, kind)


def _line_label(key: str) -> str:
    line = _numbers(key)[0]
    return f"eager launches of line {line}" if key.startswith("eager") else f"compiled kernels with line {line}"


_LAUNCH_UNITS = {
    "compiled_grid": "blocks",
    "compiled_warps": "warps",
    "compiled_elements_per_thread": "elements",
    "compiled_fewest_threads": "threads",
}
_LAUNCH_ROWS = {
    "compiled_grid": "blocks",
    "compiled_warps": "warps a block",
    "compiled_elements_per_thread": "elements a thread",
    "compiled_fewest_threads": "fewest threads",
}

CLAIM_KINDS: tuple[ClaimKind, ...] = (
    ClaimKind(
        "kernels",
        r"eager|compiled",
        "How many kernels will run per call of fn?",
        row=lambda _key: "kernels",
        label=lambda key: f"{key} kernels",
    ),
    ClaimKind(
        "section kernels",
        r"(eager|compiled)_(forward|backward)",
        "How many kernels will each section of the training step run?",
        row=_section_row,
        label=lambda key: key.replace("_", " ") + " kernels",
    ),
    ClaimKind(
        "transfers",
        r"(eager|compiled)_transfers",
        "How many array-sized transfers (one full array read or written) will they cost?",
        row=lambda _key: "transfers",
        label=lambda key: key.replace("_", " "),
        entry=Amount(0.25),  # a broadcast bias adds 0.001, layer norm's small outputs a little more
        measure=_transfers,
    ),
    ClaimKind(
        "ideal transfers",
        r"ideal_transfers",
        "And a perfect kernel, reading each input and writing each output once?",
        row=lambda _key: "perfect kernel",
        label=lambda _key: "a perfect kernel's transfers",
        entry=Amount(0.25),
        column=_spanning,
    ),
    ClaimKind(
        "saved arrays",
        r"(eager|compiled)_saved",
        "How many arrays (each the size of the largest input; fractions welcome) will forward keep for "
        "backward, the inputs left out?",
        row=lambda _key: "saved arrays",
        label=lambda key: f"{_side(key)} saved arrays",
        entry=Amount(0.1),  # layer norm's two numbers a row are 0; lesson 21's quarter-array mask is not
    ),
    ClaimKind(
        "peak memory",
        r"(eager|compiled)(_forward|_backward)?_peak",
        "How much memory will one call hold at its busiest moment, on top of its inputs, in arrays the size of "
        "the largest input?",
        row=_peak_row,
        label=lambda key: key.replace("_", " ") + " arrays",
        entry=Amount(0.25),
    ),
    ClaimKind(
        "graph breaks",
        r"graph_breaks",
        "How many graph breaks will torch.compile make (each ends one compiled graph and starts another)?",
        row=lambda _key: "graph breaks",
        label=lambda _key: "graph breaks",
        entry=Count("graph breaks"),
        column=_compiled,
    ),
    ClaimKind(
        "sweep compiles",
        r"sweep_compiles",
        "The profile compiles fn once: how many more compiles will the size sweep cost? Enter runs the lesson "
        "with its sweep (as s does): the answer is graded when the sweep ends.",
        row=lambda _key: "sweep compiles",
        label=lambda _key: "compiles in the sweep",
        entry=Count("compiles"),
        column=_compiled,
        devices=SWEPT,
        needs_sweep=True,
        measure=_swept,
    ),
    ClaimKind(
        "cache hits",
        r"variants_fx_graph_hits",
        "The variant compiles the same graph again: how many of its graphs will Inductor's FX graph cache hand it, "
        "compiled before?",
        row=lambda _key: "cache hits",
        label=lambda _key: "the variants' FX graph cache hits",
        entry=Count("hits"),
        column=_spanning,
        devices=CACHED,
        unsettled=_cache_unasked,
    ),
    ClaimKind(
        "tuned operations",
        r"variants_tuned_ops",
        "The variant compiles with max-autotune: for how many operations will it time several candidate kernels "
        "and keep the fastest?",
        row=lambda _key: "tuned operations",
        label=lambda _key: "the operations the variants tuned",
        entry=Count("operations"),
        column=_spanning,
        devices=TUNED,
    ),
    ClaimKind(
        "boundaries",
        rf"boundaries(_({'|'.join(BOUNDARY_KINDS)}))?",
        "Compiled, at how many boundaries will one kernel write a buffer that another reads back, and how many "
        "of those for each reason in the rows?",
        row=_boundary_row,
        label=lambda key: "boundaries" if key == "boundaries" else f"boundaries {_boundary_row(key)}",
        entry=Count("boundaries"),
        column=_compiled,
    ),
    ClaimKind(
        "line launches",
        r"(eager|compiled)_line_[1-9]\d*",
        "For each line: how many launches will it make eagerly, and how many compiled kernels will do its work?",
        row=lambda key: f"line {_numbers(key)[0]}",
        label=_line_label,
        entry=Count("launches"),
        names_lines=True,
    ),
    ClaimKind(
        "fused lines",
        r"fused_lines(_[1-9]\d*)+",
        "How many compiled kernels will carry the work of all the lines of a row at once?",
        row=lambda key: "lines " + "+".join(_numbers(key)),
        label=lambda key: "kernels with lines " + ", ".join(_numbers(key)),
        entry=Count("kernels"),
        column=_compiled,
        names_lines=True,
    ),
    ClaimKind(
        "hotspot module",
        rf"(eager|compiled)_hotspot_(bytes|flops)_{_MODULE_PATH}",
        "Will the module of the row move more bytes, or compute more FLOPs, than any other module (yes or no)?",
        row=lambda key: f"{_module(key)} most {_counted(key)}",
        label=lambda key: f"{_module(key)} leads the {_side(key)} {_counted(key)}",
        entry=Choice(("no", "yes")),
    ),
    ClaimKind(
        "module share",
        rf"(eager|compiled)_(bytes|flops)_percent_{_MODULE_PATH}",
        "What percent of the call's bytes, or of its FLOPs, will the module of the row move or compute itself?",
        row=lambda key: f"{_module(key)} {_counted(key)} %",
        label=lambda key: f"{_side(key)} {_counted(key)} % of {_module(key)}",
        entry=Amount(2.0),
        unit=lambda _key: "percent",
    ),
    ClaimKind(
        "launch shape",
        r"compiled_(grid|warps|elements_per_thread|fewest_threads)",
        "On the GPU: in how many blocks of how many warps will the widest compiled kernel run, how many "
        "elements will each of its threads handle, and how many threads will the smallest launch have?",
        row=lambda key: _LAUNCH_ROWS[key],
        label=lambda key: _LAUNCH_ROWS[key],
        entry=Count("threads, blocks or warps", digits=7),
        column=_compiled,
        devices=GPU,
        per_arch=True,
        unit=lambda key: _LAUNCH_UNITS[key],
    ),
    ClaimKind(
        "thread share",
        r"compiled_thread_share",
        "On the CPU: will the widest compiled kernel run on all of PyTorch's threads, on one, or on some?",
        row=lambda _key: "threads used",
        label=lambda _key: "threads the widest kernel used",
        entry=Choice(("all", "one", "some")),
        column=_compiled,
        devices=frozenset({"cpu"}),
        measure=_thread_share,
    ),
    ClaimKind(
        "most of a call",
        r"(eager|compiled)_overhead_dominates",
        "What will take most of one call: its kernels, or the overhead around them (Python, dispatch, guards, "
        "launches)?",
        row=lambda _key: "most of a call",
        label=lambda key: "most of an eager call" if key.startswith("eager") else "most of a compiled call",
        entry=Choice(("kernels", "overhead")),
        devices=TIMED,
        unsettled=_runs_disagree_on_overhead,
    ),
    ClaimKind(
        "faster side",
        r"faster",
        "Which side will be faster at this size (eager or compiled: e or c)?",
        row=lambda _key: "faster side",
        label=lambda _key: "faster side",
        entry=Choice(MODES),
        column=_spanning,
        devices=TIMED,
        measure=_faster,
        unsettled=_rounds_disagree_on_faster,
    ),
    ClaimKind(
        "roofline class",
        r"(matmul|elementwise)_bound",
        "What limits each kernel: compute, memory or the overhead of a call (c, m or o)?",
        row=lambda key: "mm kernel" if key.startswith("matmul") else "tanh kernel",
        label=lambda key: "mm is …-bound" if key.startswith("matmul") else "tanh is …-bound",
        entry=Choice(BOUNDS),
        column=_spanning,
        devices=TIMED,  # classed against the measured ceilings
        measure=_bound,
    ),
)
"""Every kind of claim, in the order the dialog asks them."""


@functools.cache  # asked for every answer on every frame's score; the kinds are constant
def kind_of(key: str) -> ClaimKind | None:
    """The kind a claim's key belongs to; None for a key no kind asks."""
    return next((kind for kind in CLAIM_KINDS if kind.matches(key)), None)


def measure(key: str, report: ScenarioReport) -> float | None:
    """What ``report`` measured for ``key``, as its kind measures it; None for a key no kind knows, or one the
    report's runs disagree on (``unsettled``): a verdict of the noise would grade the learner on a coin toss."""
    kind = kind_of(key)
    if kind is None or kind.unsettled(key, report) is not None:
        return None
    return kind.measure(key, report)


def unsettled(key: str, report: ScenarioReport) -> str | None:
    """Why ``report`` cannot grade ``key``, in words; None when it can (or no kind knows the key)."""
    kind = kind_of(key)
    return kind.unsettled(key, report) if kind is not None else None


def choice_index(words: tuple[str, ...], text: str) -> int | None:
    """The word a box's text names (a unique beginning of one of ``words``), as its index; None if none."""
    text = text.strip().lower()
    matches = [index for index, word in enumerate(words) if text and word.startswith(text)]
    return matches[0] if len(matches) == 1 else None
