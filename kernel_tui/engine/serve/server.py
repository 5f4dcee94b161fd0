"""The engine's request loop: read ``run`` requests on stdin, stream messages back on the protocol stream."""

from __future__ import annotations

import argparse
import os
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import replace
from typing import IO, TYPE_CHECKING, NoReturn

from kernel_tui.engine.stages.outbox import RunOutbox
from kernel_tui.model.report.report import ScenarioError, ScenarioReport
from kernel_tui.transport import protocol
from kernel_tui.transport.protocol import Done, Hello, RunRequest, StageStartedMessage

if TYPE_CHECKING:
    from kernel_tui.engine.serve.warmup import WarmUp


def serve(argv: list[str], out: IO[str], requests: IO[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kernel_tui.engine")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "cuda-preview"))
    # The explorer asks for it: the learner reads a lesson first. The CLI's request comes at once, and a
    # warm-up could only make it wait for the tiny function's own kernel.
    parser.add_argument("--warm-up", action="store_true", help="compile a tiny function right after hello")
    options = parser.parse_args(argv)
    sending = threading.Lock()

    def send(message: protocol.EngineMessage) -> None:
        # The request reader's thread tells a run that it waits for the warm-up on the same stream: one whole
        # line at a time.
        with sending:
            out.write(protocol.encode(message))
            out.flush()

    if options.device == "cuda-preview":
        # Torch's C++ warnings about the fake device (a FakeTensor's data pointer) print below Python's
        # warning filters; read once, when torch loads.
        os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")
    import torch

    from kernel_tui.engine.serve.torch_floor import below_floor

    # Before anything that reads torch's internals: below the floor they are not what the engine expects.
    refusal = below_floor(torch.__version__)
    if refusal is not None:
        _refuse(refusal)

    from kernel_tui.engine.serve.device_choice import choose_device

    try:
        device = choose_device(options.device)
    except RuntimeError as error:
        _refuse(str(error))

    from kernel_tui.engine.compiler import compile_watch
    from kernel_tui.engine.compiler.torch_settings import configure_torch
    from kernel_tui.engine.counting.device import device_name

    run_request = request_runner(device)
    configure_torch(device)
    compile_watch.install()
    from kernel_tui.engine.serve import lifeline

    warm_up = None
    if options.warm_up and options.device != "cuda-preview":
        from kernel_tui.engine.serve.warmup import WarmUp

        warm_up = WarmUp(device, send)

    def arrived(line: str) -> None:
        # On the reader's thread: a run asked for during the warm-up hears at once why it waits.
        if warm_up is not None and warm_up.running:
            _tell_it_waits(line, warm_up, send)

    lines = lifeline.request_lines(sys.stdin if requests is None else requests, on_arrival=arrived)
    send(
        Hello(
            pid=os.getpid(),
            device=device,
            device_name=device_name(device),
            torch_version=torch.__version__,
            threads=torch.get_num_threads(),
            warmup=warm_up.plan() if warm_up is not None else None,
        )
    )
    if warm_up is not None:
        # Busy: a front end that closes the request stream meanwhile ends the engine, as during a run.
        with lifeline.busy():
            warm_up.run()
    for line in lines:
        if not line.strip():
            continue
        try:
            request = protocol.decode(line)
        except protocol.ProtocolError as error:
            print(f"kernel-tui engine: ignoring {error}", file=sys.stderr)
            continue
        if isinstance(request, protocol.Quit):
            break
        if not isinstance(request, RunRequest):
            continue
        outbox = RunOutbox.for_request(request, send)
        engines_own = lifeline.children()
        with lifeline.busy():
            report = _run(request, device, outbox, run_request)
        left = lifeline.left_running(engines_own)
        if left:
            report = replace(report, notes=(*report.notes, *left))
        outbox.send(Done, report)
        # One scenario per engine: what it changed in this process (patched modules, modes left entered, signal
        # handlers, a forged encoder...) dies with it, and the next runs in a fresh engine (the front end's spare).
        # So does anything it started: its processes are this engine's tree.
        lifeline.finish()


def _tell_it_waits(line: str, warm_up: WarmUp, send: Callable[[protocol.EngineMessage], None]) -> None:
    try:
        request = protocol.decode(line)
    except protocol.ProtocolError:
        return  # the main thread says so when it takes the line
    if isinstance(request, RunRequest):
        RunOutbox.for_request(request, send).send(
            StageStartedMessage, "load", f"first compile of the session: about {warm_up.remaining_s():.0f} s more"
        )


def _refuse(reason: str) -> NoReturn:
    """End at once with code 3 and the reason on stderr (client.EngineDied.refusal reads it): nothing has run
    that needs cleaning up, and Python's own exit would wait for the compile workers that importing
    Inductor's modules (to check the preview's patch targets) may have started."""
    print(f"kernel-tui engine: {reason}", file=sys.stderr, flush=True)
    os._exit(3)


RunRequestOn = Callable[[RunRequest, RunOutbox], ScenarioReport]


def request_runner(device: str) -> RunRequestOn:
    """How this engine runs a request, with the settings the request carries: a preview generates code for its
    ``arch`` (else the protocol's default), any other device measures. Imported here, before the engine takes the state
    every scenario starts from, so that no run pays for the imports."""
    if device == "cuda-preview":
        from kernel_tui.engine.preview.preview import preview_scenario

        def preview(request: RunRequest, outbox: RunOutbox) -> ScenarioReport:
            arch = request.arch or protocol.DEFAULT_ARCH
            return preview_scenario(request.path, arch, size=request.size, outbox=outbox)

        return preview
    from kernel_tui.engine.stages.measure import measure_scenario

    def measure(request: RunRequest, outbox: RunOutbox) -> ScenarioReport:
        return measure_scenario(
            request.path,
            device,
            size=request.size,
            sizes=None if request.sizes is None else list(request.sizes),
            run_sweep=request.sweep,
            trace_dir=request.trace_dir,
            outbox=outbox,
            variants_requested=request.variants,
            remeasure_ceiling=request.remeasure_ceiling,
            timed=request.timed,
        )

    return measure


def _run(request: RunRequest, device: str, outbox: RunOutbox, run_request: RunRequestOn) -> ScenarioReport:
    try:
        return run_request(request, outbox)
    except (SystemExit, KeyboardInterrupt) as exc:
        # The scenario's fn ended a call with sys.exit() or KeyboardInterrupt where no stage catches it
        # (a later profiled or timed call): that run's error, at its stage and line, not the engine's end.
        return _abrupt_end(request, device, outbox, exc)
    except Exception:  # noqa: BLE001 - a bug in the engine must reach the user as that run's error
        details = traceback.format_exc()
        print(details, file=sys.stderr)
        return _engine_failure(request, device, outbox, _internal_error(request.path, details))


def _abrupt_end(request: RunRequest, device: str, outbox: RunOutbox, exc: BaseException) -> ScenarioReport:
    from pathlib import Path

    from kernel_tui.engine.stages.loader import stage_error

    stage = outbox.record.stage or "load"
    error = stage_error({"profile": "compile"}.get(stage, stage), Path(request.path), exc).error
    return _engine_failure(request, device, outbox, error)


def _engine_failure(request: RunRequest, device: str, outbox: RunOutbox, error: ScenarioError) -> ScenarioReport:
    """A report for a run the engine could not finish, made from the run's record as a front end makes one for an
    engine that died (``run_record.died_report``): what was measured before it (the last partial report, the
    sweep's points since), else the device, torch and the size; the scenario's claims checked against it."""
    import torch

    from kernel_tui.engine.counting.device import device_name
    from kernel_tui.model.death.engine_death import EngineFacts
    from kernel_tui.transport.run_record import died_report

    engine = EngineFacts(device, device_name(device), torch.__version__, torch.get_num_threads())
    return died_report(outbox.record, error, engine, size=request.size)


def _internal_error(path: str, details: str) -> ScenarioError:
    """A bug in the engine, as the run's error: the traceback's last line, the whole of it one key away."""
    from kernel_tui.model.death.engine_death import engine_error

    last = details.strip().splitlines()[-1] if details.strip() else "internal error"
    return engine_error(last, file=path, details=details)
