"""The full name of the highlighted kernel: short names fit the tables, full names answer "which one?".

After the name, the kernel's story in full (what the table columns may have cut or dropped): what it was
fused into or what it replaced, and how fast it moved its bytes; on a line of its own, how it was launched
(grid × block = threads, warps and elements per thread; a CPU kernel's threads)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.reactive import var

from kernel_tui.model.report.launch import launch_text
from kernel_tui.ui.view.kernel_words import kernel_story
from kernel_tui.ui.widgets.steady_static import SteadyStatic

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.ui.view.shown import NameShown


class KernelNameLine(SteadyStatic):
    """One line (wrapping when long) under the kernel tables, shown again on every refill and cursor move."""

    shown: var[NameShown | None] = var(None, init=False)
    """What the explorer hands the line: the kernel under the followed table's cursor, or the code line's story."""

    def watch_shown(self, shown: NameShown | None) -> None:
        if shown is None:
            return
        if shown.story is not None:
            self.say(shown.story)
        else:
            self.show(shown.mode, shown.kernel, hint=shown.hint, compiled=shown.compiled)

    def say(self, text: Text) -> None:
        """Something else about the kernels: what a line of the code launched (``code_links``)."""
        self.show_content(text)

    def show(
        self, mode: str | None, kernel: Kernel | None, *, hint: bool = True, compiled: ModeResult | None = None
    ) -> None:
        """The kernel's full name; without one, a hint (when there are kernels to highlight) or nothing.
        ``compiled``: the run's compiled side, where ``g`` finds the code an eager kernel became."""
        if kernel is None or mode is None:
            self.show_content(Text("highlight a kernel to see its full name", style="dim") if hint else "")
            return
        text = Text()
        text.append(f"{mode} › ", style="bold")
        text.append(kernel.name)
        extras = [kernel.kind]
        if kernel.op and kernel.kind == "op":
            extras.append(f"one pass of {kernel.op}")  # a composite operator's pass over memory (CPU)
        elif kernel.op:
            extras.append(f"launched by {kernel.op}")
        text.append(f"  ({', '.join(extras)})", style="dim")
        for part in kernel_story(kernel, mode, compiled):
            text.append(" · ", style="dim")
            text.append(part)
        launch = launch_text(kernel.launch)
        if launch:
            text.append("\nlaunch ", style="bold")
            known = kernel.launch is not None and kernel.launch.is_known
            text.append(launch, style="" if known else "dim")
        self.show_content(text)
