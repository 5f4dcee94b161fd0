"""``kernel-tui run --ray``: each scenario a Ray task on a cluster, each report printed as it comes back.

Ray schedules the work; kernel-tui only says what each task asks for: one GPU of a named accelerator type (Ray's
``accelerator_type`` resource, ``--accelerator A100``), one GPU of any type, or no GPU (``--accelerator none``).
Each task runs ``kernel-tui run --json`` on its worker (``ray_worker``), so a report is what that worker's engine
measured, device included, and its line is the one a local run prints. Lines come in completion order.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel_tui.commands.cli_output import stdout_console, writing
from kernel_tui.commands.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE, Stopped, signals_end_the_run
from kernel_tui.commands.ray_worker import ScenarioJob, WorkerResult, measure_on_worker
from kernel_tui.model.names.safe_text import safe_line
from kernel_tui.model.scenario.scenario_file import saved_source
from kernel_tui.model.settings import seconds_or_default

if TYPE_CHECKING:
    import argparse
    from types import ModuleType

    from kernel_tui.model.report.report import ScenarioReport

ANY_GPU, NO_GPU = "any", "none"
CONNECT_TIMEOUT_S = 5.0
"""How long the cluster's address is given to accept a connection before it is said to answer nothing."""
WAIT_SLICE_S = 0.2
"""How long one wait for a report lasts: a signal noted meanwhile ends the run within this."""
# How long Ray's client is given to join the cluster at an address: KERNEL_TUI_RAY_CONNECT_S (``model.settings``,
# 60 s unset). Ray itself gives up on a silent address after about 20 s, but waits far longer on one that answers
# in another protocol.
CLUSTER_DEFAULT = ""
"""``--ray`` with no address: Ray's own choice (``RAY_ADDRESS``, the cluster last started here, else a new one)."""
NOT_WITH_RAY = {
    "baseline": "--baseline",
    "trace": "--trace",
    "model": "--model",
}
"""Options a fan-out cannot honour yet: a baseline is compared, a trace written and a model imported on one machine."""


def fan_out(parser: argparse.ArgumentParser, options: argparse.Namespace) -> int:
    """``kernel-tui run --ray``: check the options, connect, send each scenario, print each report that returns."""
    from kernel_tui.commands.arguments import check_paths

    if options.ray is None:
        parser.error("--accelerator goes with --ray [ADDRESS]")
    for option, flag in NOT_WITH_RAY.items():
        if getattr(options, option):
            parser.error(f"{flag} does not go with --ray: it needs files on this machine, and tasks run on others")
    if options.ray and Path(options.ray).exists():
        # ``--ray scenarios/``: argparse took the first PATH for the optional address; a path is no address.
        options.paths.insert(0, options.ray)
        options.ray = CLUSTER_DEFAULT
    if not options.paths:
        parser.error("run --ray needs a PATH (scenario files or folders)")
    paths = check_paths(parser, options.paths)
    try:
        import ray
    except ImportError:
        print(
            "kernel-tui run: --ray needs Ray, which is not installed here: pip install 'kernel-tui[ray]'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    with signals_end_the_run():
        failure = connect(ray, options.ray or None)
        if failure is not None:
            print(f"kernel-tui run: {failure}", file=sys.stderr)
            return EXIT_USAGE
        try:
            # Ray leaves cluster_resources unannotated; it returns resource names and amounts.
            resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
            accelerator = ray_accelerator_type(options.accelerator or default_accelerator(options.device, resources))
            absent = missing_accelerator(resources, accelerator)
            if absent:
                print(f"kernel-tui run: {absent}; the tasks wait until one joins (Ctrl-C stops)", file=sys.stderr)
            return _send_and_show(ray, options, paths, accelerator)
        finally:
            ray.shutdown()


def connect(ray: ModuleType, address: str | None) -> str | None:
    """Connect to the cluster at ``address`` (None: Ray's default); None when connected, else why not, in one line.

    Ray's C++ client prints a line a second while it retries an address that does not answer: that goes to a file
    instead of the terminal, and the error says what failed in one line.
    """
    named = f"--ray {safe_line(address)}" if address else "--ray"
    silent = nothing_answers(address) if address else None
    if silent is not None:
        return f"{named}: cannot connect to a Ray cluster: {silent}"
    outcome: list[BaseException | None] = []

    def init() -> None:
        try:
            # Each task hands back its own stderr's tail, printed under its scenario's name. Ray's forwarding would
            # print it a second time, and the cluster's own complaints (a raylet's disk warning) among the reports.
            ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
        except BaseException as error:  # noqa: BLE001  (handed to the main thread, which says it in one line)
            outcome.append(error)
        else:
            outcome.append(None)

    deadline = seconds_or_default("KERNEL_TUI_RAY_CONNECT_S")
    with _stderr_kept_aside() as saved_stderr:
        if address is None:
            init()  # Ray starts a cluster here, or joins the one it finds: steps that Ray bounds itself
        else:
            # An address that accepts connections but is no Ray cluster (a web server, a stale tunnel) keeps Ray's
            # client waiting for minutes, deaf to Ctrl-C: it waits in a thread, and this one waits for it a while.
            waiter = threading.Thread(target=init, name="ray-connect", daemon=True)
            waiter.start()
            waiter.join(deadline)
        if not outcome:
            # The waiting thread cannot be stopped and would print Ray's retries, and Ray's exit handlers would wait
            # on it: the run ends here, its one line written past the scratch file.
            os.write(saved_stderr, f"kernel-tui run: {named}: no Ray cluster answered within {deadline:g} s\n".encode())
            os._exit(EXIT_USAGE)
    failure = outcome[0]
    if failure is None:
        return None
    if isinstance(failure, (ConnectionError, RuntimeError, ValueError, TimeoutError)):
        return f"{named}: cannot connect to a Ray cluster: {_first_line(failure)}"
    raise failure


def nothing_answers(address: str) -> str | None:
    """Why nothing listens at ``address`` (``host:port`` or ``ray://host:port``), or None when something does.

    Ray's client waits for an address that refuses connections as long as it waits for a cluster that is starting
    (minutes), and cannot be interrupted meanwhile: an address where nothing listens is told at once instead.
    """
    import socket

    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not port.isdigit():
        return None  # ``auto``, ``local``: Ray resolves those itself
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S):
            return None
    except OSError as error:
        return f"nothing answers at {safe_line(address)} ({error.strerror or type(error).__name__})"


@contextlib.contextmanager
def _signals_noted() -> Iterator[list[int]]:
    """Ctrl-C, SIGTERM and SIGHUP noted, not raised, while the reports are awaited: raised inside Ray's wait, an
    exception comes out of it as a SystemError and a traceback. The loop raises them itself between waits."""
    noted: list[int] = []

    def note(signum: int, frame: object) -> None:
        noted.append(signum)

    if threading.current_thread() is not threading.main_thread():
        yield noted
        return
    previous = {sig: signal.signal(sig, note) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield noted
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def _stderr_kept_aside() -> Iterator[int]:
    """File descriptor 2 pointed at a scratch file for the duration (Ray's C++ logging writes to it directly); the
    real stderr's descriptor meanwhile is what it yields."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as aside:
        os.dup2(aside.fileno(), 2)
        try:
            yield saved
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def ray_accelerator_type(name: str) -> str:
    """``--accelerator``: ``none``, ``any``, or an accelerator type as Ray names it, given as its value (``A100``)
    or as its constant in ``ray.util.accelerators`` (``NVIDIA_A100``); a name Ray has no constant for (a newer
    GPU Ray detects by its device name) passes as it is."""
    if name.lower() in (ANY_GPU, NO_GPU):
        return name.lower()
    from ray.util import accelerators

    known: dict[str, str] = {
        key: value for key, value in vars(accelerators).items() if key.isupper() and isinstance(value, str)
    }
    for constant, value in known.items():
        if name.upper() == constant or name.upper() == value.upper():
            return value
    return name


def default_accelerator(device: str, resources: dict[str, float]) -> str:
    """What a task asks for without ``--accelerator``: a GPU for ``--device cuda``, none for ``cpu`` and the
    preview, and for ``auto`` what a local run's ``auto`` picks: a GPU where the cluster has one."""
    if device == "cuda" or (device == "auto" and resources.get("GPU", 0) >= 1):
        return ANY_GPU
    return NO_GPU


def task_options(accelerator: str) -> dict[str, Any]:
    """What each scenario's Ray task asks for: one GPU of the type named, one of any type, or one CPU."""
    if accelerator == NO_GPU:
        return {"num_cpus": 1, "num_gpus": 0}
    if accelerator == ANY_GPU:
        return {"num_gpus": 1}
    return {"num_gpus": 1, "accelerator_type": accelerator}


def missing_accelerator(resources: dict[str, float], accelerator: str) -> str | None:
    """Why no task could start on the cluster as it is now, or None when one could."""
    if accelerator == NO_GPU:
        return None
    if resources.get("GPU", 0) < 1:
        return "the Ray cluster has no GPU now (--accelerator none measures on its CPUs)"
    if accelerator == ANY_GPU or f"accelerator_type:{accelerator}" in resources:
        return None
    present = sorted(key.partition(":")[2] for key in resources if key.startswith("accelerator_type:"))
    return f"no node of the Ray cluster has accelerator type {accelerator} now (it has: {', '.join(present) or '?'})"


def worker_arguments(options: argparse.Namespace) -> tuple[str, ...]:
    """The ``kernel-tui run`` options each worker's run gets: those that shape the measurement."""
    arguments = ["--device", options.device, "--timeout", repr(options.timeout)]
    if options.arch is not None:
        arguments += ["--arch", ",".join(str(arch) for arch in options.arch)]
    if options.size is not None:
        arguments += ["--size", str(options.size)]
    if options.sizes is not None:
        arguments += ["--sizes", ",".join(str(size) for size in options.sizes)]
    if options.no_sweep:
        arguments.append("--no-sweep")
    if options.sweep_budget is not None:
        arguments += ["--sweep-budget", repr(options.sweep_budget)]
    if options.no_time:
        arguments.append("--no-time")
    if options.remeasure_ceiling:
        arguments.append("--remeasure-ceiling")
    for name, compile_arguments in options.variant:
        # Values are Python literals for --variant, which repr writes back.
        pairs = ",".join(f"{key}:{value!r}" for key, value in compile_arguments.items())
        arguments += ["--variant", f"{name}={pairs}"]
    return tuple(arguments)


def _send_and_show(ray: ModuleType, options: argparse.Namespace, paths: list[Path], accelerator: str) -> int:
    from rich.console import Console

    remote = ray.remote(measure_on_worker).options(**task_options(accelerator))
    run_arguments = worker_arguments(options)
    pending: dict[Any, Path] = {}
    for path in paths:
        job = ScenarioJob(str(path.resolve()), saved_source(path), run_arguments)
        pending[remote.remote(job)] = path
    status = Console(stderr=True, markup=False, highlight=False)
    console = stdout_console()
    exit_code = EXIT_OK
    reports: dict[Path, ScenarioReport] = {}
    try:
        with _signals_noted() as noted:
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=WAIT_SLICE_S)
                if noted:
                    raise KeyboardInterrupt if noted[0] == signal.SIGINT else Stopped(noted[0])
                for ref in ready:
                    path = pending.pop(ref)
                    name = safe_line(path.name)
                    try:
                        result: WorkerResult = ray.get(ref)
                    except ray.exceptions.RayError as error:
                        print(f"kernel-tui run: {name}: the Ray task failed: {_first_line(error)}", file=sys.stderr)
                        exit_code = EXIT_FAILED
                        continue
                    sys.stderr.write(result.stderr_tail)
                    report = _shown(result, name, options, console)
                    if report is None or result.returncode != EXIT_OK:
                        exit_code = EXIT_FAILED
                    if report is not None:
                        reports[path] = report
                        if status.is_terminal and not options.json:
                            status.print(
                                f"{name}: measured on {safe_line(result.node)}: {report.device_name}", style="dim"
                            )
    finally:
        for ref in pending:
            with contextlib.suppress(Exception):  # a task that ended meanwhile cannot be cancelled: nothing to do
                ray.cancel(ref)
    if options.export:
        from kernel_tui.text.markdown_report import lab_report

        in_order = [reports[path] for path in paths if path in reports]
        with writing(f"the report to {safe_line(options.export)}"):
            Path(options.export).write_text(lab_report(in_order), encoding="utf-8")
    return exit_code


def _shown(result: WorkerResult, name: str, options: argparse.Namespace, console: Any) -> ScenarioReport | None:
    """Print the report a worker sent back (its JSON line, or its tables); None, said on stderr, when there is none."""
    from kernel_tui.text.kernel_order import AS_LAUNCHED
    from kernel_tui.text.render import by_line_view, scenario_view

    if not result.lines:
        tail = result.stderr_tail.strip()
        why = _first_line(tail.splitlines()[-1]) if tail else ""
        print(
            f"kernel-tui run: {name}: the run on {safe_line(result.node)} printed no report "
            f"(exit {result.returncode}){': ' + why if why else ''}",
            file=sys.stderr,
        )
        return None
    report = None
    for line in result.lines:
        report = _report(line, name)
        if report is None:
            return None
        with writing("the results to standard output"):
            if options.json:
                sys.stdout.write(line + "\n")
                sys.stdout.flush()
            else:
                console.print(scenario_view(report, console.width, order=options.sort or AS_LAUNCHED))
                if options.by_line:
                    console.print(by_line_view(report))
                console.file.flush()
    return report


def _report(line: str, name: str) -> ScenarioReport | None:
    """A worker's line as a report, read as ``kernel-tui view`` reads a results file's (a newer kernel-tui's format
    is refused); None, said in one line, when it is not one."""
    from kernel_tui.model.storage.results_file import ResultsFileError, report_from_line

    try:
        return report_from_line(f"{name}: the worker sent back no kernel-tui report", line)
    except ResultsFileError as error:
        print(f"kernel-tui run: {_first_line(error)}", file=sys.stderr)
        return None


def _first_line(error: object) -> str:
    text = str(error).strip()
    return safe_line(text.splitlines()[0] if text else type(error).__name__)
