"""The ``kernel-tui`` command: the explorer app by default, ``run`` and ``list`` for scripts and CI.

This process never imports torch: measuring happens in the engine child process (``kernel_tui.transport.client``).
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel_tui.commands.arguments import (
    DEFAULT_DEVICE,
    app_parser,
    check_arch,
    check_outputs,
    check_paths,
    check_timing,
    command_parser,
)
from kernel_tui.commands.cli_output import (
    OutputFailed,
    forgiving_streams,
    silence_stdout,
    stdout_console,
    stdout_is_closed,
    writing,
)
from kernel_tui.commands.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE, Stopped, signals_end_the_run
from kernel_tui.commands.model_arguments import model_paths
from kernel_tui.model.names.safe_text import safe_line
from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.scenario_file import ScenarioFileError, find_scenarios, read_scenario, saved_source

if TYPE_CHECKING:
    # argparse is imported where a parser is built or an argument checked: a bare ``kernel-tui`` never loads it.
    import argparse

    from kernel_tui.model.report.report import ScenarioReport

    # The explorer starts through this module: what only ``run`` needs (the protocol and the report
    # dataclasses, about 12 ms) is imported where it is used, not before the explorer's first frame.
    from kernel_tui.text.baseline import BaselineComparison
    from kernel_tui.transport.protocol import Arch, Hello


def main(argv: Sequence[str] | None = None) -> int:
    if stdout_is_closed():
        # Nothing could be shown, and fd 1 free would be taken by the first file or pipe the run opens.
        silence_stdout()
        if sys.stderr is not None:
            print(
                "kernel-tui: standard output is closed: there is nowhere to show anything (use > FILE)", file=sys.stderr
            )
        return EXIT_USAGE
    forgiving_streams()
    try:
        return _main(argv)
    except OutputFailed as failed:
        silence_stdout()
        print(f"kernel-tui: {failed}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("kernel-tui: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    except Stopped as stopped:
        print(f"kernel-tui: stopped by {signal.Signals(stopped.signum).name}", file=sys.stderr)
        return 128 + stopped.signum
    except BrokenPipeError:
        # The reader went away (``| head -1``): say nothing, and let nothing be flushed into the closed pipe.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 128 + signal.SIGPIPE


def _main(argv: Sequence[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    from kernel_tui.model.settings import bad_settings

    # Said before anything starts: an engine would only fall back to the default without a word.
    if refused := bad_settings():
        for line in refused:
            print(f"kernel-tui: {line}", file=sys.stderr)
        return EXIT_USAGE
    if not args:
        # A bare ``kernel-tui``: the explorer on the course with every option at the app parser's default. No
        # parser is built, and argparse with its translations (about 2 ms of the start-up) is never loaded.
        return _explore([], device=DEFAULT_DEVICE, predict=True, arch=None)
    if args and args[0] in ("run", "list", "view", "-h", "--help"):
        parser = command_parser()
        options = parser.parse_args(args)
        if options.command == "run":
            if options.sweep_budget is not None:
                # Each engine reads it from the environment it is started with, which is this one's.
                os.environ["KERNEL_TUI_SWEEP_BUDGET_S"] = repr(options.sweep_budget)
            check_arch(parser, options)
            check_timing(parser, options)
            if options.variant and options.device == "cuda-preview":
                parser.error("--variant applies to a measurement: a preview generates the compiled side's code only")
            check_outputs(parser, options)
            if options.ray is not None or options.accelerator is not None:
                from kernel_tui.commands.ray_fanout import fan_out

                return fan_out(parser, options)
            model = model_paths(parser, options)
            if not options.paths and not model:
                parser.error("run needs a PATH (scenario files or folders) or --model FILE.py:NAME")
            paths = (check_paths(parser, options.paths) if options.paths else []) + model
            baselines = None
            if options.baseline is not None:
                from kernel_tui.model.storage.results_file import ResultsFileError, read_results

                try:
                    baselines = read_results(Path(options.baseline))
                except ResultsFileError as error:
                    print(f"kernel-tui run: --baseline {error}", file=sys.stderr)
                    return EXIT_USAGE
            # A model's sweep scales its batch (1, 1, 1, 2 at --input 2x...): a recompile for a dynamic batch that
            # took ResNet18's training step past the timeout (279 s of a 609 s run), to tell little. --sizes asks.
            unswept = frozenset(model) if options.sizes is None else frozenset()
            return run_command(options, paths, baselines, unswept=unswept)
        if options.command == "view":
            return view_command(options)
        if options.command == "list":
            paths = check_paths(parser, options.paths) if options.paths else find_scenarios([course_dir()])
            return list_command(paths)
        parser.print_help()
        return EXIT_OK
    parser = app_parser()
    options = parser.parse_args(args)
    check_arch(parser, options)
    paths = (check_paths(parser, options.paths) if options.paths else []) + model_paths(parser, options)
    if options.serve:
        from kernel_tui.ui.app.serve import serve_app

        return serve_app(
            paths,
            device=options.device,
            predict=not options.no_predict,
            arch=options.arch,
            host=options.host,
            port=options.port,
        )
    return _explore(paths, device=options.device, predict=not options.no_predict, arch=options.arch)


def _explore(paths: list[Path], *, device: str, predict: bool, arch: Arch | None) -> int:
    """Run the explorer here, on ``paths`` (none: the course)."""
    with _collector_off_until_first_frame():
        from kernel_tui.ui.app.launch import run_app

        return run_app(paths, device=device, predict=predict, arch=arch)


@contextlib.contextmanager
def _collector_off_until_first_frame() -> Iterator[None]:
    """Garbage collection off while an app starts (the explorer, or ``view``).

    ``KernelTuiApp.on_ready`` turns it back on once the first frame is out, and this does if the app never gets
    that far: importing Textual and the explorer, and building the first frame, make many objects and no
    garbage, and the collections they set off cost about 13 ms of the imports and 40-60 ms of the first frame.
    """
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def run_command(
    options: argparse.Namespace,
    paths: list[Path],
    baselines: Sequence[ScenarioReport] | None = None,
    *,
    unswept: frozenset[Path] = frozenset(),
) -> int:
    """Measure each scenario and print it; with ``baselines``, compare each with its own there too; the paths
    in ``unswept`` (``--model``'s scenario) are not swept."""
    import json
    from dataclasses import replace

    from rich.console import Console

    from kernel_tui.commands.quiet_watch import QuietWatch
    from kernel_tui.model.storage.results_file import saved_form
    from kernel_tui.text.kernel_order import AS_LAUNCHED
    from kernel_tui.text.render import baseline_view, by_line_view, scenario_view
    from kernel_tui.transport.client import EngineClient
    from kernel_tui.transport.engine_died import EngineDied, is_refusal
    from kernel_tui.transport.protocol import StageStartedMessage
    from kernel_tui.transport.run_record import RunRecord, died_report, engine_facts, fold

    console = stdout_console()
    status = Console(stderr=True, markup=False, highlight=False)

    def forward(line: str) -> None:
        if not is_refusal(line):  # said once below, as the run's own word
            sys.stderr.write(line)

    exit_code = EXIT_OK
    grown: list[str] = []
    """Per scenario that grew against its baseline: what grew."""
    reports: list[ScenarioReport] = []
    hello: Hello | None = None
    """The latest engine's hello: a report of an engine that died still names the device and torch."""
    with signals_end_the_run(), EngineClient(options.device, stderr_sink=forward) as client:
        try:
            hello = client.start()
        except EngineDied as death:
            if death.refusal:
                # The torch here is below kernel-tui's floor, or the device asked for cannot be had: true of
                # every file alike, so said once, before any is measured.
                print(f"kernel-tui run: {death.refusal}", file=sys.stderr)
                return EXIT_USAGE
        # Each architecture of a preview is a report of its own, one after the other for each file.
        runs = [(path, arch) for path in paths for arch in (options.arch or [None])]
        for number, (path, arch) in enumerate(runs, 1):
            # Read before the run, so the saved text is the one the engine runs a moment later.
            source = saved_source(path) if options.json or options.by_line or options.export else None

            shown_as = safe_line(path.name if arch is None else f"{path.name} sm_{arch}")

            def show_progress(message: StageStartedMessage, name: str = shown_as) -> None:
                if not options.json and status.is_terminal:
                    status.print(f"{name}: {message.stage} {message.detail}", style="dim")

            swept = not (options.no_sweep or options.no_time or path in unswept)
            record = RunRecord(client.next_run_id(), path, sweep=swept)
            crash = ""
            """How the engine crashed, where it did: the error's details, printed after its table."""
            quiet = QuietWatch(shown_as, options.timeout, lambda line: status.print(line, style="dim", soft_wrap=True))
            try:
                with quiet.watching():
                    hello = client.start()
                    for message in client.run(
                        str(path),
                        size=options.size,
                        sizes=options.sizes,
                        sweep=swept,
                        timeout=options.timeout,
                        trace_dir=options.trace,
                        variants=dict(options.variant) or None,
                        arch=arch,
                        remeasure_ceiling=options.remeasure_ceiling,
                        timed=not options.no_time,
                        then_another=number < len(runs),  # each in a fresh engine: the next one's starts meanwhile
                        run_id=record.run_id,
                    ):
                        quiet.heard(message.stage if isinstance(message, StageStartedMessage) else None)
                        if isinstance(message, StageStartedMessage):
                            show_progress(message)
                        record = fold(record, message)
                assert record.done and record.report is not None, "the client's runs end with Done"
                report = record.report
            except EngineDied as death:
                error = death.error(path, record)
                crash = error.details if death.crash() is not None else ""
                report = died_report(record, error, engine_facts(hello, options.device), size=options.size)
                report = replace(report, arch=arch if arch is not None else report.arch)
            # The engine's copy is the text it ran, even if the file changed since it was read here; the copy
            # read here stands in where the engine died before it could send one.
            report = replace(report, source=report.source if report.source is not None else source)
            reports.append(report)
            # A variant that could not be measured was asked for by name: a script must hear of it.
            if not report.ok or any(variant.error is not None for variant in report.variants.values()):
                exit_code = EXIT_FAILED
            comparison = baseline_comparison(report, baselines, alone=len(runs) == 1)
            if comparison is not None and comparison.grew:
                grown.append(f"{safe_line(path.name)}: {', '.join(comparison.growth())}")
            if options.json:
                data = saved_form(report)
                if baselines is not None:
                    data["baseline"] = comparison.to_dict() if comparison is not None else None
                with writing("the results to standard output"):
                    sys.stdout.write(json.dumps(strict_json(data), allow_nan=False) + "\n")
                    sys.stdout.flush()
            else:
                with writing("the results to standard output"):
                    console.print(scenario_view(report, console.width, order=options.sort or AS_LAUNCHED))
                    if options.by_line:
                        console.print(by_line_view(report))
                    if baselines is not None:
                        console.print(baseline_view(comparison, report.scenario, options.baseline))
                    console.file.flush()
            if crash:
                # The frames that say where, after the engine's own words (on stderr as they came), with --json too
                # (where the error's details carry them): a CI log shows them.
                status.print(f"{shown_as}: how the engine crashed\n{crash}", soft_wrap=True)
    if grown:
        # One line a CI log shows, on stderr so that --json output stays JSON.
        print(f"kernel-tui run: grew against {options.baseline}: {'; '.join(grown)}", file=sys.stderr)
        exit_code = EXIT_FAILED
    if options.export:
        from kernel_tui.text.markdown_report import lab_report

        with writing(f"the report to {safe_line(options.export)}"):
            Path(options.export).write_text(lab_report(reports), encoding="utf-8")
    return exit_code


def view_command(options: argparse.Namespace) -> int:
    """The explorer on saved results (``--text``: their device columns printed); a file that is not one is a usage
    error naming the file and line."""
    if options.text:
        from kernel_tui.commands.view_text import print_device_columns

        return print_device_columns(options.files, stdout_console())
    with _collector_off_until_first_frame():
        from kernel_tui.model.storage.results_file import ResultsFileError, read_results
        from kernel_tui.ui.link.view_link import saved_reports

        saved = []
        for name in options.files:
            try:
                saved += saved_reports(read_results(Path(name)), Path(name))
            except ResultsFileError as error:
                print(f"kernel-tui view: {error}", file=sys.stderr)
                return EXIT_USAGE
        from kernel_tui.ui.app.view_app import run_view

        return run_view(saved, predict=not options.no_predict)


def baseline_comparison(
    report: ScenarioReport, baselines: Sequence[ScenarioReport] | None, alone: bool
) -> BaselineComparison | None:
    """``report`` against its own baseline; None without ``--baseline`` or when the file holds none for it."""
    if baselines is None:
        return None
    from kernel_tui.text.baseline import baseline_of, compare

    old = baseline_of(report, baselines, alone=alone)
    return compare(old, report) if old is not None else None


def strict_json(value: Any) -> Any:
    """``value`` with every NaN or infinity as null: the JSON we print is strict, whatever was measured."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: strict_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(item) for item in value]
    return value


def list_command(paths: list[Path]) -> int:
    from rich.table import Table
    from rich.text import Text

    table = Table(title="scenarios", title_justify="left")
    for column in ("#", "title", "path", "claims"):
        table.add_column(column, overflow="fold")
    exit_code = EXIT_OK
    for number, path in enumerate(paths, start=1):
        try:
            info = read_scenario(path)
        except ScenarioFileError as error:
            where = f"{path}:{error.line}" if error.line else str(path)
            table.add_row(str(number), Text(safe_line(f"cannot read: {error}"), style="red"), safe_line(where), "")
            exit_code = EXIT_FAILED
            continue
        table.add_row(str(number), info.title, safe_line(str(path)), info.claims_text())
    stdout_console().print(table)
    return exit_code


if __name__ == "__main__":
    raise SystemExit(main())
