"""The engine's request loop: read ``run`` requests on stdin, stream messages back on the protocol stream."""

from __future__ import annotations

import argparse
import os
import sys
import threading
import traceback
from typing import IO, Any

from kernel_tui import protocol


def serve(argv: list[str], out: IO[str], requests: IO[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kernel_tui.engine")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "cuda-preview"))
    # The explorer passes the preview's architecture through the environment, the CLI on the command line.
    parser.add_argument("--arch", type=int, choices=(80, 90, 100), default=os.environ.get("KERNEL_TUI_ARCH", "90"))
    # The explorer asks for it: the learner reads a lesson first. The CLI's request comes at once, and a
    # warm-up could only make it wait for the tiny function's own kernel.
    parser.add_argument("--warm-up", action="store_true", help="compile a tiny function right after hello")
    options = parser.parse_args(argv)
    sending = threading.Lock()

    def send(message_type: str, **fields: Any) -> None:
        # The warm-up thread reports on the same stream: one whole line at a time.
        with sending:
            out.write(protocol.encode(message_type, **fields))
            out.flush()

    import torch

    from kernel_tui.engine import compile_watch
    from kernel_tui.engine.device import choose_device, configure_torch, device_name
    from kernel_tui.engine.measure import measure_scenario

    if options.device == "cuda-preview":
        from kernel_tui.engine.preview import preview_as_measure

        measure_scenario = preview_as_measure(options.arch)

    try:
        device = choose_device(options.device)
    except RuntimeError as error:
        print(f"kernel-tui engine: {error}", file=sys.stderr)
        sys.exit(3)
    configure_torch(device)
    compile_watch.install()
    from kernel_tui.engine import isolation, lifeline

    # Every scenario starts from this state, whatever the one before it changed.
    clean_state = isolation.Snapshot.take(device)
    warm_up = None
    if options.warm_up and options.device != "cuda-preview":
        from kernel_tui.engine.warmup import WarmUp

        warm_up = WarmUp(device, send)
    send(
        "hello",
        protocol=protocol.PROTOCOL_VERSION,
        pid=os.getpid(),
        device=device,
        device_name=device_name(device),
        torch_version=torch.__version__,
        threads=torch.get_num_threads(),
        warmup=warm_up.hello_fields() if warm_up is not None else None,
    )
    if warm_up is not None:
        warm_up.start()
    for line in lifeline.request_lines(sys.stdin if requests is None else requests):
        if not line.strip():
            continue
        try:
            request = protocol.decode(line)
        except protocol.ProtocolError as error:
            print(f"kernel-tui engine: ignoring {error}", file=sys.stderr)
            continue
        if request["type"] == "quit":
            break
        if request["type"] != "run":
            continue
        run_id = request.get("run_id")

        seen: dict[str, Any] = {"stage": "load", "partial": None}
        """The last stage and partial report sent: what a run that ends abruptly is reported with."""

        def emit(message_type: str, _run_id: Any = run_id, _seen: dict = seen, **fields: Any) -> None:
            if message_type == "progress":
                _seen["stage"] = fields.get("stage", _seen["stage"])
            elif message_type == "partial":
                _seen["partial"] = fields.get("report")
            send(message_type, run_id=_run_id, **fields)

        with lifeline.busy():
            if warm_up is not None and warm_up.running:
                emit("progress", stage="load",
                     detail=f"first compile of the session: about {warm_up.remaining_s():.0f} s more")
                warm_up.wait()
            report_dict = _run(request, device, emit, measure_scenario, seen)
            # Restored before the report is sent, so that what could not be restored is in it.
            notes = clean_state.restore((os.path.dirname(str(request.get("path", ""))),))
            compile_watch.install()
        if notes:
            report_dict = _with_isolation_notes(report_dict, notes)
        emit("done", report=report_dict, restart=bool(notes))
        if notes:
            # Something the scenario changed cannot be undone here: a fresh engine runs the next one.
            lifeline.end_everything()


def _run(
    request: dict[str, Any], device: str, emit: Any, measure_scenario: Any, seen: dict[str, Any]
) -> dict[str, Any]:
    try:
        report = measure_scenario(
            request["path"],
            device,
            size=request.get("size"),
            sizes=request.get("sizes"),
            run_sweep=bool(request.get("sweep", True)),
            trace_dir=request.get("trace_dir"),
            emit=emit,
            variants_requested=request.get("variants"),
        )
        return report.to_dict()
    except (SystemExit, KeyboardInterrupt) as exc:
        # The scenario's fn ended a call with sys.exit() or KeyboardInterrupt where no stage catches it
        # (a later profiled or timed call): that run's error, at its stage and line, not the engine's end.
        return _abrupt_end(request["path"], device, seen, exc)
    except Exception:  # noqa: BLE001 - a bug in the engine must reach the user as that run's error
        details = traceback.format_exc()
        print(details, file=sys.stderr)
        return _engine_failure(request["path"], device, details)


def _with_isolation_notes(report: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    text = "; ".join(notes)
    note = f"the next scenario runs in a fresh engine: {text}"
    return {**report, "notes": [*report.get("notes", []), note]}


def _abrupt_end(path: str, device: str, seen: dict[str, Any], exc: BaseException) -> dict[str, Any]:
    from dataclasses import asdict
    from pathlib import Path

    from kernel_tui.engine.loader import stage_error

    stage = {"profile": "compile"}.get(seen["stage"], seen["stage"])
    error = stage_error(stage, Path(path), exc).error
    if seen["partial"] is not None:
        return {**seen["partial"], "error": asdict(error)}  # what was measured before it, kept
    return _engine_failure(path, device, error.details, error)


def _engine_failure(path: str, device: str, details: str, error: Any = None) -> dict[str, Any]:
    """A report for a run the engine could not finish: it still names the device, torch and the size."""
    import torch

    from kernel_tui.engine.device import device_name
    from kernel_tui.report import ScenarioError, ScenarioReport
    from kernel_tui.scenario_file import ScenarioFileError, read_scenario

    last = details.strip().splitlines()[-1] if details.strip() else "internal error"
    try:
        info = read_scenario(path)
        title, size = info.title, info.size
    except ScenarioFileError:
        title, size = path, 0
    report = ScenarioReport(
        path, title, device, device_name(device), torch.__version__, size, threads=torch.get_num_threads(),
        error=error or ScenarioError("engine", last, None, path, details),
    )
    return report.to_dict()
