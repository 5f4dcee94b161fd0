"""Every key and named action of the explorer, declared once, one table per feature.

The screens' ``BINDINGS``, the command palette's entries and the help screen's rows are all generated from
these tables, so a key, its wording and its place in the palette cannot drift apart. An action with no key
is offered only by the palette; one with ``palette=False`` only by its key.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from textual.binding import Binding, BindingType

from kernel_tui.text.kernel_order import AS_LAUNCHED, KERNEL_ORDERS, ORDER_WORDS


@dataclass(frozen=True)
class KeyAction:
    """One action: the key that runs it, what the footer calls it, and how help and the palette explain it."""

    action: str
    """Textual's action string, run on the screen that declares it (``run(True)``)."""
    title: str
    """The action's name in the command palette."""
    help: str
    """What it does: the help screen's line, the key's tooltip and the palette's explanation."""
    key: str | None = None
    """Textual key names, comma-separated; None: the palette offers it, no key does."""
    footer: str = ""
    """The footer's short label (the title when empty)."""
    show: bool = False
    """Shown in the footer."""
    palette: bool = True
    """Offered by the command palette."""
    key_display: str | None = None

    def binding(self) -> Binding:
        assert self.key is not None
        return Binding(
            self.key,
            self.action,
            self.footer or self.title,
            show=self.show,
            key_display=self.key_display,
            tooltip=self.help,
        )


ActionTables = tuple[tuple[KeyAction, ...], ...]
"""The action tables a screen answers to (``ExplorerScreen.ACTIONS``; the view's adds its own)."""


def bindings(*tables: Iterable[KeyAction]) -> list[BindingType]:
    """The ``BINDINGS`` of a screen that answers to the actions of ``tables``."""
    return [action.binding() for table in tables for action in table if action.key is not None]


def offered(*tables: Iterable[KeyAction]) -> list[KeyAction]:
    """What the command palette offers of ``tables``."""
    return [action for table in tables for action in table if action.palette]


def keyed(*tables: Iterable[KeyAction]) -> list[KeyAction]:
    """What the help screen lists of ``tables``: the actions with a key, one row per key and meaning (the bindings
    of one key that the screen enables in turn, ``ORDER_ACTIONS``, share theirs)."""
    listed: dict[tuple[str, str], KeyAction] = {}
    for table in tables:
        for action in table:
            if action.key is not None:
                listed.setdefault((action.key, action.help), action)
    return list(listed.values())


EXPLORER_ACTIONS = (
    KeyAction("run(False)", "Run", "Run the scenario: eager and compiled kernels (no sweep)", "r", show=True),
    KeyAction(
        "run(True)",
        "Run with sweep",
        "Run the scenario and sweep its runtime against size",
        "s",
        footer="Run+sweep",
        show=True,
    ),
    KeyAction(
        "cancel",
        "Cancel run",
        "Cancel the run (stops the engine; the next run restarts it)",
        "escape",
        footer="Cancel",
        show=True,
    ),
    KeyAction("move(1)", "Next scenario", "Next scenario", "n,right_square_bracket", footer="Next", show=True),
    KeyAction("move(-1)", "Previous scenario", "Previous scenario", "p,left_square_bracket", footer="Prev", show=True),
    KeyAction("details", "Details", "Details: error traceback, engine output, graph breaks", "d", show=True),
    KeyAction("pane('scenarios')", "Show scenarios", "Show the scenario list", "1", footer="Scenarios"),
    KeyAction("pane('lesson')", "Show lesson", "Show the lesson and its code", "2", footer="Lesson"),
    KeyAction("pane('kernels')", "Show kernels", "Show the kernel tables", "3", footer="Kernels"),
    KeyAction("pane('chart')", "Show chart", "Show the runtime against size chart", "4", footer="Chart"),
    KeyAction(
        "pin_baseline",
        "Pin / unpin baseline",
        "Pin (or unpin) this run as the baseline that later runs are compared with",
        "B",
        footer="Baseline",
    ),
)
"""The explorer's own keys: running, moving through the list, the panes."""

SNIPPET_ACTIONS = (
    KeyAction(
        "edit_scenario",
        "Edit scenario",
        "Edit this scenario in the editor (a course scenario: a copy)",
        "e",
        footer="Edit",
        show=True,
    ),
    KeyAction("new_snippet", "New snippet", "A new snippet in the editor: (a + b).relu()", "ctrl+n", footer="New"),
    KeyAction(
        "copy_scenario", "Copy scenario to a new snippet", "The scenario's code in the editor, saved nowhere yet"
    ),
    # Shown in the footer by the editor itself (its own ctrl+r and ctrl+s), here for the other panes and help.
    KeyAction("run_snippet(False)", "Run snippet", "Run the editor's snippet", "ctrl+r"),
    KeyAction(
        "run_snippet(True)", "Run snippet with sweep", "Run the editor's snippet and sweep its runtime against size"
    ),
    KeyAction(
        "save_snippet", "Save snippet", "Save the editor's snippet (asks where at first)", "ctrl+s", footer="Save"
    ),
    KeyAction("save_snippet_as", "Save snippet as", "Save the editor's snippet to a file of your choice"),
    KeyAction(
        "open_file",
        "Open file in the editor",
        "Open a scenario file in the editor (asks its path)",
        "ctrl+o",
        footer="Open",
    ),
    KeyAction("set_size", "Set size", "Set the size (elements per tensor) of every run", "z", footer="Size"),
    KeyAction("restore_drafts", "Restore drafts", "Unsaved snippets from earlier sessions"),
    KeyAction(
        "show_editor",
        "Show editor",
        "Show the snippet editor (a new snippet if none)",
        "5",
        footer="Editor",
        palette=False,
    ),
)
"""The explorer's keys for the editor; ctrl keys work inside the editor too (letters there are typed)."""

WHY_ACTIONS = (
    KeyAction(
        "code",
        "Generated code",
        "Generated code of the highlighted compiled kernel (or of the one an eager kernel became)",
        "g",
        footer="Code",
    ),
    KeyAction(
        "code_line(1)",
        "Next code line",
        "Next line of the lesson's code that launched kernels: both tables mark them",
        "j",
        footer="Line",
    ),
    KeyAction(
        "code_line(-1)",
        "Previous code line",
        "Previous line of the lesson's code that launched kernels",
        "k",
        footer="Line",
    ),
    KeyAction(
        "chart_mode",
        "Switch chart: runtime / bandwidth / roofline / memory / timeline",
        "Chart, in turn: runtime, achieved bandwidth (GB/s, with the ceiling), the roofline, peak memory, a timeline",
        "b",
        footer="Bandwidth",
    ),
    KeyAction(
        "modules",
        "Modules",
        # o steps through the orders in turn, back to the modules' nesting, as it steps the kernel tables' orders.
        "The call per nn.Module: launches eager → compiled, time, bytes, share, blocks folded; t, y, l order it by "
        "time, bytes, launches, o in turn",
        "M",
        footer="Modules",
    ),
    KeyAction(
        "toggle_predict",
        "Predictions on / off",
        "Predictions on/off: on the course, guess a lesson's kernel counts before its first run",
        "t",
        footer="Predict",
    ),
)
"""The explorer's keys for attribution, code, bandwidth and predictions."""

ORDER_HELP = (
    "Order both kernel tables, in turn: by time, by bytes, by launches (most first, a training step's sections kept "
    "apart), as launched"
)
ORDER_ACTIONS = (
    # One binding of o per order it leads to, of which the explorer enables only the next while a kernel table has
    # the focus (``ExplorerScreen.check_action``): Textual shows and runs the first enabled binding of a key, so the
    # footer says what o does now ("By bytes"). They share their help, which lists them as one key.
    *(
        KeyAction(
            f"kernel_order('{order}')",
            f"Order the kernel tables {ORDER_WORDS[order]}",
            ORDER_HELP,
            "o",
            footer=ORDER_WORDS[order].capitalize(),
            show=True,
            palette=False,
        )
        for order in (*KERNEL_ORDERS[1:], AS_LAUNCHED)
    ),
    # Focus elsewhere (the list, the lesson), o still steps the order, unshown; the palette offers this one.
    KeyAction("kernel_order('next')", "Order the kernel tables: next order", ORDER_HELP, "o"),
)
"""The kernel tables' order (``kernel_tui.text.kernel_order``), one for both tables."""

VARIANT_ACTIONS = (
    KeyAction(
        "variants",
        "Compile variants",
        "Compile variants: choose which are shown, or add one for the next runs (NAME=KEY:VALUE,...)",
        "v",
        footer="Variants",
    ),
    KeyAction(
        "try_experiments",
        "Try the suggested variant",
        "Add the compile variants the latest run suggests (its boundaries' max_autotune, fullgraph, ..., its "
        "verdict's dynamic) and run with them: do the kernels fuse, do the recompiles stop?",
        "x",
        footer="Experiment",
    ),
)
"""The explorer's key for compile variants (``VARIANTS`` in a scenario, or added in the explorer)."""

QUIT_ACTIONS = (KeyAction("app.quit", "Quit", "Quit (ends the engine too)", "q", palette=False),)
"""Last in the explorer's bindings; the palette has Textual's own Quit."""

APP_ACTIONS = (KeyAction("help", "Help", "List every key", "question_mark,f1", key_display="?", show=True),)
"""The app's own keys, on every screen."""

VIEW_ACTIONS = (
    KeyAction(
        "device_columns",
        "Device columns",
        "Saved results: this scenario's reports from every device, torch release and architecture side by side",
        "m",
        footer="Machines",
        show=True,
    ),
)
"""Only in ``kernel-tui view``, where reports of one scenario from several machines can be open at once."""
