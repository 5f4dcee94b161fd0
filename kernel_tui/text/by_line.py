"""The work of each line of a scenario: its eager launches and the compiled kernels they became.

One reading of a report's ``lines`` for every place code is shown with its kernels: ``kernel-tui run --by-line``,
the lab report's section, and the explorer's code gutter. A kernel row is on every line its work came from (a
fused kernel on each line it absorbed, a helper's operator on the helper's line and on the line that called it,
a backward kernel on the forward line it differentiates). Rows with no line say why, from the engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernel_tui.text.formatting import format_count, generated, lines_text
from kernel_tui.text.parts.boundary_text import boundaries_of, boundary_line, line_boundaries

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import ScenarioReport

ARROW = "⇒"
NAMED_PER_LINE = 12
"""Kernels named per side in a line's words; the rest are counted."""
MANY_LINES = 16
"""A kernel on more lines than this is described by the lines it is on, not by each line's others."""
SOURCE_LINE_SHOWN = 240
"""Characters of a source line printed beside its work; the rest is cut, and the cut said."""
VANISHED = "no compiled kernel"
"""What a line's eager work became when no compiled kernel carries its line: a view, a copy fused away."""


@dataclass(frozen=True)
class LineWork:
    """One line's share of one section (``None`` outside a training step) of a run."""

    line: int
    section: str | None
    eager: tuple[tuple[Kernel, int], ...]
    """The eager rows on this line, each with its launches per run from this line."""
    compiled: tuple[Kernel, ...]
    """The compiled kernels whose work includes this line's."""
    compiled_known: bool = True
    """False while the compiled side is not measured (or a variant shown has no numbers)."""
    apart: tuple[str, ...] = ()
    """The kinds of the compiled boundaries whose consumer's work is this line's (``boundary_text``): the work
    of this line stayed apart from the kernel before it, and why."""

    @property
    def eager_launches(self) -> int:
        return sum(calls for _, calls in self.eager)

    @property
    def vanished(self) -> bool:
        """The line launched eagerly, and compiled, no kernel carries it."""
        return self.compiled_known and bool(self.eager) and not self.compiled


def line_work(eager: ModeResult | None, compiled: ModeResult | None) -> dict[int, list[LineWork]]:
    """Per line, its work per section (forward first), for the eager rows and the compiled ones.

    One pass over each row's lines: linear in the rows' lines together (a crafted report of 600 kernels each on
    600 lines took minutes when each line scanned every row)."""
    eager_rows = eager.kernels if eager is not None else ()
    compiled_rows = compiled.kernels if compiled is not None else ()
    sections = list(dict.fromkeys(kernel.section for kernel in (*eager_rows, *compiled_rows)))
    eager_on: dict[tuple[int, str | None], list[tuple[Kernel, int]]] = {}
    compiled_on: dict[tuple[int, str | None], list[Kernel]] = {}
    for kernel in eager_rows:
        counted = dict(kernel.line_calls)
        for line in dict.fromkeys(kernel.lines):
            calls = counted[line] if line in counted else round(kernel.calls)  # as ``Kernel.calls_from_line``
            eager_on.setdefault((line, kernel.section), []).append((kernel, calls))
    for kernel in compiled_rows:
        for line in dict.fromkeys(kernel.lines):
            compiled_on.setdefault((line, kernel.section), []).append(kernel)
    lines = sorted({line for line, _ in (*eager_on, *compiled_on)})
    work: dict[int, list[LineWork]] = {}
    for line in lines:
        for section in sections:
            mine = tuple(eager_on.get((line, section), ()))
            became = tuple(compiled_on.get((line, section), ()))
            if mine or became:
                apart = tuple(dict.fromkeys(b.kind for b in line_boundaries(boundaries_of(compiled), line)))
                work.setdefault(line, []).append(LineWork(line, section, mine, became, compiled is not None, apart))
    return work


def gutter_text(work: Sequence[LineWork], width: int) -> str:
    """A line's work in at most ``width`` characters: ``2 ⇒ cpp_fused_add_relu_0``, else ``2 ⇒ 1 fused``;
    a training step's sections joined by ``·``; "" for a quiet line."""
    if not work:
        return ""
    full = " · ".join(_one_section(part, short=False) for part in work)
    if len(full) <= width:
        return full
    short = short_gutter_text(work)
    return short if len(short) <= width else short[: max(width - 1, 0)] + "…"


def short_gutter_text(work: Sequence[LineWork]) -> str:
    """A line's work counted, never named: ``3 ⇒ 1 fused``, ``1 ⇒ 1 kernel``, ``1 ⇒ library call``; a training
    step's two sections as ``f 1 ⇒ 1 · b 1 ⇒ 2``, short enough for a third of an 80-column pane."""
    if len(work) > 1:
        return " · ".join(_one_section(part, short=True, counted=True) for part in work)
    return " · ".join(_one_section(part, short=True) for part in work)


APART_MARK = "✂"
"""After a gutter cell: this line's compiled work stayed apart from the kernel before it."""


def _one_section(part: LineWork, short: bool, counted: bool = False) -> str:
    head = f"{part.section[0]} " if part.section else ""
    mark = f" {APART_MARK}" if part.apart and part.compiled_known else ""
    what = str(len(part.compiled)) if counted and part.compiled_known else became(part, short)
    return f"{head}{part.eager_launches} {ARROW} {what}{mark}"


def became(part: LineWork, short: bool) -> str:
    """What the line's eager work became compiled, the gutter's right of ``⇒``: ``?`` while not measured."""
    return _became(part.compiled, short) if part.compiled_known else "?"


def _became(compiled: Sequence[Kernel], short: bool) -> str:
    if not compiled:
        return "0"
    if not short and len(compiled) == 1:
        return compiled[0].short_name
    return " + ".join(_counted(compiled))


def _counted(compiled: Sequence[Kernel]) -> list[str]:
    """The compiled kernels in words: ``1 fused`` only for a kernel that does several operators' work, since one
    operator in one kernel fused nothing (a kernel's ``lines`` also hold a helper's caller, so they do not tell);
    a library call (``aten::addmm``) is said as one, since no other work can join it."""
    library = sum(1 for kernel in compiled if not generated(kernel.name))
    ours = [kernel for kernel in compiled if generated(kernel.name)]
    fused = sum(1 for kernel in ours if len(kernel.aten_ops) > 1)
    words = []
    if fused:
        words.append(f"{fused} fused")
    if len(ours) > fused:
        alone = len(ours) - fused
        words.append(f"{alone} kernel{'s' if alone > 1 else ''}")
    if library:
        words.append("library call" if library == 1 else f"{library} library calls")
    return words


def describe(part: LineWork) -> str:
    """One line's work in words: ``eager aten::add ×1 ⇒ compiled cpp_fused_add_relu_0 (L6-8)``; past
    ``NAMED_PER_LINE`` kernels a side is counted, not named, so that a line's words stay bounded."""
    eager = _named([f"{kernel.short_name} ×{format_count(calls)}" for kernel, calls in part.eager[:NAMED_PER_LINE]])
    eager = _and_more(eager or "nothing", len(part.eager))
    if not part.compiled_known:
        became = "not measured"
    elif part.compiled:
        became = _and_more(
            _named([_with_lines(k, part.line) for k in part.compiled[:NAMED_PER_LINE]]), len(part.compiled)
        )
    else:
        became = f"{VANISHED}: its work was absorbed or needed no kernel"
    section = f"{part.section}: " if part.section else ""
    apart = f" ({APART_MARK} apart: {', '.join(part.apart)})" if part.apart and part.compiled_known else ""
    return f"{section}eager {eager} {ARROW} compiled {became}{apart}"


def _named(names: list[str]) -> str:
    return ", ".join(names)


def _and_more(named: str, count: int) -> str:
    return f"{named} and {count - NAMED_PER_LINE} more" if count > NAMED_PER_LINE else named


def _with_lines(kernel: Kernel, line: int) -> str:
    if len(kernel.lines) > MANY_LINES:
        # Bounded: a kernel on every one of 600 lines named the other 599 on each of them.
        return f"{kernel.short_name} (on {len(kernel.lines)} lines)"
    others = [other for other in kernel.lines if other != line]
    return f"{kernel.short_name} (with {lines_text(others)})" if others else kernel.short_name


def unplaced(report: ScenarioReport) -> list[tuple[str, Kernel]]:
    """The rows of each mode with no line, with their mode: their ``unplaced`` says why."""
    return [
        (label, kernel)
        for label, mode in (("eager", report.eager), ("compiled", report.compiled))
        if mode is not None
        for kernel in mode.kernels
        if not kernel.lines
    ]


def shown_range(source_lines: Sequence[str], placed: Iterable[int]) -> range:
    """The lines to print: from the first placed line's block (back to the blank line above it, so that the
    ``def`` shows) to the last placed line."""
    placed = sorted(line for line in placed if 1 <= line <= len(source_lines))
    if not placed:
        return range(0)
    first = placed[0]
    while first > 1 and source_lines[first - 2].strip():
        first -= 1
    return range(first, placed[-1] + 1)


def annotated_lines(source: str, report: ScenarioReport) -> list[str]:
    """The scenario's code with each line's work under it, then the rows no line carries and why: what
    ``run --by-line`` prints and the lab report holds."""
    source_lines = source.splitlines()
    work = line_work(report.eager, report.compiled)
    out = []
    for number in shown_range(source_lines, work):
        out.append(f"{number:>4} │ {cut_line(source_lines[number - 1])}")
        for part in work.get(number, ()):
            out.append(f"     │     {describe(part)}")
        for boundary in line_boundaries(boundaries_of(report.compiled), number):
            if number == min(boundary.lines):  # once, under the first of its lines (the others say ✂ apart)
                out.append(f"     │     {boundary_line(boundary)}")
    missing = unplaced(report)
    if missing:
        out += ["", "Not on any line:"]
        out += [f"  {label} {kernel.short_name}: {kernel.unplaced or 'no line recorded'}" for label, kernel in missing]
    return out


def cut_line(text: str, limit: int = SOURCE_LINE_SHOWN) -> str:
    """``text`` as printed beside its work: a line longer than ``limit`` characters is cut, and says so (a
    3 MB line printed whole was 18,750 terminal rows)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… (line cut: {len(text) - limit:,} more characters)"
