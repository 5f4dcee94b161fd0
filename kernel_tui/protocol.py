"""The versioned JSON-lines protocol between a front end (CLI or app) and the engine child process.

One JSON object per line. The engine writes on its protocol stream (its original stdout, which it moves
away from fd 1 before any user code runs); the front end writes requests on the engine's stdin.

Engine -> front end, each with ``type``:
    hello        {protocol, pid, device, device_name, torch_version, threads, warmup}  once, when ready;
                                                 warmup: null, or {cold, estimate_s} when the engine
                                                 (``--warm-up``) now compiles a tiny function
    warmup       {state, seconds[, cold, message]}  that compile ended; state: done or failed
    progress     {run_id, stage, detail[, total]} stage: load, inputs, eager, compile, profile, sweep;
                                                 the sweep's says how many points will follow
    partial      {run_id, report}                a report with what is known so far (eager first)
    sweep_point  {run_id, point}                 one SweepPoint as soon as it is measured
    done         {run_id, report[, restart]}     the final ScenarioReport; restart: the scenario changed what
                                                 the engine cannot restore, and it ends after this message
Front end -> engine:
    run          {run_id, path, size, sizes, sweep, trace_dir[, variants]}
                                                 variants: {NAME: {torch.compile arguments}}, added to or
                                                 overriding the file's VARIANTS (``--variant``)
    quit         {}
"""

from __future__ import annotations

import json
from typing import Any

PROTOCOL_VERSION = 1

STAGES = ("load", "inputs", "eager", "compile", "profile", "sweep")


class ProtocolError(ValueError):
    """A line on the protocol stream that is not a message of this version."""


def encode(message_type: str, **fields: Any) -> str:
    return json.dumps({"type": message_type, **fields}, allow_nan=True) + "\n"


def decode(line: str) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except json.JSONDecodeError as error:
        raise ProtocolError(f"not JSON: {line[:200]!r}") from error
    if not isinstance(message, dict) or "type" not in message:
        raise ProtocolError(f"not a message: {line[:200]!r}")
    return message


def run_request(
    run_id: int,
    path: str,
    *,
    size: int | None = None,
    sizes: list[int] | None = None,
    sweep: bool = True,
    trace_dir: str | None = None,
    variants: dict[str, dict[str, Any]] | None = None,
) -> str:
    # Sent only when given, so that a request without variants reads exactly as it did before them.
    extra = {"variants": variants} if variants else {}
    return encode("run", run_id=run_id, path=path, size=size, sizes=sizes, sweep=sweep, trace_dir=trace_dir, **extra)
