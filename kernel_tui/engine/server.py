"""The engine's request loop: read ``run`` requests on stdin, stream messages back on the protocol stream."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from typing import IO, Any

from kernel_tui import protocol


def serve(argv: list[str], out: IO[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m kernel_tui.engine")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    options = parser.parse_args(argv)

    def send(message_type: str, **fields: Any) -> None:
        out.write(protocol.encode(message_type, **fields))
        out.flush()

    import torch

    from kernel_tui.engine import compile_watch
    from kernel_tui.engine.device import choose_device, configure_torch, device_name
    from kernel_tui.engine.measure import measure_scenario

    try:
        device = choose_device(options.device)
    except RuntimeError as error:
        print(f"kernel-tui engine: {error}", file=sys.stderr)
        sys.exit(3)
    configure_torch(device)
    compile_watch.install()
    send(
        "hello",
        protocol=protocol.PROTOCOL_VERSION,
        pid=os.getpid(),
        device=device,
        device_name=device_name(device),
        torch_version=torch.__version__,
        threads=torch.get_num_threads(),
    )
    for line in sys.stdin:
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

        def emit(message_type: str, _run_id: Any = run_id, **fields: Any) -> None:
            send(message_type, run_id=_run_id, **fields)

        try:
            report = measure_scenario(
                request["path"],
                device,
                size=request.get("size"),
                sizes=request.get("sizes"),
                run_sweep=bool(request.get("sweep", True)),
                trace_dir=request.get("trace_dir"),
                emit=emit,
            )
            emit("done", report=report.to_dict())
        except Exception:  # noqa: BLE001 - a bug in the engine must reach the user as that run's error
            details = traceback.format_exc()
            print(details, file=sys.stderr)
            emit("done", report=_engine_failure(request["path"], device, details))


def _engine_failure(path: str, device: str, details: str) -> dict[str, Any]:
    from kernel_tui.report import ScenarioError, ScenarioReport

    last = details.strip().splitlines()[-1] if details.strip() else "internal error"
    report = ScenarioReport(path, path, device, "", "", 0, error=ScenarioError("engine", last, None, path, details))
    return report.to_dict()
