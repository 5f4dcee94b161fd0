"""Each line's work against the pinned baseline's (``B``): what the code's gutter marks ``+``, ``-`` or ``~``.

The baseline may have run another text of the file (a draft edited since): its lines are carried onto the
current text's by aligning the two sources line by line, so that a line inserted above moves the lines below
instead of marking them all changed. A line the alignment cannot pair (a block rewritten into more or fewer
lines) is not compared: its work counts as new, never as a guess at which old line it was. Without the two
sources (a report from before they were recorded) lines are compared by number. No Textual, no torch.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from typing import TYPE_CHECKING

from kernel_tui.model.compare.baseline_marks import ADDED, CHANGED, MARKS, REMOVED, SAME
from kernel_tui.model.names.names import kernel_identity
from kernel_tui.text.by_line import became, describe, gutter_text, line_work, short_gutter_text

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.text.by_line import LineWork

LineMap = dict[int, int]
"""A baseline line → the current line it is (1-based)."""


@dataclass(frozen=True)
class LineChange:
    """One line of the current code: its work now and in the baseline (its lines carried onto the current ones)."""

    line: int
    status: str
    """``added``, ``removed``, ``changed`` or ``same`` (``kernel_tui.model.compare.baseline_marks``)."""
    old: tuple[LineWork, ...]
    new: tuple[LineWork, ...]

    @property
    def mark(self) -> str:
        return MARKS[self.status]

    def texts(self) -> tuple[str, str]:
        """The gutter's text in full and in short: the mark, the line's work now, and what it was where that
        differs (``~ 2 ⇒ 1 fused (was 2)``; ``- (was 1 ⇒ 1)`` for a line whose work is gone)."""
        if self.status == REMOVED:
            return (f"- (was {gutter_text(self.old, 10_000)})", f"- (was {short_gutter_text(self.old)})")
        now_full, now_short = gutter_text(self.new, 10_000), short_gutter_text(self.new)
        if self.status != CHANGED:
            return f"{self.mark} {now_full}", f"{self.mark} {now_short}"
        return (
            f"~ {now_full}{_was(self.old, self.new, now_full, short=False)}",
            f"~ {now_short}{_was(self.old, self.new, now_short, short=True)}",
        )

    def story(self) -> str:
        """What the line under the tables adds about the baseline: "" when nothing changed."""
        if self.status == ADDED:
            return "new since the baseline (B)"
        if self.status == SAME:
            return ""
        return "baseline (B): " + " · ".join(describe(part) for part in self.old)


def _was(old: tuple[LineWork, ...], new: tuple[LineWork, ...], now: str, short: bool) -> str:
    """`` (was …)``: only the compiled side where the eager launches are the same, nothing where the words would
    be the same (the kernels changed, not their count: the line under the tables names them)."""
    if len(old) == len(new) == 1 and old[0].eager_launches == new[0].eager_launches:
        before = became(old[0], short)
        return "" if now.endswith(f" {before}") else f" (was {before})"
    before = short_gutter_text(old) if short else gutter_text(old, 10_000)
    return "" if before == now else f" (was {before})"


def aligned_lines(old_source: str | None, new_source: str | None) -> LineMap | None:
    """Which baseline line each current line is, where the texts pair them; None: compare lines by number."""
    if old_source is None or new_source is None:
        return None
    old_lines, new_lines = old_source.splitlines(), new_source.splitlines()
    mapping: LineMap = {}
    matcher = SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, old_start, old_end, new_start, new_end in matcher.get_opcodes():
        # A line edited in place (one rewritten line for one) is the same line; a block of another length is not.
        if tag == "equal" or (tag == "replace" and old_end - old_start == new_end - new_start):
            for offset in range(old_end - old_start):
                mapping[old_start + offset + 1] = new_start + offset + 1
    return mapping


def line_changes(
    old_eager: ModeResult | None,
    old_compiled: ModeResult | None,
    work: dict[int, list[LineWork]],
    mapping: LineMap | None,
) -> dict[int, LineChange]:
    """Per current line with work now or (carried over) in the baseline, how its work compares."""
    old_work = line_work(_carried(old_eager, mapping), _carried(old_compiled, mapping))
    changes = {}
    for line in sorted({*old_work, *work}):
        old, new = tuple(old_work.get(line, ())), tuple(work.get(line, ()))
        if not old:
            status = ADDED
        elif not new:
            status = REMOVED
        else:
            status = SAME if _signature(old) == _signature(new) else CHANGED
        changes[line] = LineChange(line, status, old, new)
    return changes


def _carried(mode: ModeResult | None, mapping: LineMap | None) -> ModeResult | None:
    """The baseline's rows with their lines renumbered as the current text's; lines the text lost are dropped."""
    if mode is None or mapping is None:
        return mode
    return replace(mode, kernels=tuple(_renumbered(kernel, mapping) for kernel in mode.kernels))


def _renumbered(kernel: Kernel, mapping: LineMap) -> Kernel:
    return replace(
        kernel,
        lines=tuple(mapping[line] for line in kernel.lines if line in mapping),
        line_calls=tuple((mapping[line], calls) for line, calls in kernel.line_calls if line in mapping),
    )


def _signature(parts: tuple[LineWork, ...]) -> tuple[object, ...]:
    """What must match for a line to be unchanged: per section, the eager kernels and their launches from the
    line, and the compiled kernels with the lines each one fused (renumbering by Inductor does not count)."""
    return tuple(
        (
            part.section,
            sorted((kernel_identity(kernel.name), calls) for kernel, calls in part.eager),
            part.compiled_known,
            sorted((kernel_identity(kernel.name), kernel.lines) for kernel in part.compiled),
        )
        for part in parts
    )
