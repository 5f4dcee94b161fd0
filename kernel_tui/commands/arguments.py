"""The ``kernel-tui`` command line read and checked: the parsers of ``run``, ``view``, ``list`` and the explorer,
and the checks that turn a path or an output that cannot work into a usage error before anything runs.

argparse is imported where a parser is built or an argument checked: a bare ``kernel-tui`` never loads it.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel_tui.commands.model_arguments import add_model_arguments
from kernel_tui.model.names.safe_text import safe_line
from kernel_tui.model.scenario.scenario_file import find_scenarios

if TYPE_CHECKING:
    import argparse

DEFAULT_TIMEOUT_S = 600.0
DEVICES = ("auto", "cpu", "cuda", "cuda-preview")
DEFAULT_DEVICE = "auto"
ARCHES = (80, 90, 100)
SORTS = ("time", "bytes", "launches")
"""``--sort``: the figures ``text.kernel_order`` sorts by, named here so that parsing loads no table code (a test
holds the two equal)."""


def sizes_arg(text: str) -> list[int]:
    from argparse import ArgumentTypeError

    try:
        sizes = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError as error:
        raise ArgumentTypeError(f"--sizes takes integers separated by commas: {text!r}") from error
    if not sizes or any(size < 1 for size in sizes):
        raise ArgumentTypeError("--sizes takes positive integers")
    return sizes


def arches_arg(text: str) -> list[int]:
    """``80,90,100``: the preview's architectures, each once, in the order given."""
    from argparse import ArgumentTypeError

    try:
        arches = [int(part) for part in text.split(",") if part.strip()]
    except ValueError as error:
        raise ArgumentTypeError(f"--arch takes {', '.join(map(str, ARCHES))} separated by commas: {text!r}") from error
    unknown = [arch for arch in arches if arch not in ARCHES]
    if not arches or unknown:
        raise ArgumentTypeError(f"--arch takes {', '.join(map(str, ARCHES))} (not {text!r})")
    return list(dict.fromkeys(arches))


def variant_arg(text: str) -> tuple[str, dict[str, Any]]:
    from argparse import ArgumentTypeError

    from kernel_tui.model.report.compile_variants import VariantError, parse_variant_flag

    try:
        return parse_variant_flag(text)
    except VariantError as error:
        raise ArgumentTypeError(str(error)) from error


def positive_int_arg(text: str) -> int:
    from argparse import ArgumentTypeError

    try:
        value = int(text.replace("_", ""))
    except ValueError as error:
        raise ArgumentTypeError(f"not an integer: {text!r}") from error
    if value < 1:
        raise ArgumentTypeError("must be at least 1")
    return value


def positive_seconds_arg(text: str) -> float:
    from argparse import ArgumentTypeError

    try:
        value = float(text)
    except ValueError as error:
        raise ArgumentTypeError(f"not a number of seconds: {text!r}") from error
    if not math.isfinite(value) or value <= 0:
        raise ArgumentTypeError("must be a number of seconds above 0")
    return value


def check_outputs(parser: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    """A report or traces that cannot be written are a usage error before anything runs, not after."""
    if options.export:
        target = Path(options.export)
        folder = target.parent
        if target.is_dir():
            parser.error(f"--export {options.export}: is a folder, not a file")
        if not folder.is_dir():
            parser.error(f"--export {options.export}: no such folder {folder}")
        if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
            parser.error(f"--export {options.export}: cannot write there")
    if options.trace:
        target = Path(options.trace)
        if target.exists() and not target.is_dir():
            parser.error(f"--trace {options.trace}: is a file, not a folder")
        existing = target
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        if not existing.is_dir() or not os.access(existing, os.W_OK):
            parser.error(f"--trace {options.trace}: cannot create or write that folder")


def command_parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(
        prog="kernel-tui",
        description="Which kernels does your PyTorch code run, eager and compiled, and what do they move?",
        epilog="Without a command, opens the explorer on the built-in course (or on the PATHs given): "
        "kernel-tui [PATH...] [--device auto|cpu|cuda|cuda-preview] [--arch 80|90|100] [--no-predict] "
        "[--serve [--host ADDRESS] [--port N]]. "
        "--serve serves it to a browser on 127.0.0.1:8000 instead.",
    )
    commands = parser.add_subparsers(dest="command")

    run = commands.add_parser("run", help="measure scenarios headless and print tables or JSON")
    run.add_argument("paths", nargs="*", metavar="PATH", help="scenario files or folders of them")
    add_model_arguments(run)
    run.add_argument(
        "--device",
        default="auto",
        choices=DEVICES,
        help="cuda-preview: the code Inductor would generate for a CUDA GPU, on any machine, run nowhere",
    )
    run.add_argument(
        "--arch",
        type=arches_arg,
        metavar="80|90|100[,...]",
        help="with --device cuda-preview: the GPU architecture, 80 (A100), 90 (H100/H200, the default) or 100 "
        "(B200); several separated by commas give one report per architecture (kernel-tui view shows them as columns)",
    )
    run.add_argument("--size", type=positive_int_arg, help="elements for the kernel tables (default: SIZE)")
    run.add_argument(
        "--sizes",
        type=sizes_arg,
        help="sweep sizes, e.g. 1024,65536,1048576 (default: SIZES; --model sweeps only at these)",
    )
    run.add_argument("--no-sweep", action="store_true", help="skip the runtime-against-size sweep")
    run.add_argument(
        "--sweep-budget",
        type=positive_seconds_arg,
        metavar="SECONDS",
        help="the sweep's time budget, KERNEL_TUI_SWEEP_BUDGET_S for this run (default 90): short of it, a sweep "
        "times each size in fewer rounds, then skips middle sizes to reach the largest",
    )
    run.add_argument(
        "--no-time",
        action="store_true",
        help="count, do not time: kernels, launches, bytes, memory and claims, with no timing rounds, speedup or "
        "sweep (a second or more sooner per scenario; for checks in CI, where times on a shared runner are noise)",
    )
    run.add_argument(
        "--variant",
        type=variant_arg,
        action="append",
        default=[],
        metavar="NAME=KEY:VALUE,...",
        help="also measure torch.compile with these arguments in a column of its own, e.g. "
        "dyn=dynamic:True or fast=mode:max-autotune-no-cudagraphs (repeatable; adds to or "
        "overrides the file's VARIANTS; default=... changes the compiled column)",
    )
    run.add_argument("--json", action="store_true", help="one JSON object per scenario, one per line")
    run.add_argument(
        "--by-line", action="store_true", help="also print the code with each line's eager and compiled kernels"
    )
    run.add_argument(
        "--sort",
        choices=SORTS,
        help="order the kernel tables by time, bytes or launches, most first (a training step's within each "
        "section), as o does in the explorer (default: as launched)",
    )
    run.add_argument(
        "--timeout",
        type=positive_seconds_arg,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"give up on a scenario after this long (default {DEFAULT_TIMEOUT_S:g})",
    )
    run.add_argument("--export", metavar="REPORT.md", help="also write a Markdown lab report of every scenario")
    run.add_argument(
        "--trace", metavar="DIR", help="also write the eager and compiled profiles as Chrome traces (open in Perfetto)"
    )
    run.add_argument(
        "--remeasure-ceiling",
        action="store_true",
        help="measure the copy bandwidth and matmul peak again instead of using the cached figures",
    )
    run.add_argument(
        "--baseline",
        metavar="OLD.jsonl",
        help="compare each scenario with its report in OLD (written by --json): kernels added, removed "
        "or changed, launches, bytes, time; exit 1 when a launch count or byte total grew",
    )
    add_fan_out_arguments(run)

    view = commands.add_parser(
        "view",
        help="open saved kernel-tui run --json results in the explorer, without torch and without running anything",
    )
    view.add_argument("files", nargs="+", metavar="FILE.jsonl", help="results written by kernel-tui run --json")
    view.add_argument(
        "--text",
        action="store_true",
        help="print each scenario's reports side by side, one column per device, torch release or architecture, "
        "instead of opening the explorer",
    )
    view.add_argument(
        "--no-predict",
        action="store_true",
        help="on the course, show lessons' results at once instead of asking for a guess first",
    )

    listing = commands.add_parser("list", help="list scenarios (title, path, claims) without running them")
    listing.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: the course)")
    return parser


def add_fan_out_arguments(run: argparse.ArgumentParser) -> None:
    """``--ray`` and ``--accelerator``: the scenarios sent to a Ray cluster (``commands/ray_fanout.py``)."""
    run.add_argument(
        "--ray",
        nargs="?",
        const="",
        metavar="ADDRESS",
        help="run each scenario as a task on a Ray cluster (needs kernel-tui[ray]): at ADDRESS (host:port, "
        "ray://host:10001), or without one where Ray looks (RAY_ADDRESS, the cluster started here, else a new one); "
        "reports come back in the order the tasks finish",
    )
    run.add_argument(
        "--accelerator",
        metavar="TYPE",
        help="with --ray: one GPU of this type per task, as Ray names it (A100, H100, L4, or ray.util.accelerators' "
        "NVIDIA_A100...), 'any' GPU, or 'none' for a CPU task (default: any with --device cuda, none with cpu or "
        "cuda-preview, and with auto any where the cluster has a GPU)",
    )


def app_parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(prog="kernel-tui", parents=[], add_help=True)
    parser.add_argument("paths", nargs="*", metavar="PATH", help="scenario files or folders (default: the course)")
    add_model_arguments(parser)
    parser.add_argument("--device", default=DEFAULT_DEVICE, choices=DEVICES)
    parser.add_argument("--arch", type=int, choices=ARCHES, help="with --device cuda-preview: 80, 90 or 100")
    parser.add_argument(
        "--no-predict",
        action="store_true",
        help="on the course, run lessons at once instead of asking for a guess first",
    )
    parser.add_argument(
        "--serve",
        action="store_true",
        help="serve the explorer to a browser (textual-serve) instead of running it here",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="with --serve: the address to listen on (default 127.0.0.1, this machine only; "
        "another address lets anyone who reaches it run code here)",
    )
    parser.add_argument("--port", type=positive_int_arg, default=8000, help="with --serve: the port (default 8000)")
    return parser


def check_arch(parser: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    if options.arch is not None and options.device != "cuda-preview":
        parser.error("--arch applies to --device cuda-preview only")


def check_timing(parser: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    if options.no_time and options.sizes is not None:
        parser.error("--sizes are the sweep's sizes, and --no-time runs no sweep")


RESULTS_SUFFIXES = (".jsonl", ".json")
"""What ``run --json`` writes (``.jsonl``) and a JSON file: saved results, never a scenario."""


def check_paths(parser: argparse.ArgumentParser, paths: Sequence[str]) -> list[Path]:
    missing = [path for path in paths if not Path(path).exists()]
    if missing:
        parser.error(f"no such file or folder: {safe_line(', '.join(missing))}")
    for path in paths:
        # A device or a FIFO would block or never end the read that a run, a listing or the explorer starts with.
        kind = Path(path).stat().st_mode
        if not stat.S_ISDIR(kind) and not stat.S_ISREG(kind):
            parser.error(f"not a file or a folder: {safe_line(path)} (a device, a FIFO or a socket)")
        # Saved results named where scenarios go (``kernel-tui results.jsonl``) were run as Python and failed with
        # "inputs() must return a tuple of tensors", which says nothing of what was meant.
        if stat.S_ISREG(kind) and Path(path).suffix.lower() in RESULTS_SUFFIXES:
            parser.error(
                f"{safe_line(path)} holds saved results, not a scenario: open it with kernel-tui view {safe_line(path)}"
            )
    # Each folder named on its own: one with no scenario in it beside another that has some was passed over in
    # silence, and the run reported on the others as if it were all.
    found = [(path, find_scenarios([path])) for path in paths]
    if empty := [path for path, scenarios in found if not scenarios]:
        parser.error(f"no scenario files in {safe_line(', '.join(empty))}")
    return [scenario for _, scenarios in found for scenario in scenarios]
